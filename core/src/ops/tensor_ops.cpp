// tensor.*: whole-array ops on GM tensors. Compute ops live in InCore code
// until ConvertTensorToTileOps lowers each to one tile op; creation belongs to
// the control plane; views, element access and assemble work on both sides
// (the orchestration codegen lowers them to runtime tensor views and scalar
// accesses).
#include "pypto/ops/registry.h"
#include "pypto/ops/type_rules.h"

namespace pypto::ops {
namespace {

using namespace pypto::ir;

constexpr ArrayKind kTensor = ArrayKind::kTensor;

OpDef& TensorOp(const std::string& name, std::string description) {
  return OpRegistry::Global()
      .Register(name)
      .set_category(OpCategory::kTensorOp)
      .set_description(std::move(description));
}

struct Member {
  const char* name;
  const char* description;
};

void RegisterCreation() {
  TensorOp("tensor.create", "Allocate a GM tensor of the given shape and dtype")
      .add_argument("shape", "list of extents")
      .add_required_kwarg("dtype", AttrKind::kDataType, "element dtype")
      .add_enum_kwarg("layout", "TensorLayout", EnumAttr::Of(TensorLayout::ND), "ND, DN or NZ")
      .add_kwarg("manual_dep", AttrKind::kBool, false, "opt the tensor out of automatic dependency tracking")
      .add_kwarg("init_value", AttrKind::kFloat, std::nullopt, "fill value; uninitialized when absent")
      .set_placement(Placement::kOrchestrationOnly)
      .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
        Shape shape = ShapeListArg(ctx, 0);
        DataType dtype = *ctx.KwargAs<DataType>("dtype");
        if (dtype == DataType::TASK_ID) ctx.Error("dtype TASK_ID is not an element type; use array.create");
        return MakeTensorType(std::move(shape), dtype, {}, *ctx.KwargEnum<TensorLayout>("layout"));
      });

  TensorOp("tensor.full", "A tensor of the given shape filled with one value")
      .add_argument("shape", "list of extents")
      .add_argument("value", "fill value (scalar)")
      .add_required_kwarg("dtype", AttrKind::kDataType, "element dtype")
      .set_type_deduce([](const DeduceContext& ctx) { return DeduceFull(ctx, kTensor); });
}

