// The prelude of every generated script (prelude.py, embedded at build time):
// the semantics of the IR's ops on torch tensors.
#pragma once

namespace pypto::torch_codegen {

const char* PreludeText();

}  // namespace pypto::torch_codegen
