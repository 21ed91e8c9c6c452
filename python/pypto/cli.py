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


def _cmd_ops(args: argparse.Namespace) -> int:
    from pypto import ops

    for op in ops.list_ops():
        if args.namespace and op.namespace != args.namespace:
            continue
        print(op.signature)
    return 0


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
    p = sub.add_parser("ops", help="list the registered ops with their signatures")
    p.add_argument("--namespace", help="only ops of this namespace (tensor, tile, system, array)")
    p.set_defaults(func=_cmd_ops)
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

        if not isinstance(exc, Error):
            raise
        print(f"pypto {args.command}: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
