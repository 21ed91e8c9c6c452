"""pypto.tools.memory_map on real compile dumps (softmax: Vec only; matmul: Mat/Left/Right/Acc)."""

import importlib.util
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from docs_manual import run_page

import pypto.language as pl
from pypto import platforms
from pypto.runtime import RunConfig
from pypto.tools import memory_map

# run_page runs a page once per worker and the tests of this group share the runs: one worker takes them all.
pytestmark = pytest.mark.xdist_group("manual")

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = {
    "softmax": ROOT / "examples/intermediate/02_softmax.py",
    "matmul": ROOT / "examples/beginner/05_matmul.py",
}
KERNEL_TYPES = {"InCore", "AIC", "AIV"}
VOID = {"meta", "input", "br", "img", "hr", "link"}


def _compile(name, out_dir):
    spec = importlib.util.spec_from_file_location(f"_mm_{name}", EXAMPLES[name])
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    kernel = next(v for v in vars(mod).values() if type(v).__name__ == "JITFunction")
    kernel.compile(config=RunConfig(dump_passes=True, save_kernels_dir=str(out_dir)))
    return out_dir


@pytest.fixture(scope="module", params=sorted(EXAMPLES))
def compiled(request, tmp_path_factory):
    return request.param, _compile(request.param, tmp_path_factory.mktemp(request.param))


class _Page(HTMLParser):
    """Checks nesting and collects cards, boxes and pills."""

    def __init__(self):
        super().__init__()
        self.stack, self.cards, self.boxes, self.pills, self.errors = [], [], [], [], []
        self.card = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        if "card" in cls:
            self.card = a["data-kernel"]
            self.cards.append(self.card)
        if "box" in cls:
            self.boxes.append((self.card, a))
        if "pill" in cls:
            self.pills.append((self.card, a))
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"unexpected </{tag}> (open: {self.stack[-3:]})")
        else:
            self.stack.pop()


def _parse_page(path):
    page = _Page()
    text = Path(path).read_text()
    page.feed(text)
    page.close()
    assert not page.errors, page.errors
    assert page.stack == [], page.stack
    assert text.startswith("<!DOCTYPE html>")
    assert "http://" not in text and "https://" not in text  # standalone: no CDN
    return page


def _ir_tiles(dump):
    """(function, tile, space, offset, size) for every tile assigned in a kernel, walked independently."""
    program = pl.parse(dump.read_text(), filename=str(dump))
    out, kernels = set(), []

    def walk(fn, node):
        kind = type(node).__name__
        if kind == "AssignStmt":
            t = node.var.type
            if type(t).__name__ == "TileType" and t.memref is not None:
                m = t.memref
                out.add((fn, node.var.name_hint, str(m.memory_space).split(".")[-1],
                         m.byte_offset.value, m.size))
        for f in ("stmts", "body", "then_body", "else_body"):
            child = getattr(node, f, None)
            if isinstance(child, list):
                for c in child:
                    walk(fn, c)
            elif child is not None and hasattr(child, "field_names"):
                walk(fn, child)

    funcs = program.functions
    for f in (funcs.values() if isinstance(funcs, dict) else funcs):
        if str(f.func_type).split(".")[-1] in KERNEL_TYPES:
            kernels.append(f.name)
            walk(f.name, f.body)
    return kernels, out


