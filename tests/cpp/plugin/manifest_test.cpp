#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "plugin/error_matchers.h"
#include "pypto/plugin/abi.h"
#include "pypto/plugin/host.h"

namespace fs = std::filesystem;
using pypto::Error;
using pypto::ErrorKind;
using pypto::plugin::KernelParamDirection;
using pypto::plugin::KernelSpec;
using pypto::plugin::Manifest;
using pypto::plugin::ParseManifest;
using pypto::testing::Contains;
using pypto::testing::ErrorFrom;

namespace {

const fs::path kFixtures = PYPTO_PLUGIN_FIXTURE_DIR;

class ManifestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) / ("pypto_manifest_" + std::to_string(getpid())) / info->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path Write(const std::string& text) {
    fs::path file = dir_ / "manifest.yaml";
    std::ofstream(file) << text;
    return file;
  }

  Error ParseError(const std::string& text) {
    fs::path file = Write(text);
    return ErrorFrom([&] { ParseManifest(file); });
  }

  fs::path dir_;
};

const char* kValid =
    "name: my_pass\n"
    "kind: pass\n"
    "version: 2.1.0\n"
    "abi: 4\n"
    "library: libmy_pass.so\n"
    "provides: [MyPass, MyOtherPass]\n"
    "requires: [base]\n"
    "description: Does things.\n";

TEST_F(ManifestTest, ReadsEveryField) {
  fs::path file = Write(kValid);
  Manifest m = ParseManifest(file);
  EXPECT_EQ(m.name, "my_pass");
  EXPECT_EQ(m.kind, "pass");
  EXPECT_EQ(m.version, "2.1.0");
  EXPECT_EQ(m.abi, PYPTO_PLUGIN_ABI_VERSION);
  EXPECT_EQ(m.library, "libmy_pass.so");
  EXPECT_EQ(m.provides, (std::vector<std::string>{"MyPass", "MyOtherPass"}));
  EXPECT_EQ(m.requires_, (std::vector<std::string>{"base"}));
  EXPECT_EQ(m.description, "Does things.");
  EXPECT_EQ(m.manifest_path, file);
  EXPECT_EQ(m.library_path(), dir_ / "libmy_pass.so");
}

TEST_F(ManifestTest, RequiresAndDescriptionAreOptional) {
  Manifest m = ParseManifest(Write("name: a\nkind: pass\nversion: '1'\nabi: 4\nlibrary: liba.so\nprovides: []\n"));
  EXPECT_TRUE(m.requires_.empty());
  EXPECT_TRUE(m.provides.empty());
  EXPECT_EQ(m.description, "");
  EXPECT_EQ(m.kind, "pass");
}

// A kernel plugin is sources and signatures, no library; it provides its kernels.
TEST_F(ManifestTest, KernelPluginReadsItsKernelsSignatures) {
  fs::path manifest = Write("name: k\nkind: kernel\nversion: '1'\nabi: 4\nkernels:\n"
                            "  - name: scale\n    core: AIV\n    source: manifest.yaml\n"
                            "    tensors: [{name: x, dtype: FP32, shape: [M, 64], direction: InOut}]\n"
                            "    scalars: [{name: s, dtype: FP32}]\n    multiple_of: {M: 8}\n");
  Manifest m = ParseManifest(manifest);
  ASSERT_EQ(m.kernels.size(), 1u);
  const KernelSpec& k = m.kernels[0];
  EXPECT_EQ(m.provides, std::vector<std::string>{"scale"});
  EXPECT_EQ(k.core, "AIV");
  EXPECT_EQ(m.source_path(k), manifest.parent_path() / "manifest.yaml");
  ASSERT_EQ(k.tensors.size(), 1u);
  EXPECT_EQ(k.tensors[0].shape[0].symbol, "M");
  EXPECT_EQ(k.tensors[0].shape[1].size, 64);
  EXPECT_EQ(k.tensors[0].direction, KernelParamDirection::kInOut);
  EXPECT_EQ(k.scalars[0].dtype, "FP32");
  EXPECT_EQ(k.multiple_of.at("M"), 8);
  EXPECT_EQ(k.line, 6);
}

