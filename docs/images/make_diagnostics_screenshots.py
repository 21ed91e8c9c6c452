"""Regenerates docs/images/diagnostics-report.png and docs/images/torch-codegen-bisect.png.

    python docs/images/make_diagnostics_screenshots.py [--keep]

Works in WORK (a fixed folder, so that the paths in the pictures do not change from run to run), which it
empties first:

* diagnostics-report.png (docs/diagnostics.md): ``pypto compile`` of KERNELS' ``scale_exp_matmul``, which
  has a loop-invariant load (PH002), narrow rows (PH001) and a reloaded matmul panel (PH003); compiled twice,
  so that the picture's toolchain reads its kernels from the object cache. The page is
  ``python -m pypto.tools.compile_report`` of the second compile.
* torch-codegen-bisect.png (docs/torch-codegen.md): ``pypto debug bisect`` of test_bisect.py's ``add_scale`` with a
  pass plugin that turns tile.add into tile.sub (the one tests/python/debug/test_bisect.py builds) put into
  the default pipeline, then what the generated torch scripts say; every command really runs here and the
  picture shows what it printed, as a terminal would.

Both pages are photographed in headless Debian ``chromium``. ``--keep`` leaves WORK in place.
"""

from __future__ import annotations

import argparse
import html
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests/python"
IMAGES = ROOT / "docs/images"
WORK = Path(tempfile.gettempdir()) / "pypto_diagnostics_screenshots"
PYPTO = str(Path(sys.executable).with_name("pypto"))

KERNELS = '''\
import pypto.language as pl


@pl.jit
def scale_exp_matmul(x: pl.Tensor[[1024, 256], pl.FP32], w: pl.Tensor[[16, 256], pl.FP32],
                     v: pl.Tensor[[256, 1024], pl.FP32], a: pl.Tensor[[64, 512], pl.FP32],
                     b: pl.Tensor[[512, 512], pl.FP32], scaled: pl.Out[pl.Tensor[[1024, 256], pl.FP32]],
                     exps: pl.Out[pl.Tensor[[256, 1024], pl.FP32]], prod: pl.Out[pl.Tensor[[64, 512], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.range(0, 1024, 16):
            t = pl.load(x, [i, 0], [16, 256], target_memory=pl.Mem.Vec)
            s = pl.load(w, [0, 0], [16, 256], target_memory=pl.Mem.Vec)
            scaled = pl.store(pl.mul(t, s), [i, 0], scaled)
    with pl.at(level=pl.Level.CORE_GROUP):
        for j in pl.range(0, 1024, 32):
            c = pl.load(v, [0, j], [256, 32], target_memory=pl.Mem.Vec)
            exps = pl.store(pl.exp(c), [0, j], exps)
    with pl.at(level=pl.Level.CORE_GROUP):
        for n in pl.range(0, 512, 128):
            a0 = pl.load(a, [0, 0], [64, 128], target_memory=pl.Mem.Mat)
            b0 = pl.load(b, [0, n], [128, 128], target_memory=pl.Mem.Mat)
            acc = pl.matmul(pl.move(a0, target_memory=pl.Mem.Left), pl.move(b0, target_memory=pl.Mem.Right))
            for k in pl.range(128, 512, 128):
                ak = pl.load(a, [0, k], [64, 128], target_memory=pl.Mem.Mat)
                bk = pl.load(b, [k, n], [128, 128], target_memory=pl.Mem.Mat)
                acc = pl.matmul_acc(acc, pl.move(ak, target_memory=pl.Mem.Left),
                                    pl.move(bk, target_memory=pl.Mem.Right))
            prod = pl.store(acc, [0, n], prod)
    return scaled, exps, prod

'''

REPORT_WINDOW = "1400,1700"
TERMINAL_WIDTH = 1300
TERMINAL_LINE_PX = 18  # the terminal page's line height, to size the window to the text
BROKEN_PASS = "BisectCorruptAdd"
BROKEN_PLUGIN = "bisect_corrupt_add"

_TERMINAL_CSS = """
body{margin:0;background:#1e1f22}
.window{margin:12px;border-radius:8px;overflow:hidden;box-shadow:0 2px 10px rgba(0,0,0,.5)}
.bar{background:#3a3b3f;padding:6px 10px;font:12px system-ui,sans-serif;color:#ccc}
.bar i{display:inline-block;width:11px;height:11px;border-radius:6px;margin-right:6px;vertical-align:middle}
pre{margin:0;padding:10px 14px;background:#0f1012;color:#d8d8d8;font:13px/18px "DejaVu Sans Mono",monospace;
white-space:pre-wrap;word-break:break-all}
.prompt{color:#7ec07e}.cmd{color:#fff;font-weight:bold}.culprit{color:#ff7b72;font-weight:bold}
.added{color:#ff7b72}.removed{color:#7ec07e}
"""


def run(args: list[str], *, ok_codes: tuple[int, ...] = (0,)) -> str:
    """Runs a command in WORK; returns what it printed (stdout, then stderr)."""
    done = subprocess.run(args, cwd=WORK, capture_output=True, text=True, timeout=600)
    if done.returncode not in ok_codes:
        sys.exit(f"make_diagnostics_screenshots: {shlex.join(args)} exited {done.returncode}:\n{done.stderr}")
    return done.stdout + done.stderr


def screenshot(page: Path, image: Path, window: str) -> None:
    chromium = shutil.which("chromium")
    if chromium is None:
        sys.exit("make_diagnostics_screenshots: chromium is not installed (apt install chromium)")
    subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    f"--screenshot={image}", f"--window-size={window}", page.as_uri()],
                   check=True, capture_output=True, timeout=120)