void RegisterViewsAndAccess() {
  TensorOp("tensor.slice", "A window of a tensor (a view: no data moves)")
      .add_argument("input", "source tensor")
      .add_argument("shape", "window extents")
      .add_argument("offset", "window origin")
      .add_optional_argument("valid_shape", "valid extents of the window; default: what the source has there")
      .set_placement(Placement::kAnywhere)
      .set_type_deduce([](const DeduceContext& ctx) { return DeduceSlice(ctx, kTensor); });

  TensorOp("tensor.assemble", "Write a tensor or tile into a region of a target tensor; the result is the target")
      .add_argument("target", "destination tensor")
      .add_argument("source", "tensor or tile to write")
      .add_argument("offset", "origin of the written region")
      .add_kwarg("atomic", AttrKind::kInt, int64_t{0}, "0 overwrites, 1 adds atomically")
      .set_arg_effect(0, ArgEffect::kReadWrite)
      .set_output_reuses_input(0)
      .set_placement(Placement::kAnywhere)
      .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
        ArrayInfo target = ArrayArg(ctx, 0, kTensor);
        ArrayInfo source = TensorOrTileArg(ctx, 1);
        RequireRank(ctx, 1, source, target.rank());
        Shape offsets = IndexListArg(ctx, 2, target.rank());
        RequireStorableInto(ctx, 1, source, target.dtype);
        AtomicAddKwarg(ctx, target.dtype);
        RequireWindowInside(ctx, offsets, source.valid_shape, target.shape, "source", "target");
        Shape valid = WrittenValidShape(target.shape, target.valid_shape, offsets, source.valid_shape);
        if (SameShape(valid, target.valid_shape)) return target.type;
        return MakeTensorType(target.shape, target.dtype, std::move(valid), As<TensorType>(target.type)->layout);
      });

  TensorOp("tensor.reshape", "The same elements under a new shape (a view)")
      .add_argument("tensor", "source tensor")
      .add_argument("shape", "new extents; same element count")
      .add_optional_argument("valid_shape", "valid extents of the result")
      .set_placement(Placement::kAnywhere)
      .set_type_deduce([](const DeduceContext& ctx) { return DeduceReshape(ctx, kTensor); });

  TensorOp("tensor.transpose", "Swap two axes")
      .add_argument("tensor", "source tensor")
      .add_argument("axis1", "first axis (constant; negative counts from the end)")
      .add_argument("axis2", "second axis")
      .add_optional_argument("valid_shape", "valid extents of the result")
      .set_placement(Placement::kAnywhere)
      .set_type_deduce([](const DeduceContext& ctx) { return DeduceTranspose(ctx, kTensor); });

  TensorOp("tensor.concat", "Join two tensors along the last axis")
      .add_argument("src0", "first tensor")
      .add_argument("src1", "second tensor; equal extents outside the last axis")
      .set_type_deduce([](const DeduceContext& ctx) { return DeduceConcat(ctx, kTensor); });

  TensorOp("tensor.read", "Read one element as a scalar")
      .add_argument("tensor", "source tensor")
      .add_argument("indices", "one index per dim")
      .set_placement(Placement::kAnywhere)
      .set_type_deduce([](const DeduceContext& ctx) { return DeduceRead(ctx, kTensor); });

  TensorOp("tensor.write", "Write one element; the result is the tensor")
      .add_argument("tensor", "destination tensor")
      .add_argument("indices", "one index per dim")
      .add_argument("value", "scalar to store")
      .set_arg_effect(0, ArgEffect::kWrite)
      .set_output_reuses_input(0)
      .set_placement(Placement::kAnywhere)
      .set_type_deduce([](const DeduceContext& ctx) { return DeduceWrite(ctx, kTensor); });

  TensorOp("tensor.dim", "The extent of one dim as an INDEX scalar")
      .add_argument("tensor", "source tensor")
      .add_argument("axis", "dim (constant; negative counts from the end)")
      .set_placement(Placement::kAnywhere)
      .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
        ArrayInfo x = ArrayArg(ctx, 0, kTensor);
        AxisArg(ctx, 1, x.rank());
        return ScalarType::Make(DataType::INDEX);
      });

  TensorOp("tensor.fillpad", "Fill the invalid region with a pad value; the whole result is valid")
      .add_argument("tensor", "source tensor")
      .add_enum_kwarg("pad_value", "PadValue", EnumAttr::Of(PadValue::Zero), "zero, max or min")
      .set_type_deduce([](const DeduceContext& ctx) { return DeduceFillpad(ctx, kTensor); });

  TensorOp("tensor.cast", "Convert the element dtype")
      .add_argument("input", "source tensor")
      .add_required_kwarg("target_type", AttrKind::kDataType, "result dtype")
      .add_kwarg("mode", AttrKind::kInt, kCastModeRound,
                 "rounding: 0 none, 1 rint, 2 round, 3 floor, 4 ceil, 5 trunc, 6 odd")
      .set_type_deduce([](const DeduceContext& ctx) { return DeduceCast(ctx, kTensor); });
}

