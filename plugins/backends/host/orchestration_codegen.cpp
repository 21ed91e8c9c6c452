#include "orchestration_codegen.h"

#include <llvm/IR/DIBuilder.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <unordered_map>

#include "dispatch.h"
#include "pypto/backend/backend.h"
#include "pypto/runtime/c_api.h"
#include "runtime_api.h"
#include "scalar_codegen.h"

namespace pypto::host {
namespace {

using ir::As;
using ir::DataType;

// What an IR expression is in the generated code: one LLVM value (a scalar,
// a tensor handle, a TaskId array's address), a tuple of them, or nothing
// with the reason (a kernel result that is none of its parameters).
struct HostValue {
  llvm::Value* value = nullptr;
  bool is_tuple = false;
  std::vector<HostValue> fields;
  std::string missing;

  static HostValue Of(llvm::Value* v) { return HostValue{v, false, {}, ""}; }
  static HostValue Tuple(std::vector<HostValue> fields) { return HostValue{nullptr, true, std::move(fields), ""}; }
  static HostValue Missing(std::string why) { return HostValue{nullptr, false, {}, std::move(why)}; }
};

// Array elements nobody set read as "no task" (-1), which deps skip, or 0.
constexpr int kNoTaskByte = 0xFF;

class OrchestrationCodegen {
 public:
  OrchestrationCodegen(const ir::Program& program, const ir::Function& function,
                       const std::map<std::string, int>& kernel_ids, const backend::Platform& platform,
                       llvm::LLVMContext& context)
      : program_(program),
        function_(function),
        kernel_ids_(kernel_ids),
        platform_(platform),
        context_(context),
        module_(std::make_unique<llvm::Module>("orchestration_" + function.name, context)),
        api_(*module_),
        b_(context),
        dib_(*module_) {}

  std::unique_ptr<llvm::Module> Build() {
    DeclareEntry();
    BindParams();
    std::vector<ir::StmtPtr> body = ir::Flatten(function_.body);
    for (size_t i = 0; i < body.size(); ++i) {
      if (auto ret = As<ir::ReturnStmt>(body[i])) {
        if (i + 1 != body.size()) Fail("return", "a return must be the function's last statement", ret->span);
        EmitReturn(*ret);
      } else {
        EmitStmt(body[i]);
      }
    }
    EmitStatusReturn();
    EmitSyncStartBlocks();
    RegisterKernels();
    DropUnusedDeclarations();
    dib_.finalize();
    return std::move(module_);
  }

 private:
  // ------------------------------------------------------------ function frame

  void DeclareEntry() {
    llvm::Type* ptr = llvm::PointerType::get(context_, 0);
    auto* type = llvm::FunctionType::get(b_.getInt32Ty(), {ptr}, false);
    fn_ = llvm::Function::Create(type, llvm::Function::ExternalLinkage, "pypto_orchestration_" + function_.name,
                                 *module_);
    ctx_ = fn_->getArg(0);
    ctx_->setName("ctx");
    AttachDebugInfo();
    entry_ = llvm::BasicBlock::Create(context_, "entry", fn_);
    auto* body = llvm::BasicBlock::Create(context_, "body", fn_);
    llvm::IRBuilder<>(entry_).CreateBr(body);
    b_.SetInsertPoint(body);
  }

  // Source lines travel as debug locations, so they show in the printed
  // module and in a debugger.
  void AttachDebugInfo() {
    const Span& span = function_.span;
    std::string file = span.filename.empty() ? "<pypto>" : span.filename;
    llvm::DIFile* di_file = dib_.createFile(file, "");
    dib_.createCompileUnit(llvm::dwarf::DW_LANG_C, di_file, "pypto host backend", false, "", 0);
    auto* type = dib_.createSubroutineType(dib_.getOrCreateTypeArray({}));
    unsigned line = static_cast<unsigned>(std::max(span.begin_line, 0));
    subprogram_ = dib_.createFunction(di_file, function_.name, fn_->getName(), di_file, line, type, line,
                                      llvm::DINode::FlagZero, llvm::DISubprogram::SPFlagDefinition);
    fn_->setSubprogram(subprogram_);
    module_->addModuleFlag(llvm::Module::Warning, "Debug Info Version", llvm::DEBUG_METADATA_VERSION);
    Locate(span);
  }

  // A node without a span keeps the location of the statement around it.
  void Locate(const Span& span) {
    if (!span.known() && b_.getCurrentDebugLocation()) return;
    if (span.known()) current_span_ = span;
    b_.SetCurrentDebugLocation(llvm::DILocation::get(context_, static_cast<unsigned>(std::max(span.begin_line, 0)),
                                                     static_cast<unsigned>(std::max(span.begin_col, 0)), subprogram_));
  }

  void BindParams() {
    for (size_t i = 0; i < function_.params.size(); ++i) {
      const ir::Var& param = *function_.params[i];
      llvm::Value* index = b_.getInt32(static_cast<int32_t>(i));
      llvm::Value* value = nullptr;
      if (ir::IsA<ir::TensorType>(param.type)) {
        value = b_.CreateCall(api_.arg_tensor, {ctx_, index}, param.name_hint);
      } else if (auto dtype = ir::ScalarDType(param.type)) {
        RequireScalarType(*dtype, "parameter '" + param.name_hint + "'", param.span);
        value = FromSlotBits(b_, b_.CreateCall(api_.arg_scalar, {ctx_, index}, param.name_hint + ".bits"), *dtype);
      } else {
        Fail("", "parameter '" + param.name_hint + "' has type " + ir::TypeToString(param.type) +
                     "; an orchestration function takes tensors and scalars",
             param.span);
      }
      Bind(param, HostValue::Of(value));
    }
    // A dynamic dimension (a pl.dynamic variable in a parameter's shape) is
    // the extent of the first tensor parameter that has it.
    for (size_t i = 0; i < function_.params.size(); ++i) {
      auto tensor = As<ir::TensorType>(function_.params[i]->type);
      if (!tensor) continue;
      for (size_t k = 0; k < tensor->shape.size(); ++k) {
        auto dim = As<ir::Var>(tensor->shape[k]);
        if (!dim || values_.count(dim.get())) continue;
        llvm::Value* extent = b_.CreateCall(api_.tensor_dim, {Lookup(*function_.params[i]).value,
                                                               b_.getInt32(static_cast<int32_t>(k))}, dim->name_hint);
        Bind(*dim, HostValue::Of(extent));
      }
    }
  }

