#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "plugin/error_matchers.h"
#include "pypto/pass/pipeline.h"
#include "pypto/plugin/host.h"

namespace fs = std::filesystem;
using pypto::Error;
using pypto::ErrorKind;
using pypto::pass::ParsePipelineString;
using pypto::pass::Pipeline;
using pypto::testing::Contains;
using pypto::testing::ErrorFrom;

namespace {

Error ParseError(const std::string& yaml) {
  Error e = ErrorFrom([&] { ParsePipelineString(yaml, "p.yaml"); });
  EXPECT_EQ(e.kind(), ErrorKind::kPipeline) << e.what();
  EXPECT_EQ(e.span().filename, "p.yaml");
  return e;
}

TEST(PipelineParse, ReadsNamesOptionsAndLocations) {
  Pipeline p = ParsePipelineString(
      "name: mine\n"
      "description: for testing\n"
      "verify: true\n"
      "input_properties: [SSAForm, NoUnrollLoops]\n"
      "passes:\n"
      "  - First\n"
      "  - name: Second\n"
      "    options:\n"
      "      text: hello\n"
      "      quoted: \"3\"\n"
      "      count: 3\n"
      "      ratio: 0.5\n"
      "      flag: false\n",
      "mine.yaml");
  EXPECT_EQ(p.name, "mine");
  EXPECT_EQ(p.description, "for testing");
  EXPECT_TRUE(p.verify);
  EXPECT_EQ(p.pass_names(), (std::vector<std::string>{"First", "Second"}));
  EXPECT_TRUE(p.steps[0].options.empty());
  EXPECT_EQ(p.input_properties,
            (pypto::pass::PropertySet{pypto::pass::IRProperty::SSAForm, pypto::pass::IRProperty::NoUnrollLoops}));
  EXPECT_EQ(p.steps[0].span, pypto::Span("mine.yaml", 6, 5));
  EXPECT_EQ(p.steps[1].span, pypto::Span("mine.yaml", 7, 5));
  const auto& options = p.steps[1].options;
  ASSERT_EQ(options.size(), 5u);
  EXPECT_EQ(options.Get<std::string>("text"), "hello");
  EXPECT_EQ(options.Get<std::string>("quoted"), "3");
  EXPECT_EQ(options.Get<int64_t>("count"), 3);
  EXPECT_EQ(options.Get<double>("ratio"), 0.5);
  EXPECT_EQ(options.Get<bool>("flag"), false);
  EXPECT_EQ(p.steps[1].option_spans.at("count"), pypto::Span("mine.yaml", 11, 14));
}

TEST(PipelineParse, NameDefaultsToTheFileStem) {
  Pipeline p = ParsePipelineString("passes: []\n", "dir/fast.yaml");
  EXPECT_EQ(p.name, "fast");
  EXPECT_FALSE(p.verify);
  EXPECT_TRUE(p.input_properties.empty());
  EXPECT_TRUE(p.steps.empty());
}

TEST(PipelineParse, MalformedYaml) {
  Error e = ParseError("name: x\npasses:\n  - A\n  - {name: B, options: {k: 1}\n");
  EXPECT_EQ(e.span().begin_line, 5);
  EXPECT_TRUE(Contains(e.message(), "malformed YAML in pipeline"));
}

TEST(PipelineParse, TopLevelMustBeAMapping) {
  Error e = ParseError("- A\n- B\n");
  EXPECT_EQ(e.span().begin_line, 1);
  EXPECT_TRUE(Contains(e.message(), "a pipeline file is a mapping with 'passes:', not a list"));
}

TEST(PipelineParse, UnknownFieldListsTheFields) {
  Error e = ParseError("name: x\npass:\n  - A\n");
  EXPECT_EQ(e.span().begin_line, 2);
  EXPECT_TRUE(Contains(e.message(), "unknown pipeline field 'pass'; the fields are name, description, verify, "
                                    "input_properties, passes"));
}

TEST(PipelineParse, PassesAreRequired) {
  Error e = ParseError("name: x\n");
  EXPECT_TRUE(Contains(e.message(), "the pipeline has no 'passes:' list"));
}

TEST(PipelineParse, PassesMustBeAList) {
  Error e = ParseError("name: x\npasses: A\n");
  EXPECT_EQ(e.span().begin_line, 2);
  EXPECT_TRUE(Contains(e.message(), "'passes' must be a list of passes, not the scalar 'A'"));
}

TEST(PipelineParse, EntryMustBeANameOrAMapping) {
  Error e = ParseError("passes:\n  - A\n  - [B, C]\n");
  EXPECT_EQ(e.span().begin_line, 3);
  EXPECT_EQ(e.span().begin_col, 5);
  EXPECT_TRUE(Contains(e.message(), "a pipeline entry is a pass name or {name: <Pass>, options: {...}}, not a list"));
}

TEST(PipelineParse, EntryNeedsAName) {
  Error e = ParseError("passes:\n  - options: {k: 1}\n");
  EXPECT_EQ(e.span().begin_line, 2);
  EXPECT_TRUE(Contains(e.message(), "this pipeline entry has no 'name:'"));
}

TEST(PipelineParse, EntryUnknownField) {
  Error e = ParseError("passes:\n  - name: A\n    option: {k: 1}\n");
  EXPECT_EQ(e.span().begin_line, 3);
  EXPECT_TRUE(Contains(e.message(), "unknown pipeline entry field 'option'; the fields are name, options"));
}

TEST(PipelineParse, OptionsMustBeAMapping) {
  Error e = ParseError("passes:\n  - name: A\n    options: [1, 2]\n");
  EXPECT_EQ(e.span().begin_line, 3);
  EXPECT_TRUE(Contains(e.message(), "'options' of pass 'A' must be a mapping such as {key: value}, not a list"));
}

TEST(PipelineParse, OptionValueMustBeScalar) {
  Error e = ParseError("passes:\n  - name: A\n    options:\n      sizes: [1, 2]\n");
  EXPECT_EQ(e.span().begin_line, 4);
  EXPECT_TRUE(Contains(e.message(), "option 'sizes' of pass 'A' must be a bool, number or text, not a list"));
}

TEST(PipelineParse, VerifyMustBeABool) {
  Error e = ParseError("verify: sometimes\npasses: []\n");
  EXPECT_EQ(e.span().begin_line, 1);
  EXPECT_TRUE(Contains(e.message(), "'verify' must be true or false, not the scalar 'sometimes'"));
}

TEST(PipelineParse, UnknownInputPropertyListsTheProperties) {
  Error e = ParseError("input_properties:\n  - SSAForm\n  - SSA\npasses: []\n");
  EXPECT_EQ(e.span(), pypto::Span("p.yaml", 3, 5));
  EXPECT_TRUE(Contains(e.message(), "unknown IR property 'SSA'; the properties are SSAForm, TypeChecked, "));
}

TEST(PipelineParse, InputPropertiesMustBeAList) {
  Error e = ParseError("input_properties: SSAForm\npasses: []\n");
  EXPECT_EQ(e.span().begin_line, 1);
  EXPECT_TRUE(Contains(e.message(), "'input_properties' must be a list such as [SSAForm], not the scalar 'SSAForm'"));
}

TEST(PipelineFiles, ShippedPipelines) {
  Pipeline def = pypto::pass::LoadPipeline("default");
  EXPECT_EQ(def.name, "default");
  // Memory is placed only after every tile has a space, and planned before addresses.
  auto order = def.pass_names();
  auto position = [&](const std::string& name) {
    return std::find(order.begin(), order.end(), name) - order.begin();
  };
  EXPECT_LT(position("OutlineIncoreScopes"), position("ConvertTensorToTileOps"));
  EXPECT_LT(position("ConvertTensorToTileOps"), position("InferTileMemorySpace"));
  EXPECT_LT(position("InferTileMemorySpace"), position("InitMemRef"));
  // Mixed kernels split where each tile's space is known, before buffers are made per kernel.
  EXPECT_LT(position("InferTileMemorySpace"), position("ExpandMixedKernel"));
  EXPECT_LT(position("ExpandMixedKernel"), position("InitMemRef"));
  EXPECT_LT(position("InitMemRef"), position("MemoryReuse"));
  EXPECT_LT(position("MemoryReuse"), position("AllocateMemoryAddr"));
  EXPECT_LT(position("AllocateMemoryAddr"), static_cast<std::ptrdiff_t>(order.size()));
  EXPECT_FALSE(def.verify);
  // ConvertToSSA runs first, so the pipeline takes programs in any form.
  EXPECT_TRUE(def.input_properties.empty());
  EXPECT_EQ(order.front(), "ConvertToSSA");
  EXPECT_EQ(def.source, pypto::plugin::DataDir() / "pipelines" / "default.yaml");
  Pipeline debug = pypto::pass::LoadPipeline("debug");
  EXPECT_EQ(debug.pass_names(), def.pass_names());
  EXPECT_TRUE(debug.verify);
  EXPECT_EQ(debug.input_properties, def.input_properties);
  auto names = pypto::pass::ListPipelines();
  EXPECT_NE(std::find(names.begin(), names.end(), "default"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "debug"), names.end());
}

TEST(PipelineFiles, UnknownNameListsThePipelines) {
  Error e = ErrorFrom([] { pypto::pass::LoadPipeline("fastest"); });
  EXPECT_EQ(e.kind(), ErrorKind::kPipeline);
  EXPECT_TRUE(Contains(e.message(), "no pipeline named 'fastest' in " +
                                        (pypto::plugin::DataDir() / "pipelines").string() + "; the pipelines are "));
  EXPECT_TRUE(Contains(e.message(), "debug, default"));
}

TEST(PipelineFiles, LoadsAPathAndNamesItInErrors) {
  fs::path dir = fs::path(::testing::TempDir()) / ("pypto_pipeline_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "mine.yaml") << "passes:\n  - A\n  - 7: x\n";
  std::ofstream(dir / "ok.yaml") << "passes:\n  - A\n";
  Pipeline ok = pypto::pass::LoadPipeline((dir / "ok.yaml").string());
  EXPECT_EQ(ok.name, "ok");
  EXPECT_EQ(ok.source, dir / "ok.yaml");
  Error e = ErrorFrom([&] { pypto::pass::LoadPipeline((dir / "mine.yaml").string()); });
  EXPECT_EQ(e.kind(), ErrorKind::kPipeline);
  EXPECT_TRUE(Contains(e.what(), (dir / "mine.yaml").string() + ":3:5: unknown pipeline entry field '7'"));
  Error missing = ErrorFrom([&] { pypto::pass::LoadPipeline((dir / "gone.yaml").string()); });
  EXPECT_EQ(missing.kind(), ErrorKind::kIO);
  fs::remove_all(dir);
}

}  // namespace
