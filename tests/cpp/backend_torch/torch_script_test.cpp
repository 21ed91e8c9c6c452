// The torch backend's script text: small programs built with the IR builder,
// checked for the lines that carry the simulator's semantics (valid regions,
// pad values, round modes, loops, SPMD blocks) and for the errors of what it
// cannot model. The numbers the scripts compute are checked against the
// simulator by tests/python/debug/.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pypto/backend/backend.h"
#include "pypto/backend/registry.h"
#include "support/pass_test_util.h"

namespace pypto::test {
namespace {

Span At(int line) { return Span("kernels.py", line, 5); }

// The statements of one function body, each at its own line of kernels.py.
class Body {
 public:
  VarPtr Def(const std::string& name, const ExprPtr& value, int line) {
    auto var = Var::Make(name, value->type, At(line));
    stmts.push_back(AssignStmt::Make(var, value, At(line)));
    return var;
  }
  void Eval(const ExprPtr& value, int line) { stmts.push_back(EvalStmt::Make(value, At(line))); }
  std::vector<StmtPtr> stmts;
};

Attrs Kwargs(std::initializer_list<std::pair<std::string, AttrValue>> entries) {
  Attrs kwargs;
  for (const auto& [key, value] : entries) kwargs.Set(key, value);
  return kwargs;
}

CallPtr At(CallPtr call, int line) {
  auto copy = std::make_shared<Call>(*call);
  copy->span = At(line);
  return copy;
}

// One InCore function `kernel(params...)` (the last parameter is the output) as a program.
ProgramPtr KernelProgram(std::vector<VarPtr> params, std::vector<StmtPtr> body) {
  std::vector<ParamDirection> directions(params.size(), ParamDirection::In);
  directions.back() = ParamDirection::Out;
  body.push_back(ReturnStmt::Make({}));
  auto f = Function::Make("kernel", FunctionType::InCore, std::move(params), std::move(directions), {},
                          SeqStmts::Make(std::move(body)), Span("kernels.py", 1, 1));
  return Program::Make("kernels", {f});
}

std::string Script(const ProgramPtr& program) {
  auto torch = backend::BackendRegistry::Global().Create("torch");
  backend::BackendContext ctx;
  auto artifacts = backend::RunBackend(*torch, program, ctx);
  EXPECT_EQ(artifacts.size(), 1u);
  return artifacts.empty() ? "" : artifacts.front().text;
}

// The text of the script after the prelude: the function `kernel` and main().
std::string KernelText(const std::string& script) {
  size_t body = script.find("\ndef kernel(");
  return body == std::string::npos ? script : script.substr(body);
}

// The line of function `kernel` holding `needle`; a failure showing the function when none does.
std::string LineWith(const std::string& script, const std::string& needle) {
  size_t body = script.find("\ndef kernel(");
  size_t at = script.find(needle, body == std::string::npos ? 0 : body);
  if (at == std::string::npos) {
    ADD_FAILURE() << "no line with `" << needle << "` in\n" << KernelText(script);
    return "";
  }
  size_t begin = script.rfind('\n', at) + 1;
  return script.substr(begin, script.find('\n', at) - begin);
}

std::string CodegenErrorOf(const ProgramPtr& program) {
  try {
    Script(program);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kCodegen) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "the torch backend accepted the program";
  return "";
}

// x [16, 64] loaded valid on [16, 21], padded with max, cast to FP16 rounding down and back, stored.
ProgramPtr ValidRegionKernel() {
  auto x = TensorVar("x", {16, 64});
  auto out = TensorVar("out", {16, 64});
  Body b;
  auto t = b.Def("t", At(Op("tile.load", {x, Tuple({0, 0}), Tuple({16, 64}), Tuple({16, 21})},
                             Kwargs({{"target_memory", EnumAttr::Of(MemorySpace::Vec)}})), 2), 2);
  auto padded = b.Def("padded", At(Op("tile.fillpad", {t}, Kwargs({{"pad_value", EnumAttr::Of(PadValue::Max)}})), 3), 3);
  auto half = b.Def("half", At(Op("tile.cast", {padded}, Kwargs({{"target_type", DataType::FP16}, {"mode", int64_t{3}}})), 4), 4);
  auto back = b.Def("back", At(Op("tile.cast", {half}, Kwargs({{"target_type", DataType::FP32}})), 5), 5);
  b.Eval(At(Op("tile.store", {back, Tuple({0, 0}), out}), 6), 6);
  return KernelProgram({x, out}, b.stmts);
}

TEST(TorchScript, ALoadWithAValidShapeSpellsTheTilesValidRegion) {
  std::string line = LineWith(Script(ValidRegionKernel()), "= tile_load(");
  EXPECT_NE(line.find("t = tile_load(TileSpec([16, 64], torch.float32, [16, 21], 'null'), x, [0, 0], [16, 64], "
                      "[16, 21], target_memory='Vec')"),
            std::string::npos)
      << line;
  EXPECT_NE(line.find("# tile.load  kernels.py:2"), std::string::npos) << line;
}

TEST(TorchScript, FillpadNamesItsPadValueAndMakesTheWholeTileValid) {
  std::string line = LineWith(Script(ValidRegionKernel()), "= tile_fillpad(");
  EXPECT_NE(line.find("padded = tile_fillpad(TileSpec([16, 64], torch.float32, [16, 64], 'null'), t, "
                      "pad_value='max')"),
            std::string::npos)
      << line;
}

TEST(TorchScript, EveryCastSpellsItsRoundModeTheDefaultToo) {
  std::string script = Script(ValidRegionKernel());
  EXPECT_NE(LineWith(script, "half = tile_cast(")
                .find("half = tile_cast(TileSpec([16, 64], torch.float16, [16, 64], 'null'), padded, "
                      "target_type=torch.float16, mode=3)"),
            std::string::npos)
      << LineWith(script, "half = tile_cast(");
  EXPECT_NE(LineWith(script, "back = tile_cast(").find("target_type=torch.float32, mode=2)"), std::string::npos)
      << LineWith(script, "back = tile_cast(");
}

TEST(TorchScript, AStoreWritesIntoTheTensorParameter) {
  std::string line = LineWith(Script(ValidRegionKernel()), "tile_store(");
  EXPECT_NE(line.find("tile_store(TensorSpec([16, 64], torch.float32), back, [0, 0], out, atomic=0)"),
            std::string::npos)
      << line;
}

// A tensor-level kernel: a window of x valid on [16, 21], its exp, assembled into out.
ProgramPtr TensorViewKernel() {
  auto x = TensorVar("x", {16, 64});
  auto out = TensorVar("out", {16, 64});
  Body b;
  auto part = b.Def("part", At(Op("tensor.slice", {x, Tuple({16, 64}), Tuple({0, 0}), Tuple({16, 21})}), 2), 2);
  auto e = b.Def("e", At(Op("tensor.exp", {part}), 3), 3);
  b.Def("written", At(Op("tensor.assemble", {out, e, Tuple({0, 0})}), 4), 4);
  return KernelProgram({x, out}, b.stmts);
}

TEST(TorchScript, ATensorViewsValidShapeIsInItsSpecAndInEveryTensorOpReadingIt) {
  std::string script = Script(TensorViewKernel());
  EXPECT_NE(LineWith(script, "part = tensor_slice(")
                .find("part = tensor_slice(TensorSpec([16, 64], torch.float32, [16, 21], 'null'), x, [16, 64], "
                      "[0, 0], [16, 21])"),
            std::string::npos)
      << LineWith(script, "part = tensor_slice(");
  EXPECT_NE(LineWith(script, "e = tensor_exp(")
                .find("e = tensor_exp(TensorSpec([16, 64], torch.float32, [16, 21], 'null'), "
                      "valid_view(part, [16, 21], 'null'))"),
            std::string::npos)
      << LineWith(script, "e = tensor_exp(");
  // The source is read on its valid region only; the whole target is valid, so it goes as it is.
  EXPECT_NE(LineWith(script, "= tensor_assemble(")
                .find("tensor_assemble(TensorSpec([16, 64], torch.float32), out, valid_view(e, [16, 21], 'null'), "
                      "[0, 0], atomic=0)"),
            std::string::npos)
      << LineWith(script, "= tensor_assemble(");
}

// acc = 0; for i in range(0, 8): if i == 5: break; acc = acc + i; then while acc > 3: acc = acc // 2.
ProgramPtr LoopsKernel() {
  auto out = TensorVar("out", {16, 16});
  auto i = IndexVar("i");
  auto acc = IterArg::Make("acc", Scalar(DataType::INDEX), Int(0));
  auto summed = IndexVar("summed");
  auto stop = IfStmt::Make(Bin(BinaryOp::Eq, i, Int(5)), BreakStmt::Make(), nullptr, {}, At(3));
  auto body = Seq({stop, YieldStmt::Make({Bin(BinaryOp::Add, acc, i)}, At(4))});
  auto loop = ForStmt::Make(i, Int(0), Int(8), Int(1), {acc}, body, {summed}, ForKind::Sequential, {}, At(2));
  auto halved = IterArg::Make("halved", Scalar(DataType::INDEX), summed);
  auto halvings = IndexVar("halvings");
  auto shrink = WhileStmt::Make(Bin(BinaryOp::Gt, halved, Int(3)), {halved},
                                Seq({YieldStmt::Make({Bin(BinaryOp::FloorDiv, halved, Int(2))}, At(6))}), {halvings},
                                At(5));
  Body b;
  b.stmts = {loop, shrink};
  b.Eval(At(Op("tensor.write", {out, Tuple({0, 0}), CastTo(halvings, DataType::FP32)}), 7), 7);
  return KernelProgram({out}, b.stmts);
}

TEST(TorchScript, AForLoopCarriesItsIterArgsAndBreaks) {
  std::string script = Script(LoopsKernel());
  EXPECT_NE(script.find("    acc = 0\n"
                        "    for i in range(0, 8, 1):  # pl.range (in order)  kernels.py:2\n"
                        "        if (i == 5):  # if  kernels.py:3\n"
                        "            break\n"
                        "        acc = (acc + i)  # yield  kernels.py:4\n"
                        "    summed = acc\n"),
            std::string::npos)
      << KernelText(script);
}

TEST(TorchScript, AWhileLoopReevaluatesItsConditionEachIteration) {
  std::string script = Script(LoopsKernel());
  EXPECT_NE(script.find("    halved = summed\n"
                        "    while True:  # while  kernels.py:5\n"
                        "        if not ((halved > 3)):\n"
                        "            break\n"
                        "        halved = floordiv(halved, 2)  # yield  kernels.py:6\n"
                        "    halvings = halved\n"),
            std::string::npos)
      << KernelText(script);
  EXPECT_NE(LineWith(script, "tensor_write(").find("cast_scalar(halvings, 'FP32')"), std::string::npos);
}

TEST(TorchScript, AnSpmdScopeRunsItsBodyOncePerBlockInOrder) {
  auto x = TensorVar("x", {64, 16});
  auto out = TensorVar("out", {64, 16});
  Body inner;
  auto block = inner.Def("block", At(Op("tile.get_block_idx", {}), 3), 3);
  auto row = Bin(BinaryOp::Mul, block, Int(16));
  auto t = inner.Def("t", At(Op("tile.load", {x, MakeTuple::Make({row, Int(0)}), Tuple({16, 16})},
                                 Kwargs({{"target_memory", EnumAttr::Of(MemorySpace::Vec)}})), 4), 4);
  inner.Eval(At(Op("tile.store", {t, MakeTuple::Make({row, Int(0)}), out}), 5), 5);
  auto spmd = std::make_shared<ScopeStmt>(*ScopeStmt::Make(ScopeKind::Spmd, Seq(inner.stmts), "grid", At(2)));
  spmd->core_num = Int(4);
  std::string script = Script(KernelProgram({x, out}, {spmd}));
  EXPECT_NE(script.find("    for _block in spmd_blocks(4):  # scope Spmd 'grid' (blocks in order)  kernels.py:2\n"
                        "        block = tile_get_block_idx(None)  # tile.get_block_idx  kernels.py:3\n"),
            std::string::npos)
      << KernelText(script);
}

TEST(TorchScript, AnUnmodelledOpIsACodegenErrorNamingTheOpAndTheLine) {
  auto x = TensorVar("x");
  auto call = Call::Make(Op::Get("custom.frobnicate"), {x}, {}, x->type, At(7));
  std::string message = CodegenErrorOf(KernelProgram({x}, {EvalStmt::Make(call, At(7))}));
  EXPECT_NE(message.find("op 'custom.frobnicate'"), std::string::npos) << message;
  EXPECT_NE(message.find("does not model"), std::string::npos) << message;
  EXPECT_NE(message.find("line 7"), std::string::npos) << message;
}

TEST(TorchScript, PipeEventsAndBarriersChangeNoNumbers) {
  // What InsertPipeSync adds to every kernel; the prelude names them in one chained assignment.
  auto x = TensorVar("x");
  Body b;
  Attrs event = Kwargs({{"set_pipe", int64_t{1}}, {"wait_pipe", int64_t{4}}, {"event_id", int64_t{0}}});
  b.Eval(At(Op("system.sync_src", {}, event), 2), 2);
  b.Eval(At(Op("system.sync_dst", {}, event), 3), 3);
  for (const char* op : {"system.bar_v", "system.bar_m", "system.bar_all"}) b.Eval(At(Op(op, {}), 4), 4);
  std::string script = Script(KernelProgram({x}, b.stmts));
  for (const char* call : {"system_sync_src(", "system_sync_dst(", "system_bar_v(", "system_bar_m(", "system_bar_all("}) {
    EXPECT_NE(KernelText(script).find(call), std::string::npos) << call << " in\n" << KernelText(script);
  }
}

TEST(TorchScript, ADtypeTorchLacksIsACodegenError) {
  auto x = TensorVar("x", {16, 16}, DataType::INT4);
  std::string message = CodegenErrorOf(KernelProgram({x}, {}));
  EXPECT_NE(message.find("dtype INT4 has no torch dtype"), std::string::npos) << message;
}

}  // namespace
}  // namespace pypto::test
