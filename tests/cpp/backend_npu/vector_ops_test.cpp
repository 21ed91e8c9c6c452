// Vector ops compiled and run on a simulated AIV core, each against a
// reference computed here.
#include <cmath>

#include "npu_test_util.h"

namespace pypto::test {
namespace {

constexpr int64_t kRows = 8;
constexpr int64_t kCols = 32;

float Input(int64_t i) { return 0.25f + 0.125f * static_cast<float>(i % 37); }
float Other(int64_t i) { return 2.0f - 0.0625f * static_cast<float>(i % 29); }

// out = op(x) or op(x, y): a kernel `body(x_tile, y_tile)` returns the tile it stores.
using BodyFn = std::function<VarPtr(Body&, const VarPtr& x, const VarPtr& y)>;

std::vector<float> RunVector(const std::string& name, const BodyFn& make,
                             std::vector<int64_t> out_shape = {kRows, kCols}) {
  auto x = TensorVar("x", {kRows, kCols});
  auto y = TensorVar("y", {kRows, kCols});
  auto out = TensorVar("out", out_shape);
  Body body;
  auto tx = body.Def("tx", Load(x, {kRows, kCols}), 10);
  auto ty = body.Def("ty", Load(y, {kRows, kCols}), 11);
  auto result = make(body, tx, ty);
  body.Eval(Store(result, out), 30);
  CompiledKernel kernel(name, KernelSource(KernelFn(name, {x, y, out}, body.stmts)));
  auto tx_data = FilledFloat({kRows, kCols}, Input);
  auto ty_data = FilledFloat({kRows, kCols}, Other);
  auto out_data = runtime::Tensor::Allocate(DataType::FP32, out_shape);
  runtime::TaskArgs args;
  args.AddInput(tx_data).AddInput(ty_data).AddOutputExisting(out_data);
  RunOnce(kernel, args);
  return Floats(out_data);
}

void ExpectElementwise(const std::vector<float>& got, const std::function<float(float, float)>& ref,
                       float tolerance = 1e-5f) {
  ASSERT_EQ(got.size(), static_cast<size_t>(kRows * kCols));
  for (int64_t i = 0; i < kRows * kCols; ++i) {
    float want = ref(Input(i), Other(i));
    ASSERT_NEAR(got[i], want, tolerance * std::max(1.0f, std::fabs(want))) << "at " << i;
  }
}

struct UnaryCase {
  const char* op;
  std::function<float(float)> ref;
};

TEST(NpuVectorOps, UnaryOpsRun) {
  std::vector<UnaryCase> cases = {
      {"tile.exp", [](float v) { return std::exp(v); }},     {"tile.log", [](float v) { return std::log(v); }},
      {"tile.sqrt", [](float v) { return std::sqrt(v); }},   {"tile.rsqrt", [](float v) { return 1 / std::sqrt(v); }},
      {"tile.recip", [](float v) { return 1 / v; }},         {"tile.neg", [](float v) { return -v; }},
      {"tile.abs", [](float v) { return std::fabs(v - 2); }},
      {"tile.relu", [](float v) { return std::max(v - 2, 0.0f); }},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.op);
    bool shifted = std::string(c.op) == "tile.abs" || std::string(c.op) == "tile.relu";
    auto got = RunVector("unary", [&](Body& b, const VarPtr& x, const VarPtr&) {
      VarPtr in = shifted ? b.Def("shifted", Op("tile.adds", {x, Float(-2.0)}), 12) : x;
      return b.Def("r", Op(c.op, {in}), 13);
    });
    ExpectElementwise(got, [&](float v, float) { return c.ref(v); }, 1e-5f);
  }
}

struct BinaryCase {
  const char* op;
  std::function<float(float, float)> ref;
};

TEST(NpuVectorOps, BinaryOpsRun) {
  std::vector<BinaryCase> cases = {
      {"tile.add", [](float a, float b) { return a + b; }},
      {"tile.sub", [](float a, float b) { return a - b; }},
      {"tile.mul", [](float a, float b) { return a * b; }},
      {"tile.div", [](float a, float b) { return a / b; }},
      {"tile.maximum", [](float a, float b) { return std::max(a, b); }},
      {"tile.minimum", [](float a, float b) { return std::min(a, b); }},
      {"tile.fmod", [](float a, float b) { return std::fmod(a, b); }},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.op);
    auto got = RunVector("binary", [&](Body& b, const VarPtr& x, const VarPtr& y) {
      return b.Def("r", Op(c.op, {x, y}), 13);
    });
    ExpectElementwise(got, c.ref, 1e-5f);
  }
}

