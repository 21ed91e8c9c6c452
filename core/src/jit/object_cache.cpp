#include "pypto/jit/object_cache.h"

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <system_error>

#include "hash.h"

namespace pypto::jit {

namespace {

// Bump kFormatVersion whenever the header or the payload encoding changes.
constexpr char kMagic[8] = {'P', 'Y', 'P', 'T', 'O', 'O', 'B', 'J'};
constexpr uint32_t kFormatVersion = 1;

struct Header {
  char magic[8];
  uint32_t format_version;
  uint32_t reserved;
  uint64_t payload_size;
  uint64_t payload_checksum;
};
static_assert(sizeof(Header) == 32);

std::string ReadWholeFile(const std::filesystem::path& path, bool* ok) {
  std::ifstream in(path, std::ios::binary);
  *ok = static_cast<bool>(in);
  if (!*ok) return {};
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The payload of a well-formed entry; nullopt for a truncated, extended,
// corrupted or older-format one.
std::optional<std::string_view> IntactPayload(const std::string& contents) {
  Header header;
  if (contents.size() < sizeof(Header)) return std::nullopt;
  std::memcpy(&header, contents.data(), sizeof(Header));
  if (std::memcmp(header.magic, kMagic, sizeof(kMagic)) != 0 || header.format_version != kFormatVersion ||
      header.payload_size != contents.size() - sizeof(Header)) {
    return std::nullopt;
  }
  std::string_view payload(contents.data() + sizeof(Header), header.payload_size);
  if (Checksum64(payload) != header.payload_checksum) return std::nullopt;
  return payload;
}

std::filesystem::path HomeCacheDirectory() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0') {
    return std::filesystem::path(xdg) / "pypto";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return std::filesystem::path(home) / ".cache" / "pypto";
  }
  return std::filesystem::temp_directory_path() / "pypto-cache";
}

}  // namespace

ObjectCache::ObjectCache(std::filesystem::path directory) : directory_(std::move(directory)) {}

std::filesystem::path ObjectCache::DefaultDirectory() {
  if (const char* dir = std::getenv("PYPTO_CACHE_DIR"); dir != nullptr && *dir != '\0') {
    return std::filesystem::path(dir);
  }
  return HomeCacheDirectory();
}

std::filesystem::path ObjectCache::EntryPath(const std::string& key) const {
  return directory_ / "objects" / key.substr(0, 2) / (key + ".obj");
}

ObjectCache::LoadResult ObjectCache::Load(const std::string& key) const {
  std::filesystem::path path = EntryPath(key);
  bool ok = false;
  std::string contents = ReadWholeFile(path, &ok);
  if (!ok) return {Status::kMiss, {}};
  std::optional<std::string_view> payload = IntactPayload(contents);
  if (!payload) {
    std::error_code ignored;
    std::filesystem::remove(path, ignored);
    return {Status::kCorrupt, {}};
  }
  return {Status::kHit, std::string(*payload)};
}

bool ObjectCache::Store(const std::string& key, std::string_view payload) const {
  std::filesystem::path path = EntryPath(key);
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) return false;
  // Unique per process and per call, so concurrent writers never share a temp file.
  static std::atomic<uint64_t> counter{0};
  std::filesystem::path temp = path;
  temp += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter.fetch_add(1));

  Header header{};
  std::memcpy(header.magic, kMagic, sizeof(kMagic));
  header.format_version = kFormatVersion;
  header.payload_size = payload.size();
  header.payload_checksum = Checksum64(payload);
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(&header), sizeof(header));
    out.write(payload.data(), static_cast<std::streamsize>(payload.size()));
    out.close();
    if (!out) {
      std::filesystem::remove(temp, ec);
      return false;
    }
  }
  std::filesystem::rename(temp, path, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(temp, ignored);
    return false;
  }
  return true;
}

}  // namespace pypto::jit
