// Shared by the Simplify and UnrollLoops tests: short builders for IR and a
// structure comparison for expected programs.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <variant>
#include <vector>

#include "pypto/ir/reflection.h"
#include "pypto/ir/verifier.h"
#include "pypto/ir/visitor.h"

namespace pypto::test {

using namespace pypto::ir;  // NOLINT: test brevity

inline TypePtr Scalar(DataType dtype) { return ScalarType::Make(dtype); }
inline VarPtr IndexVar(const std::string& name) { return Var::Make(name, Scalar(DataType::INDEX)); }
inline VarPtr ScalarVar(const std::string& name, DataType dtype) { return Var::Make(name, Scalar(dtype)); }

inline ExprPtr Bin(BinaryOp op, const ExprPtr& a, const ExprPtr& b) { return BinaryExpr::Make(op, a, b); }
inline ExprPtr Un(UnaryOp op, const ExprPtr& a) { return UnaryExpr::Make(op, a); }
inline ExprPtr CastTo(const ExprPtr& a, DataType dtype) { return UnaryExpr::MakeCast(a, dtype); }

// A call of `op_name` (registered or not) with a scalar result of `dtype`, or no result type.
inline ExprPtr CallOp(const std::string& op_name, std::vector<ExprPtr> args,
                      TypePtr type = UnknownType::Make()) {
  return Call::Make(Op::Get(op_name), std::move(args), {}, std::move(type));
}

inline StmtPtr Assign(const VarPtr& var, const ExprPtr& value) { return AssignStmt::Make(var, value); }
inline StmtPtr Eval(const ExprPtr& e) { return EvalStmt::Make(e); }
inline StmtPtr Return(std::vector<ExprPtr> values) { return ReturnStmt::Make(std::move(values)); }
inline StmtPtr Yield(std::vector<ExprPtr> values) { return YieldStmt::Make(std::move(values)); }
inline StmtPtr Seq(std::vector<StmtPtr> stmts) { return SeqStmts::Make(std::move(stmts)); }

inline ProgramPtr ProgramOf(std::vector<VarPtr> params, StmtPtr body, std::vector<TypePtr> returns = {}) {
  auto f = Function::Make("main", FunctionType::Opaque, std::move(params), {}, std::move(returns), std::move(body));
  return Program::Make("test", {f});
}
inline StmtPtr BodyOf(const ProgramPtr& program) { return program->functions.at(0)->body; }

// Compares two IR trees field by field. Binding sites map the left tree's
// variables onto the right one's, so that independently built trees compare
// equal; other variables compare by identity. Names and spans are ignored.
class StructureMatcher {
 public:
  // Where the trees first differ, or nullopt.
  std::optional<std::string> Diff(const NodePtr& a, const NodePtr& b) {
    MatchNode(a.get(), b.get(), "root", false);
    return diff_;
  }

 private:
  void Fail(const std::string& path, const std::string& what) {
    if (!diff_) diff_ = path + ": " + what;
  }

  void MatchNode(const ir::Node* a, const ir::Node* b, const std::string& path, bool is_def) {
    if (diff_ || a == b) {
      if (a && is_def) map_[static_cast<const Var*>(a)] = static_cast<const Var*>(b);
      return;
    }
    if (!a || !b) return Fail(path, a ? "missing on the right" : "missing on the left");
    if (a->kind() != b->kind()) return Fail(path, std::string(a->type_name()) + " vs " + b->type_name());
    if (auto va = As<Var>(a)) {
      auto vb = static_cast<const Var*>(b);
      if (!is_def) {
        auto it = map_.find(va);
        if (it == map_.end()) return Fail(path, "free variable " + va->name_hint + " vs " + vb->name_hint);
        if (it->second != vb) {
          return Fail(path, "variable " + va->name_hint + " used where " + vb->name_hint + " was expected");
        }
        return;
      }
      map_[va] = vb;
    }
    DispatchNode(*a, [&](const auto& na) {
      using T = std::decay_t<decltype(na)>;
      ForEachFieldPair(na, static_cast<const T&>(*b),
                       [&](const char* name, const auto& fa, const auto& fb, FieldRole role) {
                         if (role != FieldRole::kIgnore) Field(fa, fb, path + "." + name, role == FieldRole::kDef);
                       });
    });
  }

