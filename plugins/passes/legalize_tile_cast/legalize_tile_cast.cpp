#include "legalize_tile_cast.h"

#include <cctype>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cast_chain.h"
#include "pypto/ir/mutator.h"
#include "pypto/ops/registry.h"
#include "pypto/pass/context.h"
#include "pypto/support/error.h"
#include "pypto/support/strings.h"

namespace pypto::passes {

using ir::As;
using ir::DataType;
using ir::ExprPtr;
using ir::Ref;
using ir::StmtPtr;
using ir::VarPtr;

namespace {

constexpr const char* kPass = "LegalizeTileCast";
constexpr const char* kCastOp = "tile.cast";

Ref<ir::Call> AsTileCast(const ExprPtr& expr) {
  auto call = As<ir::Call>(expr);
  if (!call || call->is_function_call() || call->op->name != kCastOp || call->args.empty()) return nullptr;
  return call;
}

std::optional<DataType> TileDType(const ExprPtr& expr) {
  auto tile = As<ir::TileType>(expr->type);
  if (!tile) return std::nullopt;
  return tile->dtype;
}

std::string LowerName(DataType dtype) {
  std::string name = dtype.name();
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

std::string DTypeList(const std::vector<DataType>& dtypes) {
  return JoinMapped(dtypes, ", ", [](DataType d) { return std::string(d.name()); });
}

// The platforms whose description lists `dtype`, for the hint of an error.
std::vector<std::string> PlatformsWith(DataType dtype) {
  std::vector<std::string> names;
  for (const auto& name : backend::Platform::Names()) {
    if (backend::Platform::Get(name).SupportsDType(dtype)) names.push_back(name);
  }
  return names;
}

// One instruction of a legalized cast: a native cast to `dtype`, or a
// bitwise op with a constant that wraps an integer into the target's range.
struct Step {
  std::string name;  // of its result, when it is bound to one
  std::string op;
  DataType dtype;    // tile.cast: the target; the bitwise ops: the dtype they work in
  int64_t constant;  // the bitwise ops: the scalar operand
};

// The instructions of `plan` for a cast whose result is named `name`. The
// wrap keeps the low bits of the target's width: an AND with the mask for
// an unsigned target; for a signed one a left shift that puts the target's
// sign bit into the wrapping dtype's, and an arithmetic right shift back.
std::vector<Step> StepsOf(const CastPlan& plan, DataType to, const std::string& name) {
  std::vector<Step> steps;
  for (DataType dtype : plan.chain) steps.push_back({name + "_" + LowerName(dtype), kCastOp, dtype, 0});
  if (!plan.wrap_in) return steps;
  const std::string wrapped = name + "_wrapped";
  if (to.is_unsigned_int()) {
    steps.push_back({wrapped, "tile.ands", *plan.wrap_in, (int64_t{1} << to.bits()) - 1});
  } else {
    const int64_t shift = plan.wrap_in->bits() - to.bits();
    steps.push_back({name + "_shl", "tile.shls", *plan.wrap_in, shift});
    steps.push_back({wrapped, "tile.shrs", *plan.wrap_in, shift});
  }
  for (DataType dtype : plan.after_wrap) steps.push_back({wrapped + "_" + LowerName(dtype), kCastOp, dtype, 0});
  return steps;
}

class CastLegalizer : public ir::IRMutator {
 public:
  using IRMutator::Mutate_;

  CastLegalizer(const ir::Function& function, const backend::Platform& platform)
      : function_(function), platform_(platform) {}

  // A cast bound to a name: its intermediate tiles are named after it.
  StmtPtr Mutate_(const Ref<ir::AssignStmt>& node) override {
    auto cast = AsTileCast(node->value);
    if (!cast) return IRMutator::Mutate_(node);
    ExprPtr source = VisitExpr(cast->args[0]);
    std::optional<std::vector<Step>> steps = StepsFor(*cast, source, node->var->name_hint);
    if (!steps || IsNative(*steps)) return IRMutator::Mutate_(node);
    if (steps->empty()) {
      // A cast to the source's own dtype: later uses read the source.
      if (auto source_var = As<ir::Var>(source)) {
        Remap(node->var, source_var);
        return ir::SeqStmts::Make({}, node->span);
      }
      return ir::AssignStmt::Make(node->var, source, node->span);
    }
    std::vector<StmtPtr> stmts;
    ExprPtr value = source;
    for (size_t i = 0; i + 1 < steps->size(); ++i) {
      ExprPtr step = Apply(*cast, (*steps)[i], value);
      auto intermediate = ir::Var::Make((*steps)[i].name, step->type, node->var->span);
      stmts.push_back(ir::AssignStmt::Make(intermediate, step, node->span));
      value = intermediate;
    }
    stmts.push_back(ir::AssignStmt::Make(node->var, Apply(*cast, steps->back(), value), node->span));
    return ir::SeqStmts::Make(std::move(stmts), node->span);
  }

  // A cast nested in another expression becomes nested instructions.
  ExprPtr Mutate_(const Ref<ir::Call>& node) override {
    ExprPtr visited = IRMutator::Mutate_(node);
    auto cast = AsTileCast(visited);
    if (!cast) return visited;
    std::optional<std::vector<Step>> steps = StepsFor(*cast, cast->args[0], "");
    if (!steps || IsNative(*steps)) return visited;
    ExprPtr value = cast->args[0];
    for (const Step& step : *steps) value = Apply(*cast, step, value);
    return value;
  }

  // Splices the statements a cast became into the enclosing sequence.
  StmtPtr Mutate_(const Ref<ir::SeqStmts>& node) override {
    return MutateSplicingStatements(node);
  }

 private:
  static bool IsNative(const std::vector<Step>& steps) { return steps.size() == 1 && steps[0].op == kCastOp; }

  // The instructions the cast of `source` becomes (empty: an identity
  // cast), or nullopt when the cast is not one of a tile.
  std::optional<std::vector<Step>> StepsFor(const ir::Call& cast, const ExprPtr& source,
                                            const std::string& result) const {
    std::optional<DataType> from = TileDType(source);
    auto to = cast.kwargs.Get<DataType>("target_type");
    if (!from || !to) return std::nullopt;
    if (*from == *to) return std::vector<Step>{};
    for (DataType dtype : {*from, *to}) {
      if (!platform_.SupportsDType(dtype)) UnsupportedDType(cast, result, *from, *to, dtype);
    }
    std::optional<CastPlan> plan = PlanCast(platform_, *from, *to);
    if (!plan) NoChain(cast, result, *from, *to);
    return StepsOf(*plan, *to, result);
  }

  // One instruction of the cast. Every cast hop rounds in the cast's mode:
  // only hops that cannot hold a value exactly round, and rounding each of
  // them in the requested direction keeps floor, ceil and trunc results
  // exact. The bitwise ops are exact.
  ExprPtr Apply(const ir::Call& cast, const Step& step, const ExprPtr& value) const {
    if (step.op != kCastOp) {
      ExprPtr constant = ir::ConstInt::Make(step.constant, DataType::INDEX, cast.span);
      return ops::OpRegistry::Global().Create(step.op, {value, constant}, {}, cast.span);
    }
    ir::Attrs kwargs = cast.kwargs;
    kwargs.Set("target_type", step.dtype);
    return ops::OpRegistry::Global().Create(kCastOp, {value}, std::move(kwargs), cast.span);
  }

  std::string Where(const ir::Call& cast, const std::string& result) const {
    std::string where = std::string(kPass) + ": in function '" + function_.name + "', the " + kCastOp;
    if (!result.empty()) where += " that defines '" + result + "'";
    if (cast.span.known()) where += " (line " + std::to_string(cast.span.begin_line) + ")";
    return where;
  }

  std::string PlatformName() const {
    return "platform '" + platform_.name + "' (platforms/" + platform_.soc + ".yaml)";
  }

  [[noreturn]] void UnsupportedDType(const ir::Call& cast, const std::string& result, DataType from, DataType to,
                                     DataType missing) const {
    std::vector<std::string> others = PlatformsWith(missing);
    throw Error(ErrorKind::kValue,
                Where(cast, result) + " converts " + from.name() + " to " + to.name() + ", but " + PlatformName() +
                    " does not compute on " + missing.name() + "; its dtypes are " + DTypeList(platform_.dtypes) +
                    ". Use one of those" +
                    (others.empty() ? std::string()
                                    : ", or compile for a platform that has " + std::string(missing.name()) + " (" +
                                          Join(others, ", ") + ")"),
                cast.span);
  }

  [[noreturn]] void NoChain(const ir::Call& cast, const std::string& result, DataType from, DataType to) const {
    std::vector<DataType> direct = DirectCastTargets(platform_, from);
    std::vector<DataType> chained = ChainedCastTargets(platform_, from);
    std::string available;
    if (direct.empty()) {
      available = std::string(from.name()) + " has no native cast at all there";
    } else {
      available = std::string(from.name()) + " casts directly to " + DTypeList(direct);
      if (!chained.empty()) available += ", and through chains of native casts to " + DTypeList(chained);
    }
    throw Error(ErrorKind::kValue,
                Where(cast, result) + " converts " + from.name() + " to " + to.name() + ", which " + PlatformName() +
                    " cannot do: no chain of its native casts (`casts:`) leads from " + from.name() + " to " +
                    to.name() + ". " + available + "; cast to one of those instead, or compute in another dtype",
                cast.span);
  }

  const ir::Function& function_;
  const backend::Platform& platform_;
};

}  // namespace

ir::ProgramPtr LegalizeTileCastPass::Run(const ir::ProgramPtr& program, pass::PassContext& ctx) {
  return ir::MapFunctions(program, [&](const ir::FunctionPtr& f) {
    return ir::IsCoreKernel(f->func_type) ? CastLegalizer(*f, ctx.platform()).VisitFunction(f) : f;
  });
}

}  // namespace pypto::passes
