#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Utility benchmark: every private consensus algorithm against a party training alone (local),
the gossip average of those releases (average) and one trusted curator (central), at the same
epsilon, on real data (bench/README.md, "Utility: private algorithms against local and central").

  /usr/bin/python3 bench/utility.py [--cli build/cli/dpadmm] [--data ../shared/data]
      [--sets LIST] [--partitions even,dirichlet] [--epsilons 0.5,1,2,5] [--seeds 5]
      [--algorithms LIST] [--nodes 10] [--jobs 2] [--timeout 900] [--out utility]
      [--run-args "FLAGS"]
  /usr/bin/python3 bench/utility.py --quick          # german and waveform, even, epsilon 1, 2 seeds
  /usr/bin/python3 bench/utility.py --check FILE     # the report of a results file (no runs)

Drives `dpadmm run` once per data set, partition, epsilon, algorithm and seed (`--threads 1`,
`--jobs` runs at a time, each killed after `--timeout` seconds). Seed k is the data/split/graph/
partition seed and the noise seed: simulation mode, so every figure is reproducible and NOT
private. Each private algorithm runs at its epsilon defaults (only `--target-epsilon E`, which
calibrates its noise to a tight total epsilon E per node at delta 1e-5); non-private admm runs
once per set, partition and seed. Accuracy = 1 - the summary's final test error. Writes
OUT/utility.md (a table per set and partition: rows epsilon, columns algorithms, mean and
standard deviation over seeds with the mean run time) and OUT/utility.json (every run and cell).
--run-args "FLAGS": more `dpadmm run` flags for every private run, after `--target-epsilon E`
(e.g. `--no-epsilon-policy --mechanism gaussian --C 1 --rho 0.1 --rho-per-node` for a curator
with Gaussian output perturbation); recorded in both files. Default: none (the epsilon defaults).

--check [FILE]: per set, partition and epsilon, whether each private algorithm is >= local,
whether the best iterative one is >= average, its distance to central, and for sets with at most
100 training rows per node the fraction of the way from local to central. Without FILE the
benchmark runs first. Always exits 0: a report, not a test.
--smoke: one small set, one epsilon, one seed, two algorithms into a temporary folder, then the
report of its own JSON (the ctest bench.utility_smoke); fails only if the script breaks.
"""
import argparse
import collections
import concurrent.futures
import datetime
import json
import math
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# Columns in order. The baselines first, then the private consensus algorithms, then the
# non-private reference (run once per set, partition and seed, not per epsilon).
BASELINES = ["local", "average", "central"]
PRIVATE = ["dvp", "pvp", "madmm", "private_mradmm", "pdml"]
NON_PRIVATE = ["admm"]
ALGORITHMS = BASELINES + PRIVATE + NON_PRIVATE

# Rätsch sets with realisations: realisation k is seed k. splice and twonorm have none: the
# CLI's seeded --test-fraction split.
REALISED = ["banana", "german", "image", "waveform", "ringnorm"]
UNSPLIT = ["splice", "twonorm"]
SETS = ["adult", "a9a"] + REALISED + UNSPLIT
PARTITIONS = ["even", "dirichlet"]
EPSILONS = [0.5, 1.0, 2.0, 5.0]
DELTA = 1e-5  # the delta of --target-epsilon (dpadmm run --help)
SMALL_NODE = 100  # rows per node up to which --check reports the local-to-central fraction


# ---------------------------------------------------------------------------------------------
# The CLI


def cli_algorithms(cli):
    """The algorithm names `dpadmm run --help` lists under --algorithm."""
    text = subprocess.run([cli, "run", "--help"], capture_output=True, text=True,
                          timeout=60).stdout
    names = []
    inside = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("--algorithm "):
            inside = True
            continue
        if inside:
            if stripped.startswith("-") or not stripped:
                break
            name, sep, _ = stripped.partition(":")
            if sep and name.replace("_", "").isalnum():
                names.append(name)
    return names


def cli_config(cli, algorithm):
    """The effective spec of `algorithm`'s defaults (`--print-config`), or None."""
    p = subprocess.run([cli, "run", "--algorithm", algorithm, "--print-config"],
                       capture_output=True, text=True, timeout=60)
    try:
        return json.loads(p.stdout) if p.returncode == 0 else None
    except ValueError:
        return None


