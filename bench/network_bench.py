#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The network engine against the MPI, TBB and serial engines over loopback (bench/README.md,
"bench_network"). Launches bench_network once per engine and repetition, the engines alternating
within each repetition so that a drifting load hits all alike, and prints a Markdown table of
medians (time per round at steady state), their ratios to the TBB and MPI engines measured in
this run, and the bytes per round on the wire (TCP payload, with TLS and with --insecure).

  /usr/bin/python3 bench/network_bench.py [--build build] [--reps 5] [--cases adult,ring]
      [--adult-rounds 200] [--ring-rounds 1000] [--ring-parties 5,20] [--data DIR]
      [--algorithms admm,dvp,sharing-dp]

--algorithms: the Adult case's node programs (bench_network --algorithm; default admm), each
one case of the tables: adult (admm), adult-dvp, adult-sharing-dp.

--smoke: one repetition of a 3-party ring of 6 nodes, 60 rounds, and, when UCI Adult is found
(--data, $DPADMM_DATA or ../shared/data), of dvp on Adult with 3 parties, 22 rounds (the ctest
bench.network_smoke): fails unless every run completes with the serial engine's bits; no timing
is checked.

--relay-rtt-ms R: every party-to-party link of the network runs through the fault-injecting
relay (tests/party/relay.py) with a one-way delay of R/2 ms per direction and a jitter of
--relay-jitter (default 10%) of it; each party listens on its own port and is dialled at the
relay's. The table then also gives the round time against the in-process time plus one R.
"""
import argparse
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none"]
TIMEOUT = 600  # seconds per launch; a run that hangs is killed and reported


def free_ports(k):
    socks = [socket.socket() for _ in range(k)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def parse(text, key):
    out = []
    for line in text.splitlines():
        if line.startswith(key + " "):
            out.append(dict(kv.split("=", 1) for kv in line.split()[1:]))
    return out


def run_in_process(exe, engine, common):
    p = subprocess.run([exe, "--engine", engine] + common, capture_output=True, text=True,
                       timeout=TIMEOUT)
    if p.returncode != 0:
        sys.exit(f"{engine} failed ({p.returncode}): {p.stderr}")
    return parse(p.stdout, "result")[0], [], cpu_sum(p.stdout)


def cpu_sum(text):
    return sum(float(c["us_per_round"]) for c in parse(text, "cpu"))


def run_mpi(exe, ranks, common):
    p = subprocess.run(MPIRUN + ["-np", str(ranks), exe, "--engine", "mpi"] + common,
                       capture_output=True, text=True, timeout=TIMEOUT)
    if p.returncode != 0:
        sys.exit(f"mpi -np {ranks} failed ({p.returncode}): {p.stderr}")
    return parse(p.stdout, "result")[0], [], cpu_sum(p.stdout)


RELAY = os.path.join(ROOT, "tests", "party", "relay.py")


def start_relay(listen, rtt_ms, jitter):
    """The relay with one link per party (to its listen port); its link ports."""
    one_way = rtt_ms / 2
    cmd = [sys.executable, RELAY, "--lifetime", str(TIMEOUT), "--delay-ms", str(one_way),
           "--jitter-ms", str(one_way * jitter)]
    for port in listen:
        cmd += ["--link", f"127.0.0.1:0=127.0.0.1:{port}"]
    relay = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    ports = [int(x) for x in relay.stdout.readline().split()]
    if len(ports) != len(listen) + 1:
        relay.kill()
        sys.exit("the relay did not start")
    return relay, ports[1:]


def run_network(exe, parties, certs, common, relay_rtt=0.0, jitter=0.1):
    listen = free_ports(parties)
    ports = ",".join(map(str, listen))
    extra = []
    relay = None
    if relay_rtt > 0:
        relay, dial = start_relay(listen, relay_rtt, jitter)
        extra = ["--dial", ",".join(map(str, dial))]
    procs = [subprocess.Popen([exe, "--engine", "network", "--party", str(k), "--ports", ports,
                               "--certs", certs] + extra + common,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for k in range(parties)]
    try:
        return collect_network(procs)
    finally:
        if relay is not None:
            relay.kill()
            relay.wait()


def collect_network(procs):
    outs = []
    failed = []
    for k, p in enumerate(procs):
        try:
            out, err = p.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
            sys.exit(f"network party {k} timed out")
        outs.append(out)
        if p.returncode != 0:
            failed.append(f"party {k} ({p.returncode}): {err}")
    if failed:
        sys.exit("network run failed: " + "; ".join(failed))
    result = parse(outs[0], "result")[0]
    wire = [parse(o, "wire")[0] for o in outs]
    return result, wire, sum(cpu_sum(o) for o in outs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--cases", default="adult,ring")
    ap.add_argument("--adult-rounds", type=int, default=200)
    ap.add_argument("--ring-rounds", type=int, default=1000)
    ap.add_argument("--ring-nodes", type=int, default=20)
    ap.add_argument("--ring-parties", default="5,20")
    ap.add_argument("--mpi-max", type=int, default=5, help="largest mpirun -np")
    ap.add_argument("--data", default="")
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--relay-rtt-ms", type=float, default=0.0,
                    help="route every party link through tests/party/relay.py with this round trip")
    ap.add_argument("--relay-jitter", type=float, default=0.1, help="jitter / one-way delay")
    ap.add_argument("--party-counts", default="", help="parties of the adult case (default 5)")
    ap.add_argument("--algorithms", default="admm",
                    help="the adult case's programs: admm, dvp, sharing-dp (comma-separated)")
    args = ap.parse_args()
    rtt = args.relay_rtt_ms
    exe = os.path.join(args.build, "bench", "bench_network")
    if args.smoke:
        args.reps, args.cases = 1, "ring"
        args.ring_rounds, args.ring_nodes, args.ring_parties = 60, 6, "3"
        data = (args.data or os.environ.get("DPADMM_DATA") or
                os.path.join(ROOT, "..", "shared", "data"))
        if os.path.exists(os.path.join(data, "adult", "adult.data")):
            args.cases, args.algorithms, args.party_counts = "ring,adult", "dvp", "3"
            args.adult_rounds, args.data = 22, data
        else:
            print(f"no UCI Adult in {data}: the adult dvp smoke is skipped", file=sys.stderr)
    have_mpi = shutil.which("mpirun") is not None and not args.smoke

    # (label, case, processes, launcher) per configuration, in the order they alternate.
    configs = []
    cases = []  # (case label, bench_network flags, party counts, rounds)
    for case in args.cases.split(","):
        if case == "adult":
            party_counts = [int(k) for k in (args.party_counts or "5").split(",")]
            for algorithm in args.algorithms.split(","):
                if algorithm not in ("admm", "dvp", "sharing-dp"):
                    sys.exit(f"unknown algorithm {algorithm}")
                common = ["--case", "adult", "--rounds", str(args.adult_rounds)]
                if algorithm != "admm":
                    common += ["--algorithm", algorithm]
                if args.data:
                    common += ["--data", args.data]
                label = "adult" if algorithm == "admm" else f"adult-{algorithm}"
                cases.append((label, common, party_counts, args.adult_rounds))
        elif case == "ring":
            common = ["--case", "ring", "--nodes", str(args.ring_nodes), "--width", "2",
                      "--rounds", str(args.ring_rounds)]
            party_counts = [int(k) for k in args.ring_parties.split(",")]
            cases.append((case, common, party_counts, args.ring_rounds))
        else:
            sys.exit(f"unknown case {case}")
    rounds_of = {case: rounds for case, _, _, rounds in cases}
    for case, common, party_counts, _ in cases:
        configs.append((case, "serial", 1, lambda c=common: run_in_process(exe, "serial", c)))
        configs.append((case, "tbb 2 threads", 1,
                        lambda c=common: run_in_process(exe, "tbb", c + ["--threads", "2"])))
        for k in party_counts:
            if have_mpi and k <= args.mpi_max:
                configs.append((case, "mpi", k, lambda k=k, c=common: run_mpi(exe, k, c)))
            via = f" via relay {rtt:g} ms" if rtt > 0 else ""
            configs.append((case, "network --insecure" + via, k,
                            lambda k=k, c=common: run_network(exe, k, "insecure", c, rtt,
                                                              args.relay_jitter)))
            configs.append((case, "network mTLS" + via, k,
                            lambda k=k, c=common: run_network(exe, k, certs, c, rtt,
                                                              args.relay_jitter)))

    certs = tempfile.mkdtemp(prefix="dpadmm-bench-certs-")
    try:
        most = max(p for _, _, p, _ in configs)
        subprocess.run([os.path.join(ROOT, "scripts", "make_certs.sh"), certs] +
                       [f"p{k}" for k in range(most)], check=True, capture_output=True)
        samples = {i: [] for i in range(len(configs))}
        totals = {i: [] for i in range(len(configs))}
        cpus = {i: [] for i in range(len(configs))}
        wires = {i: [] for i in range(len(configs))}
        for rep in range(args.reps):
            for i, (case, label, procs, launch) in enumerate(configs):
                result, wire, cpu = launch()
                cpus[i].append(cpu)
                if result["same_bits"] != "1":
                    sys.exit(f"{case} {label} x{procs}: not the serial engine's bits")
                samples[i].append(float(result["us_per_round"]))
                totals[i].append(float(result["total_s"]))
                wires[i].append(wire)
                print(f"rep {rep} {case:5} {label:20} x{procs:<2} "
                      f"{float(result['us_per_round']):10.1f} us/round", file=sys.stderr)
    finally:
        shutil.rmtree(certs, ignore_errors=True)

    print(f"reps={args.reps} adult_rounds={args.adult_rounds} ring_rounds={args.ring_rounds} "
          f"ring_nodes={args.ring_nodes}; medians; load average {os.getloadavg()[0]:.1f} at the end")
    if rtt > 0:
        # Through the relay: each network round against the serial engine's round (all nodes'
        # compute in one process) plus one round trip, and what the engine call spent beyond
        # its rounds (set-up: connections, TLS, Hello; the end: last verdicts, closing).
        print()
        print(f"relay round trip {rtt:g} ms ({args.relay_jitter:.0%} jitter per direction)")
        print()
        print("| case | engine | processes | us/round | serial us/round + RTT | ratio "
              "| engine call beyond the rounds s | in round trips |")
        print("|---|---|---|---|---|---|---|---|")
        for i, (case, label, procs, _) in enumerate(configs):
            if not label.startswith("network"):
                continue
            med = statistics.median(samples[i])
            serial = next(statistics.median(samples[j]) for j, c in enumerate(configs)
                          if c[0] == case and c[1] == "serial")
            bound = serial + rtt * 1000
            extra = statistics.median(totals[i]) - rounds_of[case] * med / 1e6
            print(f"| {case} | {label} | {procs} | {med:.0f} | {bound:.0f} | {med / bound:.2f} | "
                  f"{extra:.2f} | {extra * 1000 / rtt:.1f} |")
        print()
    print()
    print("| case | engine | processes | us/round | rounds/s | / tbb | / mpi (same processes) "
          "| CPU us/round (all processes) | engine call s (set-up incl.) | released bytes/round (all parties) "
          "| TCP bytes sent/round (all parties) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for i, (case, label, procs, _) in enumerate(configs):
        med = statistics.median(samples[i])
        tbb = next(statistics.median(samples[j]) for j, c in enumerate(configs)
                   if c[0] == case and c[1].startswith("tbb"))
        mpi = [statistics.median(samples[j]) for j, c in enumerate(configs)
               if c[0] == case and c[1] == "mpi" and c[2] == procs]
        payload = sent = "-"
        if wires[i][0]:
            payload = str(sum(int(w["payload_per_round"]) for w in wires[i][0]))
            sent = f"{statistics.median(sum(float(w['sent_per_round']) for w in ws) for ws in wires[i]):.0f}"
        print(f"| {case} | {label} | {procs} | {med:.1f} | {1e6 / med:.0f} | {med / tbb:.2f} | "
              f"{(f'{med / mpi[0]:.2f}' if mpi else '-')} | {statistics.median(cpus[i]):.1f} | "
              f"{statistics.median(totals[i]):.3f} | "
              f"{payload} | {sent} |")


if __name__ == "__main__":
    main()
