#!/usr/bin/env python3
"""compare.py BEFORE AFTER [NAME...]: seeded traces (CSV) and summaries (JSON) of AFTER must hold
the same numbers as BEFORE, compared by column / field name (the schema-1 names 'epoch',
'epochs' and 'seconds_per_epoch' are read as 'round', 'rounds' and 'seconds_per_round'). Wall
times (any name containing 'seconds') are skipped; every other number present in BEFORE must be
present in AFTER and equal as text (CSV) or exactly (JSON). Exit 1 on the first difference."""
import csv, json, math, os, sys

RENAMED = {"epoch": "round", "epochs": "rounds", "seconds_per_epoch": "seconds_per_round"}


def fail(msg):
    print("DIFFERENT:", msg)
    sys.exit(1)


def read_csv(path):
    # A leading '# ' line says where the noise came from (simulation or private mode).
    with open(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def compare_csv(a, b, name):
    ra = read_csv(a)
    rb = read_csv(b)
    if len(ra) != len(rb):
        fail(f"{name}: {len(ra)} rows before, {len(rb)} after")
    for k, (x, y) in enumerate(zip(ra, rb)):
        for col, v in x.items():
            if "seconds" in col:
                continue
            new = RENAMED.get(col, col)
            if new not in y:
                fail(f"{name}: column {col} missing")
            if v != y[new]:
                fail(f"{name} row {k} column {col}: {v} before, {y[new]} after")


def leaves(obj, path=""):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from leaves(v, f"{path}.{RENAMED.get(k, k)}" if path else RENAMED.get(k, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from leaves(v, f"{path}[{i}]")
    elif isinstance(obj, (int, float)) and not isinstance(obj, bool):
        yield path, obj
    elif obj is None:
        yield path, None


def compare_json(a, b, name):
    with open(a) as f:
        ja = dict(leaves(json.load(f)))
    with open(b) as f:
        jb = dict(leaves(json.load(f)))
    for path, v in ja.items():
        if "seconds" in path:
            continue
        if path not in jb:
            fail(f"{name}: {path} missing")
        w = jb[path]
        same = v == w or (v is None and w is None) or (
            isinstance(v, float) and isinstance(w, float) and math.isnan(v) and math.isnan(w))
        if not same:
            fail(f"{name}: {path} = {v} before, {w} after")


def main():
    before, after = sys.argv[1], sys.argv[2]
    names = sys.argv[3:] or sorted(os.listdir(before))
    for name in names:
        a, b = os.path.join(before, name), os.path.join(after, name)
        if not os.path.exists(b):
            fail(f"{name} missing in {after}")
        (compare_csv if name.endswith(".csv") else compare_json)(a, b, name)
    print(f"same numbers: {len(names)} files")


main()
