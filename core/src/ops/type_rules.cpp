#include "pypto/ops/type_rules.h"

#include <algorithm>

#include "pypto/support/strings.h"

namespace pypto::ops {

using namespace pypto::ir;

const std::vector<MemorySpace>& OnChipSpaces() {
  static const std::vector<MemorySpace> spaces = {MemorySpace::Vec,   MemorySpace::Mat, MemorySpace::Left,
                                                  MemorySpace::Right, MemorySpace::Acc, MemorySpace::Bias};
  return spaces;
}

// ---------------------------------------------------------------- shapes

std::string DimString(const ExprPtr& dim) {
  if (auto v = AsConstInt(dim)) return std::to_string(*v);
  if (auto var = As<Var>(dim)) return var->name_hint;
  if (auto b = As<BinaryExpr>(dim)) {
    if (b->op == BinaryOp::Min || b->op == BinaryOp::Max) {
      return std::string(BinaryOpSymbol(b->op)) + "(" + DimString(b->lhs) + ", " + DimString(b->rhs) + ")";
    }
    return "(" + DimString(b->lhs) + " " + BinaryOpSymbol(b->op) + " " + DimString(b->rhs) + ")";
  }
  return "?";
}

std::string ShapeString(const Shape& shape) { return "[" + JoinMapped(shape, ", ", DimString) + "]"; }

bool SameDim(const ExprPtr& a, const ExprPtr& b) {
  if (a == b) return true;
  auto ca = AsConstInt(a);
  auto cb = AsConstInt(b);
  if (ca || cb) return ca && cb && *ca == *cb;
  auto ba = As<BinaryExpr>(a);
  auto bb = As<BinaryExpr>(b);
  return ba && bb && ba->op == bb->op && SameDim(ba->lhs, bb->lhs) && SameDim(ba->rhs, bb->rhs);
}

bool SameShape(const Shape& a, const Shape& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), SameDim);
}

bool IsConstDim(const ExprPtr& dim, int64_t value) {
  auto v = AsConstInt(dim);
  return v && *v == value;
}

ExprPtr AddDims(const ExprPtr& a, const ExprPtr& b) {
  auto ca = AsConstInt(a);
  auto cb = AsConstInt(b);
  if (ca && cb) return Int(*ca + *cb);
  if (ca && *ca == 0) return b;
  if (cb && *cb == 0) return a;
  return BinaryExpr::Make(BinaryOp::Add, a, b);
}

ExprPtr SubDims(const ExprPtr& a, const ExprPtr& b) {
  auto ca = AsConstInt(a);
  auto cb = AsConstInt(b);
  if (ca && cb) return Int(*ca - *cb);
  if (cb && *cb == 0) return a;
  return BinaryExpr::Make(BinaryOp::Sub, a, b);
}

ExprPtr MinDims(const ExprPtr& a, const ExprPtr& b) {
  if (SameDim(a, b)) return a;
  auto ca = AsConstInt(a);
  auto cb = AsConstInt(b);
  if (ca && cb) return Int(std::min(*ca, *cb));
  return BinaryExpr::Make(BinaryOp::Min, a, b);
}

ExprPtr MaxDims(const ExprPtr& a, const ExprPtr& b) {
  if (SameDim(a, b)) return a;
  auto ca = AsConstInt(a);
  auto cb = AsConstInt(b);
  if (ca && cb) return Int(std::max(*ca, *cb));
  return BinaryExpr::Make(BinaryOp::Max, a, b);
}

Shape BroadcastShapes(const DeduceContext& ctx, const Shape& a, const Shape& b) {
  size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t k = 0; k < rank; ++k) {
    size_t pos = rank - 1 - k;
    if (k >= a.size()) {
      out[pos] = b[b.size() - 1 - k];
      continue;
    }
    if (k >= b.size()) {
      out[pos] = a[a.size() - 1 - k];
      continue;
    }
    const ExprPtr& da = a[a.size() - 1 - k];
    const ExprPtr& db = b[b.size() - 1 - k];
    if (SameDim(da, db) || IsConstDim(db, 1)) {
      out[pos] = da;
    } else if (IsConstDim(da, 1)) {
      out[pos] = db;
    } else {
      bool dynamic = !AsConstInt(da) || !AsConstInt(db);
      ctx.Error("shapes " + ShapeString(a) + " and " + ShapeString(b) + " do not broadcast at dim " +
                std::to_string(pos) + " (" + DimString(da) + " vs " + DimString(db) + ")" +
                (dynamic ? "; a dynamic dim matches only itself or 1" : ""));
    }
  }
  return out;
}

std::optional<int64_t> StaticElementCount(const Shape& shape) {
  int64_t count = 1;
  for (const auto& d : shape) {
    auto v = AsConstInt(d);
    if (!v) return std::nullopt;
    count *= *v;
  }
  return count;
}

// ---------------------------------------------------------------- dtypes

