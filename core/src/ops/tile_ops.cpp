// tile.*: ops on on-chip tiles, 1:1 with PTO instructions. All of them run in
// InCore code. Each declares where its tile inputs may live and where its
// result lives; InferTileMemorySpace reads those rules to place tiles and
// insert tile.move, so the deductions here only reject spaces that no move can
// fix (tile.load into L0, tile.store out of Mat).
#include "pypto/ops/registry.h"
#include "pypto/ops/type_rules.h"

namespace pypto::ops {
namespace {

using namespace pypto::ir;

constexpr ArrayKind kTile = ArrayKind::kTile;

OpDef& TileOp(const std::string& name, std::string description) {
  return OpRegistry::Global().Register(name).set_category(OpCategory::kTileOp).set_description(std::move(description));
}

// A vector-unit op: the listed tile inputs are read from Vec and the result is written to Vec.
OpDef& VecOp(const std::string& name, std::string description, std::initializer_list<int> tile_inputs) {
  OpDef& op = TileOp(name, std::move(description)).set_output_memory(MemorySpace::Vec).set_pipe(PipeType::kV);
  for (int i : tile_inputs) op.set_input_memory(i, {MemorySpace::Vec});
  return op;
}

std::optional<MemorySpace> SpaceOf(const ExprPtr& e) {
  auto tile = e ? As<TileType>(e->type) : nullptr;
  return tile ? tile->memory_space : std::nullopt;
}

// The engine that copies a tile between spaces (pto-isa's TMOV_* pipes):
// out of Acc the fixpipe, out of Mat MTE1 (into Left, Right, Bias), Vec to
// Vec the vector unit, Vec to the cube's buffers the fixpipe.
PipeType MovePipe(std::optional<MemorySpace> from, std::optional<MemorySpace> to) {
  if (from == MemorySpace::Acc) return PipeType::kFIX;
  if (from == MemorySpace::Mat) return PipeType::kMTE1;
  if (from == MemorySpace::Vec && to != MemorySpace::Vec) return PipeType::kFIX;
  return PipeType::kV;
}

// A copy from argument `from`'s space into the result's (tile.move, tile.extract).
PipeFn MoveFrom(size_t from) {
  return [from](const ir::Call& call) -> std::optional<PipeType> {
    auto result = As<TileType>(call.type);
    return MovePipe(SpaceOf(call.args.at(from)), result ? result->memory_space : std::nullopt);
  };
}

struct Member {
  const char* name;
  const char* description;
};

std::string SpaceName(MemorySpace space) { return std::string("MemorySpace.") + ToString(space); }

// A scratch tile the hardware needs; its contents are undefined afterwards.
void RequireTmpTile(const DeduceContext& ctx, size_t i, DataType dtype) {
  ArrayInfo tmp = ArrayArg(ctx, i, kTile);
  if (tmp.dtype == dtype) return;
  ctx.Error("scratch '" + ctx.ArgName(i) + "' must have dtype " + dtype.name() + ", got " + tmp.dtype.name());
}

DataType ResultDType(const TypePtr& tile) { return As<TileType>(tile)->dtype; }

// lhs, rhs broadcast as usual; rhs2 must already have the result's shape.
TypePtr DeduceThreeOperands(const DeduceContext& ctx) {
  auto result = std::make_shared<TileType>(*As<TileType>(DeduceElementwise(ctx, kTile)));
  ArrayInfo rhs2 = ArrayArg(ctx, 2, kTile);
  RequireDType(ctx, 2, rhs2.dtype, DTypeClass::kNumeric);
  if (!SameShape(rhs2.shape, result->shape)) {
    ctx.Error("argument 'rhs2' has shape " + ShapeString(rhs2.shape) + " but lhs and rhs give " +
              ShapeString(result->shape));
  }
  result->dtype = PromoteTypes(result->dtype, rhs2.dtype);
  return result;
}

void RegisterDataMovement() {
  TileOp("tile.load", "Copy a window of a GM tensor into a new tile (Vec or Mat)")
      .add_argument("tensor", "source tensor")
      .add_argument("offsets", "window origin, one per tensor dim")
      .add_argument("shapes", "tile extents, one per tensor dim")
      .add_optional_argument("valid_shape", "extents actually read; default: the whole window")
      .add_enum_kwarg("target_memory", "MemorySpace", std::nullopt,
                      "Vec or Mat; unset leaves the choice to InferTileMemorySpace")
      .set_output_memory_from_kwarg("target_memory")
      .set_pipe(PipeType::kMTE2)
      .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
        std::optional<MemorySpace> target = ctx.KwargEnum<MemorySpace>("target_memory");
        if (target == MemorySpace::Left || target == MemorySpace::Right) {
          ctx.Error("target_memory=" + SpaceName(*target) +
                    " is not a load destination; load to MemorySpace.Mat, then tile.move(t, target_memory=" +
                    SpaceName(*target) + ")");
        }
        if (target && target != MemorySpace::Vec && target != MemorySpace::Mat) {
          ctx.Error("target_memory must be MemorySpace.Vec or MemorySpace.Mat, got " + SpaceName(*target));
        }
        ArrayInfo src = ArrayArg(ctx, 0, ArrayKind::kTensor);
        Shape offsets = IndexListArg(ctx, 1, src.rank());
        Shape shapes = ShapeListArg(ctx, 2);
        RequireListLength(ctx, 2, shapes.size(), src.rank());
        Shape requested = ctx.num_args() > 3 ? ValidShapeArg(ctx, 3, shapes) : shapes;
        RequireWindowInside(ctx, offsets, requested, src.shape, "valid region", "tensor");
        Shape valid = WindowValidShape(src.shape, src.valid_shape, offsets, requested);
        return MakeTileType(ctx, std::move(shapes), src.dtype, std::move(valid));
      });

