// The performance model: which pipe each instruction is charged to, how many
// cycles, and when it may start (its pipe free, what it reads written, what it
// writes read and written).
#include "isa_test_util.h"

namespace pypto::isa_test {
namespace {

using namespace pto;

constexpr int kMTE2 = static_cast<int>(Pipe::MTE2);
constexpr int kMTE1 = static_cast<int>(Pipe::MTE1);
constexpr int kV = static_cast<int>(Pipe::V);
constexpr int kM = static_cast<int>(Pipe::M);
constexpr int kMTE3 = static_cast<int>(Pipe::MTE3);
constexpr int kFIX = static_cast<int>(Pipe::FIX);
constexpr int kVec = static_cast<int>(TileType::Vec);

class PerfModelTest : public IsaTest {
 protected:
  void SetUp() override {
    IsaTest::SetUp();
    Rate(Pipe::MTE2, 128, 100);
    Rate(Pipe::MTE1, 256, 20);
    Rate(Pipe::V, 256, 10);
    Rate(Pipe::M, 1, 20);
    Rate(Pipe::MTE3, 128, 100);
    Rate(Pipe::FIX, 128, 50);
    model_.cube_macs_per_cycle[static_cast<int>(CubeKind::Half)] = 4096;
    model_.cube_macs_per_cycle[static_cast<int>(CubeKind::Float)] = 1024;
    model_.cube_macs_per_cycle[static_cast<int>(CubeKind::Int8)] = 8192;
    for (int s = 0; s < kNumTileTypes; ++s) {
      model_.chunks[s] = kCapacity / PerfModel::kChunkBytes;
      written_[s].assign(model_.chunks[s], 0);
      read_[s].assign(model_.chunks[s], 0);
      model_.written_at[s] = written_[s].data();
      model_.read_at[s] = read_[s].data();
    }
    core_.perf = &model_;
  }

  void Rate(Pipe pipe, double per_cycle, uint64_t latency) {
    model_.pipes[static_cast<int>(pipe)] = {per_cycle, latency};
  }

