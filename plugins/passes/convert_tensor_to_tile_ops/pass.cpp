// The Pass face of ConvertTensorToTileOps: options and the platform's Vec
// capacity. Kept apart from the conversion so that the conversion's tests run
// without the platform implementation.
#include "convert_tensor_to_tile_ops.h"
#include "pypto/backend/platform.h"
#include "pypto/pass/context.h"

namespace pypto::passes {

std::vector<pass::PassOptionSpec> ConvertTensorToTileOpsPass::option_specs() const {
  return {{pass::PassOptionSpec::Kind::kInt, "vec_capacity_bytes", int64_t{0},
           "Vec bytes an element-wise chain may use before it is tiled; 0 reads the platform's capacity"}};
}

void ConvertTensorToTileOpsPass::Configure(const pass::PassOptions& options) {
  vec_capacity_bytes_ = ReadVecCapacityOption(options, vec_capacity_bytes_);
}

ir::ProgramPtr ConvertTensorToTileOpsPass::Run(const ir::ProgramPtr& program, pass::PassContext& ctx) {
  int64_t capacity = vec_capacity_bytes_ > 0 ? vec_capacity_bytes_ : ctx.platform().Capacity(ir::MemorySpace::Vec);
  return ConvertTensorToTileOps(program, capacity);
}

}  // namespace pypto::passes
