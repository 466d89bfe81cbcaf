#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Calling overhead of the Python package: ConsensusClassifier.fit on 1000 x 20 dense rows
against the same run through the C++ API (bench_python_overhead), medians over repetitions,
the two sides alternating repetition by repetition (the C++ program runs one repetition per
line it reads), so that both see the same machine load.

    .venv/bin/python bench/python_overhead.py [--build build] [--reps 45] [--spec-miss]

The fits repeat one parameter set, so after the first the package reuses the spec text and the
extension its parsed spec (as the C++ side parses its spec once); --spec-miss empties both
caches before every fit (untimed): each fit then builds, writes, parses and validates its spec.
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
    parser.add_argument("--reps", type=int, default=45)
    parser.add_argument("--spec-miss", action="store_true",
                        help="empty the spec caches before every fit (untimed)")
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
        py_times, cpp_times, py_run, cpp_run, py_cpu, cpp_cpu, cpp_kept = [], [], [], [], [], [], []
        cpp = subprocess.Popen([str(bench), str(spec), str(train), "0"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
        for _ in range(args.reps):
            cpp.stdin.write("go\n")
            cpp.stdin.flush()
            fields = cpp.stdout.readline().split()
            cpp_times.append(float(fields[1]))
            cpp_run.append(float(fields[3]))
            cpp_kept.append(float(fields[5]))
            cpp_cpu.append(float(fields[7]))
            if args.spec_miss:
                dpadmm._estimators._SPEC_TEXTS.clear()
                dpadmm._core.clear_spec_cache()
            c0, t0 = time.thread_time(), time.perf_counter()
            fitted = dpadmm.ConsensusClassifier(algorithm="admm", random_state=1).fit(X, y)
            t1, c1 = time.perf_counter(), time.thread_time()  # the run computes on this thread
            py_run.append(fitted.summary_["seconds"])  # decoded untimed (C++ reads a field)
            c2, t2 = time.thread_time(), time.perf_counter()
            del fitted  # destroyed, as the C++ side destroys its Experiment, summary and model
            py_times.append(t1 - t0 + time.perf_counter() - t2)
            py_cpu.append(c1 - c0 + time.thread_time() - c2)
        cpp.stdin.close()
        cpp.wait()
    py, cpp = statistics.median(py_times), statistics.median(cpp_times)
    pairs = sorted(p / c for p, c in zip(py_times, cpp_times))
    print(f"fit 1000 x 20, admm, 10 nodes, 100 rounds, serial engine; "
          f"{len(py_times)} repetitions each"
          f"{'; every fit parses its spec (--spec-miss)' if args.spec_miss else ''}")
    print(f"C++ API median   {cpp * 1e3:8.2f} ms (of which Experiment::Run "
          f"{statistics.median(cpp_run) * 1e3:.2f} ms)")
    print(f"Python fit median {py * 1e3:8.2f} ms (of which Experiment::Run "
          f"{statistics.median(py_run) * 1e3:.2f} ms)")
    print(f"ratio of medians {py / cpp:.4f} (overhead {100 * (py / cpp - 1):+.2f}%); "
          f"median of per-pair ratios {pairs[len(pairs) // 2]:.4f}")
    py_c, cpp_c, kept = (statistics.median(v) for v in (py_cpu, cpp_cpu, cpp_kept))
    print(f"C++ CPU time before its Experiment, summary and model are destroyed {kept * 1e3:.2f} "
          f"ms (the Python overhead against it {100 * (py_c / kept - 1):+.2f}%)")
    print(f"CPU time of the calling thread (what load does not inflate): C++ {cpp_c * 1e3:.2f} ms, "
          f"Python {py_c * 1e3:.2f} ms, ratio {py_c / cpp_c:.4f} "
          f"(overhead {100 * (py_c / cpp_c - 1):+.2f}%)")


if __name__ == "__main__":
    sys.exit(main())
