"""Memory map: where every tile of every kernel lives, as one standalone HTML page.

    python -m pypto.tools.memory_map <passes_dump/ | NN_Pass.py | compile output dir>
        [-o OUT.html] [-p PASS (default AllocateMemoryAddr)] [-b PLATFORM]

Reads a pass dump at or after ``AllocateMemoryAddr`` (``compile(config=
RunConfig(dump_passes=True))``), parses it back with ``pl.parse`` and, for each
InCore/AIC/AIV function, draws one lane per memory space (x = byte offset,
y = dump line) with one box per tile from the first to the last line naming it.
See docs/memory-map.md.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["TileBox", "KernelMap", "MemoryMapError", "collect", "render", "write", "main"]

SPACES = ("Vec", "Mat", "Left", "Right", "Acc", "Bias")
KERNEL_TYPES = ("InCore", "AIC", "AIV")
_BACKENDS = {"ascend910b": "a2a3sim", "ascend950": "a5sim"}
_DUMP_RE = re.compile(r"^(\d+)_(\w+)\.py$")


class MemoryMapError(Exception):
    """A problem with the input, reported as one line by the CLI."""


@dataclass
class TileBox:
    name: str
    space: str
    offset: int
    size: int
    memref: str
    first: int  # program point (dump line, or statement index when there is no dump file)
    last: int
    line: int  # source line of the definition (0 if unknown)
    conflict: bool = False


@dataclass
class KernelMap:
    name: str
    func_type: str
    tiles: list[TileBox] = field(default_factory=list)
    capacity: dict[str, int] = field(default_factory=dict)
    lines: dict[int, str] = field(default_factory=dict)  # program point -> IR text

    def hwm(self, space: str) -> int:
        return max((t.offset + t.size for t in self.tiles if t.space == space), default=0)

    def spaces(self) -> list[str]:
        used = {t.space for t in self.tiles}
        return [s for s in SPACES if s in used]


# ---------------------------------------------------------------- collector

def _platform(name: str | None) -> str:
    if not name:
        return "a2a3sim"
    return _BACKENDS.get(name.lower(), name)


def _capacities(platform: str) -> dict[str, int]:
    from pypto import platforms

    try:
        mem = platforms.get(platform)["memory"]
    except Exception as exc:  # unknown platform
        raise MemoryMapError(f"unknown platform {platform!r} (known: {', '.join(platforms.names())})") from exc
    return {str(k).split(".")[-1]: int(v["capacity"]) for k, v in mem.items()}


def _int(x: Any) -> int:
    if isinstance(x, int):
        return x
    v = getattr(x, "value", None)
    if isinstance(v, int):
        return v
    raise MemoryMapError(f"non-constant MemRef field {x!r}")


def _tile_memref(var: Any) -> Any:
    t = getattr(var, "type", None)
    if t is None or type(t).__name__ != "TileType":
        return None
    m = t.memref
    if m is None:
        return None
    if str(m.memory_space).split(".")[-1] not in SPACES:
        return None
    return m


def _collect_function(func: Any, use_lines: bool, capacity: dict[str, int], src_lines: list[str]) -> KernelMap:
    km = KernelMap(func.name, str(func.func_type).split(".")[-1], capacity=capacity)
    seen: dict[int, dict[str, Any]] = {}
    counter = [0]

    def point(stmt: Any) -> int:
        sp = stmt.span
        if use_lines and sp.known:
            return int(sp.begin_line)
        return counter[0]

    def note(var: Any, pt: int, line: int, is_def: bool) -> None:
        m = _tile_memref(var)
        if m is None:
            return
        rec = seen.get(var.unique_id)
        if rec is None:
            rec = seen[var.unique_id] = {"var": var, "m": m, "first": pt, "last": pt, "line": line}
        rec["first"] = min(rec["first"], pt)
        rec["last"] = max(rec["last"], pt)
        if is_def and line:
            rec["line"] = line

    def walk(node: Any, pt: int, line: int) -> None:
        if isinstance(node, (list, tuple)):
            for x in node:
                walk(x, pt, line)
            return
        if isinstance(node, dict):
            for x in node.values():
                walk(x, pt, line)
            return
        fields = getattr(node, "field_names", None)
        if fields is None or not hasattr(node, "span"):
            return
        kind = type(node).__name__
        if kind == "Var":
            note(node, pt, line, False)
            return
        if kind.endswith("Stmt") and kind != "SeqStmts":
            counter[0] += 1
            pt = point(node)
            line = int(node.span.begin_line) if node.span.known else 0
            if use_lines and line and 0 < line <= len(src_lines):
                km.lines.setdefault(pt, src_lines[line - 1].strip())
            elif not use_lines:
                km.lines.setdefault(pt, kind)
        for f in fields:
            if f in ("type", "span", "op", "return_types"):
                continue
            val = getattr(node, f, None)
            if f == "var" and kind == "AssignStmt":
                note(val, pt, line, True)
                continue
            walk(val, pt, line)

    walk(func.body, 0, 0)
    for rec in sorted(seen.values(), key=lambda r: (r["first"], r["var"].name_hint)):
        m = rec["m"]
        km.tiles.append(TileBox(
            name=rec["var"].name_hint, space=str(m.memory_space).split(".")[-1],
            offset=_int(m.byte_offset), size=_int(m.size), memref=m.name_hint,
            first=rec["first"], last=rec["last"], line=rec["line"]))
    return _collect_conflicts(km)


def _collect_conflicts(km: KernelMap) -> KernelMap:
    """Marks tiles of different buffers that overlap in both address and lifetime."""
    for i, a in enumerate(km.tiles):
        for b in km.tiles[i + 1:]:
            if (a.space == b.space and a.memref != b.memref
                    and a.offset < b.offset + b.size and b.offset < a.offset + a.size
                    and a.first <= b.last and b.first <= a.last):
                a.conflict = b.conflict = True
    return km


def _resolve(path: Path, pass_name: str) -> Path:
    if not path.exists():
        raise MemoryMapError(f"no such file or directory: {path}")
    if path.is_dir():
        if (path / "passes_dump").is_dir():
            path = path / "passes_dump"
        dumps = sorted(p for p in path.iterdir() if _DUMP_RE.match(p.name))
        if not dumps:
            raise MemoryMapError(f"no pass dumps (NN_<Pass>.py) in {path}; compile with RunConfig(dump_passes=True)")
        hits = [p for p in dumps if _DUMP_RE.match(p.name).group(2) == pass_name]
        if not hits:
            raise MemoryMapError(f"no dump of pass {pass_name} in {path}; the memory map needs a dump at or after "
                                 f"AllocateMemoryAddr (from compile(), not lower())")
        path = hits[0]
    m = _DUMP_RE.match(path.name)
    if m:
        allocs = [int(_DUMP_RE.match(p.name).group(1)) for p in path.parent.iterdir()
                  if _DUMP_RE.match(p.name) and _DUMP_RE.match(p.name).group(2) == "AllocateMemoryAddr"]
        if not allocs or int(m.group(1)) < min(allocs):
            raise MemoryMapError(f"{path.name} is a dump before AllocateMemoryAddr: tiles have no addresses yet; "
                                 f"pass the NN_AllocateMemoryAddr.py dump or a later one")
    return path


def _platform_near(path: Path) -> str | None:
    for d in (path.parent, path.parent.parent):
        meta = d / "compiled_meta.json"
        if meta.is_file():
            try:
                return json.loads(meta.read_text()).get("platform")
            except (OSError, ValueError):
                return None
    return None


def collect(source: Any, *, pass_name: str = "AllocateMemoryAddr",
            platform: str | None = None) -> tuple[str, list[KernelMap], Path | None]:
    """Returns (program name, one KernelMap per InCore/AIC/AIV function, dump file or None).

    ``source`` is a dump file, a ``passes_dump/`` folder, a compile output folder,
    or an ``ir.Program`` (then y is the statement index)."""
    import pypto.language as pl

    dump: Path | None = None
    if isinstance(source, (str, Path)):
        dump = _resolve(Path(source), pass_name)
        text = dump.read_text()
        try:
            program = pl.parse(text, filename=str(dump))
        except Exception as exc:
            raise MemoryMapError(f"cannot parse {dump}: {str(exc).splitlines()[0] if str(exc) else exc!r}") from exc
        platform = platform or _platform_near(dump)
        src_lines = text.splitlines()
    else:
        program = source
        src_lines = []
    capacity = _capacities(_platform(platform))
    funcs = program.functions
    funcs = list(funcs.values()) if isinstance(funcs, dict) else list(funcs)
    kernels = [_collect_function(f, dump is not None, capacity, src_lines)
               for f in funcs if str(f.func_type).split(".")[-1] in KERNEL_TYPES]
    return program.name, kernels, dump


# ---------------------------------------------------------------- HTML writer

_CSS = """
body{font:13px system-ui,sans-serif;margin:16px;background:#fafafa;color:#222}
h1{font-size:18px}.card{background:#fff;border:1px solid #ccc;border-radius:6px;margin:12px 0;padding:10px}
.card h2{font-size:15px;margin:0 0 6px}.lanes{display:flex;gap:10px;align-items:flex-start}
.lane{flex:1;min-width:160px}.lane h3{font-size:13px;margin:2px 0}
.plot{position:relative;border:1px solid #999;background:repeating-linear-gradient(0deg,#fff,#fff 19px,#f0f0f0 20px)}
.box{position:absolute;box-sizing:border-box;border:1px solid #246;background:rgba(70,130,200,.55);overflow:hidden;
font-size:10px;color:#fff;white-space:nowrap;cursor:pointer}
.box.conflict{background:rgba(220,40,40,.7);border-color:#800}.box.pinned{outline:2px solid #f90}
.hwm{position:absolute;top:0;bottom:0;border-left:2px dashed #c00}
.pill{display:inline-block;border-radius:9px;padding:1px 8px;background:#2a7;color:#fff;font-size:11px;margin-left:6px}
.pill.full{background:#c22}.axis{font-size:10px;color:#666;display:flex;justify-content:space-between}
#pane{position:fixed;right:8px;bottom:8px;max-width:45%;background:#fff;border:1px solid #888;padding:6px;
font:12px monospace;white-space:pre-wrap;display:none}
.controls label{margin-right:8px}
"""

_JS = """
document.querySelectorAll('.controls input').forEach(function(cb){cb.addEventListener('change',function(){
 document.querySelectorAll('.lane[data-space="'+cb.value+'"]').forEach(function(l){l.style.display=cb.checked?'':'none';});});});
document.getElementById('zoom').addEventListener('input',function(e){
 document.querySelectorAll('.plot').forEach(function(p){p.style.height=(p.dataset.h*e.target.value)+'px';});});
var pane=document.getElementById('pane');
document.querySelectorAll('.box').forEach(function(b){b.addEventListener('click',function(){
 var was=b.classList.contains('pinned');document.querySelectorAll('.box.pinned').forEach(function(x){x.classList.remove('pinned');});
 if(was){pane.style.display='none';return;}b.classList.add('pinned');pane.textContent=b.title+'\\n\\n'+(b.dataset.ir||'');
 pane.style.display='block';});});
"""


def _fmt(n: int) -> str:
    return f"{n / 1024:.1f} KiB" if n >= 1024 else f"{n} B"


def render(program_name: str, kernels: list[KernelMap], title: str | None = None) -> str:
    out = ["<!DOCTYPE html>", "<html lang=\"en\"><head><meta charset=\"utf-8\">",
           f"<title>{html.escape(title or 'Memory map: ' + program_name)}</title>",
           f"<style>{_CSS}</style></head><body>",
           f"<h1>Memory map: {html.escape(program_name)}</h1>"]
    all_spaces = [s for s in SPACES if any(s in k.spaces() for k in kernels)]
    out.append('<div class="controls">Spaces: ' + "".join(
        f'<label><input type="checkbox" value="{s}" checked> {s}</label>' for s in all_spaces)
        + ' <label>Zoom <input id="zoom" type="range" min="0.5" max="4" step="0.5" value="1"></label></div>')
    if not kernels:
        out.append("<p>No InCore/AIC/AIV functions in this program.</p>")
    for k in kernels:
        out.append(f'<div class="card" data-kernel="{html.escape(k.name)}">'
                   f"<h2>{html.escape(k.name)} <small>({k.func_type})</small></h2>")
        if not k.tiles:
            out.append("<p>No allocated tiles (empty under PTOAS).</p>")
        pts = [p for t in k.tiles for p in (t.first, t.last)]
        y0, y1 = (min(pts), max(pts)) if pts else (0, 0)
        rows = y1 - y0 + 1
        height = max(60, rows * 20)
        out.append('<div class="lanes">')
        for s in k.spaces():
            cap = k.capacity.get(s, 0) or 1
            hwm = k.hwm(s)
            full = " full" if hwm >= 0.95 * cap else ""
            out.append(f'<div class="lane" data-space="{s}"><h3>{s}<span class="pill{full}" data-space="{s}" data-hwm="{hwm}" '
                       f'data-capacity="{cap}">{_fmt(hwm)} / {_fmt(cap)} ({100 * hwm / cap:.1f}%)</span></h3>'
                       f'<div class="plot" data-h="{height}" style="height:{height}px">')
            for t in (t for t in k.tiles if t.space == s):
                left = 100 * t.offset / cap
                width = max(0.3, 100 * t.size / cap)
                top = (t.first - y0) * height / rows
                h = (t.last - t.first + 1) * height / rows
                tip = (f"{t.name} ({t.memref}) {s} [{t.offset}, {t.offset + t.size}) {t.size} B, "
                       f"lines {t.first}-{t.last}, defined at line {t.line}")
                if t.conflict:
                    tip += " - CONFLICT: overlaps another live buffer"
                ir_txt = "\n".join(f"{p}: {k.lines[p]}" for p in range(t.first, t.last + 1) if p in k.lines)
                out.append(f'<div class="box{" conflict" if t.conflict else ""}" data-tile="{html.escape(t.name)}" '
                           f'data-space="{s}" data-offset="{t.offset}" data-size="{t.size}" data-first="{t.first}" '
                           f'data-last="{t.last}" data-line="{t.line}" title="{html.escape(tip)}" '
                           f'data-ir="{html.escape(ir_txt)}" '
                           f'style="left:{left:.3f}%;width:{width:.3f}%;top:{top:.1f}px;height:{h:.1f}px">'
                           f"{html.escape(t.name)}</div>")
            out.append(f'<div class="hwm" title="high-water mark {hwm} B" style="left:{100 * hwm / cap:.3f}%"></div>')
            out.append(f'</div><div class="axis"><span>0</span><span>{_fmt(cap)}</span></div></div>')
        out.append("</div></div>")
    out.append('<div id="pane"></div>')
    out.append(f"<script>{_JS}</script></body></html>")
    return "\n".join(out) + "\n"


def write(source: Any, out: str | Path | None = None, *, pass_name: str = "AllocateMemoryAddr",
          platform: str | None = None) -> Path:
    """Writes the memory map of ``source`` (see :func:`collect`) to ``out``
    (default ``<dump>.memory_map.html``, or ``<program>.memory_map.html``) and returns the path."""
    name, kernels, dump = collect(source, pass_name=pass_name, platform=platform)
    if out is None:
        out = dump.with_suffix(".memory_map.html") if dump else Path(f"{name}.memory_map.html")
    out = Path(out)
    out.write_text(render(name, kernels))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m pypto.tools.memory_map",
                                 description="Draw where every tile of every kernel lives (standalone HTML).")
    ap.add_argument("path", help="a pass dump, a passes_dump/ folder or a compile output folder")
    ap.add_argument("-o", "--out", help="output HTML (default <dump>.memory_map.html)")
    ap.add_argument("-p", "--pass", dest="pass_name", default="AllocateMemoryAddr",
                    help="which dump to read from a folder (default AllocateMemoryAddr)")
    ap.add_argument("-b", "--platform", help="a2a3sim, a5sim, ..., or Ascend910B/Ascend950 "
                    "(default: from compiled_meta.json, else a2a3sim)")
    args = ap.parse_args(argv)
    try:
        path = write(args.path, args.out, pass_name=args.pass_name, platform=args.platform)
    except MemoryMapError as exc:
        print(f"memory_map: error: {exc}", file=sys.stderr)
        return 2
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
