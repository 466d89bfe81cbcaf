# SPDX-License-Identifier: Apache-2.0
"""Builds dpadmm._core with CMake (the repository's own build), then packages it.

The extension is the CMake target ``dpadmm_python`` of the repository root configured with
``-DDPADMM_PYTHON=ON``. With ``DPADMM_BUILD_DIR`` naming an existing build folder (``build``
after ``scripts/build.sh``), that folder is reused: only the extension is (re)built there.
Otherwise a private Release build of the libraries and the extension is made in setuptools'
temporary folder (no tests, benchmarks or CLI).
"""
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
ROOT = Path(os.environ.get("DPADMM_SOURCE_DIR", HERE.parent)).resolve()


def _version():
    return (ROOT / "VERSION").read_text().split()[0]


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        if not (ROOT / "CMakeLists.txt").is_file():
            raise RuntimeError(f"dpadmm: no CMakeLists.txt in {ROOT} (set DPADMM_SOURCE_DIR)")
        given = os.environ.get("DPADMM_BUILD_DIR")
        if given:
            build = Path(given)
            if not build.is_absolute():
                build = ROOT / build
            configure = ["cmake", "-S", str(ROOT), "-B", str(build), "-DDPADMM_PYTHON=ON"]
            if not (build / "CMakeCache.txt").is_file():
                configure += ["-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                              f"-DPYTHON_EXECUTABLE={sys.executable}"]
        else:
            build = Path(self.build_temp).resolve() / "cmake"
            configure = ["cmake", "-S", str(ROOT), "-B", str(build), "-G", "Ninja",
                         "-DCMAKE_BUILD_TYPE=Release", "-DDPADMM_PYTHON=ON",
                         "-DDPADMM_BUILD_TESTS=OFF", "-DDPADMM_BUILD_BENCH=OFF",
                         "-DDPADMM_BUILD_CLI=OFF", f"-DPYTHON_EXECUTABLE={sys.executable}"]
        subprocess.run(configure, check=True, stdout=subprocess.DEVNULL)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", "2")
        subprocess.run(["cmake", "--build", str(build), "--target", "dpadmm_python", "-j", jobs],
                       check=True)
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        built = build / "python" / "dpadmm" / f"_core{suffix}"
        if not built.is_file():
            raise RuntimeError(f"dpadmm: {built} was not built (is {build} configured for "
                               f"another Python than {sys.executable}?)")
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, target)


setup(version=_version(), ext_modules=[Extension("dpadmm._core", sources=[])],
      cmdclass={"build_ext": CMakeBuild})