  // The C API keeps the first failure and every later call returns it
  // (always status 1), so one check at the end gives the first status.
  void EmitStatusReturn() {
    if (b_.GetInsertBlock()->getTerminator()) return;
    llvm::Value* error = b_.CreateCall(api_.error, {ctx_}, "error");
    llvm::Value* failed = b_.CreateICmpNE(error, llvm::ConstantPointerNull::get(b_.getPtrTy()), "failed");
    b_.CreateRet(b_.CreateZExt(failed, b_.getInt32Ty(), "status"));
  }

  // Registered first thing at run time, before any submit names them.
  void RegisterKernels() {
    llvm::IRBuilder<> at(entry_->getTerminator());
    at.SetCurrentDebugLocation(llvm::DILocation::get(context_, subprogram_->getLine(), 0, subprogram_));
    for (const auto& [id, kernel] : used_kernels_) {
      llvm::Value* name = at.CreateGlobalStringPtr(kernel->name, "kernel_name." + kernel->name);
      int core = backend::KernelCoreType(*kernel) == ir::FunctionType::AIC ? PYPTO_RT_AIC : PYPTO_RT_AIV;
      llvm::FunctionCallee entry = module_->getOrInsertFunction("pypto_kernel_" + kernel->name, api_.kernel_type);
      at.CreateCall(api_.set_kernel, {ctx_, at.getInt32(id), name, at.getInt32(core), entry.getCallee()});
    }
  }

  // The module declares the whole C API up front; what it does not call
  // would only clutter the printed text.
  void DropUnusedDeclarations() {
    std::vector<llvm::Function*> unused;
    for (llvm::Function& f : *module_) {
      if (f.isDeclaration() && f.use_empty()) unused.push_back(&f);
    }
    for (llvm::Function* f : unused) f->eraseFromParent();
  }

  // ---------------------------------------------------------------- statements

  void EmitStmt(const ir::StmtPtr& stmt) {
    Locate(stmt->span);
    switch (stmt->kind()) {
      case ir::NodeKind::kAssignStmt: return EmitAssign(static_cast<const ir::AssignStmt&>(*stmt));
      case ir::NodeKind::kEvalStmt: Eval(static_cast<const ir::EvalStmt&>(*stmt).expr); return;
      case ir::NodeKind::kSeqStmts:
        for (const auto& s : static_cast<const ir::SeqStmts&>(*stmt).stmts) EmitStmt(s);
        return;
      case ir::NodeKind::kForStmt: return EmitFor(static_cast<const ir::ForStmt&>(*stmt));
      case ir::NodeKind::kWhileStmt: return EmitWhile(static_cast<const ir::WhileStmt&>(*stmt));
      case ir::NodeKind::kIfStmt: return EmitIf(static_cast<const ir::IfStmt&>(*stmt));
      case ir::NodeKind::kScopeStmt: return EmitScope(static_cast<const ir::ScopeStmt&>(*stmt));
      case ir::NodeKind::kYieldStmt:
        Fail("yield", "a yield must be the last statement of a loop body or an if branch", stmt->span);
      case ir::NodeKind::kReturnStmt:
        Fail("return", "a return must be the function's last statement", stmt->span);
      case ir::NodeKind::kBreakStmt:
      case ir::NodeKind::kContinueStmt:
        Fail(stmt->type_name(), "break and continue are not lowered in orchestration code; carry a flag in the "
                                "loop's iter_args and test it in an if",
             stmt->span);
      default:
        Fail(stmt->type_name(), "this statement is not lowered in orchestration code", stmt->span);
    }
  }

  void EmitAssign(const ir::AssignStmt& assign) {
    HostValue value = Eval(assign.value);
    if (value.value && llvm::isa<llvm::Instruction>(value.value) && !value.value->hasName()) {
      value.value->setName(assign.var->name_hint);
    }
    Bind(*assign.var, std::move(value));
  }

  void EmitReturn(const ir::ReturnStmt& ret) {
    Locate(ret.span);
    for (size_t i = 0; i < ret.values.size(); ++i) {
      const ir::ExprPtr& value = ret.values[i];
      if (!ir::IsA<ir::TensorType>(value->type)) {
        Fail("return", "return value " + std::to_string(i) + " has type " + ir::TypeToString(value->type) +
                           "; the runtime returns tensors only (pypto_rt_set_result), so return scalars in a tensor",
             ret.span);
      }
      b_.CreateCall(api_.set_result, {ctx_, b_.getInt32(static_cast<int32_t>(i)), EvalValue(value)});
    }
  }

  // Emits a loop body or if branch; returns the values of its trailing yield,
  // converted to `yield_types`.
  std::vector<llvm::Value*> EmitBlock(const ir::StmtPtr& body, const std::vector<ir::TypePtr>& yield_types,
                                      const Span& owner) {
    std::vector<ir::StmtPtr> stmts = body ? ir::Flatten(body) : std::vector<ir::StmtPtr>{};
    auto yield = stmts.empty() ? nullptr : As<ir::YieldStmt>(stmts.back());
    if (yield) stmts.pop_back();
    for (const auto& stmt : stmts) EmitStmt(stmt);
    size_t count = yield ? yield->values.size() : 0;
    if (count != yield_types.size()) {
      Fail("yield", "the block yields " + std::to_string(count) + " values; its statement carries " +
                        std::to_string(yield_types.size()),
           yield ? yield->span : owner);
    }
    std::vector<llvm::Value*> values;
    if (yield) Locate(yield->span);
    for (size_t i = 0; i < count; ++i) values.push_back(EvalAs(yield->values[i], yield_types[i]));
    return values;
  }

