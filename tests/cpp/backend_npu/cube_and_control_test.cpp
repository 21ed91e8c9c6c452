// Cube kernels (AIC), control flow, run-time offsets, block indices, and
// what the backend and the simulator refuse.
#include <cmath>

#include "npu_test_util.h"

namespace pypto::test {
namespace {

std::vector<float> Matmul(const std::vector<float>& a, const std::vector<float>& b, int64_t m, int64_t k, int64_t n) {
  std::vector<float> c(m * n, 0.0f);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < k; ++p) sum += static_cast<double>(a[i * k + p]) * b[p * n + j];
      c[i * n + j] = static_cast<float>(sum);
    }
  }
  return c;
}

float A(int64_t i) { return static_cast<float>(i % 7) - 3.0f; }
float B(int64_t i) { return 0.5f * static_cast<float>(i % 5) - 1.0f; }

// acc = matmul(a[:, 0:16], b[0:16, :]); for k in 16..K step 16: acc = matmul_acc(acc, ...); store.
FunctionPtr MatmulKernel(int64_t k_total) {
  auto a = TensorVar("a", {16, k_total});
  auto b = TensorVar("b", {k_total, 16});
  auto out = TensorVar("out", {16, 16});
  Body body;
  auto ta = body.Def("ta", Load(a, {16, 16}, MemorySpace::Mat), 3);
  auto tb = body.Def("tb", Load(b, {16, 16}, MemorySpace::Mat), 4);
  auto left = body.Def("left", Op("tile.move", {ta}, Target(MemorySpace::Left)), 5);
  auto right = body.Def("right", Op("tile.move", {tb}, Target(MemorySpace::Right)), 6);
  auto acc = body.Def("acc", Op("tile.matmul", {left, right}), 7);

  auto k = IndexVar("k");
  auto acc_in = IterArg::Make("acc_in", acc->type, acc);
  Body loop;
  auto tak = loop.Def("ta_k", Load(a, {Int(0), k}, {16, 16}, MemorySpace::Mat), 9);
  auto tbk = loop.Def("tb_k", Load(b, {k, Int(0)}, {16, 16}, MemorySpace::Mat), 10);
  auto lk = loop.Def("left_k", Op("tile.move", {tak}, Target(MemorySpace::Left)), 11);
  auto rk = loop.Def("right_k", Op("tile.move", {tbk}, Target(MemorySpace::Right)), 12);
  auto next = loop.Def("acc_next", Op("tile.matmul_acc", {acc_in, lk, rk}), 13);
  loop.stmts.push_back(YieldStmt::Make({next}, Line(14)));
  auto acc_out = Var::Make("acc_out", acc->type);
  body.stmts.push_back(ForStmt::Make(k, Int(16), Int(k_total), Int(16), {acc_in}, SeqStmts::Make(loop.stmts),
                                     {acc_out}, ForKind::Sequential, {}, Line(8)));
  body.Eval(Store(acc_out, out), 15);
  return KernelFn("matmul_k", {a, b, out}, body.stmts);
}

TEST(NpuCube, MatmulKernelsGoToTheAicFolder) {
  auto artifacts = Generate(Planned({MatmulKernel(32)}));
  ASSERT_EQ(artifacts.size(), 1u);
  EXPECT_EQ(artifacts[0].path, "kernels/aic/matmul_k.cpp");
  EXPECT_EQ(artifacts[0].core, FunctionType::AIC);
}

TEST(NpuCube, MatmulAccumulatesOverAKLoop) {
  constexpr int64_t K = 64;
  std::string source = KernelSource(MatmulKernel(K));
  EXPECT_NE(source.find("TileLeft<float, 16, 16> left;"), std::string::npos) << source;
  EXPECT_NE(source.find("for (int64_t k = 16; k < 64; k += 16) {"), std::string::npos) << source;
  // The cube waits for both operand moves of the iteration, then releases its operands to the next one.
  EXPECT_NE(source.find("    PYPTO_LOC(13);\n"
                        "    wait_flag(PIPE_MTE1, PIPE_M, EVENT_ID0);  // kernels.py:13\n"
                        "    TileAcc<float, 16, 16> acc_next;\n"
                        "    TASSIGN(acc_next, 0x0);\n"
                        "    TMATMUL_ACC(acc_next, acc_in, left_k, right_k);  // kernels.py:13\n"
                        "    set_flag(PIPE_M, PIPE_MTE1, EVENT_ID1);  // kernels.py:13\n"
                        "  }\n"),
            std::string::npos)
      << source;
  CompiledKernel kernel("matmul_k", source);
  auto a = FilledFloat({16, K}, A);
  auto b = FilledFloat({K, 16}, B);
  auto out = runtime::Tensor::Allocate(DataType::FP32, {16, 16});
  runtime::TaskArgs args;
  args.AddInput(a).AddInput(b).AddOutputExisting(out);
  RunOnce(kernel, args, /*aic=*/true);
  auto want = Matmul(Floats(a), Floats(b), 16, K, 16);
  auto got = Floats(out);
  for (size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-3f) << "at " << i;
}

