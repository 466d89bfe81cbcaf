#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A fault-injecting TCP relay between parties on loopback (a test and bench tool).

Each link listens on a loopback address and forwards every connection to one target (a party's
`listen` address; the others dial the relay's, the party's `address`). Per direction it adds a
fixed one-way delay, a jitter and a bandwidth cap, keeping the byte order (a chunk is never
delivered before the one read before it). On command it resets a link's connections (RST, or a
plain close), stalls them (nothing forwarded, nothing accepted, for S seconds: a partition that
TCP survives), or refuses new connections for S seconds (accepted, then reset at once).

    relay.py --link 127.0.0.1:7101=127.0.0.1:7001 [--link ...] [--delay-ms D] [--jitter-ms J]
             [--rate-kbps R] [--seed S] [--lifetime SECONDS] [--ready FILE]

Control: a line protocol on a TCP socket on 127.0.0.1. Once every link listens, the relay writes
one line to stdout and to the --ready file: the control port, then each link's port (a link may
listen on port 0: the system picks a free one). Links are numbered in --link
order; LINK is a number or `all`. One reply line per command, "ok ..." or "error ...":

    reset LINK [rst|close]       end every open connection of LINK (default rst)
    stall LINK SECONDS           forward and accept nothing on LINK for SECONDS
    refuse LINK SECONDS          reset every new connection to LINK for SECONDS
    delay LINK MS JITTER_MS      the one-way delay and jitter of LINK from now on
    rate LINK KBPS               its bandwidth cap per direction (0: none)
    stats                        per link: connections, resets, bytes forwarded
    quit                         exit now

