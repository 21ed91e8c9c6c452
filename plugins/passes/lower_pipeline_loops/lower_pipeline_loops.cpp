#include "lower_pipeline_loops.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <optional>
#include <utility>
#include <variant>
#include <vector>

#include "pypto/ir/fresh_copy.h"
#include "pypto/ir/mutator.h"
#include "pypto/support/error.h"

namespace pypto::passes {

using ir::As;
using ir::BinaryOp;
using ir::ExprPtr;
using ir::Ref;
using ir::StmtPtr;
using ir::VarPtr;

namespace {

constexpr const char* kPass = "LowerPipelineLoops";
constexpr const char* kStageAttr = "stage";
constexpr const char* kGroupedStagesAttr = "pipeline_stages";

bool IsAtomic(const ExprPtr& e) {
  return ir::IsA<ir::Var>(e) || ir::IsA<ir::ConstInt>(e) || ir::IsA<ir::ConstFloat>(e) || ir::IsA<ir::ConstBool>(e);
}

uint64_t TripCount(int64_t start, int64_t stop, int64_t step) {
  // Unsigned differences: the distance between two int64 values can exceed INT64_MAX.
  if (step > 0 ? start >= stop : start <= stop) return 0;
  const uint64_t distance = step > 0 ? static_cast<uint64_t>(stop) - static_cast<uint64_t>(start)
                                     : static_cast<uint64_t>(start) - static_cast<uint64_t>(stop);
  const uint64_t stride = step > 0 ? static_cast<uint64_t>(step) : static_cast<uint64_t>(-(step + 1)) + 1;
  return distance / stride + (distance % stride != 0 ? 1 : 0);
}

// Folds integer arithmetic on literals. A copy whose loop variable became a
// literal would otherwise hold `4 * 16` where the printed program, read
// back, holds `64`.
class LiteralFolder : public ir::IRMutator {
 public:
  using IRMutator::Mutate_;

  ExprPtr Mutate_(const Ref<ir::BinaryExpr>& node) override {
    ExprPtr visited = IRMutator::Mutate_(node);
    auto binary = As<ir::BinaryExpr>(visited);
    if (!binary) return visited;
    auto lhs = ir::AsConstInt(binary->lhs);
    auto rhs = ir::AsConstInt(binary->rhs);
    if (!lhs || !rhs) return visited;
    if (ir::IsComparison(binary->op)) return ir::ConstBool::Make(Compare(binary->op, *lhs, *rhs), binary->span);
    auto dtype = ir::ScalarDType(binary->type);
    std::optional<int64_t> value = Evaluate(binary->op, *lhs, *rhs);
    if (!value || !dtype || !dtype->is_int()) return visited;
    return ir::ConstInt::Make(*value, *dtype, binary->span);
  }

 private:
  static bool Compare(BinaryOp op, int64_t a, int64_t b) {
    switch (op) {
      case BinaryOp::Eq: return a == b;
      case BinaryOp::Ne: return a != b;
      case BinaryOp::Lt: return a < b;
      case BinaryOp::Le: return a <= b;
      case BinaryOp::Gt: return a > b;
      default: return a >= b;
    }
  }

  // Python semantics (floor division and modulo); nullopt on overflow,
  // division by zero or an operator that is not plain integer arithmetic.
  static std::optional<int64_t> Evaluate(BinaryOp op, int64_t a, int64_t b) {
    int64_t result = 0;
    switch (op) {
      case BinaryOp::Add:
        if (__builtin_add_overflow(a, b, &result)) return std::nullopt;
        return result;
      case BinaryOp::Sub:
        if (__builtin_sub_overflow(a, b, &result)) return std::nullopt;
        return result;
      case BinaryOp::Mul:
        if (__builtin_mul_overflow(a, b, &result)) return std::nullopt;
        return result;
      case BinaryOp::FloorDiv:
      case BinaryOp::FloorMod: {
        if (b == 0 || (a == std::numeric_limits<int64_t>::min() && b == -1)) return std::nullopt;
        int64_t quotient = a / b;
        int64_t remainder = a % b;
        if (remainder != 0 && ((remainder < 0) != (b < 0))) {
          quotient -= 1;
          remainder += b;
        }
        return op == BinaryOp::FloorDiv ? quotient : remainder;
      }
      case BinaryOp::Min: return std::min(a, b);
      case BinaryOp::Max: return std::max(a, b);
      default: return std::nullopt;
    }
  }
};

class PipelineLowerer : public ir::IRMutator {
 public:
  using IRMutator::Mutate_;

