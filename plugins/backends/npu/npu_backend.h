// The "npu" backend: kernel functions (InCore, AIC, AIV) -> PTO-ISA C++
// sources under kernels/aic|aiv/<f>.cpp.
#pragma once

#include <string>
#include <vector>

#include "pypto/backend/backend.h"

namespace pypto::npu {

class NpuBackend : public backend::Backend {
 public:
  static constexpr const char* kDescription = "InCore, AIC and AIV functions -> PTO-ISA C++ kernels";

  std::string name() const override;
  std::string description() const override { return kDescription; }
  std::vector<ir::FunctionType> function_types() const override;
  std::vector<backend::Artifact> Generate(const ir::ProgramPtr& program, backend::BackendContext& ctx) override;
};

}  // namespace pypto::npu
