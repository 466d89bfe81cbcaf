# SPDX-License-Identifier: Apache-2.0
"""The installed package's version is the tree's: the build derives both the distribution's
version (setup.py) and ``dpadmm.__version__`` (the extension) from the VERSION file."""
from importlib import metadata

import dpadmm

from conftest import ROOT


def test_version_is_the_version_file():
    want = (ROOT / "VERSION").read_text().strip()
    assert dpadmm.__version__ == want
    assert metadata.version("dpadmm") == want
