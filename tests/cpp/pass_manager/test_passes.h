// Passes registered straight into the PassRegistry (as plugin
// "test_pass_manager") so the pass manager can be tested without plugins.
#pragma once

#include <functional>
#include <string>

#include "pypto/ir/function.h"
#include "pypto/pass/context.h"
#include "pypto/pass/pass.h"

namespace pypto::testing {

// Registers the test passes once:
//   TestAppend        appends `suffix` `count` times to the program name; options
//                     suffix (str "_a"), count (int 1), scale (float 1.0), loud (bool false)
//   TestProduceSSA    produces SSAForm          TestNeedSSA     requires SSAForm
//   TestBreakSSA      invalidates SSAForm       TestSleep       sleeps 20 ms
//   TestBreakIR       adds a function with a `break` outside any loop
//   TestFail          throws a ValueError       TestNull        returns no program
//   TestWarn          reports a warning diagnostic
void RegisterTestPasses();

// The options TestAppend was configured with most recently.
const pass::PassOptions& LastTestAppendOptions();

// def main(x: INDEX) -> INDEX: return x
ir::ProgramPtr ValidProgram(const std::string& name = "prog");

}  // namespace pypto::testing
