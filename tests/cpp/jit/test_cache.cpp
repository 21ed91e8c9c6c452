#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "jit/jit_test_util.h"
#include "pypto/jit/cxx_compiler.h"
#include "pypto/jit/jit_session.h"
#include "pypto/jit/object_cache.h"

namespace pypto::jit {
namespace {

using testing::kAddSource;
using testing::ScratchDir;

int CallAdd(const CompiledObject& object, int a, int b) {
  JitSession session;
  session.AddObject(object);
  return session.LookupFunction<int(int, int)>("add")(a, b);
}

TEST(ObjectCache, DefaultDirectoryFollowsTheEnvironment) {
  const char* saved = std::getenv("PYPTO_CACHE_DIR");
  std::string saved_value = saved ? saved : "";
  setenv("PYPTO_CACHE_DIR", "/tmp/pypto-elsewhere", 1);
  EXPECT_EQ(ObjectCache::DefaultDirectory(), std::filesystem::path("/tmp/pypto-elsewhere"));
  unsetenv("PYPTO_CACHE_DIR");
  EXPECT_EQ(ObjectCache::DefaultDirectory().filename(), "pypto");
  if (saved) setenv("PYPTO_CACHE_DIR", saved_value.c_str(), 1);
}

TEST(ObjectCache, SecondCompileInOneProcessHits) {
  ScratchDir dir;
  CxxCompiler compiler(dir.path());
  CompiledObject first = compiler.Compile(kAddSource);
  CompiledObject second = compiler.Compile(kAddSource);
  EXPECT_FALSE(first.from_cache);
  EXPECT_TRUE(second.from_cache);
  EXPECT_EQ(first.bytes, second.bytes);
  EXPECT_EQ(compiler.stats().compiles, 1);
  EXPECT_EQ(compiler.stats().cache_hits, 1);
  EXPECT_EQ(CallAdd(second, 1, 2), 3);
}

TEST(ObjectCache, FreshCompilerWithTheSameDirectoryCompilesNothing) {
  ScratchDir dir;
  CxxCompiler(dir.path()).Compile(kAddSource);
  CxxCompiler fresh(dir.path());
  CompiledObject object = fresh.Compile(kAddSource);
  EXPECT_TRUE(object.from_cache);
  EXPECT_EQ(fresh.stats().compiles, 0);
  EXPECT_EQ(CallAdd(object, 20, 22), 42);
}

TEST(ObjectCache, EverythingThatChangesTheOutputChangesTheKey) {
  CxxCompiler compiler(std::nullopt);
  CompileOptions base;
  std::string key = compiler.CacheKey(kAddSource, base);
  EXPECT_EQ(key, compiler.CacheKey(kAddSource, base));
  EXPECT_NE(key, compiler.CacheKey(std::string(kAddSource) + " ", base));
  CompileOptions o1 = base;
  o1.opt_level = 1;
  EXPECT_NE(key, compiler.CacheKey(kAddSource, o1));
  CompileOptions o2 = base;
  o2.defines = {"X=1"};
  EXPECT_NE(key, compiler.CacheKey(kAddSource, o2));
  CompileOptions o3 = base;
  o3.march = "x86-64";
  EXPECT_NE(key, compiler.CacheKey(kAddSource, o3));
}

TEST(ObjectCache, TruncatedEntryIsDetectedAndRebuilt) {
  ScratchDir dir;
  CxxCompiler compiler(dir.path());
  compiler.Compile(kAddSource);
  auto entry = compiler.cache()->EntryPath(compiler.CacheKey(kAddSource, {}));
  ASSERT_TRUE(std::filesystem::exists(entry));
  auto size = std::filesystem::file_size(entry);
  std::filesystem::resize_file(entry, size / 2);

  CompiledObject rebuilt = compiler.Compile(kAddSource);
  EXPECT_FALSE(rebuilt.from_cache);
  EXPECT_EQ(compiler.stats().compiles, 2);
  EXPECT_EQ(compiler.stats().cache_rejected, 1);
  EXPECT_EQ(std::filesystem::file_size(entry), size);
  EXPECT_EQ(CallAdd(rebuilt, 4, 5), 9);
  EXPECT_TRUE(compiler.Compile(kAddSource).from_cache);
}

TEST(ObjectCache, FlippedByteIsDetectedAndRebuilt) {
  ScratchDir dir;
  CxxCompiler compiler(dir.path());
  compiler.Compile(kAddSource);
  auto entry = compiler.cache()->EntryPath(compiler.CacheKey(kAddSource, {}));
  {
    std::fstream file(entry, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(static_cast<std::streamoff>(std::filesystem::file_size(entry) - 16));
    file.put('\x5a');
  }
  CompiledObject rebuilt = compiler.Compile(kAddSource);
  EXPECT_FALSE(rebuilt.from_cache);
  EXPECT_EQ(compiler.stats().cache_rejected, 1);
  EXPECT_EQ(CallAdd(rebuilt, 4, 5), 9);
}

TEST(ObjectCache, EntryShorterThanItsHeaderIsCorruptAndRemoved) {
  ScratchDir dir;
  ObjectCache cache(dir.path());
  ASSERT_TRUE(cache.Store("abcdef", "payload"));
  EXPECT_EQ(cache.Load("abcdef").payload, "payload");
  std::filesystem::resize_file(cache.EntryPath("abcdef"), 5);
  EXPECT_EQ(cache.Load("abcdef").status, ObjectCache::Status::kCorrupt);
  EXPECT_FALSE(std::filesystem::exists(cache.EntryPath("abcdef")));
  EXPECT_EQ(cache.Load("abcdef").status, ObjectCache::Status::kMiss);
}

TEST(ObjectCache, EditedHeaderMakesTheEntryStale) {
  ScratchDir dir;
  std::filesystem::path include = dir.path() / "include";
  std::filesystem::create_directories(include);
  std::ofstream(include / "value.h") << "#define VALUE 1\n";
  CompileOptions options;
  options.include_dirs = {include};
  const char* source = "#include \"value.h\"\nextern \"C\" int value() { return VALUE; }\n";
  CxxCompiler compiler(dir.path() / "cache");
  compiler.Compile(source, options);
  std::ofstream(include / "value.h") << "#define VALUE 2\n";

  CompiledObject object = compiler.Compile(source, options);
  EXPECT_FALSE(object.from_cache);
  EXPECT_EQ(compiler.stats().cache_rejected, 1);
  JitSession session;
  session.AddObject(object);
  EXPECT_EQ(session.LookupFunction<int()>("value")(), 2);
}

TEST(ObjectCache, EditedSystemHeaderMakesTheEntryStale) {
  ScratchDir dir;
  std::filesystem::path include = dir.path() / "system";
  std::filesystem::create_directories(include);
  std::ofstream(include / "sys_value.h") << "#define SYS_VALUE 1\n";
  CompileOptions options;
  options.extra_flags = {"-isystem", include.string()};
  const char* source = "#include <sys_value.h>\nextern \"C\" int value() { return SYS_VALUE; }\n";
  CxxCompiler compiler(dir.path() / "cache");
  compiler.Compile(source, options);
  EXPECT_TRUE(compiler.Compile(source, options).from_cache);
  std::ofstream(include / "sys_value.h") << "#define SYS_VALUE 7\n";

  CompiledObject object = compiler.Compile(source, options);
  EXPECT_FALSE(object.from_cache);
  JitSession session;
  session.AddObject(object);
  EXPECT_EQ(session.LookupFunction<int()>("value")(), 7);
}

TEST(ObjectCache, UnwritableDirectoryStillCompiles) {
  ScratchDir dir;
  std::ofstream(dir.path() / "file") << "not a directory";
  CxxCompiler compiler(dir.path() / "file");
  EXPECT_EQ(CallAdd(compiler.Compile(kAddSource), 1, 1), 2);
  EXPECT_EQ(compiler.stats().cache_store_failures, 1);
}

// Run by CacheAcrossProcesses in a child process; skipped otherwise. The child
// uses the default cache directory, which the parent points at its scratch
// directory through PYPTO_CACHE_DIR.
TEST(ObjectCacheChild, CompilesExpectedNumberOfTimes) {
  const char* expected = std::getenv("PYPTO_JIT_TEST_EXPECT_COMPILES");
  if (expected == nullptr) GTEST_SKIP() << "runs only as the child of ObjectCache.SecondProcessCompilesNothing";
  CxxCompiler compiler;
  CompiledObject object = compiler.Compile(kAddSource);
  EXPECT_EQ(compiler.stats().compiles, std::atoi(expected));
  EXPECT_EQ(CallAdd(object, 40, 2), 42);
}

int RunChild(const std::filesystem::path& cache_dir, int expected_compiles) {
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe");
  std::string command = "PYPTO_CACHE_DIR='" + cache_dir.string() + "' PYPTO_JIT_TEST_EXPECT_COMPILES=" +
                        std::to_string(expected_compiles) + " '" + self.string() +
                        "' --gtest_filter=ObjectCacheChild.CompilesExpectedNumberOfTimes > '" +
                        (cache_dir.parent_path() / "child.log").string() + "' 2>&1";
  return std::system(command.c_str());
}

TEST(ObjectCache, SecondProcessCompilesNothing) {
  ScratchDir dir;
  std::filesystem::path cache_dir = dir.path() / "cache";
  EXPECT_EQ(RunChild(cache_dir, 1), 0) << "first child should compile once; see " << dir.path() / "child.log";
  EXPECT_EQ(RunChild(cache_dir, 0), 0) << "second child should load from disk; see " << dir.path() / "child.log";
}

}  // namespace
}  // namespace pypto::jit
