// Whole programs and functions: module header, dynamic dims, decorators,
// signatures, function attrs, and how variables are named.
#include "printer_test_util.h"

namespace pypto::ir {
namespace {

using namespace printer_test;
using B = BinaryOp;

std::string PrintProgramSaved(const ProgramPtr& program, const PrintOptions& options = {}) {
  std::string text = PrintProgram(program, options);
  SaveForSyntaxCheck(text);
  return text;
}
std::string PrintFunctionSaved(const FunctionPtr& function, const PrintOptions& options = {}) {
  std::string text = PrintFunction(function, options);
  SaveForSyntaxCheck(text);
  return text;
}

FunctionPtr WithAttrs(const FunctionPtr& function, FunctionType type, std::optional<Level> level,
                      std::optional<Role> role, Attrs attrs) {
  auto copy = std::make_shared<Function>(*function);
  copy->func_type = type;
  copy->level = level;
  copy->role = role;
  copy->attrs = std::move(attrs);
  return copy;
}

// An InCore kernel adding two [64, N] tensors tile by tile, and the
// orchestration function that calls it.
ProgramPtr AddProgram() {
  auto N = ScalarVar("N");
  auto tensor = TensorType::Make({Int(64), N}, DataType::FP32);
  auto tile = TileType::Make({64, 64}, DataType::FP32, MemorySpace::Vec);
  auto a = Var::Make("a", tensor);
  auto b = Var::Make("b", tensor);
  auto out = Var::Make("out", tensor);
  auto ta = Var::Make("ta", tile);
  auto tb = Var::Make("tb", tile);
  auto sum = Var::Make("sum", tile);
  auto stored = Var::Make("stored", tensor);
  auto zeros = List({Int(0), Int(0)});
  auto shape = List({Int(64), Int(64)});
  Attrs to_vec = {{"target_memory", EnumAttr::Of(MemorySpace::Vec)}};
  auto kernel_body = Seq({
      AssignStmt::Make(ta, OpCall("tile.load", {a, zeros, shape}, to_vec, tile)),
      AssignStmt::Make(tb, OpCall("tile.load", {b, zeros, shape}, to_vec, tile)),
      AssignStmt::Make(sum, OpCall("tile.add", {ta, tb}, {}, tile)),
      AssignStmt::Make(stored, OpCall("tile.store", {sum, zeros, out}, {}, tensor)),
      ReturnStmt::Make({stored}),
  });
  auto kernel = Function::Make("add_kernel", FunctionType::InCore, {a, b, out},
                               {ParamDirection::In, ParamDirection::In, ParamDirection::Out}, {tensor}, kernel_body);

  auto x = Var::Make("a", tensor);
  auto y = Var::Make("b", tensor);
  auto z = Var::Make("out", tensor);
  auto r = Var::Make("r", tensor);
  auto main_body = Seq({
      AssignStmt::Make(r, Call::Make(GlobalVar::Make("add_kernel"), {x, y, z}, {}, tensor)),
      ReturnStmt::Make({r, Int(0)}),
  });
  auto main = WithAttrs(Function::Make("main", FunctionType::Orchestration, {x, y, z},
                                       {ParamDirection::In, ParamDirection::In, ParamDirection::InOut},
                                       {tensor, ScalarOf()}, main_body),
                        FunctionType::Orchestration, Level::CHIP, Role::Orchestrator,
                        {{"entry", true}, {"stages", std::vector<int64_t>{1, 2}}});
  return Program::Make("add_demo", {main, kernel});
}

TEST(PrinterProgramTest, WholeProgramVerbose) {
  EXPECT_EQ(PrintProgramSaved(AddProgram()),
            R"(# pypto.program: add_demo
import pypto.language as pl

N = pl.dynamic("N")

@pl.program
class add_demo:
    @pl.function(type=pl.FunctionType.InCore)
    def add_kernel(self, a: pl.Tensor[[64, N], pl.FP32], b: pl.Tensor[[64, N], pl.FP32], out: pl.Out[pl.Tensor[[64, N], pl.FP32]]) -> pl.Tensor[[64, N], pl.FP32]:
        ta: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
        tb: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
        sum: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(ta, tb)
        stored: pl.Tensor[[64, N], pl.FP32] = pl.tile.store(sum, [0, 0], out)
        return stored

    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, a: pl.Tensor[[64, N], pl.FP32], b: pl.Tensor[[64, N], pl.FP32], out: pl.InOut[pl.Tensor[[64, N], pl.FP32]]) -> tuple[pl.Tensor[[64, N], pl.FP32], pl.Scalar[pl.INDEX]]:
        pl.func_attr({"entry": True, "stages": [1, 2]})
        r: pl.Tensor[[64, N], pl.FP32] = self.add_kernel(a, b, out)
        return r, 0
)");
}

TEST(PrinterProgramTest, WholeProgramConciseAndWithAnotherPrefix) {
  PrintOptions options;
  options.prefix = "ir";
  options.concise = true;
  EXPECT_EQ(PrintProgramSaved(AddProgram(), options),
            R"(# pypto.program: add_demo
import pypto.language as ir

N = ir.dynamic("N")

@ir.program
class add_demo:
    @ir.function(type=ir.FunctionType.InCore)
    def add_kernel(self, a: ir.Tensor[[64, N], ir.FP32], b: ir.Tensor[[64, N], ir.FP32], out: ir.Out[ir.Tensor[[64, N], ir.FP32]]) -> ir.Tensor[[64, N], ir.FP32]:
        ta = ir.tile.load(a, [0, 0], [64, 64], target_memory=ir.Mem.Vec)
        tb = ir.tile.load(b, [0, 0], [64, 64], target_memory=ir.Mem.Vec)
        sum = ir.tile.add(ta, tb)
        stored = ir.tile.store(sum, [0, 0], out)
        return stored

    @ir.function(type=ir.FunctionType.Orchestration, level=ir.Level.CHIP, role=ir.Role.Orchestrator)
    def main(self, a: ir.Tensor[[64, N], ir.FP32], b: ir.Tensor[[64, N], ir.FP32], out: ir.InOut[ir.Tensor[[64, N], ir.FP32]]) -> tuple[ir.Tensor[[64, N], ir.FP32], ir.Scalar[ir.INDEX]]:
        ir.func_attr({"entry": True, "stages": [1, 2]})
        r = self.add_kernel(a, b, out)
        return r, 0
)");
}

TEST(PrinterProgramTest, PrintingIsStable) {
  auto program = AddProgram();
  const std::string first = PrintProgram(program);
  EXPECT_EQ(PrintProgram(program), first);
  EXPECT_EQ(PrintProgram(AddProgram()), first);
}

TEST(PrinterProgramTest, EmptyProgramAndOpaqueFunctions) {
  EXPECT_EQ(PrintProgramSaved(Program::Make("empty", {})),
            "# pypto.program: empty\n"
            "import pypto.language as pl\n"
            "\n"
            "@pl.program\n"
            "class empty:\n"
            "    pass\n");
  auto f = Function::Make("f", FunctionType::Opaque, {}, {}, {}, Seq({}));
  auto g = WithAttrs(Function::Make("g", FunctionType::Opaque, {}, {}, {}, nullptr), FunctionType::Opaque,
                     std::nullopt, Role::SubWorker, {{"note", std::string("x")}});
  EXPECT_EQ(PrintProgramSaved(Program::Make("two", {g, f})),
            "# pypto.program: two\n"
            "import pypto.language as pl\n"
            "\n"
            "@pl.program\n"
            "class two:\n"
            "    @pl.function\n"
            "    def f(self):\n"
            "        pass\n"
            "\n"
            "    @pl.function(role=pl.Role.SubWorker)\n"
            "    def g(self):\n"
            "        pl.func_attr({\"note\": \"x\"})\n");
}

TEST(PrinterProgramTest, StandaloneFunctionStartsAtColumnZero) {
  auto N = ScalarVar("N");
  auto a = Var::Make("a", TensorType::Make({N}, DataType::FP16));
  auto f = Function::Make("copy", FunctionType::AIV, {a}, {}, {a->type}, ReturnStmt::Make({a}));
  EXPECT_EQ(PrintFunctionSaved(f),
            "@pl.function(type=pl.FunctionType.AIV)\n"
            "def copy(self, a: pl.Tensor[[N], pl.FP16]) -> pl.Tensor[[N], pl.FP16]:\n"
            "    return a\n");
  EXPECT_EQ(Print(f), PrintFunction(f));
}

TEST(PrinterProgramTest, DynamicDimsAreModuleLevelAndSharedByFunctions) {
  auto N = ScalarVar("N");
  auto M = ScalarVar("M", DataType::INT64);
  auto other_N = ScalarVar("N");
  auto make = [&](const std::string& name, std::vector<ExprPtr> shape) {
    auto a = Var::Make("a", TensorType::Make(std::move(shape), DataType::FP32));
    return Function::Make(name, FunctionType::InCore, {a}, {}, {}, ReturnStmt::Make({}));
  };
  auto program = Program::Make("dyn", {make("f", {N, M}), make("g", {N, other_N})});
  EXPECT_EQ(PrintProgramSaved(program),
            R"(# pypto.program: dyn
import pypto.language as pl

N = pl.dynamic("N")
M = pl.dynamic("M", pl.INT64)
N_1 = pl.dynamic("N")

@pl.program
class dyn:
    @pl.function(type=pl.FunctionType.InCore)
    def f(self, a: pl.Tensor[[N, M], pl.FP32]):
        return

    @pl.function(type=pl.FunctionType.InCore)
    def g(self, a: pl.Tensor[[N, N_1], pl.FP32]):
        return
)");
}

TEST(PrinterProgramTest, ScalarsTheFunctionBindsAreNotDynamicDims) {
  auto n = ScalarVar("n");
  auto rows = ScalarVar("rows");
  auto a = Var::Make("a", TensorType::Make({n, Int(8)}, DataType::FP32));
  auto t = Var::Make("t", TensorType::Make({rows, Int(8)}, DataType::FP32));
  auto body = Seq({AssignStmt::Make(rows, Bin(B::FloorDiv, n, Int(2))),
                   AssignStmt::Make(t, OpCall("tensor.slice", {a, List({rows, Int(8)}), List({Int(0), Int(0)})})),
                   ReturnStmt::Make({t})});
  auto result = TensorType::Make(std::vector<int64_t>{4, 8}, DataType::FP32);
  auto f = Function::Make("half", FunctionType::Opaque, {n, a}, {}, {result}, body);
  EXPECT_EQ(PrintProgramSaved(Program::Make("bound", {f})),
            R"(# pypto.program: bound
import pypto.language as pl

@pl.program
class bound:
    @pl.function
    def half(self, n: pl.Scalar[pl.INDEX], a: pl.Tensor[[n, 8], pl.FP32]) -> pl.Tensor[[4, 8], pl.FP32]:
        rows: pl.Scalar[pl.INDEX] = n // 2
        t: pl.Tensor[[rows, 8], pl.FP32] = pl.tensor.slice(a, [rows, 8], [0, 0])
        return t
)");
}

TEST(PrinterProgramTest, DistinctVarsSharingAHintGetSuffixes) {
  auto x = ScalarVar("x");
  auto x1 = ScalarVar("x");
  auto x2 = ScalarVar("x");
  auto taken = ScalarVar("x_1");
  auto body = Seq({AssignStmt::Make(x1, Bin(B::Add, x, Int(1))), AssignStmt::Make(x2, Bin(B::Mul, x1, x)),
                   AssignStmt::Make(taken, x2), ReturnStmt::Make({taken})});
  auto f = Function::Make("f", FunctionType::Opaque, {x}, {}, {ScalarOf()}, body);
  EXPECT_EQ(PrintFunctionSaved(f, PrintOptions{"pl", true}),
            "@pl.function\n"
            "def f(self, x: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:\n"
            "    x_1 = x + 1\n"
            "    x_2 = x_1 * x\n"
            "    x_1_1 = x_2\n"
            "    return x_1_1\n");
}

TEST(PrinterProgramTest, NamesAvoidKeywordsPrefixBuiltinsAndFunctionNames) {
  std::vector<std::string> hints = {"if", "pl", "self", "a-b", "1x", "", "float", "kernel", "N", "True"};
  std::vector<StmtPtr> stmts;
  std::vector<ExprPtr> uses;
  for (const auto& hint : hints) {
    auto v = ScalarVar(hint);
    stmts.push_back(AssignStmt::Make(v, Int(0)));
    uses.push_back(v);
  }
  stmts.push_back(Eval(OpCall("tile.op", uses)));
  auto N = ScalarVar("N");
  auto a = Var::Make("a", TensorType::Make({N}, DataType::FP32));
  auto main = Function::Make("main", FunctionType::Opaque, {a}, {}, {}, Seq(stmts));
  auto kernel = Function::Make("kernel", FunctionType::InCore, {}, {}, {}, nullptr);
  auto if_fn = Function::Make("if", FunctionType::InCore, {}, {}, {}, nullptr);
  EXPECT_EQ(PrintProgramSaved(Program::Make("pl", {main, kernel, if_fn}), PrintOptions{"pl", true}),
            R"(# pypto.program: pl
import pypto.language as pl

N = pl.dynamic("N")

@pl.program
class pl_1:
    @pl.function(type=pl.FunctionType.InCore)
    def if_(self):
        pass

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self):
        pass

    @pl.function
    def main(self, a: pl.Tensor[[N], pl.FP32]):
        if__1 = 0
        pl_2 = 0
        self_1 = 0
        a_b = 0
        _1x = 0
        v = 0
        float_1 = 0
        kernel_1 = 0
        N_1 = 0
        True_ = 0
        pl.tile.op(if__1, pl_2, self_1, a_b, _1x, v, float_1, kernel_1, N_1, True_)
)");
}