// for i in range(0, rows, 8): s = 1.0 if i < 16 else -1.0; out[i:i+8] = x[i:i+8] * s
FunctionPtr SignedRows(int64_t rows) {
  auto x = TensorVar("x", {rows, 32});
  auto out = TensorVar("out", {rows, 32});
  auto i = IndexVar("i");
  auto s = Var::Make("s", Scalar(DataType::FP32));
  Body loop;
  auto then_body = YieldStmt::Make({Float(1.0)}, Line(5));
  auto else_body = YieldStmt::Make({Float(-1.0)}, Line(7));
  loop.stmts.push_back(IfStmt::Make(Bin(BinaryOp::Lt, i, Int(16)), then_body, else_body, {s}, Line(4)));
  auto t = loop.Def("t", Load(x, {i, Int(0)}, {8, 32}), 8);
  auto scaled = loop.Def("scaled", Op("tile.muls", {t, s}), 9);
  loop.Eval(Store(scaled, {i, Int(0)}, out), 10);
  Body body;
  body.stmts.push_back(ForStmt::Make(i, Int(0), Int(rows), Int(8), {}, SeqStmts::Make(loop.stmts), {},
                                     ForKind::Sequential, {}, Line(3)));
  return KernelFn("signed_rows", {x, out}, body.stmts);
}

TEST(NpuControlFlow, LoopKernelSource) {
  EXPECT_EQ(KernelSource(SignedRows(32)),
            "// Generated by PyPTO from kernels.py:1 (function signed_rows)\n"
            "#include <stdint.h>\n"
            "#include <pto/pto-inst.hpp>\n"
            "#include \"pypto/runtime/kernel_args.h\"\n"
            "\n"
            "// The user's source line of the instructions that follow, for the simulator's fault messages.\n"
            "#ifndef PYPTO_LOC\n"
            "#define PYPTO_LOC(line)\n"
            "#endif\n"
            "\n"
            "using namespace pto;\n"
            "\n"
            "static __aicore__ void signed_rows(__gm__ PyptoRtTensorDesc* x_tensor, __gm__ PyptoRtTensorDesc* "
            "out_tensor) {\n"
            "  using x_global = GlobalTensor<float, Shape<1, 1, 1, 32, 32>, Stride<DYNAMIC, DYNAMIC, DYNAMIC, "
            "DYNAMIC, DYNAMIC>>;\n"
            "  x_global x(reinterpret_cast<__gm__ float*>(x_tensor->data), x_global::Shape(1, 1, 1, 32, 32), "
            "x_global::Stride(0, 0, 0, x_tensor->strides[0], x_tensor->strides[1]));\n"
            "  using out_global = GlobalTensor<float, Shape<1, 1, 1, 32, 32>, Stride<DYNAMIC, DYNAMIC, DYNAMIC, "
            "DYNAMIC, DYNAMIC>>;\n"
            "  out_global out(reinterpret_cast<__gm__ float*>(out_tensor->data), out_global::Shape(1, 1, 1, 32, 32), "
            "out_global::Stride(0, 0, 0, out_tensor->strides[0], out_tensor->strides[1]));\n"
            "  PYPTO_LOC(10);\n"
            "  set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);  // kernels.py:10\n"
            "  for (int64_t i = 0; i < 32; i += 8) {  // kernels.py:3\n"
            "    float s{};\n"
            "    if (i < 16) {  // kernels.py:4\n"
            "      s = 1.0f;\n"
            "    } else {\n"
            "      s = -1.0f;\n"
            "    }\n"
            "    PYPTO_LOC(8);\n"
            "    wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);  // kernels.py:8\n"
            "    Tile<TileType::Vec, float, 8, 32, BLayout::RowMajor, 8, 32, SLayout::NoneBox, 512, PadValue::Null> "
            "t;\n"
            "    TASSIGN(t, 0x0);\n"
            "    GlobalTensor<float, Shape<1, 1, 1, DYNAMIC, 32>, Stride<DYNAMIC, DYNAMIC, DYNAMIC, DYNAMIC, "
            "DYNAMIC>> t_src(x.data() + i * x.GetStride(3), Shape<1, 1, 1, DYNAMIC, 32>(1, 1, 1, "
            "pypto::WindowExtent(32, i, 8, \"TLOAD\"), 32), Stride<DYNAMIC, DYNAMIC, DYNAMIC, DYNAMIC, "
            "DYNAMIC>(x.GetStride(0), x.GetStride(1), x.GetStride(2), x.GetStride(3), x.GetStride(4)));\n"
            "    TLOAD(t, t_src);  // kernels.py:8\n"
            "    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // kernels.py:8\n"
            "    PYPTO_LOC(9);\n"
            "    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);  // kernels.py:9\n"
            "    Tile<TileType::Vec, float, 8, 32, BLayout::RowMajor, 8, 32, SLayout::NoneBox, 512, PadValue::Null> "
            "scaled;\n"
            "    TASSIGN(scaled, 0x0);\n"
            "    TMULS(scaled, t, s);  // kernels.py:9\n"
            "    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // kernels.py:9\n"
            "    PYPTO_LOC(10);\n"
            "    wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);  // kernels.py:10\n"
            "    GlobalTensor<float, Shape<1, 1, 1, DYNAMIC, 32>, Stride<DYNAMIC, DYNAMIC, DYNAMIC, DYNAMIC, "
            "DYNAMIC>> out_dst(out.data() + i * out.GetStride(3), Shape<1, 1, 1, DYNAMIC, 32>(1, 1, 1, "
            "pypto::WindowExtent(32, i, 8, \"TSTORE\"), 32), Stride<DYNAMIC, DYNAMIC, DYNAMIC, DYNAMIC, "
            "DYNAMIC>(out.GetStride(0), out.GetStride(1), out.GetStride(2), out.GetStride(3), out.GetStride(4)));\n"
            "    TSTORE(out_dst, scaled);  // kernels.py:10\n"
            "    set_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);  // kernels.py:10\n"
            "  }\n"
            "  PYPTO_LOC(8);\n"
            "  wait_flag(PIPE_MTE3, PIPE_MTE2, EVENT_ID0);  // kernels.py:8\n"
            "}\n"
            "\n"
            "extern \"C\" __aicore__ void kernel_entry(__gm__ int64_t* args) {\n"
            "  __gm__ PyptoRtTensorDesc* x_tensor = reinterpret_cast<__gm__ PyptoRtTensorDesc*>(args[0]);\n"
            "  __gm__ PyptoRtTensorDesc* out_tensor = reinterpret_cast<__gm__ PyptoRtTensorDesc*>(args[1]);\n"
            "  signed_rows(x_tensor, out_tensor);\n"
            "}\n");
}

