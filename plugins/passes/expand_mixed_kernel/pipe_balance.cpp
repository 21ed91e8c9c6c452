#include "pipe_balance.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pypto/ir/visitor.h"
#include "pypto/support/error.h"

namespace pypto::passes::mixed {

using ir::As;
using ir::Ref;

namespace {

using Count = std::optional<int64_t>;  // nullopt: known only at run time

// How many times each pipe op of a kernel runs, and where it first appears.
struct Tally {
  std::map<std::string, Count> counts;
  std::map<std::string, Span> first;

  Count Of(const std::string& op) const {
    auto it = counts.find(op);
    return it == counts.end() ? Count(0) : it->second;
  }
  std::string Line(const std::string& op) const {
    auto it = first.find(op);
    return it == first.end() ? "" : " (first at " + it->second.ToString() + ")";
  }
};

bool IsTransfer(const std::string& name) {
  return name == "tile.tpush_to_aiv" || name == "tile.tpush_to_aic" || name == "tile.tpop_from_aic" ||
         name == "tile.tpop_from_aiv" || name == "system.tfree_to_aic" || name == "system.tfree_to_aiv";
}

bool IsInit(const std::string& name) {
  return name == "system.aic_initialize_pipe" || name == "system.aiv_initialize_pipe";
}

Count Add(Count a, Count b) { return a && b ? Count(*a + *b) : std::nullopt; }
Count Times(Count a, Count factor) {
  if (a == Count(0) || factor == Count(0)) return 0;
  return a && factor ? Count(*a * *factor) : std::nullopt;
}

Count Trips(const ir::ForStmt& loop) {
  auto start = ir::AsConstInt(loop.start);
  auto stop = ir::AsConstInt(loop.stop);
  auto step = ir::AsConstInt(loop.step);
  if (!start || !stop || !step || *step <= 0) return std::nullopt;
  return *stop > *start ? (*stop - *start + *step - 1) / *step : 0;
}

class Counter {
 public:
  Tally tally;

  std::map<std::string, Count> Count_(const ir::StmtPtr& stmt) {
    std::map<std::string, Count> counts;
    if (!stmt) return counts;
    if (auto seq = As<ir::SeqStmts>(stmt)) {
      for (const auto& child : seq->stmts) Merge(counts, Count_(child), Add);
    } else if (auto loop = As<ir::ForStmt>(stmt)) {
      counts = Scale(Count_(loop->body), Trips(*loop));
    } else if (auto loop = As<ir::WhileStmt>(stmt)) {
      counts = Scale(Count_(loop->body), std::nullopt);
    } else if (auto branch = As<ir::IfStmt>(stmt)) {
      counts = Count_(branch->then_body);
      Merge(counts, Count_(branch->else_body), [](Count a, Count b) { return a == b ? a : std::nullopt; });
    } else {
      Leaf(stmt, counts);
    }
    return counts;
  }

 private:
  void Leaf(const ir::StmtPtr& stmt, std::map<std::string, Count>& counts) {
    ir::ExprPtr value;
    if (auto assign = As<ir::AssignStmt>(stmt)) value = assign->value;
    if (auto eval = As<ir::EvalStmt>(stmt)) value = eval->expr;
    auto call = As<ir::Call>(value);
    if (!call || call->is_function_call() || !IsTransfer(call->op->name)) return;
    counts[call->op->name] = 1;
    tally.first.emplace(call->op->name, call->span);
  }

  // Ops on one side only count as zero on the other.
  template <class Combine>
  static void Merge(std::map<std::string, Count>& into, const std::map<std::string, Count>& from, Combine combine) {
    for (auto& [name, count] : into) {
      auto it = from.find(name);
      count = combine(count, it == from.end() ? Count(0) : it->second);
    }
    for (const auto& [name, count] : from) {
      if (!into.count(name)) into[name] = combine(Count(0), count);
    }
  }

  static std::map<std::string, Count> Scale(std::map<std::string, Count> counts, Count factor) {
    for (auto& [name, count] : counts) count = Times(count, factor);
    return counts;
  }
};

struct InitCall {
  ir::Attrs numbers;
  Span span;
};

class InitFinder : public ir::IRVisitor {
 public:
  using IRVisitor::Visit_;
  std::vector<InitCall> inits;
  void Visit_(const Ref<ir::Call>& call) override {
    if (!call->is_function_call() && IsInit(call->op->name)) inits.push_back({call->kwargs, call->span});
    IRVisitor::Visit_(call);
  }
};

struct Member {
  const ir::Function* kernel = nullptr;
  Tally tally;
  std::vector<InitCall> inits;
};

Member Survey(const ir::Function& kernel) {
  Member member;
  member.kernel = &kernel;
  Counter counter;
  counter.tally.counts = counter.Count_(kernel.body);
  member.tally = counter.tally;
  InitFinder finder;
  if (kernel.body) finder.VisitStmt(kernel.body);
  member.inits = finder.inits;
  return member;
}

std::string Number(Count c) { return std::to_string(*c); }

class BalanceChecker {
 public:
  BalanceChecker(const ir::Function& group, std::optional<Member> aic, std::optional<Member> aiv)
      : group_(group), aic_(std::move(aic)), aiv_(std::move(aiv)) {}

