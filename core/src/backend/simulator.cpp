#include "pypto/backend/simulator.h"

#include <algorithm>
#include <string>
#include <vector>

#include "pypto/backend/pipe_hazards.h"
#include "pypto/runtime/c_api.h"

namespace pypto::backend {

namespace {

constexpr int kCoresPerCluster = 3;  // AIC, AIV0, AIV1

constexpr std::pair<pto::TileType, ir::MemorySpace> kCubeSpaces[] = {
    {pto::TileType::Mat, ir::MemorySpace::Mat},     {pto::TileType::Left, ir::MemorySpace::Left},
    {pto::TileType::Right, ir::MemorySpace::Right}, {pto::TileType::Acc, ir::MemorySpace::Acc},
    {pto::TileType::Bias, ir::MemorySpace::Bias}};
constexpr std::pair<pto::TileType, ir::MemorySpace> kVectorSpaces[] = {{pto::TileType::Vec, ir::MemorySpace::Vec}};

std::string SpaceName(pto::TileType t) { return pto::TileTypeName(t); }

// The figures a platform file leaves out: an engine moving 128 bytes a cycle
// with no latency, a cube doing 1024 MACs a cycle. They keep the model
// running; platforms/*.yaml give the real ones.
constexpr double kDefaultBytesPerCycle = 128;
constexpr double kDefaultMacsPerCycle = 1024;

// pto::Pipe order, named as in the platform file's throughput section.
constexpr const char* kPipeFigureNames[pto::kNumPipes] = {"MTE2", "MTE1", "V", "M", "MTE3", "FIX"};

}  // namespace

pto::PerfModel PerfFigures(const Platform& platform) {
  pto::PerfModel model;
  for (int p = 0; p < pto::kNumPipes; ++p) {
    const std::string pipe = kPipeFigureNames[p];
    model.pipes[p].per_cycle = platform.Throughput(pipe, "bytes_per_cycle").value_or(kDefaultBytesPerCycle);
    model.pipes[p].latency = static_cast<uint64_t>(platform.Throughput(pipe, "latency_cycles").value_or(0));
  }
  auto macs = [&](const char* figure) { return platform.Throughput("M", figure).value_or(kDefaultMacsPerCycle); };
  model.cube_macs_per_cycle[static_cast<int>(pto::CubeKind::Half)] = macs("fp16_macs_per_cycle");
  model.cube_macs_per_cycle[static_cast<int>(pto::CubeKind::Float)] = macs("fp32_macs_per_cycle");
  model.cube_macs_per_cycle[static_cast<int>(pto::CubeKind::Int8)] = macs("int8_macs_per_cycle");
  return model;
}

// A core and its performance model; the model's scoreboard has a chunk
// entry per kChunkBytes of each of the core's buffers.
struct SimulatedCores::ModelledCore : pto::SimCore {
  pto::PerfModel model;
  PipeHazardChecker checker;
  std::vector<uint64_t> scoreboard;  // every space's written_at, then every space's read_at

  void SizeScoreboard() {
    uint64_t total = 0;
    for (int t = 0; t < pto::kNumTileTypes; ++t) {
      model.chunks[t] = (capacity[t] + pto::PerfModel::kChunkBytes - 1) / pto::PerfModel::kChunkBytes;
      total += model.chunks[t];
    }
    scoreboard.assign(2 * total, 0);
    uint64_t* next = scoreboard.data();
    for (auto* table : {model.written_at, model.read_at}) {
      for (int t = 0; t < pto::kNumTileTypes; ++t) {
        table[t] = model.chunks[t] > 0 ? next : nullptr;
        next += model.chunks[t];
      }
    }
  }

  void BeginCounting() {
    std::fill(scoreboard.begin(), scoreboard.end(), 0);
    for (int p = 0; p < pto::kNumPipes; ++p) {
      model.pipe_free[p] = model.busy_cycles[p] = model.instructions[p] = 0;
    }
    for (int s = 0; s < pto::kNumCountedSpaces; ++s) model.bytes_read[s] = model.bytes_written[s] = 0;
    model.done = 0;
    perf = &model;
  }