  template <class F>
  void Field(const F& a, const F& b, const std::string& path, bool is_def) {
    if (diff_) return;
    if constexpr (IsRef<F>::value) {
      MatchNode(a.get(), b.get(), path, is_def);
    } else if constexpr (IsVector<F>::value) {
      if (a.size() != b.size()) {
        return Fail(path, std::to_string(a.size()) + " vs " + std::to_string(b.size()) + " items");
      }
      for (size_t i = 0; i < a.size(); ++i) Field(a[i], b[i], path + "[" + std::to_string(i) + "]", is_def);
    } else if constexpr (IsOptional<F>::value) {
      if (a.has_value() != b.has_value()) return Fail(path, "optional set on one side only");
      if (a) Field(*a, *b, path, is_def);
    } else if constexpr (std::is_same_v<F, Attrs>) {
      Field(a.entries(), b.entries(), path, false);
    } else if constexpr (std::is_same_v<F, Attrs::Entry>) {
      if (a.first != b.first) return Fail(path, "key " + a.first + " vs " + b.first);
      if (a.second.index() != b.second.index()) return Fail(path + "." + a.first, "different value kinds");
      std::visit(
          [&](const auto& va) {
            using V = std::decay_t<decltype(va)>;
            Field(va, std::get<V>(b.second), path + "." + a.first, false);
          },
          a.second);
    } else if constexpr (IsReflectableStruct<F>::value) {
      ForEachFieldPair(a, b, [&](const char* name, const auto& fa, const auto& fb, FieldRole role) {
        if (role != FieldRole::kIgnore) Field(fa, fb, path + "." + name, role == FieldRole::kDef);
      });
    } else if constexpr (std::is_arithmetic_v<F>) {
      if (a != b) Fail(path, std::to_string(a) + " vs " + std::to_string(b));
    } else if constexpr (std::is_same_v<F, DataType>) {
      if (a != b) Fail(path, std::string(a.name()) + " vs " + b.name());
    } else if constexpr (std::is_same_v<F, std::string>) {
      if (a != b) Fail(path, a + " vs " + b);
    } else {
      if (!(a == b)) Fail(path, "values differ");
    }
  }

  std::unordered_map<const Var*, const Var*> map_;
  std::optional<std::string> diff_;
};

#define EXPECT_SAME_IR(actual, expected)                                                   \
  do {                                                                                     \
    auto pypto_ir_diff = ::pypto::test::StructureMatcher().Diff((actual), (expected));     \
    EXPECT_FALSE(pypto_ir_diff.has_value()) << *pypto_ir_diff;                             \
  } while (0)

// The verifier's structural rules (SSA, scoping, yields, break/continue,
// returns). Type checking is off: the tests call unregistered ops.
inline std::string VerifierErrors(const ProgramPtr& program) {
  VerifyOptions options;
  options.type_check = false;
  options.placement = false;
  std::string errors;
  for (const auto& d : Verify(program, options)) {
    if (d.severity == Diagnostic::Severity::kError) errors += d.ToString() + "\n";
  }
  return errors;
}

#define EXPECT_VALID_IR(program) EXPECT_EQ(::pypto::test::VerifierErrors(program), "")

// Every variable the program defines, in definition order.
class DefCollector : public IRVisitor {
 public:
  std::vector<VarPtr> defs;
  void VisitVarDef(const VarPtr& var) override {
    defs.push_back(var);
    IRVisitor::VisitVarDef(var);
  }
};

// True when no variable is defined twice (the SSA single-definition rule).
inline bool DefinesEachVarOnce(const ProgramPtr& program) {
  DefCollector collector;
  collector.VisitProgram(program);
  std::unordered_set<const Var*> seen;
  for (const auto& v : collector.defs) {
    if (!seen.insert(v.get()).second) return false;
  }
  return true;
}

}  // namespace pypto::test
