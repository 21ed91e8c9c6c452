"""Builds small plugins for the Python tests: one C++ file, compiled straight against the installed core.

A plugin is a folder holding ``lib<name>.so`` and ``manifest.yaml``, as
``pypto_add_plugin`` lays it out; calling the compiler directly keeps a
build to about a second, so each test module can build the plugins it loads.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from pypto import plugins

# A pass with one string option: it appends "_<tag>" to the program's name, so a test sees it ran and with what.
TAG_PASS_SOURCE = r"""
#include <memory>

#include "pypto/plugin/abi.h"

namespace {

using namespace pypto;

class TagProgram : public pass::Pass {
 public:
  std::string name() const override { return PASS_NAME; }
  std::string description() const override { return "appends a tag to the program's name"; }
  std::vector<pass::PassOptionSpec> option_specs() const override {
    return {{pass::PassOptionSpec::Kind::kString, "tag", std::string("v1"), "text appended after '_'"}};
  }
  void Configure(const pass::PassOptions& options) override { tag_ = *options.Get<std::string>("tag"); }
  ir::ProgramPtr Run(const ir::ProgramPtr& program, pass::PassContext& /*ctx*/) override {
    return ir::Program::Make(program->name + "_" + tag_, program->functions, program->span);
  }

 private:
  std::string tag_;
};

void Register(plugin::PluginRegistrar& registrar) {
  registrar.AddPass(PASS_NAME, "appends a tag to the program's name", [] { return std::make_unique<TagProgram>(); });
}

}  // namespace

PYPTO_PLUGIN(PLUGIN_NAME, "1.0.0", Register)
"""

# A kernel backend that lists the program's kernels in report/kernels.txt instead of generating code.
LISTING_BACKEND_SOURCE = r"""
#include <memory>

#include "pypto/plugin/abi.h"

namespace {

using namespace pypto;

class ListingBackend : public backend::Backend {
 public:
  std::string name() const override { return BACKEND_NAME; }
  std::string description() const override { return "lists a program's kernels"; }
  std::vector<ir::FunctionType> function_types() const override {
    return {ir::FunctionType::InCore, ir::FunctionType::AIC, ir::FunctionType::AIV};
  }
  std::vector<backend::Artifact> Generate(const ir::ProgramPtr& program, backend::BackendContext& ctx) override {
    std::string listing;
    for (const auto& f : program->functions) {
      if (f->func_type != ir::FunctionType::Orchestration) listing += f->name + " on " + ctx.platform().name + "\n";
    }
    return {{backend::ReportPath("kernels.txt"), backend::ArtifactKind::kReport, std::nullopt, "", listing}};
  }
};

void Register(plugin::PluginRegistrar& registrar) {
  registrar.AddBackend(BACKEND_NAME, "lists a program's kernels", [] { return std::make_unique<ListingBackend>(); });
}

}  // namespace

PYPTO_PLUGIN(PLUGIN_NAME, "1.0.0", Register)
"""


def compiler() -> str:
    """The C++ compiler ($CXX or c++); the test is skipped where there is none."""
    found = shutil.which(os.environ.get("CXX", "c++"))
    if found is None:
        pytest.skip("no C++ compiler ($CXX or c++) to build the test plugins with")
    return found


def build_plugin(folder: Path, name: str, source: str, *, kind: str, provides: list[str],
                 defines: dict[str, str] | None = None, manifest_extra: str = "") -> Path:
    """Compiles `source` into folder/lib<name>.so beside its manifest; returns the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.cpp").write_text(source)
    library_dir = Path(plugins.core_library_dir())
    include_dir = library_dir.parent / "include"
    macros = [f'-D{key}="{value}"' for key, value in {"PLUGIN_NAME": name, **(defines or {})}.items()]
    command = [compiler(), "-std=c++20", "-shared", "-fPIC", "-fvisibility=hidden", f"-I{include_dir}", *macros,
               str(folder / f"{name}.cpp"), f"-L{library_dir}", "-lpypto_core", f"-Wl,-rpath,{library_dir}",
               "-o", str(folder / f"lib{name}.so")]
    built = subprocess.run(command, capture_output=True, text=True)
    assert built.returncode == 0, f"building plugin {name} failed:\n{built.stderr}"
    (folder / "manifest.yaml").write_text(
        f"name: {name}\nkind: {kind}\nversion: 1.0.0\nabi: 4\nlibrary: lib{name}.so\n"
        f"provides: [{', '.join(provides)}]\ndescription: {name}, built by the tests\n{manifest_extra}")
    return folder


def build_tag_pass(folder: Path, name: str, pass_name: str) -> Path:
    return build_plugin(folder, name, TAG_PASS_SOURCE, kind="pass", provides=[pass_name],
                        defines={"PASS_NAME": pass_name})


def build_listing_backend(folder: Path, name: str, backend_name: str, toolchains: str) -> Path:
    """`toolchains` is the manifest's map, e.g. "{a2a3: ascend}"."""
    return build_plugin(folder, name, LISTING_BACKEND_SOURCE, kind="backend", provides=[backend_name],
                        defines={"BACKEND_NAME": backend_name}, manifest_extra=f"toolchains: {toolchains}\n")
