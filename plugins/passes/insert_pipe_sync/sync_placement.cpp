#include "sync_placement.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>

#include "pipe_accesses.h"
#include "pypto/ops/registry.h"
#include "pypto/support/error.h"

namespace pypto::passes::pipe_sync {

using ir::As;
using ir::StmtPtr;

namespace {

constexpr int kEvents = 8;  // EVENT_ID0 .. EVENT_ID7 per pipe pair

// What a pipe knows to be done: for each pipe, the order number of the last
// of its instructions that this pipe's next instruction starts after.
using Known = std::array<uint64_t, kPipes>;

// Where a statement sits: per level, the block (a body node), the index in
// it, and which of the two walks of a loop body it was reached in.
struct Step {
  const ir::Stmt* block = nullptr;
  size_t index = 0;
  int copy = 0;
};
using Path = std::vector<Step>;

struct Node {
  int pipe = 0;
  uint64_t order = 0;
  Path path;
  Known known{};  // the pipe's knowledge as of this instruction; known[pipe] = order
  Span span;
};

struct Record {
  Range range;
  size_t node = 0;
};

struct State {
  std::array<Known, kPipes> known{};
  std::vector<Record> records;
};

// A dependency: `to` must start after `from` is done.
struct Dependency {
  size_t from = 0;
  size_t to = 0;
};

bool Same(const Record& a, const Record& b) {
  const Range& x = a.range;
  const Range& y = b.range;
  return a.node == b.node && x.global == y.global && x.space == y.space && x.lo == y.lo && x.hi == y.hi &&
         x.tensor == y.tensor && x.write == y.write;
}

bool HasLoopExit(const StmtPtr& body) {
  for (const StmtPtr& s : ir::Flatten(body)) {
    if (ir::IsA<ir::BreakStmt>(s) || ir::IsA<ir::ContinueStmt>(s)) return true;
    if (auto f = As<ir::IfStmt>(s)) {
      if (HasLoopExit(f->then_body) || (f->else_body && HasLoopExit(f->else_body))) return true;
    } else if (auto scope = As<ir::ScopeStmt>(s)) {
      if (HasLoopExit(scope->body)) return true;
    }
  }
  return false;
}

// Walks a kernel in program order and records the dependencies no earlier
// event covers.
class Tracer {
 public:
  explicit Tracer(const TensorRoots& roots) : roots_(roots) {}

  void WalkBody(const StmtPtr& body, int copy, Path& path, State& st) {
    std::vector<StmtPtr> stmts = ir::Flatten(body);
    if (in_exit_loop_ > 0) exit_loop_blocks_.insert(body.get());
    path.push_back({body.get(), 0, copy});
    blocks_.push_back(&stmts);
    for (size_t i = 0; i < stmts.size(); ++i) {
      path.back().index = i;
      WalkStmt(stmts[i], path, st);
    }
    blocks_.pop_back();
    path.pop_back();
  }

  std::vector<Node> nodes;
  std::vector<Dependency> dependencies;
  // pipe_barrier(PIPE_ALL) at a statement of a block: before it (phase 1) or
  // after the one before it (phase 0).
  struct BarrierAt {
    const ir::Stmt* block;
    size_t index;
    int phase;
    Span span;
  };
  std::vector<BarrierAt> barriers;
  // Blocks inside a loop that a break or continue may leave early.
  std::set<const ir::Stmt*> exit_loop_blocks_;

 private:
  void WalkStmt(const StmtPtr& stmt, Path& path, State& st) {
    if (auto loop = As<ir::ForStmt>(stmt)) {
      CheckCarried(loop->iter_args, loop->return_vars, stmt->span);
      WalkLoop(stmt, loop->body, path, st);
    } else if (auto loop = As<ir::WhileStmt>(stmt)) {
      CheckCarried(loop->iter_args, loop->return_vars, stmt->span);
      WalkLoop(stmt, loop->body, path, st);
    } else if (auto branch = As<ir::IfStmt>(stmt)) {
      State then_state = st;
      WalkBody(branch->then_body, 0, path, then_state);
      State else_state = st;
      if (branch->else_body) WalkBody(branch->else_body, 0, path, else_state);
      st = Merge(then_state, else_state);
    } else if (auto scope = As<ir::ScopeStmt>(stmt)) {
      WalkBody(scope->body, 0, path, st);
    } else {
      WalkLeaf(stmt, path, st);
    }
  }

