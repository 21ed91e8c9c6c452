// The base of every IR node, the list of node kinds, and safe down-casting.
//
// IR nodes are immutable values shared through `Ref<T>` (shared_ptr<const T>).
// Passes never edit a node in place; they build new ones (see mutator.h).
// Each concrete node class lists its fields once in `ForEachField`, and the
// generic machinery (visitor, mutator, structural equality and hashing,
// serialization) is written against that list.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "pypto/support/span.h"

namespace pypto::ir {

template <class T>
using Ref = std::shared_ptr<const T>;

// X(ClassName) for every concrete node class, grouped by category.
#define PYPTO_IR_EXPR_NODES(X) \
  X(Var)                       \
  X(IterArg)                   \
  X(MemRef)                    \
  X(ConstInt)                  \
  X(ConstFloat)                \
  X(ConstBool)                 \
  X(BinaryExpr)                \
  X(UnaryExpr)                 \
  X(Call)                      \
  X(MakeTuple)                 \
  X(TupleGetItem)              \
  X(Submit)
#define PYPTO_IR_STMT_NODES(X) \
  X(AssignStmt)                \
  X(EvalStmt)                  \
  X(SeqStmts)                  \
  X(IfStmt)                    \
  X(ForStmt)                   \
  X(WhileStmt)                 \
  X(YieldStmt)                 \
  X(ReturnStmt)                \
  X(BreakStmt)                 \
  X(ContinueStmt)              \
  X(ScopeStmt)
#define PYPTO_IR_TYPE_NODES(X) \
  X(ScalarType)                \
  X(TensorType)                \
  X(DistributedTensorType)     \
  X(TileType)                  \
  X(TupleType)                 \
  X(ArrayType)                 \
  X(PtrType)                   \
  X(UnknownType)
#define PYPTO_IR_OTHER_NODES(X) \
  X(Op)                         \
  X(GlobalVar)                  \
  X(Function)                   \
  X(Program)
#define PYPTO_IR_NODES(X) PYPTO_IR_EXPR_NODES(X) PYPTO_IR_STMT_NODES(X) PYPTO_IR_TYPE_NODES(X) PYPTO_IR_OTHER_NODES(X)

enum class NodeKind : uint8_t {
#define PYPTO_X(T) k##T,
  PYPTO_IR_NODES(PYPTO_X)
#undef PYPTO_X
};

// The class name of a node kind ("ForStmt").
const char* NodeKindName(NodeKind kind);

inline bool IsExprKind(NodeKind k) { return k >= NodeKind::kVar && k <= NodeKind::kSubmit; }
inline bool IsStmtKind(NodeKind k) { return k >= NodeKind::kAssignStmt && k <= NodeKind::kScopeStmt; }
inline bool IsTypeKind(NodeKind k) { return k >= NodeKind::kScalarType && k <= NodeKind::kUnknownType; }

// How a field takes part in the generic algorithms.
enum class FieldRole {
  kUsual,   // compared, hashed, visited, serialized
  kDef,     // a binding site (assign target, loop var, params): always auto-mapped in equality
  kIgnore,  // names and comments: serialized and printed, never compared or hashed
};

class Node {
 public:
  virtual ~Node() = default;

  NodeKind kind() const { return kind_; }
  const char* type_name() const { return NodeKindName(kind_); }

  Span span;

 protected:
  explicit Node(NodeKind kind, Span s = Span()) : span(std::move(s)), kind_(kind) {}
  Node(const Node&) = default;
  Node& operator=(const Node&) = default;

 private:
  NodeKind kind_;
};

using NodePtr = Ref<Node>;

// Down-casts that check the kind: nullptr when the node is not a T.
// Abstract classes (Expr, Stmt, Type, Var, Op) match every kind they cover.
template <class T, class U>
Ref<T> As(const Ref<U>& node) {
  if (node && T::classof(node->kind())) return std::static_pointer_cast<const T>(node);
  return nullptr;
}
template <class T, class U>
const T* As(const U* node) {
  if (node && T::classof(node->kind())) return static_cast<const T*>(node);
  return nullptr;
}
template <class T, class U>
bool IsA(const Ref<U>& node) {
  return node && T::classof(node->kind());
}

}  // namespace pypto::ir
