#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Chaos test of `dpadmm run`: random runs interrupted at a random moment by a random fault.

    chaos.py --dpadmm PATH [--mpirun "mpirun --allow-run-as-root ..."] [--trials N] [--seed S]
             [--trial K] [--engines serial,tbb,mpi,party] [--work DIR] [--keep]

Trial k draws everything from Random("S:k"), so `--seed S --trial K` replays trial K alone.
A trial picks a run from a pool of 40 random runs of seed S (an algorithm of either family,
the node count, topology, data source: generated, a LIBSVM or CSV file), an engine (serial,
tbb, mpi with 2-4 ranks), trace format and checkpoint interval, and a fault: SIGKILL, SIGTERM or SIGINT, a full disk (the output folder is
a small tmpfs that is filled), a file made unreadable (the training file, or the output folder
made read-only; the run has the DAC capabilities dropped so that root obeys permissions) or,
under MPI, a killed rank. The fault strikes at a random moment of the run, measured in its
progress: 15% of trials during start-up and set-up, the others when the trace holds a uniform
fraction of the uninterrupted run's bytes (some land after the end). Every run is seeded
(--noise-seed: simulation mode). After the faulted run:
  - the exit code is one docs/cli/guide.md documents for that fault (0 if the run ended first;
    137 only for the process that was SIGKILLed itself, or its job);
  - no output is half-written: the trace and the summary are absent or complete (every row
    parses, the JSON parses); TRACE.partial (valid up to its last complete line) and the
    checkpoint's or summary's .partial file are allowed only after a SIGKILL, as documented;
  - no process of the run is left, and no /dev/shm segment (inside a private mount namespace
    whose /dev/shm is this test's own; a SIGKILLed MPI job's segments are counted apart);
then the disk is freed, permissions restored, and the run is resumed from its last checkpoint
(or rerun when none was written), on the same engine or another, and must exit 0 with the
trace and summary of an uninterrupted serial run, bit for bit (wall times aside), leaving no
temporary file, process or segment. Ends with "N passed, N failed".

Engine `party` (`dpadmm party`): three party processes on 127.0.0.1 with mutual TLS
(certificates from scripts/make_certs.sh), each with its own rows (a third of the LIBSVM file)
and its own output folder, a random consensus algorithm, topology and checkpoint interval. A
random party gets the fault (SIGKILL, SIGTERM, SIGINT, its output folder a full tmpfs or made
read-only at a random moment of its progress, or its data file unreadable at the start). The
faulted party must end with the fault's documented code, every other party with 0, 4 (a
cancel) or 5 (a peer failed); no half-written trace or summary, .partial files only for a
SIGKILLed party, checkpoints (FILE and FILE.prev) whole and mode 0600, no process left. Then
every party resumes with --resume (or all restart when a party has no checkpoint) and each
must give its uninterrupted party run's trace and summary, bit for bit (wall times aside).
Half of the party trials are network trials instead: every link through the fault-injecting
relay (tests/party/relay.py, a random delay of 0-2 ms with 10% jitter) and one network fault
on a random party at a random moment (its connections reset with RST or closed, a partition of
1-3 s, new connections refused for 1-2 s after a reset, or every delay raised to 5-20 ms): the
fault is transient, so every party must exit 0 with its uninterrupted run's bits.

As root with unshare(1), the test re-executes itself in a private mount namespace (unshare -m)
where it mounts its own /dev/shm and the small tmpfs folders; the namespace, and so every
mount, ends with the test. Otherwise full-disk trials use no tmpfs (they become SIGTERM
trials) and /dev/shm is not checked; the summary line says so.
"""
import argparse
import csv
import io
import json
import math
import os
import random
import shlex
import shutil
import signal
import subprocess
import sys
import time

CONSENSUS = ["admm", "dvp", "pvp", "madmm", "radmm", "mradmm", "private_mradmm", "pdml"]
SHARING = ["sharing", "sharing_dp", "sgd"]
TOPOLOGIES = ["ring", "star", "complete", "grid", "random"]
# Rounds for a run of a few tens of milliseconds on a quiet core (rows 300-800, 3-8 nodes).
ROUNDS = {"madmm": 12, "pdml": 120, "dvp": 60, "sharing": 20, "sharing_dp": 20, "sgd": 30}
DEFAULT_ROUNDS = 120
SPEC_POOL = 40  # distinct random runs per seed (trials draw from them)
RUN_TIMEOUT = 180.0  # seconds for one run: beyond the engine's 60 s peer timeout
# Exit codes docs/cli/guide.md documents, per fault, besides 0 (the run ended before the fault).
EXPECTED = {
    "sigkill": {137},
    "sigterm": {4},
    "sigint": {4},
    # Sent to mpirun, which passes SIGTERM to every rank: the ranks exit 4, mpirun itself 1.
    "sigterm_mpirun": {4, 1},
    "sigint_mpirun": {4, 1},
    "full_disk": {6},
    "unreadable_data": {2},
    "readonly_output": {6},
    # mpirun ends the job when a rank dies: its own code for a rank killed by a signal (137),
    # or a rank's 5 (engine error) when the survivors noticed first.
    "killed_rank": {137, 5},
}


# Engine `party`: three `dpadmm party` processes on 127.0.0.1 (mutual TLS), each with its own
# output folder. The faulted party ends with EXPECTED[fault]; the others with 0 (ended first),
# 4 (a party cancelled: SIGTERM/SIGINT) or 5 (a peer failed), never anything else.
PARTIES = 3
PARTY_OTHERS = {0, 4, 5}
PARTY_SETUP_TIMEOUT = 15.0
# A killed party ends the others after this silence (they wait for it to reconnect); above the
# longest network fault below (a 3 s partition) plus the heartbeat interval (a quarter of it).
PARTY_PEER_TIMEOUT = 8.0
# The fault-injecting relay between parties (network trials).
RELAY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "party", "relay.py")


def free_ports(k, hold=False):
    """k loopback ports free now; hold: also the bound sockets, for the caller to close when
    nothing it starts before the parties (the relay) can take one of them."""
    import socket
    socks = []
    for _ in range(k):
        sk = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sk.bind(("127.0.0.1", 0))
        socks.append(sk)
    ports = [sk.getsockname()[1] for sk in socks]
    if hold:
        return ports, socks
    for sk in socks:
        sk.close()
    return ports


class TrialFailure(Exception):
    pass


class PortTaken(TrialFailure):
    """A party could not listen on its port: another process (a concurrent test) took it
    between free_ports and the party's listen. The trial is run again on fresh ports."""