TEST(NpuControlFlow, LoopWithBranchAndRunTimeOffsetsRuns) {
  std::string source = KernelSource(SignedRows(32));
  EXPECT_NE(source.find("if (i < 16) {"), std::string::npos) << source;
  EXPECT_NE(source.find("pypto::WindowExtent(32, i, 8, \"TLOAD\")"), std::string::npos) << source;
  CompiledKernel kernel("signed_rows", source);
  auto x = FilledFloat({32, 32}, [](int64_t i) { return static_cast<float>(i); });
  auto out = runtime::Tensor::Allocate(DataType::FP32, {32, 32});
  runtime::TaskArgs args;
  args.AddInput(x).AddOutputExisting(out);
  RunOnce(kernel, args);
  auto got = Floats(out);
  for (int64_t i = 0; i < 32 * 32; ++i) ASSERT_EQ(got[i], (i / 32 < 16 ? 1.0f : -1.0f) * static_cast<float>(i));
}

// out[r:r+8] = x[r:r+8] + 1 with r a scalar parameter.
FunctionPtr RowsAt() {
  auto x = TensorVar("x", {16, 32});
  auto r = IndexVar("r");
  auto out = TensorVar("out", {16, 32});
  Body body;
  auto t = body.Def("t", Load(x, {r, Int(0)}, {8, 32}), 12);
  auto t1 = body.Def("t1", Op("tile.adds", {t, Float(1.0)}), 13);
  body.Eval(Store(t1, {r, Int(0)}, out), 14);
  return KernelFn("rows_at", {x, r, out}, body.stmts);
}

