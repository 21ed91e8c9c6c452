#include "unroll_loops.h"

#include <memory>
#include <optional>
#include <type_traits>
#include <unordered_map>
#include <utility>

#include "pypto/ir/fresh_copy.h"
#include "pypto/ir/mutator.h"
#include "pypto/ir/visitor.h"
#include "pypto/support/error.h"

namespace pypto::passes {

using ir::As;
using ir::DataType;
using ir::ExprPtr;
using ir::Ref;
using ir::StmtPtr;
using ir::TypePtr;
using ir::VarPtr;

namespace {


// The first break or continue that would leave the loop whose body is
// visited; exits inside nested loops leave those loops and are fine.
class LoopExitFinder : public ir::IRVisitor {
 public:
  using IRVisitor::Visit_;

  StmtPtr exit;

  void Visit_(const Ref<ir::ForStmt>&) override {}
  void Visit_(const Ref<ir::WhileStmt>&) override {}
  void Visit_(const Ref<ir::BreakStmt>& s) override { Record(s); }
  void Visit_(const Ref<ir::ContinueStmt>& s) override { Record(s); }

 private:
  void Record(const StmtPtr& s) {
    if (!exit) exit = s;
  }
};

std::string LoopName(const ir::ForStmt& loop) { return "the pl.unroll loop over '" + loop.loop_var->name_hint + "'"; }

struct LiteralRange {
  int64_t start;
  int64_t stop;
  int64_t step;
};

LiteralRange LiteralBounds(const ir::ForStmt& loop) {
  const std::pair<const char*, const ExprPtr*> bounds[] = {
      {"start", &loop.start}, {"stop", &loop.stop}, {"step", &loop.step}};
  for (const auto& [what, bound] : bounds) {
    if (ir::AsConstInt(*bound)) continue;
    throw Error(ErrorKind::kValue,
                "UnrollLoops: " + LoopName(loop) + " needs literal bounds, but its " + what +
                    " is not an integer literal; pl.unroll needs bounds written as integer constants, use pl.range "
                    "for a loop whose bounds are known only at run time",
                loop.span);
  }
  LiteralRange range{*ir::AsConstInt(loop.start), *ir::AsConstInt(loop.stop), *ir::AsConstInt(loop.step)};
  if (range.step == 0) {
    throw Error(ErrorKind::kValue, "UnrollLoops: " + LoopName(loop) + " has step 0; give it a non-zero step",
                loop.span);
  }
  return range;
}

uint64_t TripCount(const LiteralRange& r) {
  // Unsigned differences: the distance between two int64 values can exceed INT64_MAX.
  uint64_t distance;
  uint64_t stride;
  if (r.step > 0) {
    if (r.start >= r.stop) return 0;
    distance = static_cast<uint64_t>(r.stop) - static_cast<uint64_t>(r.start);
    stride = static_cast<uint64_t>(r.step);
  } else {
    if (r.start <= r.stop) return 0;
    distance = static_cast<uint64_t>(r.start) - static_cast<uint64_t>(r.stop);
    stride = static_cast<uint64_t>(-(r.step + 1)) + 1;
  }
  return distance / stride + (distance % stride != 0 ? 1 : 0);
}

void RejectLoopExits(const ir::ForStmt& loop) {
  LoopExitFinder finder;
  finder.VisitStmt(loop.body);
  if (!finder.exit) return;
  const char* keyword = ir::IsA<ir::BreakStmt>(finder.exit) ? "break" : "continue";
  throw Error(ErrorKind::kValue,
              std::string("UnrollLoops: '") + keyword + "' in " + LoopName(loop) + " (at " + loop.span.ToString() +
                  ") cannot be unrolled, because every copy of an unrolled body runs; use pl.range for a loop "
                  "that leaves an iteration early",
              finder.exit->span.known() ? finder.exit->span : loop.span);
}

// The body must end in a yield of one value per iter_arg.
void CheckTrailingYield(const ir::ForStmt& loop) {
  if (loop.iter_args.size() != loop.return_vars.size()) {
    throw Error(ErrorKind::kVerification,
                "UnrollLoops: " + LoopName(loop) + " has " + std::to_string(loop.iter_args.size()) +
                    " iter_args but " + std::to_string(loop.return_vars.size()) +
                    " return vars; each iter_arg needs exactly one return var",
                loop.span);
  }
  if (loop.iter_args.empty()) return;
  std::vector<StmtPtr> body = ir::Flatten(loop.body);
  auto yield = body.empty() ? nullptr : As<ir::YieldStmt>(body.back());
  if (yield && yield->values.size() == loop.iter_args.size()) return;
  throw Error(ErrorKind::kVerification,
              "UnrollLoops: the body of " + LoopName(loop) + " must end with a yield of one value per iter_arg (" +
                  std::to_string(loop.iter_args.size()) + "), but " +
                  (yield ? "its yield has " + std::to_string(yield->values.size()) : std::string("it has no yield")),
              loop.span);
}

bool IsAtomic(const ExprPtr& e) {
  return ir::IsA<ir::Var>(e) || ir::IsA<ir::ConstInt>(e) || ir::IsA<ir::ConstFloat>(e) || ir::IsA<ir::ConstBool>(e);
}

class Unroller : public ir::IRMutator {
 public:
  using IRMutator::Mutate_;