void RequireDType(const DeduceContext& ctx, size_t i, DataType dtype, DTypeClass cls) {
  std::string kind = As<TileType>(ctx.arg(i)->type) ? "Tile" : "Tensor";
  switch (cls) {
    case DTypeClass::kNumeric:
      if (dtype != DataType::TASK_ID) return;
      ctx.ArgError(i, "a " + kind + " of a numeric dtype");
    case DTypeClass::kFloat:
      if (dtype.is_float()) return;
      ctx.ArgError(i, "a " + kind + " of a floating-point dtype (cast it first)");
    case DTypeClass::kInt:
      if (dtype.is_int()) return;
      ctx.ArgError(i, "a " + kind + " of an integer dtype");
    case DTypeClass::kSignedOrFloat:
      if (dtype.is_signed_int() || dtype.is_float()) return;
      ctx.ArgError(i, "a " + kind + " of a signed integer or floating-point dtype");
  }
}

int DTypeKindRank(DataType dtype) {
  if (dtype.is_bool()) return 0;
  if (dtype.is_int()) return 1;
  if (dtype.is_float()) return 2;
  return 3;
}

DataType WeakScalarDType(DataType array, DataType scalar) {
  if (DTypeKindRank(scalar) <= DTypeKindRank(array)) return array;
  return scalar.is_index() ? DataType::INT64 : scalar;
}

namespace {
const char* KindWord(DataType dtype) {
  if (dtype.is_bool()) return "a boolean";
  if (dtype.is_int()) return "an integer or boolean";
  return "a numeric";
}
}  // namespace

void RequireScalarFits(const DeduceContext& ctx, size_t scalar_arg, DataType scalar, DataType target,
                       const std::string& target_desc) {
  if (scalar != DataType::TASK_ID && target != DataType::TASK_ID && DTypeKindRank(scalar) <= DTypeKindRank(target)) {
    return;
  }
  ctx.ArgError(scalar_arg, std::string(KindWord(target)) + " scalar that fits " + target_desc + " without a cast");
}

// ---------------------------------------------------------------- arrays

const char* ArrayKindName(ArrayKind kind) { return kind == ArrayKind::kTile ? "Tile" : "Tensor"; }

ArrayInfo ArrayArg(const DeduceContext& ctx, size_t i, ArrayKind kind) {
  ArrayInfo info;
  info.kind = kind;
  if (kind == ArrayKind::kTensor) {
    auto t = ctx.TensorArg(i);
    info.shape = t->shape;
    info.dtype = t->dtype;
    info.valid_shape = t->view && !t->view->valid_shape.empty() ? t->view->valid_shape : t->shape;
    info.type = t;
    return info;
  }
  auto t = ctx.TileArg(i);
  info.shape = t->shape;
  info.dtype = t->dtype;
  info.valid_shape = t->valid_shape.empty() ? t->shape : t->valid_shape;
  info.memory_space = t->memory_space;
  info.type = t;
  return info;
}

ArrayInfo TensorOrTileArg(const DeduceContext& ctx, size_t i) {
  const TypePtr& type = ctx.arg(i)->type;
  if (IsA<TileType>(type)) return ArrayArg(ctx, i, ArrayKind::kTile);
  if (IsA<TensorType>(type)) return ArrayArg(ctx, i, ArrayKind::kTensor);
  ctx.ArgError(i, "a Tensor or a Tile");
}

void RequireRank(const DeduceContext& ctx, size_t i, const ArrayInfo& array, size_t rank) {
  if (array.rank() == rank) return;
  ctx.ArgError(i, "a " + std::to_string(rank) + "-D " + ArrayKindName(array.kind));
}

void RequireMinRank(const DeduceContext& ctx, size_t i, const ArrayInfo& array, size_t rank) {
  if (array.rank() >= rank) return;
  ctx.ArgError(i, std::string("a ") + ArrayKindName(array.kind) + " of rank >= " + std::to_string(rank));
}

Ref<TensorType> MakeTensorType(Shape shape, DataType dtype, Shape valid_shape, TensorLayout layout) {
  std::optional<TensorView> view;
  if (!valid_shape.empty() && !SameShape(valid_shape, shape)) {
    view = TensorView{};
    view->valid_shape = std::move(valid_shape);
  }
  return TensorType::Make(std::move(shape), dtype, layout, std::move(view));
}

std::optional<MemorySpace> OutputMemorySpace(const DeduceContext& ctx) {
  const OutputMemoryRule& rule = ctx.op().output_memory();
  switch (rule.kind) {
    case OutputMemoryRule::Kind::kNone: return std::nullopt;
    case OutputMemoryRule::Kind::kFixed: return rule.space;
    case OutputMemoryRule::Kind::kFromKwarg: return ctx.KwargEnum<MemorySpace>(rule.kwarg);
    case OutputMemoryRule::Kind::kInheritInput: {
      if (static_cast<size_t>(rule.input) >= ctx.num_args()) return std::nullopt;
      auto tile = As<TileType>(ctx.arg(rule.input)->type);
      return tile ? tile->memory_space : std::nullopt;
    }
  }
  return std::nullopt;
}

Ref<TileType> MakeTileType(const DeduceContext& ctx, Shape shape, DataType dtype, Shape valid_shape) {
  auto t = std::make_shared<TileType>();
  if (!valid_shape.empty() && !SameShape(valid_shape, shape)) t->valid_shape = std::move(valid_shape);
  t->shape = std::move(shape);
  t->dtype = dtype;
  t->memory_space = OutputMemorySpace(ctx);
  return t;
}

TypePtr MakeArrayType(const DeduceContext& ctx, ArrayKind kind, Shape shape, DataType dtype, Shape valid_shape) {
  if (kind == ArrayKind::kTile) return MakeTileType(ctx, std::move(shape), dtype, std::move(valid_shape));
  return MakeTensorType(std::move(shape), dtype, std::move(valid_shape));
}

