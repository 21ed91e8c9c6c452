// Pass pipelines: an ordered list of pass names with per-pass options, read
// from YAML files such as pipelines/default.yaml:
//
//   name: default
//   description: what the pipeline is for
//   verify: false              # verify the IR after every pass
//   input_properties: [SSAForm]  # what the pipeline assumes of its input
//   passes:
//     - UnrollLoops            # a pass with its default options
//     - name: Simplify         # a pass with options
//       options: {max_iterations: 4}
//
// Reading a file checks its structure only; pass names and options are
// checked against the registered passes when a PassManager is built, and
// those errors, too, point at the file and line of the entry.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "pypto/ir/attrs.h"
#include "pypto/pass/pass.h"
#include "pypto/support/span.h"

namespace pypto::pass {

struct PipelineStep {
  std::string pass;
  // As written: YAML scalars become bool, int64_t, double or std::string
  // (quoted scalars are always strings).
  ir::Attrs options;
  Span span;                                  // the entry in its file; unknown when built in code
  std::map<std::string, Span> option_spans;  // each option's value
};

struct Pipeline {
  std::string name;
  std::string description;
  bool verify = false;
  // Properties the input program is assumed to have; with verification on,
  // the input is verified against them before the first pass.
  PropertySet input_properties;
  std::vector<PipelineStep> steps;
  std::filesystem::path source;  // the file it was read from; empty when built in code

  std::vector<std::string> pass_names() const;
};

// Reads a pipeline file; every error is a PipelineError at the file and line.
Pipeline ParsePipelineFile(const std::filesystem::path& path);
// Reads pipeline YAML from memory; `source_name` stands for the file in errors.
Pipeline ParsePipelineString(const std::string& yaml, const std::string& source_name);

// A path (containing '/' or ending in .yaml/.yml) is read as is; a bare name
// is DataDir()/pipelines/<name>.yaml.
Pipeline LoadPipeline(const std::string& name_or_path);
// The names of the pipelines in DataDir()/pipelines, sorted.
std::vector<std::string> ListPipelines();

}  // namespace pypto::pass