TEST(NpuVectorOps, ScalarFormsRun) {
  std::vector<BinaryCase> cases = {
      {"tile.adds", [](float a, float) { return a + 1.5f; }},
      {"tile.subs", [](float a, float) { return a - 1.5f; }},
      {"tile.muls", [](float a, float) { return a * 1.5f; }},
      {"tile.divs", [](float a, float) { return a / 1.5f; }},
      {"tile.maximums", [](float a, float) { return std::max(a, 1.5f); }},
      {"tile.minimums", [](float a, float) { return std::min(a, 1.5f); }},
      {"tile.fmods", [](float a, float) { return std::fmod(a, 1.5f); }},
      {"tile.lrelu", [](float a, float) { return a > 0 ? a : 1.5f * a; }},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.op);
    auto got = RunVector("scalar_form", [&](Body& b, const VarPtr& x, const VarPtr&) {
      return b.Def("r", Op(c.op, {x, Float(1.5)}), 13);
    });
    ExpectElementwise(got, c.ref, 1e-5f);
  }
}

TEST(NpuVectorOps, CompareAndSelectRun) {
  auto got = RunVector("select", [](Body& b, const VarPtr& x, const VarPtr& y) {
    Attrs gt;
    gt.Set("cmp_type", int64_t{4});
    auto mask = b.Def("mask", Op("tile.cmp", {x, y}, gt), 12);
    Attrs scratch;
    scratch.Set("dtype", DataType::FP32);
    scratch.Set("target_memory", EnumAttr::Of(MemorySpace::Vec));
    auto work = b.Def("work", Op("tile.create", {Tuple({kRows, kCols})}, scratch), 13);
    return b.Def("r", Op("tile.sel", {mask, x, y, work}), 14);
  });
  ExpectElementwise(got, [](float a, float b) { return a > b ? a : b; });
}

// system.fence is pto-isa's data barrier for global memory, dsb(DSB_DDR):
// the ISA has no instruction named after the op.
TEST(NpuVectorOps, AFenceIsTheDataBarrierForGlobalMemory) {
  auto x = TensorVar("x", {kRows, kCols});
  auto out = TensorVar("out", {kRows, kCols});
  Body body;
  auto tx = body.Def("tx", Load(x, {kRows, kCols}), 10);
  body.Eval(Store(tx, out), 11);
  body.Eval(Op("system.fence", {}), 12);
  std::string source = KernelSource(KernelFn("fenced", {x, out}, body.stmts));
  EXPECT_NE(source.find("\n  dsb(DSB_DDR);  // kernels.py:12\n"), std::string::npos) << source;
  CompiledKernel kernel("fenced", source);
  auto in = FilledFloat({kRows, kCols}, Input);
  auto result = runtime::Tensor::Allocate(DataType::FP32, {kRows, kCols});
  runtime::TaskArgs args;
  args.AddInput(in).AddOutputExisting(result);
  RunOnce(kernel, args);
  auto got = Floats(result);
  for (int64_t i = 0; i < kRows * kCols; ++i) ASSERT_EQ(got[i], Input(i)) << "at " << i;
}

// pto-isa's tile-scalar instructions take row-major tiles only; a column
// vector [8, 1] is column-major, so TMULS runs on the [1, 8] row over its bytes.
VarPtr HalfOfRowSums(Body& b, const VarPtr& x, const VarPtr&) {
  Attrs scratch;
  scratch.Set("dtype", DataType::FP32);
  scratch.Set("target_memory", EnumAttr::Of(MemorySpace::Vec));
  auto work = b.Def("work", Op("tile.create", {Tuple({kRows, kCols})}, scratch), 12);
  auto sums = b.Def("sums", Op("tile.row_sum", {x, work}), 13);
  return b.Def("scaled", Op("tile.muls", {sums, Float(0.5)}), 14);
}

