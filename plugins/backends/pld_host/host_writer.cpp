#include "host_writer.h"

#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "pypto/ir/ir.h"
#include "pypto/ir/visitor.h"
#include "pypto/ops/registry.h"
#include "pypto/support/strings.h"

namespace pypto::pld_host {

using namespace pypto::ir;

namespace {

constexpr const char* kCommDomainAttr = "comm_domain";
constexpr const char* kCommDevicesAttr = "comm_devices";
constexpr const char* kBuiltinPrefix = "builtin.";

std::string Join(const std::vector<std::string>& parts) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  return out;
}

std::string Quoted(const std::string& text) {
  return QuotedLiteral(text, '\'');
}

bool IsPythonKeyword(const std::string& name) {
  static const std::set<std::string> kKeywords = {
      "False", "None",  "True",  "and",    "as",   "assert", "async",  "await",    "break",  "class", "continue",
      "def",   "del",   "elif",  "else",   "except", "finally", "for", "from",     "global", "if",    "import",
      "in",    "is",    "lambda", "nonlocal", "not", "or",     "pass",   "raise",    "return", "try",   "while",
      "with",  "yield", "rt",    "range"};
  return kKeywords.count(name) > 0;
}

class HostWriter {
 public:
  explicit HostWriter(FunctionPtr function) : function_(std::move(function)) {}

  std::string Write() {
    std::vector<std::string> params;
    for (const auto& p : function_->params) params.push_back(Name(p));
    out_ << "# The @pl.jit.host orchestrator '" << function_->name << "', compiled by PyPTO (backend "
         << kBackendName << ").\n# `rt` is this rank's pypto.runtime.host_run.HostRun.\n\n\n";
    out_ << "def " << function_->name << "(" << Join([&] {
      std::vector<std::string> all{"rt"};
      all.insert(all.end(), params.begin(), params.end());
      return all;
    }()) << "):\n";
    indent_ = 1;
    OpenDomains();
    WriteBody(function_->body);
    if (!wrote_statement_) Line("pass");
    return out_.str();
  }

 private:
  using Targets = std::vector<VarPtr>;

  // The domains come first: every rank opens all of them, then allocates in the ones it belongs to.
  void OpenDomains() {
    class Finder : public IRVisitor {
     public:
      std::vector<std::pair<std::string, std::optional<std::vector<int64_t>>>> domains;
      void Visit_(const Ref<Call>& call) override {
        if (!call->is_function_call() && call->op->name == "tensor.alloc_window_buffer") {
          auto name = call->attrs.Get<std::string>(kCommDomainAttr);
          if (name && !seen_.count(*name)) {
            seen_.insert(*name);
            domains.emplace_back(*name, call->attrs.Get<std::vector<int64_t>>(kCommDevicesAttr));
          }
        }
        IRVisitor::Visit_(call);
      }

     private:
      std::set<std::string> seen_;
    } finder;
    finder.VisitStmt(function_->body);
    for (const auto& [name, devices] : finder.domains) {
      std::string list = "None";
      if (devices) {
        std::vector<std::string> items;
        for (int64_t d : *devices) items.push_back(std::to_string(d));
        list = "[" + Join(items) + "]";
      }
      domain_names_[name] = Fresh(name);
      Line(domain_names_[name] + " = rt.comm_domain(" + Quoted(name) + ", " + list + ")");
    }
  }

  void WriteBody(const StmtPtr& body) {
    for (const auto& stmt : Flatten(body)) WriteStmt(stmt);
  }

  void WriteStmt(const StmtPtr& stmt) {
    if (auto assign = As<AssignStmt>(stmt)) {
      Line(Name(assign->var) + " = " + Value(assign->value, assign->var, stmt->span), stmt->span);
    } else if (auto eval = As<EvalStmt>(stmt)) {
      Line(Value(eval->expr, nullptr, stmt->span), stmt->span);
    } else if (auto loop = As<ForStmt>(stmt)) {
      WriteFor(*loop);
    } else if (auto branch = As<IfStmt>(stmt)) {
      WriteIf(*branch);
    } else if (auto yield = As<YieldStmt>(stmt)) {
      for (size_t i = 0; i < yield->values.size() && i < targets_.back().size(); ++i) {
        Line(Name(targets_.back()[i]) + " = " + Expr(yield->values[i], stmt->span));
      }
    } else if (auto ret = As<ReturnStmt>(stmt)) {
      std::vector<std::string> values;
      for (const auto& v : ret->values) values.push_back(Expr(v, stmt->span));
      Line(values.empty() ? "return" : "return " + Join(values), stmt->span);
    } else {
      Fail("", std::string("a ") + stmt->type_name() +
                   " in a host orchestrator; the host allocates windows, loops over ranks and dispatches, the rest "
                   "belongs to the chip programs",
           stmt->span);
    }
  }