  TileOp("tile.store", "Copy a tile into a window of a GM tensor; the result is the tensor")
      .add_argument("tile", "source tile, in Vec or Acc")
      .add_argument("offsets", "window origin, one per tensor dim")
      .add_argument("output_tensor", "destination tensor")
      .add_kwarg("atomic", AttrKind::kInt, int64_t{0}, "0 overwrites, 1 adds atomically")
      .set_input_memory(0, {MemorySpace::Vec, MemorySpace::Acc})
      .set_output_reuses_input(2)
      // TSTORE_ACC runs on the fixpipe, TSTORE_VEC on MTE3.
      .set_pipe([](const ir::Call& call) -> std::optional<PipeType> {
        return SpaceOf(call.args.at(0)) == MemorySpace::Acc ? PipeType::kFIX : PipeType::kMTE3;
      })
      // A plain store never reads the destination; an atomic one adds to what is there.
      .set_arg_effect(2,
                      [](const Attrs& kwargs) {
                        return kwargs.Get<int64_t>("atomic").value_or(0) == 1 ? ArgEffect::kReadWrite
                                                                              : ArgEffect::kWrite;
                      })
      .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
        ArrayInfo tile = ArrayArg(ctx, 0, kTile);
        if (tile.memory_space && tile.memory_space != MemorySpace::Vec && tile.memory_space != MemorySpace::Acc) {
          ctx.Error("argument 'tile' is in " + SpaceName(*tile.memory_space) +
                    "; tile.store writes from MemorySpace.Vec or MemorySpace.Acc, tile.move it there first");
        }
        ArrayInfo out = ArrayArg(ctx, 2, ArrayKind::kTensor);
        RequireRank(ctx, 0, tile, out.rank());
        Shape offsets = IndexListArg(ctx, 1, out.rank());
        RequireStorableInto(ctx, 0, tile, out.dtype);
        AtomicAddKwarg(ctx, out.dtype);
        RequireWindowInside(ctx, offsets, tile.valid_shape, out.shape, "tile", "tensor");
        Shape valid = WrittenValidShape(out.shape, out.valid_shape, offsets, tile.valid_shape);
        if (SameShape(valid, out.valid_shape)) return out.type;
        return MakeTensorType(out.shape, out.dtype, std::move(valid), As<TensorType>(out.type)->layout);
      });

  // TMOV needs distinct source and destination buffers.
  TileOp("tile.move", "Copy a tile into another on-chip space; the only way into Left, Right and Bias")
      .add_argument("tile", "source tile")
      .add_required_enum_kwarg("target_memory", "MemorySpace", "destination space")
      .set_input_memory(0, OnChipSpaces())
      .set_output_memory_from_kwarg("target_memory")
      .set_not_inplace_safe()
      .set_pipe(MoveFrom(0))
      .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
        if (ctx.KwargEnum<MemorySpace>("target_memory") == MemorySpace::DDR)
          ctx.Error("target_memory=MemorySpace.DDR is not on chip; use tile.store");
        ArrayInfo x = ArrayArg(ctx, 0, kTile);
        return MakeTileType(ctx, x.shape, x.dtype, x.valid_shape);
      });
}

void RegisterCreation() {
  TileOp("tile.create", "Allocate an uninitialized tile (a scratch buffer)")
      .add_argument("shape", "static extents")
      .add_required_kwarg("dtype", AttrKind::kDataType, "element dtype")
      .add_enum_kwarg("target_memory", "MemorySpace", std::nullopt,
                      "space; unset leaves the choice to InferTileMemorySpace")
      .set_output_memory_from_kwarg("target_memory")
      .set_no_pipe()
      .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
        Shape shape = StaticShapeListArg(ctx, 0);
        if (ctx.KwargEnum<MemorySpace>("target_memory") == MemorySpace::DDR) {
          ctx.Error("target_memory=MemorySpace.DDR is not on chip; use tensor.create for GM tensors");
        }
        DataType dtype = *ctx.KwargAs<DataType>("dtype");
        if (dtype == DataType::TASK_ID) ctx.Error("dtype TASK_ID is not an element type");
        return MakeTileType(ctx, std::move(shape), dtype);
      });

  TileOp("tile.full", "A Vec tile filled with one value")
      .add_argument("shape", "static extents")
      .add_argument("value", "fill value (scalar)")
      .add_required_kwarg("dtype", AttrKind::kDataType, "element dtype")
      .set_output_memory(MemorySpace::Vec)
      .set_pipe(PipeType::kV)
      .set_type_deduce([](const DeduceContext& ctx) { return DeduceFull(ctx, kTile); });

  TileOp("tile.alloc", "Reserve an on-chip buffer of `size` bytes; returns its base address")
      .add_argument("size", "bytes (integer scalar)")
      .add_required_enum_kwarg("memory_space", "MemorySpace", "on-chip space")
      .set_output_memory_from_kwarg("memory_space")
      .set_no_pipe()
      .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
        std::optional<MemorySpace> space = ctx.KwargEnum<MemorySpace>("memory_space");
        if (space == MemorySpace::DDR) ctx.Error("memory_space=MemorySpace.DDR is not on chip");
        if (!ctx.ScalarArg(0).is_int()) ctx.ArgError(0, "an integer scalar");
        if (auto size = AsConstInt(ctx.arg(0)); size && *size <= 0) {
          ctx.Error("size must be positive, got " + std::to_string(*size));
        }
        return PtrType::Make(space);
      });
}

