#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Two fits in two Python threads against the same two fits one after the other (the GIL is
released while a run computes: tests/test_behaviour.py proves that without timing; this
measures what it buys). Serial-engine ConsensusClassifier fits on 10000 x 50 dense rows; per
repetition the wall time of the two layouts, back to back, and the ratio; medians over the
repetitions. A GIL-free control (hashlib.sha256 over 32 MB, which releases the GIL) runs in
the same two layouts, to show what the machine allowed at that moment (on 2 busy cores neither
can reach 0.5).

    .venv/bin/python bench/python_threads.py [--reps 9]
"""
import argparse
import hashlib
import statistics
import threading
import time

import numpy as np

import dpadmm


def layouts(job):
    t0 = time.perf_counter()
    job()
    job()
    sequential = time.perf_counter() - t0
    threads = [threading.Thread(target=job) for _ in range(2)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sequential, time.perf_counter() - t0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=9)
    args = parser.parse_args()
    rng = np.random.RandomState(5)
    y = np.where(rng.rand(10000) < 0.5, -1, 1)
    X = rng.randn(10000, 50) + y[:, None] * 0.3

    def fit():
        dpadmm.ConsensusClassifier(algorithm="admm", nodes=10, iterations=60, n_jobs=None,
                                   random_state=1).fit(X, y)

    block = b"dpadmm" * ((32 << 20) // 6)
    fits, controls = [], []
    for _ in range(args.reps):
        seq, par = layouts(fit)
        fits.append((seq, par))
        cseq, cpar = layouts(lambda: hashlib.sha256(block).digest())
        controls.append((cseq, cpar))
    for name, rows in (("two fits", fits), ("control (sha256)", controls)):
        seq = statistics.median(r[0] for r in rows)
        par = statistics.median(r[1] for r in rows)
        ratio = statistics.median(r[1] / r[0] for r in rows)
        print(f"{name:18s} sequential {seq * 1e3:8.1f} ms  two threads {par * 1e3:8.1f} ms  "
              f"ratio (median of {args.reps}) {ratio:.3f}")


if __name__ == "__main__":
    main()