  explicit PipelineLowerer(const ir::Function& function) : function_(function) {}

  StmtPtr Mutate_(const Ref<ir::ForStmt>& node) override {
    // Pipeline loops nested in the body are lowered first, so every copy of
    // the body holds the lowered form.
    StmtPtr visited = IRMutator::Mutate_(node);
    auto loop = As<ir::ForStmt>(visited);
    if (!loop || loop->for_kind != ir::ForKind::Pipeline) return visited;
    return Lower(*loop);
  }

  // Splices the statements a loop became into the enclosing sequence.
  StmtPtr Mutate_(const Ref<ir::SeqStmts>& node) override {
    return MutateSplicingStatements(node);
  }

 private:
  struct Shape {
    int64_t stages;
    int64_t step;
    ir::Attrs attrs;  // the loop's attributes without `stage`
  };

  StmtPtr Lower(const ir::ForStmt& loop) const {
    Shape shape{StageCount(loop), LiteralStep(loop), loop.attrs};
    shape.attrs.Erase(kStageAttr);
    if (shape.stages == 1) {
      auto sequential = std::make_shared<ir::ForStmt>(loop);
      sequential->for_kind = ir::ForKind::Sequential;
      sequential->attrs = shape.attrs;
      return sequential;
    }
    CheckTrailingYield(loop);
    auto start = ir::AsConstInt(loop.start);
    auto stop = ir::AsConstInt(loop.stop);
    if (start && stop) return LowerStatic(loop, shape, *start, *stop);
    return LowerDynamic(loop, shape);
  }

  // Full groups of `stages` iterations run in the loop; the leftover
  // iterations follow as straight-line copies.
  StmtPtr LowerStatic(const ir::ForStmt& loop, const Shape& shape, int64_t start, int64_t stop) const {
    const uint64_t trips = TripCount(start, stop, shape.step);
    const auto groups = static_cast<int64_t>(trips / static_cast<uint64_t>(shape.stages));
    const auto leftover = static_cast<int64_t>(trips % static_cast<uint64_t>(shape.stages));
    std::vector<StmtPtr> stmts;
    std::vector<ExprPtr> carried = InitValues(loop);
    if (groups > 0) {
      std::vector<VarPtr> return_vars = leftover == 0 ? loop.return_vars : FreshReturnVars(loop);
      const int64_t main_stop = start + groups * shape.stages * shape.step;
      stmts.push_back(
          GroupedLoop(loop, shape, ir::ConstInt::Make(main_stop, IndexDType(loop), loop.stop->span), return_vars));
      if (leftover == 0) return stmts.front();
      carried.assign(return_vars.begin(), return_vars.end());
    }
    for (int64_t k = 0; k < leftover; ++k) {
      const int64_t index = start + (groups * shape.stages + k) * shape.step;
      carried = AppendCopy(loop, ir::ConstInt::Make(index, IndexDType(loop), loop.loop_var->span), carried,
                           "_r" + std::to_string(k), stmts);
    }
    for (size_t j = 0; j < loop.return_vars.size(); ++j) {
      stmts.push_back(ir::AssignStmt::Make(loop.return_vars[j], carried[j], loop.span));
    }
    return ir::SeqStmts::Make(std::move(stmts), loop.span);
  }