void RegisterViewsAndAccess() {
  TileOp("tile.slice", "A window of a tile, sharing its buffer")
      .add_argument("input", "source tile")
      .add_argument("shape", "static window extents")
      .add_argument("offset", "window origin")
      .add_optional_argument("valid_shape", "valid extents of the window; default: what the source has there")
      .set_input_memory(0, OnChipSpaces())
      .set_output_memory_inherit_input(0)
      .set_no_pipe()
      .set_type_deduce([](const DeduceContext& ctx) { return DeduceSlice(ctx, kTile); });

  TileOp("tile.extract", "Copy a 2-D window of a tile into a new tile (TEXTRACT)")
      .add_argument("src", "2-D source tile")
      .add_argument("index_row", "first row (integer scalar)")
      .add_argument("index_col", "first column (integer scalar)")
      .add_argument("shape", "static 2-D extents")
      .add_required_enum_kwarg("target_memory", "MemorySpace", "destination space")
      .set_input_memory(0, {MemorySpace::Mat, MemorySpace::Acc, MemorySpace::Vec})
      .set_output_memory_from_kwarg("target_memory")
      .set_not_inplace_safe()
      .set_pipe(MoveFrom(0))
      .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
        if (ctx.KwargEnum<MemorySpace>("target_memory") == MemorySpace::DDR)
          ctx.Error("target_memory=MemorySpace.DDR is not on chip");
        ArrayInfo src = ArrayArg(ctx, 0, kTile);
        RequireRank(ctx, 0, src, 2);
        for (size_t i : {size_t{1}, size_t{2}}) {
          if (!ctx.ScalarArg(i).is_int()) ctx.ArgError(i, "an integer scalar");
        }
        Shape shape = StaticShapeListArg(ctx, 3);
        RequireListLength(ctx, 3, shape.size(), 2);
        Shape origin = {ctx.arg(1), ctx.arg(2)};
        RequireWindowInside(ctx, origin, shape, src.shape, "window", "tile");
        return MakeTileType(ctx, shape, src.dtype, WindowValidShape(src.shape, src.valid_shape, origin, shape));
      });

  TileOp("tile.assemble", "Write a tile into a region of a target tile; the result is the target")
      .add_argument("target", "destination tile")
      .add_argument("source", "tile to write")
      .add_argument("offset", "origin of the written region")
      .set_input_memory(0, OnChipSpaces())
      .set_input_memory(1, OnChipSpaces())
      .set_output_memory_inherit_input(0)
      .set_output_reuses_input(0)
      .set_arg_effect(0, ArgEffect::kReadWrite)
      // A TMOV of the source into a window of the target.
      .set_pipe([](const ir::Call& call) -> std::optional<PipeType> {
        return MovePipe(SpaceOf(call.args.at(1)), SpaceOf(call.args.at(0)));
      })
      .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
        ArrayInfo target = ArrayArg(ctx, 0, kTile);
        ArrayInfo source = ArrayArg(ctx, 1, kTile);
        RequireRank(ctx, 1, source, target.rank());
        Shape offsets = IndexListArg(ctx, 2, target.rank());
        RequireStorableInto(ctx, 1, source, target.dtype);
        RequireWindowInside(ctx, offsets, source.valid_shape, target.shape, "source", "target");
        return MakeTileType(ctx, target.shape, target.dtype,
                            WrittenValidShape(target.shape, target.valid_shape, offsets, source.valid_shape));
      });

  TileOp("tile.reshape", "The same buffer under a new shape")
      .add_argument("input", "source tile")
      .add_argument("shape", "new extents; same element count")
      .set_input_memory(0, OnChipSpaces())
      .set_output_memory_inherit_input(0)
      .set_no_pipe()
      .set_type_deduce([](const DeduceContext& ctx) { return DeduceReshape(ctx, kTile); });

  // TTRANS reads the source while it writes, so the result needs its own buffer.
  TileOp("tile.transpose", "Swap two axes into a new buffer")
      .add_argument("input", "source tile")
      .add_argument("axis1", "first axis (constant)")
      .add_argument("axis2", "second axis (constant)")
      .add_optional_argument("tmp", "scratch tile of the input's dtype")
      .set_input_memory(0, {MemorySpace::Vec, MemorySpace::Mat})
      .set_input_memory(3, {MemorySpace::Vec})
      .set_output_memory_inherit_input(0)
      .set_not_inplace_safe()
      .set_pipe(PipeType::kV)
      .set_type_deduce([](const DeduceContext& ctx) { return DeduceTranspose(ctx, kTile); });

  VecOp("tile.concat", "Join two tiles along the last axis", {0, 1})
      .add_argument("src0", "first tile")
      .add_argument("src1", "second tile; equal extents outside the last axis")
      .set_not_inplace_safe()
      .set_type_deduce([](const DeduceContext& ctx) { return DeduceConcat(ctx, kTile); });

  TileOp("tile.set_validshape", "Declare the valid region of a 2-D tile (no data moves)")
      .add_argument("tile", "2-D tile")
      .add_argument("valid_rows", "integer scalar")
      .add_argument("valid_cols", "integer scalar")
      .set_input_memory(0, OnChipSpaces())
      .set_output_memory_inherit_input(0)
      .set_no_pipe()
      .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
        ArrayInfo x = ArrayArg(ctx, 0, kTile);
        RequireRank(ctx, 0, x, 2);
        for (size_t i : {size_t{1}, size_t{2}}) {
          if (!ctx.ScalarArg(i).is_int()) ctx.ArgError(i, "an integer scalar");
          auto v = AsConstInt(ctx.arg(i));
          auto d = AsConstInt(x.shape[i - 1]);
          if (v && (*v < 0 || (d && *v > *d))) {
            ctx.Error("argument '" + ctx.ArgName(i) + "' is " + std::to_string(*v) + ", outside 0.." +
                      DimString(x.shape[i - 1]) + " of the tile " + ShapeString(x.shape));
          }
        }
        return MakeTileType(ctx, x.shape, x.dtype, {ctx.arg(1), ctx.arg(2)});
      });

  TileOp("tile.read", "Read one element as a scalar")
      .add_argument("tile", "source tile")
      .add_argument("indices", "one index per dim")
      .set_input_memory(0, {MemorySpace::Vec})
      .set_pipe(PipeType::kS)
      .set_type_deduce([](const DeduceContext& ctx) { return DeduceRead(ctx, kTile); });

  VecOp("tile.write", "Write one element; the result is the tile", {0})
      .add_argument("tile", "destination tile")
      .add_argument("indices", "one index per dim")
      .add_argument("value", "scalar to store")
      .set_arg_effect(0, ArgEffect::kReadWrite)
      .set_output_reuses_input(0)
      .set_pipe(PipeType::kS)
      .set_type_deduce([](const DeduceContext& ctx) { return DeduceWrite(ctx, kTile); });

  VecOp("tile.fillpad", "Fill the invalid region with a pad value; the whole result is valid", {0})
      .add_argument("tile", "source tile")
      .add_enum_kwarg("pad_value", "PadValue", EnumAttr::Of(PadValue::Zero), "zero, max or min")
      .set_type_deduce([](const DeduceContext& ctx) { return DeduceFillpad(ctx, kTile); });

  // A cast to a wider element overwrites source elements it has not read
  // yet when it shares their buffer; the registry has no per-dtype flag, so
  // every cast keeps its result apart.
  VecOp("tile.cast", "Convert the element dtype (TCVT)", {0})
      .add_argument("tile", "source tile")
      .set_not_inplace_safe()
      .add_required_kwarg("target_type", AttrKind::kDataType, "result dtype")
      .add_kwarg("mode", AttrKind::kInt, kCastModeRound,
                 "rounding: 0 none, 1 rint, 2 round, 3 floor, 4 ceil, 5 trunc, 6 odd")
      .set_type_deduce([](const DeduceContext& ctx) { return DeduceCast(ctx, kTile); });
}