TEST(NpuControlFlow, ScalarsFollowTheTensorsInTheSlots) {
  std::string source = KernelSource(RowsAt());
  EXPECT_NE(source.find("static __aicore__ void rows_at(__gm__ PyptoRtTensorDesc* x_tensor, int64_t r, "
                        "__gm__ PyptoRtTensorDesc* out_tensor) {"),
            std::string::npos)
      << source;
  EXPECT_NE(source.find("  __gm__ PyptoRtTensorDesc* x_tensor = "
                        "reinterpret_cast<__gm__ PyptoRtTensorDesc*>(args[0]);\n"
                        "  __gm__ PyptoRtTensorDesc* out_tensor = "
                        "reinterpret_cast<__gm__ PyptoRtTensorDesc*>(args[1]);\n"
                        "  union { uint64_t u64; int64_t val; } r_conv;\n"
                        "  r_conv.u64 = static_cast<uint64_t>(args[2]);\n"
                        "  rows_at(x_tensor, r_conv.val, out_tensor);\n"),
            std::string::npos)
      << source;
  CompiledKernel kernel("rows_at", source);
  auto x = FilledFloat({16, 32}, [](int64_t i) { return static_cast<float>(i); });
  auto out = FilledFloat({16, 32}, [](int64_t) { return 0.0f; });
  runtime::TaskArgs args;
  args.AddInput(x).AddOutputExisting(out).AddScalar(8);
  RunOnce(kernel, args);
  auto got = Floats(out);
  for (int64_t i = 0; i < 16 * 32; ++i) ASSERT_EQ(got[i], i / 32 < 8 ? 0.0f : static_cast<float>(i) + 1.0f);
}

TEST(NpuFaults, ALoadWindowOutsideTheTensorNamesTheInstructionAndLine) {
  CompiledKernel kernel("rows_at", KernelSource(RowsAt()));
  auto x = FilledFloat({16, 32}, [](int64_t) { return 1.0f; });
  auto out = FilledFloat({16, 32}, [](int64_t) { return 0.0f; });
  runtime::TaskArgs args;
  args.AddInput(x).AddOutputExisting(out).AddScalar(12);  // rows 12..19 of 16
  try {
    RunOnce(kernel, args);
    FAIL() << "the window outside the tensor was not reported";
  } catch (const Error& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("TLOAD"), std::string::npos) << what;
    EXPECT_NE(what.find("kernels.py"), std::string::npos) << what;
    EXPECT_NE(what.find("12"), std::string::npos) << what;
  }
  // Nothing was written: the faulting TLOAD did nothing, and TSTORE was not reached with data.
  for (float v : Floats(out)) ASSERT_EQ(v, 0.0f);
}

TEST(NpuControlFlow, BlockIndexComesFromTheCoreContext) {
  auto x = TensorVar("x", {16, 32});
  auto out = TensorVar("out", {16, 32});
  Body body;
  auto idx = body.Def("idx", Op("tile.get_block_idx", {}), 3);
  auto row = body.Def("row", Bin(BinaryOp::Mul, idx, Int(8)), 4);
  auto t = body.Def("t", Load(x, {row, Int(0)}, {8, 32}), 5);
  auto t1 = body.Def("t1", Op("tile.muls", {t, Float(2.0)}), 6);
  body.Eval(Store(t1, {row, Int(0)}, out), 7);
  std::string source = KernelSource(KernelFn("blocks", {x, out}, body.stmts));
  EXPECT_NE(source.find("const int64_t idx = static_cast<int64_t>(get_block_idx(args));"), std::string::npos)
      << source;
  CompiledKernel kernel("blocks", source);
  auto xd = FilledFloat({16, 32}, [](int64_t i) { return static_cast<float>(i); });
  auto od = FilledFloat({16, 32}, [](int64_t) { return 0.0f; });
  runtime::TaskArgs args;
  args.AddInput(xd).AddOutputExisting(od);
  RunOnce(kernel, args, false, 2);
  auto got = Floats(od);
  for (int64_t i = 0; i < 16 * 32; ++i) ASSERT_EQ(got[i], 2.0f * static_cast<float>(i));
}

TEST(NpuCodegenErrors, AnOpTheIsaCannotDoNamesBackendFunctionOpAndLine) {
  auto x = TensorVar("x", {8, 32});
  auto out = TensorVar("out", {8, 32});
  Body body;
  auto t = body.Def("t", Load(x, {8, 32}), 3);
  auto r = body.Def("r", Op("tile.addc", {t, t, t}), 5);
  body.Eval(Store(r, out), 6);
  std::string what = CodegenErrorOf(KernelFn("three_way", {x, out}, body.stmts));
  EXPECT_NE(what.find("backend 'npu': in function 'three_way': op 'tile.addc'"), std::string::npos) << what;
  EXPECT_NE(what.find("line 5"), std::string::npos) << what;
  EXPECT_NE(what.find("two tile.add"), std::string::npos) << what;
}

TEST(NpuCodegenErrors, AnUnplannedTileAsksForTheMemoryPasses) {
  auto x = TensorVar("x", {8, 32});
  auto out = TensorVar("out", {8, 32});
  Body body;
  auto t = body.Def("t", Load(x, {8, 32}), 3);
  body.Eval(Store(t, out), 4);
  try {
    Generate(Program::Make("kernels", {KernelFn("unplanned", {x, out}, body.stmts)}));
    FAIL() << "an unplanned tile was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("AllocateMemoryAddr"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace pypto::test
