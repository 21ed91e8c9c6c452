// Hashing for the JIT's cache: a collision-resistant key hash and a fast
// integrity checksum for entries.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/BLAKE3.h>
#include <llvm/Support/xxhash.h>

namespace pypto::jit {

inline uint64_t Checksum64(std::string_view data) { return llvm::xxHash64(llvm::StringRef(data.data(), data.size())); }

// Every field is length-prefixed so that ("ab", "c") and ("a", "bc") differ.
class KeyHasher {
 public:
  KeyHasher& Add(std::string_view field) {
    uint64_t size = field.size();
    hasher_.update(llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t*>(&size), sizeof(size)));
    hasher_.update(llvm::StringRef(field.data(), field.size()));
    return *this;
  }
  std::string HexDigest() {
    auto digest = hasher_.final();
    return llvm::toHex(digest, /*LowerCase=*/true);
  }

 private:
  llvm::BLAKE3 hasher_;
};

}  // namespace pypto::jit
