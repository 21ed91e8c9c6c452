#include "auto_derive_task_dependencies.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "pypto/ir/mutator.h"
#include "pypto/ir/result_params.h"
#include "pypto/ir/visitor.h"
#include "pypto/ops/registry.h"
#include "pypto/support/error.h"

namespace pypto::passes {

using ir::As;
using ir::ExprPtr;
using ir::FunctionPtr;
using ir::Ref;
using ir::StmtPtr;
using ir::VarPtr;

namespace {

constexpr const char* kCompilerDeps = "compiler_deps";

ir::TypePtr TaskIdType() { return ir::ScalarType::Make(ir::DataType::TASK_ID); }

bool IsOrchestrationSide(ir::FunctionType t) {
  return t == ir::FunctionType::Orchestration || t == ir::FunctionType::Opaque;
}

// Functions whose call is one runtime task.
bool IsTaskKernel(ir::FunctionType t) {
  return ir::IsCoreKernel(t) || t == ir::FunctionType::Group || t == ir::FunctionType::Spmd;
}

// A rectangle of a buffer, in elements from its origin.
struct Rect {
  std::vector<int64_t> offset;
  std::vector<int64_t> extent;
};

// The part of a buffer (its root: a parameter or a tensor.create result) a
// value covers; no rect means the whole buffer or a part not known statically.
struct Region {
  const ir::Var* root = nullptr;
  std::optional<Rect> rect;
};

// Unprovable disjointness is overlap.
bool Overlap(const Region& a, const Region& b) {
  if (a.root != b.root) return false;
  if (!a.rect || !b.rect || a.rect->offset.size() != b.rect->offset.size()) return true;
  for (size_t d = 0; d < a.rect->offset.size(); ++d) {
    const int64_t a_end = a.rect->offset[d] + a.rect->extent[d];
    const int64_t b_end = b.rect->offset[d] + b.rect->extent[d];
    if (a_end <= b.rect->offset[d] || b_end <= a.rect->offset[d]) return false;
  }
  return true;
}

// The constant values of a list argument ([0, 16]), if all are constants.
std::optional<std::vector<int64_t>> ConstList(const ExprPtr& list) {
  auto tuple = As<ir::MakeTuple>(list);
  if (!tuple) return std::nullopt;
  std::vector<int64_t> values;
  for (const auto& e : tuple->elements) {
    auto value = ir::AsConstInt(e);
    if (!value) return std::nullopt;
    values.push_back(*value);
  }
  return values;
}

// The call of a kernel task made by an expression (a call or a submit), or null.
Ref<ir::Call> TaskCallOf(const ExprPtr& expr, const ir::Program& program) {
  auto call = As<ir::Call>(expr);
  if (auto submit = As<ir::Submit>(expr)) call = submit->kernel_call();
  if (!call || !call->is_function_call()) return nullptr;
  FunctionPtr callee = program.Find(call->callee_name());
  return callee && IsTaskKernel(callee->func_type) ? call : nullptr;
}

// What the analysis decided: for each task call, the earlier tasks it must
// wait for, and which tasks need a task id to be waited for.
struct Plan {
  std::map<const ir::Call*, std::vector<const ir::Call*>> waits_for;
  std::set<const ir::Call*> sources;
  // A submit's task id the program already names in the submit's own block.
  std::map<const ir::Call*, VarPtr> named_task_id;
  // Per sequential loop: (later call, earlier call) pairs of its body's tasks
  // where the later one must wait for the earlier one of the previous iteration.
  std::map<const ir::ForStmt*, std::vector<std::pair<const ir::Call*, const ir::Call*>>> carried;
};

class DependencyAnalyzer : public ir::IRVisitor {
 public:
  using IRVisitor::Visit_;

  explicit DependencyAnalyzer(const ir::Program& program) : program_(program) {}

  Plan plan;

  void Visit_(const Ref<ir::AssignStmt>& stmt) override {
    IRVisitor::Visit_(stmt);
    if (auto call = TaskCallOf(stmt->value, program_)) Task(*call);
    RecordRegions(*stmt);
  }

