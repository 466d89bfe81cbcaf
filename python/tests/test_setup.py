# SPDX-License-Identifier: Apache-2.0
"""python/setup.py's choice of build folder, without a build: with DPADMM_BUILD_DIR the named
folder is reused (relative names are read from the repository root), without it a private
Release build of the libraries and the extension only is configured in setuptools' temporary
folder. The CMake commands are recorded instead of run."""
import runpy
import subprocess
import sys
import sysconfig
import types
from pathlib import Path

import pytest
import setuptools

SETUP = Path(__file__).resolve().parents[1] / "setup.py"
ROOT = SETUP.parents[1]


def build_commands(monkeypatch, tmp_path, build_dir):
    """The commands CMakeBuild.build_extension runs, and the file it copies from."""
    monkeypatch.setattr(setuptools, "setup", lambda **kwargs: None)
    namespace = runpy.run_path(str(SETUP), run_name="dpadmm_setup")
    if build_dir is None:
        monkeypatch.delenv("DPADMM_BUILD_DIR", raising=False)
    else:
        monkeypatch.setenv("DPADMM_BUILD_DIR", build_dir)
    monkeypatch.delenv("DPADMM_SOURCE_DIR", raising=False)
    commands, copied = [], []
    monkeypatch.setattr(subprocess, "run", lambda cmd, **kwargs: commands.append(cmd))
    monkeypatch.setattr(namespace["shutil"], "copyfile", lambda a, b: copied.append(Path(a)))
    monkeypatch.setattr(Path, "is_file", lambda self: True)
    command = namespace["CMakeBuild"].__new__(namespace["CMakeBuild"])
    command.build_temp = str(tmp_path / "temp")
    command.get_ext_fullpath = lambda name: str(tmp_path / "out" / "_core.so")
    command.build_extension(types.SimpleNamespace(name="dpadmm._core"))
    return commands, copied[0]


def test_without_build_dir_builds_privately(monkeypatch, tmp_path):
    commands, copied = build_commands(monkeypatch, tmp_path, None)
    configure, build = commands
    folder = (tmp_path / "temp").resolve() / "cmake"
    assert configure[:6] == ["cmake", "-S", str(ROOT), "-B", str(folder), "-G"]
    for flag in ("-DCMAKE_BUILD_TYPE=Release", "-DDPADMM_PYTHON=ON", "-DDPADMM_BUILD_TESTS=OFF",
                 "-DDPADMM_BUILD_BENCH=OFF", "-DDPADMM_BUILD_CLI=OFF",
                 f"-DPYTHON_EXECUTABLE={sys.executable}"):
        assert flag in configure
    assert build[:4] == ["cmake", "--build", str(folder), "--target"] and "dpadmm_python" in build
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    assert copied == folder / "python" / "dpadmm" / f"_core{suffix}"


@pytest.mark.parametrize("given", ["build", "/somewhere/build"])
def test_build_dir_is_reused(monkeypatch, tmp_path, given):
    commands, copied = build_commands(monkeypatch, tmp_path, given)
    configure, build = commands
    folder = Path(given) if Path(given).is_absolute() else ROOT / given
    assert configure[:5] == ["cmake", "-S", str(ROOT), "-B", str(folder)]
    assert "-DDPADMM_PYTHON=ON" in configure
    # An existing folder (CMakeCache.txt present) keeps its generator and build type.
    assert not any(arg.startswith("-DCMAKE_BUILD_TYPE") for arg in configure)
    assert build[:3] == ["cmake", "--build", str(folder)] and "dpadmm_python" in build
    assert copied.parent == folder / "python" / "dpadmm"
