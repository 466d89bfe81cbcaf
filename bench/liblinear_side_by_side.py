#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Consensus ADMM on UCI Adult against liblinear (scikit-learn's), side by side, on one function.

Both minimise the same regularised ERM on the same rows:

    F(f) = sum_i (C / B_i) sum_{n in node i} log(1 + exp(-y_n x_n^T f)) + (rho / 2) ||f||^2

(dpadmm's consensus objective: node i weighs each of its B_i losses by C / B_i and carries
rho / N, 003's split). liblinear minimises (1/2)||w||^2 + sum_n c_n log(1 + exp(-y_n x_n^T w)),
so it is given C_lib = 1 / rho and per-sample weights c_n = C / B_i(n) (its instance weights),
which makes its objective F / rho exactly. No intercept (dpadmm has none without --bias).

Data: Adult as dpadmm loads it (rows with a '?' dropped, numeric columns min-max scaled over
train + test, categories one-hot in byte order: 104 columns), every row divided by the largest
row norm of train and test (dpadmm's global-max-norm). The script writes that matrix as LIBSVM files and
a partition file (a seeded shuffle dealt round-robin: equal shares, as `--partition even`), and
runs dpadmm on those files with `--scaling none`, so both solvers see the same bits. The script
checks the mapping: dpadmm's own centralized optimum must equal liblinear's F to 1e-9.

Measured (medians of --reps):
  liblinear: time of fit() at a tight tolerance and the objective it reaches (the reference F*);
             also the loosest tolerance of a ladder whose objective is within 1e-6 of F*, and
             its time (liblinear's own time to 1e-6).
  dpadmm:    the fewest rounds R whose returned model has F <= F* (1 + 1e-6) (F evaluated here,
             at the model of the summary), then the run time of R rounds (summary "seconds":
             engine set-up and rounds, metrics off) on each engine.
usage: bench/liblinear_side_by_side.py [--cli build/cli/dpadmm] [--data DIR] [--nodes 5]
       [--eta 0.5] [--newton-tolerance 1e-10] [--reps 5] [--threads 2] [--out DIR]
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import scipy.sparse as sp
from sklearn.linear_model import LogisticRegression

NUMERIC = [0, 2, 4, 10, 11, 12]
CATEGORICAL = [1, 3, 5, 6, 7, 8, 9, 13]
LABEL = 14


def read_adult(path):
    rows = []
    with open(path, encoding="latin-1") as f:
        for line in f:
            s = line.strip()
            if not s or s.startswith("|"):
                continue
            fields = [t.strip() for t in s.split(",")]
            if "?" in fields:
                continue
            if len(fields) != 15:
                sys.exit(f"{path}: expected 15 fields, found {len(fields)}")
            rows.append(fields)
    return rows


def encode_adult(train, test):
    both = train + test
    lo = [min(float(r[k]) for r in both) for k in NUMERIC]
    hi = [max(float(r[k]) for r in both) for k in NUMERIC]
    cats = [sorted({r[k] for r in both}, key=lambda c: c.encode("latin-1")) for k in CATEGORICAL]
    offsets, cols = [], len(NUMERIC)
    for c in cats:
        offsets.append(cols)
        cols += len(c)
    index = [{c: j for j, c in enumerate(cs)} for cs in cats]

    def encode(rows):
        data, ind, ptr, y = [], [], [0], []
        for r in rows:
            for j, k in enumerate(NUMERIC):
                rng = hi[j] - lo[j]
                v = (float(r[k]) - lo[j]) / rng if rng > 0 else 0.0
                if v != 0.0:
                    ind.append(j)
                    data.append(v)
            for j, k in enumerate(CATEGORICAL):
                ind.append(offsets[j] + index[j][r[k]])
                data.append(1.0)
            ptr.append(len(ind))
            y.append(1.0 if r[LABEL].rstrip(".") == ">50K" else -1.0)
        return sp.csr_matrix((data, ind, ptr), shape=(len(rows), cols)), np.array(y)

    return encode(train), encode(test)


def write_libsvm(path, x, y):
    with open(path, "w") as f:
        for i in range(x.shape[0]):
            a, b = x.indptr[i], x.indptr[i + 1]
            items = " ".join(f"{j + 1}:{v:.17g}" for j, v in zip(x.indices[a:b], x.data[a:b]))
            f.write(f"{int(y[i]):+d} {items}\n")


def objective(x, y, weights, rho, f):
    m = y * (x @ f)
    return float(np.sum(weights * np.logaddexp(0.0, -m)) + 0.5 * rho * f.dot(f))


CPU = {}  # label -> median CPU seconds of the last median_time call with that label


def median_time(fn, reps, label=None):
    """Median wall time of fn over reps calls (and, under `label`, the median CPU time)."""
    times, cpus, out = [], [], None
    for _ in range(reps):
        c0, t0 = time.process_time(), time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    if label:
        CPU[label] = statistics.median(cpus)
    return statistics.median(times), times, out


def child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    ap.add_argument("--cli", default=os.path.join(root, "build", "cli", "dpadmm"))
    ap.add_argument("--data", default=os.environ.get(
        "DPADMM_DATA", os.path.join(root, "..", "shared", "data")))
    ap.add_argument("--nodes", type=int, default=5)
    ap.add_argument("--edges", default="7")
    ap.add_argument("--C", type=float, default=1750.0)
    ap.add_argument("--rho", type=float, default=0.22)
    ap.add_argument("--eta", type=float, default=0.5)
    ap.add_argument("--newton-tolerance", type=float, default=1e-10)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--engines", default="serial,tbb")
    ap.add_argument("--relative", type=float, default=1e-6)
    ap.add_argument("--max-rounds", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=None, help="keep the generated files here")
    a = ap.parse_args()

    adult = os.path.join(a.data, "adult")
    if not os.path.exists(os.path.join(adult, "adult.data")):
        sys.exit(f"no Adult data in {adult} (use --data DIR or DPADMM_DATA)")
    (x, y), (xt, yt) = encode_adult(read_adult(os.path.join(adult, "adult.data")),
                                    read_adult(os.path.join(adult, "adult.test")))
    # dpadmm's global-max-norm: one factor, the largest row norm of train and test together.
    scale = 1.0 / max(np.sqrt(m.multiply(m).sum(axis=1)).max() for m in (x, xt))
    x, xt = (x * scale).tocsr(), (xt * scale).tocsr()
    n = x.shape[0]
    rng = np.random.default_rng(a.seed)
    node = np.empty(n, dtype=int)
    node[rng.permutation(n)] = np.arange(n) % a.nodes
    counts = np.bincount(node, minlength=a.nodes)
    weights = a.C / counts[node]

    work = a.out or tempfile.mkdtemp(prefix="dpadmm-liblinear-")
    os.makedirs(work, exist_ok=True)
    train_f, test_f = os.path.join(work, "adult.train.svm"), os.path.join(work, "adult.test.svm")
    part_f = os.path.join(work, "partition.txt")
    write_libsvm(train_f, x, y)
    write_libsvm(test_f, xt, yt)
    with open(part_f, "w") as f:
        f.write("".join(f"{k}\n" for k in node))
    print(f"data: Adult {n} x {x.shape[1]} (test {xt.shape[0]}), rows scaled by {scale:.6f}; "
          f"{a.nodes} nodes, rows per node {counts.min()}..{counts.max()}; C = {a.C}, "
          f"rho = {a.rho}; files in {work}")
    print(f"load average: {os.getloadavg()[0]:.2f}")

    # liblinear: C_lib = 1 / rho and instance weights C / B_i give objective F / rho.
    def fit(tol):
        m = LogisticRegression(solver="liblinear", penalty="l2", dual=False, C=1.0 / a.rho,
                               fit_intercept=False, tol=tol, max_iter=100000)
        m.fit(x, y, sample_weight=weights)
        return m.coef_.ravel()

    tight = 1e-12
    t_tight, times_tight, w_star = median_time(lambda: fit(tight), a.reps, "tight")
    f_star = objective(x, y, weights, a.rho, w_star)
    print(f"liblinear tol {tight:g}: F* = {f_star:.10f}, fit {1e3 * t_tight:.1f} ms "
          f"(median of {a.reps}: {', '.join(f'{1e3 * t:.1f}' for t in times_tight)}; "
          f"CPU {1e3 * CPU['tight']:.1f} ms)")
    target = f_star * (1.0 + a.relative)
    lib_to_target = None
    for tol in [1e-1, 3e-2, 1e-2, 3e-3, 1e-3, 3e-4, 1e-4, 3e-5, 1e-5, 1e-6, 1e-8, 1e-10]:
        t, _, w = median_time(lambda: fit(tol), a.reps, "ladder")
        fv = objective(x, y, weights, a.rho, w)
        print(f"liblinear tol {tol:g}: F = {fv:.10f} (rel {(fv - f_star) / f_star:.2e}), "
              f"fit {1e3 * t:.1f} ms (CPU {1e3 * CPU['ladder']:.1f} ms)")
        if fv <= target:
            lib_to_target = (tol, t, CPU["ladder"])
            break

    base = [a.cli, "run", "--algorithm", "admm", "--data", "libsvm", "--train", train_f,
            "--test", test_f, "--features", str(x.shape[1]), "--scaling", "none",
            "--partition", "file", "--partition-file", part_f, "--nodes", str(a.nodes),
            "--edges", a.edges, "--seed", str(a.seed), "--C", repr(a.C), "--rho", repr(a.rho),
            "--eta", repr(a.eta), "--newton-tolerance", repr(a.newton_tolerance), "-q",
            "--summary", os.path.join(work, "summary.json"),
            "--trace", os.path.join(work, "trace.csv")]

    def run(rounds, engine, extra=()):
        cmd = base + ["--iterations", str(rounds), "--engine", engine,
                      "--threads", str(a.threads if engine == "tbb" else 0)] + list(extra)
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        with open(os.path.join(work, "summary.json")) as f:
            return json.load(f)

    # The mapping check: dpadmm's centralized optimum is the same F.
    s = run(1, "serial", ["--metrics", "all"])
    f_opt = s["info"]["optimum_objective"]
    print(f"dpadmm centralized optimum F = {f_opt:.10f} (liblinear F* {f_star:.10f}, "
          f"rel diff {(f_opt - f_star) / f_star:.2e})")
    if abs(f_opt - f_star) > 1e-9 * abs(f_star):
        sys.exit("the two objectives differ: check the data or the C / rho mapping")

    quick = ["--no-optimum", "--metrics", "released-only", "--metrics-every", "0"]

    def reached(rounds):
        s = run(rounds, "serial", quick)
        return objective(x, y, weights, a.rho, np.array(s["model"])) <= target

    hi = 1
    while not reached(hi):
        hi *= 2
        if hi > a.max_rounds:
            sys.exit(f"dpadmm did not reach F* (1 + {a.relative:g}) in {a.max_rounds} rounds")
    lo = hi // 2  # not reached (or 0)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if reached(mid):
            hi = mid
        else:
            lo = mid
    rounds = hi
    s = run(rounds, "serial", quick)
    fr = objective(x, y, weights, a.rho, np.array(s["model"]))
    print(f"dpadmm admm (eta {a.eta}, newton tolerance {a.newton_tolerance:g}): {rounds} rounds "
          f"to F <= F* (1 + {a.relative:g}): F = {fr:.10f} (rel {(fr - f_star) / f_star:.2e})")
    results, cpus = {}, {}

    def cpu_of(r, engine):
        c0 = child_cpu()
        run(r, engine, quick)
        return child_cpu() - c0

    for engine in a.engines.split(","):
        secs = [run(rounds, engine, quick)["seconds"] for _ in range(a.reps)]
        results[engine] = statistics.median(secs)
        # CPU of the rounds alone (all threads): a run of R rounds minus a run of 1 round (the
        # loading and set-up), scaled back to R rounds.
        if rounds > 1:
            cr = statistics.median(cpu_of(rounds, engine) for _ in range(a.reps))
            c1 = statistics.median(cpu_of(1, engine) for _ in range(a.reps))
            cpu = (cr - c1) * rounds / (rounds - 1)
        else:
            cpu = float("nan")
        cpus[engine] = cpu
        print(f"dpadmm {engine}{' threads=' + str(a.threads) if engine == 'tbb' else ''}: "
              f"{rounds} rounds in {1e3 * results[engine]:.1f} ms (median of {a.reps}: "
              f"{', '.join(f'{1e3 * t:.1f}' for t in secs)}); CPU of the rounds "
              f"{1e3 * cpu:.1f} ms")
    print(f"load average: {os.getloadavg()[0]:.2f}")
    best = min(results.values())
    best_cpu = min(cpus.values())
    lib = f"liblinear to its optimum (tol {tight:g}) {1e3 * t_tight:.1f} ms (CPU " \
          f"{1e3 * CPU['tight']:.1f})"
    if lib_to_target:
        lib += f", to 1e-6 (tol {lib_to_target[0]:g}) {1e3 * lib_to_target[1]:.1f} ms (CPU " \
               f"{1e3 * lib_to_target[2]:.1f})"
    print(f"summary: {lib}; dpadmm to 1e-6, best engine {1e3 * best:.1f} ms (CPU of the rounds, "
          f"best engine {1e3 * best_cpu:.1f})")
    if lib_to_target:
        for what, mine, theirs in (("wall", best, lib_to_target[1]),
                                   ("CPU", best_cpu, lib_to_target[2])):
            verdict = "no later than" if mine <= theirs else f"{mine / theirs:.2f}x slower than"
            print(f"  {what}: dpadmm reaches F* (1 + {a.relative:g}) {verdict} liblinear")

if __name__ == "__main__":
    main()
