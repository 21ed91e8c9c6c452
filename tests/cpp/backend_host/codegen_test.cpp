// What the host backend generates: the artifacts, the printed module of a
// small program, and the errors for what it cannot lower.
#include <gtest/gtest.h>

#include <cstring>

#include "backend_host/programs.h"
#include "pypto/support/error.h"

namespace pypto::host::testing {
namespace {

bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

Error CodegenErrorOf(const ProgramPtr& program) {
  try {
    Generate(program);
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "the host backend accepted the program";
  return Error(ErrorKind::kInternal, "no error");
}

TEST(HostCodegen, OneOrchestrationArtifactPerOrchestrationFunction) {
  auto artifacts = Generate(HelloWorld());
  ASSERT_EQ(artifacts.size(), 1u);
  EXPECT_EQ(artifacts[0].path, "orchestration/main.ll");
  EXPECT_EQ(artifacts[0].kind, backend::ArtifactKind::kOrchestrationIR);
  EXPECT_EQ(artifacts[0].function, "main");
}

TEST(HostCodegen, HelloWorldRegistersTheKernelReadsArgsAndSubmitsWithDirections) {
  std::string text = GeneratedText(HelloWorld());
  EXPECT_TRUE(Contains(text, "define i32 @pypto_orchestration_main(ptr %ctx)")) << text;
  EXPECT_TRUE(Contains(text, "call i32 @pypto_rt_set_kernel(ptr %ctx, i32 0, ptr @kernel_name.add, i32 1, "
                             "ptr @pypto_kernel_add)"))
      << text;
  EXPECT_TRUE(Contains(text, "declare void @pypto_kernel_add(ptr, ptr)")) << text;
  EXPECT_TRUE(Contains(text, "%a = call ptr @pypto_rt_arg_tensor(ptr %ctx, i32 0)")) << text;
  EXPECT_TRUE(Contains(text, "%out = call ptr @pypto_rt_arg_tensor(ptr %ctx, i32 2)")) << text;
  EXPECT_TRUE(Contains(text, "%add.args = call ptr @pypto_rt_args_create(ptr %ctx)")) << text;
  EXPECT_TRUE(Contains(text, "call i32 @pypto_rt_args_add_input(ptr %add.args, ptr %a)")) << text;
  EXPECT_TRUE(Contains(text, "call i32 @pypto_rt_args_add_input(ptr %add.args, ptr %b)")) << text;
  EXPECT_TRUE(Contains(text, "call i32 @pypto_rt_args_add_output_existing(ptr %add.args, ptr %out)")) << text;
  EXPECT_TRUE(Contains(text, "call i64 @pypto_rt_submit(ptr %ctx, i32 0, ptr %add.args, i32 1)")) << text;
  EXPECT_TRUE(Contains(text, "call i32 @pypto_rt_set_result(ptr %ctx, i32 0, ptr %out)")) << text;
  EXPECT_TRUE(Contains(text, "%error = call ptr @pypto_rt_error(ptr %ctx)")) << text;
  // The submit carries the call's source line.
  EXPECT_TRUE(Contains(text, "!DILocation(line: 2, column: 5")) << text;
  EXPECT_TRUE(Contains(text, "!DIFile(filename: \"orchestration.py\"")) << text;
}

TEST(HostCodegen, ScalarsFollowTensorsInKernelSlots) {
  std::string text = GeneratedText(ChunkedLoop());
  size_t out = text.find("@pypto_rt_args_add_inout(ptr %add_rows.args, ptr %out)");
  size_t scalar = text.find("@pypto_rt_args_add_scalar(ptr %add_rows.args, i64 %r)");
  ASSERT_NE(out, std::string::npos) << text;
  ASSERT_NE(scalar, std::string::npos) << text;
  EXPECT_LT(out, scalar);
  EXPECT_TRUE(Contains(text, "%r = phi i64 [ 0, %body ], [ %r.next, %for.r.body ]")) << text;
}

TEST(HostCodegen, ADynamicDimensionOfAParameterIsReadFromItsDescriptor) {
  // main(a: [8, N], out): rows(N, a, out) -- N is defined by a's shape only.
  auto n = IndexParam("N");
  auto a = Var::Make("a", TensorType::Make(std::vector<ExprPtr>{Int(8), n}, DataType::FP32));
  auto out = TensorParam("out");
  auto kernel = KernelFn("rows", {IndexParam("n"), TensorParam("a"), TensorParam("out")}, {PD::In, PD::In, PD::Out});
  auto main = Orchestration("main", {a, out}, {Mat(kRows, kCols)},
                            {EvalStmt::Make(KernelCall(kernel, {n, a, out}, {"Scalar", "Input", "OutputExisting"}, 2)),
                             ReturnStmt::Make({out})});
  std::string text = GeneratedText(Program::Make("dynamic", {kernel, main}));
  EXPECT_TRUE(Contains(text, "%N = call i64 @pypto_rt_tensor_dim(ptr %a, i32 1)")) << text;
  EXPECT_TRUE(Contains(text, "@pypto_rt_args_add_scalar(ptr %rows.args, i64 %N)")) << text;
}

TEST(HostCodegen, KernelIdsAreProgramWideAndGroupsSubmitMixed) {
  std::string text = GeneratedText(Group());
  // bottom_half (AIV) is id 0 and top_half (AIC) id 1: kernels in program order.
  EXPECT_TRUE(Contains(text, "call i32 @pypto_rt_set_kernel(ptr %ctx, i32 0, ptr @kernel_name.bottom_half, i32 1")) << text;
  EXPECT_TRUE(Contains(text, "call i32 @pypto_rt_set_kernel(ptr %ctx, i32 1, ptr @kernel_name.top_half, i32 0")) << text;
  EXPECT_TRUE(Contains(text, "call i64 @pypto_rt_submit_mixed(ptr %ctx, i32 1, i32 0, i32 -1, ptr %cluster.args, i32 1)"))
      << text;
}

TEST(HostCodegen, SpmdCallsSubmitTheWrappedKernelWithTheGridSize) {
  std::string text = GeneratedText(Spmd());
  EXPECT_TRUE(Contains(text, "call i64 @pypto_rt_submit(ptr %ctx, i32 0, ptr %grid.args, i32 4)")) << text;
}

TEST(HostCodegen, AnOpWithoutRuntimeCounterpartIsACodegenErrorAtItsLine) {
  auto a = Var::Make("a", TensorType::Make(std::vector<int64_t>{64}, DataType::INT32));
  VarPtr x;
  auto main = Orchestration("main", {a}, {},
                            {Let(x, "x", OpCall("tensor.read", {a, Dims({3})}, {}, 7)), ReturnStmt::Make({})});
  Error e = CodegenErrorOf(Program::Make("read", {main}));
  EXPECT_EQ(e.kind(), ErrorKind::kCodegen);
  EXPECT_TRUE(Contains(e.message(), "backend 'host': in function 'main': op 'tensor.read'")) << e.message();
  EXPECT_TRUE(Contains(e.message(), "move it into a kernel")) << e.message();
  EXPECT_EQ(e.span().begin_line, 7);
}

TEST(HostCodegen, ACallWithoutDirectionsAsksForDeriveCallDirections) {
  auto a = TensorParam("a"), b = TensorParam("b"), out = TensorParam("out");
  auto add = Add();
  auto call = Call::Make(GlobalVar::Make("add"), {a, b, out}, {}, CallTypeOf(add->return_types), SourceLine(4));
  auto main = Orchestration("main", {a, b, out}, {}, {EvalStmt::Make(call), ReturnStmt::Make({})});
  Error e = CodegenErrorOf(Program::Make("undirected", {add, main}));
  EXPECT_TRUE(Contains(e.message(), "op 'add'")) << e.message();
  EXPECT_TRUE(Contains(e.message(), "run DeriveCallDirections")) << e.message();
  EXPECT_EQ(e.span().begin_line, 4);
}

TEST(HostCodegen, AScalarResultIsACodegenError) {
  auto n = IndexParam("n");
  auto main = Function::Make("main", FunctionType::Orchestration, {n}, {ParamDirection::In},
                             {ScalarType::Make(DataType::INDEX)}, ReturnStmt::Make({n}, SourceLine(9)));
  Error e = CodegenErrorOf(Program::Make("scalar_result", {main}));
  EXPECT_TRUE(Contains(e.message(), "the runtime returns tensors only")) << e.message();
  EXPECT_EQ(e.span().begin_line, 9);
}

TEST(HostCodegen, AGroupMemberTakingOtherArgumentsIsRefused) {
  auto x = TensorParam("x"), out = TensorParam("out");
  auto top = KernelFn("top_half", {TensorParam("out"), TensorParam("x")}, {PD::Out, PD::In}, FunctionType::AIC);
  auto gx = TensorParam("x"), gout = TensorParam("out");
  auto cluster = Function::Make("cluster", FunctionType::Group, {gx, gout}, {PD::In, PD::Out}, {Mat(kRows, kCols)},
                                SeqStmts::Make({EvalStmt::Make(KernelCall(top, {gout, gx}, {}, 10)),
                                                ReturnStmt::Make({gout})}));
  auto main = Orchestration("main", {x, out}, {},
                            {EvalStmt::Make(KernelCall(cluster, {x, out}, {"Input", "OutputExisting"}, 2)),
                             ReturnStmt::Make({})});
  Error e = CodegenErrorOf(Program::Make("bad_group", {cluster, main, top}));
  EXPECT_TRUE(Contains(e.message(), "share the Group's argument slots")) << e.message();
}

}  // namespace
}  // namespace pypto::host::testing
