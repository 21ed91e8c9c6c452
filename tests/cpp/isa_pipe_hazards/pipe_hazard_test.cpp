// The pipe-hazard checker (instructions built with PTO_CHECK_PIPE_HAZARDS):
// accesses that no event orders after a conflicting access on another pipe,
// and events used wrongly, are faults naming both instructions; correctly
// synchronized code passes.
#include <string>

#include "isa/isa_test_util.h"
#include "pypto/backend/pipe_hazards.h"

PYPTO_ISA_DEFINE_CURRENT_CORE()

namespace pypto::isa_test {
namespace {

using namespace pto;

using Vec = Tile<TileType::Vec, float, 8, 16>;
using GT = GlobalTensor<float, Shape<1, 1, 1, 8, 16>, Stride<1, 1, 1, 16, 1>>;

class PipeHazard : public IsaTest {
 protected:
  void SetUp() override {
    IsaTest::SetUp();
    core_.hazards = &checker_;
    for (float& v : in_) v = 1.0f;
  }
  void TearDown() override {
    core_.hazards = nullptr;
    IsaTest::TearDown();
  }

  // The kernel returned: what the checker says of the events left set.
  void EndKernel() { checker_.Finish(core_); }

  std::string Detail() const { return core_.fault.detail; }
  void ExpectHazard(const char* instruction) {
    ASSERT_TRUE(core_.faulted()) << "no fault";
    EXPECT_EQ(core_.fault.kind, FaultKind::PipeHazard) << FaultKindName(core_.fault.kind);
    EXPECT_STREQ(core_.fault.instruction, instruction) << Detail();
  }
  void ExpectClean() { EXPECT_FALSE(core_.faulted()) << Detail(); }