def data_args(name, root, seed):
    """The CLI's data flags for set `name` and seed k, and the files they need."""
    if name == "adult":
        files = [os.path.join(root, "adult", f) for f in ("adult.data", "adult.test")]
        return ["--data", "adult", "--train", files[0], "--test", files[1]], files
    if name == "a9a":
        files = [os.path.join(root, "a9a", f) for f in ("a9a", "a9a.t")]
        return ["--data", "libsvm", "--train", files[0], "--test", files[1],
                "--features", "123"], files
    d = os.path.join(root, name)
    if name in REALISED:
        f = {part: os.path.join(d, f"{name}_{part}_{seed}.asc")
             for part in ("train_data", "train_labels", "test_data", "test_labels")}
        return ["--data", "asc", "--train", f["train_data"], "--train-labels",
                f["train_labels"], "--test", f["test_data"], "--test-labels",
                f["test_labels"]], list(f.values())
    files = [os.path.join(d, f"{name}_data.asc"), os.path.join(d, f"{name}_labels.asc")]
    return ["--data", "asc", "--train", files[0], "--train-labels", files[1]], files


EXIT_REASONS = {1: "internal error", 3: "diverged", 4: "cancelled", 5: "failed",
                6: "output not written"}


def abbreviate(code, message):
    """A short cell text for a run that gave no accuracy."""
    if code == 2:
        if "out of reach" in message:
            return "refused: out of reach"
        text = message.split("error:", 1)[-1].strip()
        return "refused: " + (text[:40] + "..." if len(text) > 40 else text)
    if code in EXIT_REASONS:
        return EXIT_REASONS[code]
    if code is not None and code < 0:
        return f"killed by signal {-code}"
    return f"exit {code}"


def run_one(job, cli, common, timeout, scratch, run_args=()):
    """Runs one cell's seed (run_args: more flags for a private run); returns its record (never
    raises for a failed run)."""
    rec = dict(job)
    args, files = job["_data"]
    del rec["_data"]
    missing = [f for f in files if not os.path.exists(f)]
    if missing:
        rec.update(status="missing data", reason="missing data", message=missing[0])
        return rec
    summary = os.path.join(scratch, f"run{job['index']}.json")
    trace = os.path.join(scratch, f"run{job['index']}.csv")
    cmd = [cli, "run"] + args + common + [
        "--partition", job["partition"], "--algorithm", job["algorithm"],
        "--seed", str(job["seed"]), "--noise-seed", str(job["seed"]),
        "--summary", summary, "--trace", trace]
    if job["epsilon"] is not None:
        cmd += ["--target-epsilon", repr(job["epsilon"])] + list(run_args)
    rec["command"] = shlex.join(cmd)
    start = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        rec.update(status="timeout", reason=f"timeout {timeout:g} s", exit_code=None,
                   wall_seconds=round(time.monotonic() - start, 3))
        return rec
    rec["wall_seconds"] = round(time.monotonic() - start, 3)
    rec["exit_code"] = p.returncode
    errors = [ln for ln in p.stderr.splitlines() if "error:" in ln]
    message = errors[-1] if errors else (p.stderr.strip().splitlines() or [""])[-1]
    try:
        with open(summary) as f:
            s = json.load(f)
    except (OSError, ValueError):
        s = None
    for path in (summary, trace):
        if os.path.exists(path):
            os.remove(path)
    final = (s or {}).get("final") or {}
    if p.returncode != 0 or final.get("test_error") is None:
        reason = abbreviate(p.returncode, message) if p.returncode != 0 else "no test error"
        rec.update(status="failed", reason=reason, message=message)
        if s:
            rec["outcome"] = s.get("outcome")
        return rec
    info = s.get("info") or {}
    tight = s.get("tight_privacy") or {}
    rec.update(
        status="ok",
        accuracy=1.0 - final["test_error"],
        seconds=s.get("seconds"),
        outcome=s.get("outcome"),
        noise_mode=s.get("noise_mode"),
        rounds=s.get("rounds"),
        tight_epsilon=tight.get("epsilon", final.get("tight_epsilon")),
        tight_delta=tight.get("delta", final.get("tight_delta")),
        calibration=info.get("calibration"),
        train_rows=info.get("train_rows"),
        test_rows=info.get("test_rows"),
        features=info.get("features"),
        nodes=info.get("nodes"),
        rows_per_node_min=min(info.get("rows_per_node") or [0]),
        rows_per_node_max=max(info.get("rows_per_node") or [0]),
        test_majority_rate=info.get("test_majority_rate"),
        scaling=info.get("scaling"),
        test_error_of=info.get("test_error_of"))
    return rec