  void EndCounting(runtime::CoreCounters& out) {
    perf = nullptr;
    out.measured = true;
    out.cycles = static_cast<int64_t>(model.done);
    for (int p = 0; p < pto::kNumPipes; ++p) {
      out.pipe_busy_cycles[p] = static_cast<int64_t>(model.busy_cycles[p]);
      out.pipe_instructions[p] = static_cast<int64_t>(model.instructions[p]);
    }
    // pto's TileType order, then global memory: the order of kCountedSpaceNames.
    for (int s = 0; s < pto::kNumCountedSpaces; ++s) {
      out.bytes_read[s] = static_cast<int64_t>(model.bytes_read[s]);
      out.bytes_written[s] = static_cast<int64_t>(model.bytes_written[s]);
    }
    // The cross-core pipe's transfers and waits of this kernel, if it was part of a cluster task.
    if (pipe != nullptr) pipe->Collect(cluster_member, out);
  }
};

static_assert(runtime::kPipeNames.size() == pto::kNumPipes);
static_assert(runtime::kCountedSpaceNames.size() == pto::kNumCountedSpaces);

SimulatedCores::SimulatedCores(const Platform& platform, int clusters) {
  const pto::PerfModel figures = PerfFigures(platform);
  const double pipe_timeout_s = pto::PipeTimeoutFromEnvironment();
  for (int c = 0; c < clusters; ++c) {
    pipes_.push_back(std::make_unique<pto::SimPipe>(pipe_timeout_s));
    for (int slot = 0; slot < kCoresPerCluster; ++slot) {
      auto core = std::make_unique<ModelledCore>();
      core->pipe = pipes_.back().get();
      core->cluster_member = slot;
      auto assign = [&](pto::TileType t, ir::MemorySpace space) {
        if (!platform.HasSpace(space)) return;
        auto bytes = static_cast<uint64_t>(platform.Capacity(space));
        // Zeroed so that reading a tile nothing wrote is deterministic.
        buffers_.push_back(std::make_unique<unsigned char[]>(bytes));
        core->buffer[static_cast<int>(t)] = buffers_.back().get();
        core->capacity[static_cast<int>(t)] = bytes;
      };
      if (slot == 0) {
        for (auto [t, space] : kCubeSpaces) assign(t, space);
      } else {
        for (auto [t, space] : kVectorSpaces) assign(t, space);
      }
      core->model = figures;
      core->SizeScoreboard();
      cores_.push_back(std::move(core));
    }
  }
}

SimulatedCores::~SimulatedCores() = default;

pto::SimCore* SimulatedCores::Core(int cluster, runtime::CoreType type, int lane) {
  int slot = type == runtime::CoreType::AIC ? 0 : 1 + lane;
  size_t index = static_cast<size_t>(cluster) * kCoresPerCluster + slot;
  return index < cores_.size() ? cores_[index].get() : nullptr;
}

void SimulatedCores::CheckPipeHazards(bool on) {
  for (auto& core : cores_) {
    if (on == (core->hazards != nullptr)) continue;
    core->checker.Reset();
    core->hazards = on ? &core->checker : nullptr;
  }
}

runtime::RuntimeOptions::CoreStateFn SimulatedCores::StateFn() {
  return [this](int cluster, runtime::CoreType type, int lane) -> void* { return Core(cluster, type, lane); };
}

runtime::RuntimeOptions SimulatedCores::Options() {
  runtime::RuntimeOptions options(clusters(), StateFn());
  // The states are this class's cores (StateFn), so the downcast is exact.
  options.begin_counting = [](void* state) {
    static_cast<ModelledCore*>(static_cast<pto::SimCore*>(state))->BeginCounting();
  };
  options.end_counting = [](void* state, runtime::CoreCounters& out) {
    static_cast<ModelledCore*>(static_cast<pto::SimCore*>(state))->EndCounting(out);
  };
  options.begin_cluster = [this](int cluster, const std::string& kernel, uint32_t members) {
    pipes_[static_cast<size_t>(cluster)]->Begin(kernel, members);
  };
  options.end_member = [this](int cluster, int member) { pipes_[static_cast<size_t>(cluster)]->Finish(member); };
  return options;
}

std::string DescribeSimFault(const pto::SimFault& f) {
  std::string space = SpaceName(f.space);
  std::string value = std::to_string(f.value);
  std::string limit = std::to_string(f.limit);
  switch (f.kind) {
    case pto::FaultKind::OutOfCapacity:
      return "a tile in " + space + " would end at byte " + value + " but " + space + " holds " + limit +
             " bytes; make the tiles smaller or fewer (the memory planner's placement is in passes_dump/)";
    case pto::FaultKind::Misaligned:
      return "tile address " + value + " in " + space + " is not a multiple of " + limit + " bytes";
    case pto::FaultKind::Unassigned:
      return "a tile in " + space + " was used before it was given an address (TASSIGN)";
    case pto::FaultKind::ValidShape:
      return "valid extent " + value + " is outside the tile's static extent " + limit +
             "; a valid_shape must lie between 0 and the tile's shape";
    case pto::FaultKind::ShapeMismatch:
      return "an operand covers " + limit + " elements of an extent where " + value +
             " are needed; the operands' valid shapes do not fit each other";
    case pto::FaultKind::GlobalOutOfBounds:
      return "the window reaches " + value + " in a dimension of " + limit +
             " elements; check the offsets and shapes of the load or store against the tensor's shape";
    case pto::FaultKind::NaN: {
      std::string where = "row " + value + ", column " + limit;
      if (f.instruction != nullptr && std::string(f.instruction) == "TLOAD") {
        return "the tensor it reads holds a NaN (at " + where + " of the loaded window; found by "
               "RunConfig(check_nan=True)); check the input";
      }
      return "its result holds a NaN at " + where + " of the " + space +
             " tile, the first NaN of the kernel (found by RunConfig(check_nan=True)); check this op's operands "
             "and their ranges (log of a negative, 0/0, inf-inf)";
    }
    case pto::FaultKind::Comm:
    case pto::FaultKind::Pipe:
    case pto::FaultKind::PipeHazard:
      return f.detail;
    case pto::FaultKind::None:
      break;
  }
  return "unknown fault";
}

}  // namespace pypto::backend

