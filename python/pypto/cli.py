"""The ``pypto`` command."""

from __future__ import annotations

import argparse
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


def _cmd_passes(_: argparse.Namespace) -> int:
    from pypto import plugins

    passes = plugins.list_passes()
    width = max((len(p["name"]) for p in passes), default=0)
    for p in passes:
        print(f"{p['name']:<{width}}  {p['description']}  [{p['plugin']}]")
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
    sub.add_parser("passes", help="list the passes, one line each").set_defaults(func=_cmd_passes)
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
    except Exception as exc:  # noqa: BLE001 - the command reports every PyPTO error plainly
        from pypto import Error

        if not isinstance(exc, Error):
            raise
        print(f"pypto {args.command}: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