# Attempts of a trial whose parties found a port taken (PortTaken), each on fresh ports.
PORT_ATTEMPTS = 3


def check_ports(errs):
    """Raise PortTaken when a party's stderr says its listen port was in use."""
    for p, err in enumerate(errs):
        if "cannot listen on" in err and "address in use" in err:
            raise PortTaken(f"party p{p} found its port taken: {err[-300:]}")


# ---------------------------------------------------------------------------------------------
# Files: traces and summaries


def numbers_of_row(fields, where):
    for value in fields:
        if value == "":
            continue
        # Per-node columns are ';'-separated numbers.
        for part in value.split(";"):
            try:
                float(part)
            except ValueError:
                raise TrialFailure(f"{where}: '{value}' is not a number")


def parse_trace(path, complete=True):
    """The rows of a CSV or JSON-lines trace as dicts; every row must parse. complete=False (a
    .partial file after SIGKILL): the last line may be cut, the lines before must parse."""
    with open(path, "rb") as f:
        data = f.read().decode("utf-8", errors="strict")
    lines = data.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    elif not complete and lines:
        lines.pop()  # the line being written when the process died
    elif lines:
        raise TrialFailure(f"{path}: the last line is not complete")
    rows = []
    if path.endswith(".csv") or path.endswith(".csv.partial"):
        body = [l for l in lines if not l.startswith("#")]
        if not body:
            return rows
        header = next(csv.reader([body[0]]))
        for k, line in enumerate(body[1:]):
            fields = next(csv.reader([line]))
            if len(fields) != len(header):
                raise TrialFailure(f"{path} row {k}: {len(fields)} fields, header {len(header)}")
            numbers_of_row([f for c, f in zip(header, fields)], f"{path} row {k}")
            rows.append(dict(zip(header, fields)))
    else:
        for k, line in enumerate(lines):
            try:
                obj = json.loads(line)
            except ValueError as e:
                raise TrialFailure(f"{path} line {k + 1}: not JSON ({e})")
            if k == 0 and "noise_mode" in obj:
                continue
            rows.append({c: str(v) for c, v in obj.items()})
    return rows


def leaves(obj, path=""):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from leaves(v, f"{path}.{k}")
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from leaves(v, f"{path}[{i}]")
    else:
        yield path, obj


def parse_summary(path):
    try:
        with open(path) as f:
            return json.load(f)
    except ValueError as e:
        raise TrialFailure(f"{path}: not complete JSON ({e})")


def same_results(ref_trace, ref_summary, trace, summary):
    """Every value of the reference but wall times (and which engine ran) must be equal."""
    a, b = parse_trace(ref_trace), parse_trace(trace)
    if len(a) != len(b):
        raise TrialFailure(f"trace: {len(a)} rows uninterrupted, {len(b)} after the fault")
    for k, (x, y) in enumerate(zip(a, b)):
        for col, v in x.items():
            if "seconds" not in col and v != y.get(col):
                raise TrialFailure(f"trace row {k} column {col}: {v} uninterrupted, "
                                   f"{y.get(col)} after the fault")
    ja = dict(leaves(parse_summary(ref_summary)))
    jb = dict(leaves(parse_summary(summary)))
    for p, v in ja.items():
        if "seconds" in p or p.startswith(".info.engine") or p.startswith(".info.threads"):
            continue
        if isinstance(v, str) and p not in (".outcome", ".noise_mode"):
            continue
        w = jb.get(p, "absent")
        same = v == w or (isinstance(v, float) and isinstance(w, float) and math.isnan(v)
                          and math.isnan(w))
        if not same:
            raise TrialFailure(f"summary {p}: {v} uninterrupted, {w} after the fault")


# ---------------------------------------------------------------------------------------------
# Processes, mounts, shared memory


def processes_of(marker):
    """PIDs (not this one) whose command line contains `marker` (the trial's folder)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read()
            with open(f"/proc/{pid}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in cmd and state != "Z":
            found.append(int(pid))
    return found


def wait_for_moment(proc, partial, moment, ref_trace):
    """Until the fault's moment, in the run's own progress: moment < 0.15 within the first
    50 ms (start-up and set-up), else once `partial` (the trace being written) holds that
    fraction of the uninterrupted trace's bytes (or the run has ended)."""
    if moment < 0.15:
        time.sleep(moment / 0.15 * 0.05)
        return
    target = (moment - 0.15) / 0.85 * os.path.getsize(ref_trace)
    deadline = time.monotonic() + RUN_TIMEOUT
    while proc.poll() is None and time.monotonic() < deadline:
        try:
            if os.path.getsize(partial) >= target:
                break
        except OSError:
            pass
        time.sleep(0.002)


def no_process_left(marker, when):
    """The launcher is gone; ranks, parties and threads must follow within seconds."""
    left = []
    for _ in range(100):
        left = processes_of(marker)
        if not left:
            break
        time.sleep(0.1)
    if left:
        kill_quietly(left)
        raise TrialFailure(f"{when}: processes left behind: {left}")


def children_of(pid):
    out = []
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(p))
    return out


def rank_pids(launcher):
    """The rank processes of an mpirun job: children of mpirun with OMPI_COMM_WORLD_RANK."""
    ranks = {}
    for pid in children_of(launcher):
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = f.read().split(b"\0")
        except OSError:
            continue
        for e in env:
            if e.startswith(b"OMPI_COMM_WORLD_RANK="):
                ranks[int(e.split(b"=", 1)[1])] = pid
    return ranks


