"""Runs FoldTileIdentities over each printed-IR case in cases/ and compares the result with the expected program.

    python check_cases.py [PLUGIN_FOLDER]         # default: build/plugins/fold_tile_identities
    python check_cases.py --update                # rewrite the .expected.py files from what the pass now prints

A case is cases/<case>.input.py (a program in the printed @pl.program form),
cases/<case>.expected.py (the program the pass must produce) and optionally
cases/<case>.options.yaml (the pass's options, as in a pipeline file).
Exits 1 and prints a diff for each case whose output differs.
"""

import argparse
import difflib
import sys
import tempfile
from pathlib import Path

import yaml

import pypto.language as pl
from pypto import ir, passes, plugins

HERE = Path(__file__).resolve().parent
PASS_NAME = "FoldTileIdentities"


def run_pass(program: ir.Program, options: dict | None, work_dir: Path) -> ir.Program:
    """The pass alone, as a one-step pipeline; the IR is verified before and after it."""
    step = {"name": PASS_NAME, **({"options": options} if options else {})}
    pipeline = work_dir / "one_pass.yaml"
    pipeline.write_text(yaml.safe_dump({"name": "one_pass", "input_properties": ["SSAForm"], "verify": True,
                                        "passes": [step]}))
    return passes.PassManager(str(pipeline)).run(program, platform="a2a3sim")


def check_case(input_file: Path, work_dir: Path, update: bool) -> bool:
    stem = input_file.name.removesuffix(".input.py")
    options_file = input_file.with_name(f"{stem}.options.yaml")
    expected_file = input_file.with_name(f"{stem}.expected.py")
    options = yaml.safe_load(options_file.read_text()) if options_file.exists() else None
    program = pl.parse(input_file.read_text(), filename=str(input_file))
    actual = ir.as_python(run_pass(program, options, work_dir)).rstrip("\n") + "\n"
    if update:
        expected_file.write_text(actual)
        print(f"{stem}: wrote {expected_file.name}")
        return True
    expected = expected_file.read_text()
    if actual == expected:
        print(f"{stem}: ok")
        return True
    print(f"{stem}: the pass printed something else than {expected_file.name}:")
    sys.stdout.writelines(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True),
                                               str(expected_file.name), "actual"))
    return False


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("plugin", nargs="?", default=HERE / "build" / "plugins" / "fold_tile_identities",
                        help="the plugin's folder (holding manifest.yaml)")
    parser.add_argument("--update", action="store_true", help="rewrite the expected files")
    args = parser.parse_args()
    plugins.load(Path(args.plugin))
    cases = sorted((HERE / "cases").glob("*.input.py"))
    with tempfile.TemporaryDirectory() as work_dir:
        results = [check_case(case, Path(work_dir), args.update) for case in cases]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
