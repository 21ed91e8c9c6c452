// The distributed ops of kernels (pld.*): the rank of a window's comm domain, signals between ranks,
// and one-sided transfers into and out of peers' windows. Their window operand must be a
// DistributedTensor: only window memory has the same offsets on every rank.
#include "pypto/ops/registry.h"
#include "pypto/ops/type_rules.h"

namespace pypto::ops {
namespace {

using namespace pypto::ir;

// The tile forms are tile ops to the memory planner (a remote load produces a Vec tile, a remote
// store consumes one); the others are comm ops.
OpDef& CommOp(const std::string& name, std::string description) {
  return OpRegistry::Global()
      .Register(name)
      .set_category(name.rfind("tile.", 0) == 0 ? OpCategory::kTileOp : OpCategory::kCommOp)
      .set_description(std::move(description))
      .set_placement(Placement::kInCoreOnly)
      .set_dsl_module("pld");
}

// Argument i is a window: a DistributedTensor (pld.window(...) on the host, a
// pld.DistributedTensor parameter in a kernel).
Ref<TensorType> WindowArg(const DeduceContext& ctx, size_t i) {
  if (!IsA<DistributedTensorType>(ctx.arg(i)->type)) {
    ctx.Error("argument '" + ctx.ArgName(i) + "' has type " + TypeToString(ctx.arg(i)->type) +
              ", not a window: peers reach only window buffers; pass a pld.window(...) view (annotate the parameter "
              "pld.DistributedTensor[[...], dtype])");
  }
  return As<TensorType>(ctx.arg(i)->type);
}

void RequireIntScalar(const DeduceContext& ctx, size_t i) {
  DataType dtype = ctx.ScalarArg(i);
  if (!dtype.is_int() && dtype != DataType::INDEX) ctx.ArgError(i, "an integer scalar");
}

void RequireEnumInt(const DeduceContext& ctx, const std::string& kwarg, int64_t count, const std::string& names) {
  int64_t value = ctx.KwargAs<int64_t>(kwarg).value_or(-1);
  if (value < 0 || value >= count) {
    ctx.Error("keyword '" + kwarg + "' must be one of " + names + ", got " + std::to_string(value));
  }
}

// The signal cell at `offsets` of an INT32 window.
void RequireSignalCell(const DeduceContext& ctx, size_t window_arg, size_t offsets_arg) {
  auto window = WindowArg(ctx, window_arg);
  if (window->dtype != DataType::INT32) {
    ctx.Error("signal '" + ctx.ArgName(window_arg) + "' is a " + std::string(window->dtype.name()) +
              " window; signals are INT32 cells (pld.window(buf, shape, dtype=pl.INT32))");
  }
  Shape ones(window->shape.size(), ConstInt::Make(1));
  Shape offsets = IndexListArg(ctx, offsets_arg, window->shape.size());
  RequireWindowInside(ctx, offsets, ones, window->shape, "signal cell", "signal window");
}

void RegisterRankQueries() {
  CommOp("system.get_comm_ctx", "The comm context of a window: its rank and rank count, for pld.rank / pld.nranks")
      .set_no_pipe()
      .add_argument("window", "a DistributedTensor")
      .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
        WindowArg(ctx, 0);
        return ScalarType::Make(DataType::INT64);
      });
  for (auto [name, description] :
       {std::pair{"system.rank", "This rank in the comm domain of a comm context (INT32)"},
        std::pair{"system.nranks", "The number of ranks in the comm domain of a comm context (INT32)"}}) {
    CommOp(name, description)
        .set_no_pipe()
        .add_argument("ctx", "pld.get_comm_ctx(window), or the window itself")
        .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
          const TypePtr& type = ctx.arg(0)->type;
          bool is_context = IsScalarType(type, DataType::INT64);
          if (!is_context && !IsA<DistributedTensorType>(type)) {
            ctx.ArgError(0, "a comm context (pld.get_comm_ctx(window))");
          }
          return ScalarType::Make(DataType::INT32);
        });
  }
}