// ---------------------------------------------------------------- arguments

void RequireListLength(const DeduceContext& ctx, size_t i, size_t size, size_t count) {
  if (size == count) return;
  ctx.Error("argument '" + ctx.ArgName(i) + "' has " + std::to_string(size) + " entries, expected " +
            std::to_string(count) + " (one per dim)");
}

Shape IndexListArg(const DeduceContext& ctx, size_t i, size_t count) {
  Shape list = ctx.IndexListArg(i);
  RequireListLength(ctx, i, list.size(), count);
  return list;
}

Shape ShapeListArg(const DeduceContext& ctx, size_t i) {
  Shape shape = ctx.IndexListArg(i);
  if (shape.empty()) ctx.Error("argument '" + ctx.ArgName(i) + "' is empty; an array needs at least one dim");
  for (size_t k = 0; k < shape.size(); ++k) {
    auto v = AsConstInt(shape[k]);
    if (v && *v <= 0) {
      ctx.Error("argument '" + ctx.ArgName(i) + "' " + ShapeString(shape) + " has a non-positive dim " +
                std::to_string(*v) + " at index " + std::to_string(k));
    }
  }
  return shape;
}

Shape StaticShapeListArg(const DeduceContext& ctx, size_t i) {
  Shape shape = ShapeListArg(ctx, i);
  for (size_t k = 0; k < shape.size(); ++k) {
    if (AsConstInt(shape[k])) continue;
    ctx.Error("argument '" + ctx.ArgName(i) + "' " + ShapeString(shape) + " has a dynamic dim " + DimString(shape[k]) +
              " at index " + std::to_string(k) +
              "; on-chip buffers need static shapes (give the dynamic extent as valid_shape)");
  }
  return shape;
}

int64_t ConstIntArg(const DeduceContext& ctx, size_t i) {
  auto v = AsConstInt(ctx.arg(i));
  if (!v) ctx.ArgError(i, "an integer constant");
  return *v;
}

size_t AxisArg(const DeduceContext& ctx, size_t i, size_t rank) {
  int64_t axis = ConstIntArg(ctx, i);
  auto r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r) {
    ctx.Error("axis " + std::to_string(axis) + " (argument '" + ctx.ArgName(i) + "') is out of range for rank " +
              std::to_string(rank) + "; use -" + std::to_string(rank) + " to " + std::to_string(rank - 1));
  }
  return static_cast<size_t>(axis < 0 ? axis + r : axis);
}

Shape ValidShapeArg(const DeduceContext& ctx, size_t i, const Shape& shape) {
  Shape valid = IndexListArg(ctx, i, shape.size());
  for (size_t k = 0; k < valid.size(); ++k) {
    auto v = AsConstInt(valid[k]);
    auto s = AsConstInt(shape[k]);
    if (v && *v < 0) {
      ctx.Error("argument '" + ctx.ArgName(i) + "' " + ShapeString(valid) + " has a negative extent at dim " +
                std::to_string(k));
    }
    if (v && s && *v > *s) {
      ctx.Error("argument '" + ctx.ArgName(i) + "' " + ShapeString(valid) + " exceeds the shape " + ShapeString(shape) +
                " at dim " + std::to_string(k) + " (" + std::to_string(*v) + " > " + std::to_string(*s) + ")");
    }
  }
  return valid;
}

void RequireWindowInside(const DeduceContext& ctx, const Shape& offsets, const Shape& extents, const Shape& bounds,
                         const std::string& what, const std::string& target) {
  for (size_t k = 0; k < offsets.size(); ++k) {
    auto off = AsConstInt(offsets[k]);
    if (off && *off < 0) {
      ctx.Error("offsets " + ShapeString(offsets) + " have a negative entry at dim " + std::to_string(k));
    }
    auto ext = AsConstInt(extents[k]);
    auto bound = AsConstInt(bounds[k]);
    if (!off || !ext || !bound || *off + *ext <= *bound) continue;
    ctx.Error(what + " " + ShapeString(extents) + " at offsets " + ShapeString(offsets) + " overruns " + target + " " +
              ShapeString(bounds) + " at dim " + std::to_string(k) + " (" + std::to_string(*off) + " + " +
              std::to_string(*ext) + " > " + std::to_string(*bound) + ")");
  }
}

Shape WindowValidShape(const Shape& source_shape, const Shape& source_valid, const Shape& offsets,
                       const Shape& window) {
  Shape valid(window.size());
  for (size_t k = 0; k < window.size(); ++k) {
    if (SameDim(source_valid[k], source_shape[k])) {
      valid[k] = window[k];
      continue;
    }
    ExprPtr left = SubDims(source_valid[k], offsets[k]);
    if (auto v = AsConstInt(left); v && *v < 0) left = Int(0);
    valid[k] = MinDims(window[k], left);
  }
  return valid;
}

Shape WrittenValidShape(const Shape& target_shape, const Shape& target_valid, const Shape& offsets,
                        const Shape& source_valid) {
  Shape valid(target_shape.size());
  for (size_t k = 0; k < target_shape.size(); ++k) {
    valid[k] = SameDim(target_valid[k], target_shape[k])
                   ? target_shape[k]
                   : MinDims(target_shape[k], MaxDims(target_valid[k], AddDims(offsets[k], source_valid[k])));
  }
  return valid;
}

