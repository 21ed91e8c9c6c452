"""The ``pypto`` command."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def _cmd_plugins(args: argparse.Namespace) -> int:
    from pypto import plugins

    records = plugins.discover()
    if not records:
        print("no plugins found; search paths: " + ", ".join(str(p) for p in plugins.search_paths()))
        return 1
    rows = [(r["name"], r["kind"], r["version"], str(r["path"])) for r in records]
    _print_table(("NAME", "KIND", "VERSION", "PATH"), rows)
    if args.verbose:
        for r in records:
            print(f"\n{r['name']}: {r['description']}")
            print(f"  provides: {', '.join(r['provides'])}")
            if r["requires"]:
                print(f"  requires: {', '.join(r['requires'])}")
            print(f"  manifest: {r['manifest']}")
    return 0


def _cmd_passes(args: argparse.Namespace) -> int:
    from pypto import passes as pass_api
    from pypto import plugins

    passes = plugins.list_passes()
    width = max((len(p["name"]) for p in passes), default=0)
    for p in passes:
        print(f"{p['name']:<{width}}  {p['description']}  [{p['plugin']}]")
        if args.verbose:
            properties = pass_api.pass_properties(p["name"])
            for key in ("required", "produced", "invalidated"):
                if properties[key]:
                    print(f"{'':<{width}}    {key}: {', '.join(properties[key])}")
    return 0


def _cmd_backends(args: argparse.Namespace) -> int:
    from pypto import plugins

    backends = plugins.list_backends()
    if not backends:
        print("no backends found; search paths: " + ", ".join(str(p) for p in plugins.search_paths()))
        return 1
    width = max(len(b["name"]) for b in backends)
    for b in backends:
        print(f"{b['name']:<{width}}  {b['description']}  [{b['plugin']}]")
        if args.verbose:
            # Naming the function types needs the backend itself, so this loads its plugin.
            types = plugins.backend_function_types(b["name"])
            print(f"{'':<{width}}    generates code for: {', '.join(types) if types else 'no function types'}")
    return 0


def _cmd_pipelines(args: argparse.Namespace) -> int:
    from pypto import passes

    for name in passes.list_pipelines():
        pipeline = passes.load_pipeline(name)
        print(f"{name}: {pipeline['description']}  ({len(pipeline['passes'])} passes, {pipeline['source']})")
        if args.verbose:
            for i, step in enumerate(pipeline["passes"], start=1):
                options = ", ".join(f"{k}={v}" for k, v in step["options"].items())
                print(f"  {i:2d}. {step['pass']}" + (f" ({options})" if options else ""))
    return 0


def _cmd_compile(args: argparse.Namespace) -> int:
    from pypto import cli_kernels

    return cli_kernels.compile_command(args)


def _cmd_run(args: argparse.Namespace) -> int:
    from pypto import cli_kernels

    return cli_kernels.run_command(args)


def _cmd_debug_bisect(args: argparse.Namespace) -> int:
    from pypto.debug.bisect import bisect_command

    return bisect_command(args)


def _cmd_ops(args: argparse.Namespace) -> int:
    from pypto import ops

    for op in ops.list_ops():
        if args.namespace and op.namespace != args.namespace:
            continue
        print(op.signature)
    return 0


def _cmd_launch(args: argparse.Namespace) -> int:
    from pypto.runtime import launch

    program = [sys.executable, args.script, *args.script_args]
    try:
        command = launch.mpirun_command(args.ranks, program, args.hostfile)
    except launch.LaunchError as error:
        print(f"pypto launch: {error}", file=sys.stderr)
        return 2
    if args.dry_run:
        print(" ".join(command))
        return 0
    sys.stdout.flush()
    os.execvpe(command[0], command, launch.launcher_environment())
    return 0  # not reached: the process is mpirun now


def _cmd_version(_: argparse.Namespace) -> int:
    import pypto

    print(pypto.__version__)
    return 0


def _cmd_cmake_dir(_: argparse.Namespace) -> int:
    from pypto import plugins

    print(Path(plugins.core_library_dir()) / "cmake" / "PyPTO")
    return 0


def _print_table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> None:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    for row in (header, *rows):
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())


def _add_kernel_arguments(p: argparse.ArgumentParser,
                          dump_passes_help: str = "also write the program after every pass") -> None:
    from pypto.runtime.config import DEFAULT_BACKEND, PLATFORMS

    p.add_argument("target", metavar="FILE.py::FUNC", help="the file and the @pl.jit kernel in it")
    p.add_argument("--pipeline", default="default", help="pipeline name or YAML path (default: default)")
    p.add_argument("--platform", default="a2a3sim", choices=PLATFORMS, help="the platform (default: a2a3sim)")
    p.add_argument("--backend", default=DEFAULT_BACKEND,
                   help=f"the backend that generates the kernels (default: {DEFAULT_BACKEND}; see `pypto backends`)")
    p.add_argument("--plugin", action="append", default=[], metavar="PATH",
                   help="a plugin folder or manifest.yaml to load first (repeatable)")
    p.add_argument("--out", metavar="DIR", help="the compile output folder (default: "
                                                "<$PYPTO_PROG_BUILD_DIR or build_output>/_jit_<kernel>_<time>)")
    p.add_argument("--dump-passes", action="store_true", help=dump_passes_help)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pypto", description="PyPTO command line")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("plugins", help="list the discovered plugins (name, kind, version, path)")
    p.add_argument("-v", "--verbose", action="store_true", help="also show what each plugin provides")
    p.set_defaults(func=_cmd_plugins)
    p = sub.add_parser("passes", help="list the passes, one line each")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="also show the IR properties each pass requires, produces and invalidates")
    p.set_defaults(func=_cmd_passes)
    p = sub.add_parser("backends", help="list the code generation backends, one line each")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="also show the function types each backend generates code for (loads its plugin)")
    p.set_defaults(func=_cmd_backends)
    p = sub.add_parser("pipelines", help="list the installed pipelines (name, description, file)")
    p.add_argument("-v", "--verbose", action="store_true", help="also list each pipeline's passes in order")
    p.set_defaults(func=_cmd_pipelines)
    p = sub.add_parser("compile", help="compile a @pl.jit kernel whose parameters are fully annotated, without "
                                       "running it; prints where the output went")
    _add_kernel_arguments(p)
    p.set_defaults(func=_cmd_compile)
    p = sub.add_parser("run", help="compile a @pl.jit kernel and run it on random inputs of its annotated shapes "
                                   "and dtypes (or --inputs); prints one line per output")
    _add_kernel_arguments(p)
    p.add_argument("--inputs", metavar="F.npz",
                   help="arrays by parameter name (0-d for scalars); parameters it lacks get random inputs")
    p.add_argument("--save", metavar="F.npz", help="save the outputs (pl.Out/pl.InOut parameters, returned "
                                                   "tensors) by name; bfloat16 and float8 as float32")
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs (default 0)")
    p.set_defaults(func=_cmd_run)
    p = sub.add_parser("debug", help="debugging aids for a @pl.jit kernel (see docs/torch-codegen.md)")
    debug = p.add_subparsers(dest="debug_command", required=True)
    p = debug.add_parser("bisect", help="find the first pass after which the kernel's torch script computes "
                                        "something else, and check the final script against the simulator")
    # bisect always dumps the passes; the flag keeps what it ran on them.
    _add_kernel_arguments(p, dump_passes_help="also keep the inputs, the simulator's outputs and every stage's "
                                              "torch script and outputs under <out>/bisect_stages/")
    p.add_argument("--inputs", metavar="F.npz",
                   help="arrays by parameter name (0-d for scalars); parameters it lacks get random inputs")
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs (default 0)")
    p.add_argument("--rtol", type=float, help="relative tolerance (default: by dtype; integers exact)")
    p.add_argument("--atol", type=float, help="absolute tolerance (default: by dtype; integers exact)")
    p.set_defaults(func=_cmd_debug_bisect)
    p = sub.add_parser("ops", help="list the registered ops with their signatures")
    p.add_argument("--namespace", help="only ops of this namespace (tensor, tile, system, array)")
    p.set_defaults(func=_cmd_ops)
    p = sub.add_parser("launch", help="run a distributed (pld) script as P ranks, one process each, through Open "
                                      "MPI's mpirun (on several hosts with --hostfile)")
    p.add_argument("-n", "--ranks", type=int, required=True, metavar="P", help="number of ranks")
    p.add_argument("--hostfile", metavar="H", help="Open MPI hostfile: one host per line ('node1 slots=4')")
    p.add_argument("--dry-run", action="store_true", help="print the mpirun command instead of running it")
    p.add_argument("script", help="the Python script")
    p.add_argument("script_args", nargs=argparse.REMAINDER, help="arguments of the script")
    p.set_defaults(func=_cmd_launch)
    sub.add_parser("version", help="print the PyPTO version").set_defaults(func=_cmd_version)
    sub.add_parser("cmake-dir", help="print the folder holding PyPTOConfig.cmake (for -DPyPTO_DIR=)").set_defaults(
        func=_cmd_cmake_dir
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except BrokenPipeError:
        # The reader (`pypto passes | head`) stopped early; that is not an error.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as exc:  # noqa: BLE001 - the command reports every PyPTO error plainly
        from pypto import Error
        from pypto.cli_kernels import CommandError

        if not isinstance(exc, (Error, CommandError)):
            raise
        print(f"pypto {args.command}: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