# ---------------------------------------------------------------------------------------------
# Cells


def cell_key(r):
    return (r["set"], r["partition"], r["epsilon"], r["algorithm"])


def make_cells(runs):
    groups = collections.OrderedDict()
    for r in runs:
        groups.setdefault(cell_key(r), []).append(r)
    cells = []
    for (name, partition, eps, algorithm), rs in groups.items():
        ok = [r for r in rs if r["status"] == "ok"]
        acc = [r["accuracy"] for r in ok]
        secs = [r["seconds"] for r in ok if r.get("seconds") is not None]
        reasons = collections.Counter(r["reason"] for r in rs if r["status"] != "ok")
        cells.append({
            "set": name, "partition": partition, "epsilon": eps, "algorithm": algorithm,
            "seeds": sorted(r["seed"] for r in rs), "runs": len(rs), "ok": len(ok),
            "accuracy_mean": statistics.fmean(acc) if acc else None,
            "accuracy_sd": statistics.stdev(acc) if len(acc) >= 2 else None,
            "seconds_mean": statistics.fmean(secs) if secs else None,
            "failures": dict(reasons),
            "tight_epsilon_max": max((r["tight_epsilon"] for r in ok
                                      if r.get("tight_epsilon") is not None), default=None),
            "tight_delta_max": max((r["tight_delta"] for r in ok
                                    if r.get("tight_delta") is not None), default=None)})
    return cells


def find_cell(cells, name, partition, eps, algorithm):
    for c in cells:
        if (c["set"], c["partition"], c["epsilon"], c["algorithm"]) == \
                (name, partition, eps, algorithm):
            return c
    return None


def pct(x):
    return f"{100 * x:.1f}"


def cell_text(c):
    if c is None:
        return ""
    if c["ok"] == 0:
        return "; ".join(f"{k} ({v}/{c['runs']})" if len(c["failures"]) > 1 else k
                         for k, v in c["failures"].items())
    text = pct(c["accuracy_mean"])
    if c["accuracy_sd"] is not None:
        text += " ± " + pct(c["accuracy_sd"])
    if c["seconds_mean"] is not None:
        text += f" ({c['seconds_mean']:.2g} s)"
    if c["ok"] < c["runs"]:
        failed = ", ".join(f"{v} {k}" for k, v in c["failures"].items())
        text += f"; {c['ok']}/{c['runs']} ran, {failed}"
    return text


def eps_text(eps):
    return "non-private" if eps is None else f"{eps:g}"


# ---------------------------------------------------------------------------------------------
# Reports