void RegisterArithmetic() {
  for (auto [name, description] : {Member{"tensor.add", "Element-wise sum with NumPy broadcasting"},
                                   Member{"tensor.sub", "Element-wise difference with NumPy broadcasting"},
                                   Member{"tensor.mul", "Element-wise product with NumPy broadcasting"},
                                   Member{"tensor.fmod", "Element-wise floating-point remainder with broadcasting"}}) {
    TensorOp(name, description)
        .add_argument("lhs", "tensor")
        .add_argument("rhs", "tensor")
        .set_type_deduce([](const DeduceContext& ctx) { return DeduceElementwise(ctx, kTensor); });
  }
  TensorOp("tensor.div", "Element-wise quotient with NumPy broadcasting")
      .add_argument("lhs", "tensor")
      .add_argument("rhs", "tensor")
      .add_kwarg("high_precision", AttrKind::kBool, false, "slower, more exact float division")
      .set_type_deduce([](const DeduceContext& ctx) { return DeduceDivision(ctx, kTensor); });
  for (auto [name, description] :
       {Member{"tensor.maximum", "Element-wise maximum of a tensor and a tensor or scalar"},
        Member{"tensor.minimum", "Element-wise minimum of a tensor and a tensor or scalar"}}) {
    TensorOp(name, description)
        .add_argument("lhs", "tensor")
        .add_argument("rhs", "tensor (broadcast) or scalar")
        .set_type_deduce([](const DeduceContext& ctx) {
          return IsA<ScalarType>(ctx.arg(1)->type) ? DeduceScalarForm(ctx, kTensor) : DeduceElementwise(ctx, kTensor);
        });
  }
  for (auto [name, description] : {Member{"tensor.adds", "Add a scalar to every element"},
                                   Member{"tensor.subs", "Subtract a scalar from every element"},
                                   Member{"tensor.muls", "Multiply every element by a scalar"},
                                   Member{"tensor.divs", "Divide every element by a scalar"},
                                   Member{"tensor.fmods", "Floating-point remainder of every element by a scalar"}}) {
    TensorOp(name, description)
        .add_argument("lhs", "tensor")
        .add_argument("rhs", "scalar")
        .set_type_deduce([](const DeduceContext& ctx) { return DeduceScalarForm(ctx, kTensor); });
  }
}

void RegisterBitwise() {
  for (auto [name, description] : {Member{"tensor.and", "Element-wise bitwise AND of integer tensors"},
                                   Member{"tensor.or", "Element-wise bitwise OR of integer tensors"},
                                   Member{"tensor.xor", "Element-wise bitwise XOR of integer tensors"}}) {
    TensorOp(name, description)
        .add_argument("lhs", "integer tensor")
        .add_argument("rhs", "integer tensor of the same shape")
        .set_type_deduce([](const DeduceContext& ctx) { return DeduceBitwise(ctx, kTensor, false); });
  }
  for (auto [name, description] :
       {Member{"tensor.shl", "Element-wise left shift"}, Member{"tensor.shr", "Element-wise right shift"}}) {
    TensorOp(name, description)
        .add_argument("lhs", "integer tensor")
        .add_argument("rhs", "integer tensor of shift counts, same shape")
        .set_type_deduce([](const DeduceContext& ctx) { return DeduceBitwise(ctx, kTensor, true); });
  }
  for (auto [name, description] : {Member{"tensor.ands", "Bitwise AND of every element with a scalar"},
                                   Member{"tensor.ors", "Bitwise OR of every element with a scalar"},
                                   Member{"tensor.xors", "Bitwise XOR of every element with a scalar"}}) {
    TensorOp(name, description)
        .add_argument("lhs", "integer tensor")
        .add_argument("rhs", "integer scalar")
        .set_type_deduce([](const DeduceContext& ctx) { return DeduceBitwiseScalar(ctx, kTensor, false); });
  }
  for (auto [name, description] : {Member{"tensor.shls", "Shift every element left by a scalar count"},
                                   Member{"tensor.shrs", "Shift every element right by a scalar count"}}) {
    TensorOp(name, description)
        .add_argument("lhs", "integer tensor")
        .add_argument("rhs", "non-negative integer scalar")
        .set_type_deduce([](const DeduceContext& ctx) { return DeduceBitwiseScalar(ctx, kTensor, true); });
  }
  TensorOp("tensor.not", "Element-wise bitwise NOT")
      .add_argument("input", "integer tensor")
      .set_type_deduce([](const DeduceContext& ctx) { return DeduceUnary(ctx, kTensor, DTypeClass::kInt); });
}

