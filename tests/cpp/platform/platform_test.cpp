// The platform descriptions in platforms/*.yaml and their loader.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "pypto/backend/platform.h"
#include "pypto/pass/context.h"
#include "pypto/support/error.h"

namespace pypto::test {
namespace {

using backend::Platform;
using ir::DataType;
using ir::MemorySpace;
namespace fs = std::filesystem;

constexpr int64_t kKiB = 1024;

TEST(Platform, NamesEverySocAndItsSimulator) {
  EXPECT_EQ(Platform::Names(), (std::vector<std::string>{"a2a3", "a2a3sim", "a5", "a5sim"}));
}

TEST(Platform, A2A3Capacities) {
  const Platform& p = Platform::Get("a2a3");
  EXPECT_EQ(p.name, "a2a3");
  EXPECT_EQ(p.soc, "a2a3");
  EXPECT_FALSE(p.simulated);
  EXPECT_EQ(p.Capacity(MemorySpace::Vec), 184 * kKiB);
  EXPECT_EQ(p.Capacity(MemorySpace::Mat), 512 * kKiB);
  EXPECT_EQ(p.Capacity(MemorySpace::Left), 64 * kKiB);
  EXPECT_EQ(p.Capacity(MemorySpace::Right), 64 * kKiB);
  EXPECT_EQ(p.Capacity(MemorySpace::Acc), 128 * kKiB);
  EXPECT_EQ(p.Capacity(MemorySpace::Bias), 1 * kKiB);
  for (auto space : {MemorySpace::Vec, MemorySpace::Mat, MemorySpace::Left, MemorySpace::Right, MemorySpace::Acc,
                     MemorySpace::Bias}) {
    EXPECT_TRUE(p.HasSpace(space));
    EXPECT_EQ(p.Alignment(space), 32);
  }
  EXPECT_FALSE(p.HasSpace(MemorySpace::DDR));
}

TEST(Platform, A5Capacities) {
  const Platform& p = Platform::Get("a5");
  EXPECT_EQ(p.Capacity(MemorySpace::Vec), 240 * kKiB);
  EXPECT_EQ(p.Capacity(MemorySpace::Mat), 512 * kKiB);
  EXPECT_EQ(p.Capacity(MemorySpace::Left), 64 * kKiB);
  EXPECT_EQ(p.Capacity(MemorySpace::Right), 64 * kKiB);
  EXPECT_EQ(p.Capacity(MemorySpace::Acc), 256 * kKiB);
  EXPECT_EQ(p.Capacity(MemorySpace::Bias), 4 * kKiB);
}

TEST(Platform, CoresTransferAndAccAlignment) {
  const Platform& a2a3 = Platform::Get("a2a3");
  EXPECT_EQ(a2a3.clusters, 24);
  EXPECT_EQ(a2a3.aic_per_cluster, 1);
  EXPECT_EQ(a2a3.aiv_per_cluster, 2);
  EXPECT_EQ(a2a3.cores_per_cluster(), 3);
  EXPECT_EQ(a2a3.efficient_transfer_bytes, 512);
  EXPECT_EQ(a2a3.acc_m_alignment, 16);
  EXPECT_EQ(a2a3.AccMAlignment(DataType::FP32), 16);
  EXPECT_EQ(a2a3.AccMAlignment(DataType::INT32), 32);
  const Platform& a5 = Platform::Get("a5");
  EXPECT_EQ(a5.clusters, 36);
  EXPECT_EQ(a5.efficient_transfer_bytes, 128);
  EXPECT_EQ(a5.AccMAlignment(DataType::INT32), 16);
}

TEST(Platform, SimulatorReadsTheSameFile) {
  const Platform& sim = Platform::Get("a2a3sim");
  EXPECT_EQ(sim.name, "a2a3sim");
  EXPECT_EQ(sim.soc, "a2a3");
  EXPECT_TRUE(sim.simulated);
  EXPECT_EQ(sim.Capacity(MemorySpace::Vec), Platform::Get("a2a3").Capacity(MemorySpace::Vec));
  EXPECT_TRUE(Platform::Get("a5sim").simulated);
}

// A2/A3 keep the rings of cross-core pipes in global memory; A5 in the consumer's UB or L1.
TEST(Platform, CrossCoreRingPlacement) {
  EXPECT_FALSE(Platform::Get("a2a3sim").pipe_ring_in_consumer);
  EXPECT_TRUE(Platform::Get("a5sim").pipe_ring_in_consumer);
}

TEST(Platform, GetCachesEachPlatform) { EXPECT_EQ(&Platform::Get("a5sim"), &Platform::Get("a5sim")); }

TEST(Platform, DTypesAndCasts) {
  const Platform& a2a3 = Platform::Get("a2a3");
  EXPECT_TRUE(a2a3.SupportsDType(DataType::FP32));
  EXPECT_TRUE(a2a3.SupportsDType(DataType::BF16));
  EXPECT_FALSE(a2a3.SupportsDType(DataType::FP8E4M3FN));
  EXPECT_FALSE(a2a3.SupportsDType(DataType::FP64));
  EXPECT_TRUE(a2a3.SupportsCast(DataType::FP32, DataType::FP16));
  EXPECT_TRUE(a2a3.SupportsCast(DataType::INT32, DataType::FP16));
  EXPECT_FALSE(a2a3.SupportsCast(DataType::FP16, DataType::BF16));
  const Platform& a5 = Platform::Get("a5");
  EXPECT_TRUE(a5.SupportsDType(DataType::FP8E4M3FN));
  EXPECT_FALSE(a5.SupportsCast(DataType::INT32, DataType::FP16));  // through FP32 on A5
  EXPECT_TRUE(a5.SupportsCast(DataType::INT32, DataType::FP32));
  EXPECT_TRUE(a5.SupportsCast(DataType::FP32, DataType::FP16));
}

TEST(Platform, MoveGraph) {
  const Platform& a2a3 = Platform::Get("a2a3");
  EXPECT_TRUE(a2a3.SupportsMove(MemorySpace::DDR, MemorySpace::Mat));
  EXPECT_TRUE(a2a3.SupportsMove(MemorySpace::Mat, MemorySpace::Left));
  EXPECT_TRUE(a2a3.SupportsMove(MemorySpace::Acc, MemorySpace::DDR));
  EXPECT_FALSE(a2a3.SupportsMove(MemorySpace::Vec, MemorySpace::Mat));
  EXPECT_FALSE(a2a3.SupportsMove(MemorySpace::Acc, MemorySpace::Vec));
  EXPECT_FALSE(a2a3.SupportsMove(MemorySpace::DDR, MemorySpace::Left));
  EXPECT_EQ(a2a3.moves.size(), 8u);
  const Platform& a5 = Platform::Get("a5");
  EXPECT_TRUE(a5.SupportsMove(MemorySpace::Vec, MemorySpace::Mat));
  EXPECT_TRUE(a5.SupportsMove(MemorySpace::Acc, MemorySpace::Vec));
  EXPECT_EQ(a5.moves.size(), 10u);
}

// Acc reaches Left through Mat inside the cube core; Vec only by a core
// transfer on a2a3, by a direct move on a5; nothing leaves Left.
TEST(Platform, MovePathsGoThroughIntermediateSpaces) {
  using S = ir::MemorySpace;
  const Platform& a2a3 = Platform::Get("a2a3sim");
  const Platform& a5 = Platform::Get("a5sim");
  EXPECT_EQ(a2a3.MovePath(S::Mat, S::Left), (std::vector<S>{S::Mat, S::Left}));
  EXPECT_EQ(a2a3.MovePath(S::Acc, S::Left), (std::vector<S>{S::Acc, S::Mat, S::Left}));
  EXPECT_EQ(a2a3.MovePath(S::Acc, S::Vec), (std::vector<S>{S::Acc, S::Vec}));
  EXPECT_EQ(a2a3.MovePath(S::Vec, S::Right), (std::vector<S>{S::Vec, S::Mat, S::Right}));
  EXPECT_EQ(a5.MovePath(S::Acc, S::Right), (std::vector<S>{S::Acc, S::Mat, S::Right}));
  EXPECT_EQ(a2a3.MovePath(S::Left, S::Vec), std::nullopt);
  EXPECT_EQ(a2a3.MovePath(S::Vec, S::Acc), std::nullopt);
  EXPECT_EQ(a2a3.MovePath(S::Vec, S::Vec), (std::vector<S>{S::Vec}));
}

TEST(Platform, ThroughputIsAnOpenMap) {
  const Platform& p = Platform::Get("a2a3");
  EXPECT_EQ(p.Throughput("MTE2", "bytes_per_cycle"), 128.0);
  EXPECT_EQ(p.Throughput("clock", "ghz"), 1.8);
  EXPECT_EQ(p.Throughput("MTE2", "no_such_figure"), std::nullopt);
  EXPECT_EQ(p.Throughput("NOPIPE", "bytes_per_cycle"), std::nullopt);
}

TEST(Platform, SpaceOffChipIsAnError) {
  try {
    Platform::Get("a2a3").Space(MemorySpace::DDR);
    FAIL() << "DDR has no capacity";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kValue);
    EXPECT_EQ(e.message(),
              "platform 'a2a3' has no on-chip memory space DDR; its spaces are in platforms/a2a3.yaml under 'memory:'");
  }
}

TEST(Platform, UnknownNameListsTheKnownOnes) {
  for (const std::string name : {"a3", "a3sim", "", "a2a3simsim"}) {
    try {
      Platform::Get(name);
      FAIL() << "accepted '" << name << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kValue);
      EXPECT_EQ(e.message().rfind("unknown platform '" + name + "'; the platforms are a2a3, a2a3sim, a5, a5sim (", 0),
                0u)
          << e.message();
    }
  }
}