  // A loop body runs twice in the walk, so that what one iteration leaves
  // pending meets the next. After the loop anything before it may still be
  // pending too (the loop may run no iteration). A loop that a break or
  // continue may leave early keeps no event across its iterations: it starts
  // every iteration and ends with pipe_barrier(PIPE_ALL).
  void WalkLoop(const StmtPtr& loop, const StmtPtr& body, Path& path, State& st) {
    if (HasLoopExit(body)) {
      AddBarrier({body.get(), 0, 1, loop->span});
      AddBarrier({path.back().block, path.back().index + 1, 0, loop->span});
      ++in_exit_loop_;
      BarrierAll(st);
      WalkBody(body, 0, path, st);
      BarrierAll(st);
      --in_exit_loop_;
      return;
    }
    const State before = st;
    WalkBody(body, 0, path, st);
    WalkBody(body, 1, path, st);
    st = Merge(before, st);
  }

  void WalkLeaf(const StmtPtr& stmt, Path& path, State& st) {
    StatementAccess access = AccessOf(stmt, roots_);
    switch (access.kind) {
      case StatementKind::kNone:
      case StatementKind::kBarrierOther:
      case StatementKind::kUserEvent:
        return;
      case StatementKind::kBarrierAll:
        BarrierAll(st);
        return;
      case StatementKind::kBarrierV:
        st.known[kVectorPipe][kVectorPipe] = counter_;
        return;
      case StatementKind::kUnknownPipe: {
        // A barrier the kernel has beside the statement already serves.
        const std::vector<StmtPtr>& siblings = *blocks_.back();
        const size_t i = path.back().index;
        if (i == 0 || !IsBarrierAll(siblings[i - 1])) AddBarrier({path.back().block, i, 1, stmt->span});
        if (i + 1 == siblings.size() || !IsBarrierAll(siblings[i + 1])) {
          AddBarrier({path.back().block, i + 1, 0, stmt->span});
        }
        BarrierAll(st);
        return;
      }
      case StatementKind::kInstruction:
        Issue(access.instruction, path, stmt->span, st);
        return;
    }
  }

  // Once, however often the walk passes the statement.
  void AddBarrier(BarrierAt at) {
    for (const BarrierAt& b : barriers) {
      if (b.block == at.block && b.index == at.index && b.phase == at.phase) return;
    }
    barriers.push_back(std::move(at));
  }

  bool Ordered(const State& st, int pipe, const Node& earlier) const {
    if (earlier.pipe == pipe && pipe != kVectorPipe) return true;
    return st.known[pipe][earlier.pipe] >= earlier.order;
  }

  void Issue(const Instruction& ins, const Path& path, const Span& span, State& st) {
    const int p = ins.pipe;
    Node node;
    node.pipe = p;
    node.order = ++counter_;
    node.path = path;
    node.span = span;
    const size_t self = nodes.size();
    // Per earlier pipe, the latest access this one conflicts with and does not
    // follow: one event from that pipe orders every earlier access of it.
    std::array<std::optional<size_t>, kPipes> latest;
    for (const Record& rec : st.records) {
      const Node& earlier = nodes[rec.node];
      if (Ordered(st, p, earlier)) continue;
      bool conflict = false;
      for (const Range& r : ins.ranges) conflict |= (r.write || rec.range.write) && Overlap(r, rec.range);
      if (!conflict) continue;
      std::optional<size_t>& slot = latest[earlier.pipe];
      if (!slot || nodes[*slot].order < earlier.order) slot = rec.node;
    }
    // The latest producer first: what its pipe knew may cover the others, whose events are then left out.
    std::vector<size_t> producers;
    for (const auto& slot : latest) {
      if (slot) producers.push_back(*slot);
    }
    std::sort(producers.begin(), producers.end(),
              [&](size_t a, size_t b) { return nodes[a].order > nodes[b].order; });
    for (size_t producer : producers) {
      if (Ordered(st, p, nodes[producer])) continue;
      dependencies.push_back({producer, self});
      if (nodes[producer].pipe == p) {
        st.known[p][p] = node.order - 1;  // a vector barrier: every earlier vector instruction is done
        continue;
      }
      const Known& theirs = nodes[producer].known;
      for (int r = 0; r < kPipes; ++r) st.known[p][r] = std::max(st.known[p][r], theirs[r]);
    }
    node.known = st.known[p];
    node.known[p] = node.order;
    nodes.push_back(std::move(node));
    for (const Range& r : ins.ranges) Remember(st, Record{r, self});
  }

