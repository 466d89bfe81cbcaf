#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The same run through dpadmm._core.run and through bench_python_overhead, in a process whose
glibc heap is chosen: the extension module loaded alone (numpy only) or after scikit-learn's
import, optionally with a fragmented glibc heap. CPU time of the calling thread, the two sides
alternating repetition by repetition; one line per set and the median over the sets.

    build/python-venv/bin/python bench/python_run_heap.py [--reps 61] [--sets 5]
        [--import sklearn.base] [--fragment 40000] [--cpp-fragment 40000] [--thread]

--fragment N allocates N blocks of 24..4000 bytes with libc's malloc (not Python's allocator,
whose small objects live in arenas of their own) and frees every other one, leaving the heap
with free chunks in every bin, as a long-lived process's heap is. The module is loaded from the
installed package's file without importing the package (which imports scikit-learn).
--cpp-fragment N does the same in the C++ program (bench_python_overhead's FRAGMENT argument).
--thread makes each run on a new thread (started and joined untimed; its CPU time is counted),
whose allocations come from a glibc arena of its own rather than the main thread's heap.
"""
import argparse
import ctypes
import importlib
import importlib.machinery
import importlib.util
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np


SPEC_OF_FIT = """
import json, numpy as np, dpadmm
rng = np.random.RandomState(0)
y = np.where(rng.rand(1000) < 0.5, -1, 1)
X = rng.randn(1000, 20) + y[:, None] * 0.45
print(json.dumps(dpadmm.ConsensusClassifier(algorithm="admm", random_state=1).fit(X, y).spec_))
"""


def load_core():
    """dpadmm._core from the installed package's file, without importing the package."""
    spec = importlib.util.find_spec("dpadmm")
    path = next(Path(spec.submodule_search_locations[0]).glob("_core*.so"))
    loader = importlib.machinery.ExtensionFileLoader("_core", str(path))
    module = importlib.util.module_from_spec(
        importlib.util.spec_from_file_location("_core", str(path), loader=loader))
    loader.exec_module(module)
    return module


def fragment_heap(blocks):
    """Leaves glibc's heap with `blocks // 2` free chunks of mixed sizes (returns the kept)."""
    libc = ctypes.CDLL("libc.so.6")
    libc.malloc.restype = ctypes.c_void_p
    rng = random.Random(1)
    sizes = (24, 40, 72, 136, 264, 520, 1040, 4000)
    taken = [libc.malloc(rng.choice(sizes)) for _ in range(blocks)]
    for block in taken[::2]:
        libc.free(ctypes.c_void_p(block))
    return taken[1::2]


def timed_run(core, text, X, labels, cpu):
    """One run on prepared arrays; appends the CPU time of the thread it ran on."""
    c0 = time.thread_time()
    out = core.run(text, "spec", X, labels, None, None, None, True)
    del out
    cpu.append(time.thread_time() - c0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=str(Path(__file__).resolve().parents[1] / "build"))
    parser.add_argument("--reps", type=int, default=61)
    parser.add_argument("--sets", type=int, default=5)
    parser.add_argument("--import", dest="imports", action="append", default=[],
                        help="a module imported first (e.g. sklearn.base); repeatable")
    parser.add_argument("--fragment", type=int, default=0, help="glibc heap blocks, see above")
    parser.add_argument("--cpp-fragment", type=int, default=0, help="the same in the C++ program")
    parser.add_argument("--thread", action="store_true", help="each run on a new thread")
    args = parser.parse_args()
    core = load_core()
    kept = fragment_heap(args.fragment) if args.fragment else []
    for name in args.imports:
        importlib.import_module(name)

    rng = np.random.RandomState(0)  # the rows and spec of bench/python_overhead.py
    y = np.where(rng.rand(1000) < 0.5, -1, 1)
    X = np.ascontiguousarray(rng.randn(1000, 20) + y[:, None] * 0.45)
    labels = y.astype(np.float64)
    # the spec a fit runs, written by the package in a process of its own (it imports sklearn)
    text = subprocess.run([sys.executable, "-c", SPEC_OF_FIT], check=True, capture_output=True,
                          text=True).stdout
    overheads = []
    with tempfile.TemporaryDirectory() as folder:
        train, spec_file = Path(folder) / "train.csv", Path(folder) / "spec.json"
        with open(train, "w") as f:
            for row, label in zip(X, y):
                f.write(",".join(repr(float(v)) for v in row) + f",{label}\n")
        spec_file.write_text(text)
        cpp = subprocess.Popen([str(Path(args.build) / "bench" / "bench_python_overhead"),
                                str(spec_file), str(train), "0", str(args.cpp_fragment)],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        for s in range(args.sets):
            py_cpu, cpp_cpu = [], []
            for _ in range(args.reps):
                cpp.stdin.write("go\n")
                cpp.stdin.flush()
                cpp_cpu.append(float(cpp.stdout.readline().split()[7]))
                if args.thread:
                    worker = threading.Thread(target=timed_run, args=(core, text, X, labels,
                                                                      py_cpu))
                    worker.start()
                    worker.join()
                else:
                    timed_run(core, text, X, labels, py_cpu)
            p, c = statistics.median(py_cpu), statistics.median(cpp_cpu)
            overheads.append(100 * (p / c - 1))
            print(f"set {s + 1}: C++ {c * 1e3:.3f} ms, _core.run {p * 1e3:.3f} ms, "
                  f"{overheads[-1]:+.2f}%", flush=True)
        cpp.stdin.close()
        cpp.wait()
    print(f"imports {args.imports or 'none'}, fragment {args.fragment} ({len(kept)} kept), "
          f"C++ fragment {args.cpp_fragment}{', a thread per run' if args.thread else ''}: "
          f"median over {args.sets} sets {statistics.median(overheads):+.2f}%")


if __name__ == "__main__":
    sys.exit(main())
