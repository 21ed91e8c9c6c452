// The task runtime of one program run: orchestration code submits tasks
// (a kernel, its arguments with directions, a block count), the runtime
// derives the order between them and runs ready tasks on worker threads that
// stand for the platform's clusters (1 AIC + 2 AIV each).
//
// Order: task B waits for an earlier task A when B lists A in its explicit
// deps, or when an argument of B may overlap an argument of A (same bytes,
// see Tensor::MayOverlap) and at least one of the two writes it (RAW, WAR and
// WAW). NoDep arguments and scalars never order anything; tasks submitted in a
// MANUAL scope are ordered by their explicit deps only (later tasks still see
// what they wrote). Anything not ordered may run concurrently, so a program
// whose conflicting accesses are all ordered gives the same result on every
// run and with any number of workers.
#pragma once

#include <array>
#include <atomic>
#include <functional>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "pypto/runtime/c_api.h"
#include "pypto/runtime/tensor.h"
#include "pypto/runtime/trace.h"
#include "pypto/support/error.h"

namespace pypto::runtime {

using KernelFn = PyptoRtKernelFn;
using CoreContext = PyptoRtCoreContext;

// Auto: overlapping regions order tasks. Manual: only explicit deps do.
// Parallel (a pl.parallel loop): tasks of different iterations (NextIteration
// starts each) are independent, as the loop asserts; tasks of one iteration,
// and everything outside the loop, are ordered as in an Auto scope.
enum class ScopeMode { Auto, Manual, Parallel };

// How a task uses an argument (the call-site directions of the compiler);
// the enum is in trace.h.
const char* ArgDirectionName(ArgDirection dir);

struct Kernel {
  std::string name;
  KernelFn fn = nullptr;
  bool defined() const { return fn != nullptr; }
};

// The kernels one block runs. A plain AIC or AIV task sets one member; a
// cluster (Group) task sets the AIC and one or two AIV lanes, which run
// concurrently on one cluster; two AIV lanes alone are a dual-AIV task.
struct KernelSet {
  Kernel aic;
  Kernel aiv[2];

  static KernelSet Aic(Kernel k);
  static KernelSet Aiv(Kernel k);
  int members() const;
  std::string name() const;  // the kernel names joined by '+'
};

class TaskArgs {
 public:
  struct Arg {
    ArgDirection dir;
    Tensor tensor;       // all but scalars
    int64_t scalar = 0;  // scalars
  };

  TaskArgs& AddInput(const Tensor& t) { return Add(ArgDirection::Input, t); }
  TaskArgs& AddOutput(const Tensor& t) { return Add(ArgDirection::Output, t); }
  TaskArgs& AddInOut(const Tensor& t) { return Add(ArgDirection::InOut, t); }
  TaskArgs& AddOutputExisting(const Tensor& t) { return Add(ArgDirection::OutputExisting, t); }
  TaskArgs& AddNoDep(const Tensor& t) { return Add(ArgDirection::NoDep, t); }
  TaskArgs& AddScalar(int64_t value);
  TaskArgs& Add(ArgDirection dir, const Tensor& t);

  const std::vector<Arg>& args() const { return args_; }
  size_t size() const { return args_.size(); }

 private:
  std::vector<Arg> args_;
};

struct RuntimeOptions {
  using CoreStateFn = std::function<void*(int cluster_id, CoreType type, int lane)>;

  RuntimeOptions() = default;
  explicit RuntimeOptions(int clusters, CoreStateFn state = {})
      : num_clusters(clusters), core_state(std::move(state)) {}

