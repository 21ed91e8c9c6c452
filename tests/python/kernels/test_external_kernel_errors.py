"""Every error of an external kernel call: what it names and where it points (docs/external-kernels.md)."""

from __future__ import annotations

import textwrap

import torch
import pytest

import pypto
import pypto.kernels
import pypto.language as pl
from pypto.language.errors import ParseError


def fp16(*shape):
    return torch.zeros(*shape, dtype=torch.float16)


# ---------------------------------------------------------------- pypto.kernels.<name>
def test_an_unknown_kernel_lists_the_kernels_and_the_closest_name():
    with pytest.raises(AttributeError, match=r"no kernel plugin provides a kernel named 'gemm_f16'; did you mean "
                                             r"'gemm_fp16'\? the kernels are: .*gemm_fp16.*softmax_rows_fp32"):
        pypto.kernels.gemm_f16


@pl.jit
def typo(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
    c = pypto.kernels.gemm_f16(a, b, c)
    return c


def test_an_unknown_kernel_in_a_body_points_at_the_call():
    with pytest.raises(ParseError, match=r"test_external_kernel_errors.py:\d+:\d+: no kernel plugin provides a kernel "
                                         r"named 'gemm_f16'; did you mean 'gemm_fp16'"):
        typo.lower(fp16(128, 128), fp16(128, 128), torch.zeros(128, 128))


@pl.jit
def two_arguments(a: pl.Tensor, c: pl.Out[pl.Tensor]):
    c = pypto.kernels.gemm_fp16(a, c)
    return c


def test_a_wrong_argument_count_names_the_kernel_and_its_signature():
    with pytest.raises(ParseError, match=r"pypto.kernels.gemm_fp16 takes 3 arguments \(a, b, c\), got 2(.|\n)*"
                                         r"hint: its signature is gemm_fp16\(In a: \[M, K\] FP16"):
        two_arguments.lower(fp16(128, 128), torch.zeros(128, 128))


def test_a_wrong_dtype_names_the_parameter_and_both_dtypes():
    with pytest.raises(ParseError, match=r"argument 'a' of pypto.kernels.gemm_fp16 must be FP16, got FP32"):
        gemm_call.lower(torch.zeros(128, 128), fp16(128, 128), torch.zeros(128, 128))


@pl.jit
def gemm_call(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
    c = pypto.kernels.gemm_fp16(a, b, c)
    return c


def test_a_wrong_rank_names_the_parameter_and_the_ranks():
    with pytest.raises(ParseError, match=r"argument 'a' of pypto.kernels.gemm_fp16 must have rank 2 \(\[M, K\]\), "
                                         r"got rank 3"):
        gemm_call.lower(fp16(1, 128, 128), fp16(128, 128), torch.zeros(128, 128))


def test_a_symbol_bound_to_two_sizes_names_both_places():
    with pytest.raises(ParseError, match=r"dim 0 of argument 'b' of pypto.kernels.gemm_fp16 is K = 256, but dim 1 "
                                         r"of 'a' made K = 128"):
        gemm_call.lower(fp16(128, 128), fp16(256, 128), torch.zeros(128, 128))


def test_a_size_that_breaks_multiple_of_names_the_divisor():
    with pytest.raises(ParseError, match=r"dim 0 of argument 'a' of pypto.kernels.gemm_fp16 is M = 100, which is "
                                         r"not a multiple of 128"):
        gemm_call.lower(fp16(100, 128), fp16(128, 128), torch.zeros(100, 128))


@pl.jit
def rmsnorm_call(x: pl.Tensor, gamma: pl.Tensor, out: pl.Out[pl.Tensor]):
    out = pypto.kernels.rmsnorm_fp32(x, gamma, out, 1e-6)
    return out


def test_a_static_dim_mismatch_names_the_dim():
    with pytest.raises(ParseError, match=r"dim 0 of argument 'gamma' of pypto.kernels.rmsnorm_fp32 must be 1, got 2"):
        rmsnorm_call.lower(torch.zeros(8, 64), torch.zeros(2, 64), torch.zeros(8, 64))


@pl.jit
def writes_an_input(a: pl.Tensor, b: pl.Tensor, c: pl.Tensor):
    c = pypto.kernels.gemm_fp16(a, b, c)
    return c


def test_writing_to_an_input_parameter_names_the_kernel_parameter_and_the_fix():
    with pytest.raises(ParseError, match=r"'pypto.kernels.gemm_fp16' writes its parameter 'c', but the argument 'c' "
                                         r"is an input \(In\) parameter of 'writes_an_input'(.|\n)*"
                                         r"hint: declare it c: pl.Out\[...\]"):
        writes_an_input.lower(fp16(128, 128), fp16(128, 128), torch.zeros(128, 128))


@pl.jit
def scalar_as_tensor(x: pl.Tensor, gamma: pl.Tensor, out: pl.Out[pl.Tensor]):
    out = pypto.kernels.rmsnorm_fp32(x, gamma, out, x)
    return out


def test_a_tensor_for_a_scalar_parameter_is_an_error():
    with pytest.raises(ParseError, match=r"argument 'eps' of pypto.kernels.rmsnorm_fp32 must be a FP32 scalar"):
        scalar_as_tensor.lower(torch.zeros(8, 64), torch.zeros(1, 64), torch.zeros(8, 64))


def test_calling_a_kernel_outside_a_kernel_body_is_an_error():
    with pytest.raises(Exception, match=r"pypto.kernels.gemm_fp16 is only meaningful inside a parsed kernel body"):
        pypto.kernels.gemm_fp16(1, 2, 3)


# ---------------------------------------------------------------- external_source=
@pl.jit.incore(external_source="fixtures/scale_add.cpp")
def scale_add(a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32],
              out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]: ...


@pl.jit
def scale_add_into_input(a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32],
                         out: pl.Tensor[[64, 64], pl.FP32]):
    out = scale_add(a, b, out)
    return out