DataType AccumulatorDType(DataType operand) { return operand.is_float() ? DataType::FP32 : DataType::INT32; }

MatmulGeometry DeduceMatmulGeometry(const DeduceContext& ctx, size_t lhs_arg, const ArrayInfo& lhs, size_t rhs_arg,
                                    const ArrayInfo& rhs, bool a_trans, bool b_trans) {
  RequireMinRank(ctx, lhs_arg, lhs, 2);
  RequireMinRank(ctx, rhs_arg, rhs, 2);
  size_t l = lhs.rank();
  size_t r = rhs.rank();
  size_t m = a_trans ? l - 1 : l - 2;
  size_t kl = a_trans ? l - 2 : l - 1;
  size_t kr = b_trans ? r - 1 : r - 2;
  size_t n = b_trans ? r - 2 : r - 1;
  if (!SameDim(lhs.shape[kl], rhs.shape[kr])) {
    ctx.Error("inner dimensions differ: '" + ctx.ArgName(lhs_arg) + "' " + ShapeString(lhs.shape) +
              (a_trans ? " (a_trans)" : "") + " has K=" + DimString(lhs.shape[kl]) + " but '" + ctx.ArgName(rhs_arg) +
              "' " + ShapeString(rhs.shape) + (b_trans ? " (b_trans)" : "") + " has K=" + DimString(rhs.shape[kr]));
  }
  Shape lhs_batch(lhs.shape.begin(), lhs.shape.end() - 2);
  Shape rhs_batch(rhs.shape.begin(), rhs.shape.end() - 2);
  MatmulGeometry g;
  g.shape = BroadcastShapes(ctx, lhs_batch, rhs_batch);
  g.valid = g.shape;
  g.shape.push_back(lhs.shape[m]);
  g.shape.push_back(rhs.shape[n]);
  g.valid.push_back(lhs.valid_shape[m]);
  g.valid.push_back(rhs.valid_shape[n]);
  return g;
}

void RequireStorableInto(const DeduceContext& ctx, size_t i, const ArrayInfo& source, DataType target) {
  if (source.dtype == target) return;
  bool fixpipe_converts = source.memory_space == MemorySpace::Acc && source.dtype == DataType::FP32 &&
                          (target == DataType::FP16 || target == DataType::BF16);
  if (fixpipe_converts) return;
  ctx.Error("argument '" + ctx.ArgName(i) + "' has dtype " + source.dtype.name() + " but the destination is " +
            target.name() + "; cast it first");
}

bool AtomicAddKwarg(const DeduceContext& ctx, DataType destination) {
  int64_t atomic = ctx.KwargAs<int64_t>("atomic").value_or(0);
  if (atomic != 0 && atomic != 1) {
    ctx.Error("keyword 'atomic' must be 0 (overwrite) or 1 (atomic add), got " + std::to_string(atomic));
  }
  static const std::vector<DataType> kAtomicAddDTypes = {DataType::FP32,  DataType::FP16,  DataType::BF16,
                                                         DataType::INT32, DataType::INT16, DataType::INT8};
  if (atomic == 1 &&
      std::find(kAtomicAddDTypes.begin(), kAtomicAddDTypes.end(), destination) == kAtomicAddDTypes.end()) {
    ctx.Error(std::string("atomic add into a ") + destination.name() +
              " destination is not supported; the hardware adds FP32, FP16, BF16, INT32, INT16 or INT8");
  }
  return atomic == 1;
}

// ---------------------------------------------------------------- shared family rules

Shape BroadcastValid(const Shape& result, const std::vector<const ArrayInfo*>& operands) {
  Shape valid = result;
  for (const ArrayInfo* a : operands) {
    size_t shift = result.size() - a->rank();
    for (size_t k = 0; k < a->rank(); ++k) {
      ExprPtr& v = valid[k + shift];
      if (!SameDim(a->shape[k], result[k + shift]) || SameDim(a->valid_shape[k], a->shape[k])) continue;
      v = SameDim(v, result[k + shift]) ? a->valid_shape[k] : MinDims(v, a->valid_shape[k]);
    }
  }
  return valid;
}

