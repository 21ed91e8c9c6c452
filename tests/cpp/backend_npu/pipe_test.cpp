// The cross-core pipe ops: an AIC kernel that pushes tiles to its AIV lane and
// an AIV kernel that pops them, generated, compiled and run as one cluster
// task; and the core each op must run on.
#include "npu_test_util.h"

namespace pypto::test {
namespace {

constexpr int64_t kRows = 16;
constexpr int64_t kCols = 64;
constexpr int64_t kSlotBytes = kRows * kCols * 4;

Attrs PipeInit(int64_t dir_mask) {
  return Attrs{{"dir_mask", dir_mask}, {"slot_size", kSlotBytes}, {"slot_num", int64_t{2}}};
}

// A cluster member (x, out) -> (): both members of a cluster task take the Group's parameters.
FunctionPtr Member(const std::string& name, FunctionType type, const VarPtr& x, const VarPtr& out,
                   std::vector<StmtPtr> body) {
  body.push_back(ReturnStmt::Make({}));
  return Function::Make(name, type, {x, out}, {ParamDirection::In, ParamDirection::Out}, {},
                        SeqStmts::Make(std::move(body)), Span("kernels.py", 1, 1));
}

// AIC: init; push x's top rows, then its bottom rows.
FunctionPtr Producer() {
  auto x = TensorVar("x", {2 * kRows, kCols});
  auto out = TensorVar("out", {2 * kRows, kCols});
  Body body;
  body.Eval(Op("system.aic_initialize_pipe", {}, PipeInit(1)), 2);
  auto top = body.Def("top", Load(x, {Int(0), Int(0)}, {kRows, kCols}, MemorySpace::Mat), 3);
  body.Eval(Op("tile.tpush_to_aiv", {top}), 4);
  auto bottom = body.Def("bottom", Load(x, {Int(kRows), Int(0)}, {kRows, kCols}, MemorySpace::Mat), 5);
  body.Eval(Op("tile.tpush_to_aiv", {bottom}), 6);
  return Member("producer", FunctionType::AIC, x, out, body.stmts);
}

// AIV: init; per tile: pop, add 1, store at its rows, free its slot.
FunctionPtr Consumer() {
  auto x = TensorVar("x", {2 * kRows, kCols});
  auto out = TensorVar("out", {2 * kRows, kCols});
  Body body;
  body.Eval(Op("system.aiv_initialize_pipe", {}, PipeInit(1)), 8);
  for (int64_t half = 0; half < 2; ++half) {
    int line = static_cast<int>(9 + 4 * half);
    auto got = body.Def("got", Op("tile.tpop_from_aic", {Tuple({kRows, kCols})}, Attrs{{"dtype", DataType::FP32}}),
                        line);
    auto plus = body.Def("plus", Op("tile.adds", {got, Float(1.0)}), line + 1);
    body.Eval(Store(plus, {Int(half * kRows), Int(0)}, out), line + 2);
    body.Eval(Op("system.tfree_to_aic", {got}), line + 3);
  }
  return Member("consumer", FunctionType::AIV, x, out, body.stmts);
}

TEST(NpuPipe, EachSideEmitsItsPipeInstructions) {
  auto artifacts = Generate(Planned({Producer(), Consumer()}));
  std::string aic = SourceOf(artifacts, "producer");
  EXPECT_NE(aic.find("  PYPTO_LOC(2);\n  AIC_INITIALIZE_PIPE(1, 4096, 2);  // kernels.py:2\n"), std::string::npos)
      << aic;
  // A push of a Mat tile moves it on MTE1: it waits for the tile's load.
  EXPECT_NE(aic.find("  PYPTO_LOC(4);\n  wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);  // kernels.py:4\n"
                     "  TPUSH_TO_AIV(top, PipeSplit::NONE);  // kernels.py:4\n"),
            std::string::npos)
      << aic;
  EXPECT_NE(aic.find("  PYPTO_LOC(6);\n  wait_flag(PIPE_MTE2, PIPE_MTE1, EVENT_ID0);  // kernels.py:6\n"
                     "  TPUSH_TO_AIV(bottom, PipeSplit::NONE);  // kernels.py:6\n"),
            std::string::npos)
      << aic;
  std::string aiv = SourceOf(artifacts, "consumer");
  EXPECT_NE(aiv.find("  PYPTO_LOC(8);\n  AIV_INITIALIZE_PIPE(1, 4096, 2);  // kernels.py:8\n"), std::string::npos)
      << aiv;
  EXPECT_NE(aiv.find("  Tile<TileType::Vec, float, 16, 64, BLayout::RowMajor, 16, 64, SLayout::NoneBox, 512, "
                     "PadValue::Null> got;\n"
                     "  PYPTO_LOC(9);\n"
                     "  TASSIGN(got, 0x0);  // received through the pipe\n"
                     "  TPOP_FROM_AIC(got, PipeSplit::NONE);  // kernels.py:9\n"),
            std::string::npos)
      << aiv;
  // A free hands the slot back to the producer: it waits for the popped tile's reader, the vector pipe.
  EXPECT_NE(aiv.find("  PYPTO_LOC(12);\n  wait_flag(PIPE_V, PIPE_S, EVENT_ID0);  // kernels.py:12\n"
                     "  TFREE_TO_AIC();  // kernels.py:12\n"),
            std::string::npos)
      << aiv;
  EXPECT_NE(aiv.find("  PYPTO_LOC(16);\n  wait_flag(PIPE_V, PIPE_S, EVENT_ID0);  // kernels.py:16\n"
                     "  TFREE_TO_AIC();  // kernels.py:16\n"),
            std::string::npos)
      << aiv;
}

TEST(NpuPipe, AnAicAndAnAivKernelRunAsOneClusterTask) {
  auto artifacts = Generate(Planned({Producer(), Consumer()}));
  CompiledKernel aic("producer", SourceOf(artifacts, "producer"));
  CompiledKernel aiv("consumer", SourceOf(artifacts, "consumer"));
  auto x = FilledFloat({2 * kRows, kCols}, [](int64_t i) { return 0.5f * static_cast<float>(i % 41) - 7.0f; });
  auto out = runtime::Tensor::Allocate(DataType::FP32, {2 * kRows, kCols});
  runtime::TaskArgs args;
  args.AddInput(x).AddOutputExisting(out);
  // Options() gives the runtime the pipe's hooks: a fresh pipe per block, and each member's end.
  backend::SimulatedCores cores(backend::Platform::Get("a2a3sim"), 1);
  runtime::Runtime rt(cores.Options());
  runtime::KernelSet cluster;
  cluster.aic = aic.kernel();
  cluster.aiv[0] = aiv.kernel();
  rt.Submit(cluster, args);
  rt.WaitAll();
  auto in = Floats(x);
  auto got = Floats(out);
  for (size_t i = 0; i < in.size(); ++i) ASSERT_EQ(got[i], in[i] + 1.0f) << "at " << i;
}

// A kernel of `type` whose only statement is the pipe init `op` at line 2.
FunctionPtr InitOnly(FunctionType type, const std::string& op) {
  Body body;
  body.Eval(Op(op, {}, PipeInit(1)), 2);
  return Member("k", type, TensorVar("x", {kRows, kCols}), TensorVar("out", {kRows, kCols}), body.stmts);
}

TEST(NpuPipe, APipeOpOnTheWrongCoreNamesTheKernelTypeToUse) {
  std::string message = CodegenErrorOf(InitOnly(FunctionType::AIV, "system.aic_initialize_pipe"));
  EXPECT_NE(message.find("op 'system.aic_initialize_pipe': a cross-core pipe op runs on the cube core: put it in a "
                         "@pl.function(type=pl.FunctionType.AIC) kernel that a Group function calls with its peer; "
                         "'k' is AIV (line 2)"),
            std::string::npos)
      << message;
  message = CodegenErrorOf(InitOnly(FunctionType::AIC, "system.aiv_initialize_pipe"));
  EXPECT_NE(message.find("runs on a vector core: put it in a @pl.function(type=pl.FunctionType.AIV) kernel"),
            std::string::npos)
      << message;
}

// An InCore kernel runs as a task of its own: no peer is there to pipe with.
TEST(NpuPipe, AnInCoreKernelHasNoPeerToPipeWith) {
  std::string message = CodegenErrorOf(InitOnly(FunctionType::InCore, "system.aiv_initialize_pipe"));
  EXPECT_NE(message.find("'k' is InCore"), std::string::npos) << message;
}

}  // namespace
}  // namespace pypto::test
