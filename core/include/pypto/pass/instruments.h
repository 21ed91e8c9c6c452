// Pass instruments: observers the PassManager calls around the pipeline and
// around every pass. The core ships four: an IR dump after every pass, a
// per-pass timer, a collector of the diagnostics passes report, and IR
// verification between passes.
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "pypto/ir/function.h"
#include "pypto/ir/verifier.h"

namespace pypto::pass {

class Pass;
class PassContext;

class PassInstrument {
 public:
  virtual ~PassInstrument() = default;

  virtual std::string name() const = 0;
  // Once per pipeline run, with the input program.
  virtual void RunBeforePipeline(const ir::ProgramPtr& /*program*/, PassContext& /*ctx*/) {}
  // `position` is the pass's 1-based place in the pipeline.
  virtual void RunBeforePass(const Pass& /*pass*/, size_t /*position*/, const ir::ProgramPtr& /*program*/,
                             PassContext& /*ctx*/) {}
  // `program` is the pass's result.
  virtual void RunAfterPass(const Pass& /*pass*/, size_t /*position*/, const ir::ProgramPtr& /*program*/,
                            PassContext& /*ctx*/) {}
  virtual void RunAfterPipeline(const ir::ProgramPtr& /*program*/, PassContext& /*ctx*/) {}
};

// Writes the printed program to <dir>/passes_dump/: 00_input.py, then
// NN_<PassName>.py after the NN-th pass. Dumps of an earlier run in that
// folder are removed first so the folder shows one run.
class DumpInstrument : public PassInstrument {
 public:
  explicit DumpInstrument(std::filesystem::path dir);

  std::string name() const override { return "Dump"; }
  void RunBeforePipeline(const ir::ProgramPtr& program, PassContext& ctx) override;
  void RunAfterPass(const Pass& pass, size_t position, const ir::ProgramPtr& program, PassContext& ctx) override;

  // <dir>/passes_dump
  const std::filesystem::path& dump_dir() const { return dump_dir_; }
  // The files written by the last run, in order.
  const std::vector<std::filesystem::path>& files() const { return files_; }

 private:
  void Write(const std::string& file_name, const ir::ProgramPtr& program);

  std::filesystem::path dump_dir_;
  std::vector<std::filesystem::path> files_;
};

// Measures the wall time of every pass of the last run.
class TimingInstrument : public PassInstrument {
 public:
  struct Entry {
    size_t position;
    std::string pass;
    double milliseconds;
  };

  std::string name() const override { return "Timing"; }
  void RunBeforePipeline(const ir::ProgramPtr& program, PassContext& ctx) override;
  void RunBeforePass(const Pass& pass, size_t position, const ir::ProgramPtr& program, PassContext& ctx) override;
  void RunAfterPass(const Pass& pass, size_t position, const ir::ProgramPtr& program, PassContext& ctx) override;

  const std::vector<Entry>& entries() const { return entries_; }
  double total_milliseconds() const;
  // One line per pass: position, name, milliseconds and share of the total.
  std::string Report() const;
  // {"total_ms": ..., "passes": [{"position": 1, "pass": "...", "ms": ...}, ...]}
  std::string ToJson() const;

 private:
  std::vector<Entry> entries_;
  std::chrono::steady_clock::time_point started_;
};

// Collects the diagnostics (warnings, performance hints) that passes report
// through PassContext::Report during the last run, in the order reported.
// The PassContext keeps them too; this instrument hands them to a caller
// that does not own the context (the Python PassManager.run).
class DiagnosticsInstrument : public PassInstrument {
 public:
  std::string name() const override { return "Diagnostics"; }
  void RunBeforePipeline(const ir::ProgramPtr& program, PassContext& ctx) override;
  void RunAfterPass(const Pass& pass, size_t position, const ir::ProgramPtr& program, PassContext& ctx) override;

  const std::vector<ir::Diagnostic>& diagnostics() const { return diagnostics_; }
  // Only those of `severity`.
  std::vector<ir::Diagnostic> OfSeverity(ir::Diagnostic::Severity severity) const;

 private:
  std::vector<ir::Diagnostic> diagnostics_;
  size_t seen_ = 0;  // how many of the context's diagnostics were there already
};

// Verifies the input program and the result of every pass with
// ir::VerifyOrThrow; a failure is a VerificationError naming the pass that
// broke the IR. SSA rules are checked only while the SSAForm property holds.
class VerificationInstrument : public PassInstrument {
 public:
  explicit VerificationInstrument(ir::VerifyOptions options = {}) : options_(options) {}

  std::string name() const override { return "Verification"; }
  void RunBeforePipeline(const ir::ProgramPtr& program, PassContext& ctx) override;
  void RunAfterPass(const Pass& pass, size_t position, const ir::ProgramPtr& program, PassContext& ctx) override;

 private:
  ir::VerifyOptions OptionsFor(const PassContext& ctx) const;

  ir::VerifyOptions options_;
};

}  // namespace pypto::pass
