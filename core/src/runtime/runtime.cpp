#include "pypto/runtime/runtime.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <map>
#include <optional>
#include <tuple>

#include "pypto/backend/launch_recorder.h"

namespace pypto::runtime {

namespace {

// Accesses kept for dependency derivation. Past this many, accesses of
// finished tasks are dropped: they can no longer delay anything, only show up
// in DependenciesOf. Every submit scans the kept accesses, so this bounds the
// cost of a submit while the workers keep up; when they do not, the next
// pruning waits until the history has doubled, so that pruning costs O(1)
// per submit.
constexpr size_t kAccessHistoryLimit = 256;

// How long an idle worker polls for the next block before it sleeps. Waking
// a sleeping thread costs two context switches, more than a small block; a
// loop submitting tasks one by one gives the next in a few microseconds.
constexpr auto kSpinBeforeSleep = std::chrono::microseconds(50);

// The poller looks at deferred conditions again after a pause that doubles from the first to the
// last while none comes to hold: a notify usually lands within microseconds, and a long wait then
// costs little CPU.
constexpr auto kFirstPollPause = std::chrono::microseconds(10);
constexpr auto kMaxPollPause = std::chrono::microseconds(1000);

bool Writes(ArgDirection dir) {
  return dir == ArgDirection::Output || dir == ArgDirection::InOut || dir == ArgDirection::OutputExisting;
}

bool Tracked(ArgDirection dir) { return dir != ArgDirection::NoDep && dir != ArgDirection::Scalar; }

// The clock traces are read in (RunTrace times are differences of it).
int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// When one core of a block ran, read only in traced runs (hence no
// initializers: untraced blocks should not pay for zeroing them).
struct CoreTimes {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  CoreCounters counters;
};

// Whether `inner` provably lies inside `outer`: views of one root with one
// layout whose rectangles nest.
bool Contains(const Tensor& outer, const Tensor& inner) {
  if (outer.storage() != inner.storage() || outer.root_strides() != inner.root_strides()) return false;
  for (size_t i = 0; i < outer.shape().size(); ++i) {
    int64_t ob = outer.root_origin()[i], ib = inner.root_origin()[i];
    if (ib < ob || ib + inner.shape()[i] > ob + outer.shape()[i]) return false;
  }
  return true;
}

// What one core of a block reported; the context's `fault` points here.
struct CoreFault {
  std::atomic<bool>* run_faulted = nullptr;
  bool failed = false;
  std::string instruction;
  std::string file;
  int line = 0;
  std::string message;
};

}  // namespace

struct Runtime::Task {
  TaskId id = 0;
  KernelSet kernels;
  int32_t core_num = 1;
  // All blocks start together (pl.spmd(..., sync_start=True)): block 0 waits for a free cluster per block.
  bool sync_start = false;
  std::vector<TaskArgs::Arg> args;  // holds the tensors' storage alive
  std::vector<PyptoRtTensorDesc> descs;
  std::vector<int64_t> slots;
  std::vector<TaskId> deps;
  std::vector<Task*> successors;
  int pending = 0;
  int blocks_left = 0;
  // Written under mu_; read without it by Record (under submit_mu_).
  std::atomic<bool> finished{false};
  std::vector<BlockRecord> blocks;
  // What its kernels deferred its completion on (DeferCurrentTask), not yet seen to hold; and
  // whether it counts in deferring_.
  std::vector<DeferredCondition> conditions;
  bool deferring = false;
  // Set when the task was submitted while tracing was on; null otherwise.
  struct Record;
  std::unique_ptr<Record> record;
};

// What a traced task records besides what every task keeps. Absolute times
// (NowNs); LastRunTrace makes them relative to the run's first submit.
struct Runtime::Task::Record {
  int64_t submit_begin_ns = 0;
  int64_t submit_end_ns = 0;
  int64_t ready_ns = -1;
  std::vector<TaskId> explicit_deps;
  std::vector<OverlapCause> overlaps;
  std::vector<CoreSpan> spans;
  std::vector<ArgDump> dumps;
};

// A thread that runs one job at a time for a cluster worker.
class Runtime::LaneThread {
 public:
  LaneThread() : thread_([this] { Loop(); }) {}
  ~LaneThread() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

  void Post(std::function<void()> job) {
    std::lock_guard lock(mu_);
    job_ = std::move(job);
    done_ = false;
    cv_.notify_all();
  }