  // An access that a later one of its pipe covers, or a later write ordered
  // after it covers, adds nothing: what follows the later one follows it.
  void Remember(State& st, const Record& rec) {
    const Node& mine = nodes[rec.node];
    auto superseded = [&](const Record& old) {
      if (old.node == rec.node || !Covers(rec.range, old.range)) return false;
      const Node& earlier = nodes[old.node];
      if (earlier.pipe == mine.pipe && (rec.range.write || !old.range.write)) return true;
      return rec.range.write && Ordered(st, mine.pipe, earlier);
    };
    st.records.erase(std::remove_if(st.records.begin(), st.records.end(), superseded), st.records.end());
    st.records.push_back(rec);
  }

  void BarrierAll(State& st) const {
    for (Known& k : st.known) k.fill(counter_);
  }

  // Either path may have been taken: a pipe knows what it knows on both,
  // and what either left pending is pending.
  static State Merge(const State& a, const State& b) {
    State out;
    for (int p = 0; p < kPipes; ++p) {
      for (int q = 0; q < kPipes; ++q) out.known[p][q] = std::min(a.known[p][q], b.known[p][q]);
    }
    out.records = a.records;
    for (const Record& r : b.records) {
      bool seen = std::any_of(out.records.begin(), out.records.end(), [&](const Record& o) { return Same(o, r); });
      if (!seen) out.records.push_back(r);
    }
    return out;
  }

  // The npu backend copies a carried tile that changes buffers with an
  // instruction the IR does not show; InitMemRef gives every carried value one buffer.
  static void CheckCarried(const std::vector<ir::IterArgPtr>& iter_args, const std::vector<ir::VarPtr>& return_vars,
                           const Span& span) {
    for (size_t i = 0; i < iter_args.size(); ++i) {
      auto mine = ir::MemRefOf(iter_args[i]);
      auto init = As<ir::Var>(iter_args[i]->init_value);
      auto theirs = init ? ir::MemRefOf(init) : nullptr;
      auto after = i < return_vars.size() ? ir::MemRefOf(return_vars[i]) : nullptr;
      for (const auto& other : {theirs, after}) {
        if (!mine || !other) continue;
        if (ir::AsConstInt(mine->byte_offset) == ir::AsConstInt(other->byte_offset)) continue;
        ThrowInternalError("InsertPipeSync: the loop-carried tile '" + iter_args[i]->name_hint +
                               "' changes buffers across its loop; InitMemRef gives a carried value one buffer, so "
                               "a pass after it broke that",
                           span);
      }
    }
  }

  bool IsBarrierAll(const StmtPtr& stmt) const { return AccessOf(stmt, roots_).kind == StatementKind::kBarrierAll; }

  const TensorRoots& roots_;
  std::vector<const std::vector<StmtPtr>*> blocks_;  // the statements of each block being walked
  uint64_t counter_ = 0;
  int in_exit_loop_ = 0;
};

// ---------------------------------------------------------------- placement

enum class Form { kDirect, kCarried, kTight, kVectorBarrier };

struct Placement {
  Form shape = Form::kDirect;
  int src = 0;
  int dst = 0;
  const ir::Stmt* block = nullptr;  // where the set and the wait go
  size_t set_after = 0;
  size_t wait_before = 0;
  Step loop;  // kCarried: the loop statement, in its parent block
  Span set_span;
  Span wait_span;
  int event = 0;

  auto Key() const { return std::make_tuple(shape, src, dst, block, set_after, wait_before, loop.block, loop.index); }
};

// The statements of a kernel numbered in program order, each with the
// number before it and after it, so that an event's life is an interval.
class Positions {
 public:
  explicit Positions(const StmtPtr& body) { Number(body); }
  uint64_t Before(const ir::Stmt* block, size_t index) const { return at_.at({block, index}).first; }
  uint64_t After(const ir::Stmt* block, size_t index) const { return at_.at({block, index}).second; }

