# SPDX-License-Identifier: Apache-2.0
"""dpadmm.run, dpadmm.sweep, dpadmm.audit: the library's runs with plain Python results."""
import json
import os
import warnings
from typing import Any, Callable, Dict, NamedTuple, Optional, Sequence, Union

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_array

from . import _core


class SimulationWarning(UserWarning):
    """A private algorithm ran in simulation mode (seeded noise): the model is NOT private."""


class RunWarning(UserWarning):
    """A warning of the run's summary (an epsilon above 10, a model that learned nothing, ...)."""


class RunError(RuntimeError):
    """The run diverged (a non-finite value) or a node program failed; the message names node
    and round. ``summary`` holds the run's summary."""

    def __init__(self, message: str, summary: Optional[dict] = None):
        super().__init__(message)
        self.summary = summary


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a run (its outcome is ``cancelled``). A KeyboardInterrupt; ``result``
    holds the rounds done (a :class:`RunResult`)."""

    def __init__(self, result: "RunResult"):
        super().__init__("run cancelled by KeyboardInterrupt after round "
                         f"{result.summary.get('rounds')}")
        self.result = result


class RunResult(NamedTuple):
    """What :func:`run` returns (a named tuple: ``summary, model, history, spec = run(...)``)."""

    summary: Dict[str, Any]
    """The run's summary, as the ``dpadmm`` command writes it (``--summary``)."""
    model: Optional[_core.Model]
    """The learned classifier (None if the run ended without a finite model)."""
    history: Dict[str, np.ndarray]
    """The per-round trace (``--trace``): one numpy array per column."""
    spec: Dict[str, Any]
    """The effective spec as run (defaults filled in, a calibrated knob set)."""


SpecLike = Union[Dict[str, Any], str, os.PathLike]


def _spec_text(spec: SpecLike) -> tuple:
    """The spec as JSON text and a name for messages."""
    if isinstance(spec, dict):
        return json.dumps(spec), "spec"
    if isinstance(spec, os.PathLike) or (isinstance(spec, str) and not spec.lstrip().startswith("{")):
        path = os.fspath(spec)
        with open(path, encoding="utf-8") as f:
            return f.read(), path
    if isinstance(spec, str):
        return spec, "spec"
    raise TypeError(f"spec must be a dict, JSON text or a path, got {type(spec).__name__}")


def check_rows(X, name: str):
    """X as float64 C-ordered dense rows or a CSR matrix with sorted unique indices; ValueError
    naming `name` for NaN, Inf or a wrong shape."""
    X = check_array(X, accept_sparse="csr", dtype=np.float64, order="C", input_name=name,
                    ensure_2d=True, force_all_finite=True)
    if sp.issparse(X):
        if not X.has_canonical_format:
            X = X.copy()
            X.sum_duplicates()
        if X.indices.dtype not in (np.int32, np.int64):
            X.indices = X.indices.astype(np.int64)
    return X


def encode_labels(y, name: str = "y"):
    """(classes, labels as -1.0 / +1.0): any two labels, the larger (np.unique order) is +1."""
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {y.shape}")
    two = _core.encode_two_labels(y)  # integer or boolean labels of two values: one pass
    if two is not None:
        return two
    classes = np.unique(y)
    if classes.size < 2:
        raise ValueError(f"{name} has one class only ({classes.tolist()}): a classifier needs "
                         "two classes")
    if classes.size > 2:
        raise ValueError(f"{name} has {classes.size} classes: dpadmm classifiers are binary "
                         "(use sklearn.multiclass.OneVsRestClassifier for more)")
    return classes, np.where(y == classes[1], 1.0, -1.0)


def decode(out: "_core.RunOutput") -> RunResult:
    """The RunResult of the extension's run output (the summary and spec decoded)."""
    return RunResult(json.loads(out.summary_json()), out.model, out.history(),
                     json.loads(out.spec_json()))


def run_core(text: str, where: str, X=None, y=None, X_test=None, y_test=None,
             progress: Optional[Callable[[dict], Any]] = None, stacklevel: int = 3):
    """The engine of :func:`run` and the estimators: (the extension's RunOutput, its outcome,
    rounds and model), once a callback's exception or Ctrl-C has been raised and the summary's
    warnings issued."""
    out = _core.run(text, where, X, y, X_test, y_test, progress, True)
    outcome, rounds, model, texts, callback_error, interrupt = out.status()
    if callback_error is not None:
        raise callback_error
    if interrupt is not None:
        if isinstance(interrupt, KeyboardInterrupt):
            raise RunInterrupted(decode(out)) from None
        raise interrupt
    if texts:
        simulation = out.noise_mode == "simulation"
        for text in texts:
            category = SimulationWarning if simulation and "simulation" in text else RunWarning
            warnings.warn(text, category, stacklevel=stacklevel)
    return out, outcome, rounds, model