def compile_report_page() -> Path:
    """Compiles scale_exp_matmul twice (the second from the object cache) and writes its report page."""
    for out in ("build_output/first", "build_output/_jit_scale_exp_matmul"):
        run([PYPTO, "compile", "kernels.py::scale_exp_matmul", "--out", out])
    page = run([sys.executable, "-m", "pypto.tools.compile_report", "build_output/_jit_scale_exp_matmul"])
    return WORK / page.strip()


def tests_on_path() -> None:
    """The test helpers the pictures reuse: the broken-pass plugin and the kernel test_bisect.py bisects."""
    if str(TESTS) not in sys.path:
        sys.path[:0] = [str(TESTS), str(TESTS / "debug")]


def bisect_kernel() -> str:
    """add_scale, the kernel tests/python/debug/test_bisect.py bisects, without its import line."""
    tests_on_path()
    from test_bisect import KERNEL_FILE

    return KERNEL_FILE.replace("import pypto.language as pl\n", "")


def build_broken_pipeline() -> None:
    """The test-only plugin that turns tile.add into tile.sub, and the default pipeline with it in."""
    tests_on_path()
    from plugin_builder import build_plugin
    from test_bisect import CORRUPT_ADD_SOURCE

    from pypto import passes

    build_plugin(WORK / BROKEN_PLUGIN, BROKEN_PLUGIN, CORRUPT_ADD_SOURCE, kind="pass", provides=[BROKEN_PASS],
                 defines={"PASS_NAME": BROKEN_PASS})
    default = [step["pass"] for step in passes.load_pipeline("default")["passes"]]
    at = default.index("InferTileMemorySpace")
    steps = [*default[:at], BROKEN_PASS, *default[at:]]
    (WORK / "broken.yaml").write_text("name: broken\ninput_properties: []\npasses:\n"
                                      + "".join(f"  - {step}\n" for step in steps))


def bisect_session() -> list[tuple[list[str], str]]:
    """The commands of the terminal picture and what each printed."""
    build_broken_pipeline()
    bisect = [PYPTO, "debug", "bisect", "kernels.py::add_scale", "--pipeline", "broken.yaml",
              "--plugin", BROKEN_PLUGIN, "--out", "bisect", "--dump-passes"]
    session = [(bisect, run(bisect, ok_codes=(1,)))]
    stages = sorted((WORK / "bisect/bisect_stages").glob("*_torch.py"))
    culprit = next(i for i, p in enumerate(stages) if p.name.endswith(f"_{BROKEN_PASS}_torch.py"))
    before, after = (str(p.relative_to(WORK)) for p in stages[culprit - 1:culprit + 1])
    diff = ["diff", before, after]
    session.append((diff, run(diff, ok_codes=(1,))))
    head = ["head", "-n", "7", "bisect/debug/_jit_add_scale_torch.py"]
    session.append((head, run(head)))
    return session


def _output_line(line: str) -> str:
    text = html.escape(line)
    if line.startswith("FIRST DIVERGING PASS"):
        return f'<span class="culprit">{text}</span>'
    if line.startswith("> "):
        return f'<span class="added">{text}</span>'
    if line.startswith("< "):
        return f'<span class="removed">{text}</span>'
    return text


def terminal_page(session: list[tuple[list[str], str]]) -> tuple[Path, int]:
    """The session as a terminal window; returns the page and the lines it shows."""
    lines = []
    for args, printed in session:
        shown = [Path(args[0]).name, *args[1:]]
        lines.append(f'<span class="prompt">$</span> <span class="cmd">{html.escape(shlex.join(shown))}</span>')
        lines += [_output_line(line) for line in printed.rstrip("\n").splitlines()]
    lines.append('<span class="prompt">$</span>')
    page = WORK / "terminal.html"
    page.write_text(f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>pypto debug bisect</title>'
                    f'<style>{_TERMINAL_CSS}</style></head><body><div class="window"><div class="bar">'
                    '<i style="background:#ff5f56"></i><i style="background:#ffbd2e"></i>'
                    '<i style="background:#27c93f"></i> terminal</div>'
                    f'<pre>{chr(10).join(lines)}</pre></div></body></html>\n', encoding="utf-8")
    return page, len(lines)


def terminal_window(page_lines: int, session: list[tuple[list[str], str]]) -> str:
    """A window tall enough for the text: long lines wrap, at about 150 characters of the terminal's width."""
    wrapped = sum(len(line) // 150 for _, printed in session for line in printed.splitlines())
    return f"{TERMINAL_WIDTH},{(page_lines + wrapped) * TERMINAL_LINE_PX + 80}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", action="store_true", help=f"keep {WORK} (the compiles, the pages)")
    args = parser.parse_args()
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    (WORK / "kernels.py").write_text(KERNELS + bisect_kernel())
    os.environ["PYPTO_CACHE_DIR"] = str(WORK / "object_cache")  # the commands inherit it: one cache, made here
    screenshot(compile_report_page(), IMAGES / "diagnostics-report.png", REPORT_WINDOW)
    session = bisect_session()
    page, page_lines = terminal_page(session)
    screenshot(page, IMAGES / "torch-codegen-bisect.png", terminal_window(page_lines, session))
    if not args.keep:
        shutil.rmtree(WORK)
    print(IMAGES / "diagnostics-report.png")
    print(IMAGES / "torch-codegen-bisect.png")


if __name__ == "__main__":
    main()