extern "C" {

pto::SimCore* pypto_sim_current_core() { return static_cast<pto::SimCore*>(pypto::runtime::CurrentCoreState()); }

const PyptoRtCoreContext* pypto_kernel_context(void) { return pypto::runtime::CurrentCoreContext(); }

void pypto_kernel_window_fault(const char* instruction, int64_t value, int64_t limit) {
  if (pto::SimCore* core = pypto_sim_current_core()) {
    core->Raise(pto::FaultKind::GlobalOutOfBounds, instruction, pto::TileType::Vec, value, limit);
  }
}

void pypto_sim_finish_kernel(PyptoRtCoreContext* ctx, const char* source_file) {
  pto::SimCore* core = pypto_sim_current_core();
  if (core == nullptr) return;
  if (core->hazards != nullptr) core->hazards->Finish(*core);
  if (!core->faulted()) {
    core->line = 0;
    return;
  }
  std::string message = pypto::backend::DescribeSimFault(core->fault);
  if (core->fault_count > 1) message += " (" + std::to_string(core->fault_count - 1) + " later faults in this kernel)";
  pypto_rt_kernel_fail(ctx, core->fault.instruction, source_file, static_cast<int32_t>(core->fault.line),
                       message.c_str());
  core->Clear();
}

}  // extern "C"
