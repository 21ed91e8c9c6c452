"""The before/after examples of the pass pages (docs/passes/<Pass>.md) are true.

A page marks an example with fenced blocks tagged ``python before`` and then
``python after`` (the printed program the pass makes of it) or ``text error``
(a fragment of the error the pass raises). Words after the tag set the
platform (``platform=a5sim``) or pass options (``max_iterations=16``). Each
example runs through the page's pass alone, as the printed-IR cases do.
"""

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml
from pass_runner import DEFAULT_PLATFORM, run_one_pass

import pypto
import pypto.language as pl
from pypto import ir

DOCS = Path(__file__).resolve().parents[2] / "docs" / "passes"
# Pages that must show at least one checked example.
PAGES_WITH_EXAMPLES = [
    "AllocateMemoryAddr", "ExpandMixedKernel", "FlattenCallExpr", "FlattenTileNdTo2D", "InitMemRef", "InlineFunctions", "InsertCommFence",
    "InsertPipeSync",
    "LowerCompositeOps", "LowerHostTensorCollectives", "MaterializeCommDomainScopes", "MaterializeScratchTiles", "MemoryReuse", "OutlineClusterScopes",
    "OutlineHierarchyScopes", "OutlineIncoreScopes", "Simplify", "SynthesizeAllReduceSignals", "UnrollLoops",
]
BLOCK = re.compile(r"^```(python|text) (before|after|error)([^\n]*)\n(.*?)^```", re.M | re.S)


@dataclass
class Example:
    page: str
    line: int
    before: str
    platform: str = DEFAULT_PLATFORM
    options: dict = field(default_factory=dict)
    after: str | None = None
    error: str | None = None


def _settings(words: str, example: Example) -> None:
    for word in words.split():
        key, sep, value = word.partition("=")
        assert sep, f"{example.page}:{example.line}: '{word}' after the block tag is not key=value"
        if key == "platform":
            example.platform = value
        else:
            example.options[key] = yaml.safe_load(value)


def page_examples(page: Path) -> list[Example]:
    text = page.read_text()
    examples: list[Example] = []
    for match in BLOCK.finditer(text):
        _, role, words, body = match.groups()
        line = text.count("\n", 0, match.start()) + 1
        if role == "before":
            examples.append(Example(page.stem, line, body))
            _settings(words, examples[-1])
            continue
        assert examples and examples[-1].after is None and examples[-1].error is None, \
            f"{page.name}:{line}: a '{role}' block needs a 'python before' block right before it"
        setattr(examples[-1], role, body)
    for example in examples:
        assert example.after is not None or example.error is not None, \
            f"{page.name}:{example.line}: the 'python before' block has no 'python after' or 'text error' block"
    return examples


def _all_examples():
    params = []
    for page in sorted(DOCS.glob("*.md")):
        for example in page_examples(page):
            params.append(pytest.param(example, id=f"{page.stem}:{example.line}"))
    return params


@pytest.mark.parametrize("name", PAGES_WITH_EXAMPLES)
def test_page_has_a_checked_example(name):
    page = DOCS / f"{name}.md"
    assert page.exists(), f"docs/passes/{name}.md is missing"
    assert page_examples(page), f"docs/passes/{name}.md has no 'python before' / 'python after' example"


@pytest.mark.parametrize("example", _all_examples())
def test_page_example(example, tmp_path):
    program = pl.parse(example.before, filename=f"{example.page}.md")
    if example.error is not None:
        with pytest.raises(pypto.Error) as info:
            run_one_pass(example.page, program, tmp_path, options=example.options, platform=example.platform)
        assert example.error.strip() in str(info.value)
        return
    result = run_one_pass(example.page, program, tmp_path, options=example.options, platform=example.platform)
    ir.assert_structural_equal(result, pl.parse(example.after), enable_auto_mapping=True)
    assert ir.as_python(result) == example.after
