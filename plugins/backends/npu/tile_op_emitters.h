// The translation of each op a kernel may call into PTO-ISA instructions.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace pypto::npu {

class KernelWriter;
struct OpSite;

using OpEmitter = std::function<void(KernelWriter&, const OpSite&)>;

// The emitter of `op`, or nullptr when the backend has none (a CodegenError).
const OpEmitter* FindOpEmitter(const std::string& op);

// The ops with a translation, sorted (for the README table and tests).
std::vector<std::string> TranslatedOps();

}  // namespace pypto::npu
