#include "vector_split.h"

#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "pypto/ir/mutator.h"
#include "pypto/ops/registry.h"
#include "pypto/support/error.h"

namespace pypto::passes::mixed {

using ir::As;
using ir::ExprPtr;
using ir::Ref;
using ir::StmtPtr;
using ir::TypePtr;
using ir::VarPtr;

namespace {

// Ops that read or place elements by position, whose lane half would not be
// the half of the whole result.
const std::set<std::string>& PositionalOps() {
  static const std::set<std::string> ops = {
      "tile.slice",  "tile.extract",   "tile.assemble",  "tile.concat",    "tile.reshape",
      "tile.transpose", "tile.set_validshape", "tile.read", "tile.write", "tile.remote_load",
      "tile.remote_store", "tile.alloc"};
  return ops;
}

bool ReducesRows(const std::string& op) {  // along the columns axis (1)
  return op == "tile.row_sum" || op == "tile.row_max" || op == "tile.row_min" || op == "tile.row_prod" ||
         op == "tile.row_argmax" || op == "tile.row_argmin";
}

bool ReducesColumns(const std::string& op) {  // along the rows axis (0)
  return op == "tile.col_sum" || op == "tile.col_max" || op == "tile.col_min" || op == "tile.col_prod" ||
         op == "tile.col_argmax" || op == "tile.col_argmin";
}

class LaneSplitter : public ir::IRMutator {
 public:
  LaneSplitter(ir::SplitMode mode, std::string function, std::string kernel)
      : axis_(mode == ir::SplitMode::UpDown ? 0 : 1), function_(std::move(function)), kernel_(std::move(kernel)) {}

  StmtPtr Run(const StmtPtr& body, const Span& span) {
    auto lane_call = ops::OpRegistry::Global().Create("tile.get_subblock_idx", {}, {}, span);
    lane_ = ir::Var::Make("lane", lane_call->type, span);
    std::vector<StmtPtr> stmts{ir::AssignStmt::Make(lane_, lane_call, span)};
    StmtPtr rewritten = VisitStmt(body);
    for (const auto& stmt : ir::Flatten(rewritten)) stmts.push_back(stmt);
    return ir::SeqStmts::Make(std::move(stmts), body->span);
  }

  StmtPtr Mutate_(const Ref<ir::AssignStmt>& s) override {
    ExprPtr value = Rewrite(s->value);
    if (value == s->value) return s;
    VarPtr var = s->var;
    if (value->type != var->type) {
      var = ir::Var::Make(var->name_hint, value->type, var->span);
      Remap(s->var, var);
    }
    return ir::AssignStmt::Make(var, value, s->span);
  }

  StmtPtr Mutate_(const Ref<ir::EvalStmt>& s) override {
    ExprPtr value = Rewrite(s->expr);
    return value == s->expr ? s : ir::EvalStmt::Make(value, s->span);
  }

  VarPtr VisitVarDef(const VarPtr& var) override {
    auto iter_arg = As<ir::IterArg>(var);
    if (!iter_arg) return var;
    ExprPtr init = VisitExpr(iter_arg->init_value);
    if (init == iter_arg->init_value) return var;
    auto rebuilt = ir::IterArg::Make(iter_arg->name_hint, init->type, init, iter_arg->span);
    Remap(var, rebuilt);
    return rebuilt;
  }

  StmtPtr Mutate_(const Ref<ir::ForStmt>& loop) override {
    auto rebuilt = As<ir::ForStmt>(IRMutator::Mutate_(loop));
    return WithReturnTypes(rebuilt, rebuilt->iter_args);
  }

  StmtPtr Mutate_(const Ref<ir::WhileStmt>& loop) override {
    auto rebuilt = As<ir::WhileStmt>(IRMutator::Mutate_(loop));
    return WithReturnTypes(rebuilt, rebuilt->iter_args);
  }

  StmtPtr Mutate_(const Ref<ir::IfStmt>& branch) override {
    auto rebuilt = As<ir::IfStmt>(IRMutator::Mutate_(branch));
    std::vector<StmtPtr> then_stmts = ir::Flatten(rebuilt->then_body);
    auto yield = then_stmts.empty() ? nullptr : As<ir::YieldStmt>(then_stmts.back());
    if (!yield) return rebuilt;
    return WithReturnTypes(rebuilt, yield->values);
  }

 private:
  // Return vars take the types of what flows into them (iter_args, yields).
  template <class Node, class Sources>
  StmtPtr WithReturnTypes(const Ref<Node>& node, const Sources& sources) {
    auto copy = std::make_shared<Node>(*node);
    bool changed = false;
    for (size_t i = 0; i < copy->return_vars.size() && i < sources.size(); ++i) {
      const VarPtr& var = copy->return_vars[i];
      if (var->type == sources[i]->type) continue;
      auto retyped = ir::Var::Make(var->name_hint, sources[i]->type, var->span);
      Remap(var, retyped);
      copy->return_vars[i] = retyped;
      changed = true;
    }
    return changed ? StmtPtr(copy) : StmtPtr(node);
  }

  // ---------------------------------------------------------------- calls