def catches(pid, sig):
    """True if process `pid` has a handler for `sig` (its SigCgt mask): the command installs
    its handlers first thing; before that a signal ends it the default way (128 + n)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("SigCgt:"):
                    return bool(int(line.split()[1], 16) >> (int(sig) - 1) & 1)
    except OSError:
        pass
    return True  # gone: it ended by itself


def kill_quietly(pids, sig=signal.SIGKILL):
    for p in pids:
        try:
            os.kill(p, sig)
        except OSError:
            pass


def in_private_namespace():
    return os.environ.get("DPADMM_CHAOS_NS") == "1"


def mount_tmpfs(path, size):
    os.makedirs(path, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", path],
                   check=True)


def umount(path):
    subprocess.run(["umount", "-l", path], check=False)


def fill_disk(path):
    """Writes a filler file in `path` until the file system is full."""
    chunk = b"\0" * 65536
    try:
        with open(os.path.join(path, "filler"), "wb") as f:
            while True:
                f.write(chunk)
                f.flush()
    except OSError:
        pass


# ---------------------------------------------------------------------------------------------
# One trial


class Runner:
    def __init__(self, args):
        self.args = args
        self.dpadmm = os.path.abspath(args.dpadmm)
        self.mpirun = shlex.split(args.mpirun) if args.mpirun else []
        self.work = os.path.abspath(args.work)
        self.private_ns = in_private_namespace()
        self.references = {}
        self.shm_after_kill = 0
        self.sessions_after_kill = 0
        self.faults_landed = {}
        self.ports_taken = 0  # party trials run again on fresh ports (PortTaken)
        os.makedirs(self.work, exist_ok=True)
        self.data = os.path.join(self.work, "data")
        self.make_data()

    def make_data(self):
        os.makedirs(self.data, exist_ok=True)
        rng = random.Random(1)
        with open(os.path.join(self.data, "train.libsvm"), "w") as f:
            for _ in range(600):
                idx = sorted(rng.sample(range(1, 31), rng.randint(2, 8)))
                f.write(rng.choice("01") + " " +
                        " ".join(f"{i}:{rng.uniform(-3, 3):.4f}" for i in idx) + "\n")
        # The party engine's data: the LIBSVM file's rows in PARTIES blocks, one per party.
        with open(os.path.join(self.data, "train.libsvm")) as f:
            rows = f.readlines()
        for p in range(PARTIES):
            block = len(rows) // PARTIES
            with open(os.path.join(self.data, f"party{p}.libsvm"), "w") as f:
                f.writelines(rows[p * block:(p + 1) * block])
        self.certs = os.path.join(self.work, "certs")
        make_certs = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                  "scripts", "make_certs.sh")
        subprocess.run([make_certs, self.certs] + [f"p{p}" for p in range(PARTIES)], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(os.path.join(self.data, "train.csv"), "w") as f:
            f.write("a,b,c,d,e,label\n")
            for r in range(600):
                y = r % 2
                f.write(",".join(f"{(2 * y - 1) * 0.5 + rng.gauss(0, 1):.5f}"
                                 for _ in range(5)) + f",{y}\n")

    def spec_flags(self, rng):
        """Flags of a random run (without outputs and engine)."""
        family = rng.choice(["consensus"] * 3 + ["sharing"])
        algo = rng.choice(CONSENSUS if family == "consensus" else SHARING)
        rounds = max(4, int(ROUNDS.get(algo, DEFAULT_ROUNDS) * rng.uniform(0.2, 1.0)))
        flags = ["--seed", str(rng.randint(1, 1000)), "--noise-seed", str(rng.randint(1, 1000)),
                 "--iterations", str(rounds), "--no-optimum", "-q"]
        data = rng.choice(["generated", "generated", "libsvm", "csv"])
        if family == "sharing" and data == "csv":
            data = "libsvm"  # dense CSV with global-max-norm is refused under mpi (documented)
        if data == "libsvm":
            flags += ["--data", "libsvm", "--train", os.path.join(self.data, "train.libsvm")]
        elif data == "csv":
            flags += ["--data", "csv", "--header", "--train",
                      os.path.join(self.data, "train.csv")]
        else:
            flags += ["--rows", str(rng.randint(300, 800))]
        if family == "consensus":
            nodes = rng.randint(3, 8)
            topology = rng.choice(TOPOLOGIES)
            flags += ["--algorithm", algo, "--nodes", str(nodes), "--topology", topology]
            if topology == "random":
                flags += ["--edges", str(rng.randint(nodes - 1, nodes * (nodes - 1) // 2))]
            flags += ["--metrics-every", str(rng.choice([1, 1, 2, 5]))]
            if algo == "pdml":
                flags += ["--label-eps", "1", "--pdml-V", "0.5", "--pdml-decay", "1"]
        else:
            flags += ["--algorithm", "sharing" if algo == "sharing_dp" else algo,
                      "--parties", str(rng.randint(2, 4))]
            if algo == "sharing_dp":
                flags += ["--dp", "--epsilon", "0.5", "--b1", "2"]
        return flags, rounds, data

    def reference(self, flags, trace_ext):
        key = (tuple(flags), trace_ext)
        if key not in self.references:
            d = os.path.join(self.work, f"ref{len(self.references)}")
            os.makedirs(d, exist_ok=True)
            trace, summary = os.path.join(d, "trace" + trace_ext), os.path.join(d, "summary.json")
            r = subprocess.run([self.dpadmm, "run", *flags, "--engine", "serial", "--trace", trace,
                                "--summary", summary], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, timeout=RUN_TIMEOUT)
            if r.returncode != 0:
                raise TrialFailure(f"the uninterrupted serial run failed (exit {r.returncode}): "
                                   f"{r.stderr.decode()[-400:]}")
            self.references[key] = (trace, summary)
        return self.references[key]

    def command(self, engine, ranks, flags, out, trace_ext, every, resume):
        cmd = [self.dpadmm, "run", *flags, "--engine", "mpi" if engine == "mpi" else engine,
               "--trace", os.path.join(out, "trace" + trace_ext),
               "--summary", os.path.join(out, "summary.json"),
               "--checkpoint", os.path.join(out, "run.ckpt"), "--checkpoint-every", str(every)]
        if resume:
            cmd += ["--resume", os.path.join(out, "run.ckpt")]
        if engine == "tbb":
            cmd += ["--threads", "2"]
        if engine == "mpi":
            cmd = [*self.mpirun, "-n", str(ranks), *cmd]
        return cmd

    def start(self, cmd, drop_caps, log, tdir):
        # mpirun's session folder goes to TMPDIR: the trial's own (checked afterwards).
        env = dict(os.environ, TMPDIR=os.path.join(tdir, "tmp"))
        if drop_caps:
            # Root would read and write whatever the permissions say: drop the capabilities
            # that let it (for this run and its children).
            cmd = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--inh-caps=-all",
                   *cmd]
        return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log, env=env,
                                start_new_session=True)

    def wait(self, proc, what):
        try:
            return proc.wait(timeout=RUN_TIMEOUT)
        except subprocess.TimeoutExpired:
            kill_quietly(children_of(proc.pid) + [proc.pid])
            proc.wait()
            raise TrialFailure(f"{what} still ran after {RUN_TIMEOUT:.0f} s")

    def check_leftovers(self, marker, out, allowed_partial, when, shm_kill_ok):
        no_process_left(marker, when)
        names = sorted(os.listdir(out))
        known = {"trace.csv", "trace.jsonl", "summary.json", "run.ckpt", "filler"}
        partial = {"trace.csv.partial", "trace.jsonl.partial", "summary.json.partial",
                   "run.ckpt.partial"}
        for n in names:
            if n in known:
                continue
            if n in partial and allowed_partial:
                if n.startswith("trace"):
                    parse_trace(os.path.join(out, n), complete=False)
                continue
            raise TrialFailure(f"{when}: file left behind: {n}")
        tmp = os.path.join(os.path.dirname(out), "tmp")
        session = os.listdir(tmp)
        if session and shm_kill_ok:
            self.sessions_after_kill += len(session)
            shutil.rmtree(tmp)
            os.makedirs(tmp)
        elif session:
            raise TrialFailure(f"{when}: left in TMPDIR: {session}")
        if self.private_ns:
            shm = os.listdir("/dev/shm")
            if shm and shm_kill_ok:
                self.shm_after_kill += len(shm)
                for s in shm:
                    os.unlink(os.path.join("/dev/shm", s))
            elif shm:
                raise TrialFailure(f"{when}: /dev/shm segments left behind: {shm}")

    def check_outputs(self, out, trace_ext, rc, when):
        trace = os.path.join(out, "trace" + trace_ext)
        summary = os.path.join(out, "summary.json")
        if os.path.exists(trace):
            parse_trace(trace)
        if os.path.exists(summary):
            s = parse_summary(summary)
            if rc == 4 and s.get("outcome") != "cancelled":
                raise TrialFailure(f"{when}: exit 4 but the summary says {s.get('outcome')}")
        if rc == 0 and not (os.path.exists(trace) and os.path.exists(summary)):
            raise TrialFailure(f"{when}: exit 0 but trace or summary is missing")

    # ---- engine `party` --------------------------------------------------------------------

    def party_spec(self, rng):
        """The public spec of a random 3-party consensus run (party mode: LIBSVM files,
        clip-only scaling), and its rounds."""
        algo = rng.choice(CONSENSUS)
        rounds = max(4, int(ROUNDS.get(algo, DEFAULT_ROUNDS) * rng.uniform(0.2, 1.0)))
        spec = {"data": {"source": "libsvm", "num_features": 30, "scaling": "clip-only"},
                "graph": {"topology": rng.choice(["ring", "complete", "star"]),
                          "nodes": PARTIES},
                "algorithm": {"name": algo}, "iterations": rounds,
                "seed": rng.randint(1, 1000), "noise_seed": rng.randint(1, 1000),
                "metrics_every": rng.choice([1, 1, 2, 5]), "engine": "serial"}
        if algo == "pdml":
            spec["algorithm"]["pdml"] = {"label_eps": 1, "V": 0.5, "decay": 1}
        return spec, rounds

    def party_files(self, spec, folder, outs, data=None, relay=None):
        """Party files for a run whose party p writes to outs[p] (data: {p: another data
        file}); fresh loopback ports, or (relay: (its link ports, the parties' listen ports))
        every party dialled through the relay."""
        if relay:
            parties = [{"id": f"p{p}", "address": f"127.0.0.1:{relay[0][p]}",
                        "listen": f"127.0.0.1:{relay[1][p]}"} for p in range(PARTIES)]
        else:
            ports = free_ports(PARTIES)
            parties = [{"id": f"p{p}", "address": f"127.0.0.1:{ports[p]}"}
                       for p in range(PARTIES)]
        configs = []
        for p in range(PARTIES):
            f = {"spec": spec, "party": f"p{p}",
                 "data": (data or {}).get(p, os.path.join(self.data, f"party{p}.libsvm")),
                 "parties": parties,
                 "tls": {"ca": os.path.join(self.certs, "ca.pem"),
                         "cert": os.path.join(self.certs, f"p{p}.pem"),
                         "key": os.path.join(self.certs, f"p{p}.key")},
                 "setup_timeout_seconds": PARTY_SETUP_TIMEOUT,
                 "peer_timeout_seconds": PARTY_PEER_TIMEOUT,
                 "trace": os.path.join(outs[p], "trace.csv"),
                 "summary": os.path.join(outs[p], "summary.json")}
            configs.append(os.path.join(folder, f"party{p}.json"))
            with open(configs[-1], "w") as out:
                json.dump(f, out)
        return configs

    def party_start(self, configs, outs, every, resume, drop_caps, logs, tdir):
        procs = []
        for p in range(PARTIES):
            ck = os.path.join(outs[p], "state.ckpt")
            cmd = [self.dpadmm, "party", "--config", configs[p], "-q"]
            if every:
                cmd += ["--checkpoint", ck, "--checkpoint-every", str(every)]
            if resume:
                cmd += ["--resume", ck]
            procs.append(self.start(cmd, drop_caps and p == drop_caps - 1, logs[p], tdir))
        return procs

    def party_reference(self, spec):
        key = json.dumps(spec, sort_keys=True)
        if key not in self.references:
            d = os.path.join(self.work, f"ref{len(self.references)}")
            outs = [os.path.join(d, f"p{p}") for p in range(PARTIES)]
            for o in outs:
                os.makedirs(o, exist_ok=True)
            os.makedirs(os.path.join(d, "tmp"), exist_ok=True)
            logs = [open(os.path.join(d, f"p{p}.err"), "wb") for p in range(PARTIES)]
            procs = self.party_start(self.party_files(spec, d, outs), outs, 0, False, 0, logs, d)
            codes = [self.wait(pr, "an uninterrupted party") for pr in procs]
            for log in logs:
                log.close()
            if any(codes):
                errs = [open(os.path.join(d, f"p{p}.err"), "rb").read().decode(
                    errors="replace") for p in range(PARTIES)]
                check_ports(errs)
                raise TrialFailure(f"the uninterrupted party run failed (exits {codes}): "
                                   f"{errs[0][-400:]}")
            self.references[key] = [(os.path.join(o, "trace.csv"), os.path.join(o, "summary.json"))
                                    for o in outs]
        return self.references[key]

    def party_leftovers(self, tdir, outs, partial_ok, when):
        no_process_left(tdir, when)
        for p, out in enumerate(outs):
            for n in sorted(os.listdir(out)):
                path = os.path.join(out, n)
                if n in ("trace.csv", "summary.json", "filler"):
                    continue
                if n in ("state.ckpt", "state.ckpt.prev"):
                    st = os.stat(path)
                    if st.st_mode & 0o777 != 0o600:
                        raise TrialFailure(f"{when}: p{p} {n} has mode {oct(st.st_mode & 0o777)}")
                    continue
                if n.endswith(".partial") and p in partial_ok:
                    if n.startswith("trace"):
                        parse_trace(path, complete=False)
                    continue
                raise TrialFailure(f"{when}: p{p} left {n}")
        session = os.listdir(os.path.join(tdir, "tmp"))
        if session:
            raise TrialFailure(f"{when}: left in TMPDIR: {session}")

    def party_network_trial(self, k, rng, spec, every):
        """Every link through the relay (a random delay and jitter), and one network fault
        at a random moment of a random party's progress: its connections reset (RST or
        close), a partition of 1-3 s (its links forward and accept nothing), new connections
        refused for 1-2 s after a reset, or a delay raised to 5-20 ms. Transient faults
        survive: every party exits 0 with its uninterrupted run's trace and summary."""
        fault = rng.choice(["net_reset", "net_close", "net_stall", "net_refuse", "net_delay"])
        victim = rng.randrange(PARTIES)
        moment = rng.uniform(0.15, 0.9)
        delay = rng.choice([0.0, 0.5, 2.0])
        seconds = rng.uniform(1.0, 3.0) if fault == "net_stall" else rng.uniform(1.0, 2.0)
        describe = (f"trial {k}: party, p{victim} {fault} at {moment:.2f} (relay delay "
                    f"{delay} ms): {json.dumps(spec, sort_keys=True)} --checkpoint-every {every}")
        if self.args.verbose:
            print(describe, flush=True)
        tdir = os.path.join(self.work, f"t{k}")
        shutil.rmtree(tdir, ignore_errors=True)
        outs = [os.path.join(tdir, f"p{p}") for p in range(PARTIES)]
        for o in outs:
            os.makedirs(o)
        os.makedirs(os.path.join(tdir, "tmp"))
        relay = None
        try:
            refs = self.party_reference(spec)
            listen, held = free_ports(PARTIES, hold=True)
            cmd = [sys.executable, RELAY, "--lifetime", str(RUN_TIMEOUT + 30),
                   "--delay-ms", str(delay), "--jitter-ms", str(delay / 10),
                   "--seed", str(k)]
            for p in range(PARTIES):
                cmd += ["--link", f"127.0.0.1:0=127.0.0.1:{listen[p]}"]
            relay = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     text=True, start_new_session=True)
            ports = [int(x) for x in relay.stdout.readline().split()]
            for sk in held:  # the relay has its own ports now: the parties' are free for them
                sk.close()
            if len(ports) != PARTIES + 1:
                raise TrialFailure("the relay did not start")
            control = ports[0]

            def command(line):
                import socket
                with socket.create_connection(("127.0.0.1", control), timeout=5) as c:
                    c.sendall((line + "\n").encode())
                    return c.makefile().readline().strip()

            logs = [open(os.path.join(tdir, f"faulted{p}.err"), "wb") for p in range(PARTIES)]
            procs = self.party_start(
                self.party_files(spec, tdir, outs, relay=(ports[1:], listen)), outs, every,
                False, 0, logs, tdir)
            wait_for_moment(procs[victim], os.path.join(outs[victim], "trace.csv.partial"),
                            moment, refs[victim][0])
            landed = procs[victim].poll() is None
            if landed:
                if fault in ("net_reset", "net_close"):
                    reply = command(f"reset {victim} {'rst' if fault == 'net_reset' else 'close'}")
                    landed = reply not in ("ok reset 0", "")
                elif fault == "net_stall":
                    command(f"stall {victim} {seconds:.2f}")
                elif fault == "net_refuse":
                    command(f"refuse {victim} {seconds:.2f}")
                    landed = command(f"reset {victim}") not in ("ok reset 0", "")
                else:
                    ms = rng.uniform(5, 20)
                    command(f"delay all {ms:.1f} {ms / 10:.1f}")
            codes = [self.wait(pr, f"party p{p}") for p, pr in enumerate(procs)]
            for log in logs:
                log.close()
            errs = [open(os.path.join(tdir, f"faulted{p}.err"), "rb").read().decode(
                errors="replace") for p in range(PARTIES)]
            if any(codes):
                check_ports(errs)
            key = "party " + (fault if landed else "net none")
            self.faults_landed[key] = self.faults_landed.get(key, 0) + 1
            if any(codes):
                raise TrialFailure(f"a transient network fault ended the run: exits {codes}: "
                                   + " | ".join(e[-400:] for e in errs))
            self.party_leftovers(tdir, outs, set(), "run over faulty links")
            for p in range(PARTIES):
                try:
                    same_results(*refs[p], os.path.join(outs[p], "trace.csv"),
                                 os.path.join(outs[p], "summary.json"))
                except TrialFailure as e:
                    raise TrialFailure(f"party p{p}: {e}")
        except PortTaken:
            raise
        except TrialFailure as e:
            raise TrialFailure(f"{describe}\n    {e}")
        finally:
            if relay is not None:
                kill_quietly([relay.pid])
                relay.wait()
            if not self.args.keep:
                shutil.rmtree(tdir, ignore_errors=True)

    def party_trial(self, k, rng):
        pool = rng.randrange(SPEC_POOL)
        spec, rounds = self.party_spec(random.Random(f"{self.args.seed}:party:{pool}"))
        every = rng.randint(max(1, rounds // 12), max(1, rounds // 3))
        if rng.random() < 0.5:
            return self.party_network_trial(k, rng, spec, every)
        fault = rng.choice(["sigkill", "sigterm", "sigint", "full_disk", "unreadable"])
        moment = rng.random()
        if fault == "unreadable":
            # A party reads its data before the set-up: an unreadable data file strikes at the
            # start (the others then end at their set-up timeout), an output folder made
            # read-only at the moment drawn.
            fault = "unreadable_data" if rng.random() < 0.3 else "readonly_output"
        if fault == "full_disk" and not self.private_ns:
            fault = "sigterm"
        victim = rng.randrange(PARTIES)
        describe = (f"trial {k}: party, p{victim} {fault} at {moment:.2f}: "
                    f"{json.dumps(spec, sort_keys=True)} --checkpoint-every {every}")
        if self.args.verbose:
            print(describe, flush=True)
        tdir = os.path.join(self.work, f"t{k}")
        shutil.rmtree(tdir, ignore_errors=True)
        outs = [os.path.join(tdir, f"p{p}") for p in range(PARTIES)]
        for o in outs:
            os.makedirs(o)
        os.makedirs(os.path.join(tdir, "tmp"))
        mounted = False
        try:
            if fault == "full_disk":
                mount_tmpfs(outs[victim], "1m")
                mounted = True
            refs = self.party_reference(spec)
            logs = [open(os.path.join(tdir, f"faulted{p}.err"), "wb") for p in range(PARTIES)]
            drop = victim + 1 if fault in ("readonly_output", "unreadable_data") else 0
            data = None
            if fault == "unreadable_data":
                data = {victim: os.path.join(tdir, "unreadable.libsvm")}
                shutil.copy(os.path.join(self.data, f"party{victim}.libsvm"), data[victim])
                os.chmod(data[victim], 0)
                moment = 0.0
            procs = self.party_start(self.party_files(spec, tdir, outs, data), outs, every,
                                     False, drop, logs, tdir)
            proc = procs[victim]
            # The moment in the victim's progress, as for the other engines.
            wait_for_moment(proc, os.path.join(outs[victim], "trace.csv.partial"), moment,
                            refs[victim][0])
            early_signal = None
            if proc.poll() is None:
                if fault == "sigkill":
                    kill_quietly([proc.pid])
                elif fault in ("sigterm", "sigint"):
                    sig = signal.SIGTERM if fault == "sigterm" else signal.SIGINT
                    if not catches(proc.pid, sig):
                        early_signal = 128 + int(sig)
                    kill_quietly([proc.pid], sig)
                elif fault == "full_disk":
                    fill_disk(outs[victim])
                elif fault == "readonly_output":
                    os.chmod(outs[victim], 0o555)
            codes = []
            for p, pr in enumerate(procs):
                rc = self.wait(pr, f"faulted party p{p}")
                codes.append(128 - rc if rc < 0 else rc)
            for log in logs:
                log.close()
            if self.args.verbose:
                print(f"    exits {codes}", flush=True)
            errs = [open(os.path.join(tdir, f"faulted{p}.err"), "rb").read().decode(
                errors="replace") for p in range(PARTIES)]
            if any(codes):
                check_ports(errs)
            key = "party " + (fault if any(codes) else "none")
            self.faults_landed[key] = self.faults_landed.get(key, 0) + 1
            for p, rc in enumerate(codes):
                allowed = set(EXPECTED[fault]) | PARTY_OTHERS if p == victim else PARTY_OTHERS
                if p == victim and early_signal is not None:
                    allowed.add(early_signal)
                if rc not in allowed:
                    raise TrialFailure(f"party p{p}: exit {rc}, expected {sorted(allowed)}; "
                                       f"stderr: {errs[p][-600:]}")
                if rc == 6 and "dpadmm: error:" not in errs[p]:
                    raise TrialFailure(f"party p{p}: exit 6 without an error naming the file")
                out = outs[p]
                if os.path.exists(os.path.join(out, "trace.csv")):
                    parse_trace(os.path.join(out, "trace.csv"))
                if os.path.exists(os.path.join(out, "summary.json")):
                    parse_summary(os.path.join(out, "summary.json"))
            killed = {victim} if codes[victim] == 137 or fault == "readonly_output" else set()
            self.party_leftovers(tdir, outs, killed, "faulted run")
            if not any(codes):
                for p in range(PARTIES):
                    same_results(*refs[p], os.path.join(outs[p], "trace.csv"),
                                 os.path.join(outs[p], "summary.json"))
                return

            # Recovery: every party resumes from the last checkpoint all hold (or all restart
            # when a party has none).
            if fault == "full_disk":
                os.unlink(os.path.join(outs[victim], "filler"))
            if fault == "readonly_output":
                os.chmod(outs[victim], 0o755)
            if fault == "unreadable_data":
                os.chmod(data[victim], 0o644)
            resume = all(os.path.exists(os.path.join(o, "state.ckpt")) or
                         os.path.exists(os.path.join(o, "state.ckpt.prev")) for o in outs)
            self.faults_landed["party resumed" if resume else "party restarted"] = \
                self.faults_landed.get("party resumed" if resume else "party restarted", 0) + 1
            logs = [open(os.path.join(tdir, f"resumed{p}.err"), "wb") for p in range(PARTIES)]
            procs = self.party_start(self.party_files(spec, tdir, outs, data), outs, every,
                                     resume, 0, logs, tdir)
            codes = [self.wait(pr, f"resumed party p{p}") for p, pr in enumerate(procs)]
            for log in logs:
                log.close()
            if any(codes):
                errs = [open(os.path.join(tdir, f"resumed{p}.err"), "rb").read().decode(
                    errors="replace") for p in range(PARTIES)]
                check_ports(errs)
                raise TrialFailure(f"the {'resumed' if resume else 'restarted'} parties: exits "
                                   f"{codes}: " + " | ".join(e[-300:] for e in errs))
            self.party_leftovers(tdir, outs, set(), "resumed run")
            for p in range(PARTIES):
                try:
                    same_results(*refs[p], os.path.join(outs[p], "trace.csv"),
                                 os.path.join(outs[p], "summary.json"))
                except TrialFailure as e:
                    raise TrialFailure(f"party p{p}: {e}")
        except PortTaken:
            raise
        except TrialFailure as e:
            raise TrialFailure(f"{describe}\n    {e}")
        finally:
            for o in outs:
                try:
                    os.chmod(o, 0o755)
                except OSError:
                    pass
            if mounted:
                umount(outs[victim])
            if not self.args.keep:
                shutil.rmtree(tdir, ignore_errors=True)

    def trial(self, k):
        rng = random.Random(f"{self.args.seed}:{k}")
        engines = self.args.engines
        engine = engines[k % len(engines)]
        if engine == "party":
            for attempt in range(PORT_ATTEMPTS):
                try:
                    return self.party_trial(k, random.Random(f"{self.args.seed}:{k}"))
                except PortTaken as e:
                    self.ports_taken += 1
                    if attempt + 1 == PORT_ATTEMPTS:
                        raise TrialFailure(f"trial {k}: a port taken in {PORT_ATTEMPTS} "
                                           f"attempts: {e}")
        ranks = rng.randint(2, 4) if engine == "mpi" else 1
        # The run comes from a pool of SPEC_POOL random runs per seed, so that the uninterrupted
        # reference runs are shared between trials (each trial draws its own fault, moment,
        # engine, trace format and checkpoint interval).
        spec = rng.randrange(SPEC_POOL)
        flags, rounds, data = self.spec_flags(random.Random(f"{self.args.seed}:spec:{spec}"))
        every = rng.randint(max(1, rounds // 12), max(1, rounds // 3))
        trace_ext = rng.choice([".csv", ".csv", ".jsonl"])
        faults = ["sigkill", "sigterm", "sigint", "full_disk", "unreadable"]
        if engine == "mpi":
            faults.append("killed_rank")
        fault = rng.choice(faults)
        if fault == "unreadable":
            fault = "unreadable_data" if data in ("libsvm", "csv") and rng.random() < 0.5 \
                else "readonly_output"
        if fault == "full_disk" and not self.private_ns:
            fault = "sigterm"
        signal_to = "process"
        if engine == "mpi" and fault in ("sigterm", "sigint"):
            # mpirun (a user's Ctrl-C or kill), every rank (a batch system), or one rank.
            signal_to = rng.choice(["mpirun", "ranks", "rank"])
            if signal_to == "mpirun":
                fault += "_mpirun"
        moment = rng.random()
        resume_engine = engine if engine != "mpi" or rng.random() < 0.25 else "serial"
        resume_ranks = rng.randint(1, 4) if resume_engine == "mpi" else 1
        describe = (f"trial {k}: {engine}{'x' + str(ranks) if engine == 'mpi' else ''} "
                    f"{fault} (to {signal_to}) at {moment:.2f}, resume on {resume_engine}: "
                    f"{' '.join(flags)} --checkpoint-every {every}")
        if self.args.verbose:
            print(describe, flush=True)

        tdir = os.path.join(self.work, f"t{k}")
        shutil.rmtree(tdir, ignore_errors=True)
        out = os.path.join(tdir, "out")
        os.makedirs(out)
        os.makedirs(os.path.join(tdir, "tmp"))
        mounted = False
        data_copy = None
        try:
            if fault == "full_disk":
                mount_tmpfs(out, "4m")
                mounted = True
            ref_trace, ref_summary = self.reference(flags, trace_ext)
            if fault == "unreadable_data":
                # A copy of the training file, in the trial's folder, is made unreadable.
                at = flags.index("--train") + 1
                data_copy = os.path.join(tdir, os.path.basename(flags[at]))
                shutil.copy(flags[at], data_copy)
                flags = flags[:at] + [data_copy] + flags[at + 1:]
            log = open(os.path.join(tdir, "faulted.err"), "wb")
            drop = fault in ("unreadable_data", "readonly_output")
            proc = self.start(self.command(engine, ranks, flags, out, trace_ext, every, False),
                              drop, log, tdir)
            # The moment, in the run's own progress (a loaded machine stretches wall times, not
            # rows): the first 15% of trials strike during start-up and set-up (within 50 ms),
            # the others once the trace holds that fraction of the uninterrupted run's bytes.
            wait_for_moment(proc, os.path.join(out, "trace" + trace_ext + ".partial"), moment,
                            ref_trace)
            t_fault = time.monotonic()
            early_signal = None
            if proc.poll() is None:
                if fault == "sigkill":
                    # The whole job under MPI (a crashed machine): mpirun and its ranks.
                    victims = [proc.pid] + (children_of(proc.pid) if engine == "mpi" else [])
                    kill_quietly(victims)
                elif fault.startswith("sigterm") or fault.startswith("sigint"):
                    sig = signal.SIGTERM if fault.startswith("sigterm") else signal.SIGINT
                    targets = [proc.pid]
                    if signal_to in ("ranks", "rank"):
                        ranks_now = rank_pids(proc.pid)
                        targets = [ranks_now[r] for r in sorted(ranks_now)]
                        if signal_to == "rank" and targets:
                            targets = [rng.choice(targets)]
                    if not all(catches(t, sig) for t in targets):
                        early_signal = 128 + int(sig)
                    kill_quietly(targets, sig)
                elif fault == "full_disk":
                    fill_disk(out)
                elif fault == "unreadable_data":
                    os.chmod(data_copy, 0)
                elif fault == "readonly_output":
                    os.chmod(out, 0o555)
                elif fault == "killed_rank":
                    ranks_now = rank_pids(proc.pid)
                    if ranks_now:  # else mpirun has not started them yet: no fault
                        kill_quietly([ranks_now[rng.choice(sorted(ranks_now))]])
            rc = self.wait(proc, "the faulted run")
            log.close()
            if self.args.verbose:
                print(f"    faulted run ended {time.monotonic() - t_fault:.2f} s after the fault,"
                      f" exit {rc}", flush=True)
            if rc < 0:
                rc = 128 - rc  # died of a signal: the shell's code
            key = fault if rc != 0 else "none"
            self.faults_landed[key] = self.faults_landed.get(key, 0) + 1
            stderr_text = open(os.path.join(tdir, "faulted.err"), "rb").read().decode(
                errors="replace")
            allowed = set(EXPECTED[fault])
            if early_signal is not None:
                # The signal came before the command had installed its handlers (while the
                # process was starting): it ended the default way; under mpirun, the job too.
                allowed |= {early_signal, 1} if engine == "mpi" else {early_signal}
            if rc != 0 and rc not in allowed:
                raise TrialFailure(f"faulted run: exit {rc}, expected 0 or "
                                   f"{sorted(allowed)}; stderr: {stderr_text[-600:]}")
            if rc == 6 and "dpadmm: error:" not in stderr_text:
                raise TrialFailure("exit 6 without an error naming the file")
            killed = rc == 137 or fault in ("sigkill", "killed_rank") and rc != 0
            self.check_outputs(out, trace_ext, rc, "faulted run")
            # .partial files: documented after a SIGKILL; in a folder made read-only they cannot
            # be removed (the resumed run replaces them).
            self.check_leftovers(tdir, out, killed or fault == "readonly_output", "faulted run",
                                 killed and engine == "mpi")
            if rc == 0:
                same_results(ref_trace, ref_summary, os.path.join(out, "trace" + trace_ext),
                             os.path.join(out, "summary.json"))
                return

            # Recovery: the fault is over; continue from the checkpoint (or start again).
            if fault == "full_disk":
                os.unlink(os.path.join(out, "filler"))
            if fault == "readonly_output":
                os.chmod(out, 0o755)
            if fault == "unreadable_data":
                os.chmod(data_copy, 0o644)
            resume = os.path.exists(os.path.join(out, "run.ckpt"))
            log = open(os.path.join(tdir, "resumed.err"), "wb")
            proc = self.start(self.command(resume_engine, resume_ranks, flags, out, trace_ext,
                                           every, resume), False, log, tdir)
            rc2 = self.wait(proc, "the resumed run")
            log.close()
            if rc2 < 0:
                rc2 = 128 - rc2
            if rc2 != 0:
                err = open(os.path.join(tdir, "resumed.err"), "rb").read().decode(
                    errors="replace")
                raise TrialFailure(f"the {'resumed' if resume else 'restarted'} run: exit {rc2}:"
                                   f" {err[-600:]}")
            self.check_outputs(out, trace_ext, rc2, "resumed run")
            self.check_leftovers(tdir, out, False, "resumed run", False)
            same_results(ref_trace, ref_summary, os.path.join(out, "trace" + trace_ext),
                         os.path.join(out, "summary.json"))
        except TrialFailure as e:
            raise TrialFailure(f"{describe}\n    {e}")
        finally:
            try:
                os.chmod(out, 0o755)
            except OSError:
                pass
            if mounted:
                umount(out)
            if not self.args.keep:
                shutil.rmtree(tdir, ignore_errors=True)


def reexec_in_namespace():
    """Root with unshare: run again in a private mount namespace with its own /dev/shm."""
    if in_private_namespace() or os.geteuid() != 0 or shutil.which("unshare") is None:
        return
    if os.environ.get("DPADMM_CHAOS_NO_NS") == "1":
        return
    env = dict(os.environ, DPADMM_CHAOS_NS="1")
    script = ("mount -t tmpfs -o size=64m,mode=1777 tmpfs /dev/shm && exec \"$@\"")
    cmd = ["unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh",
           sys.executable, *sys.argv]
    r = subprocess.run(cmd, env=env)
    if r.returncode != 0 or os.environ.get("DPADMM_CHAOS_STRICT_NS") == "1":
        sys.exit(r.returncode)
    sys.exit(0)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--dpadmm", required=True)
    p.add_argument("--mpirun", default="", help="launcher command for the mpi engine")
    p.add_argument("--trials", type=int, default=200)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--trial", type=int, default=None, help="replay this trial only")
    p.add_argument("--first", type=int, default=0, help="first trial number")
    p.add_argument("--engines", default="serial,tbb,mpi")
    p.add_argument("--work", default="chaos_work")
    p.add_argument("--keep", action="store_true", help="keep each trial's folder")
    p.add_argument("--verbose", action="store_true")
    args = p.parse_args()
    args.engines = [e for e in args.engines.split(",") if e != "mpi" or args.mpirun]
    reexec_in_namespace()
    runner = Runner(args)
    trials = [args.trial] if args.trial is not None else range(args.first,
                                                              args.first + args.trials)
    passed = failed = 0
    start = time.monotonic()
    for n, k in enumerate(trials):
        try:
            runner.trial(k)
            passed += 1
        except TrialFailure as e:
            failed += 1
            print(f"FAIL {e}\n    replay: {sys.argv[0]} --dpadmm {args.dpadmm} --seed "
                  f"{args.seed} --trial {k} --engines {','.join(args.engines)}"
                  + (f" --mpirun '{args.mpirun}'" if args.mpirun else ""), flush=True)
        if (n + 1) % 25 == 0:
            print(f"chaos: {n + 1} trials, {failed} failed, {time.monotonic() - start:.0f} s",
                  flush=True)
    landed = ", ".join(f"{k} {v}" for k, v in sorted(runner.faults_landed.items()))
    print(f"chaos: seed {args.seed}, {passed + failed} trials in {time.monotonic() - start:.0f} s"
          f" (engines {','.join(args.engines)}; runs ended by: {landed}; private namespace: "
          f"{'yes' if runner.private_ns else 'no (no full-disk trials, /dev/shm not checked)'};"
          f" left by SIGKILLed mpi jobs and removed: {runner.shm_after_kill} /dev/shm segments, "
          f"{runner.sessions_after_kill} mpirun session folders; party trials run again on "
          f"fresh ports: {runner.ports_taken})")
    if not args.keep:
        shutil.rmtree(runner.work, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
