#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "plugin/error_matchers.h"
#include "pypto/pass/manager.h"
#include "pypto/pass/registry.h"
#include "pypto/plugin/abi.h"
#include "pypto/plugin/host.h"

namespace fs = std::filesystem;
using pypto::Error;
using pypto::ErrorKind;
using pypto::pass::PassRegistry;
using pypto::plugin::PluginHost;
using pypto::testing::Contains;
using pypto::testing::ErrorFrom;
using pypto::testing::ScopedPluginPath;

namespace {

const fs::path kFixtures = PYPTO_PLUGIN_FIXTURE_DIR;

fs::path Broken(const std::string& name) { return kFixtures / "broken" / name / "manifest.yaml"; }

// Loads a broken fixture and checks that it left nothing behind.
Error LoadBroken(const std::string& folder, const std::string& plugin, const std::string& pass) {
  Error e = ErrorFrom([&] { PluginHost::Global().LoadManifest(Broken(folder)); });
  EXPECT_EQ(e.kind(), ErrorKind::kPlugin) << e.what();
  EXPECT_TRUE(Contains(e.what(), Broken(folder).string()));
  EXPECT_FALSE(PluginHost::Global().IsLoaded(plugin));
  EXPECT_FALSE(PassRegistry::Global().Contains(pass));
  return e;
}

pypto::ir::ProgramPtr EmptyProgram(const std::string& name) { return pypto::ir::Program::Make(name, {}); }

TEST(PluginPaths, CoreFoldersSitBesideTheCoreLibrary) {
  fs::path build = PYPTO_TEST_BINARY_DIR;
  EXPECT_EQ(pypto::plugin::CoreLibraryDir(), build / "lib");
  EXPECT_EQ(pypto::plugin::CorePluginDir(), build / "lib" / "pypto" / "plugins");
  EXPECT_EQ(pypto::plugin::DataDir(), build / "share" / "pypto");
  EXPECT_TRUE(fs::is_regular_file(pypto::plugin::DataDir() / "pipelines" / "default.yaml"));
}

TEST(PluginPaths, SearchOrderIsCoreThenEnvironmentThenAdded) {
  ScopedPluginPath env((kFixtures / "good").string() + "::" + (kFixtures / "cycle").string());
  PluginHost::Global().AddSearchPath(kFixtures / "searched");
  auto paths = PluginHost::Global().SearchPaths();
  ASSERT_GE(paths.size(), 4u);
  EXPECT_EQ(paths[0], pypto::plugin::CorePluginDir());
  EXPECT_EQ(paths[1], kFixtures / "good");
  EXPECT_EQ(paths[2], kFixtures / "cycle");
  EXPECT_EQ(paths.back(), kFixtures / "searched");
}

TEST(PluginPaths, AddingAMissingFolderIsAnError) {
  Error e = ErrorFrom([] { PluginHost::Global().AddSearchPath(kFixtures / "no_such_folder"); });
  EXPECT_EQ(e.kind(), ErrorKind::kPlugin);
  EXPECT_TRUE(Contains(e.message(), "AddSearchPath: the folder '" + (kFixtures / "no_such_folder").string() +
                                        "' does not exist"));
}

TEST(PluginDiscovery, FindsPluginsOnPluginPath) {
  ScopedPluginPath env((kFixtures / "good").string());
  auto record = PluginHost::Global().Find("fixture_good");
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(record->manifest.manifest_path, kFixtures / "good/fixture_good/manifest.yaml");
  EXPECT_EQ(record->manifest.provides, std::vector<std::string>{"FixtureRename"});
  auto provider = PluginHost::Global().FindProvider("FixtureNeedsGood");
  ASSERT_TRUE(provider.has_value());
  EXPECT_EQ(provider->manifest.name, "fixture_needs_good");
  bool listed = false;
  for (const auto& r : PluginHost::Global().Discover()) listed |= r.manifest.name == "fixture_needs_good";
  EXPECT_TRUE(listed);
}

TEST(PluginDiscovery, RegistryListsPassesOfUnloadedPlugins) {
  ScopedPluginPath env((kFixtures / "good").string());
  bool listed = false;
  for (const auto& info : PassRegistry::Global().List()) {
    if (info.name == "FixtureNeedsGood") {
      listed = true;
      EXPECT_EQ(info.plugin, "fixture_needs_good");
    }
  }
  EXPECT_TRUE(listed);
}

TEST(PluginDiscovery, PluginsLeaveWithTheirFolder) {
  {
    ScopedPluginPath env((kFixtures / "cycle").string());
    EXPECT_TRUE(PluginHost::Global().Find("fixture_cycle_a").has_value());
  }
  EXPECT_FALSE(PluginHost::Global().Find("fixture_cycle_a").has_value());
}

TEST(PluginDiscovery, DuplicateNamesNameBothManifests) {
  {
    ScopedPluginPath env((kFixtures / "duplicate_a").string() + ":" + (kFixtures / "duplicate_b").string());
    Error e = ErrorFrom([] { PluginHost::Global().Discover(); });
    EXPECT_EQ(e.kind(), ErrorKind::kPlugin);
    EXPECT_TRUE(Contains(e.message(), "two plugins are named 'fixture_dup': " +
                                          (kFixtures / "duplicate_a/fixture_dup/manifest.yaml").string() + " and " +
                                          (kFixtures / "duplicate_b/fixture_dup/manifest.yaml").string() +
                                          "; remove one of them from the search path or rename it"));
  }
  EXPECT_NO_THROW(PluginHost::Global().Discover());
}

TEST(PluginDiscovery, MalformedManifestOnThePathNamesItsFile) {
  {
    ScopedPluginPath env((kFixtures / "broken/malformed").string());
    Error e = ErrorFrom([] { PluginHost::Global().Discover(); });
    EXPECT_EQ(e.kind(), ErrorKind::kPlugin);
    EXPECT_EQ(e.span().filename, Broken("malformed").string());
    EXPECT_EQ(e.span().begin_line, 4);
  }
  EXPECT_NO_THROW(PluginHost::Global().Discover());
}

TEST(PluginLoading, LoadsThroughPluginPathAndRegistersItsPass) {
  ScopedPluginPath env((kFixtures / "good").string());
  PluginHost::Global().Load("fixture_good");
  EXPECT_TRUE(PluginHost::Global().IsLoaded("fixture_good"));
  ASSERT_TRUE(PassRegistry::Global().Contains("FixtureRename"));
  bool found = false;
  for (const auto& info : PassRegistry::Global().ListLoaded()) {
    if (info.name != "FixtureRename") continue;
    found = true;
    EXPECT_EQ(info.plugin, "fixture_good");
    EXPECT_EQ(info.description, "fixture pass");
  }
  EXPECT_TRUE(found);
  // Loading again, by name or by manifest, changes nothing.
  PluginHost::Global().Load("fixture_good");
  PluginHost::Global().LoadManifest(kFixtures / "good/fixture_good/manifest.yaml");
  EXPECT_TRUE(PluginHost::Global().Find("fixture_good")->loaded);
}

TEST(PluginLoading, LoadedPluginsStayListedWithoutTheirFolder) {
  {
    ScopedPluginPath env((kFixtures / "good").string());
    PluginHost::Global().Load("fixture_good");
  }
  auto record = PluginHost::Global().Find("fixture_good");
  ASSERT_TRUE(record.has_value());
  EXPECT_TRUE(record->loaded);
}

TEST(PluginLoading, LoadsThroughAddedSearchPath) {
  PluginHost::Global().AddSearchPath(kFixtures / "searched");
  PluginHost::Global().Load("fixture_searched");
  EXPECT_TRUE(PluginHost::Global().IsLoaded("fixture_searched"));
  EXPECT_TRUE(PassRegistry::Global().Contains("FixtureSearched"));
}

TEST(PluginLoading, RequiredPluginsLoadFirst) {
  ScopedPluginPath env((kFixtures / "good").string());
  PluginHost::Global().Load("fixture_needs_good");
  EXPECT_TRUE(PluginHost::Global().IsLoaded("fixture_needs_good"));
  EXPECT_TRUE(PluginHost::Global().IsLoaded("fixture_good"));
}

TEST(PluginLoading, RegistryLoadsTheProviderOnDemand) {
  ScopedPluginPath env((kFixtures / "good").string());
  auto pass = PassRegistry::Global().Create("FixtureRename");
  ASSERT_NE(pass, nullptr);
  EXPECT_EQ(pass->name(), "FixtureRename");
  EXPECT_TRUE(PluginHost::Global().IsLoaded("fixture_good"));
}

TEST(PluginLoading, PluginPassRunsInAPipeline) {
  ScopedPluginPath env((kFixtures / "good").string());
  auto pipeline = pypto::pass::ParsePipelineString(
      "name: rename\n"
      "passes:\n"
      "  - FixtureRename\n"
      "  - name: FixtureRename\n"
      "    options: {suffix: _v2}\n",
      "rename.yaml");
  pypto::pass::PassManager manager(pipeline);
  EXPECT_EQ(manager.Run(EmptyProgram("prog"))->name, "prog_renamed_v2");
}

TEST(PluginLoading, UnknownPluginNameListsTheSearchPath) {
  Error e = ErrorFrom([] { PluginHost::Global().Load("fixture_nowhere"); });
  EXPECT_EQ(e.kind(), ErrorKind::kPlugin);
  EXPECT_TRUE(Contains(e.message(), "no plugin named 'fixture_nowhere'; searched " +
                                        pypto::plugin::CorePluginDir().string()));
  EXPECT_TRUE(Contains(e.message(), "add the plugin's folder to PYPTO_PLUGIN_PATH"));
}

TEST(PluginLoading, UnknownPassListsKnownPasses) {
  ScopedPluginPath env((kFixtures / "good").string());
  Error e = ErrorFrom([] { PassRegistry::Global().Create("NoSuchPass"); });
  EXPECT_EQ(e.kind(), ErrorKind::kPipeline);
  EXPECT_TRUE(Contains(e.message(), "unknown pass 'NoSuchPass'; known passes: "));
  EXPECT_TRUE(Contains(e.message(), "FixtureNeedsGood"));
  EXPECT_TRUE(Contains(e.message(), "needs its folder on PYPTO_PLUGIN_PATH"));
}

TEST(PluginLoading, SecondPluginWithALoadedName) {
  {
    ScopedPluginPath env((kFixtures / "good").string());
    PluginHost::Global().Load("fixture_good");
  }
  fs::path copy = fs::path(::testing::TempDir()) / ("pypto_dup_" + std::to_string(getpid()));
  fs::create_directories(copy);
  fs::copy_file(kFixtures / "good/fixture_good/manifest.yaml", copy / "manifest.yaml",
                fs::copy_options::overwrite_existing);
  Error e = ErrorFrom([&] { PluginHost::Global().LoadManifest(copy / "manifest.yaml"); });
  EXPECT_EQ(e.kind(), ErrorKind::kPlugin);
  EXPECT_TRUE(Contains(e.message(), "two plugins are named 'fixture_good': " +
                                        (kFixtures / "good/fixture_good/manifest.yaml").string() + " and " +
                                        fs::weakly_canonical(copy / "manifest.yaml").string()));
  fs::remove_all(copy);
}

TEST(PluginErrors, MissingEntrySymbol) {
  Error e = LoadBroken("no_entry", "fixture_no_entry", "FixtureNoEntry");
  EXPECT_TRUE(Contains(e.message(), "plugin 'fixture_no_entry' (" + Broken("no_entry").string() + "): library " +
                                        (kFixtures / "broken/no_entry/libfixture_no_entry.so").string() +
                                        " does not export 'pypto_plugin_entry'; define it with PYPTO_PLUGIN("));
}

TEST(PluginErrors, AbiMismatchInTheLibraryIsCaughtBeforeRegistration) {
  // The fixture aborts the process if its register_plugin is ever called.
  Error e = LoadBroken("abi_struct", "fixture_abi_struct", "FixtureAbiStruct");
  EXPECT_TRUE(Contains(e.message(), "library " + (kFixtures / "broken/abi_struct/libfixture_abi_struct.so").string() +
                                        " was built for plugin ABI " + std::to_string(PYPTO_PLUGIN_ABI_VERSION + 1000) +
                                        " but this PyPTO (0.1.0) has plugin ABI 4; "
                                        "rebuild the plugin against this PyPTO"));
}

TEST(PluginErrors, AbiMismatchInTheManifest) {
  Error e = LoadBroken("abi_manifest", "fixture_abi_manifest", "FixtureAbiManifest");
  EXPECT_EQ(e.span().begin_line, 4);
  EXPECT_TRUE(Contains(e.message(), "the manifest declares plugin ABI 1 but this PyPTO (0.1.0) has plugin ABI 4"));
}

TEST(PluginErrors, MalformedManifest) {
  Error e = LoadBroken("malformed", "fixture_malformed", "FixtureMalformed");
  EXPECT_EQ(e.span().begin_line, 4);
  EXPECT_TRUE(Contains(e.message(), "malformed YAML in plugin manifest"));
}

TEST(PluginErrors, MissingLibrary) {
  Error e = LoadBroken("missing_library", "fixture_missing_library", "FixtureMissingLibrary");
  EXPECT_TRUE(Contains(e.message(), "its library 'libfixture_missing_library.so' does not exist at " +
                                        (kFixtures / "broken/missing_library/libfixture_missing_library.so").string() +
                                        "; build the plugin, or fix the manifest's 'library' field"));
}

TEST(PluginErrors, LibraryThatFailsToLoadReportsTheLoaderMessage) {
  Error e = LoadBroken("garbage_library", "fixture_garbage_library", "FixtureGarbage");
  fs::path library = kFixtures / "broken/garbage_library/libfixture_garbage_library.so";
  EXPECT_TRUE(Contains(e.message(), "cannot load library " + library.string() + ": " + library.string()));
  EXPECT_TRUE(Contains(e.message(), "invalid ELF header"));
}

TEST(PluginErrors, NameInLibraryDiffersFromManifest) {
  Error e = LoadBroken("wrong_name", "fixture_wrong_name", "FixtureWrongName");
  EXPECT_TRUE(Contains(e.message(), "calls itself 'fixture_impostor' but its manifest names it 'fixture_wrong_name'; "
                                    "make the name in PYPTO_PLUGIN(...) and the manifest's 'name' agree"));
  EXPECT_FALSE(PluginHost::Global().IsLoaded("fixture_impostor"));
}

TEST(PluginErrors, ProvidedPassNeverRegistered) {
  Error e = LoadBroken("provides_missing", "fixture_provides_missing", "FixtureProvidesMissing");
  EXPECT_TRUE(Contains(e.message(), "the manifest provides 'FixtureNeverRegistered' but the library did not "
                                    "register a pass of that name"));
  EXPECT_FALSE(Contains(e.message(), "'FixtureProvidesMissing' but"));
}

TEST(PluginErrors, RegisteredPassNotProvided) {
  Error e = LoadBroken("provides_extra", "fixture_provides_extra", "FixtureProvidesExtra");
  EXPECT_TRUE(Contains(e.message(), "the library registered pass 'FixtureUndeclared' which the manifest does not "
                                    "list; add it to 'provides'"));
  EXPECT_FALSE(PassRegistry::Global().Contains("FixtureUndeclared"));
}

TEST(PluginErrors, MissingRequirement) {
  Error e = LoadBroken("missing_requirement", "fixture_missing_requirement", "FixtureMissingRequirement");
  EXPECT_TRUE(Contains(e.message(), "plugin 'fixture_missing_requirement' (" + Broken("missing_requirement").string() +
                                        "): requires plugin 'fixture_absent', which is not installed; searched "));
}

TEST(PluginErrors, RequireCycle) {
  ScopedPluginPath env((kFixtures / "cycle").string());
  Error e = ErrorFrom([] { PluginHost::Global().Load("fixture_cycle_a"); });
  EXPECT_EQ(e.kind(), ErrorKind::kPlugin);
  EXPECT_TRUE(Contains(e.message(), "plugins require each other in a cycle: fixture_cycle_a -> fixture_cycle_b -> "
                                    "fixture_cycle_a (" +
                                        (kFixtures / "cycle/fixture_cycle_a/manifest.yaml").string() + ", " +
                                        (kFixtures / "cycle/fixture_cycle_b/manifest.yaml").string() + ")"));
  EXPECT_FALSE(PluginHost::Global().IsLoaded("fixture_cycle_a"));
  EXPECT_FALSE(PluginHost::Global().IsLoaded("fixture_cycle_b"));
}

TEST(PluginErrors, FailedLoadCanBeRetriedWithTheSameError) {
  Error first = LoadBroken("wrong_name", "fixture_wrong_name", "FixtureWrongName");
  Error second = LoadBroken("wrong_name", "fixture_wrong_name", "FixtureWrongName");
  EXPECT_EQ(std::string(first.what()), std::string(second.what()));
}

}  // namespace
