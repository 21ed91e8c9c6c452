"""Compile report: a compile output folder's performance hints and compile profile as one standalone HTML page.

    python -m pypto.tools.compile_report OUTPUT_DIR [-o OUT.html]

Reads ``report/perf_hints.log`` and ``report/compile_profile.json`` of a compile output folder
(``build_output/_jit_<name>_<timestamp>/``, or ``RunConfig.save_kernels_dir``) and writes a page (default
``OUTPUT_DIR/report/index.html``) with every hint beside the source lines it names, each hint code linked to its
section of docs/diagnostics.md, and the compile's stages as horizontal bars. Everything is inline: the page
needs no network. See docs/diagnostics.md.
"""

from __future__ import annotations

import argparse
import html
import json
import os
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["CompileReportError", "Hint", "SourceSnippet", "ProfileRow", "Profile", "DocSection", "CompileReport",
           "parse_hint_line", "read_hints", "read_profile", "read_doc_sections", "source_snippet", "collect",
           "render", "write", "main"]

REPORT_DIR = "report"
PERF_HINTS_LOG = "perf_hints.log"
COMPILE_PROFILE_JSON = "compile_profile.json"
DEFAULT_PAGE = "index.html"
# Source lines shown on each side of a hinted line.
CONTEXT_LINES = 2
# In this repository's layout (python/pypto/tools/ -> the root); an installed package has no docs beside it.
DIAGNOSTICS_DOC = Path(__file__).resolve().parents[3] / "docs" / "diagnostics.md"
# The stages of a compile in the order the profile lists them (pypto.jit.report.STAGES), and a colour for each.
STAGE_COLOURS = {"setup": "#8c6bb1", "frontend": "#2b8cbe", "passes": "#41ab5d", "codegen": "#fd8d3c",
                 "toolchain": "#e34a33", "write": "#969696"}
OTHER_STAGE_COLOUR = "#bdbdbd"
# A stage with more rows than this starts folded, so that one screen shows the whole profile.
FOLD_ROWS = 8

_HINT_LINE = re.compile(r"^(?P<code>\S+) (?P<severity>\S+) (?:(?P<file>.+?):(?P<line>\d+)|<unknown>) "
                        r"(?P<function>\S+): (?P<text>.*)$")
_FIX_SUFFIX = re.compile(r" \(fix: (?P<fix>.*)\)$")
_DOC_HEADING = re.compile(r"^### (?P<code>PH\d+) — (?P<rule>\w+)\s*$", re.M)
_DOC_MEANS = re.compile(r"^\*\*Means:\*\*(?P<means>.*?)(?:\n\s*\n|\Z)", re.M | re.S)


class CompileReportError(Exception):
    """A problem with the input, reported as one line by the CLI."""


@dataclass(frozen=True)
class Hint:
    """One line of perf_hints.log: ``CODE severity file:line function: message (fix: ...)``."""

    code: str
    severity: str
    file: str | None  # None when the hint has no source location (``<unknown>``)
    line: int
    function: str
    message: str
    fix: str

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}" if self.file is not None else "<unknown>"


@dataclass(frozen=True)
class SourceSnippet:
    """The source lines around a hinted line, or why there are none (``missing``)."""

    first_line: int = 0
    lines: tuple[str, ...] = ()
    hinted_line: int = 0
    missing: str = ""


@dataclass(frozen=True)
class ProfileRow:
    """One row of compile_profile.json's ``stages``: a timed step and what it made or found."""

    stage: str
    name: str
    ms: float
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def cached(self) -> bool:
        return bool(self.details.get("cached"))

    @property
    def ran(self) -> bool:
        return self.details.get("ran", True) is not False


