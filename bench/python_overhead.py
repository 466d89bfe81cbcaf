#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Calling overhead of the Python package: ConsensusClassifier.fit on 1000 x 20 dense rows
against the same run through the C++ API (bench_python_overhead), medians over repetitions,
the two measured alternately in one invocation.

    .venv/bin/python bench/python_overhead.py [--build build] [--reps 15] [--rounds 3]
"""
import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import dpadmm


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=str(Path(__file__).resolve().parents[1] / "build"))
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--rounds", type=int, default=3, help="alternations of the two sides")
    args = parser.parse_args()
    bench = Path(args.build) / "bench" / "bench_python_overhead"

    rng = np.random.RandomState(0)
    y = np.where(rng.rand(1000) < 0.5, -1, 1)
    X = rng.randn(1000, 20) + y[:, None] * 0.45  # twonorm-like
    est = dpadmm.ConsensusClassifier(algorithm="admm", random_state=1)  # 10 nodes, 100 rounds
    est.fit(X, y)
    with tempfile.TemporaryDirectory() as folder:
        train = Path(folder) / "train.csv"
        with open(train, "w") as f:
            for row, label in zip(X, y):
                f.write(",".join(repr(float(v)) for v in row) + f",{label}\n")
        spec = Path(folder) / "spec.json"
        spec.write_text(json.dumps(est.spec_))
        py_times, cpp_times = [], []
        for _ in range(args.rounds):
            out = subprocess.run([str(bench), str(spec), str(train), str(args.reps)],
                                 check=True, capture_output=True, text=True).stdout
            cpp_times += [float(line.split()[1]) for line in out.splitlines()
                          if line.startswith("seconds")]
            for _ in range(args.reps):
                t0 = time.perf_counter()
                dpadmm.ConsensusClassifier(algorithm="admm", random_state=1).fit(X, y)
                py_times.append(time.perf_counter() - t0)
    py, cpp = statistics.median(py_times), statistics.median(cpp_times)
    print(f"fit 1000 x 20, admm, 10 nodes, 100 rounds, serial engine; "
          f"{len(py_times)} repetitions each")
    print(f"C++ API median   {cpp * 1e3:8.2f} ms")
    print(f"Python fit median {py * 1e3:8.2f} ms")
    print(f"ratio {py / cpp:.4f} (overhead {100 * (py / cpp - 1):+.2f}%)")


if __name__ == "__main__":
    sys.exit(main())
