#include "pypto/pass/manager.h"

#include <algorithm>
#include <optional>

#include "pypto/pass/registry.h"
#include "pypto/support/error.h"
#include "pypto/support/strings.h"

namespace pypto::pass {
namespace {

std::string DescribeSpecs(const std::vector<PassOptionSpec>& specs) {
  if (specs.empty()) return "it takes no options";
  return "its options are " + JoinMapped(specs, ", ", [](const PassOptionSpec& s) {
           return s.name + " (" + PassOptionKindName(s.kind) + ")";
         });
}

std::string Quote(const ir::AttrValue& value) {
  if (auto* b = std::get_if<bool>(&value)) return *b ? "true" : "false";
  if (auto* i = std::get_if<int64_t>(&value)) return std::to_string(*i);
  if (auto* d = std::get_if<double>(&value)) return std::to_string(*d);
  if (auto* s = std::get_if<std::string>(&value)) return "'" + *s + "'";
  return ir::AttrValueKindName(value);
}

// The value converted to the spec's kind, or nullopt when it is of another kind.
std::optional<ir::AttrValue> Convert(const PassOptionSpec& spec, const ir::AttrValue& value) {
  switch (spec.kind) {
    case PassOptionSpec::Kind::kBool:
      if (std::holds_alternative<bool>(value)) return value;
      break;
    case PassOptionSpec::Kind::kInt:
      if (std::holds_alternative<int64_t>(value)) return value;
      break;
    case PassOptionSpec::Kind::kFloat:
      if (std::holds_alternative<double>(value)) return value;
      if (auto* i = std::get_if<int64_t>(&value)) return static_cast<double>(*i);
      break;
    case PassOptionSpec::Kind::kString:
      if (std::holds_alternative<std::string>(value)) return value;
      break;
  }
  return std::nullopt;
}

Span OptionSpan(const PipelineStep& step, const std::string& option) {
  auto it = step.option_spans.find(option);
  return it != step.option_spans.end() ? it->second : step.span;
}

// An error from creating or configuring a pass, placed at the pipeline entry when it has no location of its own.
Error AtStep(const Error& e, const PipelineStep& step) {
  if (e.span().known()) return e;
  return Error(e.kind(), e.message(), step.span);
}

}  // namespace

PassOptions ValidatePassOptions(const Pass& pass, const PipelineStep& step) {
  auto specs = pass.option_specs();
  PassOptions given;
  for (const auto& [key, value] : step.options) {
    auto spec = std::find_if(specs.begin(), specs.end(), [&](const PassOptionSpec& s) { return s.name == key; });
    if (spec == specs.end()) {
      throw Error(ErrorKind::kPipeline,
                  "pass '" + pass.name() + "' has no option '" + key + "'; " + DescribeSpecs(specs),
                  OptionSpan(step, key));
    }
    auto converted = Convert(*spec, value);
    if (!converted) {
      throw Error(ErrorKind::kPipeline,
                  "option '" + key + "' of pass '" + pass.name() + "' expects " + PassOptionKindName(spec->kind) +
                      ", got " + ir::AttrValueKindName(value) + " " + Quote(value) +
                      (spec->doc.empty() ? "" : " (" + spec->doc + ")"),
                  OptionSpan(step, key));
    }
    given.Set(key, *converted);
  }
  PassOptions options;
  for (const auto& spec : specs) {
    const ir::AttrValue* value = given.Find(spec.name);
    options.Set(spec.name, value ? *value : spec.default_value);
  }
  return options;
}

PassManager::PassManager(Pipeline pipeline) : pipeline_(std::move(pipeline)) {
  for (const auto& step : pipeline_.steps) {
    try {
      auto pass = PassRegistry::Global().Create(step.pass);
      pass->Configure(ValidatePassOptions(*pass, step));
      passes_.push_back(std::move(pass));
    } catch (const Error& e) {
      throw AtStep(e, step);
    }
  }
}

PassManager PassManager::FromPipeline(const std::string& name_or_path) {
  return PassManager(LoadPipeline(name_or_path));
}

ir::ProgramPtr PassManager::Run(const ir::ProgramPtr& program) {
  PassContext ctx;
  return Run(program, ctx);
}

ir::ProgramPtr PassManager::Run(const ir::ProgramPtr& program, PassContext& ctx) {
  std::vector<std::shared_ptr<PassInstrument>> instruments;
  if (ctx.verify().value_or(pipeline_.verify)) instruments.push_back(std::make_shared<VerificationInstrument>());
  if (ctx.dump_dir()) instruments.push_back(std::make_shared<DumpInstrument>(*ctx.dump_dir()));
  instruments.insert(instruments.end(), ctx.instruments().begin(), ctx.instruments().end());

  PropertySet input = ctx.properties();
  input.Merge(pipeline_.input_properties);
  ctx.set_properties(input);
  for (const auto& instrument : instruments) instrument->RunBeforePipeline(program, ctx);
  ir::ProgramPtr current = program;
  for (size_t i = 0; i < passes_.size(); ++i) {
    Pass& pass = *passes_[i];
    size_t position = i + 1;
    CheckRequired(i, ctx.properties());
    for (const auto& instrument : instruments) instrument->RunBeforePass(pass, position, current, ctx);
    try {
      current = pass.Run(current, ctx);
    } catch (const Error& e) {
      throw Error(e.kind(), "in pass '" + pass.name() + "' (step " + std::to_string(position) + " of pipeline '" +
                                pipeline_.name + "'): " + e.message(),
                  e.span());
    }
    if (!current) {
      throw Error(ErrorKind::kPlugin, "pass '" + pass.name() + "' (step " + std::to_string(position) +
                                          ") returned no program; a pass must return its input or a new program");
    }
    PropertySet properties = ctx.properties();
    properties.Subtract(pass.invalidated());
    properties.Merge(pass.produced());
    ctx.set_properties(properties);
    for (const auto& instrument : instruments) instrument->RunAfterPass(pass, position, current, ctx);
  }
  for (const auto& instrument : instruments) instrument->RunAfterPipeline(current, ctx);
  return current;
}

void PassManager::CheckRequired(size_t index, const PropertySet& available) const {
  const Pass& pass = *passes_[index];
  PropertySet missing = pass.required().MissingFrom(available);
  if (missing.empty()) return;
  std::vector<std::string> reasons;
  for (IRProperty property : missing.ToVector()) {
    std::string reason = std::string(IRPropertyName(property)) + " (" + IRPropertyDescription(property) + "): ";
    auto step = [](size_t i) { return "step " + std::to_string(i + 1); };
    // The last earlier pass that produced it, and a pass after that which invalidated it.
    std::optional<size_t> producer;
    for (size_t i = 0; i < index; ++i) {
      if (passes_[i]->produced().Has(property)) producer = i;
    }
    std::optional<size_t> invalidator;
    for (size_t i = producer ? *producer + 1 : 0; i < index; ++i) {
      if (passes_[i]->invalidated().Has(property) && !passes_[i]->produced().Has(property)) invalidator = i;
    }
    std::optional<size_t> later_producer;
    for (size_t i = index + 1; i < passes_.size() && !later_producer; ++i) {
      if (passes_[i]->produced().Has(property)) later_producer = i;
    }
    if (producer && invalidator) {
      reason += "'" + passes_[*producer]->name() + "' (" + step(*producer) + ") produces it but '" +
                passes_[*invalidator]->name() + "' (" + step(*invalidator) +
                ") invalidates it; run a pass that produces it again after " + step(*invalidator);
    } else if (invalidator) {
      reason += "'" + passes_[*invalidator]->name() + "' (" + step(*invalidator) +
                ") invalidates it; run a pass that produces it again after " + step(*invalidator);
    } else if (later_producer) {
      reason += "'" + passes_[*later_producer]->name() + "' produces it but runs later (" + step(*later_producer) +
                "); move it before '" + pass.name() + "'";
    } else {
      std::vector<std::string> producers;
      for (const auto& info : PassRegistry::Global().ListLoaded()) {
        if (PassRegistry::Global().Create(info.name)->produced().Has(property)) producers.push_back(info.name);
      }
      reason += "no earlier pass of the pipeline produces it; " +
                (producers.empty() ? std::string("no loaded pass produces it either")
                                   : "add one that does (" + Join(producers, ", ") + ")") +
                " before it, or declare it for the input (the pipeline's input_properties or "
                "PassContext::set_properties)";
    }
    reasons.push_back(reason);
  }
  throw Error(ErrorKind::kPipeline,
              "pass '" + pass.name() + "' (step " + std::to_string(index + 1) + " of pipeline '" + pipeline_.name +
                  "') requires properties that do not hold: " + Join(reasons, "; "),
              pipeline_.steps[index].span);
}

}  // namespace pypto::pass