void RegisterSignals() {
  CommOp("system.notify", "Change the INT32 signal cell at offsets of rank peer's window: Set or AtomicAdd value")
      .add_argument("signal", "INT32 window")
      .add_argument("peer", "the rank whose cell changes")
      .add_argument("offsets", "the cell, one index per window dim")
      .add_argument("value", "INT32 value to store or add")
      .add_kwarg("op", AttrKind::kInt, int64_t{0}, "pld.NotifyOp: 0 AtomicAdd, 1 Set")
      .set_arg_effect(0, ArgEffect::kReadWrite)
      .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
        RequireSignalCell(ctx, 0, 2);
        RequireIntScalar(ctx, 1);
        RequireIntScalar(ctx, 3);
        RequireEnumInt(ctx, "op", 2, "pld.NotifyOp.AtomicAdd (0), pld.NotifyOp.Set (1)");
        return UnknownType::Make();
      });
  CommOp("system.wait", "Wait until this rank's INT32 signal cell at offsets equals (Eq) or reaches (Ge) expected")
      .add_argument("signal", "INT32 window")
      .add_argument("offsets", "the cell, one index per window dim")
      .add_argument("expected", "INT32 value")
      .add_kwarg("cmp", AttrKind::kInt, int64_t{1}, "pld.WaitCmp: 0 Eq, 1 Ge")
      .set_arg_effect(0, ArgEffect::kReadWrite)
      .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
        RequireSignalCell(ctx, 0, 1);
        RequireIntScalar(ctx, 2);
        RequireEnumInt(ctx, "cmp", 2, "pld.WaitCmp.Eq (0), pld.WaitCmp.Ge (1)");
        return UnknownType::Make();
      });
  // The kernel only registers the condition and returns; the runtime completes the task once it holds.
  // It reads the cell (no write), so later readers of the signal are not ordered after it.
  CommOp("system.defer_wait",
         "Register 'this rank's INT32 signal cell at offsets >= expected' with the scheduler: the task completes, "
         "and releases its dependents, once it holds")
      .add_argument("signal", "INT32 window")
      .add_argument("offsets", "the cell, one index per window dim")
      .add_argument("expected", "INT32 value in [0, INT32_MAX]")
      .add_kwarg("cmp", AttrKind::kInt, int64_t{1}, "pld.WaitCmp.Ge (1) only")
      .set_arg_effect(0, ArgEffect::kRead)
      .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
        RequireSignalCell(ctx, 0, 1);
        RequireIntScalar(ctx, 2);
        RequireEnumInt(ctx, "cmp", 2, "pld.WaitCmp.Eq (0), pld.WaitCmp.Ge (1)");
        if (ctx.KwargAs<int64_t>("cmp").value_or(1) != 1) {
          ctx.Error("pld.system.defer_wait supports cmp=pld.WaitCmp.Ge only: the scheduler's deferred condition is "
                    "'cell >= expected'; for an Eq wait use pld.system.wait, which blocks the core");
        }
        if (auto expected = As<ConstInt>(ctx.arg(2)); expected && expected->value < 0) {
          ctx.Error("pld.system.defer_wait: expected is " + std::to_string(expected->value) +
                    ", but deferred conditions compare values in [0, INT32_MAX]; count up from 0 instead");
        }
        return UnknownType::Make();
      });
}

// A remote store or put adds into the peer's window: the dtypes its engine can add.
void RequireAtomicDType(const DeduceContext& ctx, DataType dtype) {
  int64_t atomic = ctx.KwargAs<int64_t>("atomic").value_or(0);
  if (atomic == 0) return;
  if (atomic != 1) ctx.Error("keyword 'atomic' must be pld.AtomicType.None_ (0) or Add (1), got " + std::to_string(atomic));
  for (DataType ok : {DataType::FP32, DataType::FP16, DataType::BF16, DataType::INT32, DataType::INT16, DataType::INT8}) {
    if (dtype == ok) return;
  }
  ctx.Error(std::string("atomic=pld.AtomicType.Add adds FP32, FP16, BF16, INT32, INT16 or INT8 elements, not ") +
            dtype.name());
}

