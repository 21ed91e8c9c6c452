#include "pypto/pass/instruments.h"

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <system_error>

#include "pypto/ir/printer.h"
#include "pypto/pass/context.h"
#include "pypto/support/error.h"

namespace pypto::pass {
namespace fs = std::filesystem;

DumpInstrument::DumpInstrument(fs::path dir) : dump_dir_(std::move(dir) / "passes_dump") {}

void DumpInstrument::RunBeforePipeline(const ir::ProgramPtr& program, PassContext& /*ctx*/) {
  std::error_code ec;
  fs::create_directories(dump_dir_, ec);
  if (ec) {
    throw Error(ErrorKind::kIO, "cannot create the IR dump folder '" + dump_dir_.string() + "': " + ec.message());
  }
  // Only files this instrument names are removed; anything else in the folder is left alone.
  static const std::regex kDumpName(R"(\d\d+_\w+\.py)");
  for (const auto& entry : fs::directory_iterator(dump_dir_, ec)) {
    if (entry.is_regular_file() && std::regex_match(entry.path().filename().string(), kDumpName)) {
      fs::remove(entry.path(), ec);
    }
  }
  files_.clear();
  Write("00_input.py", program);
}

void DumpInstrument::RunAfterPass(const Pass& pass, size_t position, const ir::ProgramPtr& program,
                                  PassContext& /*ctx*/) {
  char prefix[32];
  std::snprintf(prefix, sizeof(prefix), "%02zu_", position);
  Write(prefix + pass.name() + ".py", program);
}

void DumpInstrument::Write(const std::string& file_name, const ir::ProgramPtr& program) {
  fs::path file = dump_dir_ / file_name;
  std::ofstream out(file);
  out << ir::PrintProgram(program);
  if (!out) throw Error(ErrorKind::kIO, "cannot write the IR dump '" + file.string() + "'");
  files_.push_back(file);
}

void TimingInstrument::RunBeforePipeline(const ir::ProgramPtr& /*program*/, PassContext& /*ctx*/) {
  entries_.clear();
}

void TimingInstrument::RunBeforePass(const Pass& /*pass*/, size_t /*position*/, const ir::ProgramPtr& /*program*/,
                                     PassContext& /*ctx*/) {
  started_ = std::chrono::steady_clock::now();
}

void TimingInstrument::RunAfterPass(const Pass& pass, size_t position, const ir::ProgramPtr& /*program*/,
                                    PassContext& /*ctx*/) {
  std::chrono::duration<double, std::milli> elapsed = std::chrono::steady_clock::now() - started_;
  entries_.push_back({position, pass.name(), elapsed.count()});
}

double TimingInstrument::total_milliseconds() const {
  double total = 0;
  for (const auto& e : entries_) total += e.milliseconds;
  return total;
}

std::string TimingInstrument::Report() const {
  size_t width = 4;
  for (const auto& e : entries_) width = std::max(width, e.pass.size());
  double total = total_milliseconds();
  char line[512];
  std::snprintf(line, sizeof(line), "Pass timing: %zu passes, %.3f ms\n", entries_.size(), total);
  std::string report = line;
  for (const auto& e : entries_) {
    double share = total > 0 ? 100.0 * e.milliseconds / total : 0.0;
    std::snprintf(line, sizeof(line), "  %2zu  %-*s  %10.3f ms  %5.1f%%\n", e.position, static_cast<int>(width),
                  e.pass.c_str(), e.milliseconds, share);
    report += line;
  }
  return report;
}

std::string TimingInstrument::ToJson() const {
  nlohmann::json passes = nlohmann::json::array();
  for (const auto& e : entries_) passes.push_back({{"position", e.position}, {"pass", e.pass}, {"ms", e.milliseconds}});
  return nlohmann::json{{"total_ms", total_milliseconds()}, {"passes", passes}}.dump(2);
}

void DiagnosticsInstrument::RunBeforePipeline(const ir::ProgramPtr& /*program*/, PassContext& ctx) {
  diagnostics_.clear();
  seen_ = ctx.diagnostics().size();
}

void DiagnosticsInstrument::RunAfterPass(const Pass& /*pass*/, size_t /*position*/, const ir::ProgramPtr& /*program*/,
                                         PassContext& ctx) {
  const auto& reported = ctx.diagnostics();
  for (size_t i = seen_; i < reported.size(); ++i) diagnostics_.push_back(reported[i]);
  seen_ = reported.size();
}

std::vector<ir::Diagnostic> DiagnosticsInstrument::OfSeverity(ir::Diagnostic::Severity severity) const {
  std::vector<ir::Diagnostic> selected;
  for (const auto& d : diagnostics_) {
    if (d.severity == severity) selected.push_back(d);
  }
  return selected;
}

ir::VerifyOptions VerificationInstrument::OptionsFor(const PassContext& ctx) const {
  ir::VerifyOptions options = options_;
  const PropertySet& holds = ctx.properties();
  options.ssa = options_.ssa && holds.Has(IRProperty::SSAForm);
  // Each property rule runs while its property holds, so a pass that breaks
  // one without saying so is caught right after it.
  options.no_nested_calls = holds.Has(IRProperty::NoNestedCalls);
  options.incore_tile_ops = holds.Has(IRProperty::IncoreTileOps);
  options.tile_memory_inferred = holds.Has(IRProperty::TileMemoryInferred);
  options.has_memrefs = holds.Has(IRProperty::HasMemRefs);
  options.allocated_memory_addr = holds.Has(IRProperty::AllocatedMemoryAddr);
  if (options.allocated_memory_addr) {
    for (const auto& [space, info] : ctx.platform().memory) options.capacities[space] = info.capacity_bytes;
  }
  return options;
}

void VerificationInstrument::RunBeforePipeline(const ir::ProgramPtr& program, PassContext& ctx) {
  try {
    ir::VerifyOrThrow(program, OptionsFor(ctx));
  } catch (const Error& e) {
    throw Error(ErrorKind::kVerification, "the input program is invalid before the first pass: " + e.message(),
                e.span());
  }
}

void VerificationInstrument::RunAfterPass(const Pass& pass, size_t position, const ir::ProgramPtr& program,
                                          PassContext& ctx) {
  try {
    ir::VerifyOrThrow(program, OptionsFor(ctx));
  } catch (const Error& e) {
    throw Error(ErrorKind::kVerification, "pass '" + pass.name() + "' (step " + std::to_string(position) +
                                              ") produced invalid IR: " + e.message(),
                e.span());
  }
}

}  // namespace pypto::pass
