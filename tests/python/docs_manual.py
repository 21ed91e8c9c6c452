"""The user manual's code blocks as the test suite reads and runs them.

A page's ```python blocks run in order as one module, in a fresh folder, with
PYPTO_PROG_BUILD_DIR inside it. The module file keeps every code line at its line
in the page, so a traceback or a parser error names the page's own line numbers.
A ```bash block runs with `bash -e` in a folder that shows the clone's examples,
benchmarks, docs and build (symlinks) and has .venv/bin first on PATH; a benchmark it
starts runs one round (PYPTO_BENCH_ROUNDS=1).

The line right above a block's opening fence may carry a marker:

    <!-- docs: not-runnable: REASON -->   the block is not run; REASON says why
    <!-- docs: run-by: tests/...py -->     another test runs it (the file names this page)
    <!-- docs: output -->                  (on a ```text block) what the python block before it prints;
                                          `...` matches any text

Hidden setup code, run before the page's first block, sits in a comment:

    <!-- docs: setup
    import torch
    -->

Commands quoted in the prose (`pypto passes -v`, `make docs`, `python -m pypto.tools.memory_map`) must name a
real command, option, target, module or file.

```python before|after and ```text error blocks are pass cases, checked by
tests/python/test_pass_docs.py.
"""

import contextlib
import io
import importlib.util
import os
import re
import subprocess
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
# What a bash block sees of the clone, under the same names. Not build/: a page's `cmake -B build` must not reach
# the clone's build tree.
CLONE_VIEW = ("examples", "bench", "docs", "pipelines", "platforms", "tests", ".venv", "sdk")
# `make` in the folder above would find no Makefile and a linked folder named like its target: "nothing to do".
MAKE = re.compile(r"(^|[;&|(]\s*)make\b", re.M)
SHELLS = ("bash", "sh")
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,})(?P<lang>[\w+-]*)[ \t]*(?P<words>[^\n`]*)$")
MARKER = re.compile(r"^\s*<!--\s*docs:\s*(?P<kind>[a-z-]+)\s*:?\s*(?P<argument>.*?)\s*-->\s*$")
SETUP = re.compile(r"^[ \t]*<!--\s*docs:\s*setup[ \t]*\n(?P<code>.*?)^[ \t]*-->", re.M | re.S)
KINDS = {"not-runnable", "run-by", "output"}


@dataclass
class Block:
    page: str
    line: int  # of the first code line
    lang: str
    words: str
    code: str
    marker: str = ""
    argument: str = ""

    @property
    def where(self) -> str:
        return f"docs/{self.page}:{self.line}"

    @property
    def is_pass_case(self) -> bool:
        return bool(self.words) and self.words.split()[0] in ("before", "after", "error")

    @property
    def runs_here(self) -> bool:
        return self.lang in ("python", *SHELLS) and not self.marker and not self.is_pass_case


@dataclass
class Setup:
    line: int
    code: str


@dataclass
class PageRun:
    module: object
    printed: str = ""
    printed_by_block: dict[int, str] = field(default_factory=dict)
    shell_output: dict[int, str] = field(default_factory=dict)


def pages() -> list[str]:
    return sorted(str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md"))


def blocks(page: str) -> list[Block]:
    """The fenced blocks of a page with the marker on the line above each."""
    lines = (DOCS / page).read_text().splitlines()
    found: list[Block] = []
    number = 0
    while number < len(lines):
        opening = FENCE.match(lines[number])
        if not opening:
            number += 1
            continue
        end = number + 1
        while end < len(lines) and lines[end].strip() != opening["fence"]:
            end += 1
        assert end < len(lines), f"docs/{page}:{number + 1}: the code block opened here is never closed"
        code = textwrap.dedent("\n".join(lines[number + 1:end]))
        block = Block(page, number + 2, opening["lang"], opening["words"].strip(), code)
        marker = MARKER.match(lines[number - 1]) if number > 0 else None
        if marker:
            block.marker, block.argument = marker["kind"], marker["argument"]
        found.append(block)
        number = end + 1
    return found


def setups(page: str) -> list[Setup]:
    text = (DOCS / page).read_text()
    return [Setup(text.count("\n", 0, m.start("code")) + 1, textwrap.dedent(m["code"])) for m in SETUP.finditer(text)]


def marker_problems(page: str) -> list[str]:
    """Markers that are unknown, lack their argument, or name a test that does not run this page."""
    problems = []
    for block in blocks(page):
        if not block.marker:
            continue
        if block.marker not in KINDS:
            problems.append(f"{block.where}: unknown marker 'docs: {block.marker}' (known: {sorted(KINDS)})")
        elif block.marker == "not-runnable" and not block.argument:
            problems.append(f"{block.where}: 'not-runnable' needs the reason after a colon")
        elif block.marker == "run-by":
            test = REPO / block.argument
            if not test.is_file():
                problems.append(f"{block.where}: run-by names {block.argument}, which does not exist")
            elif Path(page).name not in test.read_text():
                problems.append(f"{block.where}: {block.argument} never mentions {Path(page).name}")
        elif block.marker == "output" and block.lang != "text":
            problems.append(f"{block.where}: 'output' marks a ```text block, not ```{block.lang}")
    return problems


def has_runnable_code(page: str) -> bool:
    return bool(setups(page)) or any(b.runs_here for b in blocks(page))


_runs: dict[str, PageRun] = {}


def run_page(page: str, tmp_path_factory) -> PageRun:
    """Runs the page once per test session; later callers get the same run."""
    if page not in _runs:
        folder = tmp_path_factory.mktemp(re.sub(r"\W", "_", page))
        with _inside(folder):
            _runs[page] = _run(page, folder)
    return _runs[page]


@contextlib.contextmanager
def _inside(folder: Path):
    previous_dir, previous_build = os.getcwd(), os.environ.get("PYPTO_PROG_BUILD_DIR")
    os.environ["PYPTO_PROG_BUILD_DIR"] = str(folder / "build_output")
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(previous_dir)
        if previous_build is None:
            os.environ.pop("PYPTO_PROG_BUILD_DIR", None)
        else:
            os.environ["PYPTO_PROG_BUILD_DIR"] = previous_build


def _run(page: str, folder: Path) -> PageRun:
    page_blocks = blocks(page)
    python = [b for b in page_blocks if b.runs_here and b.lang == "python"]
    module = _module(page, folder, setups(page), python)
    run = PageRun(module)
    for setup in setups(page):
        _exec(module, setup.code, setup.line, f"docs/{page}:{setup.line} (setup)")
    for block in page_blocks:
        if block.runs_here and block.lang == "python":
            run.printed_by_block[block.line] = _exec(module, block.code, block.line, block.where)
        elif block.runs_here:
            run.shell_output[block.line] = _run_shell(block, folder)
    run.printed = "".join(run.printed_by_block.values())
    return run


def _module(page: str, folder: Path, setup: list[Setup], python: list[Block]):
    """A module whose file holds each code line at its line in the page (source lookups and tracebacks agree)."""
    lines = [""] * (DOCS / page).read_text().count("\n")
    for first, code in [(s.line, s.code) for s in setup] + [(b.line, b.code) for b in python]:
        for offset, text in enumerate(code.splitlines()):
            lines[first - 1 + offset] = text
    name = "docs_" + re.sub(r"\W", "_", page.removesuffix(".md"))
    path = folder / f"{name}.py"
    path.write_text("\n".join(lines) + "\n")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # kernels and classes find their source through it
    return module


def _exec(module, code: str, line: int, where: str) -> str:
    compiled = compile("\n" * (line - 1) + code, module.__file__, "exec")
    printed = io.StringIO()
    with contextlib.redirect_stdout(_Tee(printed, sys.stdout)):
        try:
            exec(compiled, module.__dict__)
        except Exception as error:
            raise AssertionError(f"{where}: this block raised {type(error).__name__}: {error}") from error
    return printed.getvalue()


class _Tee(io.TextIOBase):
    def __init__(self, *streams):
        self.streams = streams

    def write(self, text):
        for stream in self.streams:
            stream.write(text)
        return len(text)

    def flush(self):
        for stream in self.streams:
            stream.flush()


def _run_shell(block: Block, folder: Path) -> str:
    assert not MAKE.search(block.code), (f"{block.where}: `make` cannot run inside the test suite; mark the block "
                                         "<!-- docs: not-runnable: REASON --> and show what it runs elsewhere")
    for name in CLONE_VIEW:
        if (REPO / name).exists() and not (folder / name).exists():
            (folder / name).symlink_to(REPO / name)
    # A benchmark a page quotes runs (and checks its results against torch) once instead of timing many rounds.
    env = dict(os.environ, PATH=f"{REPO / '.venv' / 'bin'}{os.pathsep}{os.environ['PATH']}", PYPTO_BENCH_ROUNDS="1")
    done = subprocess.run(["bash", "-e", "-c", block.code], cwd=folder, env=env, capture_output=True,
                          text=True, timeout=600)
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"{block.where}: this command block exited {done.returncode}:\n{output}"
    return output


def output_mismatches(page: str, run: PageRun) -> list[str]:
    """Each `docs: output` block against what the python block before it printed."""
    mismatches, printed = [], None
    for block in blocks(page):
        if block.runs_here and block.lang == "python":
            printed = run.printed_by_block[block.line]
        if block.marker != "output":
            continue
        if printed is None:
            mismatches.append(f"{block.where}: an output block with no python block before it")
        elif not matches_output(block.code, printed):
            mismatches.append(f"{block.where}: the page shows\n{block.code}\nbut the block printed\n{printed}")
    return mismatches


def matches_output(expected: str, printed: str) -> bool:
    """Doctest-style: trailing spaces and outer blank lines do not count, `...` stands for any text."""
    def normal(text):
        return "\n".join(line.rstrip() for line in text.strip("\n").splitlines())
    pattern = ".*?".join(re.escape(part) for part in normal(expected).split("..."))
    return re.fullmatch(pattern, normal(printed), flags=re.S) is not None


LINK = re.compile(r"!?\[[^\]]*\]\((?P<target>[^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}[ \t]+(?P<title>.+?)[ \t]*#*[ \t]*$", re.M)


def _without_fenced_code(text: str) -> str:
    return re.sub(r"^([ \t]*)(`{3,}).*?^\1?[ \t]*\2[ \t]*$", "", text, flags=re.M | re.S)


def _prose(text: str) -> str:
    """The page without fenced code and inline code, where links and headings are not what they seem."""
    text = re.sub(r"<!--.*?-->", "", _without_fenced_code(text), flags=re.S)
    return re.sub(r"`[^`\n]+`", "code", text)


def anchors(page: str) -> set[str]:
    """The ids MkDocs gives the page's headings (Markdown's toc slugs, `_1` on repeats)."""
    from markdown.extensions.toc import slugify

    seen: dict[str, int] = {}
    ids = set()
    for heading in HEADING.finditer(_prose((DOCS / page).read_text().replace("`", ""))):
        title = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading["title"])
        slug = slugify(re.sub(r"[*]", "", title), "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        ids.add(slug if count == 0 else f"{slug}_{count}")
    return ids


def link_problems(page: str) -> list[str]:
    """Relative links that lead nowhere: a missing page or file, or a heading the page does not have."""
    problems = []
    for link in LINK.finditer(_prose((DOCS / page).read_text())):
        target = link["target"]
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        resolved = ((DOCS / page).parent / path).resolve() if path else DOCS / page
        if not resolved.exists():
            problems.append(f"docs/{page}: the link {target} leads to {resolved.relative_to(REPO.parent)}, which does not exist")
            continue
        if anchor and resolved.suffix == ".md" and resolved.is_relative_to(DOCS):
            if anchor not in anchors(str(resolved.relative_to(DOCS))):
                problems.append(f"docs/{page}: the link {target} names #{anchor}, which is no heading there")
    return problems


INLINE_COMMAND = re.compile(r"`(?:\.venv/bin/)?(?P<tool>pypto|make|python)[ ](?P<rest>[^`]+)`")


def inline_command_problems(page: str) -> list[str]:
    """Commands quoted in the prose (`pypto passes -v`, `make docs`, `python -m pypto.tools.x`) that do not exist."""
    problems = []
    for command in INLINE_COMMAND.finditer(_without_fenced_code((DOCS / page).read_text())):
        words = command["rest"].split()
        check = {"pypto": _pypto_problem, "make": _make_problem, "python": _python_problem}[command["tool"]]
        problem = check(words)
        if problem:
            problems.append(f"docs/{page}: `{command[0].strip('`')}`: {problem}")
    return problems


def _pypto_problem(words: list[str]) -> str | None:
    from pypto.cli import build_parser

    subparsers = next(a for a in build_parser()._actions if a.__class__.__name__ == "_SubParsersAction")
    command = subparsers.choices.get(words[0])
    if command is None:
        return f"pypto has no command '{words[0]}' (it has {sorted(subparsers.choices)})"
    options = {s for action in command._actions for s in action.option_strings}
    unknown = [w for w in words[1:] if re.fullmatch(r"--?[a-z][\w-]*", w) and w not in options]
    return f"'pypto {words[0]}' has no option {unknown}" if unknown else None


def _make_problem(words: list[str]) -> str | None:
    targets = set(re.findall(r"^([\w-]+):", (REPO / "Makefile").read_text(), flags=re.M))
    goals = [w for w in words if "=" not in w]
    missing = [g for g in goals if g not in targets]
    return f"the Makefile has no target {missing}" if missing else None


def _python_problem(words: list[str]) -> str | None:
    import importlib.util

    if words[0] == "-m":
        return None if importlib.util.find_spec(words[1]) else f"there is no module {words[1]}"
    script = words[0]
    if "/" not in script or script.startswith("<") or not script.endswith(".py"):
        return None  # the reader's own file, or a placeholder
    return None if (REPO / script).is_file() else f"{script} is not a file of the clone"