  int num_clusters = 0;  // worker threads; <= 0: one per hardware thread
  // Called once per core (cluster, core type, AIV lane) when the runtime
  // starts; what it returns is that core's CoreContext::core_state for every
  // block the core runs. The caller owns it and keeps it alive.
  CoreStateFn core_state;
  // Around every kernel of a traced task, when set: `begin_counting` turns a
  // core's performance counters on and zeroes them, `end_counting` reads them
  // and turns them off. The simulator provides both (SimulatedCores).
  std::function<void(void* core_state)> begin_counting;
  std::function<void(void* core_state, CoreCounters& out)> end_counting;
  // Around every block of a cluster task (an AIC kernel with AIV kernels),
  // when set: `begin_cluster` before its kernels start, with the task's name
  // and its members (bit 0 the AIC, bit 1 + lane AIV lane `lane`), and
  // `end_member` on each member's thread as its kernel returns. The
  // simulator's cross-core pipes (SimulatedCores) need both: a pipe starts
  // empty for each block and knows which peers can still serve a wait.
  std::function<void(int cluster_id, const std::string& kernel, uint32_t members)> begin_cluster;
  std::function<void(int cluster_id, int member)> end_member;
};

// A condition a running task's kernel hands the runtime (pld.system.defer_wait): the task does not
// complete when its kernels return, but once every condition it registered holds. Its core is free
// meanwhile; its dependents wait.
struct DeferredCondition {
  // Polled off the cores, by the runtime's poller thread, until it returns true. It throws (a
  // pypto::Error) once it never will, past its deadline say: the task then fails like a kernel
  // that faulted in `instruction` at file:line, with the exception's text.
  std::function<bool()> holds;
  std::string instruction;
  std::string file;
  int32_t line = 0;
};

// The scheduler's table of deferred conditions: per task, and tasks deferred at once.
inline constexpr size_t kMaxDeferredConditions = 64;
inline constexpr size_t kMaxDeferredTasks = 64;

// Where and how one block ran; kept per task for tests and traces.
struct BlockRecord {
  int32_t block_idx = 0;
  int32_t cluster_id = 0;
};

class Runtime {
 public:
  explicit Runtime(RuntimeOptions options = {});
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  int num_clusters() const { return static_cast<int>(workers_.size()); }

  // Queues a task of `core_num` blocks. Returns its id (ids grow across runs
  // and are never reused). Deps naming finished tasks are already satisfied;
  // an id never submitted is a ValueError. With `sync_start`, no block starts
  // until every block can start at once (a cluster free for each), so blocks
  // may wait for each other; more blocks than clusters is a ValueError.
  TaskId Submit(const KernelSet& kernels, const TaskArgs& args, int core_num = 1, const std::vector<TaskId>& deps = {},
                bool sync_start = false);
  // A join (pl.system.task_dummy): a task without a kernel that finishes as
  // soon as `deps` have, so one id can stand for many.
  TaskId SubmitJoin(const std::vector<TaskId>& deps);

  void BeginScope(ScopeMode mode);
  // Starts the next iteration of the innermost open Parallel scope.
  void NextIteration();
  void EndScope();

  // Blocks until every submitted task finished or was cancelled. After a
  // kernel fault, no new task starts; running ones finish, and this throws
  // the first fault (lowest task id) as a pypto::Error naming the kernel, the
  // instruction and the source line. Either way the runtime is ready for the
  // next run.
  void WaitAll();

  // The tasks a task waited for at submit (explicit and derived, sorted).
  // In long runs, tasks that had already finished may be missing: their
  // accesses are forgotten once more than a few hundred are kept.
  std::vector<TaskId> DependenciesOf(TaskId id) const;
  // Where each block of a finished task of the current or last run ran.
  std::vector<BlockRecord> BlocksOf(TaskId id) const;

  // While on, tasks submitted record what LastRunTrace returns: a clock read
  // per submit and per core a block runs on. Off (the default) they record
  // nothing, so runs that do not ask for a trace pay only a flag test.
  void SetTracing(bool on) { tracing_.store(on, std::memory_order_relaxed); }
  // What traced tasks dump of their tensor arguments (see ArgDump).
  void SetArgsDump(ArgsDump mode) { args_dump_.store(mode, std::memory_order_relaxed); }
  // Marks `t`'s storage for ArgsDump::Tagged in the current run (pl.dump_tag).
  void TagForDump(const Tensor& t);
  // The orchestration created a tensor of `bytes` (pypto_rt_tensor_create):
  // counted in the heap bytes of the traced scopes open now.
  void RecordAllocation(int64_t bytes);
  // The current or last run's tasks that were submitted while tracing was on,
  // with the tensors their arguments view. Call it after WaitAll.
  RunTrace LastRunTrace() const;

