#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks the relative links of README.md and docs/**/*.md (part of scripts/docs.sh).

Every Markdown link or image whose target is not a URL must name an existing file or folder,
relative to the page; a ``#anchor`` (on its own or after a ``.md`` target) must be a heading of
that page, by GitHub's anchor rule (lower case, punctuation dropped, spaces as hyphens). Links
inside code spans and fences are not links. Sphinx checks the links between the site's pages
again when it builds them. Exit status 1 when any link is broken.
"""
import pathlib
import re
import sys

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def prose(text):
    """The page without fenced blocks and code spans (replaced by blanks, lines kept)."""
    out = []
    fence = None
    for line in text.split("\n"):
        stripped = line.lstrip()
        if fence is None and stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
            out.append("")
            continue
        if fence is not None:
            if stripped.startswith(fence):
                fence = None
            out.append("")
            continue
        out.append(re.sub(r"`[^`]*`", "``", line))
    return out


def anchors(path):
    found = set()
    for line in prose(path.read_text(encoding="utf-8")):
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
            base = slug
            n = 1
            while slug in found:
                slug = f"{base}-{n}"
                n += 1
            found.add(slug)
    # Headings written with code spans: keep their text too.
    for line in path.read_text(encoding="utf-8").split("\n"):
        m = re.match(r"^#{1,6}\s+(.*?)\s*$", line)
        if m:
            text = m.group(1).replace("`", "").strip().lower()
            found.add(re.sub(r"[^\w\- ]", "", text).replace(" ", "-"))
    return found


def main():
    root = pathlib.Path(__file__).resolve().parent.parent
    pages = [root / "README.md"] + sorted(p for p in (root / "docs").rglob("*.md")
                                          if "_generated" not in p.parts)
    broken = 0
    checked = 0
    for page in pages:
        for number, line in enumerate(prose(page.read_text(encoding="utf-8")), start=1):
            for target in LINK.findall(line):
                if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto: ...
                    continue
                checked += 1
                path_part, _, anchor = target.partition("#")
                dest = (page.parent / path_part).resolve() if path_part else page
                problem = None
                if not dest.exists():
                    problem = "no such file"
                elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                    problem = f"no heading '#{anchor}' in {dest.relative_to(root)}"
                if problem:
                    broken += 1
                    print(f"check_links.py: {page.relative_to(root)}:{number}: {target}: "
                          f"{problem}", file=sys.stderr)
    if broken:
        print(f"check_links.py: {broken} broken of {checked} relative links", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