void RegisterTileTransfers() {
  CommOp("tile.remote_load", "Copy a window of rank peer's window buffer into a new Vec tile")
      .add_argument("window", "DistributedTensor")
      .add_argument("peer", "the rank to read from")
      .add_argument("offsets", "window origin, one per dim")
      .add_argument("shapes", "tile extents, one per dim")
      .add_optional_argument("valid_shape", "extents actually read; default: the whole tile")
      .set_output_memory(MemorySpace::Vec)
      .set_pipe(PipeType::kMTE2)
      .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
        auto window = WindowArg(ctx, 0);
        RequireIntScalar(ctx, 1);
        Shape offsets = IndexListArg(ctx, 2, window->shape.size());
        Shape shapes = ShapeListArg(ctx, 3);
        RequireListLength(ctx, 3, shapes.size(), window->shape.size());
        Shape valid = ctx.num_args() > 4 ? ValidShapeArg(ctx, 4, shapes) : shapes;
        RequireWindowInside(ctx, offsets, valid, window->shape, "region", "window");
        return MakeTileType(ctx, std::move(shapes), window->dtype, std::move(valid));
      });
  CommOp("tile.remote_store", "Copy (or add, atomic=Add) a Vec tile into a region of rank peer's window buffer")
      .add_argument("tile", "source tile, in Vec")
      .add_argument("window", "DistributedTensor, rank >= 2")
      .add_argument("peer", "the rank to write to")
      .add_argument("offsets", "region origin, one per window dim")
      .add_kwarg("atomic", AttrKind::kInt, int64_t{0}, "pld.AtomicType: 0 overwrite, 1 add")
      .set_input_memory(0, {MemorySpace::Vec})
      .set_arg_effect(1, ArgEffect::kReadWrite)
      .set_pipe(PipeType::kMTE3)
      .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
        ArrayInfo tile = ArrayArg(ctx, 0, ArrayKind::kTile);
        auto window = WindowArg(ctx, 1);
        if (window->shape.size() < 2) ctx.Error("the window of tile.remote_store must have rank >= 2");
        RequireIntScalar(ctx, 2);
        if (tile.dtype != window->dtype) {
          ctx.Error(std::string("a ") + tile.dtype.name() + " tile cannot be stored into a " + window->dtype.name() +
                    " window; pl.cast the tile first");
        }
        Shape offsets = IndexListArg(ctx, 3, window->shape.size());
        if (tile.shape.size() != window->shape.size()) {
          ctx.Error("the tile has rank " + std::to_string(tile.shape.size()) + " but the window rank " +
                    std::to_string(window->shape.size()));
        }
        RequireWindowInside(ctx, offsets, tile.valid_shape.empty() ? tile.shape : tile.valid_shape, window->shape,
                            "tile", "window");
        RequireAtomicDType(ctx, tile.dtype);
        return UnknownType::Make();
      });
}

// put/get region: dst_offsets, src_offsets and shape come together, or none of them (whole tensors).
void CheckRegion(const DeduceContext& ctx, const Ref<TensorType>& dst, const Ref<TensorType>& src) {
  if (dst->dtype != src->dtype) {
    ctx.Error(std::string("dst is ") + dst->dtype.name() + " but src is " + src->dtype.name() + "; transfers do not convert");
  }
  if (dst->shape.size() != src->shape.size()) ctx.Error("dst and src must have the same rank");
  if (ctx.num_args() == 3) {
    if (!SameShape(dst->shape, src->shape)) {
      ctx.Error("without dst_offsets/src_offsets/shape the whole tensors move, so their shapes must be equal: dst " +
                ShapeString(dst->shape) + ", src " + ShapeString(src->shape));
    }
    return;
  }
  if (ctx.num_args() != 6) ctx.Error("give dst_offsets, src_offsets and shape together, or none of them");
  Shape dst_offsets = IndexListArg(ctx, 3, dst->shape.size());
  Shape src_offsets = IndexListArg(ctx, 4, src->shape.size());
  Shape shape = ShapeListArg(ctx, 5);
  RequireListLength(ctx, 5, shape.size(), dst->shape.size());
  RequireWindowInside(ctx, dst_offsets, shape, dst->shape, "region", "dst");
  RequireWindowInside(ctx, src_offsets, shape, src->shape, "region", "src");
}

void CheckChunks(const DeduceContext& ctx) {
  int64_t rows = ctx.KwargAs<int64_t>("chunk_rows").value_or(0);
  int64_t cols = ctx.KwargAs<int64_t>("chunk_cols").value_or(0);
  if (rows < 0 || cols < 0) ctx.Error("chunk_rows and chunk_cols are >= 0 (0: the whole extent)");
  if (ctx.KwargAs<bool>("pipeline").value_or(false) && (rows == 0 || cols == 0)) {
    ctx.Error("pipeline=True double-buffers chunks, so it needs both chunk_rows > 0 and chunk_cols > 0 (got " +
              std::to_string(rows) + ", " + std::to_string(cols) + ")");
  }
}

