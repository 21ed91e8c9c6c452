"""Regenerates docs/images/swimlane-llama-block.png, the screenshot in docs/runtime-dfx.md.

    python docs/images/make_swimlane_screenshot.py [--host] [--keep DIR]

Runs examples/models/04_llama_block.py with RunConfig(enable_chip_swimlane=2), renders the run's
dfx_outputs/chip_swimlane_device.json (simulated device time: the same picture on every machine; with
--host, chip_swimlane.json, which varies with the machine's load) with ``python -m pypto.tools.swimlane_view``
and photographs the page in headless Debian ``chromium``.
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import torch

from pypto.runtime import RunConfig
from pypto.tools import swimlane_view

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples/models/04_llama_block.py"
IMAGE = ROOT / "docs/images/swimlane-llama-block.png"
WINDOW = "1400,700"


def _load_example():
    spec = importlib.util.spec_from_file_location("llama_block_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _inputs(example):
    """Inputs as the example's main() makes them: a causal mask, norm weights near 1, FP16 weights."""
    torch.manual_seed(0)
    tokens, hidden, ffn = example.TOKENS, example.HIDDEN, example.FFN

    def weight(rows, cols):
        return (torch.randn(rows, cols) / rows**0.5).half()

    x = torch.randn(tokens, hidden)
    mask = torch.full((tokens, tokens), float("-inf")).triu(1)
    norms = (1.0 + 0.1 * torch.randn(1, hidden), 1.0 + 0.1 * torch.randn(1, hidden))
    weights = (*(weight(hidden, hidden) for _ in range(4)), weight(hidden, ffn), weight(hidden, ffn),
               weight(ffn, hidden))
    return (x, mask, *norms, *weights, torch.zeros(tokens, hidden))


def trace_example(out_dir: Path) -> Path:
    """Runs the example traced; returns its dfx_outputs folder."""
    example = _load_example()
    args = _inputs(example)
    config = RunConfig(enable_chip_swimlane=2, save_kernels_dir=str(out_dir))
    example.llama_block(*args, config=config)
    return example.llama_block.compile(*args, config=config).dfx_dir


def screenshot(page: Path, image: Path) -> None:
    chromium = shutil.which("chromium")
    if chromium is None:
        sys.exit("make_swimlane_screenshot: chromium is not installed (apt install chromium)")
    subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    f"--screenshot={image}", f"--window-size={WINDOW}", page.as_uri()],
                   check=True, capture_output=True, timeout=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", action="store_true", help="picture chip_swimlane.json (host time) instead")
    parser.add_argument("--keep", type=Path, help="keep the run's outputs and the page in this folder")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="swimlane_screenshot_"))
    trace = trace_example(work) / ("chip_swimlane.json" if args.host else "chip_swimlane_device.json")
    page = swimlane_view.write(trace, work / "swimlane.html")
    screenshot(page, IMAGE)
    if args.keep is None:
        shutil.rmtree(work)
    print(IMAGE)


if __name__ == "__main__":
    main()