  explicit Unroller(int64_t max_iterations) : max_iterations_(max_iterations) {}

  StmtPtr Mutate_(const Ref<ir::ForStmt>& loop) override {
    if (loop->for_kind != ir::ForKind::Unroll) return IRMutator::Mutate_(loop);
    return Expand(*loop);
  }

  // Splices the statements of expanded loops into the enclosing sequence.
  StmtPtr Mutate_(const Ref<ir::SeqStmts>& node) override { return MutateSplicingStatements(node); }

 private:
  StmtPtr Expand(const ir::ForStmt& loop) {
    const LiteralRange range = LiteralBounds(loop);
    const uint64_t count = TripCount(range);
    if (count > static_cast<uint64_t>(max_iterations_)) {
      throw Error(ErrorKind::kValue,
                  "UnrollLoops: " + LoopName(loop) + " has " + std::to_string(count) +
                      " iterations, more than the pass option max_iterations (" + std::to_string(max_iterations_) +
                      "); raise max_iterations for UnrollLoops in the pipeline, or use pl.range",
                  loop.span);
    }
    RejectLoopExits(loop);
    CheckTrailingYield(loop);

    const DataType index_dtype = LoopVarDType(loop);
    std::vector<ExprPtr> carried;
    for (const auto& iter_arg : loop.iter_args) carried.push_back(VisitExpr(iter_arg->init_value));

    std::vector<StmtPtr> stmts;
    for (uint64_t k = 0; k < count; ++k) {
      const std::string suffix = "_" + std::to_string(k);
      const int64_t value = range.start + static_cast<int64_t>(k) * range.step;
      ir::VarSubstitutions substitutions;
      substitutions[loop.loop_var.get()] = ir::ConstInt::Make(value, index_dtype, loop.loop_var->span);
      for (size_t j = 0; j < loop.iter_args.size(); ++j) {
        substitutions[loop.iter_args[j].get()] = Bind(carried[j], loop.iter_args[j], suffix, stmts);
      }
      StmtPtr copy = VisitStmt(ir::CopyWithFreshDefinitions(loop.body, std::move(substitutions), suffix));
      std::vector<StmtPtr> body = ir::Flatten(copy);
      if (!loop.iter_args.empty()) {
        carried = As<ir::YieldStmt>(body.back())->values;
        body.pop_back();
      }
      stmts.insert(stmts.end(), body.begin(), body.end());
    }
    for (size_t j = 0; j < loop.return_vars.size(); ++j) {
      stmts.push_back(ir::AssignStmt::Make(loop.return_vars[j], carried[j], loop.span));
    }
    return ir::SeqStmts::Make(std::move(stmts), loop.span);
  }

  static DataType LoopVarDType(const ir::ForStmt& loop) {
    auto dtype = ir::ScalarDType(loop.loop_var->type);
    return dtype && dtype->is_int() ? *dtype : DataType::INDEX;
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

  int64_t max_iterations_;
};

int64_t ReadMaxIterations(const pass::PassOptions& options, int64_t current) {
  const ir::AttrValue* value = options.Find("max_iterations");
  if (value == nullptr) return current;
  const int64_t* count = std::get_if<int64_t>(value);
  if (count == nullptr) {
    throw Error(ErrorKind::kPipeline, std::string("UnrollLoops option 'max_iterations' must be an int, got ") +
                                          ir::AttrValueKindName(*value));
  }
  if (*count < 1) {
    throw Error(ErrorKind::kPipeline,
                "UnrollLoops option 'max_iterations' must be at least 1, got " + std::to_string(*count));
  }
  return *count;
}

}  // namespace

std::vector<pass::PassOptionSpec> UnrollLoopsPass::option_specs() const {
  return {{pass::PassOptionSpec::Kind::kInt, "max_iterations", int64_t{1024},
           "the most iterations one pl.unroll loop may have; more is an error"}};
}

void UnrollLoopsPass::Configure(const pass::PassOptions& options) {
  max_iterations_ = ReadMaxIterations(options, max_iterations_);
}

ir::ProgramPtr UnrollLoopsPass::Run(const ir::ProgramPtr& program, pass::PassContext& /*ctx*/) {
  return Unroller(max_iterations_).VisitProgram(program);
}

}  // namespace pypto::passes