void RegisterUnary() {
  for (auto [name, description] :
       {Member{"tensor.exp", "Element-wise e^x"}, Member{"tensor.sqrt", "Element-wise square root"},
        Member{"tensor.sin", "Element-wise sine"}, Member{"tensor.cos", "Element-wise cosine"}}) {
    TensorOp(name, description)
        .add_argument("input", "floating-point tensor")
        .set_type_deduce([](const DeduceContext& ctx) { return DeduceUnary(ctx, kTensor, DTypeClass::kFloat); });
  }
  for (auto [name, description] :
       {Member{"tensor.log", "Element-wise natural logarithm"}, Member{"tensor.recip", "Element-wise reciprocal"},
        Member{"tensor.rsqrt", "Element-wise reciprocal square root"}}) {
    TensorOp(name, description)
        .add_argument("input", "floating-point tensor")
        .add_kwarg("high_precision", AttrKind::kBool, false, "slower, more exact lowering")
        .set_type_deduce([](const DeduceContext& ctx) { return DeduceUnary(ctx, kTensor, DTypeClass::kFloat); });
  }
  for (auto [name, description] :
       {Member{"tensor.neg", "Element-wise negation"}, Member{"tensor.abs", "Element-wise absolute value"},
        Member{"tensor.relu", "Element-wise max(x, 0)"}}) {
    TensorOp(name, description)
        .add_argument("input", "signed integer or floating-point tensor")
        .set_type_deduce(
            [](const DeduceContext& ctx) { return DeduceUnary(ctx, kTensor, DTypeClass::kSignedOrFloat); });
  }
  TensorOp("tensor.cmp", "Element-wise comparison to a BOOL mask")
      .add_argument("lhs", "tensor")
      .add_argument("rhs", "tensor (broadcast) or scalar")
      .add_kwarg("cmp_type", AttrKind::kInt, int64_t{0}, "0 eq, 1 ne, 2 lt, 3 le, 4 gt, 5 ge")
      .set_type_deduce([](const DeduceContext& ctx) { return DeduceCompare(ctx, kTensor); });
}

void RegisterReductions() {
  for (auto [name, description] : {Member{"tensor.row_sum", "Sum of each row: [..., M, N] -> [..., M, 1]"},
                                   Member{"tensor.row_max", "Maximum of each row: [..., M, N] -> [..., M, 1]"},
                                   Member{"tensor.row_min", "Minimum of each row: [..., M, N] -> [..., M, 1]"},
                                   Member{"tensor.row_prod", "Product of each row: [..., M, N] -> [..., M, 1]"}}) {
    TensorOp(name, description)
        .add_argument("input", "tensor of rank >= 2")
        .set_type_deduce([](const DeduceContext& ctx) { return DeduceRowReduction(ctx, kTensor, false); });
  }
  for (auto [name, description] : {Member{"tensor.row_argmax", "Column index of each row's maximum (INT32)"},
                                   Member{"tensor.row_argmin", "Column index of each row's minimum (INT32)"}}) {
    TensorOp(name, description)
        .add_argument("input", "tensor of rank >= 2")
        .set_type_deduce([](const DeduceContext& ctx) { return DeduceRowReduction(ctx, kTensor, true); });
  }
  for (auto [name, description] : {Member{"tensor.col_sum", "Sum of each column: [M, N, ...] -> [1, N, ...]"},
                                   Member{"tensor.col_max", "Maximum of each column: [M, N, ...] -> [1, N, ...]"},
                                   Member{"tensor.col_min", "Minimum of each column: [M, N, ...] -> [1, N, ...]"},
                                   Member{"tensor.col_prod", "Product of each column: [M, N, ...] -> [1, N, ...]"}}) {
    TensorOp(name, description)
        .add_argument("input", "tensor of rank >= 2")
        .set_type_deduce([](const DeduceContext& ctx) { return DeduceColReduction(ctx, kTensor, false); });
  }
  for (auto [name, description] : {Member{"tensor.col_argmax", "Row index of each column's maximum (INT32)"},
                                   Member{"tensor.col_argmin", "Row index of each column's minimum (INT32)"}}) {
    TensorOp(name, description)
        .add_argument("input", "tensor of rank >= 2")
        .set_type_deduce([](const DeduceContext& ctx) { return DeduceColReduction(ctx, kTensor, true); });
  }
}