 private:
  void Number(const StmtPtr& body) {
    std::vector<StmtPtr> stmts = ir::Flatten(body);
    for (size_t i = 0; i < stmts.size(); ++i) {
      uint64_t begin = ++next_;
      const StmtPtr& s = stmts[i];
      if (auto loop = As<ir::ForStmt>(s)) {
        Number(loop->body);
      } else if (auto loop = As<ir::WhileStmt>(s)) {
        Number(loop->body);
      } else if (auto branch = As<ir::IfStmt>(s)) {
        Number(branch->then_body);
        if (branch->else_body) Number(branch->else_body);
      } else if (auto scope = As<ir::ScopeStmt>(s)) {
        Number(scope->body);
      }
      at_[{body.get(), i}] = {begin, ++next_};
    }
  }

  uint64_t next_ = 0;
  std::map<std::pair<const ir::Stmt*, size_t>, std::pair<uint64_t, uint64_t>> at_;
};

// Where the events of one dependency go: both ends in the deepest block that
// holds both (a producer or consumer nested deeper is represented by its
// statement there), or across the back edge of the loop whose two walks
// they came from.
std::optional<Placement> Place(const Node& from, const Node& to, const std::set<const ir::Stmt*>& exit_loop_blocks) {
  Placement p;
  p.src = from.pipe;
  p.dst = to.pipe;
  p.set_span = from.span;
  p.wait_span = to.span;
  for (size_t k = 0; k < from.path.size() && k < to.path.size(); ++k) {
    const Step& a = from.path[k];
    const Step& b = to.path[k];
    if (a.block != b.block) return std::nullopt;  // the two branches of one if: never both
    const bool carried = a.copy != b.copy;
    if (!carried && a.index == b.index) continue;
    p.block = a.block;
    p.set_after = a.index;
    p.wait_before = b.index;
    if (from.pipe == to.pipe) {
      p.shape = Form::kVectorBarrier;
    } else if (exit_loop_blocks.count(a.block) != 0) {
      p.shape = Form::kTight;  // a break or continue between the set and the wait would leave the event set
    } else if (carried && b.index <= a.index) {
      p.shape = Form::kCarried;
      p.loop = from.path[k - 1];
    } else {
      p.shape = Form::kDirect;
    }
    return p;
  }
  ThrowInternalError("InsertPipeSync: a dependency of an instruction on itself", to.span);
}

// Waits of one pipe pair at one place in one block need only the latest set:
// the source pipe finishes in order, so its set after a later statement
// follows the earlier ones too, and the wait is where it is either way.
void MergeWaits(std::vector<Placement>& placements) {
  auto same_wait = [](const Placement& a, const Placement& b) {
    return a.shape == b.shape && a.src == b.src && a.dst == b.dst && a.block == b.block &&
           a.wait_before == b.wait_before && a.loop.block == b.loop.block && a.loop.index == b.loop.index;
  };
  std::vector<Placement> kept;
  for (const Placement& p : placements) {
    if (p.shape == Form::kVectorBarrier) {
      kept.push_back(p);
      continue;
    }
    auto it = std::find_if(kept.begin(), kept.end(), [&](const Placement& k) { return same_wait(k, p); });
    if (it == kept.end()) {
      kept.push_back(p);
    } else if (p.set_after > it->set_after) {
      it->set_after = p.set_after;
      it->set_span = p.set_span;
    }
  }
  placements = std::move(kept);
}

struct Interval {
  uint64_t lo = 0;
  uint64_t hi = 0;
  bool Meets(const Interval& o) const { return lo <= o.hi && o.lo <= hi; }
};

Interval LifeOf(const Placement& p, const Positions& at) {
  switch (p.shape) {
    case Form::kDirect: return {at.After(p.block, p.set_after), at.Before(p.block, p.wait_before)};
    case Form::kCarried: return {at.Before(p.loop.block, p.loop.index), at.After(p.loop.block, p.loop.index)};
    case Form::kTight:
    case Form::kVectorBarrier: break;
  }
  uint64_t here = at.Before(p.block, p.wait_before);
  return {here, here};
}

// Gives every placement of a pipe pair an event no other live one holds; a
// placement that finds none becomes a set right before its wait, and one that
// still finds none a pipe_barrier(PIPE_ALL) (reported by event -1).
void AssignEvents(std::vector<Placement>& placements, const Positions& at) {
  std::map<std::pair<int, int>, std::array<std::vector<Interval>, kEvents>> busy;
  std::vector<size_t> order(placements.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return LifeOf(placements[a], at).lo < LifeOf(placements[b], at).lo;
  });
  for (size_t i : order) {
    Placement& p = placements[i];
    if (p.shape == Form::kVectorBarrier) continue;
    auto& ids = busy[{p.src, p.dst}];
    auto take = [&]() {
      Interval life = LifeOf(p, at);
      for (int e = 0; e < kEvents; ++e) {
        bool free = std::none_of(ids[e].begin(), ids[e].end(), [&](const Interval& o) { return o.Meets(life); });
        if (!free) continue;
        ids[e].push_back(life);
        p.event = e;
        return true;
      }
      return false;
    };
    if (take()) continue;
    p.shape = Form::kTight;
    if (!take()) p.event = -1;
  }
}

// ---------------------------------------------------------------- statements

StmtPtr SyncCall(const char* op, int src, int dst, int event, const Span& span) {
  ir::Attrs kwargs{{"set_pipe", int64_t{src}}, {"wait_pipe", int64_t{dst}}, {"event_id", int64_t{event}}};
  return ir::EvalStmt::Make(ops::OpRegistry::Global().Create(op, {}, std::move(kwargs), span), span);
}

StmtPtr Barrier(const char* op, const Span& span) {
  return ir::EvalStmt::Make(ops::OpRegistry::Global().Create(op, {}, {}, span), span);
}

// Inserted statements sort by block, the index they go before, whether they
// belong after the previous statement (0) or before this one (1), and sets
// before waits before barriers.
struct Pending {
  const ir::Stmt* block;
  size_t index;
  int phase;
  int rank;
  size_t seq;
  StmtPtr stmt;
};

void Emit(const Placement& p, std::vector<Pending>& out) {
  auto add = [&](const ir::Stmt* block, size_t index, int phase, int rank, StmtPtr stmt) {
    out.push_back({block, index, phase, rank, out.size(), std::move(stmt)});
  };
  auto set = [&](const Span& span) { return SyncCall("system.sync_src", p.src, p.dst, p.event, span); };
  auto wait = [&](const Span& span) { return SyncCall("system.sync_dst", p.src, p.dst, p.event, span); };
  if (p.shape == Form::kVectorBarrier) {
    add(p.block, p.wait_before, 1, 2, Barrier("system.bar_v", p.wait_span));
    return;
  }
  if (p.event < 0) {
    add(p.block, p.wait_before, 1, 2, Barrier("system.bar_all", p.wait_span));
    return;
  }
  switch (p.shape) {
    case Form::kCarried:
      add(p.loop.block, p.loop.index, 1, 0, set(p.set_span));        // primes the first iteration's wait
      add(p.loop.block, p.loop.index + 1, 0, 1, wait(p.wait_span));  // takes the last iteration's set
      [[fallthrough]];
    case Form::kDirect:
      add(p.block, p.set_after + 1, 0, 0, set(p.set_span));
      add(p.block, p.wait_before, 1, 1, wait(p.wait_span));
      return;
    case Form::kTight:
      add(p.block, p.wait_before, 1, 0, set(p.set_span));
      add(p.block, p.wait_before, 1, 1, wait(p.wait_span));
      return;
    case Form::kVectorBarrier:
      return;
  }
}

}  // namespace