OpDef& TensorTransfer(const std::string& name, std::string description, int window_arg) {
  return CommOp(name, std::move(description))
      .add_argument("dst", window_arg == 0 ? "DistributedTensor on the peer" : "local tensor")
      .add_argument("peer", window_arg == 0 ? "the rank to write to" : "the rank to read from")
      .add_argument("src", window_arg == 2 ? "DistributedTensor on the peer" : "local tensor")
      .add_optional_argument("dst_offsets", "region origin in dst")
      .add_optional_argument("src_offsets", "region origin in src")
      .add_optional_argument("shape", "region extents")
      .add_kwarg("chunk_rows", AttrKind::kInt, int64_t{0}, "rows per staged chunk (0: all)")
      .add_kwarg("chunk_cols", AttrKind::kInt, int64_t{0}, "columns per staged chunk (0: all)")
      .add_kwarg("pipeline", AttrKind::kBool, false, "double-buffer the chunks (needs both chunk sizes)");
}

void RegisterTensorTransfers() {
  TensorTransfer("tensor.put", "Copy (or add, atomic=Add) a local GM region into rank peer's window", 0)
      .add_kwarg("atomic", AttrKind::kInt, int64_t{0}, "pld.AtomicType: 0 overwrite, 1 add")
      .set_arg_effect(0, ArgEffect::kReadWrite)
      .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
        auto dst = WindowArg(ctx, 0);
        RequireIntScalar(ctx, 1);
        CheckRegion(ctx, dst, ctx.TensorArg(2));
        CheckChunks(ctx);
        RequireAtomicDType(ctx, dst->dtype);
        return UnknownType::Make();
      });
  TensorTransfer("tensor.get", "Copy a region of rank peer's window into a local GM tensor", 2)
      .set_arg_effect(0, ArgEffect::kWrite)
      .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
        auto src = WindowArg(ctx, 2);
        RequireIntScalar(ctx, 1);
        CheckRegion(ctx, ctx.TensorArg(0), src);
        CheckChunks(ctx);
        return UnknownType::Make();
      });
  CommOp("tensor.remote_store", "Copy (or add, atomic=Add) a GM tensor into a region of rank peer's window")
      .add_argument("tensor", "local tensor")
      .add_argument("window", "DistributedTensor")
      .add_argument("peer", "the rank to write to")
      .add_argument("offsets", "region origin, one per window dim")
      .add_kwarg("atomic", AttrKind::kInt, int64_t{0}, "pld.AtomicType: 0 overwrite, 1 add")
      .set_arg_effect(1, ArgEffect::kReadWrite)
      .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
        auto tensor = ctx.TensorArg(0);
        auto window = WindowArg(ctx, 1);
        RequireIntScalar(ctx, 2);
        if (tensor->dtype != window->dtype) ctx.Error("the tensor and the window must have the same dtype");
        if (tensor->shape.size() != window->shape.size()) ctx.Error("the tensor and the window must have the same rank");
        Shape offsets = IndexListArg(ctx, 3, window->shape.size());
        RequireWindowInside(ctx, offsets, tensor->shape, window->shape, "tensor", "window");
        RequireAtomicDType(ctx, tensor->dtype);
        return UnknownType::Make();
      });
}

// The signal window of a collective: INT32, with at least `rows` x `cols` cells where static.
void RequireCollectiveSignal(const DeduceContext& ctx, size_t i, const std::string& shape_hint) {
  auto signal = WindowArg(ctx, i);
  if (signal->dtype != DataType::INT32) {
    ctx.Error("the signal window '" + ctx.ArgName(i) + "' must be INT32 (" + shape_hint + "), got " +
              std::string(signal->dtype.name()));
  }
}

// A collective runs in a kernel (the InCore composite) or in a @pl.jit.host orchestrator (the host
// builtin, which LowerHostTensorCollectives turns into one dispatch per device of the domain).
OpDef& CollectiveOp(const std::string& name, std::string description) {
  return CommOp(name, std::move(description)).set_placement(Placement::kInCoreOrHost);
}

// `data = pld.tensor.<collective>(data, sig, ...)`: the result is the window itself, rebound.
OpDef& Collective(const std::string& name, std::string description) {
  return CollectiveOp(name, std::move(description)).set_output_reuses_input(0);
}

void RequireReduceOp(const DeduceContext& ctx) {
  RequireEnumInt(ctx, "op", 4, "pld.ReduceOp.Sum (0), Max (1), Min (2), Prod (3)");
}

