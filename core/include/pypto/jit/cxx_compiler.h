// In-process C++ compiler for generated kernels (Clang's libraries, no
// compiler subprocess), with an on-disk object cache.
//
// The output is a relocatable ELF object, not an llvm::Module: an object is
// what the cache stores and what a JitSession links, so a warm call reads one
// file and never touches Clang, and cold and warm calls hand the session the
// same kind of thing.
//
// Thread safety: Compile may be called concurrently on one CxxCompiler; every
// call builds its own Clang CompilerInstance and LLVMContext, the statistics
// are atomic, and cache entries are written atomically.
#pragma once

#include <atomic>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pypto/jit/object_cache.h"

namespace pypto::jit {

struct CompileOptions {
  // Shown in diagnostics as the file name ("kernels/aiv/add.cpp:3:5: error: ...").
  std::string name = "kernel.cpp";
  std::string std = "c++17";
  int opt_level = 3;  // 0..3
  // Passed as -march=; "native" targets the host CPU (the cache key records it).
  std::string march = "native";
  bool freestanding = false;  // -ffreestanding: no hosted library assumptions
  std::vector<std::filesystem::path> include_dirs;
  std::vector<std::string> defines;      // "NAME" or "NAME=VALUE"
  std::vector<std::string> extra_flags;  // further driver flags, e.g. "-ffast-math"
};

struct CompiledObject {
  std::string name;   // CompileOptions::name
  std::string bytes;  // relocatable ELF object
  bool from_cache = false;
};

class CxxCompiler {
 public:
  struct Stats {
    int compiles = 0;          // Clang frontend+codegen runs
    int cache_hits = 0;        // objects served from disk
    int cache_rejected = 0;    // entries found corrupt or stale and rebuilt
    int cache_store_failures = 0;
  };

  // Caches under ObjectCache::DefaultDirectory().
  CxxCompiler();
  // Caches under `cache_dir`; std::nullopt disables the disk cache.
  explicit CxxCompiler(std::optional<std::filesystem::path> cache_dir);
  ~CxxCompiler();
  CxxCompiler(const CxxCompiler&) = delete;
  CxxCompiler& operator=(const CxxCompiler&) = delete;

  // Throws pypto::Error (ErrorKind::kCompile) carrying Clang's diagnostics and
  // the first error's file:line:col as its span.
  CompiledObject Compile(const std::string& source, const CompileOptions& options = {});

  // The cache key Compile uses for (source, options): a hash of the source,
  // the options, the PyPTO and LLVM versions and the target CPU and features.
  std::string CacheKey(const std::string& source, const CompileOptions& options) const;

  Stats stats() const;
  const ObjectCache* cache() const { return cache_ ? &*cache_ : nullptr; }

 private:
  std::string CompileUncached(const std::string& source, const CompileOptions& options,
                              std::vector<std::string>* dependencies);

  std::optional<ObjectCache> cache_;
  std::atomic<int> compiles_{0};
  std::atomic<int> cache_hits_{0};
  std::atomic<int> cache_rejected_{0};
  std::atomic<int> cache_store_failures_{0};
};

}  // namespace pypto::jit