void RegisterArithmetic() {
  for (auto [name, description] :
       {Member{"tile.add", "Element-wise sum (TADD)"}, Member{"tile.sub", "Element-wise difference (TSUB)"},
        Member{"tile.mul", "Element-wise product (TMUL)"}, Member{"tile.maximum", "Element-wise maximum (TMAX)"},
        Member{"tile.minimum", "Element-wise minimum (TMIN)"}}) {
    VecOp(name, description, {0, 1})
        .add_argument("lhs", "tile")
        .add_argument("rhs", "tile")
        .set_type_deduce([](const DeduceContext& ctx) { return DeduceElementwise(ctx, kTile); });
  }
  VecOp("tile.div", "Element-wise quotient (TDIV)", {0, 1})
      .add_argument("lhs", "tile")
      .add_argument("rhs", "tile")
      .add_kwarg("high_precision", AttrKind::kBool, false, "slower, more exact float division")
      .set_type_deduce([](const DeduceContext& ctx) { return DeduceDivision(ctx, kTile); });
  VecOp("tile.fmod", "Element-wise floating-point remainder", {0, 1})
      .add_argument("lhs", "tile")
      .add_argument("rhs", "tile")
      .set_not_inplace_safe()
      .set_type_deduce([](const DeduceContext& ctx) { return DeduceElementwise(ctx, kTile); });
  VecOp("tile.rem", "Element-wise remainder (TREM)", {0, 1, 2})
      .add_argument("lhs", "tile")
      .add_argument("rhs", "tile")
      .add_argument("tmp", "scratch tile of the result dtype")
      .set_type_deduce([](const DeduceContext& ctx) {
        TypePtr result = DeduceElementwise(ctx, kTile);
        RequireTmpTile(ctx, 2, ResultDType(result));
        return result;
      });
  for (auto [name, description] :
       {Member{"tile.addc", "Element-wise lhs + rhs + rhs2"}, Member{"tile.subc", "Element-wise lhs - rhs - rhs2"}}) {
    VecOp(name, description, {0, 1, 2})
        .add_argument("lhs", "tile")
        .add_argument("rhs", "tile")
        .add_argument("rhs2", "tile of the shape lhs and rhs broadcast to")
        .set_type_deduce(DeduceThreeOperands);
  }
  for (auto [name, description] : {Member{"tile.adds", "Add a scalar to every element (TADDS)"},
                                   Member{"tile.subs", "Subtract a scalar from every element (TSUBS)"},
                                   Member{"tile.muls", "Multiply every element by a scalar (TMULS)"},
                                   Member{"tile.divs", "Divide every element by a scalar (TDIVS)"},
                                   Member{"tile.maximums", "Maximum of every element and a scalar (TMAXS)"},
                                   Member{"tile.minimums", "Minimum of every element and a scalar (TMINS)"}}) {
    VecOp(name, description, {0})
        .add_argument("lhs", "tile")
        .add_argument("rhs", "scalar no wider in kind than the tile")
        .set_type_deduce([](const DeduceContext& ctx) { return DeduceScalarForm(ctx, kTile); });
  }
  VecOp("tile.fmods", "Floating-point remainder of every element by a scalar", {0})
      .add_argument("lhs", "tile")
      .add_argument("rhs", "scalar")
      .set_not_inplace_safe()
      .set_type_deduce([](const DeduceContext& ctx) { return DeduceScalarForm(ctx, kTile); });
  VecOp("tile.rems", "Remainder of every element by a scalar (TREMS)", {0, 2})
      .add_argument("lhs", "tile")
      .add_argument("rhs", "scalar")
      .add_argument("tmp", "scratch tile of the tile's dtype")
      .set_type_deduce([](const DeduceContext& ctx) {
        TypePtr result = DeduceScalarForm(ctx, kTile);
        RequireTmpTile(ctx, 2, ResultDType(result));
        return result;
      });
  VecOp("tile.lrelu", "Leaky ReLU: x where x > 0, slope * x elsewhere", {0})
      .add_argument("tile", "floating-point tile")
      .add_argument("slope", "scalar")
      .set_type_deduce([](const DeduceContext& ctx) {
        ArrayInfo x = ArrayArg(ctx, 0, kTile);
        RequireDType(ctx, 0, x.dtype, DTypeClass::kFloat);
        return DeduceScalarForm(ctx, kTile);
      });
}