  void Check() const {
    if (aic_) RequireInit(*aic_);
    if (aiv_) RequireInit(*aiv_);
    if (aic_ && aiv_) RequireSameInit();
    Direction("tile.tpush_to_aiv", "tile.tpop_from_aic", "system.tfree_to_aic", aic_, aiv_, "AIC", "AIV");
    Direction("tile.tpush_to_aic", "tile.tpop_from_aiv", "system.tfree_to_aiv", aiv_, aic_, "AIV", "AIC");
  }

 private:
  static bool UsesPipe(const Member& m) { return !m.tally.counts.empty(); }

  void RequireInit(const Member& m) const {
    if (!UsesPipe(m) || !m.inits.empty()) return;
    const auto& [op, span] = *m.tally.first.begin();
    Fail("kernel '" + m.kernel->name + "' uses the cross-core pipe ('" + op + "' at " + span.ToString() +
             ") but never initializes its end; call pl." +
             (m.kernel->func_type == ir::FunctionType::AIC ? "aic" : "aiv") +
             "_initialize_pipe(dir_mask=, slot_size=, slot_num=) before the first transfer",
         span);
  }

  void RequireSameInit() const {
    if (aic_->inits.empty() || aiv_->inits.empty()) return;
    const InitCall& a = aic_->inits.front();
    const InitCall& v = aiv_->inits.front();
    for (const char* key : {"dir_mask", "slot_size", "slot_num"}) {
      int64_t x = a.numbers.Get<int64_t>(key).value_or(0);
      int64_t y = v.numbers.Get<int64_t>(key).value_or(0);
      if (x == y) continue;
      Fail("the pipe's two ends are initialized differently: " + std::string(key) + "=" + std::to_string(x) +
               " in '" + aic_->kernel->name + "' (at " + a.span.ToString() + ") but " + std::to_string(y) + " in '" +
               aiv_->kernel->name + "' (at " + v.span.ToString() +
               "); give both inits the same dir_mask, slot_size and slot_num",
           v.span);
    }
  }

  // Per lane, what the producer pushes the consumer pops, and frees.
  void Direction(const std::string& push, const std::string& pop, const std::string& free,
                 const std::optional<Member>& producer, const std::optional<Member>& consumer,
                 const char* producer_core, const char* consumer_core) const {
    Count pushed = producer ? producer->tally.Of(push) : Count(0);
    Count popped = consumer ? consumer->tally.Of(pop) : Count(0);
    Count freed = consumer ? consumer->tally.Of(free) : Count(0);
    if (pushed && popped && *pushed != *popped) {
      std::string who_pushes = producer ? "'" + producer->kernel->name + "'" : std::string("(none)");
      std::string who_pops = consumer ? "'" + consumer->kernel->name + "'" : std::string("(none)");
      bool more_pushes = *pushed > *popped;
      Fail("unpaired pipe transfers: " + std::string(producer_core) + " kernel " + who_pushes + " pushes " +
               Number(pushed) + " tiles with " + push + LineOf(producer, push) + ", but " + consumer_core +
               " kernel " + who_pops + " pops " + Number(popped) + " with " + pop + LineOf(consumer, pop) +
               "; each push needs one pop on every lane, or the run deadlocks",
           FirstSpan(more_pushes ? producer : consumer, more_pushes ? push : pop));
    }
    if (popped && freed && *popped != *freed) {
      Fail(std::string(consumer_core) + " kernel '" + consumer->kernel->name + "' pops " + Number(popped) +
               " tiles with " + pop + consumer->tally.Line(pop) + " but frees " + Number(freed) + " with " + free +
               consumer->tally.Line(free) +
               "; a popped tile keeps its slot until freed, so the ring fills up and the producer waits forever: "
               "free every popped tile once it is used (pl." + free.substr(free.find('.') + 1) + "(tile))",
           FirstSpan(consumer, pop));
    }
  }

  static std::string LineOf(const std::optional<Member>& m, const std::string& op) {
    return m ? m->tally.Line(op) : "";
  }

  Span FirstSpan(const std::optional<Member>& m, const std::string& op) const {
    if (!m || !m->tally.first.count(op)) return group_.span;
    return m->tally.first.at(op);
  }

  [[noreturn]] void Fail(const std::string& what, const Span& span) const {
    throw Error(ErrorKind::kValue, "ExpandMixedKernel: in Group function '" + group_.name + "': " + what,
                span.known() ? span : group_.span);
  }

  const ir::Function& group_;
  std::optional<Member> aic_;
  std::optional<Member> aiv_;
};

}  // namespace

void CheckPipeBalance(const ir::Program& program, const ir::Function& group) {
  std::optional<Member> aic, aiv;
  for (const auto& stmt : ir::Flatten(group.body)) {
    ir::ExprPtr value;
    if (auto assign = As<ir::AssignStmt>(stmt)) value = assign->value;
    if (auto eval = As<ir::EvalStmt>(stmt)) value = eval->expr;
    auto call = As<ir::Call>(value);
    if (!call || !call->is_function_call()) continue;
    auto kernel = program.Find(call->callee_name());
    if (!kernel) continue;
    if (kernel->func_type == ir::FunctionType::AIC && !aic) aic = Survey(*kernel);
    if (kernel->func_type == ir::FunctionType::AIV && !aiv) aiv = Survey(*kernel);
  }
  BalanceChecker(group, std::move(aic), std::move(aiv)).Check();
}

}  // namespace pypto::passes::mixed