TEST_F(ManifestTest, BackendNamesAToolchainPerPlatform) {
  Manifest m = ParseManifest(Write("name: b\nkind: backend\nversion: '1'\nabi: 4\nlibrary: libb.so\nprovides: [b]\n"
                                   "toolchains: {a2a3sim: simulator, a2a3: ascend}\n"));
  EXPECT_EQ(m.toolchains, (std::map<std::string, std::string>{{"a2a3", "ascend"}, {"a2a3sim", "simulator"}}));
}

TEST_F(ManifestTest, ToolchainsBelongToBackends) {
  Error e = ParseError("name: p\nkind: pass\nversion: '1'\nabi: 4\nlibrary: libp.so\nprovides: [P]\n"
                       "toolchains: {a2a3sim: simulator}\n");
  EXPECT_TRUE(Contains(e.message(), "'toolchains' belongs to backend plugins"));
  EXPECT_EQ(e.span().begin_line, 7);
}

TEST_F(ManifestTest, ToolchainsMustBeAMapping) {
  Error e = ParseError("name: b\nkind: backend\nversion: '1'\nabi: 4\nlibrary: libb.so\nprovides: [b]\n"
                       "toolchains: [simulator]\n");
  EXPECT_TRUE(Contains(e.message(), "must map platforms to toolchains"));
}

TEST_F(ManifestTest, MalformedYamlNamesFileAndLine) {
  fs::path file = kFixtures / "broken/malformed/manifest.yaml";
  Error e = ErrorFrom([&] { ParseManifest(file); });
  EXPECT_EQ(e.kind(), ErrorKind::kPlugin);
  EXPECT_EQ(e.span().filename, file.string());
  EXPECT_EQ(e.span().begin_line, 4);
  EXPECT_TRUE(Contains(e.what(), file.string() + ":4:"));
  EXPECT_TRUE(Contains(e.message(), "malformed YAML in plugin manifest"));
  EXPECT_TRUE(Contains(e.message(), "fix the syntax"));
}

TEST_F(ManifestTest, MissingFieldIsNamed) {
  Error e = ParseError("name: a\nkind: pass\nversion: 1.0\nabi: 4\nprovides: [A]\n");
  EXPECT_EQ(e.kind(), ErrorKind::kPlugin);
  EXPECT_EQ(e.span().filename, (dir_ / "manifest.yaml").string());
  EXPECT_EQ(e.span().begin_line, 1);
  EXPECT_TRUE(Contains(e.message(), "the manifest has no 'library' field; add it"));
}

TEST_F(ManifestTest, IllTypedFieldPointsAtItsLine) {
  Error e = ParseError("name: a\nkind: pass\nversion: 1.0\nabi: 4\nlibrary: liba.so\nprovides: A\n");
  EXPECT_EQ(e.span().begin_line, 6);
  EXPECT_EQ(e.span().begin_col, 11);
  EXPECT_TRUE(Contains(e.message(), "manifest field 'provides' must be a list such as [A, B], not the scalar 'A'"));
}

TEST_F(ManifestTest, ListEntriesMustBeNames) {
  Error e = ParseError("name: a\nkind: pass\nversion: 1.0\nabi: 4\nlibrary: liba.so\nprovides:\n  - [A, B]\n");
  EXPECT_EQ(e.span().begin_line, 7);
  EXPECT_TRUE(Contains(e.message(), "every entry of manifest field 'provides' must be a name, not a list"));
}

TEST_F(ManifestTest, UnknownKindListsTheKinds) {
  Error e = ParseError("name: a\nkind: optimizer\nversion: 1.0\nabi: 4\nlibrary: liba.so\nprovides: [A]\n");
  EXPECT_EQ(e.span().begin_line, 2);
  EXPECT_TRUE(Contains(e.message(), "unknown plugin kind 'optimizer'; kind is one of pass, backend, kernel, comm"));
}

TEST_F(ManifestTest, UnknownFieldIsRejected) {
  Error e = ParseError("name: a\nkind: pass\nversion: 1.0\nabi: 4\nlibrary: liba.so\nprovides: [A]\nrequire: [b]\n");
  EXPECT_EQ(e.span().begin_line, 7);
  EXPECT_TRUE(Contains(e.message(), "unknown manifest field 'require'"));
}