def markdown(meta, runs, cells):
    out = []
    m = meta
    out.append("# Utility: private algorithms against local and central (simulation)\n")
    out.append("Simulation: every run has a noise seed (seed k = data/split/graph/partition "
               "seed and noise seed), so the noise is reproducible and NO run is private; a "
               "private run draws the same distributions.\n")
    out.append(f"- command: `{m['command']}` (in `{m['cwd']}`)")
    out.append(f"- date: {m['date_start']} to {m['date_end']} ({m['wall_seconds']:.0f} s)")
    out.append(f"- machine: {m['machine']}, nproc {m['nproc']}, {m['cpu_model']}")
    out.append(f"- load average (1, 5, 15 min): start {m['load_start']}, end {m['load_end']}")
    out.append(f"- CLI: `{m['cli']}` version {m['cli_version']} (modified {m['cli_mtime']})")
    out.append(f"- settings: {m['nodes']} nodes, random graph (the CLI's default edges), "
               f"`--scaling {m['scaling']}`{' and `--bias`' if m.get('bias') else ''} for "
               f"every run, `--threads 1`, {m['jobs']} runs at a "
               f"time, timeout {m['timeout']:g} s per run; each algorithm at its defaults, "
               f"private ones with only `--target-epsilon E` (tight total epsilon per node at "
               f"delta {DELTA:g}, plus a sampler's delta where the algorithm has one: see the "
               f"notes)" + (f", then `{shlex.join(m['run_args'])}`" if m.get("run_args") else ""))
    if m["skipped"]:
        out.append("- not run: " + "; ".join(f"`{a}` ({why})" for a, why in m["skipped"]))
    knobs = {}
    for r in runs:
        if r["status"] == "ok" and r.get("calibration"):
            knobs.setdefault(r["algorithm"], set()).add(r["calibration"].get("knob"))
    if knobs:
        out.append("- the knob the target calibrated (the summaries' `info.calibration`): " +
                   ", ".join(f"{a} `{'`, `'.join(sorted(map(str, k)))}`"
                             for a, k in knobs.items()))
    if m.get("pdml_label_eps") is not None and "pdml" in m["algorithms"]:
        out.append(f"- pdml: its users' labels are also randomized, at its default label eps "
                   f"{m['pdml_label_eps']:g} (eps-LDP per user, `--label-eps`), which the "
                   f"target does not cover")
    of = {}
    for r in runs:
        if r["status"] == "ok" and r.get("test_error_of") not in (None, "mean model"):
            of.setdefault(r["algorithm"], set()).add(r["test_error_of"])
    if of:
        out.append("- accuracy of the mean model, except (`info.test_error_of`): " +
                   "; ".join(f"{a}: {', '.join(sorted(k))}" for a, k in of.items()))
    out.append("")
    out.append("Cells: test accuracy in % (1 - the summary's final test error), mean ± "
               "standard deviation over the seeds, and the mean run time (the summary's "
               "seconds) in parentheses. `central` needs one curator that every party trusts "
               "with its rows. `admm` is not private: one row, its own.\n")
    algorithms = m["algorithms"]
    for name in m["sets"]:
        for partition in m["partitions"]:
            rs = [r for r in runs if r["set"] == name and r["partition"] == partition]
            if not rs:
                continue
            out.append(f"## {name}, {partition} partition (simulation, seeds "
                       f"{','.join(map(str, m['seeds']))})\n")
            ok = [r for r in rs if r["status"] == "ok"]
            if ok:
                r0 = ok[0]
                majority = [r["test_majority_rate"] for r in ok
                            if r.get("test_majority_rate") is not None]
                # Per node of the run's --nodes (central's one node is not the partition's).
                line = (f"{r0['train_rows']} training rows (seed {r0['seed']}), "
                        f"{r0['test_rows']} test rows, {r0['features']} features; "
                        f"{r0['train_rows'] / m['nodes']:.0f} rows per node on average; ")
                if majority:
                    span = sorted({pct(min(majority)), pct(max(majority))}, key=float)
                    line += f"majority class {'-'.join(span)}% of the test set"
                out.append(line + "\n")
            cols = algorithms
            out.append("| epsilon | " + " | ".join(cols) + " |")
            out.append("|---" * (len(cols) + 1) + "|")
            rows = [e for e in m["epsilons"]] + ([None] if "admm" in cols else [])
            for eps in rows:
                cells_row = []
                for a in cols:
                    if (eps is None) != (a in NON_PRIVATE):
                        cells_row.append("")
                    else:
                        cells_row.append(cell_text(find_cell(cells, name, partition, eps, a)))
                out.append(f"| {eps_text(eps)} | " + " | ".join(cells_row) + " |")
            out.append("")
            notes = privacy_notes(m, runs, cells, name, partition)
            if notes:
                out += notes + [""]
    return "\n".join(out) + "\n"


def privacy_notes(meta, runs, cells, name, partition):
    """What the runs themselves reported (the summaries' tight per-node figure): whether every
    epsilon stayed at its row's target, the largest delta per algorithm, and the rounds."""
    above, deltas = [], []
    for a in meta["algorithms"]:
        if a in NON_PRIVATE:
            continue
        cs = [c for c in cells if (c["set"], c["partition"], c["algorithm"]) ==
              (name, partition, a) and c["ok"]]
        ds = [c["tight_delta_max"] for c in cs if c["tight_delta_max"] is not None]
        if ds:
            deltas.append(f"{a} {max(ds):.2g}")
        for c in cs:
            reported = c["tight_epsilon_max"]
            if reported is None or reported > c["epsilon"] * (1 + 1e-9):
                above.append(f"{a} at epsilon {c['epsilon']:g} (reported "
                             f"{'none' if reported is None else f'{reported:.6g}'})")
    rounds = []
    for a in meta["algorithms"]:
        rs = [r["rounds"] for r in runs if (r["set"], r["partition"], r["algorithm"]) ==
              (name, partition, a) and r["status"] == "ok" and r.get("rounds") is not None]
        if rs:
            span = f"{min(rs)}" if min(rs) == max(rs) else f"{min(rs)}-{max(rs)}"
            rounds.append(f"{a} {span}")
    notes = ["- rounds the runs made (a private algorithm's epsilon defaults may set them): " +
             ", ".join(rounds)] if rounds else []
    if not deltas and not above:
        return notes
    if above:
        line = "- tight epsilon NOT at most the row's target in: " + "; ".join(above)
    else:
        line = "- every run reported a tight epsilon per node at most its row's target"
    if deltas:
        line += "; at delta (largest per algorithm): " + ", ".join(deltas)
    return [line] + notes