namespace {

std::string Describe(const ArrayInfo& a) { return std::string("the ") + a.dtype.name() + " " + ArrayKindName(a.kind); }

enum class RhsForm { kArray, kScalar, kArrayOrScalar };

ExprPtr CeilDivDim(const ExprPtr& dim, int64_t divisor) {
  if (auto v = AsConstInt(dim)) return Int((*v + divisor - 1) / divisor);
  return BinaryExpr::Make(BinaryOp::FloorDiv, AddDims(dim, Int(divisor - 1)), Int(divisor));
}

// A tile comparison's result is what TCMP / TCMPS write: pto-isa's packed
// predicate mask (see PackedMaskShape in the header). The tensor form stays
// element-wise: 0 or 1 in the compared dtype, as upstream's tensor.cmp.
TypePtr CompareResult(const DeduceContext& ctx, ArrayKind kind, const Shape& shape, DataType dtype,
                      const Shape& valid) {
  if (kind == ArrayKind::kTensor) return MakeArrayType(ctx, kind, shape, dtype, valid);
  if (shape.empty() || !AsConstInt(shape.back())) {
    ctx.Error("a compared tile needs a static last dimension, got shape " + ShapeString(shape));
  }
  return MakeArrayType(ctx, kind, PackedMaskShape(shape), DataType::UINT8, PackedMaskValidShape(valid));
}

TypePtr CompareWith(const DeduceContext& ctx, ArrayKind kind, RhsForm form) {
  CodeKwarg(ctx, "cmp_type", CompareModeNames());
  ArrayInfo lhs = ArrayArg(ctx, 0, kind);
  RequireDType(ctx, 0, lhs.dtype, DTypeClass::kNumeric);
  const TypePtr& rhs_type = ctx.arg(1)->type;
  bool rhs_is_array = kind == ArrayKind::kTile ? IsA<TileType>(rhs_type) : IsA<TensorType>(rhs_type);
  if (form == RhsForm::kArray || (form == RhsForm::kArrayOrScalar && rhs_is_array)) {
    ArrayInfo rhs = ArrayArg(ctx, 1, kind);
    RequireDType(ctx, 1, rhs.dtype, DTypeClass::kNumeric);
    Shape shape = BroadcastShapes(ctx, lhs.shape, rhs.shape);
    Shape valid = BroadcastValid(shape, {&lhs, &rhs});
    return CompareResult(ctx, kind, shape, PromoteTypes(lhs.dtype, rhs.dtype), valid);
  }
  if (form == RhsForm::kArrayOrScalar && !IsA<ScalarType>(rhs_type)) {
    ctx.ArgError(1, std::string("a ") + ArrayKindName(kind) + " or a scalar");
  }
  DataType scalar = ctx.ScalarArg(1);
  if (kind == ArrayKind::kTile) RequireScalarFits(ctx, 1, scalar, lhs.dtype, Describe(lhs));
  if (scalar == DataType::TASK_ID) ctx.ArgError(1, "a numeric scalar");
  DataType dtype = kind == ArrayKind::kTile ? lhs.dtype : WeakScalarDType(lhs.dtype, scalar);
  return CompareResult(ctx, kind, lhs.shape, dtype, lhs.valid_shape);
}

}  // namespace

TypePtr DeduceElementwise(const DeduceContext& ctx, ArrayKind kind) {
  ArrayInfo lhs = ArrayArg(ctx, 0, kind);
  ArrayInfo rhs = ArrayArg(ctx, 1, kind);
  RequireDType(ctx, 0, lhs.dtype, DTypeClass::kNumeric);
  RequireDType(ctx, 1, rhs.dtype, DTypeClass::kNumeric);
  Shape shape = BroadcastShapes(ctx, lhs.shape, rhs.shape);
  Shape valid = BroadcastValid(shape, {&lhs, &rhs});
  return MakeArrayType(ctx, kind, std::move(shape), PromoteTypes(lhs.dtype, rhs.dtype), std::move(valid));
}

TypePtr DeduceDivision(const DeduceContext& ctx, ArrayKind kind) {
  TypePtr result = DeduceElementwise(ctx, kind);
  DataType dtype = kind == ArrayKind::kTile ? As<TileType>(result)->dtype : As<TensorType>(result)->dtype;
  if (ctx.KwargAs<bool>("high_precision").value_or(false) && !dtype.is_float()) {
    ctx.Error(std::string("high_precision=True needs a floating-point result, got ") + dtype.name() +
              "; drop high_precision or cast the operands to FP32");
  }
  return result;
}

TypePtr DeduceScalarForm(const DeduceContext& ctx, ArrayKind kind) {
  ArrayInfo lhs = ArrayArg(ctx, 0, kind);
  RequireDType(ctx, 0, lhs.dtype, DTypeClass::kNumeric);
  DataType scalar = ctx.ScalarArg(1);
  if (scalar == DataType::TASK_ID) ctx.ArgError(1, "a numeric scalar");
  DataType dtype = lhs.dtype;
  if (kind == ArrayKind::kTile) {
    RequireScalarFits(ctx, 1, scalar, lhs.dtype, Describe(lhs));
  } else {
    dtype = WeakScalarDType(lhs.dtype, scalar);
  }
  return MakeArrayType(ctx, kind, lhs.shape, dtype, lhs.valid_shape);
}

TypePtr DeduceBitwise(const DeduceContext& ctx, ArrayKind kind, bool is_shift) {
  ArrayInfo lhs = ArrayArg(ctx, 0, kind);
  ArrayInfo rhs = ArrayArg(ctx, 1, kind);
  RequireDType(ctx, 0, lhs.dtype, DTypeClass::kInt);
  RequireDType(ctx, 1, rhs.dtype, DTypeClass::kInt);
  if (!SameShape(lhs.shape, rhs.shape)) {
    ctx.Error("operands must have one shape, got " + ShapeString(lhs.shape) + " and " + ShapeString(rhs.shape) +
              "; bitwise and shift ops do not broadcast, expand the operand first");
  }
  DataType dtype = is_shift ? lhs.dtype : PromoteTypes(lhs.dtype, rhs.dtype);
  Shape valid = BroadcastValid(lhs.shape, {&lhs, &rhs});
  return MakeArrayType(ctx, kind, lhs.shape, dtype, std::move(valid));
}

