#include "classify.h"

#include <optional>

#include "pypto/ir/visitor.h"
#include "pypto/ops/registry.h"
#include "pypto/support/error.h"

namespace pypto::passes::mixed {

using ir::As;
using ir::MemorySpace;
using ir::Ref;

bool IsCubeSpace(MemorySpace space) { return space != MemorySpace::Vec && space != MemorySpace::DDR; }

namespace {

std::optional<MemorySpace> TileSpace(const ir::TypePtr& type) {
  auto tile = As<ir::TileType>(type);
  return tile ? tile->memory_space : std::nullopt;
}

struct SpacesSeen {
  bool cube = false;
  bool vector = false;

  void Note(const ir::TypePtr& type) {
    auto space = TileSpace(type);
    if (!space) return;
    (IsCubeSpace(*space) ? cube : vector) = true;
  }
};

std::string Where(const ir::Function& function, const ir::Call& call) {
  return "ExpandMixedKernel: in function '" + function.name + "', op '" + call.op->name + "'";
}

class Classifier : public ir::IRVisitor {
 public:
  using IRVisitor::Visit_;

  Classifier(const ir::Function& function, Classification& out) : function_(function), out_(out) {}

  void Visit_(const Ref<ir::AssignStmt>& s) override {
    Leaf(*s, s->value, s->var);
    IRVisitor::Visit_(s);
  }

  void Visit_(const Ref<ir::EvalStmt>& s) override {
    Leaf(*s, s->expr, nullptr);
    IRVisitor::Visit_(s);
  }

  void Visit_(const Ref<ir::ForStmt>& loop) override {
    out_.homes[loop->loop_var.get()] = Home::kShared;
    for (const auto& arg : loop->iter_args) out_.homes[arg.get()] = HomeOfType(arg->type);
    for (const auto& var : loop->return_vars) out_.homes[var.get()] = HomeOfType(var->type);
    IRVisitor::Visit_(loop);
  }

  void Visit_(const Ref<ir::WhileStmt>& loop) override {
    for (const auto& arg : loop->iter_args) out_.homes[arg.get()] = HomeOfType(arg->type);
    for (const auto& var : loop->return_vars) out_.homes[var.get()] = HomeOfType(var->type);
    IRVisitor::Visit_(loop);
  }

  void Visit_(const Ref<ir::IfStmt>& s) override {
    for (const auto& var : s->return_vars) out_.homes[var.get()] = HomeOfType(var->type);
    IRVisitor::Visit_(s);
  }

  void Visit_(const Ref<ir::ScopeStmt>& s) override {
    if (s->scope_kind != ir::ScopeKind::SplitAiv) {
      throw Error(ErrorKind::kValue,
                  "ExpandMixedKernel: function '" + function_.name + "' still holds a scope at " + s->span.ToString() +
                      "; the outlining passes must run first",
                  s->span);
    }
    if (out_.manual && out_.manual_split != s->split) {
      throw Error(ErrorKind::kValue,
                  "ExpandMixedKernel: in function '" + function_.name + "', the pl.split_aiv region at " +
                      s->span.ToString() + " splits " + ir::ToString(s->split) + " but an earlier one " +
                      ir::ToString(out_.manual_split) + "; the regions of one kernel share its pipe, so give them one "
                      "mode",
                  s->span);
    }
    out_.manual = true;
    out_.manual_split = s->split;
    in_region_ = true;
    IRVisitor::Visit_(s);
    in_region_ = false;
  }

  // Vector work outside the regions of a hand-split kernel: found after the walk.
  void RequireVectorWorkInRegions() const {
    if (!out_.manual || !first_vector_outside_) return;
    throw Error(ErrorKind::kValue,
                "ExpandMixedKernel: in function '" + function_.name + "', the vector work at " +
                    first_vector_outside_->span.ToString() +
                    " is outside the pl.split_aiv regions; a kernel with regions is split by hand, so its vector "
                    "code goes inside a region (read cube values there with pl.aiv_shard(x))",
                first_vector_outside_->span);
  }

 private:
  void Leaf(const ir::Stmt& stmt, const ir::ExprPtr& value, const ir::VarPtr& result) {
    Placement placement = InRegion(stmt, PlacementOf(value, result));
    out_.leaves[&stmt] = placement;
    if (placement == Placement::kCube && !out_.first_cube) out_.first_cube = &stmt;
    if (placement == Placement::kVector && !out_.first_vector) out_.first_vector = &stmt;
    if (placement == Placement::kCubeToVector || placement == Placement::kVectorToCube) {
      out_.crossings.push_back({&stmt, As<ir::Var>(As<ir::Call>(value)->args[0]), result, placement});
      if (!out_.first_cube) out_.first_cube = &stmt;
      if (!out_.first_vector) out_.first_vector = &stmt;
    }
    if (result) out_.homes[result.get()] = HomeOfPlacement(placement, result);
  }