  backend::PipeHazardChecker checker_;
  float in_[8 * 16];
  float out_[8 * 16] = {};
};

TEST_F(PipeHazard, AComputeThatDoesNotWaitForItsLoadNamesBothInstructionsAndTheEvent) {
  Vec a, b;
  Place(a);
  Place(b);
  GT src(in_);
  PYPTO_LOC(10);
  TLOAD(a, src);
  PYPTO_LOC(11);
  TADD(b, a, a);
  ExpectHazard("TADD");
  EXPECT_EQ(core_.fault.line, 11u);
  EXPECT_NE(Detail().find("TADD (line 11, PIPE_V) reads Vec bytes [0x0, 0x200) that TLOAD (line 10, PIPE_MTE2) wrote"),
            std::string::npos)
      << Detail();
  EXPECT_NE(Detail().find("set_flag(PIPE_MTE2, PIPE_V, EVENT_IDn) after the TLOAD and wait_flag(PIPE_MTE2, PIPE_V, "
                          "EVENT_IDn) before the TADD"),
            std::string::npos)
      << Detail();
}

TEST_F(PipeHazard, AnEventFromTheLoadToTheComputeOrdersThem) {
  Vec a, b;
  Place(a);
  Place(b);
  GT src(in_), dst(out_);
  TLOAD(a, src);
  set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  TADD(b, a, a);
  set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
  wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
  TSTORE(dst, b);
  EndKernel();
  ExpectClean();
  EXPECT_EQ(out_[0], 2.0f);
}

TEST_F(PipeHazard, AStoreThatDoesNotWaitForTheComputeIsAHazard) {
  Vec a, b;
  Place(a);
  Place(b);
  GT src(in_), dst(out_);
  TLOAD(a, src);
  set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  TADD(b, a, a);
  TSTORE(dst, b);
  ExpectHazard("TSTORE");
  EXPECT_NE(Detail().find("that TADD (line 0, PIPE_V) wrote"), std::string::npos) << Detail();
}

TEST_F(PipeHazard, OrderingIsTransitiveThroughAnotherPipe) {
  // The store waits for the add, which waited for the load: the store may read what the load wrote.
  Vec a, b;
  Place(a);
  Place(b);
  GT src(in_), dst(out_);
  TLOAD(a, src);
  set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  TADD(b, a, a);
  set_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
  wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
  TSTORE(dst, a);
  EndKernel();
  ExpectClean();
}

TEST_F(PipeHazard, DependentVectorInstructionsNeedAVectorBarrier) {
  Vec a, b, c;
  Place(a);
  Place(b);
  Place(c);
  TEXPANDS(a, 1.0f);
  TADD(b, a, a);
  ExpectHazard("TADD");
  EXPECT_NE(Detail().find("put pipe_barrier(PIPE_V) between them"), std::string::npos) << Detail();
}

TEST_F(PipeHazard, AVectorBarrierOrdersTheVectorPipe) {
  Vec a, b, c;
  Place(a);
  Place(b);
  Place(c);
  TEXPANDS(a, 1.0f);
  TEXPANDS(c, 3.0f);  // independent of a: no barrier needed between them
  pipe_barrier(PIPE_V);
  TADD(b, a, c);
  EndKernel();
  ExpectClean();
  EXPECT_EQ(b.At(0, 0), 4.0f);
}

TEST_F(PipeHazard, ReloadingABufferBeforeItsReaderIsDoneIsAWriteAfterRead) {
  Vec a, b;
  Place(a);
  Place(b);
  GT src(in_);
  TLOAD(a, src);
  set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
  TADD(b, a, a);
  TLOAD(a, src);  // double buffering gone wrong: the next load overwrites a while TADD may still read it
  ExpectHazard("TLOAD");
  EXPECT_NE(Detail().find("writes Vec bytes [0x0, 0x200) that TADD (line 0, PIPE_V) read"), std::string::npos)
      << Detail();
}

TEST_F(PipeHazard, TheSamePipeNeedsNoEventExceptTheVectorPipe) {
  Vec a;
  Place(a);
  GT src(in_);
  TLOAD(a, src);
  TLOAD(a, src);  // MTE2 finishes its instructions in order
  EndKernel();
  ExpectClean();
}

TEST_F(PipeHazard, ABarrierOfEveryPipeOrdersEverything) {
  Vec a, b;
  Place(a);
  Place(b);
  GT src(in_), dst(out_);
  TLOAD(a, src);
  pipe_barrier(PIPE_ALL);
  TADD(b, a, a);
  pipe_barrier(PIPE_ALL);
  TSTORE(dst, b);
  TLOAD(b, src);
  ExpectHazard("TLOAD");  // the barrier came before the store: the reload of b may overtake it
  EXPECT_NE(Detail().find("that TSTORE (line 0, PIPE_MTE3) read"), std::string::npos) << Detail();
}

TEST_F(PipeHazard, ALoadOfWhatTheKernelStoredWaitsForTheStore) {
  Vec a, b;
  Place(a);
  Place(b);
  GT out(out_);
  TEXPANDS(a, 5.0f);
  set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
  wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
  TSTORE(out, a);
  TLOAD(b, out);
  ExpectHazard("TLOAD");
  EXPECT_NE(Detail().find("reads global memory"), std::string::npos) << Detail();
  EXPECT_NE(Detail().find("that TSTORE (line 0, PIPE_MTE3) wrote"), std::string::npos) << Detail();
}

TEST_F(PipeHazard, WindowsOfOneTensorThatShareNoByteDoNotConflict) {
  // Two column halves of a 8 x 32 tensor: their rows interleave in memory but never overlap.
  using Half = GlobalTensor<float, Shape<1, 1, 1, 8, 16>, Stride<1, 1, 1, 32, 1>>;
  float wide[8 * 32] = {};
  Half left(wide), right(wide + 16);
  Vec a, b;
  Place(a);
  Place(b);
  TEXPANDS(a, 5.0f);
  set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
  wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
  TSTORE(left, a);
  TLOAD(b, right);
  ExpectClean();
  TLOAD(b, left);
  ExpectHazard("TLOAD");
}

TEST_F(PipeHazard, AScalarReadOfAVectorResultWaitsForTheVectorPipe) {
  Vec a;
  Place(a);
  TEXPANDS(a, 2.0f);
  set_flag(PIPE_V, PIPE_S, EVENT_ID0);
  wait_flag(PIPE_V, PIPE_S, EVENT_ID0);
  EXPECT_EQ(a.GetValue(3), 2.0f);
  a.SetValue(4, 7.0f);
  TEXPANDS(a, 1.0f);
  ExpectHazard("TEXPANDS");
  EXPECT_NE(Detail().find("that SetValue (line 0, PIPE_S) wrote"), std::string::npos) << Detail();
}

TEST_F(PipeHazard, AWaitWithNoSetWouldHangTheChip) {
  wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID3);
  ExpectHazard("wait_flag");
  EXPECT_NE(Detail().find("wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID3) with no set_flag before it"), std::string::npos)
      << Detail();
}

TEST_F(PipeHazard, SettingAnEventThatIsStillSetLosesASignal) {
  PYPTO_LOC(4);
  set_flag(PIPE_MTE2, PIPE_V, EVENT_ID1);
  PYPTO_LOC(5);
  set_flag(PIPE_MTE2, PIPE_V, EVENT_ID1);
  ExpectHazard("set_flag");
  EXPECT_NE(Detail().find("still set by the set_flag at line 4"), std::string::npos) << Detail();
}

TEST_F(PipeHazard, AnEventLeftSetWhenTheKernelReturnsIsAFaultAtItsLine) {
  PYPTO_LOC(9);
  set_flag(PIPE_V, PIPE_MTE3, EVENT_ID2);
  PYPTO_LOC(12);
  EndKernel();
  ExpectHazard("set_flag");
  EXPECT_EQ(core_.fault.line, 9u);
  EXPECT_NE(Detail().find("set_flag(PIPE_V, PIPE_MTE3, EVENT_ID2) is never waited for"), std::string::npos)
      << Detail();
}

TEST_F(PipeHazard, EventsNameRealPipesAndOneOfEightIds) {
  set_flag(PIPE_ALL, PIPE_V, EVENT_ID0);
  ExpectHazard("set_flag");
  core_.Clear();
  set_flag(PIPE_MTE2, PIPE_V, 8);
  ExpectHazard("set_flag");
  EXPECT_NE(Detail().find("outside EVENT_ID0 .. EVENT_ID7"), std::string::npos) << Detail();
}

TEST_F(PipeHazard, EveryKernelStartsWithNothingPending) {
  Vec a, b;
  Place(a);
  Place(b);
  GT src(in_);
  TLOAD(a, src);
  EndKernel();
  ExpectClean();
  TADD(b, a, a);  // the previous kernel's load is done when it returns
  EndKernel();
  ExpectClean();
}

TEST_F(PipeHazard, ACubePipelineWithEventsPasses) {
  using MatA = Tile<TileType::Mat, float, 16, 16, BLayout::ColMajor, 16, 16, SLayout::RowMajor>;
  using MatB = Tile<TileType::Mat, float, 16, 16, BLayout::ColMajor, 16, 16, SLayout::RowMajor>;
  using GT16 = GlobalTensor<float, Shape<1, 1, 1, 16, 16>, Stride<1, 1, 1, 16, 1>>;
  float x[256], y[256], z[256] = {};
  for (int i = 0; i < 256; ++i) x[i] = y[i] = 1.0f;
  MatA ma;
  MatB mb;
  TileLeft<float, 16, 16> l;
  TileRight<float, 16, 16> r;
  TileAcc<float, 16, 16> acc;
  Place(ma);
  Place(mb);
  Place(l);
  Place(r);
  Place(acc);
  GT16 gx(x), gy(y), gz(z);
  TLOAD(ma, gx);
  TLOAD(mb, gy);
  set_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
  wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);
  TMOV(l, ma);
  TMOV(r, mb);
  set_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
  wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);
  TMATMUL(acc, l, r);
  TMATMUL_ACC(acc, l, r);  // the cube finishes its instructions in order
  set_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
  wait_flag(PIPE_M, PIPE_FIX, EVENT_ID0);
  TSTORE(gz, acc);
  EndKernel();
  ExpectClean();
  EXPECT_EQ(z[0], 32.0f);
}

}  // namespace
}  // namespace pypto::isa_test