  // Header phis for loop-carried values, their initial values coming from `from`.
  std::vector<llvm::PHINode*> CarriedPhis(const std::vector<ir::IterArgPtr>& iter_args, llvm::BasicBlock* from,
                                          const std::vector<llvm::Value*>& inits) {
    std::vector<llvm::PHINode*> phis;
    for (size_t i = 0; i < iter_args.size(); ++i) {
      llvm::PHINode* phi = b_.CreatePHI(inits[i]->getType(), 2, iter_args[i]->name_hint);
      phi->addIncoming(inits[i], from);
      Bind(*iter_args[i], HostValue::Of(phi));
      phis.push_back(phi);
    }
    return phis;
  }

  std::vector<llvm::Value*> CarriedInits(const std::vector<ir::IterArgPtr>& iter_args) {
    std::vector<llvm::Value*> inits;
    for (const auto& arg : iter_args) inits.push_back(EvalAs(arg->init_value, arg->type));
    return inits;
  }

  static std::vector<ir::TypePtr> TypesOf(const std::vector<ir::IterArgPtr>& iter_args) {
    std::vector<ir::TypePtr> types;
    for (const auto& arg : iter_args) types.push_back(arg->type);
    return types;
  }

  void BindReturnVars(const std::vector<ir::VarPtr>& return_vars, const std::vector<llvm::PHINode*>& phis,
                      const Span& span) {
    if (return_vars.size() != phis.size()) {
      Fail("", std::to_string(return_vars.size()) + " return vars for " + std::to_string(phis.size()) +
                   " loop-carried values",
           span);
    }
    for (size_t i = 0; i < phis.size(); ++i) Bind(*return_vars[i], HostValue::Of(phis[i]));
  }

  // Both kinds of loop submit their iterations in order. A parallel loop runs
  // in a PARALLEL runtime scope, each iteration announced: pl.parallel asserts
  // its iterations are independent, so the runtime does not order tasks of
  // different iterations (they may write disjoint parts of one tensor it
  // cannot tell apart), only tasks within one and against the outside.
  void EmitFor(const ir::ForStmt& loop) {
    if (loop.for_kind != ir::ForKind::Sequential && loop.for_kind != ir::ForKind::Parallel) {
      Fail("for", std::string("a ") + ir::ToString(loop.for_kind) +
                      " loop reached the host backend; UnrollLoops / LowerPipelineLoops should have expanded it",
           loop.span);
    }
    auto index_dtype = ir::ScalarDType(loop.loop_var->type);
    if (!index_dtype || !index_dtype->is_int()) Fail("for", "the loop variable is not an integer", loop.span);
    llvm::Value* start = EvalScalar(loop.start, *index_dtype);
    llvm::Value* stop = EvalScalar(loop.stop, *index_dtype);
    llvm::Value* step = EvalScalar(loop.step, *index_dtype);
    std::vector<llvm::Value*> inits = CarriedInits(loop.iter_args);
    const std::string& name = loop.loop_var->name_hint;
    bool parallel = loop.for_kind == ir::ForKind::Parallel;
    if (parallel) b_.CreateCall(api_.scope_begin, {ctx_, b_.getInt32(PYPTO_RT_SCOPE_PARALLEL)});
    llvm::BasicBlock* preheader = b_.GetInsertBlock();
    auto* header = llvm::BasicBlock::Create(context_, "for." + name, fn_);
    auto* body = llvm::BasicBlock::Create(context_, "for." + name + ".body", fn_);
    auto* exit = llvm::BasicBlock::Create(context_, "for." + name + ".end", fn_);
    b_.CreateBr(header);

    b_.SetInsertPoint(header);
    llvm::PHINode* index = b_.CreatePHI(start->getType(), 2, name);
    index->addIncoming(start, preheader);
    Bind(*loop.loop_var, HostValue::Of(index));
    std::vector<llvm::PHINode*> phis = CarriedPhis(loop.iter_args, preheader, inits);
    b_.CreateCondBr(LoopContinues(index, stop, step, index_dtype->is_signed_int(), loop), body, exit);

    b_.SetInsertPoint(body);
    if (parallel) b_.CreateCall(api_.parallel_next, {ctx_});
    std::vector<llvm::Value*> next = EmitBlock(loop.body, TypesOf(loop.iter_args), loop.span);
    llvm::Value* next_index = b_.CreateAdd(index, step, name + ".next");
    llvm::BasicBlock* latch = b_.GetInsertBlock();
    index->addIncoming(next_index, latch);
    for (size_t i = 0; i < phis.size(); ++i) phis[i]->addIncoming(next[i], latch);
    b_.CreateBr(header);

    b_.SetInsertPoint(exit);
    if (parallel) b_.CreateCall(api_.scope_end, {ctx_});
    BindReturnVars(loop.return_vars, phis, loop.span);
  }

  // i < stop for a positive step, i > stop for a negative one (Python range).
  llvm::Value* LoopContinues(llvm::Value* index, llvm::Value* stop, llvm::Value* step, bool is_signed,
                             const ir::ForStmt& loop) {
    auto less = is_signed ? llvm::CmpInst::ICMP_SLT : llvm::CmpInst::ICMP_ULT;
    if (auto constant = ir::AsConstInt(loop.step)) {
      if (*constant == 0) Fail("for", "the loop step is 0", loop.span);
      if (*constant > 0) return b_.CreateICmp(less, index, stop);
      return b_.CreateICmpSGT(index, stop);
    }
    llvm::Value* up = b_.CreateICmpSGT(step, llvm::ConstantInt::get(step->getType(), 0));
    return b_.CreateSelect(up, b_.CreateICmp(less, index, stop), b_.CreateICmpSGT(index, stop));
  }

