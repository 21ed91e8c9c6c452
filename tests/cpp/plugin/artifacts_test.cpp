// The compile output layout: the standard artifact paths, the checks on what
// a backend returns, and WriteArtifacts (atomic files, no path out of the
// output folder).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "plugin/error_matchers.h"
#include "pypto/backend/backend.h"

namespace fs = std::filesystem;
using pypto::Error;
using pypto::ErrorKind;
using pypto::backend::Artifact;
using pypto::backend::ArtifactKind;
using pypto::testing::Contains;
using pypto::testing::ErrorFrom;
namespace ir = pypto::ir;

namespace {

Artifact Kernel(const std::string& path, ir::FunctionType core, const std::string& text = "k") {
  return {path, ArtifactKind::kKernelSource, core, "f", text};
}
Artifact Report(const std::string& path, const std::string& text = "r") {
  return {path, ArtifactKind::kReport, std::nullopt, "", text};
}

std::string ReadText(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class OutputDir : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) /
            ("pypto_artifacts_" + std::to_string(getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  // Every file under root_, relative, sorted.
  std::vector<std::string> Files() const {
    std::vector<std::string> files;
    for (const auto& entry : fs::recursive_directory_iterator(root_)) {
      if (entry.is_regular_file()) files.push_back(fs::relative(entry.path(), root_).string());
    }
    std::sort(files.begin(), files.end());
    return files;
  }

  fs::path root_;
};

TEST(ArtifactPaths, StandardLayout) {
  EXPECT_EQ(pypto::backend::KernelPath(ir::FunctionType::AIV, "add"), "kernels/aiv/add.cpp");
  EXPECT_EQ(pypto::backend::KernelPath(ir::FunctionType::AIC, "mm"), "kernels/aic/mm.cpp");
  EXPECT_EQ(pypto::backend::KernelPath(ir::FunctionType::Group, "g"), "kernels/group/g.cpp");
  EXPECT_EQ(pypto::backend::OrchestrationPath("main"), "orchestration/main.ll");
  EXPECT_EQ(pypto::backend::ReportPath("perf_hints.log"), "report/perf_hints.log");
  EXPECT_EQ(pypto::backend::DebugPath("run.py"), "debug/run.py");
  Error e = ErrorFrom([] { pypto::backend::KernelPath(ir::FunctionType::Orchestration, "main"); });
  EXPECT_EQ(e.kind(), ErrorKind::kValue);
  EXPECT_TRUE(Contains(e.message(), "function 'main' is of type Orchestration; kernel sources exist for AIC, AIV "
                                    "and Group functions"));
}

TEST(CheckArtifacts, AcceptsTheLayout) {
  EXPECT_NO_THROW(pypto::backend::CheckArtifacts(
      "b", {Kernel("kernels/aiv/add.cpp", ir::FunctionType::AIV), Kernel("kernels/aic/mm.cpp", ir::FunctionType::AIC),
            {"orchestration/main.ll", ArtifactKind::kOrchestrationIR, std::nullopt, "main", ""},
            Report("report/functions.txt"), {"debug/run.py", ArtifactKind::kDebug, std::nullopt, "", ""}}));
}

TEST(CheckArtifacts, NamesTheBackendAndEveryProblem) {
  Error e = ErrorFrom([] {
    pypto::backend::CheckArtifacts("npu", {Kernel("kernels/aic/add.cpp", ir::FunctionType::AIV),
                                           Kernel("kernels/aiv/x.cpp", ir::FunctionType::Orchestration),
                                           Report("kernels/aiv/notes.txt"), Report("report/a.txt"),
                                           Report("report/./a.txt"), Report("/tmp/evil.txt"),
                                           Report("report/../../evil.txt")});
  });
  EXPECT_EQ(e.kind(), ErrorKind::kValue);
  EXPECT_TRUE(Contains(e.message(), "backend 'npu' returned artifacts that do not fit the output layout: "));
  EXPECT_TRUE(Contains(e.message(), "the kernel source 'kernels/aic/add.cpp' must lie under kernels/aiv/"));
  EXPECT_TRUE(Contains(e.message(), "the kernel source 'kernels/aiv/x.cpp' has no core type; set Artifact::core to "
                                    "AIC, AIV or Group"));
  EXPECT_TRUE(Contains(e.message(), "the report 'kernels/aiv/notes.txt' must lie under report/"));
  EXPECT_TRUE(Contains(e.message(), "two artifacts have the path 'report/./a.txt'"));
  EXPECT_TRUE(Contains(e.message(), "the path '/tmp/evil.txt' is absolute"));
  EXPECT_TRUE(Contains(e.message(), "the path 'report/../../evil.txt' climbs out of the output folder with '..'"));
}

TEST_F(OutputDir, WritesTheLayout) {
  auto written = pypto::backend::WriteArtifacts(
      root_ / "out", {Kernel("kernels/aiv/add.cpp", ir::FunctionType::AIV, "// add\n"),
                      Report("report/functions.txt", "add AIV 2\n")});
  EXPECT_EQ(written, (std::vector<fs::path>{root_ / "out/kernels/aiv/add.cpp", root_ / "out/report/functions.txt"}));
  EXPECT_EQ(Files(), (std::vector<std::string>{"out/kernels/aiv/add.cpp", "out/report/functions.txt"}));
  EXPECT_EQ(ReadText(root_ / "out/kernels/aiv/add.cpp"), "// add\n");
  EXPECT_EQ(ReadText(root_ / "out/report/functions.txt"), "add AIV 2\n");
}

TEST_F(OutputDir, ReplacesAnEarlierFileWhole) {
  pypto::backend::WriteArtifacts(root_, {Report("report/r.txt", std::string(4096, 'x'))});
  pypto::backend::WriteArtifacts(root_, {Report("report/r.txt", "short")});
  EXPECT_EQ(ReadText(root_ / "report/r.txt"), "short");
  // No temporary file is left beside it.
  EXPECT_EQ(Files(), std::vector<std::string>{"report/r.txt"});
}

TEST_F(OutputDir, PathsOutOfTheOutputFolderAreRefusedBeforeWriting) {
  for (const std::string path : {"../escape.txt", "report/../../escape.txt", "/tmp/escape.txt", "", "report/"}) {
    Error e = ErrorFrom([&] {
      pypto::backend::WriteArtifacts(root_ / "out", {Report("report/first.txt"), Report(path)});
    });
    EXPECT_EQ(e.kind(), ErrorKind::kValue) << path;
    EXPECT_TRUE(Contains(e.message(), "WriteArtifacts: cannot write a report under " + (root_ / "out").string()))
        << path;
  }
  EXPECT_TRUE(Files().empty());
  EXPECT_FALSE(fs::exists(root_ / "escape.txt"));
  Error e = ErrorFrom([&] { pypto::backend::WriteArtifacts(root_, {Report("../escape.txt")}); });
  EXPECT_TRUE(Contains(e.message(), "the path '../escape.txt' climbs out of the output folder with '..'"));
  e = ErrorFrom([&] { pypto::backend::WriteArtifacts(root_, {Report("/tmp/escape.txt")}); });
  EXPECT_TRUE(Contains(e.message(), "the path '/tmp/escape.txt' is absolute"));
}

TEST_F(OutputDir, SymbolicLinkOutOfTheOutputFolderIsRefused) {
  fs::create_directories(root_ / "out");
  fs::create_directories(root_ / "elsewhere");
  fs::create_directory_symlink(root_ / "elsewhere", root_ / "out/report");
  Error e = ErrorFrom([&] { pypto::backend::WriteArtifacts(root_ / "out", {Report("report/r.txt")}); });
  EXPECT_EQ(e.kind(), ErrorKind::kValue);
  EXPECT_TRUE(Contains(e.message(), "the path 'report/r.txt' leads out of " + (root_ / "out").string() +
                                        " through a symbolic link"));
  EXPECT_FALSE(fs::exists(root_ / "elsewhere/r.txt"));
}

TEST_F(OutputDir, UnwritableFolderIsAnOSErrorNamingTheFile) {
  std::ofstream(root_ / "report") << "a file where a folder should be";
  Error e = ErrorFrom([&] { pypto::backend::WriteArtifacts(root_, {Report("report/r.txt")}); });
  EXPECT_EQ(e.kind(), ErrorKind::kIO);
  EXPECT_TRUE(Contains(e.message(), "cannot write artifact " + (root_ / "report/r.txt").string()));
}

}  // namespace
