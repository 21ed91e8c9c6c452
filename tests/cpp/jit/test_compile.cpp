#include <gtest/gtest.h>

#include <fstream>
#include <thread>
#include <vector>

#include "jit/jit_test_util.h"
#include "pypto/jit/cxx_compiler.h"
#include "pypto/jit/jit_session.h"
#include "pypto/support/error.h"

namespace pypto::jit {
namespace {

using testing::kAddSource;
using testing::ScratchDir;

TEST(CxxCompiler, CompilesAndRunsFreestandingFunction) {
  CxxCompiler compiler(std::nullopt);
  CompileOptions options;
  options.name = "add.cpp";
  options.freestanding = true;
  JitSession session;
  session.AddObject(compiler.Compile(kAddSource, options));
  auto* add = session.LookupFunction<int(int, int)>("add");
  EXPECT_EQ(add(2, 40), 42);
  EXPECT_EQ(add(-7, 3), -4);
  EXPECT_EQ(compiler.stats().compiles, 1);
}

TEST(CxxCompiler, DefinesAndIncludeDirsReachTheSource) {
  ScratchDir dir;
  std::ofstream(dir.path() / "scale.h") << "#define SCALE 3\n";
  CxxCompiler compiler(std::nullopt);
  CompileOptions options;
  options.include_dirs = {dir.path()};
  options.defines = {"OFFSET=5"};
  JitSession session;
  session.AddObject(compiler.Compile("#include \"scale.h\"\nextern \"C\" int f(int x) { return x * SCALE + OFFSET; }\n",
                                     options));
  EXPECT_EQ(session.LookupFunction<int(int)>("f")(10), 35);
}

TEST(CxxCompiler, CompileErrorNamesFileLineAndColumn) {
  CxxCompiler compiler(std::nullopt);
  CompileOptions options;
  options.name = "kernels/aiv/broken.cpp";
  const char* source =
      "extern \"C\" int f(int x) {\n"
      "  return x +;\n"
      "}\n";
  try {
    compiler.Compile(source, options);
    FAIL() << "expected a compile error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kCompile);
    EXPECT_EQ(e.span().filename, "kernels/aiv/broken.cpp");
    EXPECT_EQ(e.span().begin_line, 2);
    EXPECT_EQ(e.span().begin_col, 13);
    EXPECT_NE(e.message().find("kernels/aiv/broken.cpp:2:13: error: expected expression"), std::string::npos)
        << e.message();
    EXPECT_NE(std::string(e.what()).find("kernels/aiv/broken.cpp:2:13"), std::string::npos);
  }
}

TEST(CxxCompiler, BadFlagIsACompileError) {
  CxxCompiler compiler(std::nullopt);
  CompileOptions options;
  options.march = "no-such-cpu";
  try {
    compiler.Compile(kAddSource, options);
    FAIL() << "expected a compile error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kCompile);
    EXPECT_NE(e.message().find("no-such-cpu"), std::string::npos) << e.message();
  }
}

TEST(CxxCompiler, HostedHeadersAreAvailable) {
  CxxCompiler compiler(std::nullopt);
  JitSession session;
  session.AddObject(compiler.Compile(
      "#include <cmath>\nextern \"C\" double hyp(double a, double b) { return std::sqrt(a * a + b * b); }\n"));
  EXPECT_DOUBLE_EQ(session.LookupFunction<double(double, double)>("hyp")(3.0, 4.0), 5.0);
}

TEST(CxxCompiler, ConcurrentCompilesShareOneCompilerAndCache) {
  ScratchDir dir;
  CxxCompiler compiler(dir.path());
  constexpr int kThreads = 4;
  std::vector<CompiledObject> objects(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      // Threads 0 and 1 compile the same source, so their cache stores race.
      int constant = i < 2 ? 100 : 100 + i;
      objects[i] = compiler.Compile("extern \"C\" int value() { return " + std::to_string(constant) + "; }\n");
    });
  }
  for (auto& t : threads) t.join();
  for (int i = 0; i < kThreads; ++i) {
    JitSession session;
    session.AddObject(objects[i]);
    EXPECT_EQ(session.LookupFunction<int()>("value")(), i < 2 ? 100 : 100 + i);
  }
  CxxCompiler::Stats stats = compiler.stats();
  EXPECT_EQ(stats.compiles + stats.cache_hits, kThreads);
  EXPECT_EQ(stats.cache_rejected, 0);
  EXPECT_TRUE(compiler.Compile("extern \"C\" int value() { return 100; }\n").from_cache);
}

}  // namespace
}  // namespace pypto::jit
