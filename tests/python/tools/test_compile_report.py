"""pypto.tools.compile_report on a real compile: every hint of perf_hints.log with its source, the profile's bars."""

import json
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

import pypto.language as pl
from pypto.runtime import RunConfig
from pypto.tools import compile_report

ROOT = Path(__file__).resolve().parents[3]
VOID = {"meta", "input", "br", "img", "hr", "link"}


@pl.jit
def scale_and_exp(x: pl.Tensor[[1024, 256], pl.FP32], w: pl.Tensor[[16, 256], pl.FP32],
                  v: pl.Tensor[[256, 1024], pl.FP32], scaled: pl.Out[pl.Tensor[[1024, 256], pl.FP32]],
                  exps: pl.Out[pl.Tensor[[256, 1024], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.range(0, 1024, 16):
            t = pl.load(x, [i, 0], [16, 256], target_memory=pl.Mem.Vec)
            s = pl.load(w, [0, 0], [16, 256], target_memory=pl.Mem.Vec)  # PH002: the same block every iteration
            scaled = pl.store(pl.mul(t, s), [i, 0], scaled)
    with pl.at(level=pl.Level.CORE_GROUP):
        for j in pl.range(0, 1024, 32):
            c = pl.load(v, [0, j], [256, 32], target_memory=pl.Mem.Vec)  # PH001: rows of 128 bytes
            exps = pl.store(pl.exp(c), [0, j], exps)
    return scaled, exps


def _compile(out_dir: Path) -> Path:
    scale_and_exp.clear_cache()
    scale_and_exp.compile(config=RunConfig(save_kernels_dir=str(out_dir)))
    return out_dir


@pytest.fixture(scope="module", autouse=True)
def object_cache_of_this_module(tmp_path_factory):
    """An object cache of the module's own: the session's is shared with other workers, which may have compiled
    the same kernels already."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYPTO_CACHE_DIR", str(tmp_path_factory.mktemp("compile_report_cache")))
        yield


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """The kernel's output folder; the kernel objects were compiled for it (not read from the object cache)."""
    return _compile(tmp_path_factory.mktemp("compile_report") / "first")


class _Page(HTMLParser):
    """Checks nesting; collects the hint rows, their source lines, the profile's bars and the code sections."""

    def __init__(self):
        super().__init__()
        self.stack, self.errors = [], []
        self.hints, self.snippets, self.missing, self.bars, self.ids, self.links = [], {}, {}, [], {}, []
        self._cells = None  # the cells of the hint row being read
        self._source = None  # the index of the source row being read
        self._text = None  # where the text being read goes

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        if tag == "tr" and "hint" in cls:
            self._cells = []
            self.hints.append({"attrs": a, "cells": self._cells})
        elif tag == "tr" and "source" in cls:
            self._source = int(a["data-index"])
            self.snippets[self._source] = []
        elif tag == "td" and self._cells is not None:
            self._text = []
            self._cells.append(self._text)
        elif tag == "span" and "data-line" in a:
            self._text = []
            self.snippets[self._source].append({"line": int(a["data-line"]), "hinted": "hinted" in cls,
                                                "text": self._text})
        elif tag == "p" and "missing" in cls and self._source is not None:
            self._text = self.missing[self._source] = []
        elif "id" in a:
            self._text = self.ids[a["id"]] = []
        if "bar-row" in cls:
            self.bars.append(a)
        if tag == "a":
            self.links.append(a)
        if tag not in VOID:
            self.stack.append(tag)

    def handle_data(self, data):
        if self._text is not None:
            self._text.append(data)

    def handle_endtag(self, tag):
        if tag in ("td", "span", "p", "h3"):
            self._text = None
        if tag == "tr":
            self._cells = self._source = None
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"unexpected </{tag}> (open: {self.stack[-3:]})")
        else:
            self.stack.pop()


def _parse_page(path: Path) -> _Page:
    text = path.read_text()
    page = _Page()
    page.feed(text)
    page.close()
    assert not page.errors, page.errors
    assert page.stack == [], page.stack
    assert text.startswith("<!DOCTYPE html>")
    assert "http://" not in text and "https://" not in text and "<link" not in text  # standalone: nothing to fetch
    return page


def _source_line(path: str, line: int) -> str:
    return Path(path).read_text().splitlines()[line - 1]


def test_the_page_lists_every_hint_of_the_log_with_its_source_lines(compiled, tmp_path):
    page = _parse_page(compile_report.write(compiled, tmp_path / "page.html"))
    log = (compiled / "report" / "perf_hints.log").read_text().splitlines()
    assert {line.split()[0] for line in log} == {"PH001", "PH002"}
    rows = []
    for row in page.hints:
        code, severity, where, function, message, fix = ("".join(cell) for cell in row["cells"])
        assert row["attrs"]["data-code"] == code and row["attrs"]["data-where"] == where
        rows.append(f"{code} {severity} {where} {function}: {message}" + (f" (fix: {fix})" if fix else ""))
    assert rows == log
    for index, line in enumerate(log):
        file, number = re.match(r"\S+ \S+ (.+):(\d+) ", line).groups()
        number = int(number)
        snippet = page.snippets[index]
        assert [entry["line"] for entry in snippet] == list(range(number - 2, number + 3))
        assert [entry["line"] for entry in snippet if entry["hinted"]] == [number]
        for entry in snippet:
            assert "".join(entry["text"]) == f"{entry['line']}{_source_line(file, entry['line'])}"
        marker = "# PH002" if line.startswith("PH002") else "pl.exp(c)" if "tile.store" in line else "# PH001"
        assert marker in _source_line(file, number), line


def test_each_code_links_to_its_section_of_the_diagnostics_page(compiled, tmp_path):
    page = _parse_page(compile_report.write(compiled, tmp_path / "page.html"))
    headings = dict(re.findall(r"^### (PH\d+) — (\w+)$", (ROOT / "docs/diagnostics.md").read_text(), re.M))
    codes = {row["attrs"]["data-code"] for row in page.hints}
    assert {a["href"] for a in page.links if a.get("href", "").startswith("#")} == {f"#{c}" for c in codes}
    doc_links = sorted(a["href"] for a in page.links if "doclink" in a.get("class", ""))
    docs_uri = (ROOT / "docs/diagnostics.md").resolve().as_uri()
    assert doc_links == sorted(f"{docs_uri}#{c.lower()}--{headings[c].lower()}" for c in codes)
    for code in codes:
        assert "".join(page.ids[code]) == f"{code} — {headings[code]}"


def test_a_source_file_that_is_gone_is_said_so(compiled, tmp_path):
    moved = tmp_path / "moved"
    shutil.copytree(compiled, moved)
    log = moved / "report" / "perf_hints.log"
    source = Path(__file__).resolve()
    log.write_text(log.read_text().replace(str(source), str(tmp_path / "gone.py")))
    page = _parse_page(compile_report.write(moved, tmp_path / "page.html"))
    assert page.hints and not any(page.snippets.values())
    assert all(f"source file {tmp_path / 'gone.py'} is not on this machine" in "".join(text)
               for text in page.missing.values())
    assert len(page.missing) == len(page.hints)


def _bars_match_the_profile(folder: Path, page: _Page) -> dict:
    profile = json.loads((folder / "report" / "compile_profile.json").read_text())
    shown = sorted((bar["data-stage"], bar["data-name"], float(bar["data-ms"])) for bar in page.bars)
    assert shown == sorted((row["stage"], row["name"], row["ms"]) for row in profile["stages"])
    for bar in page.bars:
        assert float(bar["data-share"]) == pytest.approx(100 * float(bar["data-ms"]) / profile["total_ms"], abs=1e-3)
    return profile


def test_the_profile_bars_are_the_stages_of_compile_profile_json(compiled, tmp_path):
    page = _parse_page(compile_report.write(compiled, tmp_path / "page.html"))
    profile = _bars_match_the_profile(compiled, page)
    toolchain, = (row for row in profile["stages"] if row["stage"] == "toolchain")
    assert not toolchain.get("cached")
    assert not any("cached" in bar["class"].split() for bar in page.bars)


def test_a_cached_toolchain_is_marked(compiled, tmp_path):
    again = _compile(tmp_path / "again")  # the same kernels: every object comes from the object cache
    page = _parse_page(compile_report.write(again, tmp_path / "page.html"))
    profile = _bars_match_the_profile(again, page)
    toolchain, = (row for row in profile["stages"] if row["stage"] == "toolchain")
    assert toolchain["cached"] is True
    marked = [(bar["data-stage"], bar["data-name"]) for bar in page.bars if "cached" in bar["class"].split()]
    assert marked == [("toolchain", toolchain["name"])]


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "pypto.tools.compile_report", *map(str, args)],
                          capture_output=True, text=True, timeout=120)