@dataclass(frozen=True)
class Profile:
    total_ms: float
    untimed_ms: float
    rows: tuple[ProfileRow, ...]

    def stages(self) -> list[str]:
        """The stages present, known ones in compile order, then any others by name."""
        present = {row.stage for row in self.rows}
        return [s for s in STAGE_COLOURS if s in present] + sorted(present - set(STAGE_COLOURS))

    def stage_ms(self, stage: str) -> float:
        return sum(row.ms for row in self.rows if row.stage == stage)

    def share(self, ms: float) -> float:
        return 100.0 * ms / self.total_ms if self.total_ms > 0 else 0.0


@dataclass(frozen=True)
class DocSection:
    """A hint code's section of docs/diagnostics.md: ``### PH002 — LoopInvariantLoad`` and its ``Means:``."""

    code: str
    rule: str
    means: str

    @property
    def title(self) -> str:
        return f"{self.code} — {self.rule}"

    @property
    def anchor(self) -> str:
        """The heading's anchor as GitHub and most Markdown renderers make it."""
        return re.sub(r"[^\w\- ]", "", self.title.lower()).replace(" ", "-")


@dataclass
class CompileReport:
    folder: Path
    entry: str
    platform: str
    hints: list[Hint]
    snippets: list[SourceSnippet]
    profile: Profile | None
    doc_sections: dict[str, DocSection]
    docs: Path | None  # docs/diagnostics.md, when this installation has it
    files: dict[str, list[Path]]  # kernels/, passes_dump/, debug/ -> their files


# ---------------------------------------------------------------- readers

def parse_hint_line(text: str) -> Hint | None:
    """The hint on one line of perf_hints.log, or None when the line is not one."""
    match = _HINT_LINE.match(text)
    if match is None:
        return None
    message, fix = match["text"], ""
    fix_match = _FIX_SUFFIX.search(message)
    if fix_match is not None:
        message, fix = message[:fix_match.start()], fix_match["fix"]
    line = int(match["line"]) if match["line"] else 0
    return Hint(match["code"], match["severity"], match["file"], line, match["function"], message, fix)


def read_hints(log: Path) -> list[Hint]:
    hints = []
    for number, text in enumerate(log.read_text(encoding="utf-8").splitlines(), start=1):
        if not text.strip():
            continue
        hint = parse_hint_line(text)
        if hint is None:
            raise CompileReportError(f"{log}:{number}: not a hint line "
                                     f"(expected 'CODE severity file:line function: message (fix: ...)')")
        hints.append(hint)
    return hints


def read_profile(path: Path) -> Profile:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        rows = tuple(ProfileRow(r["stage"], r["name"], float(r["ms"]),
                                {k: v for k, v in r.items() if k not in ("stage", "name", "ms")})
                     for r in data["stages"])
        return Profile(float(data["total_ms"]), float(data.get("untimed_ms", 0.0)), rows)
    except (ValueError, KeyError, TypeError) as exc:
        raise CompileReportError(f"{path} is not a compile profile ({type(exc).__name__}: {exc}); "
                                 f"compile again to rewrite it") from exc


def read_doc_sections(docs: Path) -> dict[str, DocSection]:
    """Each hint code's heading and ``Means:`` paragraph in docs/diagnostics.md."""
    text = docs.read_text(encoding="utf-8")
    headings = list(_DOC_HEADING.finditer(text))
    sections = {}
    for heading, following in zip(headings, [*headings[1:], None]):
        body = text[heading.end():following.start() if following else len(text)]
        means = _DOC_MEANS.search(body)
        sections[heading["code"]] = DocSection(heading["code"], heading["rule"],
                                               " ".join(means["means"].split()) if means else "")
    return sections


def _source_lines(file: str) -> list[str] | str:
    """The file's lines, or why they cannot be shown."""
    try:
        return Path(file).read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return f"source file {file} is not on this machine (moved or deleted)"
    except (OSError, UnicodeDecodeError) as exc:
        return f"source file {file} cannot be read ({type(exc).__name__}: {exc})"