  void WriteFor(const ForStmt& loop) {
    Targets carried;
    for (const auto& arg : loop.iter_args) {
      Line(Name(arg) + " = " + Expr(arg->init_value, loop.span));
      carried.push_back(arg);
    }
    Line("for " + Name(loop.loop_var) + " in range(" + Expr(loop.start, loop.span) + ", " +
             Expr(loop.stop, loop.span) + ", " + Expr(loop.step, loop.span) + "):",
         loop.span);
    Nested(loop.body, carried);
    for (size_t i = 0; i < loop.return_vars.size() && i < carried.size(); ++i) {
      Line(Name(loop.return_vars[i]) + " = " + Name(carried[i]));
    }
  }

  void WriteIf(const IfStmt& branch) {
    Line("if " + Expr(branch.condition, branch.span) + ":", branch.span);
    Nested(branch.then_body, branch.return_vars);
    if (branch.else_body) {
      Line("else:");
      Nested(branch.else_body, branch.return_vars);
    }
  }

  void Nested(const StmtPtr& body, const Targets& targets) {
    targets_.push_back(targets);
    ++indent_;
    size_t lines = lines_;
    WriteBody(body);
    if (lines_ == lines) Line("pass");
    --indent_;
    targets_.pop_back();
  }

  // The Python of an assigned or evaluated value; `target` is the assigned variable, if any.
  std::string Value(const ExprPtr& value, const VarPtr& target, const Span& span) {
    auto call = As<Call>(value);
    if (!call) return Expr(value, span);
    if (call->is_function_call()) {
      Fail("", "a call of function '" + call->callee_name() +
                   "' in a host orchestrator; dispatch @pl.jit chip programs with device=r", span);
    }
    const std::string& op = call->op->name;
    if (op == "tensor.alloc_window_buffer") return Allocation(*call, target, span);
    if (op == "system.dispatch") return Dispatch(*call, span);
    return Expr(value, span);
  }

  std::string Allocation(const Call& call, const VarPtr& target, const Span& span) {
    auto domain = call.attrs.Get<std::string>(kCommDomainAttr);
    if (!domain || !domain_names_.count(*domain)) {
      Fail(call.op->name, "the window buffer has no comm domain; run MaterializeCommDomainScopes first (the host "
                          "pipeline does)", span);
    }
    std::string name = target ? target->name_hint : "buffer";
    return "rt.alloc_window_buffer(" + domain_names_[*domain] + ", " + Quoted(name) + ", " + Expr(call.args[0], span) +
           ")";
  }

  std::string Dispatch(const Call& call, const Span& span) {
    std::string program = call.kwargs.Get<std::string>("program").value_or("");
    std::vector<std::string> args;
    for (size_t i = 1; i < call.args.size(); ++i) args.push_back(Expr(call.args[i], span));
    std::string device = Expr(call.args[0], span);
    if (program.rfind(kBuiltinPrefix, 0) != 0) {
      return "rt.dispatch(" + Quoted(program) + ", " + device + ", [" + Join(args) + "]" + SourcePlace(call.span) + ")";
    }
    std::vector<std::string> options;
    for (const auto& [key, value] : call.attrs) {
      if (key == kCommDomainAttr || key == kCommDevicesAttr) continue;
      options.push_back(Quoted(key) + ": " + AttrLiteral(value, span));
    }
    return "rt.builtin(" + Quoted(program.substr(std::string(kBuiltinPrefix).size())) + ", " + device + ", [" +
           Join(args) + "], {" + Join(options) + "})";
  }

  // `, ('file', line, end_line, col, end_col)` (0-based columns, as Python's positions): where a dispatch's errors
  // point in the user's source.
  static std::string SourcePlace(const Span& span) {
    if (!span.known()) return "";
    int end_line = span.end_line > 0 ? span.end_line : span.begin_line;
    int end_col = span.end_col > 0 ? span.end_col - 1 : span.begin_col - 1;
    return ", (" + Quoted(span.filename) + ", " + std::to_string(span.begin_line) + ", " + std::to_string(end_line) +
           ", " + std::to_string(span.begin_col - 1) + ", " + std::to_string(end_col) + ")";
  }

  std::string AttrLiteral(const AttrValue& value, const Span& span) {
    if (auto b = std::get_if<bool>(&value)) return *b ? "True" : "False";
    if (auto i = std::get_if<int64_t>(&value)) return std::to_string(*i);
    if (auto d = std::get_if<double>(&value)) {
      std::ostringstream s;
      s.precision(17);
      s << *d;
      return s.str();
    }
    if (auto s = std::get_if<std::string>(&value)) return Quoted(*s);
    Fail("system.dispatch", "a host collective option of a kind the host runtime does not take", span);
  }