  void Visit_(const Ref<ir::EvalStmt>& stmt) override {
    IRVisitor::Visit_(stmt);
    if (auto call = TaskCallOf(stmt->expr, program_)) Task(*call);
  }

  void Visit_(const Ref<ir::ForStmt>& loop) override {
    for (const auto& iter_arg : loop->iter_args) Alias(iter_arg.get(), iter_arg->init_value);
    const size_t first = accesses_.size();
    std::vector<int> body_path;
    InBlock([&] {
      body_path = block_path_;
      VisitStmt(loop->body);
    });
    if (loop->for_kind != ir::ForKind::Parallel && manual_depth_ == 0) CarryAcrossIterations(*loop, first, body_path);
    for (size_t i = 0; i < loop->return_vars.size() && i < loop->iter_args.size(); ++i) {
      Alias(loop->return_vars[i].get(), loop->iter_args[i]->init_value);
    }
  }

  void Visit_(const Ref<ir::WhileStmt>& loop) override {
    for (const auto& iter_arg : loop->iter_args) Alias(iter_arg.get(), iter_arg->init_value);
    InBlock([&] { VisitStmt(loop->body); });
    for (size_t i = 0; i < loop->return_vars.size() && i < loop->iter_args.size(); ++i) {
      Alias(loop->return_vars[i].get(), loop->iter_args[i]->init_value);
    }
  }

  void Visit_(const Ref<ir::IfStmt>& stmt) override {
    InBlock([&] { VisitStmt(stmt->then_body); });
    if (stmt->else_body) InBlock([&] { VisitStmt(stmt->else_body); });
  }

  // The runtime orders the tasks of a manual scope by deps= only: they are
  // neither given nor used as compiler edges.
  void Visit_(const Ref<ir::ScopeStmt>& scope) override {
    const bool manual = scope->scope_kind == ir::ScopeKind::Runtime;
    manual_depth_ += manual ? 1 : 0;
    IRVisitor::Visit_(scope);
    manual_depth_ -= manual ? 1 : 0;
  }

 private:
  struct Access {
    const ir::Call* task;
    std::vector<int> block_path;  // where the task is; its id is visible where this is a prefix
    Region region;
    bool read;
    bool write;
  };

  template <class F>
  void InBlock(F&& visit) {
    block_path_.push_back(next_block_++);
    visit();
    block_path_.pop_back();
  }

  bool Visible(const std::vector<int>& source_path) const {
    return source_path.size() <= block_path_.size() &&
           std::equal(source_path.begin(), source_path.end(), block_path_.begin());
  }

  void Task(const ir::Call& call) {
    if (manual_depth_ > 0) return;
    auto directions = call.attrs.Get<std::vector<std::string>>("arg_directions");
    std::vector<Access> mine;
    for (size_t i = 0; i < call.args.size(); ++i) {
      if (!ir::IsA<ir::TensorType>(call.args[i]->type)) continue;
      const std::string direction = directions && i < directions->size() ? (*directions)[i] : "InOut";
      if (direction == "NoDep" || direction == "Scalar") continue;
      Region region = RegionOf(call.args[i]);
      if (!region.root || manual_dep_roots_.count(region.root)) continue;
      const bool read = direction == "Input" || direction == "InOut";
      const bool write = direction != "Input";
      for (const auto& earlier : accesses_) {
        // RAW, WAW or WAR: only two reads commute.
        const bool conflict = earlier.write || write;
        if (conflict && Overlap(earlier.region, region) && Visible(earlier.block_path)) AddEdge(&call, earlier.task);
      }
      mine.push_back({&call, block_path_, region, read, write});
    }
    accesses_.insert(accesses_.end(), mine.begin(), mine.end());
  }