TEST(PrinterProgramTest, SiblingLoopsWithOneIterArgHintStayDistinct) {
  auto make_loop = [](const std::string& index, const std::string& result) {
    auto acc = IterArg::Make("acc", ScalarOf(), Int(0));
    return ForStmt::Make(ScalarVar(index), Int(0), Int(8), Int(1), {acc},
                         YieldStmt::Make({Bin(B::Add, acc, Int(1))}), {ScalarVar(result)});
  };
  EXPECT_EQ(PrintConcise(Seq({make_loop("i", "acc"), make_loop("i", "acc")})),
            "for i, (acc,) in pl.range(0, 8, 1, init_values=(0,)):\n"
            "    acc_1 = pl.yield_(acc + 1)\n"
            "for i_1, (acc_2,) in pl.range(0, 8, 1, init_values=(0,)):\n"
            "    acc_3 = pl.yield_(acc_2 + 1)\n");
}

TEST(PrinterProgramTest, MemRefsKeepOneNamePerObject) {
  auto base = Var::Make("buf", PtrType::Make(MemorySpace::Vec));
  auto shared = MemRef::Make("mem", MemorySpace::Vec, base, Int(0), 1024);
  auto other = MemRef::Make("mem", MemorySpace::Vec, base, Int(1024), 1024);
  auto tile_in = [&](const MemRefPtr& memref) {
    auto t = std::make_shared<TileType>(*TileType::Make({16, 16}, DataType::FP32, MemorySpace::Vec));
    t->memref = memref;
    return TypePtr(t);
  };
  auto t0 = Var::Make("t", tile_in(shared));
  auto t1 = Var::Make("t", tile_in(shared));
  auto t2 = Var::Make("t", tile_in(other));
  auto body = Seq({AssignStmt::Make(base, OpCall("tile.alloc", {}, {{"size", int64_t{2048}}})),
                   AssignStmt::Make(t0, OpCall("tile.create", {})), AssignStmt::Make(t1, OpCall("tile.exp", {t0})),
                   AssignStmt::Make(t2, OpCall("tile.exp", {t1})), ReturnStmt::Make({})});
  auto f = Function::Make("k", FunctionType::AIV, {}, {}, {}, body);
  EXPECT_EQ(PrintFunctionSaved(f),
            R"(@pl.function(type=pl.FunctionType.AIV)
def k(self):
    buf: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(size=2048)
    t: pl.Tile[[16, 16], pl.FP32, pl.MemRef("mem", 0, 1024, pl.Mem.Vec, base=buf), pl.Mem.Vec] = pl.tile.create()
    t_1: pl.Tile[[16, 16], pl.FP32, pl.MemRef("mem", 0, 1024, pl.Mem.Vec, base=buf), pl.Mem.Vec] = pl.tile.exp(t)
    t_2: pl.Tile[[16, 16], pl.FP32, pl.MemRef("mem_1", 1024, 1024, pl.Mem.Vec, base=buf), pl.Mem.Vec] = pl.tile.exp(t_1)
    return
)");
}

}  // namespace
}  // namespace pypto::ir