  ExprPtr Rewrite(const ExprPtr& value) {
    auto call = As<ir::Call>(value);
    if (!call || call->is_function_call()) return VisitExpr(value);
    bool split_in = false;
    for (const auto& arg : call->args) split_in |= Halves(arg->type, call->span);
    bool split_out = Halves(call->type, call->span);
    if (!split_in && !split_out) return VisitExpr(value);
    RequireLaneLocal(*call);
    std::vector<ExprPtr> args;
    for (const auto& arg : call->args) args.push_back(VisitExpr(arg));
    const std::string& name = call->op->name;
    if (name == "tile.load") {
      if (args.size() > 3) Reject(*call, "gives a valid_shape; a split load reads its lane's whole half");
      args[1] = Shifted(args[1], Extent(call->type) / 2);
      args[2] = Halved(args[2]);
    } else if (name == "tile.store") {
      args[1] = Shifted(args[1], Extent(call->args[0]->type) / 2);
    } else if (name == "tile.create" || name == "tile.full" || name == "tile.tpop_from_aic") {
      args[0] = Halved(args[0]);
    }
    try {
      return ops::OpRegistry::Global().Create(name, std::move(args), call->kwargs, call->span);
    } catch (const Error& e) {
      Reject(*call, std::string("cannot work on the lane's halves: ") + e.what());
    }
  }

  // Whether a value of `type` is halved: a Vec tile longer than 1 along the axis.
  bool Halves(const TypePtr& type, const Span& span) const {
    auto tile = As<ir::TileType>(type);
    if (!tile || tile->memory_space != ir::MemorySpace::Vec || tile->rank() != 2) return false;
    auto extent = ir::AsConstInt(tile->shape[axis_]);
    if (!extent) Fail("the vector tile " + ir::TypeToString(type) + " has a dynamic number of " + AxisName(), span);
    if (*extent <= 1) return false;
    if (*extent % 2 != 0) {
      Fail("the vector tile " + ir::TypeToString(type) + " has " + std::to_string(*extent) + " " + AxisName() +
               ", an odd number (each lane takes half)",
           span);
    }
    if (!tile->valid_shape.empty()) {
      auto valid = ir::AsConstInt(tile->valid_shape[axis_]);
      if (!valid || *valid != *extent) {
        Fail("the vector tile " + ir::TypeToString(type) + " is valid only in part along its " + AxisName() +
                 " (a split halves whole tiles)",
             span);
      }
    }
    return true;
  }

  int64_t Extent(const TypePtr& type) const {
    return *ir::AsConstInt(As<ir::TileType>(type)->shape[axis_]);
  }

  void RequireLaneLocal(const ir::Call& call) const {
    const std::string& name = call.op->name;
    if (PositionalOps().count(name)) Reject(call, "places or reads elements by position");
    if (axis_ == 1 && ReducesRows(name)) Reject(call, "reduces along the rows, across both lanes' halves");
    if (axis_ == 0 && ReducesColumns(name)) Reject(call, "reduces along the columns, across both lanes' halves");
  }

  ExprPtr Shifted(const ExprPtr& list, int64_t half) const {
    auto tuple = As<ir::MakeTuple>(list);
    std::vector<ExprPtr> dims = tuple->elements;
    const ExprPtr& base = dims[static_cast<size_t>(axis_)];
    auto step = ir::BinaryExpr::Make(ir::BinaryOp::Mul, lane_, ir::ConstInt::Make(half, ir::DataType::INDEX, list->span),
                                     list->span);
    dims[static_cast<size_t>(axis_)] = ir::BinaryExpr::Make(ir::BinaryOp::Add, base, step, list->span);
    return ir::MakeTuple::Make(std::move(dims), list->span);
  }

  ExprPtr Halved(const ExprPtr& list) const {
    auto tuple = As<ir::MakeTuple>(list);
    std::vector<ExprPtr> dims = tuple->elements;
    auto& dim = dims[static_cast<size_t>(axis_)];
    dim = ir::ConstInt::Make(*ir::AsConstInt(dim) / 2, ir::DataType::INDEX, dim->span);
    return ir::MakeTuple::Make(std::move(dims), list->span);
  }

  std::string AxisName() const { return axis_ == 0 ? "rows" : "columns"; }
  std::string ModeName() const { return axis_ == 0 ? "UP_DOWN" : "LEFT_RIGHT"; }

  [[noreturn]] void Reject(const ir::Call& call, const std::string& why) const {
    Fail("op '" + call.op->name + "' " + why, call.span);
  }

  [[noreturn]] void Fail(const std::string& what, const Span& span) const {
    throw Error(ErrorKind::kValue,
                "ExpandMixedKernel: in function '" + function_ + "', pl.split(pl.SplitMode." + ModeName() +
                    ") halves the vector work between the two AIV lanes of kernel '" + kernel_ + "' by " +
                    AxisName() + ", but at " + span.ToString() + " " + what +
                    "; keep such work out of the split kernel, or use pl.split(pl.SplitMode." +
                    (axis_ == 0 ? "LEFT_RIGHT" : "UP_DOWN") + ") or no split",
                span);
  }

  int axis_;
  std::string function_;
  std::string kernel_;
  VarPtr lane_;
};

}  // namespace

StmtPtr SplitVectorWork(const StmtPtr& body, ir::SplitMode mode, const std::string& function,
                        const std::string& kernel) {
  return LaneSplitter(mode, function, kernel).Run(body, body->span);
}

}  // namespace pypto::passes::mixed