void RegisterCollectives() {
  Collective("tensor.allreduce", "Every rank's window becomes the reduction over ranks (in place)")
      .add_argument("data", "DistributedTensor")
      .add_optional_argument("signal", "INT32 window: [NR, 1] for mesh, [2*(NR-1), NR] for ring; a host call "
                             "outside loops may omit it (SynthesizeAllReduceSignals adds one)")
      .add_kwarg("op", AttrKind::kInt, int64_t{0}, "pld.ReduceOp: 0 Sum, 1 Max, 2 Min, 3 Prod")
      .add_kwarg("mode", AttrKind::kString, std::string("mesh"), "mesh (one rendezvous) or ring (reduce-scatter + allgather)")
      .add_kwarg("core_num", AttrKind::kInt, int64_t{1}, "host mesh only: blocks per rank (accepted; the simulated "
                 "host builtin runs one)")
      .set_arg_effect(0, ArgEffect::kReadWrite)
      .set_arg_effect(1, ArgEffect::kReadWrite)
      .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
        auto data = WindowArg(ctx, 0);
        std::string mode = ctx.KwargAs<std::string>("mode").value_or("");
        if (mode != "mesh" && mode != "ring") ctx.Error("keyword 'mode' must be 'mesh' or 'ring', got '" + mode + "'");
        if (ctx.num_args() > 1) RequireCollectiveSignal(ctx, 1, mode == "mesh" ? "[NR, 1]" : "[2*(NR-1), NR]");
        RequireReduceOp(ctx);
        int64_t core_num = ctx.KwargAs<int64_t>("core_num").value_or(1);
        if (core_num < 1) ctx.Error("keyword 'core_num' must be a positive block count, got " + std::to_string(core_num));
        if (core_num != 1 && mode != "mesh") ctx.Error("keyword 'core_num' applies to mode='mesh' only");
        if (data->dtype != DataType::FP32 && data->dtype != DataType::FP16 && data->dtype != DataType::INT32) {
          ctx.Error(std::string("allreduce reduces FP32, FP16 or INT32 windows, not ") + data->dtype.name());
        }
        return ctx.arg(0)->type;
      });
  Collective("tensor.barrier", "Every rank of the window's domain arrives before any leaves (one credit barrier)")
      .add_argument("signal", "INT32 window [NR, 1]")
      .set_arg_effect(0, ArgEffect::kReadWrite)
      .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
        RequireCollectiveSignal(ctx, 0, "[NR, 1]");
        return ctx.arg(0)->type;
      });
  Collective("tensor.broadcast", "Every rank's window becomes rank root's")
      .add_argument("data", "DistributedTensor")
      .add_argument("signal", "INT32 window [NR, 1]")
      .add_required_kwarg("root", AttrKind::kInt, "the rank whose window everyone gets")
      .set_arg_effect(0, ArgEffect::kReadWrite)
      .set_arg_effect(1, ArgEffect::kReadWrite)
      .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
        WindowArg(ctx, 0);
        RequireCollectiveSignal(ctx, 1, "[NR, 1]");
        if (ctx.KwargAs<int64_t>("root").value_or(-1) < 0) ctx.Error("keyword 'root' must be a rank >= 0");
        return ctx.arg(0)->type;
      });
  Collective("tensor.reduce_scatter", "Row r of rank r's [NR, ...] window becomes the sum over ranks of their row r")
      .add_argument("data", "DistributedTensor [NR, SIZE]")
      .add_argument("signal", "INT32 window [NR, 1]")
      .add_kwarg("op", AttrKind::kInt, int64_t{0}, "pld.ReduceOp.Sum only")
      .set_arg_effect(0, ArgEffect::kReadWrite)
      .set_arg_effect(1, ArgEffect::kReadWrite)
      .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
        auto data = WindowArg(ctx, 0);
        RequireCollectiveSignal(ctx, 1, "[NR, 1]");
        if (ctx.KwargAs<int64_t>("op").value_or(0) != 0) ctx.Error("reduce_scatter supports op=pld.ReduceOp.Sum only");
        if (data->shape.size() < 2) ctx.Error("reduce_scatter's data is [NR, SIZE]: one row per rank");
        return ctx.arg(0)->type;
      });
  for (auto [name, description] :
       {std::pair{"tensor.allgather", "Row me of every rank's out window becomes this rank's mine"},
        std::pair{"tensor.all_to_all", "Row me of rank d's out window becomes row d of this rank's stage"}}) {
    CollectiveOp(name, description)
        .add_argument(std::string(name) == "tensor.allgather" ? "mine" : "stage",
                      std::string(name) == "tensor.allgather" ? "[1, SIZE] tensor" : "[NR, SIZE] tensor")
        .add_argument("out", "DistributedTensor [NR, SIZE]")
        .add_argument("signal", "INT32 window [NR, 1]")
        .set_output_reuses_input(1)
        .set_arg_effect(1, ArgEffect::kReadWrite)
        .set_arg_effect(2, ArgEffect::kReadWrite)
        .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
          auto source = ctx.TensorArg(0);
          auto out = WindowArg(ctx, 1);
          RequireCollectiveSignal(ctx, 2, "[NR, 1]");
          if (source->dtype != out->dtype) ctx.Error("the source and out must have the same dtype");
          if (ctx.arg(0).get() == ctx.arg(1).get()) ctx.Error("the source and out must be different tensors");
          return ctx.arg(1)->type;
        });
  }
  CollectiveOp("tensor.all_to_all_v", "Block me (MAX_RECV rows) of rank d's target becomes block d of this rank's "
               "input, and rank d's recv_counts[me] the rows of it send_counts[d] means (clamped to MAX_RECV)")
      .add_argument("input", "[NR*MAX_RECV, SIZE] tensor")
      .add_argument("target", "DistributedTensor [NR*MAX_RECV, SIZE]")
      .add_argument("signal", "INT32 window [NR, 1]")
      .add_argument("send_counts", "INT32 [NR] or [NR, 1] tensor: rows meant for each rank")
      .add_argument("recv_counts", "INT32 window [NR, 1]: rows meant by each sender")
      .set_output_reuses_input(1)
      .set_arg_effect(1, ArgEffect::kReadWrite)
      .set_arg_effect(2, ArgEffect::kReadWrite)
      .set_arg_effect(4, ArgEffect::kReadWrite)
      .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
        auto input = ctx.TensorArg(0);
        auto target = WindowArg(ctx, 1);
        RequireCollectiveSignal(ctx, 2, "[NR, 1]");
        auto send_counts = ctx.TensorArg(3);
        auto recv_counts = WindowArg(ctx, 4);
        if (input->dtype != target->dtype) ctx.Error("the input and target must have the same dtype");
        if (target->shape.size() != 2 || input->shape.size() != 2) {
          ctx.Error("the input and target are 2-D: [NR*MAX_RECV, SIZE]");
        }
        for (size_t i = 0; i < 5; ++i) {
          for (size_t j = 0; j < i; ++j) {
            if (ctx.arg(i).get() == ctx.arg(j).get()) {
              ctx.Error("'" + ctx.ArgName(j) + "' and '" + ctx.ArgName(i) + "' must be different tensors");
            }
          }
        }
        for (auto [i, counts] : {std::pair{size_t{3}, send_counts}, std::pair{size_t{4}, recv_counts}}) {
          bool column = counts->shape.size() == 1 ||
                        (counts->shape.size() == 2 && AsConstInt(counts->shape[1]).value_or(0) == 1);
          if (counts->dtype != DataType::INT32 || !column) {
            ctx.Error("'" + ctx.ArgName(i) + "' must be INT32 [NR] or [NR, 1], got " + TypeToString(ctx.arg(i)->type));
          }
        }
        // MAX_RECV = target rows / NR, where both are known.
        auto rows = AsConstInt(target->shape[0]);
        auto nr = AsConstInt(recv_counts->shape[0]);
        if (rows && nr && (*nr <= 0 || *rows % *nr != 0)) {
          ctx.Error("target has " + std::to_string(*rows) + " rows, not a multiple of NR = " + std::to_string(*nr) +
                    " (recv_counts' rows): it is [NR*MAX_RECV, SIZE], one block of MAX_RECV rows per sender");
        }
        auto sent = AsConstInt(send_counts->shape[0]);
        if (sent && nr && *sent != *nr) {
          ctx.Error("send_counts has " + std::to_string(*sent) + " rows but recv_counts " + std::to_string(*nr) +
                    "; both have one row per rank (NR)");
        }
        return ctx.arg(1)->type;
      });
}

[[maybe_unused]] const bool kRegistered = [] {
  RegisterRankQueries();
  RegisterSignals();
  RegisterTileTransfers();
  RegisterTensorTransfers();
  RegisterCollectives();
  return true;
}();

}  // namespace
}  // namespace pypto::ops
