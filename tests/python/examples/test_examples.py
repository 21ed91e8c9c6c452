"""Every example under examples/ runs on a2a3sim, checks itself against torch and prints OK.

Each runs in its own process, as a user runs it, with the compile output and
the object cache in a temporary folder.
"""

import pytest

from example_scripts import EXAMPLES, example_id, run_example


def test_every_example_folder_has_examples():
    folders = {p.parent.name for p in EXAMPLES}
    assert {"beginner", "intermediate", "models", "runtime"} <= folders


@pytest.mark.parametrize("example", EXAMPLES, ids=example_id)
def test_example_runs_and_matches_torch(example, tmp_path):
    done = run_example(example, tmp_path, timeout=600)
    assert done.returncode == 0, f"{example.name} failed:\n{done.stdout}\n{done.stderr}"
    assert done.stdout.strip().endswith("OK"), done.stdout