  struct Task;
  struct Fault;
  class LaneThread;

 private:
  friend void DeferCurrentTask(DeferredCondition condition);
  // (scope instance, iteration) of every open parallel scope, outermost first.
  using ParallelPath = std::vector<std::pair<int64_t, int64_t>>;
  struct Access {
    Tensor tensor;
    uintptr_t lo, hi;  // tensor.ByteRange(), the cheap first test
    bool writes;
    int32_t arg;       // the argument's index in its task (traces name it)
    TaskId task;
  };
  // Accesses recorded one after another under the same open parallel
  // scopes: a task in a parallel loop skips the groups of the loop's other
  // iterations whole, however many accesses they hold.
  struct AccessGroup {
    std::shared_ptr<const ParallelPath> parallel_path;
    std::vector<Access> accesses;
  };
  struct Block {
    Task* task;
    int32_t block_idx;
  };

  struct RetiredRun {
    std::vector<std::unique_ptr<Task>> tasks;
    std::vector<AccessGroup> accesses;
  };

  void StartRunIfIdle(RetiredRun& retired);
  // The bookkeeping of traced scopes (under submit_mu_).
  void BeginScopeTrace(ScopeMode mode);
  // Clears the last run's scope traces and dump tags once the next run begins.
  void ForgetStaleTrace();
  // Copies the arguments of a traced task that ArgsDump selects, before or after it runs (under mu_).
  void DumpArgs(Task& task, bool after);
  void CloseScopeTrace();
  void CountTaskInScopes(const Task& task);
  TaskId Enqueue(const KernelSet& kernels, const TaskArgs& args, int core_num, const std::vector<TaskId>& deps,
                 bool sync_start = false);
  // The tasks whose recorded accesses conflict with `args`; with `causes`,
  // also which argument pairs conflict (traced tasks).
  std::vector<TaskId> DerivedDeps(const TaskArgs& args, std::vector<OverlapCause>* causes) const;
  // Recomputes parallel_path_ after the open scopes changed.
  void UpdateParallelPath();
  bool InManualScope() const;
  void Record(const TaskArgs& args, TaskId id, bool derived);
  void PruneFinishedAccesses();
  // Drops the accesses `forget` selects, and groups left empty.
  template <typename Pred>
  void ForgetAccesses(Pred forget);
  void Release(Task* task, bool from_submit);
  void WakeWorkers(int blocks);
  void CompleteTask(Task* task);
  void FinishBlock(Task* task);
  // DeferCurrentTask for `task`, whose kernel runs now.
  void Defer(Task* task, DeferredCondition condition);
  // The poller thread: completes deferred tasks as their conditions come to hold.
  void PollerLoop();
  // Polls every deferred task's conditions once, with `lock` released meanwhile, and completes the
  // tasks done (or failed, or cancelled by a fault). Whether any was.
  bool PollDeferred(std::unique_lock<std::mutex>& lock);
  void DrainReady();
  int FreeCluster() const;
  int FreeClusters() const;
  bool CanStartBlock() const;
  // CanStartBlock, less a block waiting for its submitting thread (wake_deferred_).
  bool WorkerCanStartBlock() const;
  // Sets ready_count_: the blocks a worker may take.
  void PublishReady();
  // Runs the first ready block on a free cluster (CanStartBlock() must hold),
  // with `lock` released meanwhile.
  void RunNextBlock(std::unique_lock<std::mutex>& lock);
  // Polls for a ready block a little while, mu_ released, yielding the core
  // to the thread that submits; returns with `lock` held.
  void SpinForWork(std::unique_lock<std::mutex>& lock);
  void WorkerLoop();
  void RunBlock(const Block& block, int cluster_id);
  Task* FindTask(TaskId id) const;

