// Backend plugins through the plugin host: discovery, loading on demand by
// BackendRegistry::Create, running the backend, and every way a backend
// plugin's library can disagree with its manifest or with another plugin.
#include <gtest/gtest.h>

#include <filesystem>

#include "plugin/error_matchers.h"
#include "pypto/backend/registry.h"
#include "pypto/pass/registry.h"
#include "pypto/plugin/host.h"

namespace fs = std::filesystem;
using pypto::Error;
using pypto::ErrorKind;
using pypto::backend::ArtifactKind;
using pypto::backend::BackendContext;
using pypto::backend::BackendRegistry;
using pypto::plugin::PluginHost;
using pypto::testing::Contains;
using pypto::testing::ErrorFrom;
using pypto::testing::ScopedPluginPath;
namespace ir = pypto::ir;

namespace {

const fs::path kFixtures = PYPTO_PLUGIN_FIXTURE_DIR;

fs::path Broken(const std::string& name) { return kFixtures / "broken" / name / "manifest.yaml"; }

Error LoadBroken(const std::string& folder, const std::string& plugin) {
  Error e = ErrorFrom([&] { PluginHost::Global().LoadManifest(Broken(folder)); });
  EXPECT_EQ(e.kind(), ErrorKind::kPlugin) << e.what();
  EXPECT_TRUE(Contains(e.what(), Broken(folder).string()));
  EXPECT_FALSE(PluginHost::Global().IsLoaded(plugin));
  return e;
}

ir::FunctionPtr Function(const std::string& name, ir::FunctionType type, int params, int line = 0) {
  std::vector<ir::VarPtr> vars;
  std::vector<ir::ParamDirection> directions;
  for (int i = 0; i < params; ++i) {
    vars.push_back(ir::Var::Make("p" + std::to_string(i), ir::ScalarType::Make(ir::DataType::FP32)));
    directions.push_back(ir::ParamDirection::In);
  }
  pypto::Span span = line ? pypto::Span("kernel.py", line, 1, line, 10) : pypto::Span();
  return ir::Function::Make(name, type, vars, directions, {}, ir::SeqStmts::Make({}), span);
}

TEST(BackendPlugins, DiscoveredBackendsAreListedBeforeLoading) {
  ScopedPluginPath env((kFixtures / "backends").string());
  bool listed = false;
  for (const auto& info : BackendRegistry::Global().List()) {
    if (info.name != "FixtureListing") continue;
    listed = true;
    EXPECT_EQ(info.plugin, "fixture_listing");
  }
  EXPECT_TRUE(listed);
  auto record = PluginHost::Global().Find("fixture_listing");
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(record->manifest.kind, "backend");
  // Pass plugins are not backends, and backend plugins do not provide passes.
  for (const auto& info : BackendRegistry::Global().List()) EXPECT_NE(info.plugin, "fixture_good");
  for (const auto& info : pypto::pass::PassRegistry::Global().List()) EXPECT_NE(info.name, "FixtureListing");
}

TEST(BackendPlugins, CreateLoadsTheProviderAndTheBackendGenerates) {
  ScopedPluginPath env((kFixtures / "backends").string());
  auto backend = BackendRegistry::Global().Create("FixtureListing");
  ASSERT_NE(backend, nullptr);
  EXPECT_TRUE(PluginHost::Global().IsLoaded("fixture_listing"));
  EXPECT_TRUE(BackendRegistry::Global().Contains("FixtureListing"));
  EXPECT_EQ(backend->name(), "FixtureListing");
  EXPECT_EQ(backend->function_types(), (std::vector<ir::FunctionType>{ir::FunctionType::AIC, ir::FunctionType::AIV}));

  auto program = ir::Program::Make("prog", {Function("mm", ir::FunctionType::AIC, 3),
                                            Function("add", ir::FunctionType::AIV, 2),
                                            Function("main", ir::FunctionType::Orchestration, 0)});
  BackendContext ctx;
  ctx.set_platform(pypto::backend::Platform::Get("a5sim"));
  auto artifacts = pypto::backend::RunBackend(*backend, program, ctx);
  ASSERT_EQ(artifacts.size(), 3u);
  // Program::Make sorts its functions by name.
  EXPECT_EQ(artifacts[0].path, "kernels/aiv/add.cpp");
  EXPECT_EQ(artifacts[0].kind, ArtifactKind::kKernelSource);
  EXPECT_EQ(artifacts[0].core, ir::FunctionType::AIV);
  EXPECT_EQ(artifacts[0].function, "add");
  EXPECT_EQ(artifacts[0].text, "// add on a5sim\n// param p0\n// param p1\n");
  EXPECT_EQ(artifacts[1].path, "kernels/aic/mm.cpp");
  EXPECT_EQ(artifacts[1].core, ir::FunctionType::AIC);
  EXPECT_EQ(artifacts[2].path, "report/prog_functions.txt");
  EXPECT_EQ(artifacts[2].kind, ArtifactKind::kReport);
  EXPECT_EQ(artifacts[2].text, "add AIV 2\nmm AIC 3\n");
}

TEST(BackendPlugins, WhatABackendCannotTranslateIsACodegenErrorAtTheFunction) {
  ScopedPluginPath env((kFixtures / "backends").string());
  auto backend = BackendRegistry::Global().Create("FixtureListing");
  auto program = ir::Program::Make("prog", {Function("untranslatable", ir::FunctionType::AIV, 1, 12)});
  BackendContext ctx;
  Error e = ErrorFrom([&] { pypto::backend::RunBackend(*backend, program, ctx); });
  EXPECT_EQ(e.kind(), ErrorKind::kCodegen);
  EXPECT_EQ(e.span().filename, "kernel.py");
  EXPECT_EQ(e.span().begin_line, 12);
  EXPECT_EQ(e.message(),
            "backend 'FixtureListing': in function 'untranslatable': the fixture backend refuses this function");
}

TEST(BackendPlugins, UnknownBackendListsTheKnownOnesAndThePluginPath) {
  ScopedPluginPath env((kFixtures / "backends").string());
  Error e = ErrorFrom([] { BackendRegistry::Global().Create("NoSuchBackend"); });
  EXPECT_EQ(e.kind(), ErrorKind::kValue);
  EXPECT_TRUE(Contains(e.message(), "unknown backend 'NoSuchBackend'; known backends: "));
  EXPECT_TRUE(Contains(e.message(), "FixtureListing"));
  EXPECT_TRUE(Contains(e.message(), "needs its folder on PYPTO_PLUGIN_PATH"));
}

TEST(BackendPlugins, APassNameIsNotABackend) {
  ScopedPluginPath env((kFixtures / "good").string());
  Error e = ErrorFrom([] { BackendRegistry::Global().Create("FixtureRename"); });
  EXPECT_EQ(e.kind(), ErrorKind::kValue);
  EXPECT_TRUE(Contains(e.message(), "unknown backend 'FixtureRename'"));
  EXPECT_TRUE(PluginHost::Global().FindProvider("FixtureRename", "pass").has_value());
  EXPECT_FALSE(PluginHost::Global().FindProvider("FixtureRename", "backend").has_value());
}

TEST(BackendPlugins, TwoPluginsProvidingOneBackendNameBothNamed) {
  {
    ScopedPluginPath env((kFixtures / "backends").string());
    PluginHost::Global().Load("fixture_listing");
  }
  ScopedPluginPath env((kFixtures / "backends_twin").string());
  Error e = ErrorFrom([] { PluginHost::Global().Load("fixture_listing_twin"); });
  EXPECT_EQ(e.kind(), ErrorKind::kPlugin);
  EXPECT_TRUE(Contains(e.message(), "plugin 'fixture_listing_twin' (" +
                                        (kFixtures / "backends_twin/fixture_listing_twin/manifest.yaml").string() +
                                        "): backend 'FixtureListing' is already registered by plugin "
                                        "'fixture_listing'; remove or rename one of them"));
  EXPECT_FALSE(PluginHost::Global().IsLoaded("fixture_listing_twin"));
  bool owner_kept = false;
  for (const auto& info : BackendRegistry::Global().ListLoaded()) {
    if (info.name == "FixtureListing") owner_kept = info.plugin == "fixture_listing";
  }
  EXPECT_TRUE(owner_kept);
}

TEST(BackendPlugins, RegistryRejectsASecondRegistrationNamingBothPlugins) {
  BackendRegistry registry;
  auto factory = []() -> std::unique_ptr<pypto::backend::Backend> { return nullptr; };
  registry.Register("Twice", "first", "plugin_a", factory);
  Error e = ErrorFrom([&] { registry.Register("Twice", "second", "plugin_b", factory); });
  EXPECT_EQ(e.kind(), ErrorKind::kPlugin);
  EXPECT_EQ(e.message(), "backend 'Twice' is provided by two plugins, 'plugin_a' and 'plugin_b'; remove or rename "
                         "one of them");
}

TEST(BackendPluginErrors, RegisteredBackendDiffersFromTheManifest) {
  Error e = LoadBroken("backend_provides_other", "fixture_backend_provides_other");
  EXPECT_TRUE(Contains(e.message(), "the manifest provides 'FixtureListingDeclared' but the library did not register "
                                    "a backend of that name; register it with AddBackend(\"FixtureListingDeclared\", "
                                    "...) or remove it from 'provides'"));
  EXPECT_TRUE(Contains(e.message(), "the library registered backend 'FixtureListingRegistered' which the manifest "
                                    "does not list; add it to 'provides'"));
  EXPECT_FALSE(BackendRegistry::Global().Contains("FixtureListingRegistered"));
}

TEST(BackendPluginErrors, PassPluginRegisteringABackend) {
  Error e = LoadBroken("pass_registers_backend", "fixture_pass_registers_backend");
  EXPECT_TRUE(Contains(e.message(), "the library registered backend 'FixturePassKind' but the manifest declares kind "
                                    "'pass'; only a plugin of kind 'backend' registers backends"));
  EXPECT_TRUE(Contains(e.message(), "the manifest provides 'FixturePassKind' but the library did not register a pass "
                                    "of that name"));
  EXPECT_FALSE(BackendRegistry::Global().Contains("FixturePassKind"));
}

TEST(BackendPluginErrors, BackendPluginRegisteringAPass) {
  Error e = LoadBroken("backend_registers_pass", "fixture_backend_registers_pass");
  EXPECT_TRUE(Contains(e.message(), "the library registered pass 'FixtureStrayPass' but the manifest declares kind "
                                    "'backend'; only a plugin of kind 'pass' registers passes: fix the manifest's "
                                    "'kind' or move AddPass(\"FixtureStrayPass\", ...) to a pass plugin"));
  EXPECT_FALSE(pypto::pass::PassRegistry::Global().Contains("FixtureStrayPass"));
  EXPECT_FALSE(BackendRegistry::Global().Contains("FixtureBackendWithPass"));
}

TEST(BackendPluginErrors, BackendManifestForAnotherAbi) {
  Error e = LoadBroken("backend_abi", "fixture_backend_abi");
  EXPECT_EQ(e.span().filename, Broken("backend_abi").string());
  EXPECT_EQ(e.span().begin_line, 4);
  EXPECT_TRUE(Contains(e.message(), "the manifest declares plugin ABI 1 but this PyPTO (0.1.0) has plugin ABI 4; "
                                    "rebuild the plugin against this PyPTO"));
  EXPECT_FALSE(BackendRegistry::Global().Contains("FixtureBackendAbi"));
}

}  // namespace