  // Iterations of a sequential loop run one after another in the program, so
  // a task of the body that writes what a task of the previous iteration only
  // read must wait for it. Only write-after-read pairs: the runtime orders RAW
  // and WAW itself (DeriveCallDirections makes writers in loops InOut), and
  // slices indexed by the loop variable overlap for this pass, so carrying
  // those too would serialize every such loop. Only tasks at the top level of
  // the body: their ids can be yielded to the next iteration.
  void CarryAcrossIterations(const ir::ForStmt& loop, size_t first, const std::vector<int>& body_path) {
    std::vector<std::pair<const ir::Call*, const ir::Call*>>& pairs = plan.carried[&loop];
    for (size_t l = first; l < accesses_.size(); ++l) {
      const Access& later = accesses_[l];
      if (later.block_path != body_path || !later.write) continue;
      // A reader earlier in the body already has an edge to this writer, and
      // the runtime orders it after the previous iteration's writer (RAW):
      // only readers from this task on need an edge into the next iteration.
      size_t from = l;
      while (from > first && accesses_[from - 1].task == later.task) --from;
      for (size_t e = from; e < accesses_.size(); ++e) {
        const Access& earlier = accesses_[e];
        // A task that also wrote the region is found by the later writer's own lookup.
        if (earlier.block_path != body_path || !earlier.read || earlier.write) continue;
        if (!Overlap(earlier.region, later.region)) continue;
        std::pair<const ir::Call*, const ir::Call*> pair{later.task, earlier.task};
        if (std::find(pairs.begin(), pairs.end(), pair) != pairs.end()) continue;
        pairs.push_back(pair);
        plan.sources.insert(earlier.task);
      }
    }
    if (pairs.empty()) plan.carried.erase(&loop);
  }

  void AddEdge(const ir::Call* later, const ir::Call* earlier) {
    std::vector<const ir::Call*>& waits = plan.waits_for[later];
    if (std::find(waits.begin(), waits.end(), earlier) != waits.end()) return;
    waits.push_back(earlier);
    plan.sources.insert(earlier);
  }

  Region RegionOf(const ExprPtr& expr) const {
    auto var = As<ir::Var>(expr);
    if (!var) return {};
    auto it = regions_.find(var.get());
    if (it != regions_.end()) return it->second;
    return ir::IsA<ir::TensorType>(var->type) ? Region{var.get(), std::nullopt} : Region{};
  }

  void Alias(const ir::Var* var, const ExprPtr& source) {
    Region region = RegionOf(source);
    if (region.root) regions_[var] = region;
  }

  void RecordRegions(const ir::AssignStmt& stmt) {
    const ir::Var* var = stmt.var.get();
    if (ir::IsA<ir::Var>(stmt.value)) return Alias(var, stmt.value);
    if (auto item = As<ir::TupleGetItem>(stmt.value)) return RecordTupleItem(stmt, *item);
    if (auto submit = As<ir::Submit>(stmt.value)) {
      auto call = submit->kernel_call();
      std::vector<Region> results = call ? ResultRegions(*call) : std::vector<Region>{};
      results.resize(static_cast<size_t>(submit->task_id_index()) + 1);
      tuple_regions_[var] = std::move(results);
      submits_[var] = {call.get(), submit->task_id_index()};
      submit_blocks_[var] = block_path_;
      return;
    }
    auto call = As<ir::Call>(stmt.value);
    if (!call || call->args.empty()) return;
    if (call->is_function_call()) {
      std::vector<Region> results = ResultRegions(*call);
      if (results.size() == 1) {
        if (results[0].root) regions_[var] = results[0];
      } else {
        tuple_regions_[var] = std::move(results);
      }
      return;
    }
    const std::string& op = call->op->name;
    if (op == "tensor.create") {
      if (call->kwargs.Get<bool>("manual_dep").value_or(false)) manual_dep_roots_.insert(var);
    } else if (op == "tensor.slice" && call->args.size() >= 3) {
      regions_[var] = SliceRegion(RegionOf(call->args[0]), call->args[1], call->args[2]);
    } else if (op == "tensor.assemble") {
      Alias(var, call->args[0]);
    } else if (op == "tensor.view" || op == "tensor.reshape" || op == "tensor.transpose") {
      Region base = RegionOf(call->args[0]);
      if (base.root) regions_[var] = Region{base.root, std::nullopt};
    }
  }

