#!/usr/bin/env python3
"""noise_keys.py SEED NODES FILE...: exit 1 if any simulation-mode noise key of nodes 0..NODES-1
(derived from SEED as privacy/noise_key.h documents) appears in any FILE, raw or as hex (lower or
upper case, whole key or its first / last 8 bytes). The derivation is written out here
independently of the library; test_samplers.cpp (NoiseKey.TheDocumentedDerivation) checks the
library's key of (11, 0) against the same bytes, printed by `noise_keys.py --print 11 0`."""
import struct
import sys


def rotl(v, c):
    return ((v << c) & 0xFFFFFFFF) | (v >> (32 - c))


def quarter(x, a, b, c, d):
    x[a] = (x[a] + x[b]) & 0xFFFFFFFF; x[d] = rotl(x[d] ^ x[a], 16)
    x[c] = (x[c] + x[d]) & 0xFFFFFFFF; x[b] = rotl(x[b] ^ x[c], 12)
    x[a] = (x[a] + x[b]) & 0xFFFFFFFF; x[d] = rotl(x[d] ^ x[a], 8)
    x[c] = (x[c] + x[d]) & 0xFFFFFFFF; x[b] = rotl(x[b] ^ x[c], 7)


def block(key, counter, nonce):
    state = [0x61707865, 0x3320646E, 0x79622D32, 0x6B206574] + key + [counter] + nonce
    x = list(state)
    for _ in range(10):
        quarter(x, 0, 4, 8, 12); quarter(x, 1, 5, 9, 13)
        quarter(x, 2, 6, 10, 14); quarter(x, 3, 7, 11, 15)
        quarter(x, 0, 5, 10, 15); quarter(x, 1, 6, 11, 12)
        quarter(x, 2, 7, 8, 13); quarter(x, 3, 4, 9, 14)
    return [(a + b) & 0xFFFFFFFF for a, b in zip(x, state)]


def key_bytes(seed, node):
    words = block([seed & 0xFFFFFFFF, seed >> 32, 0, 0, 0, 0, 0, 0], 0,
                  [node & 0xFFFFFFFF, node >> 32, 0x6B65796E])[:8]
    return struct.pack("<8I", *words)


def main():
    if sys.argv[1] == "--print":
        print(key_bytes(int(sys.argv[2]), int(sys.argv[3])).hex())
        return
    seed, nodes, files = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
    forms = []
    for node in range(nodes):
        k = key_bytes(seed, node)
        forms += [k, k.hex().encode(), k.hex().upper().encode(), k[:8].hex().encode(),
                  k[24:].hex().encode()]
    for path in files:
        data = open(path, "rb").read()
        for f in forms:
            if f in data:
                print(f"noise key found in {path}")
                sys.exit(1)
    print(f"no noise key of {nodes} nodes in {len(files)} files")


main()