def test_the_command_writes_report_index_html_by_default(compiled):
    default = compiled / "report" / "index.html"
    default.unlink(missing_ok=True)
    result = _cli(compiled)
    assert result.returncode == 0, result.stderr
    assert Path(result.stdout.strip()) == default
    assert len(_parse_page(default).hints) == len((compiled / "report" / "perf_hints.log").read_text().splitlines())


def _assert_one_line_error(result, *phrases):
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("compile_report: error: "), result.stderr
    assert "Traceback" not in result.stderr
    for phrase in phrases:
        assert phrase in result.stderr


def test_the_command_errors_are_one_line(compiled, tmp_path):
    _assert_one_line_error(_cli(tmp_path / "missing"), "no such directory")
    (tmp_path / "no_report").mkdir()
    _assert_one_line_error(_cli(tmp_path / "no_report"), "has no report/perf_hints.log", "compile output folder")
    broken = tmp_path / "broken"
    shutil.copytree(compiled, broken)
    (broken / "report" / "perf_hints.log").write_text("PH001 perf_hint\n")
    _assert_one_line_error(_cli(broken), "perf_hints.log:1: not a hint line")
    (broken / "report" / "perf_hints.log").write_text("")
    (broken / "report" / "compile_profile.json").write_text("{\"stages\": [")
    _assert_one_line_error(_cli(broken), "is not a compile profile")


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian chromium not installed")
def test_headless_screenshot_has_no_console_errors(compiled, tmp_path):
    page = compile_report.write(compiled, tmp_path / "page.html")
    shot = tmp_path / "shot.png"
    r = subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr",
                        "--v=0", f"--screenshot={shot}", "--window-size=1400,1000", page.as_uri()],
                       capture_output=True, text=True, timeout=120)
    assert shot.is_file() and shot.stat().st_size > 0
    console = [ln for ln in r.stderr.splitlines() if "CONSOLE" in ln]
    assert not console and "Uncaught" not in r.stderr, console
