// Python classes for every IR node kind, generated from the node field lists.
//
// Each class gets a read-only property per field and a constructor taking the
// fields positionally (in declaration order) or by keyword, plus `span=`
// (and `leading_comments=` on statements).
// Nodes whose type follows from their operands (BinaryExpr, Call of a
// registered op, ...) deduce it when no `type` is given.
#include <set>

#include "casters.h"
#include "pypto/ir/printer.h"
#include "pypto/ir/reflection.h"
#include "pypto/ops/registry.h"
#include "pypto/support/strings.h"

namespace pypto::python {

using namespace ir;

namespace {

template <class Field>
py::object FieldToPy(const Field& field) {
  return py::cast(field);
}

template <class Field>
void FieldFromPy(Field& field, py::handle value) {
  if constexpr (std::is_same_v<Field, ExprPtr>) {
    field = value.is_none() ? nullptr : ToExpr(value);
  } else if constexpr (std::is_same_v<Field, std::vector<ExprPtr>>) {
    field.clear();
    for (auto item : value) field.push_back(ToExpr(item));
  } else {
    field = value.cast<Field>();
  }
}

template <class T>
std::vector<std::string> FieldNames() {
  std::vector<std::string> names;
  T probe;
  probe.ForEachField([&](const char* name, auto&, FieldRole) { names.emplace_back(name); });
  return names;
}

template <class T>
void SetField(T& node, const std::string& name, py::handle value) {
  bool found = false;
  node.ForEachField([&](const char* field_name, auto& field, FieldRole) {
    if (found || name != field_name) return;
    found = true;
    try {
      FieldFromPy(field, value);
    } catch (const py::cast_error&) {
      ThrowTypeError(std::string(NodeKindName(T::kKind)) + ": field '" + name + "' cannot hold a " +
                     py::str(py::type::of(value).attr("__name__")).cast<std::string>());
    }
  });
  if (!found) {
    ThrowTypeError(std::string(NodeKindName(T::kKind)) + " has no field '" + name + "'; fields: " +
                   Join(FieldNames<T>(), ", "));
  }
}

void SetLeadingComments(Stmt& stmt, py::handle value) {
  const std::string problem = std::string(stmt.type_name()) + ": leading_comments takes a list of str";
  if (py::isinstance<py::str>(value)) ThrowTypeError(problem);
  try {
    stmt.leading_comments = value.cast<std::vector<std::string>>();
  } catch (const py::cast_error&) {
    ThrowTypeError(problem);
  }
}

// Fills a fresh node from positional and keyword arguments.
template <class T>
std::shared_ptr<T> FillNode(const py::args& args, const py::kwargs& kwargs) {
  auto node = std::make_shared<T>();
  auto names = FieldNames<T>();
  if (args.size() > names.size()) {
    ThrowTypeError(std::string(NodeKindName(T::kKind)) + " takes at most " + std::to_string(names.size()) +
                   " positional arguments (" + Join(names, ", ") + "), got " + std::to_string(args.size()));
  }
  for (size_t i = 0; i < args.size(); ++i) SetField(*node, names[i], args[i]);
  for (auto item : kwargs) {
    std::string key = item.first.cast<std::string>();
    if (key == "span") {
      node->span = item.second.cast<Span>();
      continue;
    }
    if constexpr (std::is_base_of_v<Stmt, T>) {
      if (key == "leading_comments") {
        SetLeadingComments(*node, item.second);
        continue;
      }
    }
    SetField(*node, key, item.second);
  }
  return node;
}

// Node fields that may legitimately be empty; every other node-valued field
// is required, so no half-built node reaches the printer or a pass.
bool IsNullableField(NodeKind kind, const std::string& field) {
  static const std::set<std::pair<NodeKind, std::string>> nullable = {
      {NodeKind::kIfStmt, "else_body"}, {NodeKind::kTileType, "memref"}, {NodeKind::kMemRef, "base"},
      {NodeKind::kScopeStmt, "core_num"}, {NodeKind::kScopeStmt, "task_id"},
      {NodeKind::kCall, "type"}, {NodeKind::kBinaryExpr, "type"},
      {NodeKind::kUnaryExpr, "type"}, {NodeKind::kMakeTuple, "type"}, {NodeKind::kTupleGetItem, "type"},
      {NodeKind::kSubmit, "type"}};
  return nullable.count({kind, field}) > 0;
}

template <class Field>
void RequireComplete(NodeKind kind, const char* name, const Field& field) {
  auto fail = [&](const std::string& what) {
    ThrowTypeError(std::string(NodeKindName(kind)) + ": field '" + name + "' " + what);
  };
  if constexpr (IsRef<Field>::value) {
    if (!field && !IsNullableField(kind, name)) fail("is required");
  } else if constexpr (IsVector<Field>::value) {
    if constexpr (IsRef<typename Field::value_type>::value) {
      for (size_t i = 0; i < field.size(); ++i) {
        if (!field[i]) fail("holds None at index " + std::to_string(i));
      }
    }
  }
}

// Per-kind completion after the fields are filled: deduce types, validate.
template <class T>
Ref<T> Finish(std::shared_ptr<T> node) {
  ForEachFieldOf(*node, [](const char* name, const auto& field, FieldRole) { RequireComplete(T::kKind, name, field); });
  if constexpr (std::is_base_of_v<Var, T>) {
    if (!node->type) ThrowTypeError(std::string(NodeKindName(T::kKind)) + " needs a type");
  } else if constexpr (std::is_same_v<T, BinaryExpr>) {
    if (!node->type) return BinaryExpr::Make(node->op, node->lhs, node->rhs, node->span);
  } else if constexpr (std::is_same_v<T, UnaryExpr>) {
    if (!node->type) {
      if (node->op == UnaryOp::Cast) ThrowTypeError("UnaryExpr(Cast, x) needs type=ScalarType(dtype)");
      return UnaryExpr::Make(node->op, node->operand, node->span);
    }
  } else if constexpr (std::is_same_v<T, MakeTuple>) {
    if (!node->type) return MakeTuple::Make(node->elements, node->span);
  } else if constexpr (std::is_same_v<T, TupleGetItem>) {
    if (!node->type) return TupleGetItem::Make(node->tuple, node->index, node->span);
  } else if constexpr (std::is_same_v<T, Submit>) {
    if (!node->type) return Submit::Make(node->call, node->deps, node->attrs, node->span);
  } else if constexpr (std::is_same_v<T, Call>) {
    if (!node->op) ThrowTypeError("Call needs an op");
    if (!node->type) {
      const auto* def = node->is_function_call() ? nullptr : ops::OpRegistry::Global().Find(node->op->name);
      node->type = def ? def->DeduceType(node->args, node->kwargs, node->span) : UnknownType::Make();
    }
  } else if constexpr (std::is_same_v<T, Function>) {
    // Make validates and defaults the directions; the optional fields it does not take carry over.
    auto made = std::make_shared<Function>(*Function::Make(node->name, node->func_type, node->params,
                                                           node->param_directions, node->return_types, node->body,
                                                           node->span));
    made->level = node->level;
    made->role = node->role;
    made->attrs = node->attrs;
    return made;
  } else if constexpr (std::is_same_v<T, Program>) {
    return Program::Make(node->name, node->functions, node->span);
  }
  return node;
}

std::string Repr(const NodePtr& node) {
  try {
    return PrintNode(node);
  } catch (const std::exception&) {
    return std::string("<") + node->type_name() + ">";
  }
}

template <class T, class Base>
void BindNode(py::module_& m) {
  auto cls = py::class_<T, Base, std::shared_ptr<T>>(m, NodeKindName(T::kKind));
  cls.def(py::init([](const py::args& args, const py::kwargs& kwargs) {
            return std::const_pointer_cast<T>(Finish(FillNode<T>(args, kwargs)));
          }),
          ("Fields, in order: " + Join(FieldNames<T>(), ", ")).c_str());
  for (const auto& name : FieldNames<T>()) {
    cls.def_property_readonly(name.c_str(), [name](const T& self) {
      py::object result;
      ForEachFieldOf(self, [&](const char* field_name, const auto& field, FieldRole) {
        if (name == field_name) result = FieldToPy(field);
      });
      return result;
    });
  }
  cls.attr("field_names") = FieldNames<T>();
}

}  // namespace

void BindIRNodes(py::module_& m) {
  py::class_<Node, std::shared_ptr<Node>>(m, "Node")
      .def_property_readonly("type_name", &Node::type_name)
      .def_readonly("span", &Node::span)
      .def("__repr__", [](const std::shared_ptr<Node>& n) { return Repr(n); })
      .def("__str__", [](const std::shared_ptr<Node>& n) { return Repr(n); })
      .def("same_as", [](const std::shared_ptr<Node>& a, const std::shared_ptr<Node>& b) { return a == b; },
           "Identity: the same node object.")
      .def(
          "as_python",
          [m](const py::object& self, const std::string& prefix, bool concise) {
            return m.attr("as_python")(self, prefix, concise);
          },
          py::arg("prefix") = "pl", py::arg("concise") = false,
          "This node printed as Python DSL text: ir.as_python(node, prefix, concise).");
  py::class_<Expr, Node, std::shared_ptr<Expr>>(m, "Expr").def_readonly("type", &Expr::type);
  py::class_<Stmt, Node, std::shared_ptr<Stmt>>(m, "Stmt").def_readonly("leading_comments", &Stmt::leading_comments);
  py::class_<Type, Node, std::shared_ptr<Type>>(m, "Type");

  BindNode<Var, Expr>(m);
  m.attr("Var").cast<py::class_<Var, Expr, std::shared_ptr<Var>>>().def_readonly("unique_id", &Var::unique_id);
  BindNode<IterArg, Var>(m);
  BindNode<MemRef, Var>(m);
  BindNode<BinaryExpr, Expr>(m);
  BindNode<UnaryExpr, Expr>(m);
  BindNode<Call, Expr>(m);
  BindNode<MakeTuple, Expr>(m);
  BindNode<TupleGetItem, Expr>(m);
  BindNode<Submit, Expr>(m);

  // Constants take (value, dtype) rather than a type.
  py::class_<ConstInt, Expr, std::shared_ptr<ConstInt>>(m, "ConstInt")
      .def(py::init([](int64_t value, DataType dtype, Span span) {
             return std::const_pointer_cast<ConstInt>(ConstInt::Make(value, dtype, std::move(span)));
           }),
           py::arg("value"), py::arg("dtype") = DataType::INDEX, py::arg("span") = Span())
      .def_readonly("value", &ConstInt::value)
      .def_property_readonly("dtype", &ConstInt::dtype);
  py::class_<ConstFloat, Expr, std::shared_ptr<ConstFloat>>(m, "ConstFloat")
      .def(py::init([](double value, DataType dtype, Span span) {
             return std::const_pointer_cast<ConstFloat>(ConstFloat::Make(value, dtype, std::move(span)));
           }),
           py::arg("value"), py::arg("dtype") = DataType::FP32, py::arg("span") = Span())
      .def_readonly("value", &ConstFloat::value)
      .def_property_readonly("dtype", &ConstFloat::dtype);
  py::class_<ConstBool, Expr, std::shared_ptr<ConstBool>>(m, "ConstBool")
      .def(py::init([](bool value, Span span) {
             return std::const_pointer_cast<ConstBool>(ConstBool::Make(value, std::move(span)));
           }),
           py::arg("value"), py::arg("span") = Span())
      .def_readonly("value", &ConstBool::value);

#define PYPTO_X(T) BindNode<T, Stmt>(m);
  PYPTO_IR_STMT_NODES(PYPTO_X)
#undef PYPTO_X
#define PYPTO_X(T) BindNode<T, std::conditional_t<std::is_same_v<T, DistributedTensorType>, TensorType, Type>>(m);
  PYPTO_IR_TYPE_NODES(PYPTO_X)
#undef PYPTO_X

  py::class_<Op, Node, std::shared_ptr<Op>>(m, "Op")
      .def(py::init([](const std::string& name) { return std::const_pointer_cast<Op>(Op::Get(name)); }))
      .def_readonly("name", &Op::name);
  py::class_<GlobalVar, Op, std::shared_ptr<GlobalVar>>(m, "GlobalVar")
      .def(py::init([](const std::string& name, Span span) {
             return std::const_pointer_cast<GlobalVar>(GlobalVar::Make(name, std::move(span)));
           }),
           py::arg("name"), py::arg("span") = Span());
  BindNode<Function, Node>(m);
  BindNode<Program, Node>(m);
  m.attr("Program").cast<py::class_<Program, Node, std::shared_ptr<Program>>>().def(
      "get_function", [](const Program& p, const std::string& name) { return p.Find(name); }, py::arg("name"));
}

}  // namespace pypto::python
