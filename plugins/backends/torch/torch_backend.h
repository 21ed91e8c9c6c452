// The "torch" backend: any program, at any point of the pipeline, -> one
// standalone PyTorch script debug/<program>_torch.py that computes what the
// program computes (for accuracy debugging against the simulator).
#pragma once

#include <string>
#include <vector>

#include "pypto/backend/backend.h"

namespace pypto::torch_codegen {

class TorchBackend : public backend::Backend {
 public:
  static constexpr const char* kDescription = "any program -> one runnable PyTorch script (debug/<program>_torch.py)";

  std::string name() const override;
  std::string description() const override { return kDescription; }
  // Every function type: the script models the whole program.
  std::vector<ir::FunctionType> function_types() const override;
  std::vector<backend::Artifact> Generate(const ir::ProgramPtr& program, backend::BackendContext& ctx) override;
};

}  // namespace pypto::torch_codegen