  std::string Expr(const ExprPtr& expr, const Span& span) {
    if (auto var = As<Var>(expr)) return Name(var);
    if (auto c = As<ConstInt>(expr)) return std::to_string(c->value);
    if (auto c = As<ConstBool>(expr)) return c->value ? "True" : "False";
    if (auto c = As<ConstFloat>(expr)) {
      std::ostringstream s;
      s.precision(17);
      s << c->value;
      return s.str();
    }
    if (auto t = As<MakeTuple>(expr)) {
      std::vector<std::string> items;
      for (const auto& e : t->elements) items.push_back(Expr(e, span));
      return "[" + Join(items) + "]";
    }
    if (auto b = As<BinaryExpr>(expr)) return Binary(*b, span);
    if (auto u = As<UnaryExpr>(expr)) return Unary(*u, span);
    if (auto call = As<Call>(expr)) {
      if (!call->is_function_call() && call->op->name == "system.world_size") return "rt.world_size()";
      if (!call->is_function_call() && call->op->name == "tensor.window") {
        auto dtype = call->kwargs.Get<DataType>("dtype");
        return "rt.window(" + Expr(call->args[0], span) + ", " + Expr(call->args[1], span) + ", " +
               Quoted(dtype ? dtype->name() : "?") + ")";
      }
      if (!call->is_function_call() && call->op->name == "tensor.host_slice") {
        return "rt.host_slice(" + Expr(call->args[0], span) + ", " + Expr(call->args[1], span) + ", " +
               Expr(call->args[2], span) + ")";
      }
      if (!call->is_function_call() && call->op->name == "tensor.rank_slice") {
        return "rt.rank_slice(" + Expr(call->args[0], span) + ", " + Expr(call->args[1], span) + ")";
      }
      const std::string& op = call->op->name;
      const ops::OpDef* def = ops::OpRegistry::Global().Find(op);
      if (def && def->placement() == ops::Placement::kInCoreOrHost) {
        Fail(op, "a host collective the host pipeline did not lower; run LowerHostTensorCollectives", span);
      }
      Fail(op, "this op does not run in a host orchestrator; move it into a chip program dispatched with device=r",
           span);
    }
    Fail("", std::string("a ") + expr->type_name() + " in a host orchestrator", span);
  }

  std::string Binary(const BinaryExpr& e, const Span& span) {
    std::string l = Expr(e.lhs, span), r = Expr(e.rhs, span);
    switch (e.op) {
      case BinaryOp::FloorDiv: return "(" + l + " // " + r + ")";
      case BinaryOp::FloorMod: return "(" + l + " % " + r + ")";
      case BinaryOp::Min: return "min(" + l + ", " + r + ")";
      case BinaryOp::Max: return "max(" + l + ", " + r + ")";
      case BinaryOp::Xor: return "(bool(" + l + ") != bool(" + r + "))";
      case BinaryOp::FloatDiv: return "(" + l + " / " + r + ")";
      default: return "(" + l + " " + BinaryOpSymbol(e.op) + " " + r + ")";
    }
  }

  std::string Unary(const UnaryExpr& e, const Span& span) {
    std::string x = Expr(e.operand, span);
    switch (e.op) {
      case UnaryOp::Cast: return e.dtype().is_float() ? "float(" + x + ")" : "int(" + x + ")";
      case UnaryOp::Not: return "(not " + x + ")";
      case UnaryOp::Abs: return "abs(" + x + ")";
      case UnaryOp::Neg: return "(-" + x + ")";
      case UnaryOp::BitNot: return "(~" + x + ")";
    }
    Fail("", std::string("unary operator ") + UnaryOpName(e.op), span);
  }

  // Python names: the user's, unique per variable (SSA versions of one name get _1, _2, ...).
  std::string Name(const VarPtr& var) {
    auto it = names_.find(var.get());
    if (it != names_.end()) return it->second;
    return names_[var.get()] = Fresh(var->name_hint);
  }

  std::string Fresh(const std::string& hint) {
    std::string base;
    for (char c : hint) base += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
    if (base.empty() || std::isdigit(static_cast<unsigned char>(base[0]))) base = "v_" + base;
    if (IsPythonKeyword(base)) base += "_";
    std::string name = base;
    for (int n = 1; used_.count(name); ++n) name = base + "_" + std::to_string(n);
    used_.insert(name);
    return name;
  }

  void Line(const std::string& text, const Span& span = Span()) {
    out_ << std::string(4 * static_cast<size_t>(indent_), ' ') << text;
    if (span.known()) out_ << "  # " << span.ToString();
    out_ << "\n";
    ++lines_;
    wrote_statement_ = true;
  }

  [[noreturn]] void Fail(const std::string& op, const std::string& message, const Span& span) const {
    throw backend::MakeCodegenError(kBackendName, function_->name, op, message, span);
  }

  FunctionPtr function_;
  std::ostringstream out_;
  int indent_ = 0;
  size_t lines_ = 0;
  bool wrote_statement_ = false;
  std::vector<Targets> targets_;
  std::map<const Var*, std::string> names_;
  std::map<std::string, std::string> domain_names_;
  std::set<std::string> used_;
};

}  // namespace

std::string WriteHostFunction(const FunctionPtr& function) { return HostWriter(function).Write(); }

std::vector<backend::Artifact> PldHostBackend::Generate(const ProgramPtr& program, backend::BackendContext&) {
  std::vector<backend::Artifact> artifacts;
  for (const auto& function : program->functions) {
    if (!ops::IsHostOrchestrator(*function)) continue;
    artifacts.push_back({"orchestration/" + function->name + ".py", backend::ArtifactKind::kOrchestrationIR,
                         std::nullopt, function->name, WriteHostFunction(function)});
  }
  return artifacts;
}

}  // namespace pypto::pld_host