void RegisterBitwise() {
  for (auto [name, description] :
       {Member{"tile.and", "Element-wise bitwise AND"}, Member{"tile.or", "Element-wise bitwise OR"}}) {
    VecOp(name, description, {0, 1})
        .add_argument("lhs", "integer tile")
        .add_argument("rhs", "integer tile of the same shape")
        .set_type_deduce([](const DeduceContext& ctx) { return DeduceBitwise(ctx, kTile, false); });
  }
  VecOp("tile.xor", "Element-wise bitwise XOR", {0, 1, 2})
      .add_argument("lhs", "integer tile")
      .add_argument("rhs", "integer tile of the same shape")
      .add_argument("tmp", "scratch tile of the lhs dtype")
      .set_type_deduce([](const DeduceContext& ctx) {
        TypePtr result = DeduceBitwise(ctx, kTile, false);
        RequireTmpTile(ctx, 2, ArrayArg(ctx, 0, kTile).dtype);
        return result;
      });
  for (auto [name, description] :
       {Member{"tile.shl", "Element-wise left shift"}, Member{"tile.shr", "Element-wise right shift"}}) {
    VecOp(name, description, {0, 1})
        .add_argument("lhs", "integer tile")
        .add_argument("rhs", "integer tile of shift counts, same shape")
        .set_type_deduce([](const DeduceContext& ctx) { return DeduceBitwise(ctx, kTile, true); });
  }
  for (auto [name, description] : {Member{"tile.ands", "Bitwise AND of every element with a scalar"},
                                   Member{"tile.ors", "Bitwise OR of every element with a scalar"}}) {
    VecOp(name, description, {0})
        .add_argument("lhs", "integer tile")
        .add_argument("rhs", "integer scalar")
        .set_not_inplace_safe()
        .set_type_deduce([](const DeduceContext& ctx) { return DeduceBitwiseScalar(ctx, kTile, false); });
  }
  VecOp("tile.xors", "Bitwise XOR of every element with a scalar", {0, 2})
      .add_argument("lhs", "integer tile")
      .add_argument("rhs", "integer scalar")
      .add_argument("tmp", "scratch tile of the lhs dtype")
      .set_type_deduce([](const DeduceContext& ctx) {
        TypePtr result = DeduceBitwiseScalar(ctx, kTile, false);
        RequireTmpTile(ctx, 2, ResultDType(result));
        return result;
      });
  for (auto [name, description] : {Member{"tile.shls", "Shift every element left by a scalar count"},
                                   Member{"tile.shrs", "Shift every element right by a scalar count"}}) {
    VecOp(name, description, {0})
        .add_argument("lhs", "integer tile")
        .add_argument("rhs", "non-negative integer scalar")
        .set_type_deduce([](const DeduceContext& ctx) { return DeduceBitwiseScalar(ctx, kTile, true); });
  }
  VecOp("tile.not", "Element-wise bitwise NOT", {0})
      .add_argument("tile", "integer tile")
      .set_type_deduce([](const DeduceContext& ctx) { return DeduceUnary(ctx, kTile, DTypeClass::kInt); });
}

