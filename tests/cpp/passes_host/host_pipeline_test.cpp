// The host pipeline: the three pass plugins of a @pl.jit.host orchestrator, in order, and the pld_host
// backend after them. Their printed-IR cases are tests/passes/<Pass>/ (run by tests/python/test_pass_cases.py).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pypto/backend/registry.h"
#include "pypto/pass/manager.h"
#include "pypto/pass/registry.h"

namespace {

TEST(HostPipeline, RunsTheHostPassesInOrder) {
  EXPECT_EQ(pypto::pass::PassManager::FromPipeline("host").pass_names(),
            (std::vector<std::string>{"SynthesizeAllReduceSignals", "MaterializeCommDomainScopes",
                                      "LowerHostTensorCollectives"}));
}

TEST(HostPipeline, EachPassIsFoundThroughItsPlugin) {
  for (const char* name : {"SynthesizeAllReduceSignals", "MaterializeCommDomainScopes", "LowerHostTensorCollectives"}) {
    EXPECT_EQ(pypto::pass::PassRegistry::Global().Create(name)->name(), name);
  }
}

TEST(HostPipeline, ThePldHostBackendIsFoundThroughItsPlugin) {
  EXPECT_EQ(pypto::backend::BackendRegistry::Global().Create("pld_host")->name(), "pld_host");
}

}  // namespace