Bounded in time: the process exits by itself after --lifetime seconds (default 600), and every
blocking call wakes at least every 50 ms. Standard library only, so that tests, chaos.py and the
benchmarks need nothing installed; its own cost (a thread per direction, Python's scheduling) is
about 0.1-0.3 ms per chunk, far below the delays it simulates (bench/README.md measures it).
"""
import argparse
import collections
import os
import random
import socket
import struct
import sys
import threading
import time

TICK = 0.05  # seconds: the longest any loop sleeps before checking for the end
CHUNK = 65536
PIECE = 4096  # with a bandwidth cap, bytes are paced in pieces of at most this many


def parse_addr(text):
    host, _, port = text.rpartition(":")
    return host.strip("[]"), int(port)


class Link:
    """One listening address forwarded to one target, and its fault settings."""

    def __init__(self, index, listen, target, delay, jitter, rate, rng):
        self.index = index
        self.listen = listen
        self.target = target
        self.delay = delay          # seconds, one way
        self.jitter = jitter        # seconds: the delay is delay + uniform(-jitter, jitter)
        self.rate = rate            # bytes per second per direction, 0 = unlimited
        self.rng = rng
        self.stalled_until = 0.0
        self.refused_until = 0.0
        self.lock = threading.Lock()
        self.conns = set()
        self.accepted = 0
        self.resets = 0
        self.refused = 0
        self.forwarded = 0

    def stalled(self):
        return time.monotonic() < self.stalled_until

    def one_way(self):
        with self.lock:
            d = self.delay + (self.rng.uniform(-self.jitter, self.jitter) if self.jitter else 0)
        return max(d, 0.0)


class Direction:
    """Bytes from `src` to `dst`: a reader stamps each chunk with its delivery time, a writer
    sends it then (no earlier than the chunk before it, within the bandwidth cap)."""

    def __init__(self, conn, link, src, dst):
        self.conn, self.link, self.src, self.dst = conn, link, src, dst
        self.queue = collections.deque()
        self.cv = threading.Condition()
        self.eof = False
        self.last_due = 0.0

    def read_loop(self):
        try:
            while not self.conn.closed:
                if self.link.stalled():
                    time.sleep(TICK)
                    continue
                try:
                    data = self.src.recv(CHUNK)
                except socket.timeout:
                    continue
                if not data:
                    break
                due = max(time.monotonic() + self.link.one_way(), self.last_due)
                self.last_due = due
                with self.cv:
                    self.queue.append((due, data))
                    self.cv.notify()
        except OSError:
            pass
        with self.cv:
            self.eof = True
            self.cv.notify()

    def write_loop(self):
        free_at = 0.0  # when the bandwidth cap lets the next byte go
        try:
            while not self.conn.closed:
                with self.cv:
                    if not self.queue:
                        if self.eof:
                            break
                        self.cv.wait(TICK)
                        continue
                    due, data = self.queue[0]
                now = time.monotonic()
                rate = self.link.rate
                piece = data[:PIECE] if rate else data
                # With a cap, a piece leaves once it has been "transmitted": its size / rate
                # after the link became free (or after it arrived, if later).
                start = max(due, free_at) + (len(piece) / rate if rate else 0)
                if self.link.stalled() or now < start:
                    time.sleep(min(TICK, max(start - now, 0.0005)))
                    continue
                with self.cv:
                    if len(piece) < len(data):
                        self.queue[0] = (due, data[len(piece):])
                    else:
                        self.queue.popleft()
                self.dst.sendall(piece)
                with self.link.lock:
                    self.link.forwarded += len(piece)
                free_at = start
            if not self.conn.closed:
                self.dst.shutdown(socket.SHUT_WR)  # the source's end of stream, passed on
        except OSError:
            self.conn.close(rst=True)


class Connection:
    def __init__(self, link, client, server):
        self.link, self.client, self.server = link, client, server
        self.closed = False
        self.lock = threading.Lock()
        for s in (client, server):
            s.settimeout(TICK)
        self.threads = []
        for src, dst in ((client, server), (server, client)):
            d = Direction(self, link, src, dst)
            self.threads += [threading.Thread(target=d.read_loop, daemon=True),
                             threading.Thread(target=d.write_loop, daemon=True)]
        for t in self.threads:
            t.start()
        threading.Thread(target=self.reap, daemon=True).start()

    def reap(self):
        for t in self.threads:
            t.join()
        self.close(rst=False)

    def close(self, rst):
        with self.lock:
            if self.closed:
                return
            self.closed = True
        for s in (self.client, self.server):
            try:
                if rst:  # SO_LINGER 0: close sends RST, the other side sees a reset
                    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                s.close()
            except OSError:
                pass
        with self.link.lock:
            self.link.conns.discard(self)


def reset_now(sock):
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def accept_loop(link, stop):
    family = socket.AF_INET6 if ":" in link.listen[0] else socket.AF_INET
    ls = socket.socket(family, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(link.listen)
    ls.listen(64)
    ls.settimeout(TICK)
    link.port = ls.getsockname()[1]
    link.ready.set()
    while not stop.is_set():
        if link.stalled():  # accept nothing: connections wait in the kernel's backlog
            time.sleep(TICK)
            continue
        try:
            client, _ = ls.accept()
        except socket.timeout:
            continue
        except OSError:
            break
        if time.monotonic() < link.refused_until:
            with link.lock:
                link.refused += 1
            reset_now(client)
            continue
        try:
            server = socket.create_connection(link.target, timeout=2)
        except OSError:
            reset_now(client)  # the target is down: the dialler sees a reset, as without us
            continue
        for s in (client, server):
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with link.lock:
            link.accepted += 1
        conn = Connection(link, client, server)
        with link.lock:
            link.conns.add(conn)
    ls.close()


def command(links, line, stop):
    words = line.split()
    if not words:
        return "error empty command"
    verb, args = words[0], words[1:]
    if verb == "quit":
        stop.set()
        return "ok quit"
    if verb == "stats":
        parts = []
        for l in links:
            with l.lock:
                parts.append(f"{l.index}:accepted={l.accepted},open={len(l.conns)},"
                             f"resets={l.resets},refused={l.refused},bytes={l.forwarded}")
        return "ok " + " ".join(parts)
    if not args:
        return f"error {verb}: which link"
    try:
        chosen = links if args[0] == "all" else [links[int(args[0])]]
        now = time.monotonic()
        if verb == "reset":
            mode = args[1] if len(args) > 1 else "rst"
            if mode not in ("rst", "close"):
                return "error reset: rst or close"
            n = 0
            for l in chosen:
                with l.lock:
                    conns = list(l.conns)
                    l.resets += len(conns)
                for c in conns:
                    c.close(rst=mode == "rst")
                n += len(conns)
            return f"ok reset {n}"
        if verb in ("stall", "refuse"):
            seconds = float(args[1])
            for l in chosen:
                if verb == "stall":
                    l.stalled_until = now + seconds
                else:
                    l.refused_until = now + seconds
            return f"ok {verb} {seconds:g}"
        if verb == "delay":
            for l in chosen:
                with l.lock:
                    l.delay, l.jitter = float(args[1]) / 1000, float(args[2]) / 1000
            return "ok delay"
        if verb == "rate":
            for l in chosen:
                with l.lock:
                    l.rate = float(args[1]) * 1000 / 8
            return "ok rate"
    except (IndexError, ValueError) as e:
        return f"error {verb}: {e}"
    return f"error unknown command '{verb}'"


def control_loop(links, stop, cs):
    cs.settimeout(TICK)
    while not stop.is_set():
        try:
            conn, _ = cs.accept()
        except socket.timeout:
            continue
        threading.Thread(target=serve_control, args=(links, stop, conn), daemon=True).start()


def serve_control(links, stop, conn):
    conn.settimeout(TICK)
    buf = b""
    with conn:
        while not stop.is_set():
            try:
                data = conn.recv(4096)
            except socket.timeout:
                continue
            except OSError:
                return
            if not data:
                return
            buf += data
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                reply = command(links, line.decode(errors="replace"), stop)
                conn.sendall((reply + "\n").encode())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--link", action="append", required=True, help="LISTEN=TARGET (host:port)")
    ap.add_argument("--delay-ms", type=float, default=0.0, help="one-way delay per direction")
    ap.add_argument("--jitter-ms", type=float, default=0.0, help="+- uniform jitter")
    ap.add_argument("--rate-kbps", type=float, default=0.0, help="bandwidth cap per direction")
    ap.add_argument("--seed", type=int, default=1, help="the jitter's random stream")
    ap.add_argument("--lifetime", type=float, default=600.0, help="exit after this long (s)")
    ap.add_argument("--ready", help="written (control port) once every link listens")
    a = ap.parse_args()
    for text in a.link:
        for side in text.split("="):
            host, _ = parse_addr(side)
            if host not in ("127.0.0.1", "::1", "localhost"):
                sys.exit(f"relay.py: loopback addresses only, got '{side}'")
    stop = threading.Event()
    rng = random.Random(a.seed)
    links = []
    for k, text in enumerate(a.link):
        listen, target = text.split("=")
        l = Link(k, parse_addr(listen), parse_addr(target), a.delay_ms / 1000,
                 a.jitter_ms / 1000, a.rate_kbps * 1000 / 8, rng)
        l.ready = threading.Event()
        links.append(l)
        threading.Thread(target=accept_loop, args=(l, stop), daemon=True).start()
    cs = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    cs.bind(("127.0.0.1", 0))
    cs.listen(8)
    threading.Thread(target=control_loop, args=(links, stop, cs), daemon=True).start()
    for l in links:
        if not l.ready.wait(5):
            sys.exit(f"relay.py: cannot listen on {l.listen}")
    ports = " ".join(str(p) for p in [cs.getsockname()[1]] + [l.port for l in links])
    if a.ready:
        tmp = a.ready + ".tmp"
        with open(tmp, "w") as f:
            f.write(ports + "\n")
        os.replace(tmp, a.ready)
    print(ports, flush=True)
    end = time.monotonic() + a.lifetime
    while not stop.is_set() and time.monotonic() < end:
        stop.wait(TICK)
    stop.set()
    for l in links:
        for c in list(l.conns):
            c.close(rst=False)


if __name__ == "__main__":
    main()