TEST_F(ManifestTest, AbiMismatchInManifestNamesBothVersions) {
  fs::path file = kFixtures / "broken/abi_manifest/manifest.yaml";
  Error e = ErrorFrom([&] { ParseManifest(file); });
  EXPECT_EQ(e.kind(), ErrorKind::kPlugin);
  EXPECT_EQ(e.span().filename, file.string());
  EXPECT_EQ(e.span().begin_line, 4);
  EXPECT_TRUE(Contains(e.message(), "the manifest declares plugin ABI 1 but this PyPTO (0.1.0) has plugin ABI 4; "
                                    "rebuild the plugin against this PyPTO"));
}

TEST_F(ManifestTest, AbiMustBeAnInteger) {
  Error e = ParseError("name: a\nkind: pass\nversion: 1.0\nabi: one\nlibrary: liba.so\nprovides: [A]\n");
  EXPECT_EQ(e.span().begin_line, 4);
  EXPECT_TRUE(Contains(e.message(), "manifest field 'abi' must be an integer"));
}

TEST_F(ManifestTest, LibraryIsAFileName) {
  Error e = ParseError("name: a\nkind: pass\nversion: 1.0\nabi: 4\nlibrary: ../lib/liba.so\nprovides: [A]\n");
  EXPECT_EQ(e.span().begin_line, 5);
  EXPECT_TRUE(Contains(e.message(), "must be a file name in the manifest's folder, not the path '../lib/liba.so'"));
}

TEST_F(ManifestTest, EmptyFieldIsRejected) {
  Error e = ParseError("name:\nkind: pass\nversion: 1.0\nabi: 4\nlibrary: liba.so\nprovides: [A]\n");
  EXPECT_TRUE(Contains(e.message(), "manifest field 'name' must be a non-empty text, not nothing"));
}

TEST_F(ManifestTest, TopLevelMustBeAMapping) {
  Error e = ParseError("- name: a\n");
  EXPECT_EQ(e.span().begin_line, 1);
  EXPECT_TRUE(Contains(e.message(), "a plugin manifest is a mapping of fields"));
}

TEST_F(ManifestTest, MissingFileIsAnIOError) {
  Error e = ErrorFrom([&] { ParseManifest(dir_ / "nowhere.yaml"); });
  EXPECT_EQ(e.kind(), ErrorKind::kIO);
  EXPECT_TRUE(Contains(e.message(), (dir_ / "nowhere.yaml").string()));
}

TEST_F(ManifestTest, FindManifestsSearchesFolderAndSubfolders) {
  fs::create_directories(dir_ / "sub" / "deeper" / "deepest");
  const char* body = "kind: pass\nversion: 1.0\nabi: 4\nlibrary: lib.so\nprovides: []\n";
  std::ofstream(dir_ / "manifest.yaml") << "name: top\n" << body;
  std::ofstream(dir_ / "sub" / "manifest.yaml") << "name: sub\n" << body;
  // Two levels down is out of reach.
  std::ofstream(dir_ / "sub" / "deeper" / "deepest" / "manifest.yaml") << "name: deep\n" << body;
  auto manifests = pypto::plugin::FindManifests({dir_, dir_ / "missing", dir_});
  ASSERT_EQ(manifests.size(), 2u);
  EXPECT_EQ(manifests[0].name, "top");
  EXPECT_EQ(manifests[1].name, "sub");
}

TEST_F(ManifestTest, FindManifestsRejectsDuplicateNames) {
  fs::path a = kFixtures / "duplicate_a";
  fs::path b = kFixtures / "duplicate_b";
  Error e = ErrorFrom([&] { pypto::plugin::FindManifests({a, b}); });
  EXPECT_EQ(e.kind(), ErrorKind::kPlugin);
  EXPECT_TRUE(Contains(e.message(), "two plugins are named 'fixture_dup': " +
                                        (a / "fixture_dup/manifest.yaml").string() + " and " +
                                        (b / "fixture_dup/manifest.yaml").string()));
}

}  // namespace