def test_an_external_function_writing_an_input_parameter_is_an_error():
    with pytest.raises(ParseError, match=r"'scale_add' writes its parameter 'out', but the argument 'out' is an input"):
        scale_add_into_input.lower(torch.zeros(64, 64), torch.zeros(64, 64), torch.zeros(64, 64))


@pl.jit
def scale_add_wrong_arity(a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    out = scale_add(a, out)
    return out


def test_an_external_function_call_with_a_wrong_arity_is_an_error():
    with pytest.raises(ParseError, match=r"'scale_add' takes 3 arguments \(a, b, out\), got 2"):
        scale_add_wrong_arity.lower(torch.zeros(64, 64), torch.zeros(64, 64))


def write_module(tmp_path, name: str, source: str):
    """A module of @pl.jit functions written to `tmp_path` and imported (the parser reads source files)."""
    import importlib.util
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(source))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_an_external_body_other_than_ellipsis_is_an_error(tmp_path):
    (tmp_path / "k.cpp").write_text("// empty\n")
    module = write_module(tmp_path, "body_mod", """
        import pypto.language as pl

        @pl.jit.incore(external_source="k.cpp")
        def k(a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
            out = a

        @pl.jit
        def entry(a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
            k(a, out)
            return out
    """)
    with pytest.raises(ParseError, match=r"body_mod.py:6:\d+: 'k' has external_source='k.cpp', so its code is that "
                                         r"C\+\+ file and its body must be `...`"):
        module.entry.lower(torch.zeros(64, 64), torch.zeros(64, 64))


def test_a_missing_external_source_names_the_path_looked_for(tmp_path):
    module = write_module(tmp_path, "missing_mod", """
        import pypto.language as pl

        @pl.jit.incore(external_source="nowhere.cpp")
        def k(a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]): ...

        @pl.jit
        def entry(a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
            k(a, out)
            return out
    """)
    with pytest.raises(ParseError, match=r"the external_source of 'k', 'nowhere.cpp', does not exist \(looked for "
                                         r".*/nowhere.cpp\)"):
        module.entry.lower(torch.zeros(64, 64), torch.zeros(64, 64))