  void RecordTupleItem(const ir::AssignStmt& stmt, const ir::TupleGetItem& item) {
    auto tuple = As<ir::Var>(item.tuple);
    if (!tuple) return;
    auto regions = tuple_regions_.find(tuple.get());
    if (regions != tuple_regions_.end() && item.index < static_cast<int64_t>(regions->second.size()) &&
        regions->second[item.index].root) {
      regions_[stmt.var.get()] = regions->second[item.index];
    }
    auto submit = submits_.find(tuple.get());
    if (submit == submits_.end() || submit->second.second != item.index || !submit->second.first) return;
    if (submit_blocks_[tuple.get()] == block_path_) plan.named_task_id.emplace(submit->second.first, stmt.var);
  }

  // A window with constant shape and offset of a known region is a known
  // rectangle; anything else covers the whole root.
  static Region SliceRegion(const Region& base, const ExprPtr& shape, const ExprPtr& offset) {
    if (!base.root) return {};
    auto extent = ConstList(shape);
    auto origin = ConstList(offset);
    if (!extent || !origin || extent->size() != origin->size()) return {base.root, std::nullopt};
    Rect rect{*origin, *extent};
    if (base.rect) {
      if (base.rect->offset.size() != rect.offset.size()) return {base.root, std::nullopt};
      for (size_t d = 0; d < rect.offset.size(); ++d) rect.offset[d] += base.rect->offset[d];
    }
    return {base.root, rect};
  }

  // A kernel's tensor results are its parameters' buffers (or views of
  // them): inside the caller's arguments' regions.
  std::vector<Region> ResultRegions(const ir::Call& call) const {
    FunctionPtr callee = program_.Find(call.callee_name());
    if (!callee) return {};
    std::vector<Region> results;
    for (int p : ir::ResultParams(*callee)) {
      const bool traced = p >= 0 && p < static_cast<int>(call.args.size());
      results.push_back(traced ? RegionOf(call.args[p]) : Region{});
    }
    return results;
  }

  const ir::Program& program_;
  std::unordered_map<const ir::Var*, Region> regions_;
  std::unordered_map<const ir::Var*, std::vector<Region>> tuple_regions_;
  std::unordered_map<const ir::Var*, std::pair<const ir::Call*, int64_t>> submits_;
  std::unordered_map<const ir::Var*, std::vector<int>> submit_blocks_;
  std::unordered_set<const ir::Var*> manual_dep_roots_;
  std::vector<Access> accesses_;
  std::vector<int> block_path_;
  int next_block_ = 0;
  int manual_depth_ = 0;
};

// Gives every source task a task id (a plain call becomes a submit) and every
// waiting call its compiler_deps.
class EdgeWriter : public ir::IRMutator {
 public:
  using IRMutator::Mutate_;

  EdgeWriter(const ir::Program& program, const Plan& plan) : program_(program), plan_(plan) {}

  StmtPtr Mutate_(const Ref<ir::AssignStmt>& stmt) override {
    auto original = TaskCallOf(stmt->value, program_);
    if (!original) return IRMutator::Mutate_(stmt);
    ExprPtr value = WithEdges(VisitExpr(stmt->value), *original);
    std::vector<StmtPtr> stmts;
    if (auto submit = As<ir::Submit>(value)) {
      stmts.push_back(ir::AssignStmt::Make(stmt->var, submit, stmt->span));
      if (plan_.sources.count(original.get())) NameTaskId(*original, stmt->var, submit->task_id_index(), stmts);
    } else if (plan_.sources.count(original.get())) {
      auto task = Submitted(value, *original, stmts);
      stmts.push_back(ir::AssignStmt::Make(stmt->var, CallResults(task, stmt->var->type, stmt->span), stmt->span));
      NameTaskId(*original, task, LastIndex(*task), stmts);
    } else {
      stmts.push_back(ir::AssignStmt::Make(stmt->var, value, stmt->span));
    }
    return ir::SeqStmts::Make(std::move(stmts), stmt->span);
  }

  StmtPtr Mutate_(const Ref<ir::EvalStmt>& stmt) override {
    auto original = TaskCallOf(stmt->expr, program_);
    if (!original) return IRMutator::Mutate_(stmt);
    ExprPtr value = WithEdges(VisitExpr(stmt->expr), *original);
    if (!plan_.sources.count(original.get())) {
      if (value == stmt->expr) return stmt;
      return ir::EvalStmt::Make(value, stmt->span);
    }
    std::vector<StmtPtr> stmts;
    auto task = Submitted(value, *original, stmts);
    NameTaskId(*original, task, 0, stmts);
    return ir::SeqStmts::Make(std::move(stmts), stmt->span);
  }

