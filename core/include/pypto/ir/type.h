// IR types. Shapes are lists of expressions: a ConstInt for a static
// dimension, a Var for a dynamic one (`pl.dynamic("N")`).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "pypto/ir/attrs.h"
#include "pypto/ir/dtype.h"
#include "pypto/ir/enums.h"
#include "pypto/ir/node.h"

namespace pypto::ir {

class Expr;
class MemRef;
using ExprPtr = Ref<Expr>;

class Type : public Node {
 public:
  static bool classof(NodeKind k) { return IsTypeKind(k); }

 protected:
  using Node::Node;
};
using TypePtr = Ref<Type>;

class ScalarType : public Type {
 public:
  static constexpr NodeKind kKind = NodeKind::kScalarType;
  static bool classof(NodeKind k) { return k == kKind; }
  ScalarType() : Type(kKind) {}
  static Ref<ScalarType> Make(DataType dtype);

  DataType dtype;

  template <class F>
  void ForEachField(F&& f) { f("dtype", dtype, FieldRole::kUsual); }
};

// Strides, valid region and pad of a tensor that is a view of another.
struct TensorView {
  std::vector<ExprPtr> strides;      // empty: packed row-major
  std::vector<ExprPtr> valid_shape;  // empty: the whole shape is valid
  PadValue pad = PadValue::Null;

  template <class F>
  void ForEachField(F&& f) {
    f("strides", strides, FieldRole::kUsual);
    f("valid_shape", valid_shape, FieldRole::kUsual);
    f("pad", pad, FieldRole::kUsual);
  }
};

// A tensor in global memory (DDR).
class TensorType : public Type {
 public:
  static constexpr NodeKind kKind = NodeKind::kTensorType;
  // A DistributedTensorType is a tensor too: every tensor rule applies to a window's local slice.
  static bool classof(NodeKind k) { return k == kKind || k == NodeKind::kDistributedTensorType; }
  TensorType() : Type(kKind) {}
  static Ref<TensorType> Make(std::vector<ExprPtr> shape, DataType dtype,
                              TensorLayout layout = TensorLayout::ND,
                              std::optional<TensorView> view = std::nullopt);
  // Static shape convenience.
  static Ref<TensorType> Make(const std::vector<int64_t>& shape, DataType dtype);

  std::vector<ExprPtr> shape;
  DataType dtype;
  TensorLayout layout = TensorLayout::ND;
  std::optional<TensorView> view;

  size_t rank() const { return shape.size(); }

 protected:
  explicit TensorType(NodeKind kind) : Type(kind) {}

 public:

  template <class F>
  void ForEachField(F&& f) {
    f("shape", shape, FieldRole::kUsual);
    f("dtype", dtype, FieldRole::kUsual);
    f("layout", layout, FieldRole::kUsual);
    f("view", view, FieldRole::kUsual);
  }
};

// `pld.DistributedTensor`: a tensor in a window buffer, symmetric across ranks. Locally it is a
// tensor; only it may be the window operand of a signal or one-sided transfer, because only window
// memory exists at the same offset on every peer.
class DistributedTensorType : public TensorType {
 public:
  static constexpr NodeKind kKind = NodeKind::kDistributedTensorType;
  static bool classof(NodeKind k) { return k == kKind; }
  DistributedTensorType() : TensorType(kKind) {}
  static Ref<DistributedTensorType> Make(std::vector<ExprPtr> shape, DataType dtype,
                                         TensorLayout layout = TensorLayout::ND,
                                         std::optional<TensorView> view = std::nullopt);
};

// A tile: a block of elements in one on-chip memory space.
class TileType : public Type {
 public:
  static constexpr NodeKind kKind = NodeKind::kTileType;
  static bool classof(NodeKind k) { return k == kKind; }
  TileType() : Type(kKind) {}
  static Ref<TileType> Make(std::vector<ExprPtr> shape, DataType dtype,
                            std::optional<MemorySpace> memory_space = std::nullopt);
  static Ref<TileType> Make(const std::vector<int64_t>& shape, DataType dtype,
                            std::optional<MemorySpace> memory_space = std::nullopt);