TEST(NpuVectorOps, AScalarOpOnAColumnRunsOnItsRow) {
  auto x = TensorVar("x", {kRows, kCols});
  auto y = TensorVar("y", {kRows, kCols});
  auto out = TensorVar("out", {kRows, 1});
  Body body;
  auto tx = body.Def("tx", Load(x, {kRows, kCols}), 10);
  body.Eval(Store(HalfOfRowSums(body, tx, tx), out), 30);
  std::string source = KernelSource(KernelFn("columns", {x, y, out}, body.stmts));
  EXPECT_NE(source.find("Tile<TileType::Vec, float, 8, 1, BLayout::ColMajor"), std::string::npos) << source;
  EXPECT_NE(source.find("Tile<TileType::Vec, float, 1, 8, BLayout::RowMajor, 1, 8, SLayout::NoneBox, 512, "
                        "PadValue::Null> sums_row;"),
            std::string::npos)
      << source;
  EXPECT_NE(source.find("TMULS(scaled_row, sums_row, "), std::string::npos) << source;

  auto got = RunVector("columns", HalfOfRowSums, {kRows, 1});
  for (int64_t r = 0; r < kRows; ++r) {
    float sum = 0;
    for (int64_t c = 0; c < kCols; ++c) sum += Input(r * kCols + c);
    ASSERT_NEAR(got[r], 0.5f * sum, 1e-5f * sum) << "row " << r;
  }
}

TEST(NpuVectorOps, FullAndExpandsRun) {
  auto got = RunVector("fill", [](Body& b, const VarPtr& x, const VarPtr&) {
    auto filled = b.Def("filled", Op("tile.expands", {x, Float(3.0)}), 12);
    return b.Def("r", Op("tile.add", {filled, x}), 13);
  });
  ExpectElementwise(got, [](float a, float) { return a + 3.0f; });
}

TEST(NpuVectorOps, CastRoundsByItsMode) {
  auto got = RunVector("cast", [](Body& b, const VarPtr& x, const VarPtr&) {
    auto scaled = b.Def("scaled", Op("tile.muls", {x, Float(3.0)}), 12);
    Attrs to_int;
    to_int.Set("target_type", DataType::INT32);
    to_int.Set("mode", int64_t{3});  // floor
    auto ints = b.Def("ints", Op("tile.cast", {scaled}, to_int), 13);
    Attrs to_float;
    to_float.Set("target_type", DataType::FP32);
    return b.Def("r", Op("tile.cast", {ints}, to_float), 14);
  });
  ExpectElementwise(got, [](float a, float) { return std::floor(a * 3.0f); });
}

TEST(NpuVectorOps, SoftmaxRowsRun) {
  auto got = RunVector("softmax", [](Body& b, const VarPtr& x, const VarPtr&) {
    Attrs scratch;
    scratch.Set("dtype", DataType::FP32);
    scratch.Set("target_memory", EnumAttr::Of(MemorySpace::Vec));
    auto work = b.Def("work", Op("tile.create", {Tuple({kRows, kCols})}, scratch), 12);
    auto m = b.Def("m", Op("tile.row_max", {x, work}), 13);
    auto e = b.Def("e", Op("tile.row_expand_expdif", {x, m}), 14);
    auto s = b.Def("s", Op("tile.row_sum", {e, work}), 15);
    return b.Def("r", Op("tile.row_expand_div", {e, s}), 16);
  });
  for (int64_t r = 0; r < kRows; ++r) {
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < kCols; ++c) m = std::max(m, Input(r * kCols + c));
    for (int64_t c = 0; c < kCols; ++c) s += std::exp(Input(r * kCols + c) - m);
    for (int64_t c = 0; c < kCols; ++c) {
      ASSERT_NEAR(got[r * kCols + c], std::exp(Input(r * kCols + c) - m) / s, 1e-6f);
    }
  }
}

TEST(NpuVectorOps, ColumnReductionAndExpandRun) {
  auto got = RunVector("columns", [](Body& b, const VarPtr& x, const VarPtr&) {
    auto cmax = b.Def("cmax", Op("tile.col_max", {x}), 12);
    return b.Def("r", Op("tile.col_expand_sub", {x, cmax}), 13);
  });
  for (int64_t c = 0; c < kCols; ++c) {
    float m = -INFINITY;
    for (int64_t r = 0; r < kRows; ++r) m = std::max(m, Input(r * kCols + c));
    for (int64_t r = 0; r < kRows; ++r) ASSERT_EQ(got[r * kCols + c], Input(r * kCols + c) - m);
  }
}

TEST(NpuVectorOps, TransposeRuns) {
  auto x = TensorVar("x", {16, 32});
  auto out = TensorVar("out", {32, 16});
  Body body;
  auto tx = body.Def("tx", Load(x, {16, 32}), 3);
  Attrs scratch;
  scratch.Set("dtype", DataType::FP32);
  scratch.Set("target_memory", EnumAttr::Of(MemorySpace::Vec));
  auto work = body.Def("work", Op("tile.create", {Tuple({32, 16})}, scratch), 4);
  auto t = body.Def("t", Op("tile.transpose", {tx, Int(0), Int(1), work}), 4);
  body.Eval(Store(t, out), 5);
  CompiledKernel kernel("transpose", KernelSource(KernelFn("transpose", {x, out}, body.stmts)));
  auto in = FilledFloat({16, 32}, [](int64_t i) { return static_cast<float>(i); });
  auto result = runtime::Tensor::Allocate(DataType::FP32, {32, 16});
  runtime::TaskArgs args;
  args.AddInput(in).AddOutputExisting(result);
  RunOnce(kernel, args);
  auto got = Floats(result);
  for (int64_t r = 0; r < 32; ++r) {
    for (int64_t c = 0; c < 16; ++c) ASSERT_EQ(got[r * 16 + c], static_cast<float>(c * 32 + r));
  }
}