std::vector<Insertion> PlanPipeSync(const ir::Function& kernel) {
  if (!kernel.body) return {};
  TensorRoots roots(kernel);
  Tracer tracer(roots);
  Path path;
  State state;
  tracer.WalkBody(kernel.body, 0, path, state);

  std::vector<Placement> placements;
  std::set<decltype(Placement().Key())> seen;
  for (const Dependency& d : tracer.dependencies) {
    auto p = Place(tracer.nodes[d.from], tracer.nodes[d.to], tracer.exit_loop_blocks_);
    if (p && seen.insert(p->Key()).second) placements.push_back(*p);
  }
  MergeWaits(placements);
  Positions positions(kernel.body);
  AssignEvents(placements, positions);

  std::vector<Pending> pending;
  for (const Placement& p : placements) Emit(p, pending);
  for (const auto& b : tracer.barriers) {
    pending.push_back({b.block, b.index, b.phase, 2, pending.size(), Barrier("system.bar_all", b.span)});
  }
  std::sort(pending.begin(), pending.end(), [](const Pending& a, const Pending& b) {
    return std::tie(a.block, a.index, a.phase, a.rank, a.seq) < std::tie(b.block, b.index, b.phase, b.rank, b.seq);
  });
  std::vector<Insertion> out;
  for (Pending& p : pending) out.push_back({p.block, p.index, std::move(p.stmt)});
  return out;
}

}  // namespace pypto::passes::pipe_sync