void RegisterUnary() {
  for (auto [name, description] :
       {Member{"tile.exp", "Element-wise e^x (TEXP)"}, Member{"tile.sqrt", "Element-wise square root (TSQRT)"}}) {
    VecOp(name, description, {0})
        .add_argument("tile", "floating-point tile")
        .set_type_deduce([](const DeduceContext& ctx) { return DeduceUnary(ctx, kTile, DTypeClass::kFloat); });
  }
  // PTO-ISA has no sine or cosine: LowerCompositeOps computes them in FP32,
  // with at most three FP32 temporaries live beside the operand and result.
  constexpr int64_t kSinCosWorkingBytesPerElement = 12;
  for (auto [name, description] :
       {Member{"tile.sin", "Element-wise sine, computed in FP32 from multiplies, adds and casts (LowerCompositeOps)"},
        Member{"tile.cos",
               "Element-wise cosine, computed in FP32 from multiplies, adds and casts (LowerCompositeOps)"}}) {
    VecOp(name, description, {0})
        .add_argument("tile", "floating-point tile")
        .set_working_bytes_per_element(kSinCosWorkingBytesPerElement)
        .set_type_deduce([](const DeduceContext& ctx) { return DeduceUnary(ctx, kTile, DTypeClass::kFloat); });
  }
  VecOp("tile.log", "Element-wise natural logarithm (TLOG)", {0})
      .add_argument("tile", "floating-point tile")
      .add_kwarg("high_precision", AttrKind::kBool, false, "slower, more exact lowering")
      .set_type_deduce([](const DeduceContext& ctx) { return DeduceUnary(ctx, kTile, DTypeClass::kFloat); });
  // TRECIP and TRSQRT read the source after writing part of the destination.
  VecOp("tile.recip", "Element-wise reciprocal (TRECIP)", {0})
      .add_argument("tile", "floating-point tile")
      .add_kwarg("high_precision", AttrKind::kBool, false, "slower, more exact lowering")
      .set_not_inplace_safe()
      .set_type_deduce([](const DeduceContext& ctx) { return DeduceUnary(ctx, kTile, DTypeClass::kFloat); });
  VecOp("tile.rsqrt", "Element-wise reciprocal square root (TRSQRT); a scratch tile selects the precise path", {0, 1})
      .add_argument("tile", "floating-point tile")
      .add_optional_argument("tmp", "scratch tile of the tile's dtype")
      .set_not_inplace_safe()
      .set_type_deduce([](const DeduceContext& ctx) {
        TypePtr result = DeduceUnary(ctx, kTile, DTypeClass::kFloat);
        if (ctx.num_args() > 1) RequireTmpTile(ctx, 1, ResultDType(result));
        return result;
      });
  for (auto [name, description] :
       {Member{"tile.neg", "Element-wise negation"}, Member{"tile.abs", "Element-wise absolute value"},
        Member{"tile.relu", "Element-wise max(x, 0)"}}) {
    VecOp(name, description, {0})
        .add_argument("tile", "signed integer or floating-point tile")
        .set_type_deduce([](const DeduceContext& ctx) { return DeduceUnary(ctx, kTile, DTypeClass::kSignedOrFloat); });
  }
}

void RegisterCompareSelect() {
  VecOp("tile.cmp", "Element-wise comparison of two tiles to a packed UINT8 mask (TCMP)", {0, 1})
      .add_argument("lhs", "tile")
      .add_argument("rhs", "tile (broadcast)")
      .add_kwarg("cmp_type", AttrKind::kInt, int64_t{0}, "0 eq, 1 ne, 2 lt, 3 le, 4 gt, 5 ge")
      .set_type_deduce([](const DeduceContext& ctx) { return DeduceCompare(ctx, kTile); });
  VecOp("tile.cmps", "Element-wise comparison with a scalar to a packed UINT8 mask (TCMPS)", {0})
      .add_argument("lhs", "tile")
      .add_argument("rhs", "scalar")
      .add_kwarg("cmp_type", AttrKind::kInt, int64_t{0}, "0 eq, 1 ne, 2 lt, 3 le, 4 gt, 5 ge")
      .set_type_deduce([](const DeduceContext& ctx) { return DeduceCompareScalar(ctx, kTile); });
  VecOp("tile.sel", "lhs where the mask bit is set, rhs elsewhere (TSEL)", {0, 1, 2, 3})
      .add_argument("mask", "packed UINT8 mask from tile.cmp / tile.cmps")
      .add_argument("lhs", "tile")
      .add_argument("rhs", "tile of lhs's dtype")
      .add_optional_argument("tmp", "scratch tile")
      .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
        ArrayInfo mask = ArrayArg(ctx, 0, kTile);
        if (mask.dtype != DataType::UINT8) ctx.ArgError(0, "a UINT8 packed mask Tile (from tile.cmp / tile.cmps)");
        ArrayInfo lhs = ArrayArg(ctx, 1, kTile);
        ArrayInfo rhs = ArrayArg(ctx, 2, kTile);
        if (lhs.dtype != rhs.dtype) {
          ctx.Error(std::string("lhs and rhs must have one dtype, got ") + lhs.dtype.name() + " and " +
                    rhs.dtype.name());
        }
        Shape shape = BroadcastShapes(ctx, lhs.shape, rhs.shape);
        if (shape.empty() || !AsConstInt(shape.back())) {
          ctx.Error("selected tiles need a static last dimension, got shape " + ShapeString(shape));
        }
        if (!SameShape(mask.shape, PackedMaskShape(shape))) {
          ctx.Error("argument 'mask' has shape " + ShapeString(mask.shape) + ", but values of shape " +
                    ShapeString(shape) + " take a packed mask of shape " + ShapeString(PackedMaskShape(shape)) +
                    " (one bit per element, rows padded to 32 bytes): compare tiles of the selected shape");
        }
        if (ctx.num_args() > 3) ArrayArg(ctx, 3, kTile);  // any tile serves as TSEL's scratch
        Shape valid = BroadcastValid(shape, {&lhs, &rhs});
        return MakeTileType(ctx, std::move(shape), lhs.dtype, std::move(valid));
      });
}

