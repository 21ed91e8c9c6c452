// The state one pipeline run shares with its passes and instruments: whether
// to verify between passes, where to dump IR, the instruments, the
// properties that hold for the program, and the diagnostics passes report.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include "pypto/backend/platform.h"
#include "pypto/ir/verifier.h"
#include "pypto/pass/instruments.h"
#include "pypto/pass/pass.h"

namespace pypto::pass {

class PassContext {
 public:
  PassContext() = default;

  // The target platform; passes read capacities, alignment and core counts
  // from it. Unset means Platform::kDefaultName.
  const backend::Platform& platform() const {
    return platform_ ? *platform_ : backend::Platform::Get(backend::Platform::kDefaultName);
  }
  void set_platform(const backend::Platform& platform) { platform_ = &platform; }

  // Verification between passes; unset leaves the choice to the pipeline file (`verify:`).
  const std::optional<bool>& verify() const { return verify_; }
  void set_verify(bool on) { verify_ = on; }

  // When set, the printed IR is dumped to <dir>/passes_dump/ (see DumpInstrument).
  const std::optional<std::filesystem::path>& dump_dir() const { return dump_dir_; }
  void set_dump_dir(std::filesystem::path dir) { dump_dir_ = std::move(dir); }

  // Run after the built-in verification and dump instruments, in the order added.
  void AddInstrument(std::shared_ptr<PassInstrument> instrument) { instruments_.push_back(std::move(instrument)); }
  const std::vector<std::shared_ptr<PassInstrument>>& instruments() const { return instruments_; }

  // The properties that hold for the program being compiled: set by the
  // caller for the input, then kept up to date by the PassManager.
  const PropertySet& properties() const { return properties_; }
  void set_properties(PropertySet properties) { properties_ = properties; }

  // Warnings and hints from passes, kept in the order reported.
  void Report(ir::Diagnostic diagnostic) { diagnostics_.push_back(std::move(diagnostic)); }
  const std::vector<ir::Diagnostic>& diagnostics() const { return diagnostics_; }

 private:
  const backend::Platform* platform_ = nullptr;
  std::optional<bool> verify_;
  std::optional<std::filesystem::path> dump_dir_;
  std::vector<std::shared_ptr<PassInstrument>> instruments_;
  PropertySet properties_;
  std::vector<ir::Diagnostic> diagnostics_;
};

}  // namespace pypto::pass
