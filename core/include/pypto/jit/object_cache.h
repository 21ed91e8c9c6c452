// On-disk cache of compiled objects, shared by every process of a user.
//
// An entry is one file named by its key. It starts with a fixed header (magic,
// format version, payload size, payload checksum) so that a truncated or
// corrupted file is detected and reported as kCorrupt instead of being loaded;
// the caller then rebuilds and stores a fresh entry. Writes go to a temporary
// file in the same directory that is renamed over the entry, so a reader never
// sees a half-written entry, and two processes storing the same key race
// harmlessly (the last rename wins; both contents are valid).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace pypto::jit {

class ObjectCache {
 public:
  enum class Status { kHit, kMiss, kCorrupt };
  struct LoadResult {
    Status status = Status::kMiss;
    std::string payload;  // only for kHit
  };

  explicit ObjectCache(std::filesystem::path directory);

  // $PYPTO_CACHE_DIR when set and non-empty, else $XDG_CACHE_HOME/pypto, else
  // ~/.cache/pypto.
  static std::filesystem::path DefaultDirectory();

  const std::filesystem::path& directory() const { return directory_; }
  // Where the entry for `key` lives (whether or not it exists).
  std::filesystem::path EntryPath(const std::string& key) const;

  // A corrupt entry is removed so that the next Store replaces it cleanly.
  LoadResult Load(const std::string& key) const;
  // Returns false (and leaves no partial file) when the directory cannot be
  // written: a cache that cannot store is slower, never wrong.
  bool Store(const std::string& key, std::string_view payload) const;

 private:
  std::filesystem::path directory_;
};

}  // namespace pypto::jit