  // Lock order: submit_mu_, then mu_. submit_mu_ serializes the submitting
  // side (Submit, scopes, WaitAll) and guards the access history and the
  // scopes; mu_ guards the tasks' state, the ready queue and the clusters,
  // which the workers share.
  mutable std::mutex submit_mu_;
  mutable std::mutex mu_;
  std::condition_variable work_cv_;
  std::condition_variable done_cv_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
  // Which clusters run a block now. Workers and a thread in WaitAll take any
  // free cluster, so at most num_clusters blocks run at once.
  std::vector<bool> cluster_busy_;
  // Per cluster: the AIC's state, then the two AIV lanes'.
  std::vector<std::array<void*, 3>> core_states_;
  std::function<void(void*)> begin_counting_;
  std::function<void(void*, CoreCounters&)> end_counting_;
  std::function<void(int, const std::string&, uint32_t)> begin_cluster_;
  std::function<void(int, int)> end_member_;
  // Per cluster: the threads that run the other cores of a cluster task
  // while the thread holding the cluster runs the first; started on first use.
  std::vector<std::array<std::unique_ptr<LaneThread>, 2>> lanes_;

  TaskId next_id_ = 0;
  TaskId run_first_id_ = 0;
  std::vector<std::unique_ptr<Task>> tasks_;  // this run's tasks, by id - run_first_id_
  std::deque<Block> ready_;
  std::atomic<size_t> ready_count_{0};  // blocks workers may take (PublishReady), read without mu_
  bool wake_deferred_ = false;  // ready_ holds a block no worker was told about
  int idle_workers_ = 0;        // workers waiting on work_cv_
  std::vector<AccessGroup> accesses_;  // unfinished tasks' tensor args
  size_t access_count_ = 0;            // accesses in accesses_
  size_t prune_at_ = 0;                // access_count_ past which finished tasks' accesses are dropped
  int64_t unfinished_ = 0;
  std::vector<ScopeMode> scopes_;
  std::vector<int64_t> scope_ids_;         // per open scope: its instance id
  std::vector<int64_t> scope_iterations_;  // per open scope: the current iteration (parallel scopes)
  int64_t next_scope_id_ = 0;
  // Per open scope, its trace when tracing was on as it opened; the closed
  // ones of this run. Both under submit_mu_.
  struct OpenScopeTrace {
    ScopeTrace trace;
    int64_t last_iteration = -1;  // the iteration its last task was submitted in
  };
  std::vector<std::optional<OpenScopeTrace>> open_scope_traces_;
  std::vector<ScopeTrace> scope_traces_;
  std::set<const Storage*> dump_tags_;  // TagForDump's storages, this run (under submit_mu_ and mu_)
  bool trace_stale_ = false;  // a run ended: the next one starts its scope traces and tags afresh
  std::atomic<ArgsDump> args_dump_{ArgsDump::Off};
  std::shared_ptr<const ParallelPath> parallel_path_ = std::make_shared<const ParallelPath>();
  std::unique_ptr<Fault> fault_;
  std::atomic<bool> run_faulted_{false};
  // Deferred completion (pld.system.defer_wait), under mu_: the tasks whose blocks all finished
  // while conditions were left, and how many unfinished tasks registered any (kMaxDeferredTasks).
  std::vector<Task*> deferred_;
  size_t deferring_ = 0;
  bool poll_now_ = false;  // a task was deferred, or a fault cancels them: poll without the pause
  std::condition_variable poll_cv_;
  std::thread poller_;  // started by the first deferred task
  bool run_open_ = false;
  std::atomic<bool> tracing_{false};
};

// The core_state of the core whose kernel the calling thread is running
// (RuntimeOptions::core_state), or nullptr outside a kernel. It lets native
// helpers a kernel calls (the simulator's pypto_sim_current_core) find their
// core without the kernel passing it along.
void* CurrentCoreState();
// The context of the block the calling thread runs; null outside a kernel.
const PyptoRtCoreContext* CurrentCoreContext();

// Registers `condition` for the task whose kernel the calling thread runs, unless it holds already
// (it is polled once first; what that throws propagates). A ValueError outside a
// kernel, past kMaxDeferredConditions for the task, or when kMaxDeferredTasks unfinished tasks
// registered conditions already.
void DeferCurrentTask(DeferredCondition condition);

}  // namespace pypto::runtime