  void EmitWhile(const ir::WhileStmt& loop) {
    std::vector<llvm::Value*> inits = CarriedInits(loop.iter_args);
    llvm::BasicBlock* preheader = b_.GetInsertBlock();
    auto* header = llvm::BasicBlock::Create(context_, "while", fn_);
    auto* body = llvm::BasicBlock::Create(context_, "while.body", fn_);
    auto* exit = llvm::BasicBlock::Create(context_, "while.end", fn_);
    b_.CreateBr(header);

    b_.SetInsertPoint(header);
    std::vector<llvm::PHINode*> phis = CarriedPhis(loop.iter_args, preheader, inits);
    Locate(loop.span);
    b_.CreateCondBr(EvalScalar(loop.condition, DataType::BOOL), body, exit);

    b_.SetInsertPoint(body);
    std::vector<llvm::Value*> next = EmitBlock(loop.body, TypesOf(loop.iter_args), loop.span);
    llvm::BasicBlock* latch = b_.GetInsertBlock();
    for (size_t i = 0; i < phis.size(); ++i) phis[i]->addIncoming(next[i], latch);
    b_.CreateBr(header);

    b_.SetInsertPoint(exit);
    BindReturnVars(loop.return_vars, phis, loop.span);
  }

  void EmitIf(const ir::IfStmt& branch) {
    if (!branch.else_body && !branch.return_vars.empty()) {
      Fail("if", "an if without else defines values; both branches must yield them", branch.span);
    }
    std::vector<ir::TypePtr> types;
    for (const auto& var : branch.return_vars) types.push_back(var->type);
    llvm::Value* condition = EvalScalar(branch.condition, DataType::BOOL);
    auto* then_block = llvm::BasicBlock::Create(context_, "if.then", fn_);
    auto* else_block = llvm::BasicBlock::Create(context_, "if.else", fn_);
    auto* merge = llvm::BasicBlock::Create(context_, "if.end", fn_);
    b_.CreateCondBr(condition, then_block, else_block);

    b_.SetInsertPoint(then_block);
    std::vector<llvm::Value*> then_values = EmitBlock(branch.then_body, types, branch.span);
    llvm::BasicBlock* then_end = b_.GetInsertBlock();
    b_.CreateBr(merge);

    b_.SetInsertPoint(else_block);
    std::vector<llvm::Value*> else_values = EmitBlock(branch.else_body, types, branch.span);
    llvm::BasicBlock* else_end = b_.GetInsertBlock();
    b_.CreateBr(merge);

    b_.SetInsertPoint(merge);
    for (size_t i = 0; i < types.size(); ++i) {
      llvm::PHINode* phi = b_.CreatePHI(then_values[i]->getType(), 2, branch.return_vars[i]->name_hint);
      phi->addIncoming(then_values[i], then_end);
      phi->addIncoming(else_values[i], else_end);
      Bind(*branch.return_vars[i], HostValue::Of(phi));
    }
  }

  void EmitScope(const ir::ScopeStmt& scope) {
    if (scope.scope_kind != ir::ScopeKind::Runtime) {
      Fail("scope", std::string("a ") + ir::ToString(scope.scope_kind) +
                        " scope reached the host backend; the Outline*Scopes passes turn it into a function call",
           scope.span);
    }
    if (scope.task_id) Fail("manual_scope", "a manual scope has no task id of its own", scope.span);
    b_.CreateCall(api_.scope_begin, {ctx_, b_.getInt32(PYPTO_RT_SCOPE_MANUAL)});
    EmitBlock(scope.body, {}, scope.span);
    Locate(scope.span);
    b_.CreateCall(api_.scope_end, {ctx_});
  }

  // --------------------------------------------------------------- expressions

  HostValue Eval(const ir::ExprPtr& expr) {
    switch (expr->kind()) {
      case ir::NodeKind::kVar:
      case ir::NodeKind::kIterArg: return Lookup(static_cast<const ir::Var&>(*expr));
      case ir::NodeKind::kConstInt: {
        const auto& c = static_cast<const ir::ConstInt&>(*expr);
        return HostValue::Of(llvm::ConstantInt::get(ScalarTypeOf(*expr), static_cast<uint64_t>(c.value), true));
      }
      case ir::NodeKind::kConstFloat:
        return HostValue::Of(llvm::ConstantFP::get(ScalarTypeOf(*expr), static_cast<const ir::ConstFloat&>(*expr).value));
      case ir::NodeKind::kConstBool: return HostValue::Of(b_.getInt1(static_cast<const ir::ConstBool&>(*expr).value));
      case ir::NodeKind::kBinaryExpr: return HostValue::Of(EvalBinary(static_cast<const ir::BinaryExpr&>(*expr)));
      case ir::NodeKind::kUnaryExpr: return HostValue::Of(EvalUnary(static_cast<const ir::UnaryExpr&>(*expr)));
      case ir::NodeKind::kCall: return EvalCall(static_cast<const ir::Call&>(*expr));
      case ir::NodeKind::kSubmit: {
        const auto& submit = static_cast<const ir::Submit&>(*expr);
        return EvalTask(*submit.kernel_call(), submit.deps, &submit.attrs);
      }
      case ir::NodeKind::kTupleGetItem: return EvalTupleItem(static_cast<const ir::TupleGetItem&>(*expr));
      case ir::NodeKind::kMakeTuple: {
        std::vector<HostValue> fields;
        for (const auto& e : static_cast<const ir::MakeTuple&>(*expr).elements) fields.push_back(Eval(e));
        return HostValue::Tuple(std::move(fields));
      }
      default:
        Fail(expr->type_name(), "this expression is not lowered in orchestration code", expr->span);
    }
  }

  llvm::Value* EvalValue(const ir::ExprPtr& expr) {
    HostValue v = Eval(expr);
    if (!v.missing.empty()) Fail("", v.missing, expr->span);
    if (v.is_tuple || !v.value) Fail("", "a " + ir::TypeToString(expr->type) + " is used as one value", expr->span);
    return v.value;
  }

  llvm::Value* EvalScalar(const ir::ExprPtr& expr, DataType to) {
    auto from = ir::ScalarDType(expr->type);
    if (!from) Fail("", "a " + ir::TypeToString(expr->type) + " is used as a scalar", expr->span);
    RequireScalarType(to, "a value", expr->span);
    return ConvertScalar(b_, EvalValue(expr), *from, to);
  }

  // A value of type `type`: scalars are converted to its dtype.
  llvm::Value* EvalAs(const ir::ExprPtr& expr, const ir::TypePtr& type) {
    if (auto dtype = ir::ScalarDType(type)) return EvalScalar(expr, *dtype);
    return EvalValue(expr);
  }