TEST(Platform, PassContextDefaultsToA2A3Sim) {
  pass::PassContext ctx;
  EXPECT_EQ(ctx.platform().name, "a2a3sim");
  ctx.set_platform(Platform::Get("a5"));
  EXPECT_EQ(ctx.platform().name, "a5");
}

// A temporary description file; removed with the test.
class PlatformFile : public ::testing::Test {
 protected:
  fs::path Write(const std::string& stem, const std::string& text) {
    dir_ = fs::temp_directory_path() / ("pypto_platform_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    fs::path file = dir_ / (stem + ".yaml");
    std::ofstream(file) << text;
    return file;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // The message of the error loading `text` raises, with its line.
  std::string LoadError(const std::string& text) {
    fs::path file = Write("bad", text);
    try {
      Platform::LoadFile(file, "bad");
    } catch (const Error& e) {
      EXPECT_EQ(e.span().filename, file.string());
      return std::to_string(e.span().begin_line) + ": " + e.message().substr(("platform file " + file.string() + ": ").size());
    }
    ADD_FAILURE() << "accepted:\n" << text;
    return "";
  }

  fs::path dir_;
};

const char* const kMinimal =
    "description: tiny\n"
    "memory:\n"
    "  Vec: {capacity: 4096}\n"
    "  Acc: {capacity: 2048, alignment: 64}\n"
    "cores: {clusters: 2, aic_per_cluster: 1, aiv_per_cluster: 2}\n"
    "dtypes: [FP32, FP16]\n"
    "casts: [[FP32, FP16]]\n"
    "efficient_transfer_bytes: 256\n"
    "acc_m_alignment: 16\n"
    "moves: [[DDR, Vec]]\n";

TEST_F(PlatformFile, LoadsAnExplicitFile) {
  Platform p = Platform::LoadFile(Write("tiny", kMinimal), "tinysim");
  EXPECT_EQ(p.name, "tinysim");
  EXPECT_EQ(p.soc, "tiny");
  EXPECT_TRUE(p.simulated);
  EXPECT_EQ(p.description, "tiny");
  EXPECT_EQ(p.Capacity(MemorySpace::Vec), 4096);
  EXPECT_EQ(p.Alignment(MemorySpace::Vec), 32);  // the default alignment
  EXPECT_EQ(p.Alignment(MemorySpace::Acc), 64);
  EXPECT_FALSE(p.HasSpace(MemorySpace::Mat));
  EXPECT_EQ(p.clusters, 2);
  EXPECT_TRUE(p.SupportsCast(DataType::FP32, DataType::FP16));
  EXPECT_TRUE(p.throughput.empty());
}

TEST_F(PlatformFile, MissingFileIsAnIOError) {
  try {
    Platform::LoadFile("/nonexistent/x.yaml", "x");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kIO);
    EXPECT_EQ(e.message(), "platform file '/nonexistent/x.yaml' does not exist or is not a file");
  }
}

TEST_F(PlatformFile, MalformedFilesNameTheLine) {
  std::string text = kMinimal;
  EXPECT_EQ(LoadError("- a\n- b\n"), "1: a platform file is a mapping of fields, not a list");
  EXPECT_EQ(LoadError(text + "colour: red\n"),
            "11: unknown platform field 'colour'; the fields are description, memory, cores, dtypes, casts, "
            "efficient_transfer_bytes, acc_m_alignment, acc_m_alignment_by_dtype, moves, core_transfers, "
            "cross_core_ring, throughput");
  EXPECT_EQ(LoadError(text + "cross_core_ring: l2\n"),
            "11: 'cross_core_ring' is gm (rings in global memory) or consumer (in the consumer's buffer), not 'l2'");
  EXPECT_EQ(LoadError("description: x\n"), "1: the platform file has no 'memory:'; add it");
  std::string bad_capacity = text;
  bad_capacity.replace(bad_capacity.find("4096"), 4, "-1");
  EXPECT_EQ(LoadError(bad_capacity), "3: 'memory.Vec.capacity' must be a positive integer, not the scalar '-1'");
  std::string bad_space = text;
  bad_space.replace(bad_space.find("Vec:"), 3, "UB");
  EXPECT_EQ(LoadError(bad_space), "3: unknown memory space the scalar 'UB'; the spaces are DDR, Vec, Mat, Left, Right, "
                                  "Acc, Bias");
  std::string ddr = text;
  ddr.replace(ddr.find("Vec:"), 3, "DDR");
  EXPECT_EQ(LoadError(ddr), "3: 'memory' lists on-chip spaces only; DDR has no capacity here");
  std::string odd_alignment = text;
  odd_alignment.replace(odd_alignment.find("64}"), 2, "48");
  EXPECT_EQ(LoadError(odd_alignment), "4: 'memory.Acc.alignment' must be a power of two, not 48");
  std::string bad_dtype = text;
  bad_dtype.replace(bad_dtype.find("[FP32, FP16]\n"), 12, "[FP32, F17]");
  EXPECT_EQ(LoadError(bad_dtype), "6: unknown dtype the scalar 'F17'; use names such as FP32, BF16, INT8");
  std::string bad_cast = text;
  bad_cast.replace(bad_cast.find("[[FP32, FP16]]"), 14, "[[FP32]]");
  EXPECT_EQ(LoadError(bad_cast), "7: every entry of 'casts' is a pair such as [FP32, FP16], not a list");
  std::string bad_cores = text;
  bad_cores.replace(bad_cores.find("clusters: 2, "), 13, "");
  EXPECT_EQ(LoadError(bad_cores), "5: 'cores' has no 'clusters:'; add it");
  EXPECT_EQ(LoadError(text + "acc_m_alignment_by_dtype: {INT32: 0}\n"),
            "11: 'acc_m_alignment_by_dtype.INT32' must be a positive integer, not the scalar '0'");
  EXPECT_EQ(LoadError(text + "throughput: {V: {bytes_per_cycle: fast}}\n"),
            "11: 'throughput.V.bytes_per_cycle' must be a number, not the scalar 'fast'");
}

TEST_F(PlatformFile, BadSyntaxNamesTheLine) {
  fs::path file = Write("broken", "description: x\nmemory: {Vec: [\n");
  try {
    Platform::LoadFile(file, "broken");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kValue);
    EXPECT_EQ(e.span().filename, file.string());
    EXPECT_GE(e.span().begin_line, 2);
    EXPECT_EQ(e.message().rfind("malformed YAML in platform file: ", 0), 0u) << e.message();
  }
}

}  // namespace
}  // namespace pypto::test
