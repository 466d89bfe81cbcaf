# SPDX-License-Identifier: Apache-2.0
"""Writes the documentation pages that come from the code itself (run by scripts/docs.sh).

- ``cli.md``: every ``dpadmm`` command's ``--help``, as the binary prints it;
- ``spec_fields.md``: every field of the JSON spec with its type and default per algorithm,
  from ``dpadmm run --print-config --algorithm A`` for every algorithm ``run --help`` lists;
- ``cpp_headers.md``: every public header with the comment that opens it (what it is for, how
  it is used), in the order of the folders.

Usage: generate.py --cli PATH --out DIR
"""
import argparse
import json
import pathlib
import re
import subprocess
import sys


def help_text(cli, *args):
    result = subprocess.run([cli, *args, "--help"], capture_output=True, text=True, timeout=60)
    if result.returncode != 0:
        sys.exit(f"generate.py: '{cli} {' '.join(args)} --help' exited {result.returncode}")
    return result.stdout.rstrip() + "\n"


def subcommands(top_help):
    names = []
    in_list = False
    for line in top_help.splitlines():
        if line.startswith("Subcommands:"):
            in_list = True
        elif in_list:
            m = re.match(r"^  ([a-z][a-z-]*)\s{2,}", line)
            if m:
                names.append(m.group(1))
    if not names:
        sys.exit("generate.py: no subcommand found in 'dpadmm --help'")
    return names


def algorithms(run_help):
    names = []
    lines = run_help.splitlines()
    for i, line in enumerate(lines):
        if re.match(r"^\s+--algorithm NAME=", line):
            for follow in lines[i + 1:]:
                m = re.match(r"^\s{20,}([a-z_]+): ", follow)
                if not m:
                    break
                names.append(m.group(1))
            break
    if not names:
        sys.exit("generate.py: no algorithm list found under --algorithm in 'dpadmm run --help'")
    return names


def fence(text):
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return f"{ticks}text\n{text}{ticks}\n"


def cli_page(cli):
    top = help_text(cli)
    out = ["## dpadmm\n", fence(top)]
    for name in subcommands(top):
        out += [f"## dpadmm {name}\n", fence(help_text(cli, name))]
    return "\n".join(out)


def flatten(value, prefix, into):
    if isinstance(value, dict):
        for key, item in value.items():
            flatten(item, f"{prefix}.{key}" if prefix else key, into)
    else:
        into[prefix] = value


def json_type(value):
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "null"


def cell(text):
    return text.replace("|", "\\|")


def spec_page(cli, names):
    fields = {}  # path -> {json value text -> [algorithms]}
    types = {}
    order = []
    for name in names:
        result = subprocess.run([cli, "run", "--algorithm", name, "--print-config"],
                                capture_output=True, text=True, timeout=60)
        if result.returncode != 0:
            sys.exit(f"generate.py: 'run --algorithm {name} --print-config' exited "
                     f"{result.returncode}: {result.stderr.strip()}")
        flat = {}
        flatten(json.loads(result.stdout), "", flat)
        for path, value in flat.items():
            if path not in fields:
                fields[path] = {}
                order.append(path)
            text = json.dumps(value)
            fields[path].setdefault(text, []).append(name)
            types.setdefault(path, set()).add(json_type(value))
    out = ["Algorithms: " + ", ".join(f"`{n}`" for n in names) + ".\n"]
    sections = {}  # top-level key (or "" for the top level's own scalars) -> paths, in order
    for path in order:
        sections.setdefault(path.split(".")[0] if "." in path else "", []).append(path)
    for section, paths in sections.items():
        out += ["", f"### `{section}`" if section else "### Top level", "",
                "| field | type | default | algorithms |", "|---|---|---|---|"]
        for path in paths:
            out.append(row(path, fields[path], types[path], names))
    return "\n".join(out) + "\n"


def row(path, values, types, names):
    if path == "algorithm.name":
        return f"| `{path}` | string | the algorithm's name | all |"
    present = [n for n in names if any(n in algs for algs in values.values())]
    where = "all" if len(present) == len(names) else ", ".join(present)
    if len(values) == 1:
        default = f"`{next(iter(values))}`"
    else:
        default = "; ".join(f"`{v}` ({', '.join(algs)})" for v, algs in values.items())
    kind = " or ".join(sorted(types))
    return f"| `{path}` | {kind} | {cell(default)} | {where} |"


def headers_page(root):
    out = []
    for include in ("algorithms/include", "runtime/include"):
        base = root / include
        for header in sorted((base / "dpadmm").rglob("*.h")):
            name = header.relative_to(base).as_posix()
            if name.startswith("dpadmm/experiment/"):
                continue  # forwarding headers of the previous layout
            comment = []
            for line in header.read_text(encoding="utf-8").split("\n"):
                if line.startswith("// SPDX-License-Identifier"):
                    continue
                if not line.startswith("//"):
                    break
                comment.append(line[3:] if line.startswith("// ") else line[2:])
            out += [f"### `{name}`", "", fence("\n".join(comment).rstrip() + "\n") if comment
                    else "(no opening comment)\n"]
    return "\n".join(out)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cli", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "cli.md").write_text(cli_page(args.cli))
    names = algorithms(help_text(args.cli, "run"))
    (out / "spec_fields.md").write_text(spec_page(args.cli, names))
    root = pathlib.Path(__file__).resolve().parent.parent
    (out / "cpp_headers.md").write_text(headers_page(root))


if __name__ == "__main__":
    main()