def mean_sd(c):
    text = pct(c["accuracy_mean"])
    if c["accuracy_sd"] is not None:
        text += f" ± {pct(c['accuracy_sd'])}"
    if c["ok"] < c["runs"]:
        text += f" [{c['ok']}/{c['runs']} seeds]"
    return text


def difference(a, b):
    """a - b in points, with the standard error of the difference of the two means."""
    d = a["accuracy_mean"] - b["accuracy_mean"]
    var = 0.0
    for c in (a, b):
        if c["accuracy_sd"] is not None:
            var += c["accuracy_sd"] ** 2 / c["ok"]
    return f"{100 * d:+.1f} ± {100 * math.sqrt(var):.1f}"


def check_report(data):
    meta, runs, cells = data["meta"], data["runs"], data["cells"]
    out = ["Utility check (simulation: every run had a noise seed; not private). Differences "
           "in points, ± the standard error of the difference of the means over seeds."]
    for name in meta["sets"]:
        for partition in meta["partitions"]:
            ok = [r for r in runs if (r["set"], r["partition"]) == (name, partition)
                  and r["status"] == "ok" and r.get("train_rows")]
            per_node = statistics.fmean(r["train_rows"] for r in ok) / meta["nodes"] if ok \
                else None
            for eps in meta["epsilons"]:
                def get(a):
                    c = find_cell(cells, name, partition, eps, a)
                    return c if c and c["ok"] else None
                if not any(get(a) for a in meta["algorithms"]):
                    continue
                size = f", {per_node:.0f} rows per node" if per_node else ""
                out.append(f"\n{name}, {partition}, epsilon {eps:g}{size}:")
                local, average, central = get("local"), get("average"), get("central")
                base = []
                for a in BASELINES + NON_PRIVATE:
                    c = find_cell(cells, name, partition, None if a in NON_PRIVATE else eps, a)
                    if c and c["ok"]:
                        base.append(f"{a} {mean_sd(c)}")
                    elif c:
                        base.append(f"{a} {cell_text(c)}")
                    elif a in dict(meta["skipped"]):
                        base.append(f"{a} not in the CLI")
                    else:
                        base.append(f"{a} not run")
                out.append("  " + "; ".join(base))
                small = per_node is not None and per_node <= SMALL_NODE
                iterative = []
                for a in PRIVATE:
                    if a not in meta["algorithms"]:
                        continue
                    c = get(a)
                    if c is None:
                        cell = find_cell(cells, name, partition, eps, a)
                        out.append(f"  {a:15} no result ({cell_text(cell) or 'not run'})")
                        continue
                    iterative.append((a, c))
                    line = f"  {a:15} {mean_sd(c):12}"
                    if local:
                        verdict = "yes" if c["accuracy_mean"] >= local["accuracy_mean"] else "no"
                        line += f" >= local: {verdict:3} ({difference(c, local)})"
                    else:
                        line += " >= local: n/a (no local)"
                    if small and local and central:
                        gap = central["accuracy_mean"] - local["accuracy_mean"]
                        if gap > 0:
                            frac = (c["accuracy_mean"] - local["accuracy_mean"]) / gap
                            line += f"  local->central: {frac:.2f}"
                        else:
                            line += "  local->central: n/a (central not above local)"
                    out.append(line)
                if iterative:
                    a, c = max(iterative, key=lambda ac: ac[1]["accuracy_mean"])
                    line = f"  best iterative: {a} {mean_sd(c)}"
                    if average:
                        verdict = "yes" if c["accuracy_mean"] >= average["accuracy_mean"] \
                            else "no"
                        line += f"; >= average: {verdict} ({difference(c, average)})"
                    else:
                        line += "; >= average: n/a (no average)"
                    if central:
                        line += f"; central - best: {difference(central, c)}"
                    else:
                        line += "; central: n/a"
                    out.append(line)
    if len(out) == 1:
        out.append("\nNo run in this file gave an accuracy.")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------------------