@pytest.mark.parametrize("form", ["output_dir", "passes_dump", "file"])
def test_page_matches_ir(compiled, form, tmp_path):
    name, out_dir = compiled
    dump = next((out_dir / "passes_dump").glob("*_AllocateMemoryAddr.py"))
    src = {"output_dir": out_dir, "passes_dump": out_dir / "passes_dump", "file": dump}[form]
    html_path = memory_map.write(src, tmp_path / "map.html")
    page = _parse_page(html_path)
    kernels, tiles = _ir_tiles(dump)
    assert kernels and sorted(page.cards) == sorted(kernels)
    boxes = {(card, a["data-tile"], a["data-space"], int(a["data-offset"]), int(a["data-size"]))
             for card, a in page.boxes}
    assert len(page.boxes) == len(tiles)
    assert boxes == tiles
    for _, a in page.boxes:
        assert int(a["data-first"]) <= int(a["data-last"])
        assert a["title"].startswith(a["data-tile"] + " ")
        assert f"line {a['data-line']}" in a["title"]
    caps = {str(k).split(".")[-1]: v["capacity"] for k, v in platforms.get("a2a3sim")["memory"].items()}
    spaces = {s for _, _, s, _, _ in tiles}
    assert sorted((c, a["data-space"]) for c, a in page.pills) == sorted({(t[0], t[2]) for t in tiles})
    for card, a in page.pills:
        hwm, cap = int(a["data-hwm"]), int(a["data-capacity"])
        assert cap == caps[a["data-space"]]
        assert 0 < hwm <= cap
        assert hwm == max(o + s for fn, _, sp, o, s in tiles if fn == card and sp == a["data-space"])
        assert ("full" in a["class"].split()) == (hwm >= 0.95 * cap)
    if name == "matmul":
        assert spaces == {"Mat", "Left", "Right", "Acc"}
    else:
        assert spaces == {"Vec"}


def test_default_output_and_api_with_program(compiled, tmp_path):
    _, out_dir = compiled
    dump = next((out_dir / "passes_dump").glob("*_AllocateMemoryAddr.py"))
    r = subprocess.run([sys.executable, "-m", "pypto.tools.memory_map", str(out_dir)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert Path(r.stdout.strip()) == dump.with_suffix(".memory_map.html")
    _parse_page(dump.with_suffix(".memory_map.html"))
    program = pl.parse(dump.read_text())
    page = _parse_page(memory_map.write(program, tmp_path / "p.html"))
    assert len(page.boxes) == len(_ir_tiles(dump)[1])


def test_high_water_mark_pill_turns_red():
    km = memory_map.KernelMap("k", "InCore", capacity={"Vec": 1000})
    km.tiles = [memory_map.TileBox("a", "Vec", 0, 960, "mem_vec_0", 1, 2, 1),
                memory_map.TileBox("b", "Vec", 500, 100, "mem_vec_1", 2, 3, 2)]
    page = _Page()
    page.feed(memory_map.render("p", [memory_map._collect_conflicts(km)]))
    (_, pill), = page.pills
    assert pill["data-hwm"] == "960" and "full" in pill["class"].split()
    assert all("conflict" in a["class"].split() for _, a in page.boxes)


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "pypto.tools.memory_map", *map(str, args)],
                          capture_output=True, text=True)


def test_cli_errors_are_one_line(compiled, tmp_path):
    _, out_dir = compiled
    r = _cli(tmp_path / "missing")
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and "no such file or directory" in r.stderr
    early = next((out_dir / "passes_dump").glob("*_InitMemRef.py"))
    r = _cli(early)
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert "before AllocateMemoryAddr" in r.stderr
    r = _cli(out_dir, "-p", "NoSuchPass")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "NoSuchPass" in r.stderr


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian chromium not installed")
def test_headless_screenshot_has_no_console_errors(compiled, tmp_path):
    _, out_dir = compiled
    page = memory_map.write(out_dir, tmp_path / "map.html")
    shot = tmp_path / "shot.png"
    r = subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr",
                        "--v=0", f"--screenshot={shot}", "--window-size=1200,900", page.as_uri()],
                       capture_output=True, text=True, timeout=120)
    assert shot.is_file() and shot.stat().st_size > 0
    console = [ln for ln in r.stderr.splitlines() if "CONSOLE" in ln]
    assert not console and "Uncaught" not in r.stderr, console


def test_docs_page_example_runs(tmp_path_factory):
    """The python block of docs/memory-map.md prints what the page says and writes a page that parses."""
    run = run_page("memory-map.md", tmp_path_factory)
    lines = run.printed.splitlines()
    assert lines[0] == "['add_relu_incore_0']"
    assert lines[1] == "131072 188416"  # two [128, 128] FP32 buffers of Vec on a2a3sim
    _parse_page(run.module.page)
