#include "pypto/ir/verifier.h"

#include "pypto/support/error.h"
#include "verifier_internal.h"

namespace pypto::ir {

const char* SeverityName(Diagnostic::Severity severity) {
  switch (severity) {
    case Diagnostic::Severity::kError:
      return "error";
    case Diagnostic::Severity::kWarning:
      return "warning";
    case Diagnostic::Severity::kPerfHint:
      return "perf_hint";
  }
  return "error";
}

std::string Diagnostic::ToString() const {
  std::string text = span.ToString() + ": " + SeverityName(severity) + ": [" + rule + "/" + code +
                     "] in function '" + function + "': " + message;
  if (!fix.empty()) text += " (fix: " + fix + ")";
  return text + " (" + node + ")";
}

namespace verifier {

void Reporter::Error(const char* rule, const char* code, const Node& node, const Span& span, std::string message) {
  Diagnostic d;
  d.rule = rule;
  d.code = code;
  d.function = function_.name;
  d.node = node.type_name();
  d.message = std::move(message);
  d.span = span;
  out_.push_back(std::move(d));
}

void StmtTrackingVisitor::VisitStmt(const StmtPtr& stmt) {
  stmts_.push_back(stmt.get());
  IRVisitor::VisitStmt(stmt);
  stmts_.pop_back();
}

Span StmtTrackingVisitor::SpanOf(const Node& node) const {
  if (node.span.known() || current_stmt() == nullptr) return node.span;
  return current_stmt()->span;
}

const Stmt* TrailingStmt(const StmtPtr& body) {
  const Stmt* stmt = body.get();
  while (const auto* seq = As<SeqStmts>(stmt)) {
    if (seq->stmts.empty() || !seq->stmts.back()) break;
    stmt = seq->stmts.back().get();
  }
  return stmt;
}

namespace {

void VerifyInto(const FunctionPtr& function, const Program* program, const VerifyOptions& options,
                std::vector<Diagnostic>& out) {
  Reporter reporter(*function, out);
  if (options.ssa) CheckSSA(function, reporter);
  CheckControlFlow(function, reporter);
  if (options.type_check) CheckTypes(function, program, reporter);
  if (options.placement) CheckPlacement(function, reporter);
  CheckProperties(function, options, reporter);
}

}  // namespace
}  // namespace verifier

std::vector<Diagnostic> Verify(const ProgramPtr& program, const VerifyOptions& options) {
  std::vector<Diagnostic> out;
  for (const auto& function : program->functions) verifier::VerifyInto(function, program.get(), options, out);
  return out;
}

std::vector<Diagnostic> VerifyFunction(const FunctionPtr& function, const VerifyOptions& options) {
  std::vector<Diagnostic> out;
  verifier::VerifyInto(function, nullptr, options, out);
  return out;
}

void VerifyOrThrow(const ProgramPtr& program, const VerifyOptions& options) {
  std::string listing;
  size_t errors = 0;
  for (const auto& d : Verify(program, options)) {
    if (d.severity != Diagnostic::Severity::kError) continue;
    ++errors;
    listing += "\n  " + d.ToString();
  }
  if (errors == 0) return;
  throw Error(ErrorKind::kVerification, "IR verification of program '" + program->name + "' failed with " +
                                            std::to_string(errors) + " error(s):" + listing);
}

}  // namespace pypto::ir