  llvm::Value* EvalBinary(const ir::BinaryExpr& e) {
    DataType l = ScalarDTypeOf(*e.lhs);
    DataType r = ScalarDTypeOf(*e.rhs);
    return EmitBinary(b_, e.op, EvalValue(e.lhs), l, EvalValue(e.rhs), r, e.dtype(),
                      ErrorAt(ir::BinaryOpName(e.op), e.span));
  }

  llvm::Value* EvalUnary(const ir::UnaryExpr& e) {
    RequireScalarType(e.dtype(), "the result", e.span);
    return EmitUnary(b_, e.op, EvalValue(e.operand), ScalarDTypeOf(*e.operand), e.dtype(),
                     ErrorAt(ir::UnaryOpName(e.op), e.span));
  }

  HostValue EvalTupleItem(const ir::TupleGetItem& item) {
    HostValue tuple = Eval(item.tuple);
    if (!tuple.is_tuple || item.index < 0 || item.index >= static_cast<int64_t>(tuple.fields.size())) {
      Fail("", "item " + std::to_string(item.index) + " of a value that is not a tuple that long", item.span);
    }
    return tuple.fields[static_cast<size_t>(item.index)];
  }

  HostValue EvalCall(const ir::Call& call) {
    if (call.is_function_call()) return EvalTask(call, {}, nullptr);
    const std::string& op = call.op->name;
    if (op == "tensor.create") return HostValue::Of(TensorCreate(call));
    if (op == "tensor.slice") return HostValue::Of(TensorSlice(call));
    if (op == "tensor.dim") return HostValue::Of(TensorDim(call));
    if (op == "array.create") return HostValue::Of(ArrayCreate(call));
    if (op == "array.get_element") return HostValue::Of(ArrayGet(call));
    if (op == "array.update_element") return HostValue::Of(ArrayUpdate(call));
    if (op == "system.task_dummy") return HostValue::Of(TaskDummy(call));
    if (op == "tensor.dump_tag") {
      b_.CreateCall(api_.dump_tag, {ctx_, EvalValue(call.args[0])});
      return HostValue::Missing("pl.dump_tag(...) has no value");
    }
    Fail(op, "this op is not lowered in orchestration code (the runtime C API has tensor create/view/dim, "
             "task submission and scopes); move it into a kernel",
         call.span);
  }

  // ---------------------------------------------------------------- tasks

  // A kernel call, plain or submitted (then `deps` and `submit_attrs` come
  // from the Submit and the value ends with the task id).
  HostValue EvalTask(const ir::Call& call, const std::vector<ir::ExprPtr>& deps, const ir::Attrs* submit_attrs) {
    const std::string& callee = call.callee_name();
    Locate(call.span);
    TaskDispatch dispatch = ResolveDispatch(program_, call, ErrorAt(callee, call.span));
    if (submit_attrs && submit_attrs->Has("predicate")) {
      Fail(callee, "predicate= is not supported by the runtime C API; test the condition in an if", call.span);
    }
    std::vector<HostValue> args;
    for (const auto& arg : call.args) args.push_back(Eval(arg));
    llvm::Value* task_args = b_.CreateCall(api_.args_create, {ctx_}, callee + ".args");
    AddTaskArgs(call, dispatch, args, task_args);
    std::vector<ir::ExprPtr> all_deps = deps;
    if (auto compiler_deps = call.attrs.Get<std::vector<ir::ExprPtr>>("compiler_deps")) {
      all_deps.insert(all_deps.end(), compiler_deps->begin(), compiler_deps->end());
    }
    if (!all_deps.empty()) SetDeps(task_args, all_deps, callee);
    if (call.attrs.Get<bool>("sync_start").value_or(false)) {
      RequireSyncStartFits(call);
      b_.CreateCall(api_.set_sync_start, {task_args, b_.getInt32(1)});
    }
    llvm::Value* task_id = Submit(call, dispatch, task_args);
    std::vector<HostValue> results = TaskResults(call, dispatch, args);
    if (submit_attrs) {
      results.push_back(HostValue::Of(task_id));
      return HostValue::Tuple(std::move(results));
    }
    if (results.size() == 1) return results[0];
    return results.empty() ? HostValue{} : HostValue::Tuple(std::move(results));
  }

  void AddTaskArgs(const ir::Call& call, const TaskDispatch& dispatch, const std::vector<HostValue>& args,
                   llvm::Value* task_args) {
    auto directions = call.attrs.Get<std::vector<std::string>>("arg_directions");
    if (!directions || directions->size() != call.args.size()) {
      Fail(call.callee_name(), "the call has no arg_directions for its " + std::to_string(call.args.size()) +
                                   " arguments; run DeriveCallDirections before the host backend",
           call.span);
    }
    const ir::Function& callee = *program_.Find(call.callee_name());
    for (size_t slot : dispatch.slots) {
      const HostValue& value = args[slot];
      if (!value.missing.empty()) Fail(call.callee_name(), value.missing, call.args[slot]->span);
      AddTaskArg(call, slot, (*directions)[slot], *callee.params[slot], value.value, task_args);
    }
  }

  void AddTaskArg(const ir::Call& call, size_t slot, const std::string& direction, const ir::Var& param,
                  llvm::Value* value, llvm::Value* task_args) {
    auto where = "argument " + std::to_string(slot) + " ('" + param.name_hint + "')";
    if (auto dtype = ir::ScalarDType(param.type)) {
      if (direction != "Scalar") Fail(call.callee_name(), where + " is a scalar but its direction is " + direction, call.span);
      RequireScalarType(*dtype, where, call.span);
      llvm::Value* typed = ConvertScalar(b_, value, ScalarDTypeOf(*call.args[slot]), *dtype);
      b_.CreateCall(api_.add_scalar, {task_args, ToSlotBits(b_, typed, *dtype)});
      return;
    }
    const llvm::FunctionCallee* add = AddFor(direction);
    if (!add) {
      Fail(call.callee_name(), where + " is a tensor but its direction is '" + direction +
                                   "'; tensors are Input, Output, InOut, OutputExisting or NoDep",
           call.span);
    }
    b_.CreateCall(*add, {task_args, value});
  }

