// system.*: synchronization inside a kernel (pipe flags and barriers, the
// cross-core SYNCALL) and device-geometry queries. The sync ops return no
// value; they are statements for their effect.
#include "pypto/ops/registry.h"
#include "pypto/ops/type_rules.h"

namespace pypto::ops {
namespace {

using namespace pypto::ir;

// Hardware pipes in PipeType order: the codes of the set_pipe / wait_pipe kwargs.
const std::vector<std::string>& PipeNames() {
  static const std::vector<std::string> names = {"MTE1", "MTE2", "MTE3", "M", "V", "S", "FIX", "ALL"};
  return names;
}

// A core has eight hardware event flags per pipe pair.
constexpr int64_t kEventIds = 8;

OpDef& SyncOp(const std::string& name, std::string description) {
  return OpRegistry::Global()
      .Register(name)
      .set_category(OpCategory::kSyncOp)
      .set_description(std::move(description))
      .set_placement(Placement::kInCoreOnly);
}

TypePtr NoResult(const DeduceContext&) { return UnknownType::Make(); }

void RegisterPipeSync() {
  struct Flag {
    const char* name;
    const char* description;
  };
  for (auto [name, description] :
       {Flag{"system.sync_src", "Signal that set_pipe is done with event_id (set_flag)"},
        Flag{"system.sync_dst", "Make wait_pipe wait for set_pipe's event_id (wait_flag)"}}) {
    SyncOp(name, description)
        .add_required_kwarg("set_pipe", AttrKind::kInt, "signalling pipe: 0 MTE1 .. 7 ALL")
        .add_required_kwarg("wait_pipe", AttrKind::kInt, "waiting pipe: 0 MTE1 .. 7 ALL")
        .add_required_kwarg("event_id", AttrKind::kInt, "flag 0..7")
        .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
          CodeKwarg(ctx, "set_pipe", PipeNames());
          CodeKwarg(ctx, "wait_pipe", PipeNames());
          int64_t event = *ctx.KwargAs<int64_t>("event_id");
          if (event < 0 || event >= kEventIds) {
            ctx.Error("keyword 'event_id' must be 0.." + std::to_string(kEventIds - 1) + ", got " +
                      std::to_string(event));
          }
          return UnknownType::Make();
        });
  }
  SyncOp("system.bar_v", "Barrier on the vector pipe").set_type_deduce(NoResult);
  SyncOp("system.bar_m", "Barrier on the matrix pipe").set_type_deduce(NoResult);
  SyncOp("system.bar_all", "Barrier on every pipe of this core (pipe_barrier(PIPE_ALL))").set_type_deduce(NoResult);
  SyncOp("system.fence", "Order this core's global-memory accesses").set_type_deduce(NoResult);
}

void RegisterSyncAll() {
  SyncOp("system.syncall", "Barrier across all participating cores (SYNCALL)")
      .add_optional_argument("gm_workspace", "soft mode: zero-initialized INT32 GM tensor of >= 16 elements")
      .add_optional_argument("used_cores", "soft mode: participating core count (integer scalar)")
      .add_kwarg("core_type", AttrKind::kString, std::string("mix"), "aiv_only, aic_only or mix")
      .add_kwarg("mode", AttrKind::kString, std::string("hard"), "hard (FFTS) or soft (polls gm_workspace)")
      // The soft barrier counts arrivals in the workspace; the hard one never touches it.
      .set_arg_effect(0,
                      [](const Attrs& kwargs) {
                        return kwargs.Get<std::string>("mode").value_or("hard") == "soft" ? ArgEffect::kReadWrite
                                                                                          : ArgEffect::kRead;
                      })
      .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
        std::string core_type = ctx.KwargAs<std::string>("core_type").value_or("");
        if (core_type != "aiv_only" && core_type != "aic_only" && core_type != "mix") {
          ctx.Error("keyword 'core_type' must be 'aiv_only', 'aic_only' or 'mix', got '" + core_type + "'");
        }
        std::string mode = ctx.KwargAs<std::string>("mode").value_or("");
        if (mode == "hard") {
          if (ctx.num_args() > 0) ctx.Error("mode='hard' takes no arguments; pass mode='soft' to use gm_workspace");
          return UnknownType::Make();
        }
        if (mode != "soft") ctx.Error("keyword 'mode' must be 'hard' or 'soft', got '" + mode + "'");
        if (ctx.num_args() == 0) ctx.Error("mode='soft' needs the gm_workspace argument");
        ArrayInfo ws = ArrayArg(ctx, 0, ArrayKind::kTensor);
        if (ws.dtype != DataType::INT32) ctx.ArgError(0, "an INT32 Tensor");
        if (auto count = StaticElementCount(ws.shape); count && *count < 16) {
          ctx.Error("gm_workspace " + ShapeString(ws.shape) + " holds " + std::to_string(*count) +
                    " elements; the soft barrier needs at least 16");
        }
        if (ctx.num_args() > 1 && !ctx.ScalarArg(1).is_int()) ctx.ArgError(1, "an integer scalar");
        return UnknownType::Make();
      });
}

void RegisterDeviceQueries() {
  struct Query {
    const char* name;
    const char* description;
  };
  for (auto [name, description] :
       {Query{"system.available_cluster_count", "The device's AIC cluster count for this run (INT32)"},
        Query{"system.available_aiv_count", "The device's standalone AIV core count for this run (INT32)"}}) {
    OpRegistry::Global()
        .Register(name)
        .set_category(OpCategory::kSystemOp)
        .set_description(description)
        .set_type_deduce([](const DeduceContext&) -> TypePtr { return ScalarType::Make(DataType::INT32); });
  }
}

// `j = pl.system.task_dummy(deps=[...])`: a task that runs no kernel and
// completes once its deps have, so that one id can stand for many in a later
// deps= (a join).
void RegisterTaskDummy() {
  OpRegistry::Global()
      .Register("system.task_dummy")
      .set_category(OpCategory::kSystemOp)
      .set_description("A task that runs nothing and completes once its deps have: a join of task ids")
      .set_placement(Placement::kOrchestrationOnly)
      .add_kwarg("deps", AttrKind::kExprList, std::vector<ExprPtr>{}, "task ids or Arrays of TASK_ID to wait for")
      .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
        auto deps = ctx.KwargAs<std::vector<ExprPtr>>("deps").value_or(std::vector<ExprPtr>{});
        for (size_t i = 0; i < deps.size(); ++i) {
          const TypePtr& type = deps[i]->type;
          auto array = As<ArrayType>(type);
          if (IsScalarType(type, DataType::TASK_ID) || (array && array->dtype == DataType::TASK_ID)) continue;
          ctx.Error("deps entry " + std::to_string(i) + " has type " + TypeToString(type) +
                    "; deps= takes task ids (pl.Scalar[pl.TASK_ID]) or arrays of them");
        }
        return ScalarType::Make(DataType::TASK_ID);
      });
}

[[maybe_unused]] const bool kRegistered = [] {
  RegisterPipeSync();
  RegisterSyncAll();
  RegisterDeviceQueries();
  RegisterTaskDummy();
  return true;
}();

}  // namespace
}  // namespace pypto::ops
