// Functions and programs.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "pypto/ir/attrs.h"
#include "pypto/ir/enums.h"
#include "pypto/ir/expr.h"
#include "pypto/ir/stmt.h"

namespace pypto::ir {

class Function : public Node {
 public:
  static constexpr NodeKind kKind = NodeKind::kFunction;
  static bool classof(NodeKind k) { return k == kKind; }
  Function() : Node(kKind) {}
  static Ref<Function> Make(std::string name, FunctionType func_type, std::vector<VarPtr> params,
                            std::vector<ParamDirection> param_directions, std::vector<TypePtr> return_types,
                            StmtPtr body, Span span = Span());

  std::string name;
  FunctionType func_type = FunctionType::Opaque;
  std::vector<VarPtr> params;
  std::vector<ParamDirection> param_directions;  // one per param
  std::vector<TypePtr> return_types;
  StmtPtr body;
  std::optional<Level> level;
  std::optional<Role> role;
  Attrs attrs;

  template <class F>
  void ForEachField(F&& f) {
    f("name", name, FieldRole::kUsual);
    f("func_type", func_type, FieldRole::kUsual);
    f("params", params, FieldRole::kDef);
    f("param_directions", param_directions, FieldRole::kUsual);
    f("return_types", return_types, FieldRole::kUsual);
    f("body", body, FieldRole::kUsual);
    f("level", level, FieldRole::kUsual);
    f("role", role, FieldRole::kUsual);
    f("attrs", attrs, FieldRole::kUsual);
  }
};
using FunctionPtr = Ref<Function>;

// Whether functions of this type are the code of one core (InCore, AIC, AIV):
// the functions tile-level passes rewrite.
bool IsCoreKernel(FunctionType type);

// A set of functions, kept sorted by name so printing and hashing are stable.
class Program : public Node {
 public:
  static constexpr NodeKind kKind = NodeKind::kProgram;
  static bool classof(NodeKind k) { return k == kKind; }
  Program() : Node(kKind) {}
  // Sorts by name; two functions with one name is a ValueError.
  static Ref<Program> Make(std::string name, std::vector<FunctionPtr> functions, Span span = Span());

  std::string name;
  std::vector<FunctionPtr> functions;

  FunctionPtr Find(const std::string& function_name) const;
  // A copy with `function` added or replacing the one of the same name.
  Ref<Program> WithFunction(FunctionPtr function) const;
  Ref<Program> WithoutFunction(const std::string& function_name) const;

  template <class F>
  void ForEachField(F&& f) {
    f("name", name, FieldRole::kUsual);
    f("functions", functions, FieldRole::kUsual);
  }
};
using ProgramPtr = Ref<Program>;

// `program` with each function replaced by `rewrite(function)`, in order; the
// program itself when every rewrite returned its function unchanged (the
// identity passes rely on to report "no change").
ProgramPtr MapFunctions(const ProgramPtr& program, const std::function<FunctionPtr(const FunctionPtr&)>& rewrite);

}  // namespace pypto::ir