  PerfModel model_;
  std::vector<uint64_t> written_[kNumTileTypes], read_[kNumTileTypes];
};

using Rows = GlobalTensor<float, Shape<1, 1, 1, 32, 64>, Stride<2048, 2048, 2048, 64, 1>>;  // 8 KiB

TEST_F(PerfModelTest, ALoadAddStoreChainWaitsForEachResult) {
  std::vector<float> x(32 * 64, 1.0f), y(32 * 64, 2.0f), z(32 * 64);
  Rows gx(x.data()), gy(y.data()), gz(z.data());
  Tile<TileType::Vec, float, 32, 64> a, b;
  Place(a);
  Place(b);
  TLOAD(a, gx);   // MTE2 0..64, ready 164
  TLOAD(b, gy);   // MTE2 64..128, ready 228
  TADD(a, a, b);  // V: 8 KiB at 256 B/cycle, from 228: 228..260, ready 270
  TSTORE(gz, a);  // MTE3 270..334, ready 434
  EXPECT_EQ(z[0], 3.0f);
  EXPECT_EQ(model_.done, 434u);
  EXPECT_EQ(model_.busy_cycles[kMTE2], 128u);
  EXPECT_EQ(model_.busy_cycles[kV], 32u);
  EXPECT_EQ(model_.busy_cycles[kMTE3], 64u);
  EXPECT_EQ(model_.instructions[kMTE2], 2u);
  EXPECT_EQ(model_.instructions[kV], 1u);
  EXPECT_EQ(model_.instructions[kMTE3], 1u);
  EXPECT_EQ(model_.bytes_read[kGlobalMemory], 2u * 8192);
  EXPECT_EQ(model_.bytes_written[kGlobalMemory], 8192u);
  EXPECT_EQ(model_.bytes_written[kVec], 3u * 8192);  // two loads and the add
  EXPECT_EQ(model_.bytes_read[kVec], 3u * 8192);     // the add's operands and the store
}

TEST_F(PerfModelTest, InstructionsOnOtherPipesAndOtherTilesOverlap) {
  std::vector<float> x(32 * 64, 1.0f);
  Rows gx(x.data());
  Tile<TileType::Vec, float, 32, 64> a, b;
  Place(a);
  Place(b);
  TLOAD(a, gx);       // MTE2 0..64, ready 164
  TEXPANDS(b, 5.0f);  // V, independent of the load: 0..32, ready 42
  EXPECT_EQ(model_.pipe_free[kV], 32u);
  EXPECT_EQ(model_.done, 164u);
}

TEST_F(PerfModelTest, AnInstructionOnABusyPipeWaitsForIt) {
  Tile<TileType::Vec, float, 32, 64> a, b;
  Place(a);
  Place(b);
  TEXPANDS(a, 1.0f);  // V 0..32
  TEXPANDS(b, 2.0f);  // V 32..64: nothing shared, but one vector unit
  EXPECT_EQ(model_.pipe_free[kV], 64u);
  EXPECT_EQ(model_.done, 74u);
}

TEST_F(PerfModelTest, OverwritingATileWaitsUntilItsReadersAreDone) {
  std::vector<float> x(32 * 64, 1.0f), z(32 * 64);
  Rows gx(x.data()), gz(z.data());
  Tile<TileType::Vec, float, 32, 64> a;
  Place(a);
  TEXPANDS(a, 3.0f);  // V 0..32, ready 42
  TSTORE(gz, a);      // MTE3 42..106, ready 206
  TLOAD(a, gx);       // MTE2 waits for the store's read of a: 206..270, ready 370
  EXPECT_EQ(z[0], 3.0f);
  EXPECT_EQ(model_.done, 370u);
  EXPECT_EQ(model_.pipe_free[kMTE2], 270u);
}

TEST_F(PerfModelTest, TheCubeIsChargedMacsAtTheRateOfItsOperandType) {
  TileLeft<half, 64, 64> a;
  TileRight<half, 64, 64> b;
  TileAcc<float, 64, 64> c;
  Place(a);
  Place(b);
  Place(c);
  TMATMUL(c, a, b);  // 64^3 MACs at 4096 a cycle
  EXPECT_EQ(model_.busy_cycles[kM], 64u);
  TileLeft<float, 64, 64> fa;
  TileRight<float, 64, 64> fb;
  Place(fa);
  Place(fb);
  TMATMUL_ACC(c, fa, fb);  // at 1024 a cycle, after the first (it accumulates into c)
  EXPECT_EQ(model_.busy_cycles[kM], 64u + 256u);
  EXPECT_EQ(model_.instructions[kM], 2u);
  EXPECT_EQ(model_.done, 64u + 20u + 256u + 20u);
}

TEST_F(PerfModelTest, MovesGoToTheEngineBetweenTheirSpaces) {
  Tile<TileType::Mat, half, 64, 64, BLayout::ColMajor, 64, 64, SLayout::RowMajor, 512> m;
  TileLeft<half, 64, 64> l;
  TileAcc<float, 64, 64> acc;
  Tile<TileType::Vec, float, 64, 64> v;
  Place(m);
  Place(l);
  Place(acc);
  Place(v);
  TMOV(l, m);    // Mat -> Left: MTE1, 8 KiB at 256 a cycle
  TMOV(v, acc);  // Acc -> Vec: the fixpipe, 16 KiB at 128 a cycle
  EXPECT_EQ(model_.busy_cycles[kMTE1], 32u);
  EXPECT_EQ(model_.busy_cycles[kFIX], 128u);
  EXPECT_EQ(model_.busy_cycles[kV], 0u);
}

TEST_F(PerfModelTest, NothingIsChargedWithoutAModel) {
  core_.perf = nullptr;
  Tile<TileType::Vec, float, 32, 64> a;
  Place(a);
  TEXPANDS(a, 1.0f);
  EXPECT_EQ(model_.instructions[kV], 0u);
  EXPECT_EQ(model_.done, 0u);
  EXPECT_EQ(a.At(0, 0), 1.0f);
}

}  // namespace
}  // namespace pypto::isa_test
