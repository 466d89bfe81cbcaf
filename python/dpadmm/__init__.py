# SPDX-License-Identifier: Apache-2.0
"""dpadmm: differentially private distributed learning with ADMM, from Python.

A thin face over the C++ library (the ``dpadmm`` command's own core):

- :class:`ConsensusClassifier`, :class:`SharingClassifier`: scikit-learn estimators;
- :func:`run`: one run from the JSON spec's dictionary, returning summary, model and trace;
- :func:`sweep`, :func:`audit`: privacy-utility sweeps and empirical audits;
- :mod:`dpadmm.privacy`: the accountant and the calibration on their own;
- :class:`Model`: the command's model files (load, save, predict).
"""
from ._core import InputError, Model, PrivacyBudgetError
from ._core import __version__
from ._estimators import ConsensusClassifier, SharingClassifier
from ._run import (RunError, RunInterrupted, RunResult, RunWarning, SimulationWarning, audit,
                   default_spec, run, sweep)
from . import privacy

from . import _core

ALGORITHMS = tuple(_core.algorithms())
"""Every algorithm name (consensus: admm .. pdml; sharing: sharing, sgd)."""

__all__ = ["ConsensusClassifier", "SharingClassifier", "Model", "run", "sweep", "audit",
           "default_spec", "privacy", "RunResult", "InputError", "PrivacyBudgetError",
           "RunError", "RunInterrupted", "RunWarning", "SimulationWarning", "ALGORITHMS",
           "__version__"]