  std::vector<ExprPtr> shape;
  DataType dtype;
  std::optional<MemorySpace> memory_space;  // unset until InferTileMemorySpace
  std::vector<ExprPtr> valid_shape;         // empty: the whole tile is valid
  std::optional<TileLayout> blayout;        // unset: the implicit layout of the space
  std::optional<TileLayout> slayout;
  int64_t fractal = 0;                      // 0: the implicit fractal size of the space
  PadValue pad = PadValue::Null;
  Ref<MemRef> memref;                       // set by InitMemRef

  size_t rank() const { return shape.size(); }

  template <class F>
  void ForEachField(F&& f) {
    f("shape", shape, FieldRole::kUsual);
    f("dtype", dtype, FieldRole::kUsual);
    f("memory_space", memory_space, FieldRole::kUsual);
    f("valid_shape", valid_shape, FieldRole::kUsual);
    f("blayout", blayout, FieldRole::kUsual);
    f("slayout", slayout, FieldRole::kUsual);
    f("fractal", fractal, FieldRole::kUsual);
    f("pad", pad, FieldRole::kUsual);
    f("memref", memref, FieldRole::kUsual);
  }
};

class TupleType : public Type {
 public:
  static constexpr NodeKind kKind = NodeKind::kTupleType;
  static bool classof(NodeKind k) { return k == kKind; }
  TupleType() : Type(kKind) {}
  static Ref<TupleType> Make(std::vector<TypePtr> fields);

  std::vector<TypePtr> fields;

  template <class F>
  void ForEachField(F&& f) { f("fields", fields, FieldRole::kUsual); }
};

// A fixed-size array of scalars living in orchestration code (TaskId arrays).
class ArrayType : public Type {
 public:
  static constexpr NodeKind kKind = NodeKind::kArrayType;
  static bool classof(NodeKind k) { return k == kKind; }
  ArrayType() : Type(kKind) {}
  static Ref<ArrayType> Make(DataType dtype, ExprPtr size);

  DataType dtype;
  ExprPtr size;

  template <class F>
  void ForEachField(F&& f) {
    f("dtype", dtype, FieldRole::kUsual);
    f("size", size, FieldRole::kUsual);
  }
};

// An on-chip allocation's base address (result of tile.alloc).
class PtrType : public Type {
 public:
  static constexpr NodeKind kKind = NodeKind::kPtrType;
  static bool classof(NodeKind k) { return k == kKind; }
  PtrType() : Type(kKind) {}
  static Ref<PtrType> Make(std::optional<MemorySpace> memory_space = std::nullopt);

  std::optional<MemorySpace> memory_space;

  template <class F>
  void ForEachField(F&& f) { f("memory_space", memory_space, FieldRole::kUsual); }
};

// The type of an expression whose type is not known yet (calls of ops with no result).
class UnknownType : public Type {
 public:
  static constexpr NodeKind kKind = NodeKind::kUnknownType;
  static bool classof(NodeKind k) { return k == kKind; }
  UnknownType() : Type(kKind) {}
  static Ref<UnknownType> Make();

  template <class F>
  void ForEachField(F&&) {}
};

// Convenience queries used everywhere.
std::optional<DataType> ScalarDType(const TypePtr& type);  // dtype of a ScalarType
bool IsScalarType(const TypePtr& type, DataType dtype);
// Shape of a tensor or tile type; empty for other types.
const std::vector<ExprPtr>* ShapeOf(const TypePtr& type);
// Static dims as integers; nullopt if any dim is dynamic.
std::optional<std::vector<int64_t>> StaticShape(const std::vector<ExprPtr>& shape);
// A readable type string for error messages, in DSL spelling ("Tensor[[64, 64], FP32]").
std::string TypeToString(const TypePtr& type);

}  // namespace pypto::ir
