"""MkDocs hooks that let the manual's Markdown serve both the test suite and the site.

- Words after a fence's language (```python before platform=a5sim) tell tests/python/test_pass_docs.py
  what a block is; Python-Markdown would not recognise such a fence at all, so the site keeps the language only.
- Pages link to files of the clone outside docs/ (examples, pipelines, plugin READMEs). The site carries a copy
  of each under _repo/ and those links point at the copy; a link to a file that does not exist stays as it is,
  so strict mode reports it.
"""

import os
import re
from pathlib import Path

from mkdocs.structure.files import File, InclusionLevel

FENCE_WORDS = re.compile(r"^(?P<fence>[ \t]*`{3,}[\w+-]+)[ \t]+[^`\n]*$", re.M)
LINK = re.compile(r"(?P<head>\]\()(?P<path>\.\.?/[^)#\s]*)(?P<tail>(?:#[^)\s]*)?\))")
COPIES = "_repo"


def outside_target(docs_dir: Path, page_dir: Path, path: str) -> Path | None:
    """The clone file a relative link names when it lies outside docs/, or None."""
    target = (page_dir / path).resolve()
    if target.is_relative_to(docs_dir) or not target.is_file():
        return None
    if not target.is_relative_to(docs_dir.parent):
        return None
    return target


def on_files(files, config):
    docs_dir = Path(config.docs_dir).resolve()
    wanted = set()
    for page in docs_dir.rglob("*.md"):
        for link in LINK.finditer(page.read_text()):
            target = outside_target(docs_dir, page.parent, link["path"])
            if target:
                wanted.add(target.relative_to(docs_dir.parent))
    for relative in sorted(wanted):
        files.append(File.generated(config, f"{COPIES}/{relative.as_posix()}", abs_src_path=str(docs_dir.parent / relative),
                                    inclusion=InclusionLevel.NOT_IN_NAV))
    return files


def on_page_markdown(markdown, page, config, files):
    markdown = FENCE_WORDS.sub(r"\g<fence>", markdown)
    docs_dir = Path(config.docs_dir).resolve()
    page_dir = (docs_dir / page.file.src_uri).parent

    def to_copy(link):
        target = outside_target(docs_dir, page_dir, link["path"])
        if not target:
            return link[0]
        copy = docs_dir / COPIES / target.relative_to(docs_dir.parent)
        return link["head"] + os.path.relpath(copy, page_dir) + link["tail"]

    return LINK.sub(to_copy, markdown)
