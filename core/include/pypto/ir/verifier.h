// The IR verifier: checks the invariants every pass may rely on and reports
// each violation with the function, the node and its source span.
//
// Rules (`Diagnostic::rule`) and the cases each reports (`Diagnostic::code`):
//   SSAVerify           MULTIPLE_ASSIGNMENT, SCOPE_VIOLATION, MISSING_YIELD, YIELD_COUNT_MISMATCH,
//                       YIELD_TYPE_MISMATCH, ITER_ARG_TYPE_MISMATCH, ITER_ARGS_RETURN_VARS_MISMATCH,
//                       MISPLACED_YIELD
//   UseAfterDef         USE_BEFORE_DEF, UNDEFINED_VAR
//   BreakContinueCheck  BREAK_OUTSIDE_LOOP, BREAK_IN_NON_SEQUENTIAL_LOOP, BREAK_ACROSS_SCOPE
//   ReturnPosition      MISPLACED_RETURN, MISSING_RETURN
//   TypeCheck           UNKNOWN_OP, DEDUCTION_FAILED, CALL_TYPE_MISMATCH, UNKNOWN_FUNCTION,
//                       ARG_COUNT_MISMATCH, ARG_TYPE_MISMATCH, RETURN_COUNT_MISMATCH,
//                       RETURN_TYPE_MISMATCH, CONDITION_NOT_BOOL, LOOP_BOUND_NOT_INT,
//                       ASSIGN_TYPE_MISMATCH
//   OpPlacement         INCORE_ONLY_OP, ORCHESTRATION_ONLY_OP
//
// Rules for properties passes establish, each off unless its option is on
// (the verification instrument turns one on while its property holds); the
// last four check InCore, AIC and AIV functions only:
//   NoNestedCalls        NESTED_CALL: a call argument is, or contains, a call
//   IncoreTileOps        TENSOR_OP_IN_KERNEL: a tensor op with a tile form is left
//   TileMemoryInferred   MISSING_MEMORY_SPACE: a tile without a memory space
//   HasMemRefs           MISSING_MEMREF: an on-chip tile without a MemRef
//   AllocatedMemoryAddr  ADDRESS_OUT_OF_RANGE: a MemRef not inside its space
//
// Scoping: parameters, and dynamic dimensions (Vars) in parameter types, are
// visible in the whole body. A loop's loop var and iter_args are visible only
// in its body (and a while loop's condition); its return_vars, and an if's,
// only after the statement. Variables assigned in a loop body or an if branch
// stay there. Scope statements (`with pl.at(...)`) do not hide definitions.
// MemRefs name storage, not values, and are not checked as uses.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "pypto/ir/ir.h"

namespace pypto::ir {

// One finding about a program: a verifier error, a warning a pass reports, or
// a performance hint (PerfHints pass; see docs/diagnostics.md). Passes report
// them through PassContext::Report.
struct Diagnostic {
  // kError fails verification; kWarning and kPerfHint never stop a compile.
  enum class Severity { kError, kWarning, kPerfHint };
  Severity severity = Severity::kError;
  std::string rule;      // "SSAVerify", "TypeCheck", ...; for a hint its check, "LoopInvariantLoad"
  std::string code;      // the case within the rule: "MULTIPLE_ASSIGNMENT", ...; for a hint "PH002"
  std::string function;  // enclosing function name
  std::string node;      // node kind, e.g. "AssignStmt"
  std::string message;   // what is wrong (and, for errors, how to fix it)
  std::string fix;       // how to act on a warning or hint; empty when the message says it
  Span span;

  // "file.py:3:5: error: [SSAVerify/MULTIPLE_ASSIGNMENT] in function 'f': ... (AssignStmt)";
  // a non-empty fix follows the message as " (fix: ...)".
  std::string ToString() const;
};

// "error", "warning" or "perf_hint".
const char* SeverityName(Diagnostic::Severity severity);

struct VerifyOptions {
  // SSAVerify and UseAfterDef: single assignment, scoping, yields matching
  // iter_args/return_vars. Off for IR that is not in SSA form yet.
  bool ssa = true;
  // TypeCheck: re-run type deduction of every op call and compare with the
  // recorded type; check calls, returns, conditions, loop bounds, assignments.
  bool type_check = true;
  // OpPlacement: InCore-only and orchestration-only ops where they belong.
  bool placement = true;
  // The property rules listed above.
  bool no_nested_calls = false;
  bool incore_tile_ops = false;
  bool tile_memory_inferred = false;
  bool has_memrefs = false;
  bool allocated_memory_addr = false;
  // Usable bytes per on-chip space, for AllocatedMemoryAddr; a space missing
  // here is only checked for a non-negative address.
  std::map<MemorySpace, int64_t> capacities;
};

// BreakContinueCheck and ReturnPosition always run. Calls of other functions
// are checked against their callees only by Verify, which sees the program.
// Inline functions are exempt from OpPlacement: their code runs where it is
// inlined.
std::vector<Diagnostic> Verify(const ProgramPtr& program, const VerifyOptions& options = {});
std::vector<Diagnostic> VerifyFunction(const FunctionPtr& function, const VerifyOptions& options = {});
// Throws a pypto::Error of kind kVerification listing every error (warnings
// are not fatal).
void VerifyOrThrow(const ProgramPtr& program, const VerifyOptions& options = {});

}  // namespace pypto::ir
