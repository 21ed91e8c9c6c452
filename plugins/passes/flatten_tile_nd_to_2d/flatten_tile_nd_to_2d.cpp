#include "flatten_tile_nd_to_2d.h"

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "pypto/ir/mutator.h"
#include "pypto/ir/visitor.h"
#include "pypto/ops/registry.h"
#include "pypto/support/error.h"

namespace pypto::passes {

using ir::As;
using ir::ExprPtr;
using ir::Ref;
using ir::StmtPtr;
using ir::TypePtr;
using ir::Var;
using ir::VarPtr;

namespace {

constexpr const char* kPass = "FlattenTileNdTo2D";

// Ops whose operands name positions per dim (offsets, axes) or that reduce
// along the first dim: on a flattened tile those would mean something else.
const std::set<std::string> kDimIndexedOps = {"tile.slice", "tile.extract",   "tile.assemble", "tile.read",
                                              "tile.write", "tile.transpose", "tile.concat",   "tile.set_validshape"};

Ref<ir::TileType> TileTypeOf(const TypePtr& type) { return As<ir::TileType>(type); }

bool NeedsFlattening(const TypePtr& type) {
  auto tile = TileTypeOf(type);
  return tile && tile->rank() != 2;
}

// Whether a kernel has a tile of another rank than 2. Kernels that have none
// are left as they are: rewriting their ops would re-deduce every tile type
// and drop what later passes recorded in it (memory spaces, MemRefs).
class FindsNdTile : public ir::IRVisitor {
 public:
  bool found = false;
  void VisitVarDef(const VarPtr& var) override {
    found |= NeedsFlattening(var->type);
    IRVisitor::VisitVarDef(var);
  }
};

bool HasNdTiles(const ir::FunctionPtr& f) {
  FindsNdTile finder;
  finder.VisitFunction(f);
  return finder.found;
}

std::string ShapeText(const std::vector<ExprPtr>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) text += ", ";
    auto v = ir::AsConstInt(shape[i]);
    text += v ? std::to_string(*v) : std::string(As<Var>(shape[i]) ? As<Var>(shape[i])->name_hint : "?");
  }
  return text + "]";
}

ExprPtr IndexList(const std::vector<int64_t>& values) { return ir::MakeTuple::Make(ir::Ints(values)); }

class Flattener : public ir::IRMutator {
 public:
  using IRMutator::Mutate_;

  explicit Flattener(const ir::Function& f) : f_(f) {}

  // Loop carries and if-phis of ND tiles get their 2D type.
  VarPtr VisitVarDef(const VarPtr& var) override {
    auto iter_arg = As<ir::IterArg>(var);
    ExprPtr init = iter_arg && iter_arg->init_value ? VisitExpr(iter_arg->init_value) : nullptr;
    TypePtr type = NeedsFlattening(var->type) ? FlatType(var->type, var->name_hint, var->span) : var->type;
    if (type == var->type && (!iter_arg || init == iter_arg->init_value)) return var;
    VarPtr fresh = iter_arg ? VarPtr(ir::IterArg::Make(var->name_hint, type, init, var->span))
                            : VarPtr(Var::Make(var->name_hint, type, var->span));
    Remap(var, fresh);
    return fresh;
  }

  StmtPtr Mutate_(const Ref<ir::AssignStmt>& node) override {
    auto call = As<ir::Call>(node->value);
    if (!call || call->is_function_call() || call->op->name.rfind("tile.", 0) != 0) {
      return IRMutator::Mutate_(node);
    }
    std::vector<StmtPtr> stmts;
    ExprPtr value = Rewrite(*call, node->var, stmts);
    VarPtr var = Var::Make(node->var->name_hint, value->type, node->var->span);
    Remap(node->var, var);
    stmts.push_back(ir::AssignStmt::Make(var, value, node->span));
    return stmts.size() == 1 ? stmts.front() : ir::SeqStmts::Make(std::move(stmts), node->span);
  }

  StmtPtr Mutate_(const Ref<ir::EvalStmt>& node) override {
    auto call = As<ir::Call>(node->expr);
    if (!call || call->is_function_call() || call->op->name.rfind("tile.", 0) != 0) {
      return IRMutator::Mutate_(node);
    }
    std::vector<StmtPtr> stmts;
    ExprPtr value = Rewrite(*call, nullptr, stmts);
    stmts.push_back(ir::EvalStmt::Make(value, node->span));
    return stmts.size() == 1 ? stmts.front() : ir::SeqStmts::Make(std::move(stmts), node->span);
  }

  StmtPtr Mutate_(const Ref<ir::SeqStmts>& node) override {
    return MutateSplicingStatements(node);
  }

 private:
  // The [rows, cols] a tile of `type` flattens to: leading dims merged, the
  // last kept; rank 1 gives [1, N]. Every dim must be static.
  std::vector<int64_t> FlatShape(const TypePtr& type, const std::string& name, const Span& span) const {
    auto tile = TileTypeOf(type);
    auto shape = ir::StaticShape(tile->shape);
    if (!shape) {
      throw Error(ErrorKind::kValue,
                  std::string(kPass) + ": in function '" + f_.name + "', tile '" + name + "' has shape " +
                      ShapeText(tile->shape) +
                      " with a dynamic dim, so its leading dims cannot be merged into one static row count; give "
                      "the tile static extents (load a fixed-size window, with valid_shape for the dynamic part)",
                  span);
    }
    if (shape->size() == 1) return {1, (*shape)[0]};
    int64_t rows = 1;
    for (size_t i = 0; i + 1 < shape->size(); ++i) rows *= (*shape)[i];
    return {rows, shape->back()};
  }