  // A loop with carried edges carries the earlier tasks' ids as iter_args,
  // starting from a task that waits for nothing (system.task_dummy()).
  StmtPtr Mutate_(const Ref<ir::ForStmt>& loop) override {
    auto carried = plan_.carried.find(loop.get());
    if (carried == plan_.carried.end()) return IRMutator::Mutate_(loop);
    std::vector<const ir::Call*> sources;
    for (const auto& [later, earlier] : carried->second) {
      if (std::find(sources.begin(), sources.end(), earlier) == sources.end()) sources.push_back(earlier);
    }
    std::vector<StmtPtr> stmts;
    std::vector<ir::IterArgPtr> previous;
    for (const ir::Call* source : sources) {
      auto none = ir::Var::Make(source->callee_name() + "_none", TaskIdType(), loop->span);
      stmts.push_back(ir::AssignStmt::Make(
          none, ops::OpRegistry::Global().Create("system.task_dummy", {}, {}, loop->span), loop->span));
      previous.push_back(ir::IterArg::Make(source->callee_name() + "_prev", TaskIdType(), none, loop->span));
    }
    for (const auto& [later, earlier] : carried->second) {
      const size_t index = std::find(sources.begin(), sources.end(), earlier) - sources.begin();
      carried_deps_[later].push_back(previous[index]);
    }
    auto visited = As<ir::ForStmt>(IRMutator::Mutate_(loop));
    std::vector<StmtPtr> body = ir::Flatten(visited->body);
    std::vector<ExprPtr> yielded;
    if (!body.empty()) {
      if (auto yield = As<ir::YieldStmt>(body.back())) {
        yielded = yield->values;
        body.pop_back();
      }
    }
    std::vector<VarPtr> return_vars = visited->return_vars;
    std::vector<ir::IterArgPtr> iter_args = visited->iter_args;
    for (size_t i = 0; i < sources.size(); ++i) {
      yielded.push_back(task_id_.at(sources[i]));
      iter_args.push_back(previous[i]);
      return_vars.push_back(ir::Var::Make(sources[i]->callee_name() + "_last", TaskIdType(), loop->span));
    }
    body.push_back(ir::YieldStmt::Make(std::move(yielded), loop->span));
    stmts.push_back(ir::ForStmt::Make(visited->loop_var, visited->start, visited->stop, visited->step,
                                      std::move(iter_args), ir::MakeSeq(std::move(body), loop->span),
                                      std::move(return_vars), visited->for_kind, visited->attrs, loop->span));
    return ir::SeqStmts::Make(std::move(stmts), loop->span);
  }

  // Splices the statements written for one call into the enclosing sequence.
  StmtPtr Mutate_(const Ref<ir::SeqStmts>& node) override {
    std::vector<StmtPtr> stmts;
    bool changed = false;
    for (const auto& child : node->stmts) {
      StmtPtr updated = VisitStmt(child);
      changed |= updated != child;
      std::vector<StmtPtr> flat = updated != child ? ir::Flatten(updated) : std::vector<StmtPtr>{child};
      stmts.insert(stmts.end(), flat.begin(), flat.end());
    }
    if (!changed) return node;
    return ir::SeqStmts::Make(std::move(stmts), node->span);
  }

 private:
  // `task = pl.submit(call)`, for a call that was fire-and-forget.
  VarPtr Submitted(const ExprPtr& value, const ir::Call& original, std::vector<StmtPtr>& stmts) {
    auto submit = ir::Submit::Make(value, {}, {}, value->span);
    auto task = ir::Var::Make(original.callee_name() + "_task", submit->type, value->span);
    stmts.push_back(ir::AssignStmt::Make(task, submit, value->span));
    return task;
  }

