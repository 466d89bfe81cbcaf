# SPDX-License-Identifier: Apache-2.0
"""Doxygen input filter: the public headers' plain comments read as documentation.

The headers document every declaration with ordinary ``//`` comments. This filter hands them to
Doxygen as documentation comments: the comment block at the top of a file (after the SPDX line)
becomes the file's description, a comment on its own line documents what follows, and a comment
after a declaration ending in ";" or "," on the same line documents that declaration. The
characters Doxygen reads as commands or markup are escaped. Line numbers are kept.

``doxygen_filter.py --strip-private XML_DIR`` removes the private sections that Doxygen's XML
keeps in any case, so that the site shows each class's public interface only.
"""
import re
import sys


def text(comment):
    """A comment's text with the characters Doxygen would read as commands or markup escaped."""
    return re.sub(r"([\\@<>&$#%])", r"\\\1", comment)


def main(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    out = []
    header = True  # still in the file's leading comment block
    for line in lines:
        if header:
            if line.startswith("// SPDX-License-Identifier"):
                out.append("/// @file")
                continue
            if line.startswith("//"):
                out.append("///" + text(line[2:]))
                continue
            header = False
        stripped = line.lstrip()
        if stripped.startswith("//") and not stripped.startswith("///"):
            out.append(line[: len(line) - len(stripped)] + "///" + text(stripped[2:]))
            continue
        m = re.match(r"^(.*[;,]\s*)//(?!/)(.*)$", line)
        if m and '"' not in m.group(1):
            out.append(f"{m.group(1)}///<{text(m.group(2))}")
            continue
        out.append(line)
    sys.stdout.write("\n".join(out))


def strip_private(folder):
    import pathlib
    section = re.compile(r'\s*<sectiondef kind="private-[a-z-]+">.*?</sectiondef>', re.S)
    for path in pathlib.Path(folder).glob("*.xml"):
        text = path.read_text(encoding="utf-8")
        stripped = section.sub("", text)
        if stripped != text:
            path.write_text(stripped, encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1] == "--strip-private":
        strip_private(sys.argv[2])
    else:
        main(sys.argv[1])