  const llvm::FunctionCallee* AddFor(const std::string& direction) const {
    if (direction == "Input") return &api_.add_input;
    if (direction == "Output") return &api_.add_output;
    if (direction == "InOut") return &api_.add_inout;
    if (direction == "OutputExisting") return &api_.add_output_existing;
    if (direction == "NoDep") return &api_.add_no_dep;
    return nullptr;
  }

  llvm::Value* Submit(const ir::Call& call, const TaskDispatch& dispatch, llvm::Value* task_args) {
    llvm::Value* core_num = CoreNum(call);
    const std::string name = call.callee_name() + ".task";
    if (!dispatch.mixed) {
      return b_.CreateCall(api_.submit, {ctx_, KernelId(*dispatch.single), task_args, core_num}, name);
    }
    llvm::Value* none = b_.getInt32(PYPTO_RT_INVALID_KERNEL);
    llvm::Value* aic = dispatch.aic ? KernelId(*dispatch.aic) : none;
    llvm::Value* aiv0 = dispatch.aiv.size() > 0 ? KernelId(*dispatch.aiv[0]) : none;
    llvm::Value* aiv1 = dispatch.aiv.size() > 1 ? KernelId(*dispatch.aiv[1]) : none;
    return b_.CreateCall(api_.submit_mixed, {ctx_, aic, aiv0, aiv1, task_args, core_num}, name);
  }

  // All blocks of a sync_start launch run at once, one cluster each: a grid of known size must fit the chip.
  void RequireSyncStartFits(const ir::Call& call) {
    std::optional<int64_t> blocks = ConstantCoreNum(call);
    if (!blocks) return;  // a run-time size is checked when the task is submitted
    if (*blocks > platform_.clusters) {
      Fail(call.callee_name(), "sync_start=True starts all " + std::to_string(*blocks) + " blocks at once, one "
                               "cluster each, but platform '" + platform_.name + "' has " +
                               std::to_string(platform_.clusters) + " clusters; use at most " +
                               std::to_string(platform_.clusters) + " blocks or drop sync_start",
           call.span);
    }
    sync_start_blocks_ = std::max(sync_start_blocks_, *blocks);
  }

  static std::optional<int64_t> ConstantCoreNum(const ir::Call& call) {
    const ir::AttrValue* attr = call.attrs.Find("core_num");
    if (!attr) return 1;
    if (const auto* n = std::get_if<int64_t>(attr)) return *n;
    const auto* e = std::get_if<ir::ExprPtr>(attr);
    auto constant = e ? As<ir::ConstInt>(*e) : nullptr;
    return constant ? std::optional<int64_t>(constant->value) : std::nullopt;
  }

  // The largest sync_start grid, for the simulator: it runs this program on at least that many clusters.
  void EmitSyncStartBlocks() {
    new llvm::GlobalVariable(*module_, b_.getInt32Ty(), /*isConstant=*/true, llvm::GlobalValue::ExternalLinkage,
                             b_.getInt32(static_cast<int32_t>(sync_start_blocks_)),
                             backend::SyncStartBlocksSymbol(function_.name));
  }

  llvm::Value* CoreNum(const ir::Call& call) {
    const ir::AttrValue* attr = call.attrs.Find("core_num");
    if (!attr) return b_.getInt32(1);
    if (const auto* n = std::get_if<int64_t>(attr)) return b_.getInt32(static_cast<int32_t>(*n));
    if (const auto* e = std::get_if<ir::ExprPtr>(attr)) return EvalScalar(*e, DataType::INT32);
    Fail(call.callee_name(), std::string("core_num is a ") + ir::AttrValueKindName(*attr) + "; it must be an integer",
         call.span);
  }

  llvm::Value* KernelId(const ir::Function& kernel) {
    auto it = kernel_ids_.find(kernel.name);
    if (it == kernel_ids_.end()) Fail(kernel.name, "kernel '" + kernel.name + "' has no function id", kernel.span);
    used_kernels_[it->second] = &kernel;
    return b_.getInt32(it->second);
  }

  // A result that aliases an Out/InOut argument is that argument's handle.
  std::vector<HostValue> TaskResults(const ir::Call& call, const TaskDispatch& dispatch,
                                     const std::vector<HostValue>& args) {
    std::vector<HostValue> results;
    size_t count = ir::CallResultTypes(call.type).size();
    for (size_t r = 0; r < count; ++r) {
      int arg = r < dispatch.result_args.size() ? dispatch.result_args[r] : -1;
      if (arg >= 0) {
        results.push_back(args[static_cast<size_t>(arg)]);
      } else {
        results.push_back(HostValue::Missing(
            "result " + std::to_string(r) + " of '" + call.callee_name() +
            "' is none of its parameters, so it has no buffer on the host; a kernel returns the Out/InOut "
            "parameter it stores into"));
      }
    }
    return results;
  }

  // Task ids and TASK_ID arrays -> one i64 buffer for pypto_rt_args_set_deps.
  // Entries below 0 (an array slot never set, a failed submit) are skipped.
  void SetDeps(llvm::Value* task_args, const std::vector<ir::ExprPtr>& deps, const std::string& op) {
    std::vector<std::pair<llvm::Value*, int64_t>> sources;  // a scalar (count 0) or an array and its extent
    int64_t capacity = 0;
    for (const auto& dep : deps) {
      if (auto array = As<ir::ArrayType>(dep->type)) {
        auto extent = ir::AsConstInt(array->size);
        if (!extent || array->dtype != DataType::TASK_ID) {
          Fail(op, "deps entry " + ir::TypeToString(dep->type) + " is not an Array of TASK_ID with a constant extent",
               dep->span);
        }
        sources.push_back({EvalValue(dep), *extent});
        capacity += *extent;
      } else {
        sources.push_back({EvalScalar(dep, DataType::TASK_ID), 0});
        capacity += 1;
      }
    }
    llvm::Value* buffer = EntryAlloca(llvm::ArrayType::get(b_.getInt64Ty(), static_cast<uint64_t>(capacity)),
                                      op + ".deps");
    llvm::Value* count = b_.getInt32(0);
    for (const auto& [value, extent] : sources) {
      if (extent == 0) {
        count = AppendDep(buffer, count, value);
        continue;
      }
      for (int64_t k = 0; k < extent; ++k) {
        llvm::Value* element = b_.CreateLoad(b_.getInt64Ty(), b_.CreateConstInBoundsGEP1_64(b_.getInt64Ty(), value, k));
        count = AppendDep(buffer, count, element);
      }
    }
    b_.CreateCall(api_.set_deps, {task_args, buffer, count});
  }

