// Single-process tests of the comm layer: engine registry and plugin kind,
// the C ABI with no engine running, and the mpi engine started alone (an MPI
// singleton: world size 1). Each test runs in its own process (ctest), so
// starting and finalizing MPI here does not leak into other tests.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "plugin/error_matchers.h"
#include "pypto/comm/registry.h"
#include "pypto/plugin/abi.h"
#include "pypto/plugin/host.h"
#include "pypto/runtime/c_api_comm.h"

namespace fs = std::filesystem;
using pypto::Error;
using pypto::ErrorKind;
using pypto::testing::Contains;
using pypto::testing::ErrorFrom;
namespace comm = pypto::comm;

namespace {

TEST(CommRegistry, UnknownEngineListsTheKnownOnes) {
  Error e = ErrorFrom([] { comm::Start("shmem_nope"); });
  EXPECT_EQ(e.kind(), ErrorKind::kValue);
  EXPECT_TRUE(Contains(e.message(), "unknown comm engine 'shmem_nope'; known comm engines: mpi"));
  EXPECT_TRUE(Contains(e.message(), "PYPTO_PLUGIN_PATH"));
  EXPECT_EQ(comm::Active(), nullptr);
}

TEST(CommRegistry, ListsTheMpiEngineWithoutLoadingIt) {
  auto engines = comm::ListEngines();
  ASSERT_EQ(engines.size(), 1u);
  EXPECT_EQ(engines[0].name, "mpi");
  EXPECT_EQ(engines[0].plugin, "comm_mpi");
  EXPECT_FALSE(comm::HasEngine("mpi"));
  EXPECT_FALSE(pypto::plugin::PluginHost::Global().IsLoaded("comm_mpi"));
}

TEST(CommRegistry, ManifestKindCommIsAccepted) {
  fs::path dir = fs::path(::testing::TempDir()) / ("pypto_comm_manifest_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "manifest.yaml") << "name: c\nkind: comm\nversion: '1'\nabi: " << PYPTO_PLUGIN_ABI_VERSION
                                       << "\nlibrary: libc.so\nprovides: [shm]\n";
  auto manifest = pypto::plugin::ParseManifest(dir / "manifest.yaml");
  EXPECT_EQ(manifest.kind, "comm");
  EXPECT_EQ(manifest.provides, std::vector<std::string>{"shm"});
  fs::remove_all(dir);
}

TEST(CommRegistry, TheMpiPluginIsFoundByWhatItProvides) {
  auto provider = pypto::plugin::PluginHost::Global().FindProvider("mpi", "comm");
  ASSERT_TRUE(provider.has_value());
  EXPECT_EQ(provider->manifest.name, "comm_mpi");
  EXPECT_EQ(provider->manifest.abi, PYPTO_PLUGIN_ABI_VERSION);
}

TEST(CommCApi, WithoutAnEngineCallsSayHowToRun) {
  EXPECT_EQ(pypto_comm_rank(), -1);
  EXPECT_EQ(pypto_comm_world_size(), -1);
  int32_t cell = 0;
  const char* error = pypto_comm_notify(0, &cell, 1, PYPTO_COMM_NOTIFY_SET);
  ASSERT_NE(error, nullptr);
  EXPECT_TRUE(Contains(error, "comm notify: no communication engine runs in this process; distributed ops need "
                              "the program to run under pld / pypto launch"));
}

TEST(CommSingleton, TheMpiEngineRunsAloneAsOneRank) {
  comm::Engine& engine = comm::Start("mpi");
  EXPECT_EQ(&comm::Start("mpi"), &engine);  // idempotent
  EXPECT_EQ(engine.Rank(), 0);
  EXPECT_EQ(engine.WorldSize(), 1);
  EXPECT_EQ(pypto_comm_world_size(), 1);
  EXPECT_FALSE(engine.HostName().empty());

  comm::Window w = engine.AllocWindow(256);
  int32_t* cells = static_cast<int32_t*>(w.base);
  int32_t data[4] = {7, 8, 9, 10};
  EXPECT_EQ(pypto_comm_put(0, cells + 4, 16, data, 16, 1, 16, 0x13, PYPTO_COMM_ATOMIC_NONE), nullptr);
  EXPECT_EQ(pypto_comm_notify(0, cells, 3, PYPTO_COMM_NOTIFY_ATOMIC_ADD), nullptr);
  PyptoRtTensorDesc signal{};
  signal.data = cells;
  signal.ndim = 1;
  signal.shape[0] = 4;
  signal.strides[0] = 1;
  EXPECT_EQ(pypto_comm_wait(&signal, cells, 3, PYPTO_COMM_WAIT_GE), nullptr);
  EXPECT_EQ(std::memcmp(cells + 4, data, sizeof(data)), 0);

  Error other = ErrorFrom([] { comm::Start("shm"); });
  EXPECT_TRUE(Contains(other.message(), "cannot start comm engine 'shm': engine 'mpi' already runs"));

  engine.FreeWindow(w.id);
  comm::Finalize();
  EXPECT_EQ(comm::Active(), nullptr);
  Error again = ErrorFrom([] { comm::Start("mpi"); });
  EXPECT_TRUE(Contains(again.message(), "MPI cannot start twice in one process"));
}

}  // namespace