void RegisterReductions() {
  // Reductions read the source after writing the destination: never in place.
  for (auto [name, description] : {Member{"tile.row_sum", "Sum of each row (TROWSUM): [M, N] -> [M, 1]"},
                                   Member{"tile.row_max", "Maximum of each row (TROWMAX): [M, N] -> [M, 1]"},
                                   Member{"tile.row_min", "Minimum of each row (TROWMIN): [M, N] -> [M, 1]"},
                                   Member{"tile.row_prod", "Product of each row: [M, N] -> [M, 1]"}}) {
    VecOp(name, description, {0, 1})
        .add_argument("tile", "tile of rank >= 2")
        .add_argument("tmp_tile", "scratch tile of the tile's dtype, at least as large")
        .set_not_inplace_safe()
        .set_type_deduce([](const DeduceContext& ctx) { return DeduceRowReduction(ctx, kTile, false); });
  }
  for (auto [name, description] : {Member{"tile.row_argmax", "Column index of each row's maximum (INT32)"},
                                   Member{"tile.row_argmin", "Column index of each row's minimum (INT32)"}}) {
    VecOp(name, description, {0, 1})
        .add_argument("tile", "tile of rank >= 2")
        .add_argument("tmp_tile", "scratch tile of exactly the tile's shape and dtype")
        .set_not_inplace_safe()
        .set_type_deduce([](const DeduceContext& ctx) { return DeduceRowReduction(ctx, kTile, true); });
  }
  VecOp("tile.col_sum", "Sum of each column (TCOLSUM): [M, N] -> [1, N]; a scratch tile selects a tree reduction",
        {0, 1})
      .add_argument("tile", "tile of rank >= 2")
      .add_optional_argument("tmp_tile", "scratch tile of the tile's dtype, at least as large")
      .set_not_inplace_safe()
      .set_type_deduce([](const DeduceContext& ctx) { return DeduceColReduction(ctx, kTile, false); });
  for (auto [name, description] : {Member{"tile.col_max", "Maximum of each column (TCOLMAX): [M, N] -> [1, N]"},
                                   Member{"tile.col_min", "Minimum of each column (TCOLMIN): [M, N] -> [1, N]"},
                                   Member{"tile.col_prod", "Product of each column: [M, N] -> [1, N]"}}) {
    VecOp(name, description, {0})
        .add_argument("tile", "tile of rank >= 2")
        .set_type_deduce([](const DeduceContext& ctx) { return DeduceColReduction(ctx, kTile, false); });
  }
  for (auto [name, description] : {Member{"tile.col_argmax", "Row index of each column's maximum (INT32)"},
                                   Member{"tile.col_argmin", "Row index of each column's minimum (INT32)"}}) {
    VecOp(name, description, {0, 1})
        .add_argument("tile", "tile of rank >= 2")
        .add_argument("tmp_tile", "scratch tile of the tile's dtype, at least as large")
        .set_not_inplace_safe()
        .set_type_deduce([](const DeduceContext& ctx) { return DeduceColReduction(ctx, kTile, true); });
  }
}

void RegisterExpansions() {
  VecOp("tile.row_expand", "Broadcast an [M, 1] column across the rows of a target's shape", {0, 1})
      .add_argument("target", "tile giving the result shape")
      .add_argument("row_vec", "[M, 1] tile")
      .set_type_deduce([](const DeduceContext& ctx) { return DeduceRowExpand(ctx, kTile); });
  for (auto [name, description] :
       {Member{"tile.row_expand_add", "Add a per-row value"}, Member{"tile.row_expand_sub", "Subtract a per-row value"},
        Member{"tile.row_expand_mul", "Multiply by a per-row value"},
        Member{"tile.row_expand_div", "Divide by a per-row value"},
        Member{"tile.row_expand_max", "Maximum with a per-row value"},
        Member{"tile.row_expand_min", "Minimum with a per-row value"},
        Member{"tile.row_expand_expdif", "exp(x - m) with a per-row m (the softmax step)"}}) {
    VecOp(name, description, {0, 1})
        .add_argument("tile", "[M, N] tile")
        .add_argument("row_vec", "[M, 1] tile of the same dtype")
        .set_type_deduce([](const DeduceContext& ctx) { return DeduceRowExpand(ctx, kTile); });
  }
  VecOp("tile.col_expand", "Broadcast a [1, N] row down the columns of a target's shape", {0, 1})
      .add_argument("target", "tile giving the result shape")
      .add_argument("col_vec", "[1, N] tile")
      .set_type_deduce([](const DeduceContext& ctx) { return DeduceColExpand(ctx, kTile); });
  for (auto [name, description] : {Member{"tile.col_expand_add", "Add a per-column value"},
                                   Member{"tile.col_expand_sub", "Subtract a per-column value"},
                                   Member{"tile.col_expand_mul", "Multiply by a per-column value"},
                                   Member{"tile.col_expand_div", "Divide by a per-column value"},
                                   Member{"tile.col_expand_max", "Maximum with a per-column value"},
                                   Member{"tile.col_expand_min", "Minimum with a per-column value"},
                                   Member{"tile.col_expand_expdif", "exp(x - m) with a per-column m"}}) {
    VecOp(name, description, {0, 1})
        .add_argument("tile", "[M, N] tile")
        .add_argument("col_vec", "[1, N] tile of the same dtype")
        .set_type_deduce([](const DeduceContext& ctx) { return DeduceColExpand(ctx, kTile); });
  }
  VecOp("tile.expands", "A scalar broadcast to a target tile's shape and dtype", {0})
      .add_argument("target", "tile giving the result shape and dtype")
      .add_argument("scalar", "value")
      .set_type_deduce([](const DeduceContext& ctx) { return DeduceExpandScalar(ctx, kTile); });
}

// lhs and rhs of a cube op: 2-D tiles of one dtype.
MatmulGeometry CubeOperands(const DeduceContext& ctx, size_t lhs_arg, size_t rhs_arg, DataType* operand_dtype) {
  ArrayInfo lhs = ArrayArg(ctx, lhs_arg, kTile);
  ArrayInfo rhs = ArrayArg(ctx, rhs_arg, kTile);
  RequireRank(ctx, lhs_arg, lhs, 2);
  RequireRank(ctx, rhs_arg, rhs, 2);
  if (lhs.dtype != rhs.dtype) {
    ctx.Error(std::string("lhs and rhs must have one dtype, got ") + lhs.dtype.name() + " and " + rhs.dtype.name());
  }
  RequireDType(ctx, lhs_arg, lhs.dtype, DTypeClass::kNumeric);
  *operand_dtype = lhs.dtype;
  return DeduceMatmulGeometry(ctx, lhs_arg, lhs, rhs_arg, rhs, false, false);
}

