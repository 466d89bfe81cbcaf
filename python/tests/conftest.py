# SPDX-License-Identifier: Apache-2.0
"""Shared fixtures: the dpadmm command (build/cli/dpadmm or $DPADMM_CLI) and small data sets."""
import csv
import json
import math
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]


def cli_path() -> Path:
    given = os.environ.get("DPADMM_CLI")
    path = Path(given) if given else ROOT / "build" / "cli" / "dpadmm"
    return path


@pytest.fixture(scope="session")
def cli():
    path = cli_path()
    if not path.is_file():
        pytest.fail(f"the dpadmm command is not built at {path} (set DPADMM_CLI)")
    return path


def run_cli(cli, spec: dict, folder: Path, name: str):
    """Runs `dpadmm run --config` on `spec`; returns (trace rows, summary, model JSON)."""
    config = folder / f"{name}.json"
    config.write_text(json.dumps(spec))
    trace, summary, model = (folder / f"{name}-trace.csv", folder / f"{name}-summary.json",
                             folder / f"{name}-model.json")
    done = subprocess.run([str(cli), "run", "--config", str(config), "--trace", str(trace),
                           "--summary", str(summary), "--model-out", str(model), "--quiet"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return read_trace(trace), json.loads(summary.read_text()), json.loads(model.read_text())


def read_trace(path: Path):
    """The CSV trace as {column: list of cells} (the '# ' first line skipped)."""
    lines = [line for line in path.read_text().splitlines() if not line.startswith("#")]
    rows = list(csv.reader(lines))
    header, body = rows[0], rows[1:]
    return {name: [row[i] for row in body] for i, name in enumerate(header)}


def cell_value(text: str) -> float:
    return float(text)  # "nan", "inf" and shortest round-trip decimals read back exactly


def same_bits(a, b) -> bool:
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    return a.shape == b.shape and a.tobytes() == b.tobytes()


def write_csv(path: Path, X: np.ndarray, y: np.ndarray):
    """Rows with the label last, every double written in a form that reads back exactly."""
    with open(path, "w") as f:
        for row, label in zip(X, y):
            f.write(",".join(repr(float(v)) for v in row) + f",{int(label)}\n")


def two_gaussians(n: int, d: int, seed: int, shift: float = 0.8):
    """A small separable-ish problem: labels -1/+1, classes at +-shift / sqrt(d)."""
    rng = np.random.RandomState(seed)
    y = np.where(rng.rand(n) < 0.5, -1, 1)
    X = rng.randn(n, d) + y[:, None] * shift / math.sqrt(d) * 2.0
    return X, y