# Driver


def machine_meta():
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        nproc = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
    except OSError:
        nproc = str(os.cpu_count())
    return {"machine": platform.machine(), "nproc": nproc, "cpu_model": cpu}


def load_average():
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def split_list(text, allowed, what):
    items = list(dict.fromkeys(x.strip() for x in text.split(",") if x.strip()))
    bad = [x for x in items if x not in allowed]
    if bad or not items:
        raise SystemExit(f"utility.py: --{what}: unknown {', '.join(bad) or '(empty)'}; "
                         f"choose from {','.join(allowed)}")
    return items


def parse_args(argv):
    intro, usage = __doc__.split("\n\n", 1)
    ap = argparse.ArgumentParser(description=intro,
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=usage)
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "cli", "dpadmm"),
                    help="the dpadmm binary (default: build/cli/dpadmm of the repository)")
    ap.add_argument("--data", default=os.path.normpath(os.path.join(ROOT, "..", "shared",
                                                                    "data")),
                    help="data root (default: ../shared/data beside the repository)")
    ap.add_argument("--sets", default=",".join(SETS), help="data sets (default: all nine)")
    ap.add_argument("--partitions", default=",".join(PARTITIONS),
                    help="default even,dirichlet")
    ap.add_argument("--epsilons", default=",".join(f"{e:g}" for e in EPSILONS),
                    help="targets per node at delta 1e-5 (default 0.5,1,2,5)")
    ap.add_argument("--seeds", type=int, default=5, help="seeds 1..N (default 5)")
    ap.add_argument("--algorithms", default=",".join(ALGORITHMS),
                    help="columns (default: all; any `dpadmm run --help` lacks is skipped)")
    ap.add_argument("--nodes", type=int, default=10, help="default 10")
    ap.add_argument("--scaling", default="clip-only",
                    help="--scaling of every run (default clip-only, what a private run "
                         "without public feature bounds uses)")
    ap.add_argument("--bias", action=argparse.BooleanOptionalAction, default=True,
                    help="--bias for every run: an intercept (a constant feature 1 appended "
                         "before the scaling), as the Python estimators' fit_intercept=True "
                         "(default; --no-bias: the CLI's default rows)")
    ap.add_argument("--run-args", default="", metavar="FLAGS",
                    help="more `dpadmm run` flags for every private run, after --target-epsilon "
                         "(one string, split as a shell would; default none: the epsilon "
                         "defaults)")
    ap.add_argument("--jobs", type=int, default=2, help="runs at a time (default 2)")
    ap.add_argument("--timeout", type=float, default=900, help="seconds per run (default 900)")
    ap.add_argument("--out", default="utility", help="output folder (default ./utility)")
    ap.add_argument("--quick", action="store_true",
                    help="german and waveform, even partition, epsilon 1, 2 seeds")
    ap.add_argument("--check", nargs="?", const="", metavar="FILE",
                    help="print the check report of FILE (no runs), or of this run")
    ap.add_argument("--smoke", action="store_true", help="the ctest smoke test")
    a = ap.parse_args(argv)
    if a.quick:
        a.sets, a.partitions, a.epsilons, a.seeds = "german,waveform", "even", "1", 2
    a.sets = split_list(a.sets, SETS, "sets")
    a.partitions = split_list(a.partitions, PARTITIONS, "partitions")
    a.algorithms = split_list(a.algorithms, ALGORITHMS, "algorithms")
    try:
        a.epsilons = list(dict.fromkeys(float(x) for x in a.epsilons.split(",") if x.strip()))
    except ValueError:
        raise SystemExit(f"utility.py: --epsilons: not a list of numbers: {a.epsilons}")
    if not a.epsilons or any(not (e > 0 and math.isfinite(e)) for e in a.epsilons):
        raise SystemExit("utility.py: --epsilons: give positive finite numbers")
    for flag, value in (("seeds", a.seeds), ("nodes", a.nodes), ("jobs", a.jobs)):
        if value < 1:
            raise SystemExit(f"utility.py: --{flag} must be at least 1")
    if not a.timeout > 0:
        raise SystemExit("utility.py: --timeout must be positive")
    try:
        a.run_args = shlex.split(a.run_args)
    except ValueError as e:
        raise SystemExit(f"utility.py: --run-args: {e}")
    return a