@pl.jit.incore(external_source="fixtures/does_not_compile.cpp")
def broken(a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]): ...


@pl.jit
def call_broken(a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    broken(a, out)
    return out


def test_a_source_that_does_not_compile_names_its_file_and_line():
    with pytest.raises(pypto.CompileError, match=r"does_not_compile.cpp:4:\d+: error: use of undeclared identifier "
                                                 r"'undeclared_instruction'"):
        call_broken(torch.zeros(64, 64), torch.zeros(64, 64))


# ---------------------------------------------------------------- manifests
def write_kernel_plugin(folder, kernels_yaml: str):
    folder.mkdir()
    (folder / "k.cpp").write_text("// a kernel\n")
    (folder / "manifest.yaml").write_text("name: bad\nkind: kernel\nversion: 0.1.0\nabi: 4\nkernels:\n" +
                                          textwrap.dedent(kernels_yaml))
    return folder / "manifest.yaml"


@pytest.mark.parametrize("kernels_yaml,message", [
    ("""\
     - name: k
       core: AIV
       source: k.cpp
       tensors: [{name: x, dtype: FP33, shape: [M], direction: In}]
     """, r"manifest.yaml:9:\d+: unknown dtype 'FP33' for tensor 'x' of kernel 'k'"),
    ("""\
     - name: k
       core: AIV
       source: k.cpp
       tensors: [{name: x, dtype: FP32, shape: [M], direction: Input}]
     """, r"manifest.yaml:9:\d+: unknown direction of tensor 'x' of kernel 'k' 'Input'; it is one of In, Out, InOut"),
    ("""\
     - name: k
       core: CPU
       source: k.cpp
       tensors: []
     """, r"manifest.yaml:7:\d+: unknown core of kernel 'k' 'CPU'; it is one of AIC, AIV"),
    ("""\
     - name: k
       core: AIV
       source: missing.cpp
       tensors: []
     """, r"manifest.yaml:8:\d+: the source of kernel 'k' 'missing.cpp' does not exist"),
    ("""\
     - name: k
       core: AIV
       source: k.cpp
       tensors: [{name: x, dtype: FP32, shape: [M, 0], direction: In}]
     """, r"a static dim of tensor 'x' of kernel 'k' must be at least 1, not 0"),
    ("""\
     - name: k
       core: AIV
       source: k.cpp
       tensors: [{name: x, dtype: FP32, shape: [M], direction: In}]
       multiple_of: {N: 8}
     """, r"'multiple_of' of kernel 'k' names 'N', which no tensor shape uses; the symbols are M"),
])
def test_a_manifest_with_a_bad_signature_names_the_file_line_and_problem(tmp_path, kernels_yaml, message):
    manifest = write_kernel_plugin(tmp_path / "bad", kernels_yaml)
    with pytest.raises(pypto.PluginError, match=message):
        pypto.plugins.load_manifest(manifest)


def test_a_kernel_plugin_has_no_library(tmp_path):
    manifest = write_kernel_plugin(tmp_path / "bad", "- {name: k, core: AIV, source: k.cpp, tensors: []}\n")
    manifest.write_text(manifest.read_text() + "library: libk.so\n")
    with pytest.raises(pypto.PluginError, match=r"unknown manifest field 'library'; the fields of a kernel plugin are "
                                                r"name, kind, version, abi, kernels"):
        pypto.plugins.load_manifest(manifest)


# ---------------------------------------------------------------- @pl.jit.extern
@pytest.mark.parametrize("options", [
    {"core_type": "mixed", "source": "k.cpp"},
    {"core_type": "aic", "aic_source": "c.cpp", "aiv_source": "v.cpp"},
    {"core_type": "aiv", "source": "k.cpp", "aiv_source": "v.cpp"},
    {"core_type": "aiv", "source": "k.cpp", "dual_aiv_dispatch": True},
])
def test_an_external_kernel_runs_on_one_core_type(options):
    with pytest.raises(TypeError, match=r"@pl.jit.extern\(.*\): an external kernel runs on one core type, AIC or "
                                        r"AIV; .* are not accepted. Write the cube and vector parts as two kernels"):
        pl.jit.extern(**options)


def test_an_unknown_core_type_lists_the_choices():
    with pytest.raises(TypeError, match=r'@pl.jit.extern\(core_type=...\) is one of "aic", "aiv" \(the cube or a '
                                        r"vector core\), got 'cube'"):
        pl.jit.extern(core_type="cube", source="k.cpp")


@pytest.mark.parametrize("options,message", [
    ({"core_type": "aiv"}, r"@pl.jit.extern\(source=...\) takes the path of the kernel's C\+\+ file"),
    ({"core_type": "aiv", "source": "k.cpp", "include_dirs": "inc"},
     r"@pl.jit.extern\(include_dirs=...\) takes a list of folder paths"),
    ({"core_type": "aiv", "source": "k.cpp", "external_source": "k.cpp"},
     r"@pl.jit.extern got an unknown option 'external_source'; it accepts core_type, source, include_dirs"),
])
def test_extern_options_are_checked_when_decorating(options, message):
    with pytest.raises(TypeError, match=message):
        pl.jit.extern(**options)


def test_extern_needs_its_options():
    with pytest.raises(TypeError, match=r"@pl.jit.extern needs its options: @pl.jit.extern\(core_type=\"aiv\", "
                                        r"source=\"kernel.cpp\"\) above def k\(...\)"):
        def k(): ...
        pl.jit.extern(k)


def test_a_missing_include_dir_names_the_folder_looked_for(tmp_path):
    (tmp_path / "k.cpp").write_text("// empty\n")
    module = write_module(tmp_path, "include_mod", """
        import pypto.language as pl

        @pl.jit.extern(core_type="aiv", source="k.cpp", include_dirs=["headers"])
        def k(a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]): ...

        @pl.jit
        def entry(a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
            k(a, out)
            return out
    """)
    with pytest.raises(ParseError, match=r"include_mod.py:\d+:\d+: the include_dirs entry 'headers' of 'k' is not a "
                                         r"folder \(looked for .*/headers\)"):
        module.entry.lower(torch.zeros(64, 64), torch.zeros(64, 64))


def test_an_extern_kernel_writing_an_input_parameter_is_an_error(tmp_path):
    (tmp_path / "k.cpp").write_text("// empty\n")
    module = write_module(tmp_path, "extern_writes_input", """
        import pypto.language as pl

        @pl.jit.extern(core_type="aic", source="k.cpp")
        def k(a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]): ...

        @pl.jit
        def entry(a: pl.Tensor[[64, 64], pl.FP32], out: pl.Tensor[[64, 64], pl.FP32]):
            k(a, out)
            return out
    """)
    with pytest.raises(ParseError, match=r"'k' writes its parameter 'out', but the argument 'out' is an input"):
        module.entry.lower(torch.zeros(64, 64), torch.zeros(64, 64))


# ---------------------------------------------------------------- the class form
def test_external_source_on_an_orchestration_method_names_the_kernel_forms(tmp_path):
    (tmp_path / "k.cpp").write_text("// empty\n")
    text = textwrap.dedent("""
        import pypto.language as pl

        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.Orchestration, external_source="k.cpp")
            def main(self, a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]: ...
    """)
    with pytest.raises(ParseError, match=r"class_mod.py:7:\d+: 'main' has external_source= but is a Orchestration "
                                         r"function; only a kernel \(InCore, AIC or AIV\) can be written in C\+\+"
                                         r"(.|\n)*hint: declare it with @pl.jit.extern"):
        pl.parse(text, str(tmp_path / "class_mod.py"))