  // Inside a pl.split_aiv region everything is the lanes' code: scalar code too.
  Placement InRegion(const ir::Stmt& stmt, Placement placement) {
    if (!in_region_) {
      if (placement == Placement::kVector && !first_vector_outside_) first_vector_outside_ = &stmt;
      return placement;
    }
    if (placement == Placement::kCube) {
      throw Error(ErrorKind::kValue,
                  "ExpandMixedKernel: in function '" + function_.name + "', the cube work at " + stmt.span.ToString() +
                      " is inside a pl.split_aiv region, which the AIV lanes run; move it before the region and "
                      "hand its result in with pl.aiv_shard(x)",
                  stmt.span);
    }
    return placement == Placement::kShared ? Placement::kVector : placement;
  }

  Home HomeOfPlacement(Placement placement, const ir::VarPtr& result) const {
    switch (placement) {
      case Placement::kCube:
      case Placement::kVectorToCube: return Home::kCube;
      case Placement::kVector:
      case Placement::kCubeToVector: return Home::kVector;
      case Placement::kShared: return HomeOfType(result->type);
    }
    return Home::kShared;
  }

  Placement PlacementOf(const ir::ExprPtr& value, const ir::VarPtr& result) {
    if (auto var = As<ir::Var>(value)) return PlacementOfHome(out_.HomeOf(var.get()));
    auto call = As<ir::Call>(value);
    if (!call) return Placement::kShared;
    if (call->is_function_call()) {
      throw Error(ErrorKind::kValue,
                  "ExpandMixedKernel: function '" + function_.name + "' calls function '" + call->callee_name() +
                      "'; a kernel calls no functions (InlineFunctions splices pl.inline helpers in)",
                  call->span);
    }
    RejectPipeOp(*call);
    SpacesSeen seen;
    for (const auto& arg : call->args) {
      if (auto var = As<ir::Var>(arg)) seen.Note(var->type);
    }
    if (result) seen.Note(result->type);
    if (seen.cube && seen.vector) return Crossing(*call);
    if (seen.cube) return Placement::kCube;
    if (seen.vector) return Placement::kVector;
    return Placement::kShared;
  }

  static Placement PlacementOfHome(Home home) {
    switch (home) {
      case Home::kCube: return Placement::kCube;
      case Home::kVector: return Placement::kVector;
      case Home::kShared: return Placement::kShared;
    }
    return Placement::kShared;
  }

  Placement Crossing(const ir::Call& call) const {
    auto source = call.args.empty() ? nullptr : As<ir::Var>(call.args[0]);
    // DDR stands for "no tile" here: neither core's space.
    MemorySpace from = source ? TileSpace(source->type).value_or(MemorySpace::DDR) : MemorySpace::DDR;
    MemorySpace to = TileSpace(call.type).value_or(MemorySpace::DDR);
    if (call.op->name == "tile.aiv_shard") return Placement::kCubeToVector;
    if (call.op->name == "tile.aic_gather") return Placement::kVectorToCube;
    if (call.op->name == "tile.move" && from != MemorySpace::DDR && to != MemorySpace::DDR) {
      if (IsCubeSpace(from) && to == MemorySpace::Vec) return Placement::kCubeToVector;
      if (from == MemorySpace::Vec && IsCubeSpace(to)) return Placement::kVectorToCube;
    }
    throw Error(ErrorKind::kValue,
                Where(function_, call) +
                    " takes tiles of both the cube core (Mat, Left, Right, Acc, Bias) and a vector core (Vec); "
                    "in a mixed kernel each op runs on one core and only tile.move crosses between them: move the "
                    "operand to the other core's space first",
                call.span);
  }

  void RejectPipeOp(const ir::Call& call) const {
    const ops::OpDef* def = ops::OpRegistry::Global().Find(call.op->name);
    if (!def || def->category() != ops::OpCategory::kCrossCoreOp) return;
    throw Error(ErrorKind::kValue,
                Where(function_, call) +
                    " is a hand-written cross-core pipe op, but this is an InCore function, whose pipes "
                    "ExpandMixedKernel builds itself; write the AIC and AIV kernels and their Group by hand "
                    "(@pl.function(type=pl.FunctionType.AIC/AIV/Group)) to drive the pipe yourself",
                call.span);
  }

  const ir::Function& function_;
  Classification& out_;
  bool in_region_ = false;
  const ir::Stmt* first_vector_outside_ = nullptr;
};

}  // namespace

Home Classification::HomeOf(const ir::Var* var) const {
  auto it = homes.find(var);
  return it == homes.end() ? Home::kShared : it->second;
}

Home HomeOfType(const ir::TypePtr& type) {
  auto space = TileSpace(type);
  if (!space) return Home::kShared;
  return IsCubeSpace(*space) ? Home::kCube : Home::kVector;
}

const char* HomeName(Home home) {
  switch (home) {
    case Home::kCube: return "cube";
    case Home::kVector: return "vector";
    case Home::kShared: return "shared";
  }
  return "shared";
}

Classification Classify(const ir::Function& function) {
  Classification out;
  for (const auto& param : function.params) out.homes[param.get()] = HomeOfType(param->type);
  Classifier classifier(function, out);
  if (function.body) classifier.VisitStmt(function.body);
  classifier.RequireVectorWorkInRegions();
  return out;
}

}  // namespace pypto::passes::mixed
