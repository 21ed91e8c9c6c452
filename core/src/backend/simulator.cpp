#include "pypto/backend/simulator.h"

#include <string>

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

}  // namespace

SimulatedCores::SimulatedCores(const Platform& platform, int clusters) {
  for (int c = 0; c < clusters; ++c) {
    for (int slot = 0; slot < kCoresPerCluster; ++slot) {
      auto core = std::make_unique<pto::SimCore>();
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
      cores_.push_back(std::move(core));
    }
  }
}

pto::SimCore* SimulatedCores::Core(int cluster, runtime::CoreType type, int lane) {
  int slot = type == runtime::CoreType::AIC ? 0 : 1 + lane;
  size_t index = static_cast<size_t>(cluster) * kCoresPerCluster + slot;
  return index < cores_.size() ? cores_[index].get() : nullptr;
}

runtime::RuntimeOptions::CoreStateFn SimulatedCores::StateFn() {
  return [this](int cluster, runtime::CoreType type, int lane) -> void* { return Core(cluster, type, lane); };
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
    case pto::FaultKind::None:
      break;
  }
  return "unknown fault";
}

}  // namespace pypto::backend

extern "C" {

pto::SimCore* pypto_sim_current_core() { return static_cast<pto::SimCore*>(pypto::runtime::CurrentCoreState()); }

void pypto_sim_finish_kernel(PyptoRtCoreContext* ctx, const char* source_file) {
  pto::SimCore* core = pypto_sim_current_core();
  if (core == nullptr || !core->faulted()) return;
  std::string message = pypto::backend::DescribeSimFault(core->fault);
  if (core->fault_count > 1) message += " (" + std::to_string(core->fault_count - 1) + " later faults in this kernel)";
  pypto_rt_kernel_fail(ctx, core->fault.instruction, source_file, static_cast<int32_t>(core->fault.line),
                       message.c_str());
  core->Clear();
}

}  // extern "C"