TypePtr DeduceBitwiseScalar(const DeduceContext& ctx, ArrayKind kind, bool is_shift) {
  ArrayInfo lhs = ArrayArg(ctx, 0, kind);
  RequireDType(ctx, 0, lhs.dtype, DTypeClass::kInt);
  DataType scalar = ctx.ScalarArg(1);
  if (!scalar.is_int()) ctx.ArgError(1, "an integer scalar");
  if (auto count = AsConstInt(ctx.arg(1)); is_shift && count && *count < 0) {
    ctx.Error("shift count must be non-negative, got " + std::to_string(*count));
  }
  return MakeArrayType(ctx, kind, lhs.shape, lhs.dtype, lhs.valid_shape);
}

TypePtr DeduceUnary(const DeduceContext& ctx, ArrayKind kind, DTypeClass cls) {
  ArrayInfo x = ArrayArg(ctx, 0, kind);
  RequireDType(ctx, 0, x.dtype, cls);
  return MakeArrayType(ctx, kind, x.shape, x.dtype, x.valid_shape);
}

TypePtr DeduceCompare(const DeduceContext& ctx, ArrayKind kind) {
  return CompareWith(ctx, kind, kind == ArrayKind::kTile ? RhsForm::kArray : RhsForm::kArrayOrScalar);
}

TypePtr DeduceCompareScalar(const DeduceContext& ctx, ArrayKind kind) {
  return CompareWith(ctx, kind, RhsForm::kScalar);
}

Shape PackedMaskShape(const Shape& shape) {
  Shape mask = shape;
  int64_t bytes = (*AsConstInt(shape.back()) + kMaskBitsPerByte - 1) / kMaskBitsPerByte;
  mask.back() = Int((bytes + kMaskRowAlignBytes - 1) / kMaskRowAlignBytes * kMaskRowAlignBytes);
  return mask;
}

Shape PackedMaskValidShape(const Shape& valid) {
  Shape mask = valid;
  mask.back() = CeilDivDim(valid.back(), kMaskBitsPerByte);
  return mask;
}

TypePtr DeduceCast(const DeduceContext& ctx, ArrayKind kind) {
  ArrayInfo x = ArrayArg(ctx, 0, kind);
  RequireDType(ctx, 0, x.dtype, DTypeClass::kNumeric);
  CodeKwarg(ctx, "mode", CastModeNames());
  DataType target = *ctx.KwargAs<DataType>("target_type");
  if (target == DataType::TASK_ID) ctx.Error("target_type TASK_ID is not an element type");
  return MakeArrayType(ctx, kind, x.shape, target, x.valid_shape);
}

void RequireScratchTile(const DeduceContext& ctx, size_t i, const ArrayInfo& input, bool exact) {
  ArrayInfo tmp = ArrayArg(ctx, i, ArrayKind::kTile);
  std::string name = "scratch '" + ctx.ArgName(i) + "' ";
  if (tmp.dtype != input.dtype) {
    ctx.Error(name + "must have the input's dtype " + input.dtype.name() + ", got " + tmp.dtype.name());
  }
  if (tmp.rank() != input.rank()) {
    ctx.Error(name + ShapeString(tmp.shape) + " must have the input's rank " + std::to_string(input.rank()));
  }
  for (size_t k = 0; k < tmp.rank(); ++k) {
    if (SameDim(tmp.shape[k], input.shape[k])) continue;
    auto t = AsConstInt(tmp.shape[k]);
    auto in = AsConstInt(input.shape[k]);
    if (!exact && t && in && *t > *in) continue;
    ctx.Error(name + ShapeString(tmp.shape) + (exact ? " must match" : " must cover") + " the input " +
              ShapeString(input.shape) + " at dim " + std::to_string(k) + " (" + DimString(tmp.shape[k]) + " vs " +
              DimString(input.shape[k]) + ")");
  }
}

TypePtr DeduceRowReduction(const DeduceContext& ctx, ArrayKind kind, bool index_result) {
  ArrayInfo x = ArrayArg(ctx, 0, kind);
  RequireMinRank(ctx, 0, x, 2);
  RequireDType(ctx, 0, x.dtype, DTypeClass::kNumeric);
  if (ctx.num_args() > 1) RequireScratchTile(ctx, 1, x, index_result);
  Shape shape = x.shape;
  Shape valid = x.valid_shape;
  shape.back() = Int(1);
  valid.back() = Int(1);
  return MakeArrayType(ctx, kind, std::move(shape), index_result ? DataType::INT32 : x.dtype, std::move(valid));
}

TypePtr DeduceColReduction(const DeduceContext& ctx, ArrayKind kind, bool index_result) {
  ArrayInfo x = ArrayArg(ctx, 0, kind);
  RequireMinRank(ctx, 0, x, 2);
  RequireDType(ctx, 0, x.dtype, DTypeClass::kNumeric);
  if (ctx.num_args() > 1) RequireScratchTile(ctx, 1, x, false);
  Shape shape = x.shape;
  Shape valid = x.valid_shape;
  shape.front() = Int(1);
  valid.front() = Int(1);
  return MakeArrayType(ctx, kind, std::move(shape), index_result ? DataType::INT32 : x.dtype, std::move(valid));
}

