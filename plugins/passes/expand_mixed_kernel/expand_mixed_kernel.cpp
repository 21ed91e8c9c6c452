#include "expand_mixed_kernel.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "classify.h"
#include "pipe_balance.h"
#include "pypto/ir/fresh_copy.h"
#include "pypto/ir/result_params.h"
#include "pypto/ir/tile_storage.h"
#include "pypto/pass/context.h"
#include "pypto/support/error.h"
#include "side_builder.h"
#include "vector_split.h"

namespace pypto::passes {

using ir::As;
using ir::FunctionPtr;
using ir::StmtPtr;
using ir::VarPtr;
using mixed::Classification;
using mixed::Core;
using mixed::PipeSetup;

namespace {

constexpr int64_t kDefaultSlots = 2;
// The hardware's flags per direction and Vector-Cube pair, shared by the two
// directions when both are in use.
constexpr int64_t kSlotsOneDirection = 8;
constexpr int64_t kSlotsEachOfTwo = 4;

[[noreturn]] void Fail(const ir::Function& function, const std::string& what) {
  throw Error(ErrorKind::kValue, "ExpandMixedKernel: in function '" + function.name + "', " + what, function.span);
}

// The split of the pipe: the pl.split_aiv regions' mode, or pl.split's.
ir::SplitMode SplitOf(const ir::Function& function, const Classification& classification) {
  if (classification.manual) return classification.manual_split;
  return function.attrs.GetEnum<ir::SplitMode>("split").value_or(ir::SplitMode::None);
}

// The bytes of the part of a crossing tile one lane's slot holds.
int64_t SlotBytes(const mixed::Crossing& crossing, ir::SplitMode split) {
  auto tile = As<ir::TileType>(crossing.direction == mixed::Placement::kCubeToVector ? crossing.source->type
                                                                                       : crossing.target->type);
  std::vector<int64_t> shape = *ir::StaticShape(tile->shape);
  if (split == ir::SplitMode::UpDown) shape.front() /= 2;
  if (split == ir::SplitMode::LeftRight) shape.back() /= 2;
  return ir::StorageBytesOf(*tile, shape);
}

PipeSetup PlanPipe(const ir::Function& function, const Classification& classification) {
  PipeSetup pipe;
  ir::SplitMode split = SplitOf(function, classification);
  pipe.split = static_cast<int64_t>(split);
  for (const auto& crossing : classification.crossings) {
    auto tile = As<ir::TileType>(crossing.target->type);
    if (!ir::StaticShape(tile->shape)) {
      Fail(function, "the tile '" + crossing.target->name_hint + "' crossing between the cores at " +
                         crossing.stmt->span.ToString() + " has a dynamic shape; a pipe slot has a fixed size");
    }
    pipe.dir_mask |= crossing.direction == mixed::Placement::kCubeToVector ? 1 : 2;
    pipe.slot_size = std::max(pipe.slot_size, SlotBytes(crossing, split));
  }
  pipe.slot_num = function.attrs.Get<int64_t>("cross_core_slot").value_or(kDefaultSlots);
  int64_t depth = pipe.dir_mask == 3 ? kSlotsEachOfTwo : kSlotsOneDirection;
  if (pipe.slot_num < 1 || pipe.slot_num > depth) {
    Fail(function, "pl.cross_core_slot(slot_num=" + std::to_string(pipe.slot_num) + ") is outside 1.." +
                       std::to_string(depth) + ": the hardware has " + std::to_string(depth) + " slots per lane " +
                       (pipe.dir_mask == 3 ? "for each of the two directions this kernel uses"
                                           : "for the one direction this kernel uses"));
  }
  return pipe;
}

// Where the platform keeps the ring of a direction (A5: in the consumer's
// buffer; A2/A3: in global memory, not checked here).
void RequireRingFits(const ir::Function& function, const PipeSetup& pipe, const backend::Platform& platform) {
  if (!platform.pipe_ring_in_consumer) return;
  struct Ring {
    int64_t bit;
    ir::MemorySpace space;
    const char* consumer;
  };
  for (const Ring& ring : {Ring{1, ir::MemorySpace::Vec, "AIV"}, Ring{2, ir::MemorySpace::Mat, "AIC"}}) {
    if (!(pipe.dir_mask & ring.bit) || !platform.HasSpace(ring.space)) continue;
    int64_t bytes = pipe.slot_size * pipe.slot_num;
    int64_t capacity = platform.Capacity(ring.space);
    if (bytes < capacity) continue;
    Fail(function, "the cross-core ring of " + std::to_string(pipe.slot_num) + " slots of " +
                       std::to_string(pipe.slot_size) + " bytes (" + std::to_string(bytes) + " bytes) lives in the " +
                       ring.consumer + "'s " + ir::ToString(ring.space) + " on platform '" + platform.name +
                       "', which holds " + std::to_string(capacity) +
                       " bytes and must also hold the kernel's own tiles: lower pl.cross_core_slot(slot_num=) or "
                       "make the crossing tiles smaller");
  }
}

// On platforms whose rings live in the consumer, each consuming kernel keeps
// its ring's bytes free (AllocateMemoryAddr reads the attribute): the AIVs
// consume C2V in Vec, the AIC consumes V2C in Mat.
void ReserveRings(std::vector<FunctionPtr>& kernels, const PipeSetup& pipe) {
  for (auto& kernel : kernels) {
    int64_t bit = kernel->func_type == ir::FunctionType::AIV ? 1 : 2;
    if (!(pipe.dir_mask & bit)) continue;
    auto reserving = std::make_shared<ir::Function>(*kernel);
    reserving->attrs.Set("pipe_ring_bytes", pipe.slot_size * pipe.slot_num);
    kernel = reserving;
  }
}

FunctionPtr MakeKernel(const ir::Function& origin, const std::string& name, ir::FunctionType type,
                       const StmtPtr& body) {
  std::vector<VarPtr> params;
  ir::VarSubstitutions substitutions;
  for (const auto& param : origin.params) {
    params.push_back(ir::Var::Make(param->name_hint, param->type, param->span));
    substitutions[param.get()] = params.back();
  }
  StmtPtr copy = ir::CopyWithFreshDefinitions(body, std::move(substitutions), "");
  auto kernel = std::make_shared<ir::Function>(
      *ir::Function::Make(name, type, params, origin.param_directions, {}, copy, origin.span));
  kernel->attrs = origin.attrs;
  return kernel;
}

// The Group keeps the function's name and signature, so its callers stay as
// they are; it runs the kernels on one cluster and returns the parameters
// the function's results were written into.
FunctionPtr MakeGroup(const ir::Function& origin, const std::vector<std::string>& members) {
  std::vector<int> result_params = ir::ResultParams(origin);
  std::vector<VarPtr> params;
  for (const auto& param : origin.params) params.push_back(ir::Var::Make(param->name_hint, param->type, param->span));
  std::vector<StmtPtr> body;
  std::vector<ir::ExprPtr> args(params.begin(), params.end());
  for (const auto& member : members) {
    // A call of a function without results has the empty tuple type, as the parser gives it.
    auto call = ir::Call::Make(ir::GlobalVar::Make(member, origin.span), args, {}, ir::TupleType::Make({}), origin.span);
    body.push_back(ir::EvalStmt::Make(call, origin.span));
  }
  std::vector<ir::ExprPtr> results;
  for (size_t i = 0; i < result_params.size(); ++i) {
    if (result_params[i] < 0) {
      Fail(origin, "result " + std::to_string(i) + " is not one of the function's tensor parameters (or a view "
                   "of one, or a tile.store into one); a mixed kernel's results are what its kernels write into "
                   "their parameters, so return only those");
    }
    results.push_back(params[static_cast<size_t>(result_params[i])]);
  }
  body.push_back(ir::ReturnStmt::Make(std::move(results), origin.span));
  auto group = std::make_shared<ir::Function>(*ir::Function::Make(origin.name, ir::FunctionType::Group, params,
                                                                   origin.param_directions, origin.return_types,
                                                                   ir::SeqStmts::Make(std::move(body), origin.span),
                                                                   origin.span));
  group->attrs = origin.attrs;
  return group;
}

void RequireFreeName(const ir::Program& program, const ir::Function& origin, const std::string& name) {
  if (!program.Find(name)) return;
  Fail(origin, "its kernels would be named '" + name + "', which another function of the program already is; "
               "rename that function");
}

// The functions `function` becomes, or nothing when it runs on one core as it is.
std::vector<FunctionPtr> Expand(const ir::Program& program, const ir::Function& function,
                                const backend::Platform& platform) {
  Classification classification = mixed::Classify(function);
  ir::SplitMode split = SplitOf(function, classification);
  // Both lanes run the vector kernel under a split, and always in a kernel split by hand.
  bool both_lanes = split != ir::SplitMode::None || classification.manual;
  bool vector_only = both_lanes && classification.has_vector() && !classification.has_cube();
  if (!classification.mixed() && !vector_only) return {};
  PipeSetup pipe = PlanPipe(function, classification);
  RequireRingFits(function, pipe, platform);

  std::vector<FunctionPtr> result;
  std::vector<std::string> members;
  if (classification.has_cube()) {
    std::string aic = function.name + "_aic";
    RequireFreeName(program, function, aic);
    result.push_back(MakeKernel(function, aic, ir::FunctionType::AIC,
                                mixed::BuildSide(function, classification, Core::kCube, pipe, aic)));
    members.push_back(aic);
  }
  std::string aiv = function.name + "_aiv";
  RequireFreeName(program, function, aiv);
  FunctionPtr vector_kernel = MakeKernel(function, aiv, ir::FunctionType::AIV,
                                         mixed::BuildSide(function, classification, Core::kVector, pipe, aiv));
  if (split != ir::SplitMode::None && !classification.manual) {
    auto halved = std::make_shared<ir::Function>(*vector_kernel);
    halved->body = mixed::SplitVectorWork(vector_kernel->body, split, function.name, aiv);
    vector_kernel = halved;
  }
  result.push_back(vector_kernel);
  members.push_back(aiv);
  if (platform.pipe_ring_in_consumer) ReserveRings(result, pipe);
  if (both_lanes) members.push_back(aiv);
  result.push_back(MakeGroup(function, members));
  return result;
}

}  // namespace

ir::ProgramPtr ExpandMixedKernelPass::Run(const ir::ProgramPtr& program, pass::PassContext& ctx) {
  std::vector<FunctionPtr> functions;
  bool changed = false;
  for (const auto& function : program->functions) {
    if (function->func_type == ir::FunctionType::Group) mixed::CheckPipeBalance(*program, *function);
    std::vector<FunctionPtr> expanded;
    if (function->func_type == ir::FunctionType::InCore) expanded = Expand(*program, *function, ctx.platform());
    if (expanded.empty()) {
      functions.push_back(function);
      continue;
    }
    functions.insert(functions.end(), expanded.begin(), expanded.end());
    changed = true;
  }
  if (!changed) return program;
  return ir::Program::Make(program->name, std::move(functions), program->span);
}

}  // namespace pypto::passes
