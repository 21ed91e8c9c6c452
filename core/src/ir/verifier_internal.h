// Shared pieces of the verifier's rule checkers (one .cpp per rule family).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "pypto/ir/verifier.h"
#include "pypto/ir/visitor.h"

namespace pypto::ir::verifier {

// Collects the diagnostics of one function.
class Reporter {
 public:
  Reporter(const Function& function, std::vector<Diagnostic>& out) : function_(function), out_(out) {}

  const Function& function() const { return function_; }
  // "function 'f'" for messages.
  std::string FunctionLabel() const { return "function '" + function_.name + "'"; }

  void Error(const char* rule, const char* code, const Node& node, const Span& span, std::string message);

 private:
  const Function& function_;
  std::vector<Diagnostic>& out_;
};

// A visitor that knows the statement it is in, so that expressions without a
// source span can be reported at their statement's span.
class StmtTrackingVisitor : public IRVisitor {
 public:
  void VisitStmt(const StmtPtr& stmt) override;

 protected:
  const Stmt* current_stmt() const { return stmts_.empty() ? nullptr : stmts_.back(); }
  // The node's span if known, else the enclosing statement's.
  Span SpanOf(const Node& node) const;

 private:
  std::vector<const Stmt*> stmts_;
};

// The statement that ends `body`, looking through trailing SeqStmts; null for
// a null body.
const Stmt* TrailingStmt(const StmtPtr& body);

// Equality of types for the verifier.
//
// Differences from plain structural equality, on purpose:
// - A tile's MemRef is storage assigned by later passes, not part of its type.
// - Dimension Vars listed as `bindable` (a callee's dynamic dims) match any
//   dimension of the other side, the same one every time they occur.
// - With `Refinable`, the expected side may leave tile memory space, layouts,
//   fractal and valid shape, and a tensor's view, unset: type deduction leaves
//   them open and passes fill them in later.
class TypeMatcher {
 public:
  TypeMatcher() = default;
  explicit TypeMatcher(std::set<const Var*> bindable) : bindable_(std::move(bindable)) {}
  static TypeMatcher Refinable();

  bool Match(const TypePtr& expected, const TypePtr& actual);

 private:
  bool MatchDims(const std::vector<ExprPtr>& expected, const std::vector<ExprPtr>& actual);
  bool MatchDim(const ExprPtr& expected, const ExprPtr& actual);
  bool MatchTensor(const TensorType& expected, const TensorType& actual);
  bool MatchTile(const TileType& expected, const TileType& actual);

  std::set<const Var*> bindable_;
  std::map<const Var*, ExprPtr> bindings_;
  bool refinable_ = false;
};

bool SameType(const TypePtr& a, const TypePtr& b);
// Whether a value of type `actual` may flow into a loop-carried or phi
// variable of type `carried`. What the carried type leaves unset (a tile's
// memory space, layouts, valid shape before InferTileMemorySpace) is open.
bool CarriedTypeAccepts(const TypePtr& carried, const TypePtr& actual);

// The Vars that occur in the dimensions of `type` (shapes, views, array sizes).
std::set<const Var*> DimVarsOf(const TypePtr& type);

// The rule families; each appends to the reporter.
void CheckSSA(const FunctionPtr& function, Reporter& reporter);
void CheckControlFlow(const FunctionPtr& function, Reporter& reporter);
// `program` may be null: calls of other functions are then not checked.
void CheckTypes(const FunctionPtr& function, const Program* program, Reporter& reporter);
void CheckPlacement(const FunctionPtr& function, Reporter& reporter);
// The property rules `options` turns on.
void CheckProperties(const FunctionPtr& function, const VerifyOptions& options, Reporter& reporter);

}  // namespace pypto::ir::verifier