  // The grouped loop runs up to the last full group, computed at run time;
  // a sequential loop with one copy of the body runs the rest.
  StmtPtr LowerDynamic(const ir::ForStmt& loop, const Shape& shape) const {
    const Span& span = loop.span;
    const int64_t stride = shape.step > 0 ? shape.step : -shape.step;
    ExprPtr distance = shape.step > 0 ? Arith(BinaryOp::Sub, loop.stop, loop.start, span)
                                      : Arith(BinaryOp::Sub, loop.start, loop.stop, span);
    ExprPtr trips = Arith(BinaryOp::Max, distance, Index(loop, 0), span);
    if (stride != 1) {
      trips = Arith(BinaryOp::FloorDiv, Arith(BinaryOp::Add, trips, Index(loop, stride - 1), span), Index(loop, stride),
                    span);
    }
    ExprPtr groups = Arith(BinaryOp::FloorDiv, trips, Index(loop, shape.stages), span);
    ExprPtr main_stop_value = Arith(BinaryOp::Add, loop.start,
                                    Arith(BinaryOp::Mul, groups, Index(loop, shape.stages * shape.step), span), span);
    VarPtr main_stop = ir::Var::Make(loop.loop_var->name_hint + "_main_stop", main_stop_value->type, span);

    std::vector<VarPtr> main_return_vars = FreshReturnVars(loop);
    std::vector<StmtPtr> stmts{ir::AssignStmt::Make(main_stop, main_stop_value, span),
                               GroupedLoop(loop, shape, main_stop, main_return_vars)};

    VarPtr index = ir::Var::Make(loop.loop_var->name_hint + "_r", loop.loop_var->type, loop.loop_var->span);
    ir::VarSubstitutions substitutions{{loop.loop_var.get(), index}};
    std::vector<ir::IterArgPtr> iter_args;
    for (size_t j = 0; j < loop.iter_args.size(); ++j) {
      const auto& original = loop.iter_args[j];
      iter_args.push_back(
          ir::IterArg::Make(original->name_hint + "_r", original->type, main_return_vars[j], original->span));
      substitutions[original.get()] = iter_args.back();
    }
    StmtPtr body = ir::CopyWithFreshDefinitions(loop.body, std::move(substitutions), "_r");
    stmts.push_back(ir::ForStmt::Make(index, main_stop, loop.stop, Index(loop, shape.step), std::move(iter_args), body,
                                      loop.return_vars, ir::ForKind::Sequential, shape.attrs, span));
    return ir::SeqStmts::Make(std::move(stmts), span);
  }

  // A sequential loop stepping `stages` iterations at a time whose body runs
  // one copy of the original body per stage, each with fresh variables; the
  // iter_args pass through the copies in order.
  Ref<ir::ForStmt> GroupedLoop(const ir::ForStmt& loop, const Shape& shape, const ExprPtr& stop,
                               std::vector<VarPtr> return_vars) const {
    VarPtr index = ir::Var::Make(loop.loop_var->name_hint, loop.loop_var->type, loop.loop_var->span);
    std::vector<ir::IterArgPtr> iter_args;
    std::vector<ExprPtr> carried;
    for (const auto& original : loop.iter_args) {
      iter_args.push_back(ir::IterArg::Make(original->name_hint, original->type, original->init_value, original->span));
      carried.push_back(iter_args.back());
    }
    std::vector<StmtPtr> body;
    for (int64_t k = 0; k < shape.stages; ++k) {
      ExprPtr at = index;
      if (k > 0) {
        const int64_t offset = k * shape.step;
        at = offset > 0 ? Arith(BinaryOp::Add, index, Index(loop, offset), loop.span)
                        : Arith(BinaryOp::Sub, index, Index(loop, -offset), loop.span);
      }
      carried = AppendCopy(loop, at, carried, "_s" + std::to_string(k), body);
    }
    if (!loop.iter_args.empty()) body.push_back(ir::YieldStmt::Make(carried, loop.span));
    // The copies are meant to overlap on the hardware: the attribute tells
    // buffer-sharing passes to keep the tiles of different copies apart.
    ir::Attrs attrs = shape.attrs;
    attrs.Set(kGroupedStagesAttr, shape.stages);
    return ir::ForStmt::Make(index, loop.start, stop, Index(loop, shape.stages * shape.step), std::move(iter_args),
                             ir::SeqStmts::Make(std::move(body), loop.body->span), std::move(return_vars),
                             ir::ForKind::Sequential, std::move(attrs), loop.span);
  }