namespace {
TypePtr DeduceExpandAlong(const DeduceContext& ctx, ArrayKind kind, bool rows) {
  ArrayInfo x = ArrayArg(ctx, 0, kind);
  ArrayInfo vec = ArrayArg(ctx, 1, kind);
  RequireMinRank(ctx, 0, x, 2);
  RequireDType(ctx, 0, x.dtype, DTypeClass::kNumeric);
  Shape expected = x.shape;
  (rows ? expected.back() : expected.front()) = Int(1);
  if (!SameShape(vec.shape, expected)) {
    ctx.Error("argument '" + ctx.ArgName(1) + "' must have shape " + ShapeString(expected) + " to expand along the " +
              (rows ? "rows" : "columns") + " of " + ShapeString(x.shape) + ", got " + ShapeString(vec.shape));
  }
  if (vec.dtype != x.dtype) {
    ctx.Error("argument '" + ctx.ArgName(1) + "' has dtype " + vec.dtype.name() + " but argument '" + ctx.ArgName(0) +
              "' is " + x.dtype.name() + "; cast one of them");
  }
  return MakeArrayType(ctx, kind, x.shape, x.dtype, x.valid_shape);
}
}  // namespace

TypePtr DeduceRowExpand(const DeduceContext& ctx, ArrayKind kind) { return DeduceExpandAlong(ctx, kind, true); }

TypePtr DeduceColExpand(const DeduceContext& ctx, ArrayKind kind) { return DeduceExpandAlong(ctx, kind, false); }

TypePtr DeduceExpandScalar(const DeduceContext& ctx, ArrayKind kind) {
  ArrayInfo x = ArrayArg(ctx, 0, kind);
  RequireDType(ctx, 0, x.dtype, DTypeClass::kNumeric);
  RequireScalarFits(ctx, 1, ctx.ScalarArg(1), x.dtype, Describe(x));
  return MakeArrayType(ctx, kind, x.shape, x.dtype, x.valid_shape);
}

TypePtr DeduceConcat(const DeduceContext& ctx, ArrayKind kind) {
  ArrayInfo a = ArrayArg(ctx, 0, kind);
  ArrayInfo b = ArrayArg(ctx, 1, kind);
  if (a.dtype != b.dtype) {
    ctx.Error(std::string("operands must have one dtype, got ") + a.dtype.name() + " and " + b.dtype.name());
  }
  RequireRank(ctx, 1, b, a.rank());
  size_t last = a.rank() - 1;
  for (size_t k = 0; k < last; ++k) {
    if (SameDim(a.shape[k], b.shape[k])) continue;
    ctx.Error("argument '" + ctx.ArgName(1) + "' " + ShapeString(b.shape) + " does not match " + ShapeString(a.shape) +
              " outside the last axis (dim " + std::to_string(k) + ": " + DimString(a.shape[k]) + " vs " +
              DimString(b.shape[k]) + ")");
  }
  Shape shape = a.shape;
  shape[last] = AddDims(a.shape[last], b.shape[last]);
  Shape valid(a.rank());
  for (size_t k = 0; k < last; ++k) valid[k] = MinDims(a.valid_shape[k], b.valid_shape[k]);
  // The second operand's data is contiguous with the first's only when the first is valid to its end.
  valid[last] =
      SameDim(a.valid_shape[last], a.shape[last]) ? AddDims(a.shape[last], b.valid_shape[last]) : a.valid_shape[last];
  return MakeArrayType(ctx, kind, std::move(shape), a.dtype, std::move(valid));
}

namespace {
// Whether two shapes provably hold the same number of elements: dims that
// appear in both cancel, what remains must be static with equal products.
bool SameElementCount(Shape a, Shape b) {
  for (auto it = a.begin(); it != a.end();) {
    auto match = std::find_if(b.begin(), b.end(), [&](const ExprPtr& d) { return SameDim(d, *it); });
    if (match == b.end()) {
      ++it;
      continue;
    }
    b.erase(match);
    it = a.erase(it);
  }
  auto ca = StaticElementCount(a);
  auto cb = StaticElementCount(b);
  return ca && cb && *ca == *cb;
}
}  // namespace

TypePtr DeduceReshape(const DeduceContext& ctx, ArrayKind kind) {
  ArrayInfo x = ArrayArg(ctx, 0, kind);
  Shape shape = ShapeListArg(ctx, 1);
  if (!SameElementCount(x.shape, shape)) {
    auto from = StaticElementCount(x.shape);
    auto to = StaticElementCount(shape);
    if (from && to) {
      ctx.Error("cannot reshape " + ShapeString(x.shape) + " (" + std::to_string(*from) + " elements) to " +
                ShapeString(shape) + " (" + std::to_string(*to) + " elements)");
    }
    ctx.Error("cannot prove that " + ShapeString(x.shape) + " and " + ShapeString(shape) +
              " hold the same number of elements");
  }
  if (ctx.num_args() > 2) return MakeArrayType(ctx, kind, shape, x.dtype, ValidShapeArg(ctx, 2, shape));
  if (!SameShape(x.valid_shape, x.shape)) {
    ctx.Error("argument '" + ctx.ArgName(0) + "' is valid only on " + ShapeString(x.valid_shape) + " of " +
              ShapeString(x.shape) +
              (kind == ArrayKind::kTensor ? "; pass valid_shape for the result"
                                          : "; fill the rest with tile.fillpad before reshaping"));
  }
  return MakeArrayType(ctx, kind, std::move(shape), x.dtype);
}