  // Stores `id` at buffer[count] and counts it when it names a task.
  llvm::Value* AppendDep(llvm::Value* buffer, llvm::Value* count, llvm::Value* id) {
    b_.CreateStore(id, b_.CreateInBoundsGEP(b_.getInt64Ty(), buffer, count));
    llvm::Value* valid = b_.CreateICmpSGE(id, b_.getInt64(0));
    return b_.CreateAdd(count, b_.CreateZExt(valid, b_.getInt32Ty()));
  }

  // ------------------------------------------------------------------ ops

  llvm::Value* TensorCreate(const ir::Call& call) {
    const char* op = "tensor.create";
    auto dtype = call.kwargs.Get<DataType>("dtype");
    if (!dtype) Fail(op, "the dtype keyword is missing", call.span);
    auto layout = call.kwargs.GetEnum<ir::TensorLayout>("layout");
    if (layout && *layout != ir::TensorLayout::ND) {
      Fail(op, std::string("layout ") + ir::ToString(*layout) + " has no runtime tensor; create it ND", call.span);
    }
    if (call.kwargs.Get<bool>("manual_dep").value_or(false)) {
      Fail(op, "manual_dep=True is not lowered yet; pass the tensor with pl.no_dep(t) at each call instead",
           call.span);
    }
    if (auto init = call.kwargs.Get<double>("init_value"); init && *init != 0.0) {
      Fail(op, "init_value=" + std::to_string(*init) + ": the runtime only creates zero-filled tensors; fill it "
                                                       "in a kernel",
           call.span);
    }
    std::vector<ir::ExprPtr> shape = ListArg(call, 0, op);
    llvm::Value* dims = I64Array(shape, "shape");
    return b_.CreateCall(api_.tensor_create, {ctx_, b_.getInt32(static_cast<int32_t>(dtype->code())),
                                              b_.getInt32(static_cast<int32_t>(shape.size())), dims});
  }

  llvm::Value* TensorSlice(const ir::Call& call) {
    const char* op = "tensor.slice";
    std::vector<ir::ExprPtr> shape = ListArg(call, 1, op);
    std::vector<ir::ExprPtr> offsets = ListArg(call, 2, op);
    if (call.args.size() > 3) RequireWholeValid(call, shape);
    llvm::Value* base = EvalValue(call.args[0]);
    llvm::Value* offset_array = I64Array(offsets, "offsets");
    llvm::Value* shape_array = I64Array(shape, "shape");
    return b_.CreateCall(api_.tensor_view, {ctx_, base, b_.getInt32(static_cast<int32_t>(shape.size())),
                                            offset_array, shape_array});
  }

  // A runtime view has no valid region: the slice's valid_shape must be its shape.
  void RequireWholeValid(const ir::Call& call, const std::vector<ir::ExprPtr>& shape) {
    std::vector<ir::ExprPtr> valid = ListArg(call, 3, "tensor.slice");
    bool same = valid.size() == shape.size();
    for (size_t i = 0; same && i < valid.size(); ++i) {
      auto a = ir::AsConstInt(valid[i]);
      auto s = ir::AsConstInt(shape[i]);
      same = valid[i].get() == shape[i].get() || (a && s && *a == *s);
    }
    if (!same) {
      Fail("tensor.slice", "a valid_shape smaller than the window has no runtime view; pass the valid extents to "
                           "the kernel as scalars instead",
           call.span);
    }
  }

  llvm::Value* TensorDim(const ir::Call& call) {
    auto tensor = As<ir::TensorType>(call.args[0]->type);
    auto axis = ir::AsConstInt(call.args[1]);
    if (!tensor || !axis) Fail("tensor.dim", "takes a tensor and a constant axis", call.span);
    int64_t rank = static_cast<int64_t>(tensor->rank());
    int64_t a = *axis < 0 ? *axis + rank : *axis;
    if (a < 0 || a >= rank) Fail("tensor.dim", "axis " + std::to_string(*axis) + " is outside rank " + std::to_string(rank), call.span);
    if (auto extent = ir::AsConstInt(tensor->shape[static_cast<size_t>(a)])) return b_.getInt64(*extent);
    return b_.CreateCall(api_.tensor_dim, {EvalValue(call.args[0]), b_.getInt32(static_cast<int32_t>(a))});
  }

  // An array is an alloca of the entry block, reset where it is created:
  // TaskIds to -1 ("no task"), other elements to 0.
  llvm::Value* ArrayCreate(const ir::Call& call) {
    auto array = As<ir::ArrayType>(call.type);
    auto extent = array ? ir::AsConstInt(array->size) : std::nullopt;
    if (!extent) Fail("array.create", "the extent must be a constant", call.span);
    llvm::Type* element = ElementType(*array, call.span);
    llvm::Value* storage = EntryAlloca(llvm::ArrayType::get(element, static_cast<uint64_t>(*extent)), "array");
    int fill = array->dtype == DataType::TASK_ID ? kNoTaskByte : 0;
    uint64_t bytes = static_cast<uint64_t>(*extent) * static_cast<uint64_t>(std::max(array->dtype.get_byte(), 1));
    b_.CreateMemSet(storage, b_.getInt8(static_cast<uint8_t>(fill)), bytes, llvm::MaybeAlign(8));
    return storage;
  }