def source_snippet(hint: Hint, sources: dict[str, list[str] | str]) -> SourceSnippet:
    """The lines around the hinted line; ``sources`` caches each file's lines (or why there are none)."""
    if hint.file is None or hint.line <= 0:
        return SourceSnippet(missing="the hint names no source line")
    if hint.file not in sources:
        sources[hint.file] = _source_lines(hint.file)
    lines = sources[hint.file]
    if isinstance(lines, str):
        return SourceSnippet(missing=lines)
    if hint.line > len(lines):
        return SourceSnippet(missing=f"{hint.file} has {len(lines)} lines, not {hint.line}: it changed "
                                     f"since the compile")
    first = max(1, hint.line - CONTEXT_LINES)
    last = min(len(lines), hint.line + CONTEXT_LINES)
    return SourceSnippet(first, tuple(lines[first - 1:last]), hint.line)


def _read_meta(folder: Path) -> dict[str, Any]:
    try:
        return json.loads((folder / "compiled_meta.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _generated_files(folder: Path) -> dict[str, list[Path]]:
    listing = {"kernels": sorted(p for p in (folder / "kernels").rglob("*") if p.is_file()),
               "passes_dump": sorted((folder / "passes_dump").glob("*.py")),
               "debug": sorted((folder / "debug").glob("*.py"))}
    return {name: files for name, files in listing.items() if files}


def collect(folder: str | Path, docs: Path | None = DIAGNOSTICS_DOC) -> CompileReport:
    """Reads a compile output folder (and docs/diagnostics.md for the hint codes' sections)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise CompileReportError(f"no such directory: {folder}")
    report = folder / REPORT_DIR
    log, profile_json = report / PERF_HINTS_LOG, report / COMPILE_PROFILE_JSON
    if not log.is_file() and not profile_json.is_file():
        raise CompileReportError(f"{folder} has no {REPORT_DIR}/{PERF_HINTS_LOG} or {REPORT_DIR}/"
                                 f"{COMPILE_PROFILE_JSON}: pass a compile output folder "
                                 f"(build_output/_jit_<name>_<timestamp>/ or RunConfig.save_kernels_dir)")
    hints = read_hints(log) if log.is_file() else []
    sources: dict[str, list[str] | str] = {}
    meta = _read_meta(folder)
    docs = docs if docs is not None and docs.is_file() else None
    return CompileReport(folder=folder, entry=meta.get("entry", folder.name), platform=meta.get("platform", ""),
                         hints=hints, snippets=[source_snippet(h, sources) for h in hints],
                         profile=read_profile(profile_json) if profile_json.is_file() else None,
                         doc_sections=read_doc_sections(docs) if docs else {}, docs=docs,
                         files=_generated_files(folder))


# ---------------------------------------------------------------- HTML writer

_CSS = """
body{font:13px system-ui,sans-serif;margin:16px;background:#f6f7f9;color:#222}
h1{font-size:19px;margin:0 0 4px}h2{font-size:15px;margin:0 0 8px}
.card{background:#fff;border:1px solid #d0d4da;border-radius:6px;margin:12px 0;padding:10px 12px}
.meta{color:#555}.meta span{margin-right:14px}
.pill{display:inline-block;border-radius:9px;padding:1px 8px;background:#e8eef7;color:#234;font-size:12px;margin:2px}
.controls label{margin-right:10px;white-space:nowrap}
table.hints{border-collapse:collapse;width:100%}
.hints th{text-align:left;background:#eef0f3;padding:4px 6px;font-weight:600}
.hints td{padding:4px 6px;vertical-align:top;border-top:1px solid #e3e6ea}
.hints tr.source td{border-top:none;padding-top:0}
.code a{font-weight:600;color:#b35900;text-decoration:none}.where{font-family:monospace;word-break:break-all}
.where{min-width:200px}.fix{color:#1b6e2e}
.doc code{background:#f0f1f3;padding:0 3px;border-radius:3px}
pre.snippet{margin:0;background:#fbfbf6;border:1px solid #e5e3d3;border-radius:4px;padding:4px 0;
font:12px/1.45 monospace;overflow-x:auto}
pre.snippet span{display:block;padding:0 8px}pre.snippet .hinted{background:#fff1b8}
pre.snippet i{display:inline-block;width:4em;color:#999;font-style:normal}
.missing{color:#a33;font-style:italic}
.doc h3{font-size:14px;margin:8px 0 2px}.doc p{margin:2px 0 8px}
.stack{display:flex;height:22px;border-radius:4px;overflow:hidden;border:1px solid #ccc;margin:6px 0}
.stack div{height:100%}.legend span{margin-right:12px}.legend i{display:inline-block;width:10px;height:10px;
margin-right:4px;border-radius:2px}
.bars{display:grid;grid-template-columns:230px 1fr 90px 60px minmax(0,40%);gap:2px 8px;align-items:center}
.bars .name{overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.track{background:#eef0f3;height:14px;border-radius:3px;position:relative}
.fill{height:100%;min-width:1px;border-radius:3px}
.cached .fill{background-image:repeating-linear-gradient(45deg,rgba(255,255,255,.55) 0 4px,transparent 4px 8px)}
.num{text-align:right;font-variant-numeric:tabular-nums}.note{color:#555;font-size:12px;overflow-wrap:anywhere}
.badge{display:inline-block;border-radius:3px;padding:0 5px;font-size:11px;background:#2a7;color:#fff;margin-right:4px}
.badge.notrun{background:#999}
details{margin:6px 0}summary{cursor:pointer;font-weight:600}
.files a{font-family:monospace}
"""

# Shows or hides the rows (and their source rows) of each hint code.
_JS = """
document.querySelectorAll('.controls input').forEach(function(box){box.addEventListener('change',function(){
 document.querySelectorAll('tr[data-code="'+box.value+'"]').forEach(function(row){
  row.style.display=box.checked?'':'none';});});});
"""


def _e(text: Any) -> str:
    return html.escape(str(text))


def _markdown_code(text: str) -> str:
    """Escaped text with Markdown's `code` spans as <code>."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", _e(text))


def _code_title(code: str, report: CompileReport) -> str:
    section = report.doc_sections.get(code)
    return section.title if section else code


def _header(report: CompileReport) -> str:
    counts = Counter(h.code for h in report.hints)
    summary = ", ".join(code if n == 1 else f"{code} x{n}" for code, n in sorted(counts.items()))
    hints = f"{len(report.hints)} performance hint{'' if len(report.hints) == 1 else 's'}"
    parts = [f"<span>{_e(hints)}{f' ({_e(summary)})' if summary else ''}</span>"]
    if report.profile is not None:
        parts.append(f"<span>compile {report.profile.total_ms:.1f} ms</span>")
    if report.platform:
        parts.append(f"<span>platform {_e(report.platform)}</span>")
    parts.append(f"<span>folder {_e(report.folder.name)}</span>")
    return (f'<div class="card"><h1>Compile report: {_e(report.entry)}</h1>'
            f'<div class="meta">{"".join(parts)}</div></div>')


def _snippet_html(snippet: SourceSnippet) -> str:
    if snippet.missing:
        return f'<p class="missing">{_e(snippet.missing)}</p>'
    rows = []
    for number, text in enumerate(snippet.lines, start=snippet.first_line):
        hinted = ' class="hinted"' if number == snippet.hinted_line else ""
        rows.append(f'<span{hinted} data-line="{number}"><i>{number}</i>{_e(text)}</span>')
    return f'<pre class="snippet">{"".join(rows)}</pre>'


def _hint_rows(report: CompileReport) -> str:
    rows = []
    for index, (hint, snippet) in enumerate(zip(report.hints, report.snippets)):
        attrs = f'data-code="{_e(hint.code)}" data-index="{index}"'
        fix = f'<span class="fix">{_e(hint.fix)}</span>' if hint.fix else ""
        rows.append(f'<tr class="hint" {attrs} data-where="{_e(hint.where)}">'
                    f'<td class="code"><a href="#{_e(hint.code)}" title="{_e(_code_title(hint.code, report))}">'
                    f'{_e(hint.code)}</a></td><td>{_e(hint.severity)}</td><td class="where">{_e(hint.where)}</td>'
                    f'<td>{_e(hint.function)}</td><td>{_e(hint.message)}</td><td>{fix}</td></tr>')
        rows.append(f'<tr class="source" {attrs}><td></td><td colspan="5">{_snippet_html(snippet)}</td></tr>')
    return "".join(rows)


def _hints_card(report: CompileReport) -> str:
    if not report.hints:
        return '<div class="card"><h2>Performance hints</h2><p>No performance hints: perf_hints.log is empty.</p></div>'
    codes = sorted({h.code for h in report.hints})
    controls = "".join(f'<label><input type="checkbox" value="{_e(c)}" checked> {_e(c)}</label>' for c in codes)
    return (f'<div class="card"><h2>Performance hints ({len(report.hints)})</h2>'
            f'<div class="controls">Show: {controls}</div>'
            '<table class="hints"><thead><tr><th>Code</th><th>Severity</th><th>Where</th><th>Function</th>'
            f'<th>Message</th><th>Fix</th></tr></thead><tbody>{_hint_rows(report)}</tbody></table></div>')


def _doc_link(section: DocSection, docs: Path) -> str:
    return (f'<a class="doclink" href="{_e(docs.as_uri())}#{_e(section.anchor)}">'
            f'docs/diagnostics.md: {_e(section.title)}</a>')


def _docs_card(report: CompileReport) -> str:
    codes = sorted({h.code for h in report.hints})
    if not codes:
        return ""
    entries = []
    for code in codes:
        section = report.doc_sections.get(code)
        if section is None or report.docs is None:
            where = "docs/diagnostics.md is not in this installation" if report.docs is None \
                else "docs/diagnostics.md has no section for this code"
            entries.append(f'<h3 id="{_e(code)}">{_e(code)}</h3><p class="missing">{where}</p>')
            continue
        entries.append(f'<h3 id="{_e(code)}">{_e(section.title)}</h3>'
                       f'<p>{_markdown_code(section.means)} {_doc_link(section, report.docs)}</p>')
    return f'<div class="card doc"><h2>What the codes mean</h2>{"".join(entries)}</div>'


def _row_note(row: ProfileRow) -> str:
    """What a step made or found: the files a backend generated, the kernels a toolchain built."""
    details = row.details
    if not row.ran:
        return f'<span class="badge notrun">not run</span>{_e(details.get("why", ""))}'
    if "kernels" in details:
        badge = '<span class="badge">cached</span>' if row.cached else ""
        built, reused = details["kernels"], details.get("from_cache", 0)
        return f"{badge}{built} kernel{'' if built == 1 else 's'}, {reused} from the object cache"
    if "artifacts" in details:
        return _e(", ".join(details["artifacts"]) or "no files")
    return ""


def _colour(stage: str) -> str:
    return STAGE_COLOURS.get(stage, OTHER_STAGE_COLOUR)


def _bar(stage: str, share: float) -> str:
    return f'<div class="track"><div class="fill" style="width:{share:.3f}%;background:{_colour(stage)}"></div></div>'


def _stage_rows(profile: Profile, stage: str) -> str:
    rows = []
    for row in (r for r in profile.rows if r.stage == stage):
        position = row.details.get("position")
        label = f"{position:2d} {row.name}" if position is not None else row.name
        share = profile.share(row.ms)
        cached = " cached" if row.cached else ""
        rows.append(f'<div class="name bar-row{cached}" data-stage="{_e(stage)}" data-name="{_e(row.name)}" '
                    f'data-ms="{row.ms}" data-share="{share:.3f}" title="{_e(label)}">{_e(label)}</div>'
                    f'<div class="{cached.strip()}">{_bar(stage, share)}</div>'
                    f'<div class="num">{row.ms:.3f} ms</div><div class="num">{share:.1f}%</div>'
                    f'<div class="note">{_row_note(row)}</div>')
    return "".join(rows)


def _stage_section(profile: Profile, stage: str) -> str:
    """A stage's total, then a bar per step; folded when it has many steps."""
    ms = profile.stage_ms(stage)
    count = sum(1 for r in profile.rows if r.stage == stage)
    opened = "" if count > FOLD_ROWS else " open"
    return (f'<details class="stage-total" data-stage="{_e(stage)}" data-ms="{ms:.3f}"{opened}>'
            f'<summary>{_e(stage)}: {ms:.3f} ms ({profile.share(ms):.1f}%), {count} '
            f'step{"" if count == 1 else "s"}</summary>'
            f'<div class="bars">{_stage_rows(profile, stage)}</div></details>')


def _stages_stack(profile: Profile) -> str:
    """One bar split by stage, and its legend; the gap at the end is the untimed time."""
    shares = [(stage, profile.share(profile.stage_ms(stage))) for stage in profile.stages()]
    stack = "".join(f'<div title="{_e(stage)} {share:.1f}%" style="width:{share:.3f}%;background:{_colour(stage)}">'
                    "</div>" for stage, share in shares)
    legend = "".join(f'<span><i style="background:{_colour(stage)}"></i>{_e(stage)} {share:.1f}%</span>'
                     for stage, share in shares)
    return f'<div class="stack">{stack}</div><div class="legend">{legend}</div>'


def _profile_card(profile: Profile | None) -> str:
    if profile is None:
        return f'<div class="card"><h2>Compile profile</h2><p class="missing">no {COMPILE_PROFILE_JSON}</p></div>'
    sections = "".join(_stage_section(profile, stage) for stage in profile.stages())
    untimed = (f'<p class="meta">untimed (between the steps): {profile.untimed_ms:.3f} ms '
               f'({profile.share(profile.untimed_ms):.1f}%)</p>')
    return (f'<div class="card"><h2>Compile profile: {profile.total_ms:.3f} ms</h2>'
            f'{_stages_stack(profile)}{sections}{untimed}</div>')


def _files_card(report: CompileReport, page_dir: Path) -> str:
    if not report.files:
        return ""
    groups = []
    for name, files in report.files.items():
        links = ", ".join(f'<a href="{_e(os.path.relpath(f, page_dir))}">{_e(f.relative_to(report.folder / name))}</a>'
                          for f in files)
        groups.append(f"<p><b>{_e(name)}/</b> ({len(files)}): {links}</p>")
    return f'<div class="card files"><h2>Generated files</h2>{"".join(groups)}</div>'


def render(report: CompileReport, page_dir: Path) -> str:
    """The page; ``page_dir`` is where it will be written (links to the generated files are relative to it)."""
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f"<title>Compile report: {_e(report.entry)}</title>", f"<style>{_CSS}</style></head><body>",
        _header(report), _hints_card(report), _docs_card(report), _profile_card(report.profile),
        _files_card(report, page_dir), f"<script>{_JS}</script></body></html>"]) + "\n"


def write(folder: str | Path, out: str | Path | None = None) -> Path:
    """Writes the compile report page of ``folder`` to ``out`` (default ``<folder>/report/index.html``)."""
    report = collect(folder)
    out = Path(out) if out is not None else report.folder / REPORT_DIR / DEFAULT_PAGE
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render(report, out.parent.resolve()), encoding="utf-8")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pypto.tools.compile_report",
                                     description="Show a compile's performance hints and profile (standalone HTML).")
    parser.add_argument("folder", help="a compile output folder (build_output/_jit_<name>_<timestamp>/)")
    parser.add_argument("-o", "--out", help="output HTML (default FOLDER/report/index.html)")
    args = parser.parse_args(argv)
    try:
        path = write(args.folder, args.out)
    except CompileReportError as exc:
        print(f"compile_report: error: {exc}", file=sys.stderr)
        return 2
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