  // The call's value out of its submit's: item 0, or a tuple of the call's items.
  static ExprPtr CallResults(const VarPtr& task, const ir::TypePtr& call_type, const Span& span) {
    if (!ir::IsA<ir::TupleType>(call_type)) return ir::TupleGetItem::Make(task, 0, span);
    std::vector<ExprPtr> items;
    for (int64_t i = 0; i < LastIndex(*task); ++i) items.push_back(ir::TupleGetItem::Make(task, i, span));
    return ir::MakeTuple::Make(std::move(items), span);
  }

  // The task id is the last item of a submit's value.
  static int64_t LastIndex(const ir::Var& task) {
    return static_cast<int64_t>(As<ir::TupleType>(task.type)->fields.size()) - 1;
  }

  void NameTaskId(const ir::Call& original, const VarPtr& task, int64_t index, std::vector<StmtPtr>& stmts) {
    auto named = plan_.named_task_id.find(&original);
    if (named != plan_.named_task_id.end()) {
      task_id_[&original] = named->second;
      return;
    }
    auto tid = ir::Var::Make(original.callee_name() + "_tid", TaskIdType(), task->span);
    stmts.push_back(ir::AssignStmt::Make(tid, ir::TupleGetItem::Make(task, index, task->span), task->span));
    task_id_[&original] = tid;
  }

  // `value` (the visited call or submit) with the ids of the tasks it waits for.
  ExprPtr WithEdges(const ExprPtr& value, const ir::Call& original) {
    auto submit = As<ir::Submit>(value);
    auto call = submit ? submit->kernel_call() : As<ir::Call>(value);
    std::vector<ExprPtr> deps;
    auto waits = plan_.waits_for.find(&original);
    if (waits != plan_.waits_for.end()) {
      for (const ir::Call* source : waits->second) {
        auto tid = task_id_.find(source);
        if (tid == task_id_.end()) continue;
        const bool user_dep =
            submit && std::any_of(submit->deps.begin(), submit->deps.end(),
                                  [&](const ExprPtr& dep) { return dep.get() == tid->second.get(); });
        if (!user_dep) deps.push_back(tid->second);
      }
    }
    auto carried = carried_deps_.find(&original);
    if (carried != carried_deps_.end()) deps.insert(deps.end(), carried->second.begin(), carried->second.end());
    if (deps.empty()) return value;
    auto annotated = std::make_shared<ir::Call>(*call);
    annotated->attrs.Set(kCompilerDeps, deps);
    if (!submit) return annotated;
    return ir::Submit::Make(annotated, submit->deps, submit->attrs, submit->span);
  }

  const ir::Program& program_;
  const Plan& plan_;
  std::map<const ir::Call*, VarPtr> task_id_;
  std::map<const ir::Call*, std::vector<ir::IterArgPtr>> carried_deps_;
};

}  // namespace

ir::ProgramPtr AutoDeriveTaskDependencies(const ir::ProgramPtr& program) {
  std::vector<FunctionPtr> functions;
  bool changed = false;
  for (const auto& function : program->functions) {
    if (!IsOrchestrationSide(function->func_type) || !function->body) {
      functions.push_back(function);
      continue;
    }
    DependencyAnalyzer analyzer(*program);
    analyzer.VisitStmt(function->body);
    if (analyzer.plan.waits_for.empty() && analyzer.plan.carried.empty()) {
      functions.push_back(function);
      continue;
    }
    FunctionPtr updated = EdgeWriter(*program, analyzer.plan).VisitFunction(function);
    changed |= updated != function;
    functions.push_back(updated);
  }
  if (!changed) return program;
  return ir::Program::Make(program->name, std::move(functions), program->span);
}

std::vector<pass::PassOptionSpec> AutoDeriveTaskDependenciesPass::option_specs() const {
  return {{pass::PassOptionSpec::Kind::kBool, kOption, false,
           "derive the dependencies (RunConfig/compile analyze_auto_scopes_for_deps); off leaves the program as is"}};
}

void AutoDeriveTaskDependenciesPass::Configure(const pass::PassOptions& options) {
  enabled_ = options.Get<bool>(kOption).value_or(false);
}

ir::ProgramPtr AutoDeriveTaskDependenciesPass::Run(const ir::ProgramPtr& program, pass::PassContext& /*ctx*/) {
  return enabled_ ? AutoDeriveTaskDependencies(program) : program;
}

}  // namespace pypto::passes
