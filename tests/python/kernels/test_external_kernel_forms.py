"""The declaration forms of a hand-written C++ kernel beyond kernel plugins (docs/external-kernels.md):
@pl.function(type=AIC|AIV, external_source=) in a @pl.program class run with ir.compile, and
@pl.jit.extern(core_type=, source=, include_dirs=) called from @pl.jit, each against torch on a2a3sim."""

from __future__ import annotations

import importlib.util
import textwrap
from pathlib import Path

import pytest
import torch

import pypto
import pypto.language as pl
from pypto import ir
from pypto.jit import CompiledProgram

FIXTURES = Path(__file__).parent / "fixtures"


def fp16(*shape):
    return torch.randn(*shape).half()


# ---------------------------------------------------------------- the class form
@pl.program
class ScaleAddThenMatmul:
    @pl.function(type=pl.FunctionType.AIV, external_source="fixtures/scale_add.cpp")
    def scale_add(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32],
                  out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]: ...

    @pl.function(type=pl.FunctionType.AIC, external_source="fixtures/matmul_64.cpp")
    def matmul(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
               c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]: ...

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[64, 64], pl.FP32]], x: pl.Tensor[[64, 64], pl.FP16],
             y: pl.Tensor[[64, 64], pl.FP16], c: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
             ) -> tuple[pl.Tensor[[64, 64], pl.FP32], pl.Tensor[[64, 64], pl.FP32]]:
        out = self.scale_add(a, b, out)
        c = self.matmul(x, y, c)
        return out, c


def test_a_program_class_runs_its_aiv_and_aic_external_kernels(tmp_path):
    compiled = ir.compile(ScaleAddThenMatmul, tmp_path)
    a, b, out = torch.randn(64, 64), torch.randn(64, 64), torch.empty(64, 64)
    x, y, c = fp16(64, 64), fp16(64, 64), torch.full((64, 64), float("nan"))
    result = compiled(a, b, out, x, y, c)
    assert result[0] is out and result[1] is c
    torch.testing.assert_close(out, 2 * a + b)
    torch.testing.assert_close(c, x.float() @ y.float(), rtol=1e-4, atol=1e-3)


def test_each_class_kernel_is_generated_for_its_declared_core(tmp_path):
    compiled = ir.compile(ScaleAddThenMatmul, tmp_path)
    assert [p.relative_to(tmp_path).as_posix() for p in compiled.kernel_files] == [
        "kernels/aic/matmul.cpp", "kernels/aiv/scale_add.cpp"]
    assert 'fixtures/matmul_64.cpp"' in (tmp_path / "kernels/aic/matmul.cpp").read_text()


