#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs every snippet of README.md and docs/**/*.md that is marked runnable (part of
scripts/docs.sh).

A snippet is marked by the line ``<!-- runnable -->`` right before its fence; the fence's
language says how it runs: ``sh``/``bash`` by ``bash -euo pipefail``, ``python`` by
$DPADMM_PYTHON (default build/python-venv/bin/python, which has the package installed). The
snippets of one page run in order in one fresh temporary folder holding ``build/cli/dpadmm``
(a link to $DPADMM_CLI, default build/cli/dpadmm) and ``scripts`` (a link to the project's),
so a page's later snippets see the files its earlier ones wrote. Each snippet has a time limit
($DPADMM_SNIPPET_SECONDS, default 120); at the limit its whole process group is killed.
Snippets use small generated data only. Exit status 1 when any snippet fails, a marker is not
followed by a runnable fence, or no snippet is marked at all.
"""
import os
import pathlib
import signal
import subprocess
import sys
import tempfile
import time

MARKER = "<!-- runnable -->"
LANGUAGES = {"sh": "shell", "bash": "shell", "python": "python"}


def pages(root):
    yield root / "README.md"
    for path in sorted((root / "docs").rglob("*.md")):
        if "_generated" not in path.parts:
            yield path


def snippets(path):
    """(line number, language, code) of each marked snippet; raises on a bad marker."""
    lines = path.read_text(encoding="utf-8").split("\n")
    found = []
    for i, line in enumerate(lines):
        if line.strip() != MARKER:
            continue
        fence_line = lines[i + 1] if i + 1 < len(lines) else ""
        stripped = fence_line.strip()
        ticks = len(stripped) - len(stripped.lstrip("`"))
        language = stripped[ticks:].strip()
        if ticks < 3 or language not in LANGUAGES:
            raise ValueError(f"{path}:{i + 1}: '{MARKER}' must be followed by a fence of "
                             f"{', '.join(sorted(LANGUAGES))}")
        body = []
        for j in range(i + 2, len(lines)):
            if lines[j].strip() == "`" * ticks:
                break
            body.append(lines[j])
        else:
            raise ValueError(f"{path}:{i + 2}: the fence is not closed")
        found.append((i + 2, LANGUAGES[language], "\n".join(body) + "\n"))
    return found


def run(kind, code, folder, python, timeout):
    script = folder / (".snippet.py" if kind == "python" else ".snippet.sh")
    script.write_text(code, encoding="utf-8")
    command = [python, str(script)] if kind == "python" else ["bash", "-euo", "pipefail",
                                                               str(script)]
    start = time.monotonic()
    process = subprocess.Popen(command, cwd=folder, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        output, _ = process.communicate(timeout=timeout)
        status = process.returncode
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        status = f"killed at the time limit of {timeout} s"
    return status, output, time.monotonic() - start


def main():
    root = pathlib.Path(__file__).resolve().parent.parent
    cli = pathlib.Path(os.environ.get("DPADMM_CLI", root / "build/cli/dpadmm")).resolve()
    python = os.environ.get("DPADMM_PYTHON", str(root / "build/python-venv/bin/python"))
    timeout = float(os.environ.get("DPADMM_SNIPPET_SECONDS", "120"))
    failures = 0
    count = 0
    total = time.monotonic()
    for page in pages(root):
        try:
            marked = snippets(page)
        except ValueError as error:
            print(f"run_snippets.py: {error}", file=sys.stderr)
            failures += 1
            continue
        if not marked:
            continue
        with tempfile.TemporaryDirectory(prefix="dpadmm-snippets-") as tmp:
            folder = pathlib.Path(tmp)
            (folder / "build/cli").mkdir(parents=True)
            (folder / "build/cli/dpadmm").symlink_to(cli)
            (folder / "scripts").symlink_to(root / "scripts")
            for line, kind, code in marked:
                count += 1
                where = f"{page.relative_to(root)}:{line}"
                status, output, seconds = run(kind, code, folder, python, timeout)
                if status == 0:
                    print(f"run_snippets.py: ok   {where} ({kind}, {seconds:.1f} s)",
                          file=sys.stderr)
                else:
                    failures += 1
                    tail = "\n".join(output.rstrip().split("\n")[-30:])
                    print(f"run_snippets.py: FAIL {where} ({kind}, exit {status}, "
                          f"{seconds:.1f} s)\n{tail}", file=sys.stderr)
    if count == 0:
        print("run_snippets.py: no snippet is marked runnable", file=sys.stderr)
        return 1
    print(f"run_snippets.py: {count - failures} of {count} snippets passed in "
          f"{time.monotonic() - total:.1f} s", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