  llvm::Value* ArrayGet(const ir::Call& call) {
    auto array = As<ir::ArrayType>(call.args[0]->type);
    if (!array) Fail("array.get_element", "the first argument is not an Array", call.span);
    llvm::Type* element = ElementType(*array, call.span);
    llvm::Value* slot = b_.CreateInBoundsGEP(element, EvalValue(call.args[0]), EvalScalar(call.args[1], DataType::INT64));
    return b_.CreateLoad(element, slot);
  }

  // In place: the result is the same array.
  llvm::Value* ArrayUpdate(const ir::Call& call) {
    auto array = As<ir::ArrayType>(call.args[0]->type);
    if (!array) Fail("array.update_element", "the first argument is not an Array", call.span);
    llvm::Type* element = ElementType(*array, call.span);
    llvm::Value* storage = EvalValue(call.args[0]);
    llvm::Value* slot = b_.CreateInBoundsGEP(element, storage, EvalScalar(call.args[1], DataType::INT64));
    b_.CreateStore(EvalScalar(call.args[2], array->dtype), slot);
    return storage;
  }

  llvm::Value* TaskDummy(const ir::Call& call) {
    auto deps = call.kwargs.Get<std::vector<ir::ExprPtr>>("deps").value_or(std::vector<ir::ExprPtr>{});
    llvm::Value* task_args = b_.CreateCall(api_.args_create, {ctx_}, "join.args");
    if (!deps.empty()) SetDeps(task_args, deps, "join");
    return b_.CreateCall(api_.submit_join, {ctx_, task_args});
  }

  // ---------------------------------------------------------------- helpers

  llvm::Type* ElementType(const ir::ArrayType& array, const Span& span) {
    RequireScalarType(array.dtype, "an array element", span);
    return ScalarLLVMType(context_, array.dtype);
  }

  std::vector<ir::ExprPtr> ListArg(const ir::Call& call, size_t index, const char* op) {
    auto list = index < call.args.size() ? As<ir::MakeTuple>(call.args[index]) : nullptr;
    if (!list) Fail(op, "argument " + std::to_string(index) + " must be a list of extents", call.span);
    return list->elements;
  }

  // One i64 per value, in a buffer of the entry block (reused per iteration).
  llvm::Value* I64Array(const std::vector<ir::ExprPtr>& values, const std::string& name) {
    llvm::Value* buffer = EntryAlloca(llvm::ArrayType::get(b_.getInt64Ty(), std::max<uint64_t>(values.size(), 1)), name);
    for (size_t i = 0; i < values.size(); ++i) {
      b_.CreateStore(EvalScalar(values[i], DataType::INT64),
                     b_.CreateConstInBoundsGEP1_64(b_.getInt64Ty(), buffer, i));
    }
    return buffer;
  }

  llvm::AllocaInst* EntryAlloca(llvm::Type* type, const std::string& name) {
    llvm::IRBuilder<> at(entry_->getTerminator());
    return at.CreateAlloca(type, nullptr, name);
  }

  llvm::Type* ScalarTypeOf(const ir::Expr& expr) {
    DataType dtype = ScalarDTypeOf(expr);
    RequireScalarType(dtype, "a constant", expr.span);
    return ScalarLLVMType(context_, dtype);
  }

  DataType ScalarDTypeOf(const ir::Expr& expr) {
    auto dtype = ir::ScalarDType(expr.type);
    if (!dtype) Fail("", "a " + ir::TypeToString(expr.type) + " is used as a scalar", expr.span);
    return *dtype;
  }

  void RequireScalarType(DataType dtype, const std::string& what, const Span& span) {
    if (!ScalarLLVMType(context_, dtype)) {
      Fail("", what + " has dtype " + dtype.name() + ", which host code cannot hold; use an integer, BOOL, FP16, "
                      "BF16, FP32 or FP64 scalar",
           span);
    }
  }

  void Bind(const ir::Var& var, HostValue value) { values_[&var] = std::move(value); }

  HostValue Lookup(const ir::Var& var) {
    auto it = values_.find(&var);
    if (it == values_.end()) Fail("", "variable '" + var.name_hint + "' is used before it is defined", var.span);
    return it->second;
  }

  std::function<void(const std::string&)> ErrorAt(std::string op, Span span) {
    return [this, op = std::move(op), span = std::move(span)](const std::string& message) { Fail(op, message, span); };
  }

  [[noreturn]] void Fail(const std::string& op, const std::string& message, const Span& span) {
    const Span& where = span.known() ? span : current_span_;
    throw backend::MakeCodegenError(kBackendName, function_.name, op, message, where);
  }

  const ir::Program& program_;
  const ir::Function& function_;
  const std::map<std::string, int>& kernel_ids_;
  const backend::Platform& platform_;
  int64_t sync_start_blocks_ = 0;
  llvm::LLVMContext& context_;
  std::unique_ptr<llvm::Module> module_;
  RuntimeApi api_;
  llvm::IRBuilder<> b_;
  llvm::DIBuilder dib_;
  llvm::DISubprogram* subprogram_ = nullptr;
  llvm::Function* fn_ = nullptr;
  llvm::Value* ctx_ = nullptr;
  llvm::BasicBlock* entry_ = nullptr;
  Span current_span_;
  std::unordered_map<const ir::Var*, HostValue> values_;
  std::map<int, const ir::Function*> used_kernels_;
};

std::string Print(const llvm::Module& module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os, nullptr);
  return os.str();
}

}  // namespace

std::string VerifiedModuleText(const llvm::Module& module, const ir::Function& function) {
  std::string problems;
  llvm::raw_string_ostream os(problems);
  if (llvm::verifyModule(module, &os)) {
    ThrowInternalError("backend 'host': in function '" + function.name +
                           "': the generated orchestration module does not verify (a bug of the host backend; "
                           "please report it with the program): " +
                           os.str() + "\n" + Print(module),
                       function.span);
  }
  return Print(module);
}

std::string GenerateOrchestrationModule(const ir::Program& program, const ir::Function& function,
                                        const std::map<std::string, int>& kernel_ids,
                                        const backend::Platform& platform) {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module = OrchestrationCodegen(program, function, kernel_ids, platform, context).Build();
  return VerifiedModuleText(*module, function);
}

}  // namespace pypto::host
