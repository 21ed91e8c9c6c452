// Type rules shared by the op families: shapes (broadcasting, valid regions,
// bounds), dtypes (promotion, scalar operands) and argument parsing, plus the
// deduction of every family that tensor.* and tile.* ops have in common.
//
// All failures raise a TypeError through the DeduceContext, so each message
// starts with the op name and names the argument, the expected and the actual
// type or shape ("tensor.add: shapes [64, 32] and [16, 32] do not broadcast at
// dim 0 (64 vs 16)").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pypto/ops/registry.h"

namespace pypto::ops {

using Shape = std::vector<ExprPtr>;

// Every space a tile can occupy on chip: the memory rule of ops that accept a tile anywhere.
const std::vector<MemorySpace>& OnChipSpaces();

// ---------------------------------------------------------------- shapes

std::string DimString(const ExprPtr& dim);    // "64", "N", "(N - 16)"
std::string ShapeString(const Shape& shape);  // "[64, N]"
// Two extents are provably equal: equal constants, one and the same Var, or the
// same arithmetic over equal extents.
bool SameDim(const ExprPtr& a, const ExprPtr& b);
bool SameShape(const Shape& a, const Shape& b);
bool IsConstDim(const ExprPtr& dim, int64_t value);
// Arithmetic on extents: constants fold, anything else builds a scalar expression.
ExprPtr AddDims(const ExprPtr& a, const ExprPtr& b);
ExprPtr SubDims(const ExprPtr& a, const ExprPtr& b);
ExprPtr MinDims(const ExprPtr& a, const ExprPtr& b);
ExprPtr MaxDims(const ExprPtr& a, const ExprPtr& b);
// NumPy broadcasting, aligned from the right. A static dim matches an equal one
// or 1; a dynamic dim matches only itself or 1.
Shape BroadcastShapes(const DeduceContext& ctx, const Shape& a, const Shape& b);
std::optional<int64_t> StaticElementCount(const Shape& shape);

// ---------------------------------------------------------------- dtypes

enum class DTypeClass {
  kNumeric,        // anything but the opaque TASK_ID
  kFloat,          // exp, log, sqrt, ...
  kInt,            // bitwise and shifts
  kSignedOrFloat,  // neg, abs, relu
};
// Raises unless argument `i`, an array of `dtype`, belongs to `cls`.
void RequireDType(const DeduceContext& ctx, size_t i, DataType dtype, DTypeClass cls);
// The order of dtype kinds for mixing scalars into arrays: BOOL < integers < floats.
int DTypeKindRank(DataType dtype);
// Tensor-level scalar operand: the scalar only changes the result when it is
// of a higher kind (an INT32 tensor plus 0.5 is FP32; an FP16 tensor times a
// FP32 literal stays FP16), so literals never widen an array. An INDEX literal
// that wins (a BOOL tensor plus 1) gives INT64: INDEX is not an element type.
DataType WeakScalarDType(DataType array, DataType scalar);
// Tile-level scalar operand (1:1 with a PTO instruction): the scalar must not be
// of a higher kind than the tile; the result keeps the tile's dtype.
void RequireScalarFits(const DeduceContext& ctx, size_t scalar_arg, DataType scalar, DataType target,
                       const std::string& target_desc);

// ---------------------------------------------------------------- arrays

// The two array levels of the IR: GM tensors and on-chip tiles.
enum class ArrayKind { kTensor, kTile };
const char* ArrayKindName(ArrayKind kind);  // "Tensor" / "Tile"

// The parts of a tensor or tile type the rules look at.
struct ArrayInfo {
  ArrayKind kind = ArrayKind::kTensor;
  Shape shape;
  DataType dtype;
  Shape valid_shape;  // never empty: equals `shape` when the whole array is valid
  std::optional<MemorySpace> memory_space;
  TypePtr type;

