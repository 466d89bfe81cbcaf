#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Two checks of the tree's text, run by `scripts/format.sh --check` (so CI fails on them).

1. Every version string agrees with the VERSION file. The build derives the CMake project's
   version, dpadmm/version.h, the pkg-config file, `dpadmm --version`, the Python package's
   version and `__version__`, and the browser page's version from VERSION: the lines that do so
   must stay. The web package's manifest and lock file state it and must equal it, and the
   CHANGELOG's first release heading (after "## Unreleased") must be that version with a date.
2. The product speaks of itself: no tracked text file refers to the work that made it (an
   issue number, a work session, "this branch"). "Session" as product vocabulary (the wasm
   `Session`, a network peer's session, mpirun's session folder, pytest's session scope) is
   not flagged: only phrases that count or order sessions of work are.

Usage: scripts/check_text.py [--skip PATH]...   (PATH relative to the repository's root)
Exit 0 when both pass; 1 naming every file and line that does not.
"""
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SELF = Path(__file__).resolve().relative_to(ROOT).as_posix()

# The lines through which the build derives each version from VERSION.
DERIVED = [
    ("CMakeLists.txt", 'file(STRINGS "${CMAKE_CURRENT_SOURCE_DIR}/VERSION" DPADMM_VERSION_FROM_FILE'),
    ("CMakeLists.txt", "project(dpadmm VERSION ${DPADMM_VERSION_FROM_FILE}"),
    ("cmake/version.h.in", '#define DPADMM_VERSION_STRING "@PROJECT_VERSION@"'),
    ("cmake/dpadmm.pc.in", "Version: @PROJECT_VERSION@"),
    ("cli/CMakeLists.txt", 'DPADMM_VERSION="${PROJECT_VERSION}"'),
    ("python/setup.py", '(ROOT / "VERSION")'),
    ("python/setup.py", "setup(version=_version()"),
    ("python/pyproject.toml", 'dynamic = ["version"]'),
    ("python/src/bindings.cpp", 'm.attr("__version__") = DPADMM_VERSION_STRING'),
    ("web/vite.config.ts", "path.join(root, 'VERSION')"),
    ("web/index.html", "%DPADMM_VERSION%"),
]

# Wording that refers to the work rather than to the product: (what, a word every match holds in
# lower case, the pattern).
HISTORY = [
    ("an issue number", "issue", re.compile(r"\bissues?\s?#?\d+", re.IGNORECASE)),
    ("'this branch'", "branch", re.compile(r"\bthis\s+branch\b", re.IGNORECASE)),
    ("a work session", "session", re.compile(
        r"\b(?i:this|that|last|next|previous|earlier|later|prior|past|both|several|many"
        r"|one|two|three|four|five|six|seven|eight|nine|ten"
        r"|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth)\s+sessions?\b"
        r"|\b(?i:work|working)\s+sessions?\b|\bsessions?\s+of\s+work\b|\b(?i:in)\s+a\s+session\b")),
]


def version_problems():
    problems = []
    text = (ROOT / "VERSION").read_text(encoding="utf-8")
    if not re.fullmatch(r"\d+\.\d+\.\d+\n", text):
        return [f"VERSION: must be one line MAJOR.MINOR.PATCH, is {text!r}"]
    version = text.strip()

    for path, line in DERIVED:
        if line not in (ROOT / path).read_text(encoding="utf-8"):
            problems.append(f"{path}: no longer derives the version from VERSION "
                            f"(expected the line containing {line!r})")
    pyproject = (ROOT / "python/pyproject.toml").read_text(encoding="utf-8")
    if re.search(r"^version\s*=", pyproject, re.MULTILINE):
        problems.append("python/pyproject.toml: states a version; it is read from VERSION")

    manifest = json.loads((ROOT / "web/package.json").read_text(encoding="utf-8"))
    if manifest.get("version") != version:
        problems.append(f"web/package.json: version {manifest.get('version')!r}, "
                        f"VERSION says {version!r}")
    lock = json.loads((ROOT / "web/package-lock.json").read_text(encoding="utf-8"))
    for where, value in (("version", lock.get("version")),
                         ('packages[""].version', lock.get("packages", {}).get("", {}).get("version"))):
        if value != version:
            problems.append(f"web/package-lock.json: {where} {value!r}, VERSION says {version!r}")

    headings = re.findall(r"^## (.*)$", (ROOT / "CHANGELOG.md").read_text(encoding="utf-8"),
                          re.MULTILINE)
    release = re.compile(re.escape(version) + r" \(\d{4}-\d{2}-\d{2}\)")
    if len(headings) < 2 or headings[0] != "Unreleased" or not release.fullmatch(headings[1]):
        problems.append(f"CHANGELOG.md: the headings must start '## Unreleased', then "
                        f"'## {version} (YYYY-MM-DD)'; they start {headings[:2]}")
    return problems


def wording_problems(skip):
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, check=True,
                            capture_output=True).stdout.decode("utf-8").split("\0")
    problems = []
    for path in listed:
        if not path or path == SELF or path in skip:
            continue
        file = ROOT / path
        if not file.is_file():
            continue
        data = file.read_bytes()
        if b"\0" in data[:8192]:
            continue  # binary
        text = data.decode("utf-8", errors="replace")
        lower = text.lower()
        if not any(word in lower for _, word, _ in HISTORY):
            continue
        for number, line in enumerate(text.splitlines(), 1):
            lower = line.lower()
            for what, word, pattern in HISTORY:
                found = word in lower and pattern.search(line)
                if found:
                    problems.append(f"{path}:{number}: refers to the work ({what}: "
                                    f"'{found.group(0)}'), not to the product: {line.strip()}")
    return problems


def main(argv):
    skip = set()
    args = iter(argv)
    for arg in args:
        if arg == "--skip":
            skip.add(next(args, ""))
        else:
            print(f"check_text.py: unknown argument {arg!r} (usage: [--skip PATH]...)",
                  file=sys.stderr)
            return 2
    problems = version_problems() + wording_problems(skip)
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