  void Wait() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return done_; });
  }

 private:
  void Loop() {
    std::unique_lock lock(mu_);
    for (;;) {
      cv_.wait(lock, [&] { return stop_ || job_ != nullptr; });
      if (job_ == nullptr) return;
      std::function<void()> job = std::move(job_);
      job_ = nullptr;
      lock.unlock();
      job();
      lock.lock();
      done_ = true;
      cv_.notify_all();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::function<void()> job_;
  bool done_ = true;
  bool stop_ = false;
  std::thread thread_;  // last: starts after the state it reads
};

struct Runtime::Fault {
  TaskId task = 0;
  std::string kernel;
  int32_t block_idx = 0;
  int32_t core_num = 1;
  CoreFault report;
};

const char* ArgDirectionName(ArgDirection dir) {
  switch (dir) {
    case ArgDirection::Input: return "Input";
    case ArgDirection::Output: return "Output";
    case ArgDirection::InOut: return "InOut";
    case ArgDirection::OutputExisting: return "OutputExisting";
    case ArgDirection::NoDep: return "NoDep";
    case ArgDirection::Scalar: return "Scalar";
  }
  return "?";
}

KernelSet KernelSet::Aic(Kernel k) {
  KernelSet s;
  s.aic = std::move(k);
  return s;
}

KernelSet KernelSet::Aiv(Kernel k) {
  KernelSet s;
  s.aiv[0] = std::move(k);
  return s;
}

int KernelSet::members() const { return int(aic.defined()) + int(aiv[0].defined()) + int(aiv[1].defined()); }

std::string KernelSet::name() const {
  std::string out;
  for (const Kernel* k : {&aic, &aiv[0], &aiv[1]}) {
    if (!k->defined()) continue;
    if (!out.empty()) out += "+";
    out += k->name;
  }
  return out;
}

TaskArgs& TaskArgs::AddScalar(int64_t value) {
  args_.push_back({ArgDirection::Scalar, Tensor(), value});
  return *this;
}

TaskArgs& TaskArgs::Add(ArgDirection dir, const Tensor& t) {
  if (dir == ArgDirection::Scalar) ThrowValueError("TaskArgs: a tensor cannot be added as a Scalar argument");
  if (!t.defined()) {
    ThrowValueError(std::string("TaskArgs: argument ") + std::to_string(args_.size()) + " (" + ArgDirectionName(dir) +
                    ") is an undefined tensor");
  }
  if (t.read_only() && Writes(dir)) {
    ThrowValueError(std::string("TaskArgs: argument ") + std::to_string(args_.size()) + " (" + ArgDirectionName(dir) +
                    ") is written by the kernel, but " + t.ToString() +
                    " is read-only memory; pass a writable tensor (numpy: a.copy() or a.flags.writeable = True)");
  }
  args_.push_back({dir, t, 0});
  return *this;
}

Runtime::Runtime(RuntimeOptions options) {
  int n = options.num_clusters;
  if (n <= 0) n = std::max(1u, std::thread::hardware_concurrency());
  core_states_.assign(n, {nullptr, nullptr, nullptr});
  lanes_.resize(n);
  if (options.core_state) {
    for (int c = 0; c < n; ++c) {
      core_states_[c] = {options.core_state(c, CoreType::AIC, 0), options.core_state(c, CoreType::AIV, 0),
                         options.core_state(c, CoreType::AIV, 1)};
    }
  }
  if (options.begin_counting && options.end_counting) {
    begin_counting_ = std::move(options.begin_counting);
    end_counting_ = std::move(options.end_counting);
  }
  if (options.begin_cluster && options.end_member) {
    begin_cluster_ = std::move(options.begin_cluster);
    end_member_ = std::move(options.end_member);
  }
  cluster_busy_.assign(n, false);
  workers_.reserve(n);
  for (int i = 0; i < n; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

Runtime::~Runtime() {
  {
    std::unique_lock lock(mu_);
    // A deferred block (see Release) still runs, on a worker.
    wake_deferred_ = false;
    PublishReady();
    work_cv_.notify_all();
    done_cv_.wait(lock, [&] { return unfinished_ == 0; });
    stopping_ = true;
  }
  work_cv_.notify_all();
  poll_cv_.notify_all();
  for (auto& w : workers_) w.join();
  if (poller_.joinable()) poller_.join();
}

Runtime::Task* Runtime::FindTask(TaskId id) const {
  if (id < run_first_id_ || id >= next_id_) return nullptr;
  return tasks_[id - run_first_id_].get();
}

void Runtime::StartRunIfIdle(RetiredRun& retired) {
  if (run_open_) return;
  run_open_ = true;
  ForgetStaleTrace();
  retired.tasks.swap(tasks_);
  retired.accesses.swap(accesses_);
  access_count_ = 0;
  prune_at_ = kAccessHistoryLimit;
  run_first_id_ = next_id_;
}

void Runtime::UpdateParallelPath() {
  auto path = std::make_shared<ParallelPath>();
  for (size_t i = 0; i < scopes_.size(); ++i) {
    if (scopes_[i] == ScopeMode::Parallel) path->emplace_back(scope_ids_[i], scope_iterations_[i]);
  }
  parallel_path_ = std::move(path);
}

namespace {

// Two accesses made in different iterations of one parallel loop (the first
// open loop where their paths part) are independent.
bool OtherIterationOfALoop(const std::vector<std::pair<int64_t, int64_t>>& now,
                           const std::vector<std::pair<int64_t, int64_t>>& then) {
  for (size_t i = 0; i < now.size() && i < then.size(); ++i) {
    if (now[i].first != then[i].first) return false;
    if (now[i].second != then[i].second) return true;
  }
  return false;
}

}  // namespace

bool Runtime::InManualScope() const { return std::count(scopes_.begin(), scopes_.end(), ScopeMode::Manual) > 0; }

std::vector<TaskId> Runtime::DerivedDeps(const TaskArgs& args, std::vector<OverlapCause>* causes) const {
  std::vector<TaskId> deps;
  const ParallelPath& path = *parallel_path_;
  for (size_t i = 0; i < args.size(); ++i) {
    const TaskArgs::Arg& arg = args.args()[i];
    if (!Tracked(arg.dir)) continue;
    bool writes = Writes(arg.dir);
    auto [lo, hi] = arg.tensor.ByteRange();
    for (const AccessGroup& group : accesses_) {
      if (!path.empty() && OtherIterationOfALoop(path, *group.parallel_path)) continue;
      for (const Access& a : group.accesses) {
        if (!(writes || a.writes) || a.hi <= lo || hi <= a.lo) continue;
        if (!arg.tensor.MayOverlap(a.tensor)) continue;
        deps.push_back(a.task);
        if (causes != nullptr) causes->push_back({a.task, static_cast<int32_t>(i), a.arg});
      }
    }
  }
  return deps;
}

template <typename Pred>
void Runtime::ForgetAccesses(Pred forget) {
  for (AccessGroup& group : accesses_) access_count_ -= std::erase_if(group.accesses, forget);
  std::erase_if(accesses_, [](const AccessGroup& group) { return group.accesses.empty(); });
}

void Runtime::PruneFinishedAccesses() {
  ForgetAccesses([&](const Access& a) { return FindTask(a.task)->finished.load(); });
  prune_at_ = std::max(kAccessHistoryLimit, 2 * access_count_);
}

void Runtime::Record(const TaskArgs& args, TaskId id, bool derived) {
  if (access_count_ > prune_at_) PruneFinishedAccesses();
  const bool in_parallel_loop = !parallel_path_->empty();
  for (size_t i = 0; i < args.size(); ++i) {
    const TaskArgs::Arg& arg = args.args()[i];
    if (!Tracked(arg.dir)) continue;
    bool writes = Writes(arg.dir);
    auto [lo, hi] = arg.tensor.ByteRange();
    // A write ordered after every access it covers stands in for them: any
    // later conflict with those accesses conflicts with this write too. Not
    // inside a parallel loop: its siblings are not ordered after this write,
    // so they still need the accesses it covers.
    if (writes && derived && !in_parallel_loop) {
      ForgetAccesses([&](const Access& a) {
        return a.task != id && lo <= a.lo && a.hi <= hi && Contains(arg.tensor, a.tensor);
      });
    }
    if (accesses_.empty() || accesses_.back().parallel_path != parallel_path_) {
      accesses_.push_back({parallel_path_, {}});
    }
    accesses_.back().accesses.push_back({arg.tensor, lo, hi, writes, static_cast<int32_t>(i), id});
    ++access_count_;
  }
}

TaskId Runtime::Submit(const KernelSet& kernels, const TaskArgs& args, int core_num, const std::vector<TaskId>& deps,
                       bool sync_start) {
  if (kernels.members() == 0) ThrowValueError("Runtime.submit: the task has no kernel");
  if (core_num < 1) {
    ThrowValueError("Runtime.submit: task '" + kernels.name() + "' needs core_num >= 1, got " +
                    std::to_string(core_num));
  }
  if (sync_start && core_num > num_clusters()) {
    ThrowValueError("Runtime.submit: task '" + kernels.name() + "' asks for its " + std::to_string(core_num) +
                    " blocks to start at once (sync_start=True), but the runtime has " +
                    std::to_string(num_clusters()) + " clusters; use core_num <= " + std::to_string(num_clusters()) +
                    " or drop sync_start");
  }
  return Enqueue(kernels, args, core_num, deps, sync_start);
}

TaskId Runtime::SubmitJoin(const std::vector<TaskId>& deps) { return Enqueue(KernelSet(), TaskArgs(), 0, deps); }

TaskId Runtime::Enqueue(const KernelSet& kernels, const TaskArgs& args, int core_num, const std::vector<TaskId>& deps,
                        bool sync_start) {
  const bool traced = tracing_.load(std::memory_order_relaxed);
  const int64_t submit_begin_ns = traced ? NowNs() : 0;
  // Built before the lock is taken: workers wait on it between blocks.
  auto task = std::make_unique<Task>();
  Task* t = task.get();
  if (traced) {
    t->record = std::make_unique<Task::Record>();
    t->record->submit_begin_ns = submit_begin_ns;
  }
  t->kernels = kernels;
  t->core_num = core_num;
  t->sync_start = sync_start && core_num > 1;
  t->args = args.args();
  t->descs.reserve(t->args.size());
  t->slots.reserve(t->args.size());
  for (const auto& arg : t->args) {
    if (arg.dir == ArgDirection::Scalar) {
      t->slots.push_back(arg.scalar);
    } else {
      t->descs.push_back(arg.tensor.Describe());
      t->slots.push_back(reinterpret_cast<int64_t>(&t->descs.back()));
    }
  }
  t->blocks_left = core_num;
  t->blocks.reserve(core_num);

  // The last run's tasks are freed after the locks are released: freeing a
  // tensor may call back into its owner (a DLPack deleter taking the GIL).
  RetiredRun retired;
  std::lock_guard submitting(submit_mu_);
  std::vector<TaskId> all;
  {
    std::lock_guard lock(mu_);
    StartRunIfIdle(retired);
    if (wake_deferred_) {
      wake_deferred_ = false;
      PublishReady();
      WakeWorkers(static_cast<int>(ready_.size()));
    }
  }
  for (TaskId d : deps) {
    if (d < 0 || d >= next_id_) {
      std::string name = core_num == 0 ? std::string("join") : kernels.name();
      ThrowValueError("Runtime.submit: task '" + name + "' depends on task " + std::to_string(d) +
                      ", which was never submitted (ids so far: 0.." + std::to_string(next_id_ - 1) + ")");
    }
    if (d >= run_first_id_) all.push_back(d);  // earlier runs have finished
  }
  if (traced) {
    std::vector<TaskId>& named = t->record->explicit_deps;
    named = all;
    std::sort(named.begin(), named.end());
    named.erase(std::unique(named.begin(), named.end()), named.end());
  }
  // The access history is the submitting side's alone (submit_mu_): scanning
  // it outside mu_ keeps the workers from waiting on a submit between blocks.
  bool derived = !InManualScope();
  if (derived) {
    std::vector<TaskId> found = DerivedDeps(args, traced ? &t->record->overlaps : nullptr);
    all.insert(all.end(), found.begin(), found.end());
  }
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  t->id = next_id_;
  t->deps = all;
  Record(args, t->id, derived);

  std::unique_lock lock(mu_);
  ++next_id_;
  tasks_.push_back(std::move(task));
  ++unfinished_;
  for (TaskId d : all) {
    Task* pred = FindTask(d);
    if (pred->finished) continue;
    pred->successors.push_back(t);
    ++t->pending;
  }
  if (traced) CountTaskInScopes(*t);
  if (t->pending == 0) Release(t, /*from_submit=*/true);
  if (traced) t->record->submit_end_ns = NowNs();
  return t->id;
}

namespace {

const char* ScopeModeName(ScopeMode mode) {
  switch (mode) {
    case ScopeMode::Auto: return "auto";
    case ScopeMode::Manual: return "manual";
    case ScopeMode::Parallel: return "parallel";
  }
  return "?";
}

}  // namespace

void Runtime::ForgetStaleTrace() {
  if (!trace_stale_) return;
  scope_traces_.clear();
  dump_tags_.clear();
  trace_stale_ = false;
}

void Runtime::TagForDump(const Tensor& t) {
  std::lock_guard submitting(submit_mu_);
  std::lock_guard lock(mu_);
  ForgetStaleTrace();
  dump_tags_.insert(t.storage().get());
}

namespace {

// Whether a task's argument is dumped before / after the task runs.
bool DumpedBefore(ArgDirection dir) {
  return dir == ArgDirection::Input || dir == ArgDirection::InOut || dir == ArgDirection::NoDep;
}
bool DumpedAfter(ArgDirection dir) { return dir != ArgDirection::Input && dir != ArgDirection::Scalar; }

}  // namespace

void Runtime::DumpArgs(Task& task, bool after) {
  const ArgsDump mode = args_dump_.load(std::memory_order_relaxed);
  if (!task.record || mode == ArgsDump::Off) return;
  for (size_t i = 0; i < task.args.size(); ++i) {
    const TaskArgs::Arg& arg = task.args[i];
    if (arg.dir == ArgDirection::Scalar || (after ? !DumpedAfter(arg.dir) : !DumpedBefore(arg.dir))) continue;
    if (mode == ArgsDump::Tagged && dump_tags_.count(arg.tensor.storage().get()) == 0) continue;
    task.record->dumps.push_back({static_cast<int32_t>(i), after, arg.tensor.PackedBytes()});
  }
}

void Runtime::BeginScopeTrace(ScopeMode mode) {
  ForgetStaleTrace();
  if (!tracing_.load(std::memory_order_relaxed)) {
    open_scope_traces_.emplace_back();
    return;
  }
  ScopeTrace s;
  const size_t depth = scopes_.size() - 1;
  s.scope_id = scope_ids_[depth];
  s.parent_id = depth > 0 ? scope_ids_[depth - 1] : -1;
  s.mode = ScopeModeName(mode);
  s.depth = static_cast<int32_t>(depth);
  s.begin_ns = NowNs();
  open_scope_traces_.push_back(OpenScopeTrace{std::move(s)});
}

void Runtime::CloseScopeTrace() {
  std::optional<OpenScopeTrace>& s = open_scope_traces_.back();
  if (s) {
    s->trace.end_ns = NowNs();
    scope_traces_.push_back(std::move(s->trace));
  }
  open_scope_traces_.pop_back();
}

void Runtime::CountTaskInScopes(const Task& task) {
  for (size_t i = 0; i < open_scope_traces_.size(); ++i) {
    std::optional<OpenScopeTrace>& open = open_scope_traces_[i];
    if (!open) continue;
    ScopeTrace& s = open->trace;
    ++s.tasks;
    s.dep_edges += static_cast<int64_t>(task.deps.size());
    s.peak_tasks_in_flight = std::max(s.peak_tasks_in_flight, unfinished_);
    s.peak_tensormap_entries = std::max(s.peak_tensormap_entries, static_cast<int64_t>(access_count_));
    if (scopes_[i] == ScopeMode::Parallel && open->last_iteration != scope_iterations_[i]) {
      open->last_iteration = scope_iterations_[i];
      ++s.iterations;
    }
  }
}

void Runtime::RecordAllocation(int64_t bytes) {
  std::lock_guard submitting(submit_mu_);
  for (std::optional<OpenScopeTrace>& s : open_scope_traces_) {
    if (s) s->trace.heap_bytes += bytes;
  }
}

void Runtime::Release(Task* t, bool from_submit) {
  if (fault_ || t->core_num == 0) {
    CompleteTask(t);
    return;
  }
  if (t->record) {
    t->record->ready_ns = NowNs();
    DumpArgs(*t, /*after=*/false);
  }
  for (int32_t b = 0; b < t->core_num; ++b) ready_.push_back({t, b});
  // Waking a worker costs more than a small kernel. A lone block the
  // submitting thread made ready waits for the next submit or for WaitAll,
  // where that thread runs it itself; programs of one task then never hand
  // off to a worker and back. Workers (polling ones too) leave it alone.
  wake_deferred_ = from_submit && ready_.size() == 1;
  PublishReady();
  if (wake_deferred_) return;
  WakeWorkers(t->core_num);
}

void Runtime::WakeWorkers(int blocks) {
  // Busy workers look at the queue before they sleep; only sleeping ones
  // need a signal, and no more of them than there are new blocks.
  if (idle_workers_ == 0) return;
  if (blocks == 1 || idle_workers_ == 1) {
    work_cv_.notify_one();
  } else {
    work_cv_.notify_all();
  }
}

void Runtime::CompleteTask(Task* done) {
  std::vector<Task*> work{done};
  while (!work.empty()) {
    Task* t = work.back();
    work.pop_back();
    if (!fault_ && t->core_num > 0) DumpArgs(*t, /*after=*/true);
    if (t->deferring) {
      t->deferring = false;
      --deferring_;
    }
    t->finished = true;
    --unfinished_;
    for (Task* s : t->successors) {
      if (--s->pending != 0) continue;
      if (fault_) {
        work.push_back(s);
      } else {
        Release(s, /*from_submit=*/false);
      }
    }
  }
  if (unfinished_ == 0) done_cv_.notify_all();
}

void Runtime::FinishBlock(Task* t) {
  if (--t->blocks_left != 0) return;
  // Its kernels returned, but completing waits for the conditions they deferred it on.
  if (!t->conditions.empty() && !fault_) {
    deferred_.push_back(t);
    poll_now_ = true;
    if (!poller_.joinable()) poller_ = std::thread([this] { PollerLoop(); });
    poll_cv_.notify_one();
    return;
  }
  CompleteTask(t);
}

void Runtime::Defer(Task* t, DeferredCondition condition) {
  // Like a wait that returns at once: a condition holding already defers nothing.
  if (condition.holds()) return;
  std::lock_guard lock(mu_);
  const std::string task = "task " + std::to_string(t->id) + " ('" + t->kernels.name() + "')";
  if (t->conditions.size() >= kMaxDeferredConditions) {
    ThrowValueError("pld.system.defer_wait: " + task + " already defers its completion on " +
                    std::to_string(kMaxDeferredConditions) + " conditions, the most one task may; split the waits "
                    "over several defer_wait tasks and give the continuation deps= on all of them");
  }
  if (!t->deferring) {
    if (deferring_ >= kMaxDeferredTasks) {
      ThrowValueError("pld.system.defer_wait: " + std::to_string(deferring_) + " tasks are deferred already, the "
                      "most the scheduler holds at once (" + std::to_string(kMaxDeferredTasks) + "), so " + task +
                      " cannot defer too; order the defer_wait tasks (deps=) so fewer are outstanding at once, or "
                      "wait with pld.system.wait");
    }
    t->deferring = true;
    ++deferring_;
  }
  t->conditions.push_back(std::move(condition));
}

void Runtime::PollerLoop() {
  std::unique_lock lock(mu_);
  auto pause = kFirstPollPause;
  for (;;) {
    poll_cv_.wait(lock, [&] { return stopping_ || !deferred_.empty(); });
    if (stopping_) return;
    if (PollDeferred(lock)) {
      pause = kFirstPollPause;
      continue;
    }
    if (poll_cv_.wait_for(lock, pause, [&] { return stopping_ || poll_now_; })) {
      pause = kFirstPollPause;
    } else {
      pause = std::min(pause * 2, kMaxPollPause);
    }
  }
}

bool Runtime::PollDeferred(std::unique_lock<std::mutex>& lock) {
  poll_now_ = false;
  // After a fault no task starts, so a deferred one would wait for a signal that may never come.
  const bool cancel = fault_ != nullptr;
  const std::vector<Task*> tasks = deferred_;
  // The conditions are the poller's alone once their task is deferred: polled without mu_, which
  // the workers need, as a condition may take a while (an engine's read of a remote cell).
  struct Failure {
    Task* task;
    std::string instruction, file, message;
    int32_t line;
  };
  std::vector<Task*> done;
  std::vector<Failure> failures;
  lock.unlock();
  for (Task* t : tasks) {
    if (cancel) {
      done.push_back(t);
      continue;
    }
    std::vector<DeferredCondition> open;
    const DeferredCondition* polled = nullptr;
    try {
      for (DeferredCondition& c : t->conditions) {
        polled = &c;
        if (!c.holds()) open.push_back(std::move(c));
      }
    } catch (const std::exception& e) {
      failures.push_back({t, polled->instruction, polled->file, e.what(), polled->line});
      continue;
    }
    t->conditions = std::move(open);
    if (t->conditions.empty()) done.push_back(t);
  }
  lock.lock();
  for (const Failure& f : failures) {
    if (!fault_ || f.task->id < fault_->task) {
      CoreFault report{&run_faulted_, true, f.instruction, f.file, f.line, f.message};
      fault_ = std::make_unique<Fault>(Fault{f.task->id, f.task->kernels.name(), 0, f.task->core_num, report});
    }
    run_faulted_.store(true);
    DrainReady();
    done.push_back(f.task);
  }
  for (Task* t : done) {
    std::erase(deferred_, t);
    CompleteTask(t);
  }
  return !done.empty();
}

int Runtime::FreeCluster() const {
  for (size_t c = 0; c < cluster_busy_.size(); ++c) {
    if (!cluster_busy_[c]) return static_cast<int>(c);
  }
  return -1;
}

int Runtime::FreeClusters() const {
  return static_cast<int>(std::count(cluster_busy_.begin(), cluster_busy_.end(), false));
}

bool Runtime::CanStartBlock() const {
  if (ready_.empty() || FreeCluster() < 0) return false;
  // A sync_start task's first block takes the clusters of all its blocks: they lead the FIFO queue, so no
  // other block can take one of those clusters before they start.
  const Block& next = ready_.front();
  return !next.task->sync_start || next.block_idx != 0 || FreeClusters() >= next.task->core_num;
}

bool Runtime::WorkerCanStartBlock() const { return !wake_deferred_ && CanStartBlock(); }

void Runtime::PublishReady() {
  ready_count_.store(wake_deferred_ ? 0 : ready_.size(), std::memory_order_relaxed);
}

void Runtime::RunNextBlock(std::unique_lock<std::mutex>& lock) {
  int cluster = FreeCluster();
  cluster_busy_[cluster] = true;
  Block block = ready_.front();
  ready_.pop_front();
  if (ready_.empty()) wake_deferred_ = false;
  PublishReady();
  // The other blocks of a sync_start task start now, each on a worker of its own.
  if (block.task->sync_start && block.block_idx == 0) WakeWorkers(block.task->core_num - 1);
  lock.unlock();
  RunBlock(block, cluster);
  lock.lock();
  cluster_busy_[cluster] = false;
  FinishBlock(block.task);
  // This thread goes on with the next ready block itself. Another thread is
  // worth waking only for a block beyond that one with a cluster of its own:
  // waking a worker that finds no free cluster costs two context switches.
  if (ready_.size() > 1 && FreeClusters() > 1) WakeWorkers(1);
}

void Runtime::SpinForWork(std::unique_lock<std::mutex>& lock) {
  lock.unlock();
  const auto until = std::chrono::steady_clock::now() + kSpinBeforeSleep;
  while (ready_count_.load(std::memory_order_relaxed) == 0 && std::chrono::steady_clock::now() < until) {
    std::this_thread::yield();
  }
  lock.lock();
}

void Runtime::WorkerLoop() {
  std::unique_lock lock(mu_);
  for (;;) {
    if (!stopping_ && !WorkerCanStartBlock()) SpinForWork(lock);
    ++idle_workers_;
    work_cv_.wait(lock, [&] { return stopping_ || WorkerCanStartBlock(); });
    --idle_workers_;
    if (stopping_) return;
    RunNextBlock(lock);
  }
}

namespace {

struct Member {
  const Kernel* kernel;
  PyptoRtCoreType core_type;
  int32_t subblock;
};

thread_local void* current_core_state = nullptr;
thread_local const PyptoRtCoreContext* current_context = nullptr;
// The runtime and task whose kernel the calling thread runs, for DeferCurrentTask.
thread_local Runtime* current_runtime = nullptr;
thread_local Runtime::Task* current_task = nullptr;

// The runtime's counting hooks (RuntimeOptions::begin_counting, end_counting).
struct Counting {
  const std::function<void(void*)>& begin;
  const std::function<void(void*, CoreCounters&)>& end;
};

// `times` is null unless the task is traced; `counting` null unless it is
// traced and the cores count.
void RunMember(Runtime* runtime, Runtime::Task* task, const Member& m, const int64_t* slots, PyptoRtCoreContext& ctx,
               CoreFault& fault, CoreTimes* times, const Counting* counting) {
  ctx.fault = &fault;
  current_core_state = ctx.core_state;
  current_context = &ctx;
  current_runtime = runtime;
  current_task = task;
  if (counting != nullptr) counting->begin(ctx.core_state);
  if (times != nullptr) times->start_ns = NowNs();
  try {
    m.kernel->fn(slots, &ctx);
  } catch (const std::exception& e) {
    pypto_rt_kernel_fail(&ctx, "", nullptr, 0, e.what());
  } catch (...) {
    pypto_rt_kernel_fail(&ctx, "", nullptr, 0, "the kernel threw a non-standard exception");
  }
  if (times != nullptr) times->end_ns = NowNs();
  if (counting != nullptr) counting->end(ctx.core_state, times->counters);
  current_core_state = nullptr;
  current_context = nullptr;
  current_runtime = nullptr;
  current_task = nullptr;
}

}  // namespace

void* CurrentCoreState() { return current_core_state; }

const PyptoRtCoreContext* CurrentCoreContext() { return current_context; }

void DeferCurrentTask(DeferredCondition condition) {
  if (current_task == nullptr) {
    ThrowValueError("pld.system.defer_wait defers the completion of the task whose kernel calls it, so only a "
                    "kernel the runtime runs may call it");
  }
  current_runtime->Defer(current_task, std::move(condition));
}

void Runtime::RunBlock(const Block& block, int cluster_id) {
  Task* t = block.task;
  // The block left the ready queue just before this call.
  const bool traced = t->record != nullptr;
  const int64_t dispatch_ns = traced ? NowNs() : 0;
  std::array<CoreTimes, 3> times;
  const Counting counting{begin_counting_, end_counting_};
  const Counting* counts = traced && begin_counting_ ? &counting : nullptr;
  // Fixed arrays, not vectors: a block of a small kernel costs little more
  // than its allocations would.
  std::array<Member, 3> members;
  size_t count = 0;
  if (t->kernels.aic.defined()) members[count++] = {&t->kernels.aic, PYPTO_RT_AIC, 0};
  for (int lane = 0; lane < 2; ++lane) {
    if (t->kernels.aiv[lane].defined()) members[count++] = {&t->kernels.aiv[lane], PYPTO_RT_AIV, lane};
  }
  std::array<PyptoRtCoreContext, 3> contexts;
  std::array<CoreFault, 3> faults;
  // Each member's core in the cluster (0 the AIC, 1 + lane an AIV lane), and all of them as bits.
  std::array<int, 3> member_slots{};
  uint32_t member_mask = 0;
  for (size_t i = 0; i < count; ++i) {
    int slot = members[i].core_type == PYPTO_RT_AIC ? 0 : 1 + members[i].subblock;
    member_slots[i] = slot;
    member_mask |= 1u << slot;
    contexts[i] = {block.block_idx,  t->core_num, members[i].subblock, members[i].core_type, cluster_id,
                   nullptr,          core_states_[cluster_id][slot]};
    faults[i].run_faulted = &run_faulted_;
  }
  // PYPTO_RECORD_LAUNCHES: records the block's launches (backend/launch_recorder.h); off, a flag test.
  backend::BlockRecording recording(t->kernels, t->args, t->slots.data(), contexts.data(), count, t->sync_start);
  const bool cluster_task = begin_cluster_ && t->kernels.aic.defined() && count > 1;
  if (cluster_task) begin_cluster_(cluster_id, t->kernels.name(), member_mask);
  auto run = [&](size_t i) {
    RunMember(this, t, members[i], t->slots.data(), contexts[i], faults[i], traced ? &times[i] : nullptr, counts);
    if (cluster_task) end_member_(cluster_id, member_slots[i]);
  };
  // The cores of a cluster task exchange tiles while they run, so each runs
  // on its own thread: the first on the worker, the others on the cluster's
  // lane threads.
  auto& lanes = lanes_[cluster_id];
  for (size_t i = 1; i < count; ++i) {
    auto& lane = lanes[i - 1];
    if (!lane) lane = std::make_unique<LaneThread>();
    lane->Post([&run, i] { run(i); });
  }
  run(0);
  for (size_t i = 1; i < count; ++i) lanes[i - 1]->Wait();

  std::lock_guard lock(mu_);
  t->blocks.push_back({block.block_idx, cluster_id});
  if (traced) {
    const int64_t retire_ns = NowNs();
    for (size_t i = 0; i < count; ++i) {
      CoreType type = members[i].core_type == PYPTO_RT_AIC ? CoreType::AIC : CoreType::AIV;
      t->record->spans.push_back({block.block_idx, cluster_id, type, members[i].subblock, dispatch_ns,
                                  times[i].start_ns, times[i].end_ns, retire_ns, times[i].counters});
    }
  }
  for (size_t i = 0; i < count; ++i) {
    if (!faults[i].failed) continue;
    if (fault_ && fault_->task <= t->id) break;
    fault_ = std::make_unique<Fault>(Fault{t->id, members[i].kernel->name, block.block_idx, t->core_num, faults[i]});
    DrainReady();
    // Deferred tasks wait for signals this run may no longer send: the poller cancels them.
    poll_now_ = true;
    poll_cv_.notify_one();
    break;
  }
}

void Runtime::DrainReady() {
  std::deque<Block> dropped;
  dropped.swap(ready_);
  ready_count_.store(0, std::memory_order_relaxed);
  wake_deferred_ = false;
  for (const Block& b : dropped) FinishBlock(b.task);
}

void Runtime::BeginScope(ScopeMode mode) {
  std::lock_guard submitting(submit_mu_);
  // A parallel loop may sit in a manual scope (where it changes nothing);
  // other scopes may not.
  if (mode != ScopeMode::Parallel && InManualScope()) {
    ThrowValueError("Runtime.scope_begin: no AUTO or MANUAL scope may open inside a MANUAL scope; close it first");
  }
  scopes_.push_back(mode);
  scope_ids_.push_back(next_scope_id_++);
  scope_iterations_.push_back(0);
  BeginScopeTrace(mode);
  if (mode == ScopeMode::Parallel) UpdateParallelPath();
}

void Runtime::NextIteration() {
  std::lock_guard submitting(submit_mu_);
  for (size_t i = scopes_.size(); i-- > 0;) {
    if (scopes_[i] != ScopeMode::Parallel) continue;
    ++scope_iterations_[i];
    UpdateParallelPath();
    return;
  }
  ThrowValueError("Runtime.parallel_next: no PARALLEL scope is open");
}

void Runtime::EndScope() {
  std::lock_guard submitting(submit_mu_);
  if (scopes_.empty()) ThrowValueError("Runtime.scope_end: no scope is open");
  bool parallel = scopes_.back() == ScopeMode::Parallel;
  CloseScopeTrace();
  scopes_.pop_back();
  scope_ids_.pop_back();
  scope_iterations_.pop_back();
  if (parallel) UpdateParallelPath();
}

void Runtime::WaitAll() {
  std::lock_guard submitting(submit_mu_);
  std::unique_lock lock(mu_);
  // The waiting thread runs ready blocks itself while a cluster is free: a
  // small program then finishes without a hand-off to a worker and back,
  // which costs more than its kernels.
  while (unfinished_ != 0) {
    if (CanStartBlock()) {
      RunNextBlock(lock);
      continue;
    }
    // Every cluster is busy, so this thread cannot run a block it deferred
    // (see Release); a worker must, or the block waits for ever when the
    // running ones need it (a kernel waiting on a signal another sends).
    if (wake_deferred_) {
      wake_deferred_ = false;
      PublishReady();
      WakeWorkers(static_cast<int>(ready_.size()));
    }
    done_cv_.wait(lock, [&] { return unfinished_ == 0 || CanStartBlock(); });
  }
  run_open_ = false;
  run_faulted_ = false;
  std::unique_ptr<Fault> fault = std::move(fault_);
  size_t open_scopes = scopes_.size();
  while (!open_scope_traces_.empty()) CloseScopeTrace();
  trace_stale_ = true;
  scopes_.clear();
  scope_ids_.clear();
  scope_iterations_.clear();
  UpdateParallelPath();
  if (fault) {
    const CoreFault& r = fault->report;
    std::string where = r.instruction.empty() ? "" : " in " + r.instruction;
    if (r.line > 0) where += " at " + (r.file.empty() ? std::string("line ") : r.file + ":") + std::to_string(r.line);
    std::string block = fault->core_num > 1 ? ", block " + std::to_string(fault->block_idx) + " of " +
                                                  std::to_string(fault->core_num)
                                            : "";
    std::string message = "kernel '" + fault->kernel + "' (task " + std::to_string(fault->task) + block +
                          ") faulted" + where + ": " + r.message +
                          "; tasks not yet started were cancelled";
    Span span = r.line > 0 ? Span(r.file, r.line, 0) : Span();
    throw Error(ErrorKind::kRuntime, message, span);
  }
  if (open_scopes != 0) {
    ThrowValueError("Runtime.wait: " + std::to_string(open_scopes) +
                    " scope(s) were still open; every scope_begin needs a scope_end");
  }
}

std::vector<TaskId> Runtime::DependenciesOf(TaskId id) const {
  std::lock_guard lock(mu_);
  Task* t = FindTask(id);
  if (t == nullptr) ThrowValueError("Runtime.dependencies_of: task " + std::to_string(id) + " is not in the last run");
  return t->deps;
}

std::vector<BlockRecord> Runtime::BlocksOf(TaskId id) const {
  std::lock_guard lock(mu_);
  Task* t = FindTask(id);
  if (t == nullptr) ThrowValueError("Runtime.blocks_of: task " + std::to_string(id) + " is not in the last run");
  std::vector<BlockRecord> blocks = t->blocks;
  std::sort(blocks.begin(), blocks.end(), [](const BlockRecord& a, const BlockRecord& b) { return a.block_idx < b.block_idx; });
  return blocks;
}

namespace {

// Numbers the storage roots a run's arguments view, in order of first use,
// and widens each root's extent to cover every view of it.
class TensorTable {
 public:
  int64_t IdOf(const Tensor& view) {
    auto [it, fresh] = ids_.try_emplace(view.storage().get(), static_cast<int64_t>(tensors_.size()));
    if (fresh) {
      const Storage& root = *view.storage();
      tensors_.push_back({it->second, reinterpret_cast<uintptr_t>(root.base()), root.bytes(), view.dtype(), {}});
    }
    Widen(tensors_[it->second], view);
    return it->second;
  }

  std::vector<TensorTrace> Take() { return std::move(tensors_); }

 private:
  static void Widen(TensorTrace& root, const Tensor& view) {
    const Dims& origin = view.root_origin();
    size_t rank = std::min(origin.size(), view.shape().size());
    if (root.shape.size() < rank) root.shape.resize(rank, 0);
    for (size_t d = 0; d < rank; ++d) root.shape[d] = std::max(root.shape[d], origin[d] + view.shape()[d]);
  }

  std::map<const Storage*, int64_t> ids_;
  std::vector<TensorTrace> tensors_;
};

ArgTrace TraceArg(const TaskArgs::Arg& arg, int32_t index, TensorTable& tensors) {
  ArgTrace out;
  out.index = index;
  out.direction = arg.dir;
  if (arg.dir == ArgDirection::Scalar) {
    out.scalar = arg.scalar;
    return out;
  }
  out.tensor_id = tensors.IdOf(arg.tensor);
  out.shape.assign(arg.tensor.shape().begin(), arg.tensor.shape().end());
  out.offsets.assign(arg.tensor.root_origin().begin(), arg.tensor.root_origin().end());
  return out;
}

// Blocks in order, and within a block the AIC before the AIV lanes: the
// order workers finished them in says nothing.
void SortSpans(std::vector<CoreSpan>& spans) {
  std::sort(spans.begin(), spans.end(), [](const CoreSpan& a, const CoreSpan& b) {
    return std::tuple(a.block_idx, a.core_type != CoreType::AIC, a.lane) <
           std::tuple(b.block_idx, b.core_type != CoreType::AIC, b.lane);
  });
}

TaskTrace TraceOfTask(const Runtime::Task& task, int64_t origin_ns, TensorTable& tensors) {
  const Runtime::Task::Record& record = *task.record;
  TaskTrace out;
  out.id = task.id;
  out.core_num = task.core_num;
  out.kernel = task.core_num == 0 ? std::string("join") : task.kernels.name();
  for (const Kernel* k : {&task.kernels.aic, &task.kernels.aiv[0], &task.kernels.aiv[1]}) {
    if (k->defined()) out.kernels.push_back(k->name);
  }
  for (size_t i = 0; i < task.args.size(); ++i) {
    out.args.push_back(TraceArg(task.args[i], static_cast<int32_t>(i), tensors));
  }
  out.deps = task.deps;
  out.explicit_deps = record.explicit_deps;
  out.overlaps = record.overlaps;
  out.submit_begin_ns = record.submit_begin_ns - origin_ns;
  out.submit_end_ns = record.submit_end_ns - origin_ns;
  out.ready_ns = record.ready_ns < 0 ? -1 : record.ready_ns - origin_ns;
  for (CoreSpan span : record.spans) {
    span.dispatch_ns -= origin_ns;
    span.start_ns -= origin_ns;
    span.end_ns -= origin_ns;
    span.retire_ns -= origin_ns;
    for (PipeWait& w : span.counters.pipe_waits) {
      w.start_ns -= origin_ns;
      w.end_ns -= origin_ns;
    }
    out.spans.push_back(span);
  }
  SortSpans(out.spans);
  out.dumps = record.dumps;
  return out;
}

}  // namespace

RunTrace Runtime::LastRunTrace() const {
  std::lock_guard submitting(submit_mu_);
  std::lock_guard lock(mu_);
  RunTrace trace;
  trace.clusters = num_clusters();
  TensorTable tensors;
  // Times count from the run's first traced event: a submit, or a scope opened before it.
  std::optional<int64_t> origin_ns;
  for (const auto& task : tasks_) {
    if (task->record) {
      origin_ns = task->record->submit_begin_ns;
      break;
    }
  }
  for (const ScopeTrace& s : scope_traces_) {
    if (!origin_ns || s.begin_ns < *origin_ns) origin_ns = s.begin_ns;
  }
  for (const auto& task : tasks_) {
    if (task->record) trace.tasks.push_back(TraceOfTask(*task, *origin_ns, tensors));
  }
  trace.tensors = tensors.Take();
  for (ScopeTrace s : scope_traces_) {
    s.begin_ns -= *origin_ns;
    s.end_ns -= *origin_ns;
    trace.scopes.push_back(std::move(s));
  }
  std::sort(trace.scopes.begin(), trace.scopes.end(),
            [](const ScopeTrace& a, const ScopeTrace& b) { return a.begin_ns < b.begin_ns; });
  return trace;
}

}  // namespace pypto::runtime

extern "C" {

void pypto_rt_kernel_fail(PyptoRtCoreContext* ctx, const char* instruction, const char* source_file,
                          int32_t source_line, const char* message) {
  auto* fault = static_cast<pypto::runtime::CoreFault*>(ctx->fault);
  if (fault == nullptr || fault->failed) return;  // the first report of a core wins
  fault->failed = true;
  fault->instruction = instruction ? instruction : "";
  fault->file = source_file ? source_file : "";
  fault->line = source_line;
  fault->message = message ? message : "";
  fault->run_faulted->store(true);
}

int32_t pypto_rt_kernel_faulted(const PyptoRtCoreContext* ctx) {
  const auto* fault = static_cast<const pypto::runtime::CoreFault*>(ctx->fault);
  return fault != nullptr && fault->run_faulted->load() ? 1 : 0;
}

}
