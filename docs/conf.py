# SPDX-License-Identifier: Apache-2.0
# Sphinx configuration of the documentation site (built by scripts/docs.sh, which sets the
# environment variables read here). Markdown pages through MyST, the Python API by autodoc from
# the installed package, the C++ API by Breathe from Doxygen's XML of the public headers.
import os
import pathlib
import re

root = pathlib.Path(__file__).resolve().parent.parent

project = "dpadmm"
author = "the dpadmm authors"
copyright = "the dpadmm authors, Apache-2.0"
release = (root / "VERSION").read_text().strip()
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "breathe",
]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_generated/**", "README.md"]
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence"]
suppress_warnings = ["myst.header"]  # included folder READMEs start below level 1 in places

html_theme = "furo"
html_title = f"dpadmm {release}"
html_static_path = []

# Python API: the package as installed by scripts/python_test.sh (numpydoc docstrings).
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_mock_imports = []
napoleon_numpy_docstring = True
napoleon_google_docstring = False
nitpicky = True
nitpick_ignore_regex = [
    # Nitpicky about the package's own names: the numpydoc type phrases ("array-like of shape
    # (n_samples, n_features)", "dict or path") and other libraries' types have no page here.
    ("py:(class|exc|obj)", r"(?!dpadmm\.).*"),
    # C++: the standard library's, Eigen's and gRPC's types are not documented here.
    ("cpp:identifier", r"(std|Eigen|grpc|MPI_Comm|uint[0-9]+_t|int[0-9]+_t|size_t).*"),
    # Private implementation types named in public declarations (pimpl, friend drivers).
    ("cpp:identifier", r"(Impl|Driver)"),
    # Breathe 4.34 links a base class's "Subclassed by" list to the derived classes' Doxygen ids
    # as labels, which the index page renders as anchors without registering them.
    ("std:ref", r"(struct|class)dpadmm_1_1\w+"),
]

# C++ API: Doxygen XML written by scripts/docs.sh.
breathe_projects = {"dpadmm": os.environ.get("DPADMM_DOXYGEN_XML", str(root / "build-docs" / "doxygen" / "xml"))}
breathe_default_project = "dpadmm"
breathe_domain_by_extension = {"h": "cpp"}
breathe_show_include = False  # the include lines would link to file pages the index does not render


def _escape_shape_names(app, what, name, obj, options, lines):
    """numpydoc shapes name fitted attributes, "(n_features_in_,)": a trailing underscore there
    is text, not a reStructuredText reference."""
    for i, line in enumerate(lines):
        if "of shape (" in line:
            lines[i] = re.sub(r"\b(\w+)_(?=[,)])", r"\1\\_", line)


def setup(app):
    app.connect("autodoc-process-docstring", _escape_shape_names)
