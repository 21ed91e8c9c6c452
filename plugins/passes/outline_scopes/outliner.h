// The machinery shared by the scope-outlining passes: turn one region of a
// function into a new function whose parameters are the region's live-ins and
// whose results are the region's live-outs, and replace the region by a call.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "pypto/ir/ir.h"

namespace pypto::passes::outline {

// What to build for one scope.
struct CalleeSpec {
  ir::FunctionType func_type = ir::FunctionType::InCore;
  std::string name;
  std::optional<ir::Level> level;
  std::optional<ir::Role> role;
  ir::Attrs call_attrs;      // copied onto the call that replaces the scope
  ir::Attrs function_attrs;  // copied onto the new function
  ir::StmtPtr body;          // the region to outline (a scope's body, or the body of an unwrapped inner scope)
  // A scope that is a named or ordered task becomes a submit instead of a
  // plain call: it waits for `deps`, carries `submit_attrs`, and defines
  // `task_id` (may be null) from the submit's value.
  bool submit = false;
  std::vector<ir::ExprPtr> deps;
  ir::Attrs submit_attrs;
  ir::VarPtr task_id;
};

// Makes `spec` a submit when `scope` asks for one (`as tid`, `deps=`,
// `allow_early_resolve=True`): moves deps and allow_early_resolve out of the
// call attrs and puts `launch` (core_num, sync_start) first in them, where
// pl.spmd_submit prints them.
void MakeSubmitIfTask(const ir::ScopeStmt& scope, const ir::Attrs& launch, CalleeSpec& spec);

// Decides, per scope statement, whether it is outlined and how. `index` is the
// number of scopes of the same kind already outlined from the same function.
// Returns nullopt to leave the scope in place.
using ScopeDecider =
    std::function<std::optional<CalleeSpec>(const ir::ScopeStmt& scope, const ir::Function& parent, int index)>;

struct OutlineResult {
  ir::FunctionPtr parent;                 // rewritten (unchanged pointer if nothing was outlined)
  std::vector<ir::FunctionPtr> outlined;  // new functions, in source order
};

// Outlines the scopes of `parent` that `decide` accepts. Scopes nested in an
// accepted scope move with it.
// `callees` gives the functions the scopes may call (how a call uses each
// argument follows from the callee's parameter directions).
using CalleeLookup = std::function<ir::FunctionPtr(const std::string& name)>;
OutlineResult OutlineScopes(const ir::FunctionPtr& parent, const ScopeDecider& decide, const CalleeLookup& callees);

// Runs OutlineScopes over every function of `program` for which `eligible`
// holds; an outlined function is offered again when `revisit_outlined` is set
// (scopes nested in an outlined one). A parent that outlined something gets
// func_type `parent_becomes` if it was Opaque (nullopt: unchanged). Callee
// names must be new: a clash with an existing function is an error.
ir::ProgramPtr OutlineProgram(const ir::ProgramPtr& program, const std::string& pass_name,
                              const std::function<bool(const ir::Function&)>& eligible, const ScopeDecider& decide,
                              std::optional<ir::FunctionType> parent_becomes, bool revisit_outlined);

// `<parent>_<infix>_<index>`, or the scope's name hint when it has one.
std::string CalleeName(const ir::ScopeStmt& scope, const ir::Function& parent, const std::string& infix, int index);

}  // namespace pypto::passes::outline