TEST(NpuVectorOps, ConcatRuns) {
  auto a = TensorVar("a", {8, 16});
  auto b = TensorVar("b", {8, 16});
  auto out = TensorVar("out", {8, 32});
  Body body;
  auto ta = body.Def("ta", Load(a, {8, 16}), 3);
  auto tb = body.Def("tb", Load(b, {8, 16}), 4);
  auto joined = body.Def("joined", Op("tile.concat", {ta, tb}), 5);
  body.Eval(Store(joined, out), 6);
  CompiledKernel kernel("concat", KernelSource(KernelFn("concat", {a, b, out}, body.stmts)));
  auto ad = FilledFloat({8, 16}, [](int64_t i) { return static_cast<float>(i); });
  auto bd = FilledFloat({8, 16}, [](int64_t i) { return -static_cast<float>(i); });
  auto result = runtime::Tensor::Allocate(DataType::FP32, {8, 32});
  runtime::TaskArgs args;
  args.AddInput(ad).AddInput(bd).AddOutputExisting(result);
  RunOnce(kernel, args);
  auto got = Floats(result);
  for (int64_t r = 0; r < 8; ++r) {
    for (int64_t c = 0; c < 32; ++c) {
      float want = c < 16 ? static_cast<float>(r * 16 + c) : -static_cast<float>(r * 16 + c - 16);
      ASSERT_EQ(got[r * 32 + c], want) << r << "," << c;
    }
  }
}

TEST(NpuVectorOps, ASliceWithFewerColumnsKeepsTheSourcesRowStride) {
  auto x = TensorVar("x", {16, 32});
  auto out = TensorVar("out", {8, 16});
  Body body;
  auto tx = body.Def("tx", Load(x, {16, 32}), 3);
  auto window = body.Def("window", Op("tile.slice", {tx, Tuple({8, 16}), Tuple({8, 16})}), 4);
  body.Eval(Store(window, out), 5);
  CompiledKernel kernel("slice", KernelSource(KernelFn("slice", {x, out}, body.stmts)));
  auto in = FilledFloat({16, 32}, [](int64_t i) { return static_cast<float>(i); });
  auto result = runtime::Tensor::Allocate(DataType::FP32, {8, 16});
  runtime::TaskArgs args;
  args.AddInput(in).AddOutputExisting(result);
  RunOnce(kernel, args);
  auto got = Floats(result);
  for (int64_t r = 0; r < 8; ++r) {
    for (int64_t c = 0; c < 16; ++c) ASSERT_EQ(got[r * 16 + c], static_cast<float>((r + 8) * 32 + c + 16)) << r;
  }
}

TEST(NpuCodegenErrors, ASliceThatStartsOffTheTileAlignmentIsRefused) {
  auto x = TensorVar("x", {16, 32}, DataType::INT8);
  auto out = TensorVar("out", {8, 16}, DataType::INT8);
  Body body;
  auto tx = body.Def("tx", Load(x, {16, 32}), 3);
  auto window = body.Def("window", Op("tile.slice", {tx, Tuple({8, 16}), Tuple({4, 8})}), 4);
  body.Eval(Store(window, out), 5);
  std::string what = CodegenErrorOf(KernelFn("slice", {x, out}, body.stmts));
  EXPECT_NE(what.find("op 'tile.slice': the window starts at byte 136"), std::string::npos) << what;
}

// PTO-ISA has no sine or cosine; a pipeline that leaves LowerCompositeOps
// out gets told to run it, at the op's line.
TEST(NpuCodegenErrors, SineAndCosineAskForTheirLoweringPass) {
  for (const char* op : {"tile.sin", "tile.cos"}) {
    auto x = TensorVar("x", {16, 32});
    auto out = TensorVar("out", {16, 32});
    Body body;
    auto tx = body.Def("tx", Load(x, {16, 32}), 3);
    auto r = body.Def("r", Op(op, {tx}), 4);
    body.Eval(Store(r, out), 5);
    std::string what = CodegenErrorOf(KernelFn("trig", {x, out}, body.stmts));
    EXPECT_NE(what.find("PTO-ISA has no sine or cosine instruction"), std::string::npos) << what;
    EXPECT_NE(what.find("run it before the npu backend"), std::string::npos) << what;
    EXPECT_NE(what.find("line 4"), std::string::npos) << what;
  }
}