  TypePtr FlatType(const TypePtr& type, const std::string& name, const Span& span) const {
    auto tile = TileTypeOf(type);
    std::vector<int64_t> flat = FlatShape(type, name, span);
    if (!tile->valid_shape.empty() && tile->valid_shape != tile->shape) {
      throw Error(ErrorKind::kValue,
                  std::string(kPass) + ": in function '" + f_.name + "', tile '" + name + "' of shape " +
                      ShapeText(tile->shape) + " is valid only on " + ShapeText(tile->valid_shape) +
                      ", which is not a block of rows of its 2D form; fill it with tile.fillpad first",
                  span);
    }
    auto copy = std::make_shared<ir::TileType>(*tile);
    copy->shape = ir::Ints(flat);
    copy->valid_shape.clear();
    return copy;
  }

  ExprPtr Create(const std::string& op, std::vector<ExprPtr> args, ir::Attrs kwargs, const Span& span) const {
    return ops::OpRegistry::Global().Create(op, std::move(args), std::move(kwargs), span);
  }

  ExprPtr Rewrite(const ir::Call& call, const VarPtr& result, std::vector<StmtPtr>& stmts) {
    const std::string& op = call.op->name;
    std::vector<ExprPtr> args;
    for (const auto& arg : call.args) args.push_back(VisitExpr(arg));
    if (op == "tile.load") return FlattenLoad(call, args, result, stmts);
    if (op == "tile.store") return StoreFromFlat(call, args, stmts);
    RejectDimIndexed(call);
    const std::string name = result ? result->name_hint : op;
    if ((op == "tile.create" || op == "tile.full" || op == "tile.reshape") && NeedsFlattening(call.type)) {
      size_t shape_arg = op == "tile.reshape" ? 1 : 0;
      args[shape_arg] = IndexList(FlatShape(call.type, name, call.span));
    }
    return Create(op, std::move(args), call.kwargs, call.span);
  }

  // The load keeps its ND window (so its GM offsets stay right) and is
  // reshaped to 2D at once.
  ExprPtr FlattenLoad(const ir::Call& call, std::vector<ExprPtr> args, const VarPtr& result,
                      std::vector<StmtPtr>& stmts) {
    ExprPtr load = Create("tile.load", std::move(args), call.kwargs, call.span);
    if (!NeedsFlattening(load->type) || !result) return load;
    std::vector<int64_t> flat = FlatShape(load->type, result->name_hint, call.span);
    VarPtr nd = Var::Make(result->name_hint + "_nd", load->type, call.span);
    stmts.push_back(ir::AssignStmt::Make(nd, load, call.span));
    return Create("tile.reshape", {nd, IndexList(flat)}, {}, call.span);
  }

  // A flattened tile is reshaped back to its ND form right before the store.
  ExprPtr StoreFromFlat(const ir::Call& call, std::vector<ExprPtr> args, std::vector<StmtPtr>& stmts) {
    auto original = TileTypeOf(call.args[0]->type);
    auto now = TileTypeOf(args[0]->type);
    if (original && now && original->rank() != now->rank()) {
      auto shape = ir::StaticShape(original->shape);
      std::string name = As<Var>(call.args[0]) ? As<Var>(call.args[0])->name_hint : "tile";
      ExprPtr reshape = Create("tile.reshape", {args[0], IndexList(*shape)}, {}, call.span);
      VarPtr nd = Var::Make(name + "_nd", reshape->type, call.span);
      stmts.push_back(ir::AssignStmt::Make(nd, reshape, call.span));
      args[0] = nd;
    }
    return Create("tile.store", std::move(args), call.kwargs, call.span);
  }

  void RejectDimIndexed(const ir::Call& call) const {
    const std::string& op = call.op->name;
    bool indexed = kDimIndexedOps.count(op) > 0 || op.rfind("tile.col_", 0) == 0;
    if (!indexed) return;
    for (const auto& arg : call.args) {
      auto tile = TileTypeOf(arg->type);
      if (!tile || tile->rank() <= 2) continue;
      std::string name = As<Var>(arg) ? "'" + As<Var>(arg)->name_hint + "' " : std::string();
      throw Error(ErrorKind::kValue,
                  std::string(kPass) + ": in function '" + f_.name + "', " + op + " works on tile " + name +
                      "of shape " + ShapeText(tile->shape) +
                      " along its dims, which its 2D form [rows, cols] no longer has; apply it to the tensor "
                      "before loading (slice the tensor window you need), or load 2D tiles",
                  call.span);
    }
  }

  const ir::Function& f_;
};

}  // namespace

ir::ProgramPtr FlattenTileNdTo2DPass::Run(const ir::ProgramPtr& program, pass::PassContext& /*ctx*/) {
  return ir::MapFunctions(program, [](const ir::FunctionPtr& f) {
    return ir::IsCoreKernel(f->func_type) && HasNdTiles(f) ? Flattener(*f).VisitFunction(f) : f;
  });
}

}  // namespace pypto::passes