def benchmark(a, argv):
    cli = os.path.abspath(a.cli)
    if not os.access(cli, os.X_OK):
        raise SystemExit(f"utility.py: --cli {a.cli}: no executable there (build the CLI)")
    listed = cli_algorithms(cli)
    algorithms, skipped = [], []
    for alg in [x for x in ALGORITHMS if x in a.algorithms]:  # the columns' order
        if alg in listed:
            algorithms.append(alg)
        else:
            skipped.append((alg, "`dpadmm run --help` does not list it"))
    for alg, why in skipped:
        print(f"utility.py: skipping {alg}: {why}", file=sys.stderr)
    pdml = cli_config(cli, "pdml") if "pdml" in algorithms else None
    version = subprocess.run([cli, "--version"], capture_output=True, text=True).stdout.strip()
    meta = {
        "command": shlex.join([sys.executable] + argv), "cwd": os.getcwd(),
        "date_start": now(), "load_start": load_average(), **machine_meta(),
        "cli": cli, "cli_version": version,
        "cli_mtime": datetime.datetime.fromtimestamp(
            os.path.getmtime(cli), datetime.timezone.utc).isoformat(timespec="seconds"),
        "data": os.path.abspath(a.data), "sets": a.sets, "partitions": a.partitions,
        "epsilons": a.epsilons, "seeds": list(range(1, a.seeds + 1)), "nodes": a.nodes,
        "scaling": a.scaling, "bias": a.bias, "run_args": a.run_args, "jobs": a.jobs,
        "timeout": a.timeout,
        "delta": DELTA,
        "algorithms": algorithms, "skipped": skipped, "simulation": True,
        "pdml_label_eps": (((pdml or {}).get("algorithm") or {}).get("pdml") or {})
        .get("label_eps")}
    common = ["--nodes", str(a.nodes), "--threads", "1", "--scaling", a.scaling,
              "--metrics", "released-only", "--eval-every", "0", "--no-optimum", "-q"]
    if a.bias:
        common.append("--bias")
    jobs = []
    for name in a.sets:
        for partition in a.partitions:
            for alg in algorithms:
                for eps in ([None] if alg in NON_PRIVATE else a.epsilons):
                    for seed in meta["seeds"]:
                        jobs.append({"index": len(jobs), "set": name, "partition": partition,
                                     "epsilon": eps, "algorithm": alg, "seed": seed,
                                     "_data": data_args(name, a.data, seed)})
    start = time.monotonic()
    runs = [None] * len(jobs)
    with tempfile.TemporaryDirectory(prefix="dpadmm-utility-") as scratch, \
            concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        futures = {pool.submit(run_one, j, cli, common, a.timeout, scratch, a.run_args): j["index"]
                   for j in jobs}
        try:
            for done, f in enumerate(concurrent.futures.as_completed(futures), 1):
                r = f.result()
                runs[futures[f]] = r
                what = f"{pct(r['accuracy'])}%" if r["status"] == "ok" else r["reason"]
                if r.get("seconds") is not None:
                    what += f" ({r['seconds']:.2g} s)"
                print(f"[{done}/{len(jobs)}] {r['set']} {r['partition']} epsilon "
                      f"{eps_text(r['epsilon'])} {r['algorithm']} seed {r['seed']}: {what}",
                      file=sys.stderr, flush=True)
        except KeyboardInterrupt:
            pool.shutdown(wait=True, cancel_futures=True)
            raise SystemExit("utility.py: interrupted; nothing written")
    meta.update(date_end=now(), load_end=load_average(),
                wall_seconds=round(time.monotonic() - start, 1))
    cells = make_cells(runs)
    data = {"meta": meta, "runs": runs, "cells": cells}
    os.makedirs(a.out, exist_ok=True)
    md_path, json_path = os.path.join(a.out, "utility.md"), os.path.join(a.out, "utility.json")
    text = markdown(meta, runs, cells)
    with open(md_path, "w") as f:
        f.write(text)
    with open(json_path, "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    print(text)
    print(f"utility.py: wrote {md_path} and {json_path}", file=sys.stderr)
    return data, json_path


def smoke(a):
    """One small set, one epsilon, one seed, two algorithms; then the report of its own JSON.
    Fails when the script breaks (a missing cell, a run without accuracy, an unreadable file),
    not on the accuracies."""
    listed = cli_algorithms(os.path.abspath(a.cli))
    pair = ["local" if "local" in listed else "admm", "dvp"]
    with tempfile.TemporaryDirectory(prefix="dpadmm-utility-smoke-") as out:
        argv = ["--cli", a.cli, "--data", a.data, "--sets", "german", "--partitions", "even",
                "--epsilons", "1", "--seeds", "1", "--algorithms", ",".join(pair),
                "--jobs", "2", "--timeout", "60", "--out", out]
        b = parse_args(argv)
        benchmark(b, [os.path.abspath(__file__)] + argv)
        with open(os.path.join(out, "utility.json")) as f:
            data = json.load(f)
        report = check_report(data)
        print(report)
        with open(os.path.join(out, "utility.md")) as f:
            md = f.read()
    problems = []
    # The script's flags and reading of the summary, against the CLI run directly: one recorded
    # command again (summary elsewhere) must give the recorded accuracy bit for bit.
    runs = [r for r in data["runs"] if r["algorithm"] == "dvp" and r["status"] == "ok"]
    if runs:
        with tempfile.TemporaryDirectory(prefix="dpadmm-utility-smoke-") as out:
            cmd = shlex.split(runs[0]["command"])
            cmd[cmd.index("--summary") + 1] = os.path.join(out, "s.json")
            cmd[cmd.index("--trace") + 1] = os.path.join(out, "t.csv")
            subprocess.run(cmd, capture_output=True, timeout=60)
            with open(os.path.join(out, "s.json")) as f:
                direct = 1.0 - json.load(f)["final"]["test_error"]
        if direct != runs[0]["accuracy"]:
            problems.append(f"dvp: accuracy {runs[0]['accuracy']} but the CLI gives {direct}")
        for flag in ("--target-epsilon", "--noise-seed", "--threads", "--partition"):
            if flag not in cmd:
                problems.append(f"dvp: its command lacks {flag}")
    for alg in pair:
        eps = None if alg in NON_PRIVATE else 1.0
        c = find_cell(data["cells"], "german", "even", eps, alg)
        if c is None or c["ok"] != 1 or not 0.0 <= c["accuracy_mean"] <= 1.0:
            problems.append(f"{alg}: no accuracy ({c and c['failures']})")
        elif cell_text(c).split()[0] not in md:
            problems.append(f"{alg}: its cell is not in the Markdown table")
    if "| epsilon | " + " | ".join(data["meta"]["algorithms"]) + " |" not in md \
            or data["meta"]["algorithms"] != [a for a in ALGORITHMS if a in pair]:
        problems.append("the table header is missing")
    if "dvp" not in report or "german, even, epsilon 1" not in report:
        problems.append("the check report has no line for dvp on german")
    if "simulation" not in md.lower() or data["meta"].get("simulation") is not True:
        problems.append("the output is not labelled a simulation")
    # --run-args reach every private run's command after --target-epsilon, and the Markdown.
    if "central" in listed:
        extra = "--no-epsilon-policy --mechanism gaussian --C 1 --rho-per-node --rho 0.3"
        with tempfile.TemporaryDirectory(prefix="dpadmm-utility-smoke-") as out:
            argv = ["--cli", a.cli, "--data", a.data, "--sets", "german", "--partitions", "even",
                    "--epsilons", "1", "--seeds", "1", "--algorithms", "central", "--timeout",
                    "60", "--run-args", extra, "--out", out]
            benchmark(parse_args(argv), [os.path.abspath(__file__)] + argv)
            with open(os.path.join(out, "utility.json")) as f:
                run = json.load(f)["runs"][0]
            with open(os.path.join(out, "utility.md")) as f:
                md = f.read()
        if run["status"] != "ok" or not run["command"].endswith("--target-epsilon 1.0 " + extra):
            problems.append(f"--run-args: central's run {run['status']}: {run['command']}")
        if f"then `{extra}`" not in md:
            problems.append("--run-args: not in the Markdown's settings")
    if problems:
        sys.exit("utility smoke test failed: " + "; ".join(problems))
    print("utility smoke test passed")


def main(argv):
    a = parse_args(argv)
    if a.smoke:
        smoke(a)
        return 0
    if a.check:
        with open(a.check) as f:
            print(check_report(json.load(f)))
        return 0
    data, _ = benchmark(a, [os.path.abspath(__file__)] + argv)
    if a.check is not None:
        print(check_report(data))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