void RegisterExpansions() {
  TensorOp("tensor.row_expand", "Broadcast a [..., M, 1] column across the rows of a target's shape")
      .add_argument("target", "tensor giving the result shape")
      .add_argument("row_vec", "[..., M, 1] tensor")
      .set_type_deduce([](const DeduceContext& ctx) { return DeduceRowExpand(ctx, kTensor); });
  for (auto [name, description] :
       {Member{"tensor.row_expand_add", "Add a per-row value"},
        Member{"tensor.row_expand_sub", "Subtract a per-row value"},
        Member{"tensor.row_expand_mul", "Multiply by a per-row value"},
        Member{"tensor.row_expand_div", "Divide by a per-row value"},
        Member{"tensor.row_expand_max", "Maximum with a per-row value"},
        Member{"tensor.row_expand_min", "Minimum with a per-row value"},
        Member{"tensor.row_expand_expdif", "exp(x - m) with a per-row m (the softmax step)"}}) {
    TensorOp(name, description)
        .add_argument("tensor", "[..., M, N] tensor")
        .add_argument("row_vec", "[..., M, 1] tensor of the same dtype")
        .set_type_deduce([](const DeduceContext& ctx) { return DeduceRowExpand(ctx, kTensor); });
  }
  TensorOp("tensor.col_expand", "Broadcast a [1, N] row down the columns of a target's shape")
      .add_argument("target", "tensor giving the result shape")
      .add_argument("col_vec", "[1, N, ...] tensor")
      .set_type_deduce([](const DeduceContext& ctx) { return DeduceColExpand(ctx, kTensor); });
  for (auto [name, description] : {Member{"tensor.col_expand_add", "Add a per-column value"},
                                   Member{"tensor.col_expand_sub", "Subtract a per-column value"},
                                   Member{"tensor.col_expand_mul", "Multiply by a per-column value"},
                                   Member{"tensor.col_expand_div", "Divide by a per-column value"},
                                   Member{"tensor.col_expand_max", "Maximum with a per-column value"},
                                   Member{"tensor.col_expand_min", "Minimum with a per-column value"},
                                   Member{"tensor.col_expand_expdif", "exp(x - m) with a per-column m"}}) {
    TensorOp(name, description)
        .add_argument("tensor", "[M, N, ...] tensor")
        .add_argument("col_vec", "[1, N, ...] tensor of the same dtype")
        .set_type_deduce([](const DeduceContext& ctx) { return DeduceColExpand(ctx, kTensor); });
  }
  TensorOp("tensor.expands", "A scalar broadcast to a target's shape and dtype")
      .add_argument("target", "tensor giving the result shape and dtype")
      .add_argument("scalar", "value")
      .set_type_deduce([](const DeduceContext& ctx) { return DeduceExpandScalar(ctx, kTensor); });
}