@pl.program
class TwoEntries:
    @pl.function(type=pl.FunctionType.AIV, external_source="fixtures/scale_add.cpp")
    def scale_add(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32],
                  out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]: ...

    @pl.function(type=pl.FunctionType.Orchestration)
    def first(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32],
              out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        out = self.scale_add(a, b, out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def second(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        pl.func_attr({"entry": True})
        out = self.scale_add(b, a, out)
        return out


def test_ir_compile_runs_the_orchestration_marked_entry(tmp_path):
    compiled = ir.compile(TwoEntries, tmp_path)
    a, b, out = torch.randn(64, 64), torch.randn(64, 64), torch.empty(64, 64)
    compiled(a, b, out)
    assert compiled.entry == "second"
    torch.testing.assert_close(out, 2 * b + a)


@pl.program
class UnmarkedEntries:
    @pl.function(type=pl.FunctionType.AIV, external_source="fixtures/scale_add.cpp")
    def scale_add(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32],
                  out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]: ...

    @pl.function(type=pl.FunctionType.Orchestration)
    def first(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32],
              out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        out = self.scale_add(a, b, out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def second(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32],
               out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        out = self.scale_add(b, a, out)
        return out


def test_ir_compile_of_two_unmarked_orchestrations_says_how_to_mark_one(tmp_path):
    with pytest.raises(ValueError, match=r"program 'UnmarkedEntries' needs one orchestration function to run, and "
                                         r"it has 2 \(first, second\); mark the one a call runs with pl.func_attr"):
        ir.compile(UnmarkedEntries, tmp_path)


def test_ir_compile_takes_a_program():
    with pytest.raises(TypeError, match=r"ir.compile takes an ir.Program \(a @pl.program class\), got "
                                        r"JITFunction; a @pl.jit kernel compiles with kernel.compile"):
        ir.compile(matmul_then_axpy)


# ---------------------------------------------------------------- @pl.jit.extern
@pl.jit.extern(core_type="aic", source="fixtures/matmul_64.cpp")
def matmul(a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
           c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]: ...


@pl.jit.extern(core_type="aiv", source="fixtures/axpy_with_include_dir.cpp", include_dirs=["fixtures/include"])
def axpy(a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32],
         out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]: ...


@pl.jit
def matmul_then_axpy(x: pl.Tensor[[64, 64], pl.FP16], y: pl.Tensor[[64, 64], pl.FP16],
                     c: pl.Out[pl.Tensor[[64, 64], pl.FP32]], b: pl.Tensor[[64, 64], pl.FP32],
                     out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    c = matmul(x, y, c)       # a task on the cube core
    out = axpy(c, b, out)     # a vector task that waits for it
    return out


def matmul_then_axpy_arguments():
    torch.manual_seed(3)
    return fp16(64, 64), fp16(64, 64), torch.empty(64, 64), torch.randn(64, 64), torch.empty(64, 64)


def test_jit_extern_kernels_run_on_their_cores_in_order():
    x, y, c, b, out = matmul_then_axpy_arguments()
    matmul_then_axpy(x, y, c, b, out)
    torch.testing.assert_close(c, x.float() @ y.float(), rtol=1e-4, atol=1e-3)
    torch.testing.assert_close(out, 3 * c + b)


def test_jit_extern_functions_take_their_core_and_absolute_paths():
    program = matmul_then_axpy.lower(*matmul_then_axpy_arguments())
    assert program.get_function("matmul").func_type == ir.FunctionType.AIC
    kernel = program.get_function("axpy")
    assert kernel.func_type == ir.FunctionType.AIV
    assert kernel.attrs["external_source"] == str(FIXTURES / "axpy_with_include_dir.cpp")
    assert kernel.attrs["include_dirs"] == [str(FIXTURES / "include")]


def test_a_compile_folder_with_include_dirs_runs_again_from_dir():
    compiled = matmul_then_axpy.compile(*matmul_then_axpy_arguments())
    assert compiled.kernel_include_dirs == {"axpy": [str(FIXTURES / "include")]}
    again = CompiledProgram.from_dir(compiled.output_dir)
    x, y, c, b, out = matmul_then_axpy_arguments()
    again(x, y, c, b, out)
    torch.testing.assert_close(out, 3 * (x.float() @ y.float()) + b, rtol=1e-4, atol=1e-3)


def write_module(folder: Path, name: str, source: str):
    """A module of @pl.jit functions written to `folder` and imported (the parser reads source files)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.py"
    path.write_text(textwrap.dedent(source))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def axpy_module(folder: Path, name: str, include_dir: str):
    """`entry` calling the fixture axpy kernel (by absolute path) compiled with `include_dir`."""
    return write_module(folder, name, f"""
        import pypto.language as pl

        @pl.jit.extern(core_type="aiv", source="{FIXTURES / 'axpy_with_include_dir.cpp'}",
                       include_dirs=["{include_dir}"])
        def axpy(a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32],
                 out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]: ...

        @pl.jit
        def entry(a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32],
                  out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
            out = axpy(a, b, out)
            return out
    """)


def test_include_dirs_enter_the_kernel_object_cache_key(tmp_path, monkeypatch):
    # Same kernel name, same wrapper text, headers of one name in two folders: only -I tells them apart.
    monkeypatch.setenv("PYPTO_CACHE_DIR", str(tmp_path / "cache"))
    other = tmp_path / "alpha5"
    other.mkdir()
    (other / "axpy_step.h").write_text("#pragma once\nconstexpr float kAxpyAlpha = 5.0f;\n")
    three = axpy_module(tmp_path / "a", "axpy_alpha3", str(FIXTURES / "include"))
    five = axpy_module(tmp_path / "b", "axpy_alpha5", str(other))
    a, b = torch.randn(64, 64), torch.randn(64, 64)
    for module, alpha in ((three, 3), (five, 5), (three, 3)):
        out = torch.empty(64, 64)
        module.entry(a, b, out)
        torch.testing.assert_close(out, alpha * a + b)


def test_a_kernel_without_the_include_dir_it_needs_does_not_compile(tmp_path):
    module = write_module(tmp_path, "no_include_dir", f"""
        import pypto.language as pl

        @pl.jit.extern(core_type="aiv", source="{FIXTURES / 'axpy_with_include_dir.cpp'}")
        def axpy(a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32],
                 out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]: ...

        @pl.jit
        def entry(a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32],
                  out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
            out = axpy(a, b, out)
            return out
    """)
    with pytest.raises(pypto.CompileError, match=r"axpy_with_include_dir.cpp:5:\d+: (fatal )?error: "
                                                 r"'axpy_step.h' file not found"):
        module.entry(torch.zeros(64, 64), torch.zeros(64, 64), torch.zeros(64, 64))


def test_incore_external_source_kernels_run_on_a_vector_core(tmp_path):
    module = write_module(tmp_path, "incore_form", f"""
        import pypto.language as pl

        @pl.jit.incore(external_source="{FIXTURES / 'scale_add.cpp'}")
        def scale_add(a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32],
                      out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]: ...

        @pl.jit
        def entry(a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32],
                  out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
            out = scale_add(a, b, out)
            return out
    """)
    args = torch.zeros(64, 64), torch.zeros(64, 64), torch.zeros(64, 64)
    compiled = module.entry.compile(*args)
    assert [p.relative_to(compiled.output_dir).as_posix() for p in compiled.kernel_files] == [
        "kernels/aiv/scale_add.cpp"]


def test_a_cube_kernel_declared_aiv_faults_for_want_of_cube_buffers(tmp_path):
    module = write_module(tmp_path, "wrong_core", f"""
        import pypto.language as pl

        @pl.jit.extern(core_type="aiv", source="{FIXTURES / 'matmul_64.cpp'}")
        def matmul(a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
                   c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]: ...

        @pl.jit
        def entry(a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
                  c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
            c = matmul(a, b, c)
            return c
    """)
    with pytest.raises(pypto.KernelFault, match=r"kernel 'matmul' .*a tile in Mat would end at byte \d+ but Mat "
                                                r"holds 0 bytes"):
        module.entry(fp16(64, 64), fp16(64, 64), torch.zeros(64, 64))