void RegisterMatmul() {
  TileOp("tile.matmul", "Matrix product on the cube unit (TMATMUL): Left [M, K] x Right [K, N] -> Acc [M, N]")
      .set_pipe(PipeType::kM)
      .add_argument("lhs", "2-D tile in Left")
      .add_argument("rhs", "2-D tile in Right")
      .add_kwarg("out_dtype", AttrKind::kDataType, std::nullopt, "the accumulator dtype; FP32 or INT32")
      .set_input_memory(0, {MemorySpace::Left})
      .set_input_memory(1, {MemorySpace::Right})
      .set_output_memory(MemorySpace::Acc)
      .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
        DataType operand;
        MatmulGeometry g = CubeOperands(ctx, 0, 1, &operand);
        DataType acc = AccumulatorDType(operand);
        if (auto out = ctx.KwargAs<DataType>("out_dtype"); out && *out != acc) {
          ctx.Error(std::string("out_dtype ") + out->name() + " is not possible for " + operand.name() +
                    " operands: the Acc buffer holds " + acc.name() + "; cast after storing or moving the result");
        }
        return MakeTileType(ctx, std::move(g.shape), acc, std::move(g.valid));
      });

  TileOp("tile.matmul_acc", "acc + lhs @ rhs on the cube unit (TMATMUL_ACC); the result is acc")
      .set_pipe(PipeType::kM)
      .add_argument("acc", "2-D accumulator tile in Acc")
      .add_argument("lhs", "2-D tile in Left")
      .add_argument("rhs", "2-D tile in Right")
      .add_optional_argument("init_cond", "BOOL scalar: overwrite acc with lhs @ rhs where true")
      .set_input_memory(0, {MemorySpace::Acc})
      .set_input_memory(1, {MemorySpace::Left})
      .set_input_memory(2, {MemorySpace::Right})
      .set_output_memory(MemorySpace::Acc)
      .set_output_reuses_input(0)
      .set_arg_effect(0, ArgEffect::kReadWrite)
      .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
        ArrayInfo acc = ArrayArg(ctx, 0, kTile);
        DataType operand;
        MatmulGeometry g = CubeOperands(ctx, 1, 2, &operand);
        if (!SameShape(acc.shape, g.shape)) {
          ctx.Error("argument 'acc' has shape " + ShapeString(acc.shape) + " but lhs @ rhs has shape " +
                    ShapeString(g.shape));
        }
        if (acc.dtype != AccumulatorDType(operand)) {
          ctx.Error(std::string("argument 'acc' must be ") + AccumulatorDType(operand).name() + " to accumulate " +
                    operand.name() + " products, got " + acc.dtype.name());
        }
        if (ctx.num_args() > 3 && !IsScalarType(ctx.arg(3)->type, DataType::BOOL)) ctx.ArgError(3, "a BOOL scalar");
        return MakeTileType(ctx, acc.shape, acc.dtype, acc.valid_shape);
      });

  TileOp("tile.matmul_bias", "lhs @ rhs + bias on the cube unit (TMATMUL_BIAS)")
      .set_pipe(PipeType::kM)
      .add_argument("lhs", "2-D tile in Left")
      .add_argument("rhs", "2-D tile in Right")
      .add_argument("bias", "[1, N] tile in Bias of the accumulator dtype")
      .set_input_memory(0, {MemorySpace::Left})
      .set_input_memory(1, {MemorySpace::Right})
      .set_input_memory(2, {MemorySpace::Bias})
      .set_output_memory(MemorySpace::Acc)
      .set_type_deduce([](const DeduceContext& ctx) -> TypePtr {
        DataType operand;
        MatmulGeometry g = CubeOperands(ctx, 0, 1, &operand);
        DataType acc = AccumulatorDType(operand);
        ArrayInfo bias = ArrayArg(ctx, 2, kTile);
        Shape expected = {Int(1), g.shape[1]};
        if (!SameShape(bias.shape, expected)) {
          ctx.Error("argument 'bias' must have shape " + ShapeString(expected) + ", got " + ShapeString(bias.shape));
        }
        if (bias.dtype != acc) {
          ctx.Error(std::string("argument 'bias' must be ") + acc.name() + " (the accumulator dtype), got " +
                    bias.dtype.name());
        }
        return MakeTileType(ctx, std::move(g.shape), acc, std::move(g.valid));
      });
}

void RegisterBlockIdentity() {
  for (auto [name, description] :
       {Member{"tile.get_block_idx", "This block's index under pl.spmd (INDEX)"},
        Member{"tile.get_block_num", "The number of blocks of this SPMD task (INDEX)"},
        Member{"tile.get_subblock_idx", "This AIV lane's index under pl.split_aiv (INDEX)"}}) {
    TileOp(name, description).set_no_pipe().set_type_deduce([](const DeduceContext&) -> TypePtr {
      return ScalarType::Make(DataType::INDEX);
    });
  }
}

[[maybe_unused]] const bool kRegistered = [] {
  RegisterDataMovement();
  RegisterCreation();
  RegisterViewsAndAccess();
  RegisterArithmetic();
  RegisterBitwise();
  RegisterUnary();
  RegisterCompareSelect();
  RegisterReductions();
  RegisterExpansions();
  RegisterMatmul();
  RegisterBlockIdentity();
  return true;
}();

}  // namespace
}  // namespace pypto::ops