  size_t rank() const { return shape.size(); }
};

// The valid region of an elementwise result: on each dim, the intersection of
// the operands that span it (a broadcast operand spans every index of it).
Shape BroadcastValid(const Shape& result, const std::vector<const ArrayInfo*>& operands);

ArrayInfo ArrayArg(const DeduceContext& ctx, size_t i, ArrayKind kind);
// Argument i as a Tensor or a Tile, whichever it is.
ArrayInfo TensorOrTileArg(const DeduceContext& ctx, size_t i);
void RequireRank(const DeduceContext& ctx, size_t i, const ArrayInfo& array, size_t rank);
void RequireMinRank(const DeduceContext& ctx, size_t i, const ArrayInfo& array, size_t rank);

// Result types. A valid_shape equal to the shape is stored as "whole array
// valid" (empty), so equal types have one spelling.
ir::Ref<ir::TensorType> MakeTensorType(Shape shape, DataType dtype, Shape valid_shape = {},
                                       ir::TensorLayout layout = ir::TensorLayout::ND);
// The tile's memory space follows the op's declared output rule.
ir::Ref<ir::TileType> MakeTileType(const DeduceContext& ctx, Shape shape, DataType dtype, Shape valid_shape = {});
TypePtr MakeArrayType(const DeduceContext& ctx, ArrayKind kind, Shape shape, DataType dtype, Shape valid_shape = {});
// The result space the op's OutputMemoryRule gives this call, if known yet.
std::optional<MemorySpace> OutputMemorySpace(const DeduceContext& ctx);

// ---------------------------------------------------------------- arguments

// Raises unless list argument i has `count` entries (one per dim).
void RequireListLength(const DeduceContext& ctx, size_t i, size_t size, size_t count);
// A list argument (offsets, indices) of exactly `count` integers.
Shape IndexListArg(const DeduceContext& ctx, size_t i, size_t count);
// A shape list: integers, static ones positive.
Shape ShapeListArg(const DeduceContext& ctx, size_t i);
// A shape list whose dims must all be static (on-chip allocations).
Shape StaticShapeListArg(const DeduceContext& ctx, size_t i);
int64_t ConstIntArg(const DeduceContext& ctx, size_t i);
// An axis given as a constant, negative values counting from the end.
size_t AxisArg(const DeduceContext& ctx, size_t i, size_t rank);
// A valid_shape argument for a result of `shape`: same rank, static dims within it.
Shape ValidShapeArg(const DeduceContext& ctx, size_t i, const Shape& shape);
// Raises when a static window [offset, offset + extent) provably leaves [0, bound) on some dim.
void RequireWindowInside(const DeduceContext& ctx, const Shape& offsets, const Shape& extents, const Shape& bounds,
                         const std::string& what, const std::string& target);
// The valid part of a window of `window` extents at `offsets` into an array of
// `source_shape` whose valid region is `source_valid`, cut to the window. A dim
// the source has fully valid is fully valid in the window (windows that leave
// the source are rejected by RequireWindowInside, where provable).
Shape WindowValidShape(const Shape& source_shape, const Shape& source_valid, const Shape& offsets, const Shape& window);
// The valid region of `target` after writing `source_valid` extents at `offsets`.
Shape WrittenValidShape(const Shape& target_shape, const Shape& target_valid, const Shape& offsets,
                        const Shape& source_valid);

// The dtype a cube unit accumulates products of `operand` in: FP32 for floats, INT32 otherwise.
DataType AccumulatorDType(DataType operand);
// [..., M, K] x [..., K, N] -> [..., M, N] with broadcast batch dims; a_trans and
// b_trans read an operand as its transpose. `valid` is the product's valid region.
struct MatmulGeometry {
  Shape shape;
  Shape valid;
};
MatmulGeometry DeduceMatmulGeometry(const DeduceContext& ctx, size_t lhs_arg, const ArrayInfo& lhs, size_t rhs_arg,
                                    const ArrayInfo& rhs, bool a_trans, bool b_trans);
// Data moved from `source` (argument i) into an array of `target` dtype: the
// dtypes must agree, except that the fixpipe converts an FP32 Acc tile to FP16
// or BF16 on its way out.
void RequireStorableInto(const DeduceContext& ctx, size_t i, const ArrayInfo& source, DataType target);
// The `atomic` kwarg: 0 overwrites, 1 adds into the destination (hardware atomic-add dtypes only).
bool AtomicAddKwarg(const DeduceContext& ctx, DataType destination);

// ---------------------------------------------------------------- shared family rules

// lhs op rhs with broadcasting and dtype promotion.
TypePtr DeduceElementwise(const DeduceContext& ctx, ArrayKind kind);
// DeduceElementwise plus the high_precision kwarg, which only float results have.
TypePtr DeduceDivision(const DeduceContext& ctx, ArrayKind kind);
// array op scalar (adds, muls, maximums, ...).
TypePtr DeduceScalarForm(const DeduceContext& ctx, ArrayKind kind);
// Integer arrays of one shape (no broadcast: the hardware has no expand form of them).
TypePtr DeduceBitwise(const DeduceContext& ctx, ArrayKind kind, bool is_shift);
// Integer array and integer scalar; a constant shift count must be non-negative.
TypePtr DeduceBitwiseScalar(const DeduceContext& ctx, ArrayKind kind, bool is_shift);
TypePtr DeduceUnary(const DeduceContext& ctx, ArrayKind kind, DTypeClass cls);
// Comparison (cmp_type kwarg). The rhs of tensor.cmp is a tensor (broadcast) or
// a scalar, and its result is 0 or 1 in the compared dtype; tile.cmp takes a
// tile and tile.cmps a scalar, and their result is a packed mask.
TypePtr DeduceCompare(const DeduceContext& ctx, ArrayKind kind);
TypePtr DeduceCompareScalar(const DeduceContext& ctx, ArrayKind kind);
// pto-isa's packed predicate mask, what TCMP / TCMPS write and TSEL reads: a
// UINT8 tile holding one bit per compared element, element c of a row in bit
// c % 8 of byte c / 8, each row padded to a multiple of 32 bytes (the
// alignment of a row-major Vec tile row). `shape` (static last dimension) and
// `valid` are the compared tile's.
inline constexpr int64_t kMaskBitsPerByte = 8;
inline constexpr int64_t kMaskRowAlignBytes = 32;
Shape PackedMaskShape(const Shape& shape);
Shape PackedMaskValidShape(const Shape& valid);
TypePtr DeduceCast(const DeduceContext& ctx, ArrayKind kind);
// Row reductions give [..., M, 1], column reductions [1, N, ...]; `index_result` gives INT32.
TypePtr DeduceRowReduction(const DeduceContext& ctx, ArrayKind kind, bool index_result);
TypePtr DeduceColReduction(const DeduceContext& ctx, ArrayKind kind, bool index_result);
// Checks a scratch tile for a reduction of `input`: same dtype and rank, at least
// as large (exactly as large when `exact`).
void RequireScratchTile(const DeduceContext& ctx, size_t i, const ArrayInfo& input, bool exact);
// tile op row_vec [..., M, 1] / col_vec [1, N]: the result has the tile's type.
TypePtr DeduceRowExpand(const DeduceContext& ctx, ArrayKind kind);
TypePtr DeduceColExpand(const DeduceContext& ctx, ArrayKind kind);
// (target, scalar): the scalar broadcast to the target's shape and dtype.
TypePtr DeduceExpandScalar(const DeduceContext& ctx, ArrayKind kind);
// (src0, src1) joined along the last axis.
TypePtr DeduceConcat(const DeduceContext& ctx, ArrayKind kind);
// (input, shape[, valid_shape]).
TypePtr DeduceReshape(const DeduceContext& ctx, ArrayKind kind);
// (input, axis1, axis2[, valid_shape]) for tensors; tiles take a scratch tile instead of a valid_shape.
TypePtr DeduceTranspose(const DeduceContext& ctx, ArrayKind kind);
// (input, shape, offset[, valid_shape]): a window of the input.
TypePtr DeduceSlice(const DeduceContext& ctx, ArrayKind kind);
// pad_value kwarg (not null): the whole result becomes valid.
TypePtr DeduceFillpad(const DeduceContext& ctx, ArrayKind kind);
// (array, indices) -> Scalar of the element dtype.
TypePtr DeduceRead(const DeduceContext& ctx, ArrayKind kind);
// (array, indices, value) -> the array's type.
TypePtr DeduceWrite(const DeduceContext& ctx, ArrayKind kind);
// (shape, value) with a dtype kwarg.
TypePtr DeduceFull(const DeduceContext& ctx, ArrayKind kind);

// Cast rounding modes (the `mode` kwarg): none, rint, round, floor, ceil, trunc, odd.
inline constexpr int64_t kCastModeRound = 2;
const std::vector<std::string>& CastModeNames();
// Comparison modes (the `cmp_type` kwarg): eq, ne, lt, le, gt, ge.
const std::vector<std::string>& CompareModeNames();
// Reads an int kwarg that indexes `names`; raises naming the valid values otherwise.
int64_t CodeKwarg(const DeduceContext& ctx, const std::string& kwarg, const std::vector<std::string>& names);

}  // namespace pypto::ops