TypePtr DeduceTranspose(const DeduceContext& ctx, ArrayKind kind) {
  ArrayInfo x = ArrayArg(ctx, 0, kind);
  RequireMinRank(ctx, 0, x, 2);
  size_t a1 = AxisArg(ctx, 1, x.rank());
  size_t a2 = AxisArg(ctx, 2, x.rank());
  if (a1 == a2) ctx.Error("axis1 and axis2 are both " + std::to_string(a1) + "; a transpose swaps two axes");
  Shape shape = x.shape;
  Shape valid = x.valid_shape;
  std::swap(shape[a1], shape[a2]);
  std::swap(valid[a1], valid[a2]);
  if (ctx.num_args() > 3) {
    if (kind == ArrayKind::kTensor) {
      valid = ValidShapeArg(ctx, 3, shape);
    } else if (ArrayArg(ctx, 3, ArrayKind::kTile).dtype != x.dtype) {
      ctx.Error("scratch '" + ctx.ArgName(3) + "' must have the input's dtype " + x.dtype.name());
    }
  }
  return MakeArrayType(ctx, kind, std::move(shape), x.dtype, std::move(valid));
}

TypePtr DeduceSlice(const DeduceContext& ctx, ArrayKind kind) {
  ArrayInfo x = ArrayArg(ctx, 0, kind);
  Shape shape = kind == ArrayKind::kTile ? StaticShapeListArg(ctx, 1) : ShapeListArg(ctx, 1);
  RequireListLength(ctx, 1, shape.size(), x.rank());
  Shape offsets = IndexListArg(ctx, 2, x.rank());
  RequireWindowInside(ctx, offsets, shape, x.shape, "window",
                      std::string(kind == ArrayKind::kTile ? "tile" : "tensor"));
  Shape valid =
      ctx.num_args() > 3 ? ValidShapeArg(ctx, 3, shape) : WindowValidShape(x.shape, x.valid_shape, offsets, shape);
  return MakeArrayType(ctx, kind, std::move(shape), x.dtype, std::move(valid));
}

TypePtr DeduceFillpad(const DeduceContext& ctx, ArrayKind kind) {
  ArrayInfo x = ArrayArg(ctx, 0, kind);
  if (ctx.KwargEnum<PadValue>("pad_value") == PadValue::Null) {
    ctx.Error("pad_value must be zero, max or min; PadValue.null fills nothing");
  }
  return MakeArrayType(ctx, kind, x.shape, x.dtype);
}

namespace {
void RequireIndicesInside(const DeduceContext& ctx, const Shape& indices, const Shape& shape) {
  for (size_t k = 0; k < indices.size(); ++k) {
    auto i = AsConstInt(indices[k]);
    auto d = AsConstInt(shape[k]);
    if (!i || (*i >= 0 && (!d || *i < *d))) continue;
    ctx.Error("index " + std::to_string(*i) + " is out of range for dim " + std::to_string(k) + " of " +
              ShapeString(shape));
  }
}
}  // namespace

TypePtr DeduceRead(const DeduceContext& ctx, ArrayKind kind) {
  ArrayInfo x = ArrayArg(ctx, 0, kind);
  RequireIndicesInside(ctx, IndexListArg(ctx, 1, x.rank()), x.shape);
  return ScalarType::Make(x.dtype);
}

TypePtr DeduceWrite(const DeduceContext& ctx, ArrayKind kind) {
  ArrayInfo x = ArrayArg(ctx, 0, kind);
  RequireIndicesInside(ctx, IndexListArg(ctx, 1, x.rank()), x.shape);
  RequireScalarFits(ctx, 2, ctx.ScalarArg(2), x.dtype, Describe(x));
  return x.type;
}

TypePtr DeduceFull(const DeduceContext& ctx, ArrayKind kind) {
  Shape shape = kind == ArrayKind::kTile ? StaticShapeListArg(ctx, 0) : ShapeListArg(ctx, 0);
  DataType dtype = *ctx.KwargAs<DataType>("dtype");
  if (dtype == DataType::TASK_ID) ctx.Error("dtype TASK_ID is not an element type");
  RequireScalarFits(ctx, 1, ctx.ScalarArg(1), dtype, std::string("dtype ") + dtype.name());
  return MakeArrayType(ctx, kind, std::move(shape), dtype);
}

const std::vector<std::string>& CastModeNames() {
  static const std::vector<std::string> names = {"none", "rint", "round", "floor", "ceil", "trunc", "odd"};
  return names;
}

const std::vector<std::string>& CompareModeNames() {
  static const std::vector<std::string> names = {"eq", "ne", "lt", "le", "gt", "ge"};
  return names;
}

int64_t CodeKwarg(const DeduceContext& ctx, const std::string& kwarg, const std::vector<std::string>& names) {
  int64_t code = ctx.KwargAs<int64_t>(kwarg).value_or(0);
  if (code >= 0 && code < static_cast<int64_t>(names.size())) return code;
  std::vector<std::string> choices;
  for (size_t k = 0; k < names.size(); ++k) choices.push_back(std::to_string(k) + "=" + names[k]);
  ctx.Error("keyword '" + kwarg + "' must be one of " + Join(choices, ", ") + ", got " + std::to_string(code));
}

}  // namespace pypto::ops
