// How IR names, dtypes and literals are spelled in a generated PyTorch script.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include "pypto/ir/ir.h"

namespace pypto::torch_codegen {

// Python identifiers for IR names: the user's names made valid (letters,
// digits, '_'), never a Python keyword or a global of the prelude (which
// the script's functions share), and unique within one scope (a clash gets
// _1, _2, ...).
class NameTable {
 public:
  explicit NameTable(const std::set<std::string>& reserved);
  std::string Fresh(const std::string& hint);
  // Marks `name` taken (a function name seen by every function body).
  void Reserve(const std::string& name) { used_.insert(name); }

 private:
  std::set<std::string> used_;
};

// The globals the prelude defines (functions, classes, constants, imports).
std::set<std::string> PreludeGlobals(const std::string& prelude);

// "torch.float16"; nullopt for dtypes torch has no tensor dtype for (4-bit, FP8E8M0, HF4/8, TASK_ID).
std::optional<std::string> TorchDType(ir::DataType dtype);

// Python literals: 3, 1.5, math.inf, True, 'text'.
std::string FloatLiteral(double value);
std::string StringLiteral(const std::string& text);

// The prelude function modelling op `name`: "tile.add" -> "tile_add".
std::string OpFunctionName(const std::string& op_name);

}  // namespace pypto::torch_codegen