TEST(NpuVectorOps, ALoadWithARunTimeValidShapeReadsOnlyThatWindow) {
  auto n = IndexVar("n");
  auto x = Var::Make("x", TensorType::Make(std::vector<ExprPtr>{Int(8), n}, DataType::FP32));
  auto out = TensorVar("out", {8, 32});
  Body body;
  auto offsets = Ints({0, 0});
  auto tx = body.Def("tx", Op("tile.load", {x, MakeTuple::Make(offsets), Tuple({8, 32}),
                                            MakeTuple::Make({Int(8), n})}, Target(MemorySpace::Vec)), 3);
  auto padded = body.Def("padded", Op("tile.fillpad", {tx}), 4);
  body.Eval(Store(padded, out), 5);
  CompiledKernel kernel("partial", KernelSource(KernelFn("partial", {x, n, out}, body.stmts)));
  for (int64_t cols : {20, 7}) {
    auto in = FilledFloat({8, cols}, [](int64_t i) { return static_cast<float>(i + 1); });
    auto result = runtime::Tensor::Allocate(DataType::FP32, {8, 32});
    runtime::TaskArgs args;
    args.AddInput(in).AddOutputExisting(result).AddScalar(cols);
    RunOnce(kernel, args);
    auto got = Floats(result);
    for (int64_t r = 0; r < 8; ++r) {
      for (int64_t c = 0; c < 32; ++c) {
        ASSERT_EQ(got[r * 32 + c], c < cols ? static_cast<float>(r * cols + c + 1) : 0.0f) << cols << ":" << r;
      }
    }
  }
}


// pto-isa's plain tiles hold whole 32-byte rows: a [16, 16] INT8 tile is a
// buffer of 16 rows of 32 bytes, valid over its 16 columns.
TEST(NpuVectorOps, ATileWhoseRowsAreShortOf32BytesIsStoredPadded) {
  auto x = TensorVar("x", {16, 16}, DataType::INT8);
  auto out = TensorVar("out", {16, 16}, DataType::INT8);
  Body body;
  auto tx = body.Def("tx", Load(x, {16, 16}), 3);
  auto sum = body.Def("sum", Op("tile.add", {tx, tx}), 4);
  body.Eval(Store(sum, out), 5);
  auto function = KernelFn("padded", {x, out}, body.stmts);
  std::string source = KernelSource(function);
  EXPECT_NE(source.find("Tile<TileType::Vec, int8_t, 16, 32, BLayout::RowMajor, 16, 16,"), std::string::npos)
      << source;
  CompiledKernel kernel("padded", source);
  auto in = runtime::Tensor::Allocate(DataType::INT8, {16, 16});
  auto* p = static_cast<int8_t*>(in.data());
  for (int64_t i = 0; i < 256; ++i) p[i] = static_cast<int8_t>(i % 50 - 25);
  auto result = runtime::Tensor::Allocate(DataType::INT8, {16, 16});
  runtime::TaskArgs args;
  args.AddInput(in).AddOutputExisting(result);
  RunOnce(kernel, args);
  const auto* got = static_cast<const int8_t*>(result.data());
  for (int64_t i = 0; i < 256; ++i) ASSERT_EQ(got[i], static_cast<int8_t>(2 * (i % 50 - 25))) << i;
}

TEST(NpuCodegenErrors, AReshapeAcrossPaddedRowsIsRefused) {
  auto x = TensorVar("x", {16, 32}, DataType::INT8);
  auto out = TensorVar("out", {32, 16}, DataType::INT8);
  Body body;
  auto tx = body.Def("tx", Load(x, {16, 32}), 3);
  auto reshaped = body.Def("reshaped", Op("tile.reshape", {tx, Tuple({32, 16})}), 4);
  body.Eval(Store(reshaped, out), 5);
  std::string what = CodegenErrorOf(KernelFn("reshape", {x, out}, body.stmts));
  EXPECT_NE(what.find("op 'tile.reshape': the tile Tile[[32, 16], INT8, Vec] is stored with its rows padded to 32 "
                      "elements"),
            std::string::npos)
      << what;
}

}  // namespace
}  // namespace pypto::test