  // Appends one copy of the body, the loop variable standing for `index` and
  // the iter_args for `carried`, to `stmts`; returns the values it yields.
  static std::vector<ExprPtr> AppendCopy(const ir::ForStmt& loop, const ExprPtr& index,
                                         const std::vector<ExprPtr>& carried, const std::string& suffix,
                                         std::vector<StmtPtr>& stmts) {
    ir::VarSubstitutions substitutions{{loop.loop_var.get(), index}};
    for (size_t j = 0; j < loop.iter_args.size(); ++j) {
      substitutions[loop.iter_args[j].get()] = Bind(carried[j], loop.iter_args[j], suffix, stmts);
    }
    StmtPtr copy = ir::CopyWithFreshDefinitions(loop.body, std::move(substitutions), suffix);
    if (ir::IsA<ir::ConstInt>(index)) copy = LiteralFolder().VisitStmt(copy);
    std::vector<StmtPtr> body = ir::Flatten(copy);
    std::vector<ExprPtr> yielded;
    if (!body.empty()) {
      if (auto yield = As<ir::YieldStmt>(body.back())) {
        yielded = yield->values;
        body.pop_back();
      }
    }
    stmts.insert(stmts.end(), body.begin(), body.end());
    return yielded;
  }

  // A variable or literal standing for `value` in a copy; other expressions
  // are bound to a fresh variable first so that they are evaluated once.
  static ExprPtr Bind(const ExprPtr& value, const ir::IterArgPtr& iter_arg, const std::string& suffix,
                      std::vector<StmtPtr>& stmts) {
    if (IsAtomic(value)) return value;
    auto bound = ir::Var::Make(iter_arg->name_hint + suffix, iter_arg->type, iter_arg->span);
    stmts.push_back(ir::AssignStmt::Make(bound, value, iter_arg->span));
    return bound;
  }

  static std::vector<ExprPtr> InitValues(const ir::ForStmt& loop) {
    std::vector<ExprPtr> values;
    for (const auto& iter_arg : loop.iter_args) values.push_back(iter_arg->init_value);
    return values;
  }

  // The values after the grouped loop, when more iterations follow it.
  static std::vector<VarPtr> FreshReturnVars(const ir::ForStmt& loop) {
    std::vector<VarPtr> vars;
    for (const auto& var : loop.return_vars) {
      vars.push_back(ir::Var::Make(var->name_hint + "_main", var->type, var->span));
    }
    return vars;
  }

  static ir::DataType IndexDType(const ir::ForStmt& loop) {
    auto dtype = ir::ScalarDType(loop.loop_var->type);
    return dtype && dtype->is_int() ? *dtype : ir::DataType::INDEX;
  }

  static ExprPtr Index(const ir::ForStmt& loop, int64_t value) {
    return ir::ConstInt::Make(value, IndexDType(loop), loop.span);
  }

  // lhs `op` rhs, with the identities the bound arithmetic meets folded
  // away (start 0, step 1) so that the printed bounds stay readable.
  static ExprPtr Arith(BinaryOp op, const ExprPtr& lhs, const ExprPtr& rhs, const Span& span) {
    auto left = ir::AsConstInt(lhs);
    auto right = ir::AsConstInt(rhs);
    const bool adds_zero = (op == BinaryOp::Add || op == BinaryOp::Sub) && right == 0;
    const bool scales_by_one = (op == BinaryOp::Mul || op == BinaryOp::FloorDiv) && right == 1;
    if (adds_zero || scales_by_one) return lhs;
    if ((op == BinaryOp::Add && left == 0) || (op == BinaryOp::Mul && left == 1)) return rhs;
    return ir::BinaryExpr::Make(op, lhs, rhs, span);
  }