def run(spec: SpecLike, X=None, y=None, X_test=None, y_test=None, *,
        progress: Optional[Callable[[dict], Any]] = None) -> RunResult:
    """Runs one experiment from a spec, the same dictionary as the JSON config.

    Parameters
    ----------
    spec : dict, JSON text or path
        The run spec (``dpadmm run --print-config`` writes one; absent fields take the
        algorithm's defaults), e.g. ``{"algorithm": {"name": "dvp", "dvp": {"alpha": 0.5}},
        "iterations": 200, "noise_seed": 7}``.
    X, y : array-like or CSR matrix, and labels, optional
        Training rows and labels (any two labels). Without them the spec's data source is
        loaded or generated exactly as the ``dpadmm`` command does.
    X_test, y_test : optional
        Public test rows for the test metrics (with ``X`` only).
    progress : callable, optional
        Called once per reported round with a dict of that round's metrics; return ``False``
        to stop the run (outcome ``cancelled``).

    Returns
    -------
    RunResult
        ``(summary, model, history, spec)``; the summary's ``outcome`` says how the run ended.

    Raises
    ------
    dpadmm.InputError (a ValueError)
        Bad spec or data, naming the field or argument.
    dpadmm.PrivacyBudgetError
        A ``target_epsilon`` the mechanism cannot reach.
    KeyboardInterrupt (dpadmm.RunInterrupted)
        Ctrl-C: the run stopped cleanly; ``.result`` holds the rounds done.
    """
    text, where = _spec_text(spec)
    if X is not None:
        if y is None:
            raise ValueError("y is required with X")
        X = check_rows(X, "X")
        classes, y = encode_labels(y, "y")
        if X_test is not None:
            if y_test is None:
                raise ValueError("y_test is required with X_test")
            X_test = check_rows(X_test, "X_test")
            y_test = np.asarray(y_test)
            unknown = np.setdiff1d(y_test, classes)
            if unknown.size:
                raise ValueError(f"y_test has labels not in y: {unknown.tolist()[:5]}")
            y_test = np.where(y_test == classes[1], 1.0, -1.0)
    elif y is not None:
        raise ValueError("y given without X")
    return decode(run_core(text, where, X, y, X_test, y_test, progress)[0])


def default_spec(algorithm: str = "admm") -> Dict[str, Any]:
    """The defaults of ``algorithm`` as a spec dict (``dpadmm run --algorithm A --print-config``)."""
    return json.loads(_core.default_spec(algorithm))


def sweep(spec: SpecLike, algorithms: Sequence[str], epsilons: Sequence[float], *,
          delta: float = _core.TIGHT_DELTA, seeds: int = 3, reference_lines: bool = True,
          progress: Optional[Callable[[int, int, str], Any]] = None) -> Dict[str, Any]:
    """Privacy-utility sweep (``dpadmm sweep``): test accuracy against the total epsilon.

    Every (algorithm, epsilon) cell runs ``seeds`` repetitions with the algorithm's noise knob
    calibrated to a tight total epsilon per node at ``delta``. Simulation mode (seeded noise):
    the runs are NOT private, and the result's ``noise`` says so.

    Returns a dict of numpy arrays, one entry per cell: ``algorithm``, ``epsilon``,
    ``accuracy_mean``, ``accuracy_low``, ``accuracy_high`` (95% t-interval), ``accuracy``
    (cells x seeds), ``knob``, ``knob_values``, ``achieved_epsilon``, ``outcomes``; the reference
    lines ``admm``, ``centralized`` and ``majority`` (dicts of ``values``, ``mean``, ``low``,
    ``high``); ``csv`` (the text of ``sweep.csv``) and ``cancelled``.
    """
    text, where = _spec_text(spec)
    out = _core.sweep(text, where, list(algorithms), [float(e) for e in epsilons], float(delta),
                      int(seeds), bool(reference_lines), progress)
    pending = {"callback_error": out.pop("callback_error"), "interrupt": out.pop("interrupt")}
    if pending["callback_error"] is not None:
        raise pending["callback_error"]
    if pending["interrupt"] is not None:
        raise pending["interrupt"]
    warnings.warn("dpadmm.sweep: " + out["noise"], SimulationWarning, stacklevel=2)
    return out


def audit(mechanism: str = "dvp", *, rounds: int = 1, rows: int = 0, dim: int = 0,
          alpha: float = 0.0, eta: float = 0.0, C: float = 0.0, rho: float = 0.0,
          logistic: bool = False, epsilon: float = 0.0, delta: float = 1e-5, seed: int = 1,
          runs_per_side: int = 10000, threads: int = 0, confidence: float = 0.95,
          noise_seed: Optional[int] = None) -> Dict[str, Any]:
    """Empirical privacy audit (``dpadmm audit``): a distinguishing attack's epsilon lower bound
    beside the accountant's claim. Zero values take the mechanism's audit defaults.

    Returns a dict: ``epsilon_lower_bound``, ``claim`` (tight epsilon at ``delta``),
    ``paper_claim``, ``passed`` (lower bound <= claim), the rates and their Clopper-Pearson
    upper bounds, and the set-up as resolved.
    """
    if noise_seed is not None:
        warnings.warn("dpadmm.audit with noise_seed: simulation mode (seeded noise)",
                      SimulationWarning, stacklevel=2)
    return _core.audit(mechanism, rounds, rows, dim, alpha, eta, C, rho, logistic, epsilon,
                       delta, seed, runs_per_side, threads, confidence, noise_seed)
