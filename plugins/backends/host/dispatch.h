// What one call of a program function from orchestration code submits: the
// kernels of the task, which arguments of the call fill the kernel's argument
// slots in which order, and which argument each result of the call is.
//
// A call names a kernel (InCore, AIC, AIV), an Spmd wrapper (its body calls
// one kernel or Group; the grid size is on the call) or a Group (an AIC and
// up to two AIV kernels run together on one cluster). Wrappers are followed
// down to the kernels, mapping each inner argument back to the outer call's.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "pypto/ir/ir.h"

namespace pypto::host {

// Throws the backend's CodegenError about the call being lowered.
using DispatchError = std::function<void(const std::string& message)>;

struct TaskDispatch {
  // One kernel: `single`. A Group: `aic` and `aiv` (either may be empty).
  const ir::Function* single = nullptr;
  const ir::Function* aic = nullptr;
  std::vector<const ir::Function*> aiv;
  bool mixed = false;
  // Indices into the outer call's args, in slot order: tensors first in
  // parameter order, then scalars in parameter order.
  std::vector<size_t> slots;
  // Per result of the call: the index of the outer argument it is, or -1.
  std::vector<int> result_args;
};

TaskDispatch ResolveDispatch(const ir::Program& program, const ir::Call& call, const DispatchError& error);

// The kernels of a program (InCore, AIC, AIV) numbered in program order: the
// func_id every orchestration module submits them with.
std::map<std::string, int> NumberKernels(const ir::Program& program);

}  // namespace pypto::host
