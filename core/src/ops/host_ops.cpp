// The ops of a @pl.jit.host orchestrator (pld): the world size, window buffers and their typed views,
// rank r's slice of a host tensor, and the dispatch of a chip program to one device. They exist only in
// host functions; the host passes (SynthesizeAllReduceSignals, MaterializeCommDomainScopes,
// LowerHostTensorCollectives) rewrite them and the pld_host backend turns them into runtime calls.
#include "pypto/ops/registry.h"
#include "pypto/ops/type_rules.h"

namespace pypto::ops {
namespace {

using namespace pypto::ir;

OpDef& HostOp(const std::string& name, std::string description) {
  return OpRegistry::Global()
      .Register(name)
      .set_category(OpCategory::kCommOp)
      .set_description(std::move(description))
      .set_placement(Placement::kHostOnly)
      .set_dsl_module("pld");
}

void RequireIntOperand(const DeduceContext& ctx, size_t i, const std::string& what) {
  DataType dtype = ctx.ScalarArg(i);
  if (!dtype.is_int() && dtype != DataType::INDEX) ctx.ArgError(i, what);
}

// A window buffer is a DistributedTensor of bytes: [nbytes] UINT8, as pld.alloc_window_buffer makes it.
Ref<DistributedTensorType> BufferArg(const DeduceContext& ctx, size_t i) {
  auto buffer = As<DistributedTensorType>(ctx.arg(i)->type);
  if (!buffer || buffer->dtype != DataType::UINT8 || buffer->shape.size() != 1) {
    ctx.Error("argument '" + ctx.ArgName(i) + "' has type " + TypeToString(ctx.arg(i)->type) +
              ", not a window buffer; pass the result of pld.alloc_window_buffer(nbytes)");
  }
  return buffer;
}

int64_t StaticElements(const Shape& shape) {
  int64_t count = 1;
  for (const ExprPtr& dim : shape) {
    auto value = AsConstInt(dim);
    if (!value) return -1;
    count *= *value;
  }
  return count;
}

void RegisterWorld() {
  HostOp("system.world_size", "The number of ranks the host orchestrator runs on (INT64)")
      .set_type_deduce([](const DeduceContext&) -> TypePtr { return ScalarType::Make(DataType::INT64); });
}

void RegisterWindows() {
  HostOp("tensor.alloc_window_buffer",
         "Window memory of `size` bytes on every rank of its comm domain, zeroed; one host call's lifetime")
      .add_argument("size", "bytes (an integer; may be an expression of pld.world_size())")
      .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
        RequireIntOperand(ctx, 0, "an integer size in bytes");
        auto bytes = AsConstInt(ctx.arg(0));
        if (bytes && *bytes <= 0) {
          ctx.Error("a window buffer needs a positive size in bytes, got " + std::to_string(*bytes));
        }
        return DistributedTensorType::Make({ctx.arg(0)}, DataType::UINT8);
      });
  HostOp("tensor.window", "A typed view (pld.DistributedTensor) of a window buffer; views of one buffer alias")
      .add_argument("buffer", "a window buffer (pld.alloc_window_buffer)")
      .add_argument("shape", "the view's shape")
      .add_required_kwarg("dtype", AttrKind::kDataType, "the element type")
      .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
        auto buffer = BufferArg(ctx, 0);
        Shape shape = ShapeListArg(ctx, 1);
        DataType dtype = *ctx.KwargAs<DataType>("dtype");
        int64_t elements = StaticElements(shape);
        auto bytes = AsConstInt(buffer->shape[0]);
        if (elements >= 0 && bytes && elements * dtype.bits() > *bytes * 8) {
          ctx.Error("the view needs " + std::to_string((elements * dtype.bits() + 7) / 8) + " bytes (" +
                    std::to_string(elements) + " x " + dtype.name() + ") but the buffer has " +
                    std::to_string(*bytes) + "; allocate a larger buffer or view fewer elements");
        }
        return DistributedTensorType::Make(shape, dtype);
      });
}

void RegisterRankSlice() {
  HostOp("tensor.rank_slice", "x[r]: rank r's slice of a host tensor whose leading dim is the rank")
      .add_argument("tensor", "a host tensor [NR, ...]")
      .add_argument("rank", "an integer")
      .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
        auto tensor = ctx.TensorArg(0);
        RequireIntOperand(ctx, 1, "an integer rank");
        if (IsA<DistributedTensorType>(ctx.arg(0)->type)) {
          ctx.Error("a window is the same on every rank and has no per-rank slice; pass the window itself");
        }
        if (tensor->shape.size() < 2) {
          ctx.Error("x[r] drops the leading rank dim of a host tensor [NR, ...] of at least 2 dims; this one is " +
                    TypeToString(ctx.arg(0)->type));
        }
        return TensorType::Make(Shape(tensor->shape.begin() + 1, tensor->shape.end()), tensor->dtype);
      });
}

void RegisterHostSlice() {
  HostOp("tensor.host_slice", "x[a:b, ...] of a host tensor: a view of that region, passed to a chip program")
      .add_argument("tensor", "a host tensor")
      .add_argument("shape", "the region's extents")
      .add_argument("offsets", "where it starts")
      .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
        auto tensor = ctx.TensorArg(0);
        if (IsA<DistributedTensorType>(ctx.arg(0)->type)) {
          ctx.Error("a window is passed whole; slice it inside the chip program that receives it");
        }
        Shape shape = ShapeListArg(ctx, 1);
        Shape offsets = IndexListArg(ctx, 2, tensor->shape.size());
        if (shape.size() != tensor->shape.size()) {
          ctx.Error("the region has " + std::to_string(shape.size()) + " extents for a tensor of rank " +
                    std::to_string(tensor->shape.size()));
        }
        return TensorType::Make(shape, tensor->dtype);
      });
}

void RegisterDispatch() {
  HostOp("system.dispatch", "program(*args, device=d): run a @pl.jit chip program on device d (its rank) only")
      .add_argument("device", "the device (rank) that runs the program")
      .add_variadic_argument("args", "the program's arguments")
      .add_required_kwarg("program", AttrKind::kString, "the @pl.jit chip program's name")
      .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
        RequireIntOperand(ctx, 0, "an integer device (rank)");
        return UnknownType::Make();
      });
}

[[maybe_unused]] const bool kRegistered = [] {
  RegisterWorld();
  RegisterWindows();
  RegisterRankSlice();
  RegisterHostSlice();
  RegisterDispatch();
  return true;
}();

}  // namespace
}  // namespace pypto::ops