void RegisterMatmul() {
  TensorOp("tensor.matmul", "Matrix product [..., M, K] x [..., K, N] -> [..., M, N]")
      .add_argument("lhs", "tensor of rank >= 2")
      .add_argument("rhs", "tensor of rank >= 2")
      .add_kwarg("out_dtype", AttrKind::kDataType, std::nullopt, "result dtype; default: the promoted operand dtype")
      .add_kwarg("a_trans", AttrKind::kBool, false, "read lhs as its transpose")
      .add_kwarg("b_trans", AttrKind::kBool, false, "read rhs as its transpose")
      .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
        ArrayInfo lhs = ArrayArg(ctx, 0, kTensor);
        ArrayInfo rhs = ArrayArg(ctx, 1, kTensor);
        RequireDType(ctx, 0, lhs.dtype, DTypeClass::kNumeric);
        RequireDType(ctx, 1, rhs.dtype, DTypeClass::kNumeric);
        MatmulGeometry g =
            DeduceMatmulGeometry(ctx, 0, lhs, 1, rhs, *ctx.KwargAs<bool>("a_trans"), *ctx.KwargAs<bool>("b_trans"));
        DataType dtype = ctx.KwargAs<DataType>("out_dtype").value_or(PromoteTypes(lhs.dtype, rhs.dtype));
        return MakeTensorType(std::move(g.shape), dtype, std::move(g.valid));
      });

  TensorOp("tensor.matmul_acc", "acc + lhs @ rhs into the accumulator; the result is acc")
      .add_argument("acc", "accumulator tensor (FP32 for float operands, INT32 for integer ones)")
      .add_argument("lhs", "tensor of rank >= 2")
      .add_argument("rhs", "tensor of rank >= 2")
      .add_optional_argument("init_cond", "BOOL scalar: overwrite acc with lhs @ rhs where true")
      .add_kwarg("a_trans", AttrKind::kBool, false, "read lhs as its transpose")
      .add_kwarg("b_trans", AttrKind::kBool, false, "read rhs as its transpose")
      .set_arg_effect(0, ArgEffect::kReadWrite)
      .set_output_reuses_input(0)
      .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
        ArrayInfo acc = ArrayArg(ctx, 0, kTensor);
        ArrayInfo lhs = ArrayArg(ctx, 1, kTensor);
        ArrayInfo rhs = ArrayArg(ctx, 2, kTensor);
        if (lhs.dtype != rhs.dtype) {
          ctx.Error(std::string("lhs and rhs must have one dtype, got ") + lhs.dtype.name() + " and " +
                    rhs.dtype.name());
        }
        MatmulGeometry g =
            DeduceMatmulGeometry(ctx, 1, lhs, 2, rhs, *ctx.KwargAs<bool>("a_trans"), *ctx.KwargAs<bool>("b_trans"));
        if (!SameShape(acc.shape, g.shape)) {
          ctx.Error("argument 'acc' has shape " + ShapeString(acc.shape) + " but lhs @ rhs has shape " +
                    ShapeString(g.shape));
        }
        if (acc.dtype != AccumulatorDType(lhs.dtype)) {
          ctx.Error(std::string("argument 'acc' must be ") + AccumulatorDType(lhs.dtype).name() + " to accumulate " +
                    lhs.dtype.name() + " products, got " + acc.dtype.name());
        }
        if (ctx.num_args() > 3 && !IsScalarType(ctx.arg(3)->type, DataType::BOOL)) ctx.ArgError(3, "a BOOL scalar");
        return acc.type;
      });
}

void RegisterBlockIdentity() {
  for (auto [name, description] :
       {Member{"tensor.get_block_idx", "This block's index under pl.spmd (INDEX)"},
        Member{"tensor.get_block_num", "The number of blocks of this SPMD task (INDEX)"},
        Member{"tensor.get_subblock_idx", "This AIV lane's index under pl.split_aiv (INDEX)"}}) {
    TensorOp(name, description).set_type_deduce([](const DeduceContext&) -> TypePtr {
      return ScalarType::Make(DataType::INDEX);
    });
  }
}

// `pl.dump_tag(t)`: with RunConfig(enable_dump_args=1), the tasks whose
// arguments view t's memory dump them. A statement of the orchestration.
void RegisterDumpTag() {
  TensorOp("tensor.dump_tag", "Mark a tensor's memory for the argument dump (RunConfig(enable_dump_args=1))")
      .add_argument("tensor", "the tensor to dump wherever a task reads or writes it")
      .set_placement(Placement::kOrchestrationOnly)
      .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
        ArrayArg(ctx, 0, kTensor);
        return UnknownType::Make();
      });
}

[[maybe_unused]] const bool kRegistered = [] {
  RegisterCreation();
  RegisterDumpTag();
  RegisterViewsAndAccess();
  RegisterArithmetic();
  RegisterBitwise();
  RegisterUnary();
  RegisterReductions();
  RegisterExpansions();
  RegisterMatmul();
  RegisterBlockIdentity();
  return true;
}();

}  // namespace
}  // namespace pypto::ops