  std::string Where(const ir::ForStmt& loop) const {
    return std::string(kPass) + ": in function '" + function_.name + "', the pl.pipeline loop over '" +
           loop.loop_var->name_hint + "'";
  }

  int64_t StageCount(const ir::ForStmt& loop) const {
    const ir::AttrValue* stage = loop.attrs.Find(kStageAttr);
    if (stage == nullptr) {
      throw Error(ErrorKind::kValue,
                  Where(loop) +
                      " has no stage count; write pl.pipeline(start, stop, step, stage=F) with F the "
                      "number of copies of the body in flight (2 for ping-pong buffers)",
                  loop.span);
    }
    const int64_t* count = std::get_if<int64_t>(stage);
    if (count == nullptr || *count < 1) {
      throw Error(ErrorKind::kValue,
                  Where(loop) + " has stage=" +
                      (count ? std::to_string(*count) : std::string("a ") + ir::AttrValueKindName(*stage)) +
                      "; stage must be an integer literal of at least 1 (2 for ping-pong buffers)",
                  loop.span);
    }
    return *count;
  }

  int64_t LiteralStep(const ir::ForStmt& loop) const {
    auto step = ir::AsConstInt(loop.step);
    if (!step) {
      throw Error(ErrorKind::kValue,
                  Where(loop) +
                      " has a step that is not an integer literal; the copies of the body are one step "
                      "apart, so the step must be known when compiling: write it as an integer constant, or use "
                      "pl.range for a loop whose step is known only at run time",
                  loop.span);
    }
    if (*step == 0) throw Error(ErrorKind::kValue, Where(loop) + " has step 0; give it a non-zero step", loop.span);
    const int64_t stages = StageCount(loop);
    if (*step < -std::numeric_limits<int64_t>::max() / stages || *step > std::numeric_limits<int64_t>::max() / stages) {
      throw Error(ErrorKind::kValue,
                  Where(loop) + " has step " + std::to_string(*step) + " and stage=" + std::to_string(stages) +
                      ", so one group of stages would step past the 64-bit index range; use a smaller step",
                  loop.span);
    }
    return *step;
  }

  // The body must end in a yield of one value per iter_arg.
  void CheckTrailingYield(const ir::ForStmt& loop) const {
    if (loop.iter_args.size() != loop.return_vars.size()) {
      throw Error(ErrorKind::kVerification,
                  Where(loop) + " has " + std::to_string(loop.iter_args.size()) + " iter_args but " +
                      std::to_string(loop.return_vars.size()) + " return vars; each iter_arg needs one return var",
                  loop.span);
    }
    if (loop.iter_args.empty()) return;
    std::vector<StmtPtr> body = ir::Flatten(loop.body);
    auto yield = body.empty() ? nullptr : As<ir::YieldStmt>(body.back());
    if (yield && yield->values.size() == loop.iter_args.size()) return;
    throw Error(ErrorKind::kVerification,
                Where(loop) + " must end its body with a yield of one value per iter_arg (" +
                    std::to_string(loop.iter_args.size()) + "), but " +
                    (yield ? "its yield has " + std::to_string(yield->values.size()) : std::string("it has no yield")),
                loop.span);
  }

  const ir::Function& function_;
};

}  // namespace

ir::ProgramPtr LowerPipelineLoopsPass::Run(const ir::ProgramPtr& program, pass::PassContext& /*ctx*/) {
  return ir::MapFunctions(program, [](const ir::FunctionPtr& f) { return PipelineLowerer(*f).VisitFunction(f); });
}

}  // namespace pypto::passes
