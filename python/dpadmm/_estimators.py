# SPDX-License-Identifier: Apache-2.0
"""scikit-learn estimators over dpadmm runs: ConsensusClassifier and SharingClassifier."""
import json
import numbers
import operator
import os
import tempfile
import threading
from typing import Any, Callable, Dict, Optional, Sequence, Union

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from . import _core
from ._run import RunError, encode_labels, run_core

_CONSENSUS = ("admm", "dvp", "pvp", "madmm", "radmm", "mradmm", "private_mradmm", "pdml",
              "local", "average", "central")
# The baselines: private by construction, their privacy knob is their own epsilon.
_BASELINES = ("local", "average", "central")
_SHARING = ("sharing", "sgd")
_BAD_OUTCOMES = ("diverged", "failed")
# Fitted attributes built from the run's output on first access (then cached in __dict__ as
# plain attributes; a pickle holds them materialised): a fit pays for what it reads, as the C++
# API's RunSummary does. coef_ and intercept_ come from model_.
_LAZY = ("summary_", "spec_", "history_", "privacy_", "coef_", "intercept_")


def _seed(random_state) -> int:
    """The run's data/graph/partition seed: an int is used as given (the CLI's --seed), None or
    a RandomState draws one."""
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"random_state must be >= 0, got {random_state}")
        return int(random_state)
    return int(check_random_state(random_state).randint(0, 2**31 - 1))


def _noise_seed(noise) -> Optional[int]:
    """None for noise="private", the seed for an integer; ValueError otherwise."""
    if isinstance(noise, str) and noise == "private":
        return None
    if isinstance(noise, numbers.Integral) and not isinstance(noise, bool) and noise >= 0:
        return int(noise)
    raise ValueError(f"noise must be 'private' or an integer noise seed >= 0, got {noise!r}")


def _threads(n_jobs) -> Dict[str, Any]:
    """n_jobs as scikit-learn means it: None or 1 = one thread (the serial engine), -1 = all
    cores, k = k threads of the TBB engine."""
    if n_jobs is None or n_jobs == 1:
        return {"engine": "serial", "threads": 1}
    if n_jobs == -1:
        return {"engine": "tbb", "threads": 0}
    if isinstance(n_jobs, numbers.Integral) and n_jobs > 1:
        return {"engine": "tbb", "threads": int(n_jobs)}
    raise ValueError(f"n_jobs must be None, -1 or a positive integer, got {n_jobs!r}")


_ATOMS = frozenset((str, int, bool, type(None)))
_FLAT = _ATOMS | {float}  # == with the types tells apart any two values but floats' signs


def _frozen(value):
    """A hashable stand-in for a parameter value, equal for two values only when they are of
    the same types and values all through (a float by its repr: -0.0 is not 0.0), so that the
    spec built from them is the same text: str, int, bool, None and float (exact types, never a
    subclass), and lists, tuples and dicts of them, item by item in order; None for anything
    else (that value is not cached)."""
    kind = type(value)
    if kind in _ATOMS:
        return kind, value
    if kind is float:
        return kind, repr(value)
    if kind is list or kind is tuple:
        items = tuple(map(_frozen, value))
        return None if None in items else (kind, items)
    if kind is dict:
        items = tuple(map(_frozen, value.items()))
        return None if None in items else (kind, items)
    return None


class _SpecTexts:
    """The spec texts (json.dumps of _spec) of the last few parameter sets the estimators fitted
    with, keyed by _DpadmmClassifier._spec_key, most recently used last: a repeated fit reuses
    the text, and the extension its parsed spec (bench/README, "Python calling overhead").
    Strings only (immutable); a lock keeps it consistent across threads."""

    ENTRIES = 8

    def __init__(self):
        self._texts: Dict[tuple, str] = {}
        self._lock = threading.Lock()

    def get(self, key) -> Optional[str]:
        with self._lock:
            text = self._texts.pop(key, None)
            if text is not None:
                self._texts[key] = text
            return text

    def put(self, key, text: str):
        with self._lock:
            self._texts[key] = text
            while len(self._texts) > self.ENTRIES:
                del self._texts[next(iter(self._texts))]

    def clear(self):
        with self._lock:
            self._texts.clear()


_SPEC_TEXTS = _SpecTexts()


def _plain_rows(X, y) -> bool:
    """True when X and y need nothing from scikit-learn's input checks but the finiteness of X:
    X a C-ordered float64 ndarray of at least one row and one column, y a 1-D integer, boolean
    or finite float64 ndarray of the same length. The rows' finiteness is checked once, by the
    library as it copies them (Dataset::Validate); a refusal there goes back through
    scikit-learn's checks for their message (_DpadmmClassifier._fit_spec). Anything else takes
    scikit-learn's checks and their messages."""
    if type(X) is not np.ndarray or type(y) is not np.ndarray:
        return False
    if X.ndim != 2 or X.dtype != np.float64 or not X.flags.c_contiguous or min(X.shape) < 1:
        return False
    if y.shape != (X.shape[0],) or y.dtype.kind not in "iub" and y.dtype != np.float64:
        return False
    return y.dtype.kind != "f" or bool(np.isfinite(y.sum()))


class _DpadmmClassifier(ClassifierMixin, BaseEstimator):
    """Shared fit/predict of the two estimators (subclasses build the spec)."""

    def _private_mode(self) -> bool:
        return self._uses_noise() and _noise_seed(self.noise) is None

    def _uses_noise(self) -> bool:
        """Whether the run draws noise (UsesPrivacyMechanism, read off the parameters: the
        tags are asked for at every input check, so this stays in Python)."""
        own = self.params or {}
        if self.algorithm == "pvp" and own.get("mechanism") == "gaussian":
            return self.epsilon is not None or own.get("noise_multiplier", 0.0) > 0
        if self.algorithm in ("dvp", "pvp", "madmm", "private_mradmm"):
            return self.epsilon is not None or own.get("alpha", 1.0) > 0 or any(
                a > 0 for a in own.get("node_alpha", []))
        if self.algorithm == "pdml":
            return any(own.get(k, 0) > 0 for k in ("label_eps", "R", "V")) or bool(
                own.get("label_eps_groups"))
        if self.algorithm == "sharing":
            return bool(own.get("dp", False))
        return self.algorithm in _BASELINES

    def _more_tags(self):
        return {"binary_only": True, "non_deterministic": self._private_mode(),
                "X_types": ["2darray", "sparse"]}

    def _spec_key(self, n_features: int, partition_file: Optional[str]):
        """The key of this fit's spec text in _SPEC_TEXTS: the class, the arguments of _spec
        and every parameter but the callback (_frozen), or None when the text is built afresh:
        a subclass (its _spec may read more), a random_state other than an int (None or a
        RandomState draws a seed per fit), a parameter of another type."""
        if type(self) not in _SPEC_PARAMS or type(self.random_state) is not int:
            return None
        values = _SPEC_PARAMS[type(self)](self)
        kinds = tuple(map(type, values))
        if _FLAT.issuperset(kinds):  # the usual case: the types, the values, the floats' reprs
            floats = tuple([repr(v) for v in values if type(v) is float]) if float in kinds else ()
            values = (kinds, values, floats)
        else:
            values = _frozen(values)
            if values is None:
                return None
        return type(self), n_features, partition_file, values

    def _spec_text(self, n_features: int, partition_file: Optional[str]) -> str:
        """json.dumps(self._spec(n_features, partition_file)), kept for the same parameters."""
        key = self._spec_key(n_features, partition_file)
        text = None if key is None else _SPEC_TEXTS.get(key)
        if text is None:
            text = json.dumps(self._spec(n_features, partition_file))
            if key is not None:
                _SPEC_TEXTS.put(key, text)
        return text

    def _fit_spec(self, X, y, text: str, labels):
        if labels is None:
            if not (isinstance(y, np.ndarray) and y.ndim == 1 and y.dtype.kind in "iub"):
                check_classification_targets(y)  # 1-D integer labels always pass it
            labels = encode_labels(y, "y")
        self.classes_, y_pm = labels
        try:
            out, outcome, rounds, model = run_core(text, type(self).__name__, X, y_pm, None,
                                                   None, self.callback, stacklevel=4)
        except _core.InputError:
            # Rows with NaN or Inf that took the short check: scikit-learn's message.
            self._validate_data(X, accept_sparse="csr", dtype=np.float64, order="C")
            raise
        state = self.__dict__
        if "_run_output" in state or not state.keys().isdisjoint(_LAZY):
            for name in _LAZY:
                state.pop(name, None)  # a previous fit's
            state.pop("_run_output", None)
        self.outcome_ = outcome
        # local learns no single model (the summary has none): model_ stays None.
        no_model = model is None and self.algorithm != "local"
        if outcome in _BAD_OUTCOMES or no_model:
            self.summary_ = json.loads(out.summary_json())
            raise RunError(f"{type(self).__name__}.fit: the run {outcome}: {out.message}",
                           self.summary_)
        self._run_output = out
        self.model_ = model
        self.n_iter_ = rounds
        return self

    def __getattr__(self, name):
        # Only called when `name` is not found: the lazy fitted attributes of _LAZY.
        out = self.__dict__.get("_run_output") if name in _LAZY else None
        if out is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        if name in ("coef_", "intercept_"):
            self.coef_, self.intercept_ = self._coefficients()
            return self.__dict__[name]
        if name == "summary_":
            value = json.loads(out.summary_json())
        elif name == "spec_":
            value = json.loads(out.spec_json())
        elif name == "history_":
            value = out.history()
        else:
            value = self._privacy(self.summary_)
        self.__dict__[name] = value
        return value

    def __getstate__(self):
        for name in _LAZY:
            if "_run_output" in self.__dict__:
                getattr(self, name)  # materialised, so that the pickle holds them
        state = dict(super().__getstate__())
        state.pop("_run_output", None)
        return state

    def _coefficients(self):
        """(coef_, intercept_) of model_ (None for local, which has no single model)."""
        if self.model_ is None:
            return None, None
        w = np.asarray(self.model_.weights, dtype=np.float64)
        prep = self.model_.preparation
        d = self.model_.features
        coef, intercept = w[:d], (w[d] if self.model_.intercept else 0.0)
        if prep["scaling"] in ("global-max-norm", "none") and not prep["clip"]:
            # Linear preparation: scores are (s w)^T [x, 1], so these are the raw-space ones.
            coef, intercept = coef * prep["row_scale"], intercept * prep["row_scale"]
        return coef.reshape(1, -1), np.array([intercept])

    @staticmethod
    def _privacy(summary: dict) -> Dict[str, Any]:
        final = summary.get("final", {}) or {}
        info = summary.get("info", {}) or {}
        tight = summary.get("tight_privacy") or {}
        node_paper = final.get("node_privacy")
        return {
            "noise_mode": summary.get("noise_mode"),
            "noise": summary.get("noise"),
            "guarantee": info.get("privacy_guarantee"),
            "claim": info.get("privacy_claim"),
            "paper_epsilon": final.get("privacy_loss", final.get("epsilon_total")),
            "node_paper_epsilon": None if node_paper is None else np.asarray(
                node_paper, dtype=np.float64),
            "tight_epsilon": tight.get("epsilon"),
            "tight_delta": tight.get("delta"),
            "node_tight_epsilon": None if tight.get("node_epsilon") is None else np.asarray(
                tight["node_epsilon"], dtype=np.float64),
        }

    def _check_X(self, X):
        check_is_fitted(self)
        if self.model_ is None:
            raise ValueError(f"algorithm {self.algorithm!r} learns one model per node and no "
                             "single model to predict with")
        return self._validate_data(X, reset=False, accept_sparse="csr", dtype=np.float64,
                                   order="C")

    def decision_function(self, X):
        """Scores w^T prepare(x) per row; positive means ``classes_[1]``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        scores : ndarray of shape (n_samples,)
        """
        X = self._check_X(X)
        return np.asarray(self.model_.decision_function(X))

    def predict(self, X):
        """Class labels of the rows of X (``classes_[1]`` where the score is >= 0).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        y : ndarray of shape (n_samples,)
        """
        scores = self.decision_function(X)
        return self.classes_[(scores >= 0).astype(np.intp)]

    def _has_proba(self):
        return getattr(self, "loss", "logistic") == "logistic"

    @available_if(_has_proba)
    def predict_proba(self, X):
        """Class probabilities (logistic loss only): column 1 is P(``classes_[1]`` | x).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        proba : ndarray of shape (n_samples, 2)
        """
        X = self._check_X(X)
        p = np.asarray(self.model_.predict_proba(X))
        return np.column_stack([1.0 - p, p])

    @available_if(_has_proba)
    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def _prepare_fit(self, X, y):
        """(X, y, labels): the checked rows and labels, and labels = (classes_, +-1 labels) when
        the extension checked a plain input and encoded its two integer or boolean labels in
        one call (_core.plain_two_labels), else None (_fit_spec encodes them)."""
        labels = _core.plain_two_labels(X, y)
        if labels is not None or _plain_rows(X, y):
            # What _validate_data does for these inputs, without its general machinery (about
            # a third of the Python time of a fit; bench/README, "Python calling overhead").
            self.n_features_in_ = X.shape[1]
            self.__dict__.pop("feature_names_in_", None)
            return X, y, labels
        X, y = self._validate_data(X, y, accept_sparse="csr", dtype=np.float64, order="C",
                                   y_numeric=False)
        if hasattr(X, "has_canonical_format") and not X.has_canonical_format:
            X = X.copy()
            X.sum_duplicates()
        return X, y, None

    def _common_spec(self, spec: Dict[str, Any]) -> Dict[str, Any]:
        spec.update(_threads(self.n_jobs))
        spec["seed"] = _seed(self.random_state)
        noise_seed = _noise_seed(self.noise)
        if noise_seed is not None:
            spec["noise_seed"] = noise_seed
        spec["compute_optimum"] = False
        if self.iterations is not None:
            spec["iterations"] = self.iterations
        if self.epsilon is not None:
            spec["target_epsilon"] = float(self.epsilon)
            # The epsilon policy chooses the rounds, C, rho and eta (pvp's mechanism, pdml's R
            # and decay) from the target; settings given explicitly are kept instead (the
            # policy is then off: only the noise knob is calibrated).
            explicit = [n for n in ("iterations", "C", "rho", "eta")
                        if getattr(self, n, None) is not None]
            explicit += [k for k in ("mechanism", "noise_multiplier", "R", "decay")
                         if k in (self.params or {})]
            if explicit:
                spec["epsilon_policy"] = False
        data = spec.setdefault("data", {})
        data["add_bias"] = bool(self.fit_intercept)
        data["scaling"] = self.scaling
        if self.feature_range is not None:
            data["feature_range"] = [float(v) for v in self.feature_range]
        params = dict(self.params or {})
        if params:
            spec["algorithm"].setdefault(self.algorithm, {}).update(params)
        return spec


_COMMON_DOC = """
    epsilon : float, default=None
        Target total privacy loss per node: the noise knob of a private algorithm (dvp, pvp,
        madmm, private_mradmm, pdml; sharing with ``params={"dp": True}``) is calibrated so
        that the tight epsilon at delta = 1e-5 (max over nodes) is this; the baselines
        (local, average, central) take it as their mechanism's epsilon. For dvp, pvp, madmm,
        private_mradmm and pdml the epsilon policy first chooses the rounds, C, rho, eta (dvp,
        madmm and private_mradmm one private round, then rounds that average the releases at
        no cost; pvp the Gaussian mechanism; pdml decay 1 and no objective noise) from the
        target and public quantities, unless ``iterations``, ``C``, ``rho``, ``eta`` or one of
        ``params`` ``mechanism``, ``noise_multiplier``, ``R``, ``decay`` is given (then those
        settings are kept and only the noise is calibrated). None: the algorithm's defaults (docs/privacy/figures.md). Raises
        :class:`dpadmm.PrivacyBudgetError` when no noise level reaches it.
    iterations : int, default=None
        Rounds (sharing: iterations; sgd: epochs). None: the algorithm's default (100).
    fit_intercept : bool, default=True
        Append a constant feature 1 to every row (its weight is ``intercept_``; regularised like
        the others).
    scaling : str, default="auto"
        Row preparation: "auto" (non-private runs and simulations: "standardize" when X
        holds a value outside [-1, 1], else global-max-norm; clip-only in private mode),
        "global-max-norm", "standardize" (each feature centred and scaled by the training
        rows' mean and standard deviation, rows divided by sqrt(d) and clipped to norm 1;
        non-private runs and simulations, dense X), "dp-standardize" (ConsensusClassifier: the
        same with a DP estimate of the statistics, spending ``standardize_epsilon`` of each
        node's budget; needs ``feature_range``), "public-bounds" (with ``feature_range``),
        "clip-only", "none".
    feature_range : (float, float), default=None
        Public bounds [lo, hi] of every feature (public-bounds scaling).
    params : dict, default=None
        The algorithm's own parameters, as in the JSON spec's ``algorithm.<name>`` object,
        e.g. ``{"alpha": 0.5}`` for dvp.
    noise : "private" or int, default="private"
        "private": each node's noise key comes from the operating system and is never stored
        (runs are not reproducible). An integer is a noise seed: simulation mode, reproducible
        bit for bit and NOT private (a :class:`dpadmm.SimulationWarning` says so). Without a
        privacy mechanism there is no noise and this has no effect.
    random_state : int, RandomState instance or None, default=None
        Fixes the data split, the graph, the partition and the random start; never the noise.
        An int is the ``dpadmm`` command's ``--seed``.
    n_jobs : int, default=None
        None or 1: one thread (serial engine); -1: all cores; k: k threads (TBB engine). The
        result is the same bits whatever the value.
    callback : callable, default=None
        Called once per reported round with a dict of the round's metrics; return False to
        stop the run.
"""

_FITTED_DOC = """
    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The two labels; ``classes_[1]`` is the positive class (+1 inside the library).
    coef_ : ndarray of shape (1, n_features)
        Weights. With a linear row preparation (global-max-norm, none) they apply to raw rows:
        ``decision_function(X) == X @ coef_.T + intercept_`` up to rounding. With clipping
        (private mode, public-bounds) they apply to prepared rows (``model_.preparation``).
    intercept_ : ndarray of shape (1,)
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Defined only when X has feature names that are all strings.
    model_ : dpadmm.Model
        The learned classifier with its row preparation (``model_.save(path)`` writes the
        ``dpadmm`` command's model file).
    privacy_ : dict
        ``paper_epsilon`` (the paper's figure, max over nodes) and ``node_paper_epsilon``;
        ``tight_epsilon`` and ``node_tight_epsilon`` at ``tight_delta`` (1e-5); ``noise_mode``
        ("private", "simulation" or "none"), ``guarantee`` and ``claim`` in words.
    history_ : dict of ndarray
        The per-round trace (``dpadmm run --trace``): one array per column. ``history_``,
        ``privacy_``, ``summary_``, ``spec_``, ``coef_`` and ``intercept_`` are built from the
        run's output on first access and kept (a pickled estimator holds them built).
    outcome_ : str
        How the run ended: "completed", "converged", "cancelled" or "budget exhausted" (a
        diverged or failed run raises :class:`dpadmm.RunError`).
    n_iter_ : int
        The last reported round.
    summary_ : dict
        The run's summary (``dpadmm run --summary``).
    spec_ : dict
        The effective spec as run (calibrated knob set): ``dpadmm.run(spec_, X, y)`` repeats it.
"""


class ConsensusClassifier(_DpadmmClassifier):
    __doc__ = """Differentially private consensus learning: parties hold rows, ADMM over a graph.

    The training rows are split over ``nodes`` parties (``node`` in :meth:`fit`, else the
    ``partition``); the parties learn one linear classifier by decentralized ADMM, exchanging
    only their (noisy, for the private algorithms) models with their neighbours in the graph.

    Parameters
    ----------
    algorithm : str, default="dvp"
        "admm" (non-private), "dvp" (dual variable perturbation), "pvp" (primal variable
        perturbation), "madmm" (penalty perturbation), "radmm", "mradmm" (non-private),
        "private_mradmm", "pdml" (label privacy by randomized response); the baselines at the
        same epsilon: "local" (every node alone, one release; it learns no single model, so
        ``model_`` is None and predicting raises), "average" (local's releases averaged by
        gossip), "central" (one curator holding every row: needs a curator every party
        trusts).
    nodes : int, default=10
        Number of parties.
    topology : str, default="random"
        "random" (connected, ``edges`` edges), "ring", "star", "complete", "grid".
    edges : int, default=None
        Edges of the random graph; None: about 1.3 per node.
    partition : str, default="even"
        How rows are split when ``node`` is not given: "even" or "dirichlet".
    loss : str, default="logistic"
        "logistic" or "smooth_hinge".
    C, rho, eta : float, default=None
        Loss weight, regulariser and ADMM penalty (the papers' symbols); None: the
        algorithm's defaults (C 1750, rho 0.22, eta per algorithm).
    tol : float, default=0.0
        Stop ("converged") once the mean model moves by less than ``tol`` relatively and the
        nodes agree within it; 0 = run every round.
    privacy_budget : float, default=None
        Per-node budget on the paper's figure: a node that would exceed it freezes.
    standardize_epsilon : float, default=None
        With ``scaling="dp-standardize"``: the epsilon each node spends on its noisy
        per-feature sums (pure DP, in its privacy figures and paid from its budget).
""" + _COMMON_DOC + _FITTED_DOC + """
    Examples
    --------
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from dpadmm import ConsensusClassifier
    >>> clf = make_pipeline(StandardScaler(), ConsensusClassifier(algorithm="admm"))
    >>> clf.fit(X_train, y_train).score(X_test, y_test)
    """

    def __init__(self, algorithm: str = "dvp", nodes: int = 10, topology: str = "random",
                 edges: Optional[int] = None, partition: str = "even", loss: str = "logistic",
                 C: Optional[float] = None, rho: Optional[float] = None,
                 eta: Optional[float] = None, tol: float = 0.0,
                 privacy_budget: Optional[float] = None, epsilon: Optional[float] = None,
                 iterations: Optional[int] = None, fit_intercept: bool = True,
                 scaling: str = "auto", feature_range: Optional[Sequence[float]] = None,
                 params: Optional[Dict[str, Any]] = None, noise: Union[str, int] = "private",
                 random_state=None, n_jobs: Optional[int] = None,
                 callback: Optional[Callable[[dict], Any]] = None,
                 standardize_epsilon: Optional[float] = None):
        self.algorithm = algorithm
        self.nodes = nodes
        self.topology = topology
        self.edges = edges
        self.partition = partition
        self.loss = loss
        self.C = C
        self.rho = rho
        self.eta = eta
        self.tol = tol
        self.privacy_budget = privacy_budget
        self.epsilon = epsilon
        self.iterations = iterations
        self.fit_intercept = fit_intercept
        self.scaling = scaling
        self.feature_range = feature_range
        self.params = params
        self.noise = noise
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.callback = callback
        self.standardize_epsilon = standardize_epsilon

    def _spec(self, n_features: int, partition_file: Optional[str]) -> Dict[str, Any]:
        if self.algorithm not in _CONSENSUS:
            raise ValueError(f"algorithm must be one of {', '.join(_CONSENSUS)} (SharingClassifier "
                             f"runs {', '.join(_SHARING)}), got {self.algorithm!r}")
        algorithm: Dict[str, Any] = {"name": self.algorithm}
        for name in ("C", "rho", "eta"):
            if getattr(self, name) is not None:
                algorithm[name] = float(getattr(self, name))
        if self.privacy_budget is not None:
            algorithm["privacy_budget"] = float(self.privacy_budget)
        graph: Dict[str, Any] = {"topology": self.topology, "nodes": int(self.nodes)}
        if self.edges is not None:
            graph["edges"] = int(self.edges)
        partition = ({"kind": "file", "file": partition_file}
                     if partition_file is not None else {"kind": self.partition})
        spec = {"algorithm": algorithm, "graph": graph, "partition": partition,
                "loss": {"kind": self.loss}, "tolerance": float(self.tol)}
        spec = self._common_spec(spec)
        if self.standardize_epsilon is not None:
            spec["data"]["standardize_epsilon"] = float(self.standardize_epsilon)
        return spec

    def fit(self, X, y, node=None):
        """Fits the model: one dpadmm run on (X, y) split over the nodes.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training rows: a C-contiguous float64 array or a CSR matrix is read as is
            (copied once into the library); anything else is converted once.
        y : array-like of shape (n_samples,)
            Two labels of any type.
        node : array-like of int of shape (n_samples,), default=None
            The party (0 .. nodes - 1) holding each row; None: the ``partition`` option.

        Returns
        -------
        self : ConsensusClassifier
        """
        X, y, labels = self._prepare_fit(X, y)
        if node is None:
            return self._fit_spec(X, y, self._spec_text(X.shape[1], None), labels)
        node = np.asarray(node)
        if node.shape != (X.shape[0],) or not np.issubdtype(node.dtype, np.integer):
            raise ValueError(f"node must be an integer array of shape ({X.shape[0]},), got "
                             f"{node.dtype} of shape {node.shape}")
        if node.size and (node.min() < 0 or node.max() >= self.nodes):
            raise ValueError(f"node values must be in [0, {self.nodes}), got "
                             f"[{node.min()}, {node.max()}]")
        with tempfile.TemporaryDirectory(prefix="dpadmm-") as folder:
            path = os.path.join(folder, "partition.txt")
            np.savetxt(path, node, fmt="%d")
            return self._fit_spec(X, y, self._spec_text(X.shape[1], path), labels)


class SharingClassifier(_DpadmmClassifier):
    __doc__ = """Learning over vertically split features: ADMM sharing (paper 001) or SGD.

    Each party holds a block of the feature columns of every row and a coordinator holds the
    labels; with ``params={"dp": True}`` every party's released share is perturbed (Gaussian
    mechanism, calibrated to ``epsilon`` or ``params["total_epsilon"]``).

    Parameters
    ----------
    algorithm : str, default="sharing"
        "sharing" (ADMM sharing, 001 Algorithm 1; private with ``params={"dp": True}``) or
        "sgd" (001's SGD baseline).
    parties : int, default=2
        Number of feature blocks when ``feature_blocks`` is None (an even split).
    feature_blocks : sequence, default=None
        The parties' columns: a list of block sizes in column order (``[10, 20]``), or a list
        of column-index lists (``[[0, 3], [1, 2, 4]]``; every column exactly once). With
        ``fit_intercept`` the intercept column joins the last party.
""" + _COMMON_DOC + _FITTED_DOC

    def __init__(self, algorithm: str = "sharing", parties: int = 2,
                 feature_blocks: Optional[Sequence] = None, epsilon: Optional[float] = None,
                 iterations: Optional[int] = None, fit_intercept: bool = True,
                 scaling: str = "auto", feature_range: Optional[Sequence[float]] = None,
                 params: Optional[Dict[str, Any]] = None, noise: Union[str, int] = "private",
                 random_state=None, n_jobs: Optional[int] = None,
                 callback: Optional[Callable[[dict], Any]] = None):
        self.algorithm = algorithm
        self.parties = parties
        self.feature_blocks = feature_blocks
        self.epsilon = epsilon
        self.iterations = iterations
        self.fit_intercept = fit_intercept
        self.scaling = scaling
        self.feature_range = feature_range
        self.params = params
        self.noise = noise
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.callback = callback

    def _blocks(self, n_features: int):
        """(column order or None, block sizes or None)."""
        blocks = self.feature_blocks
        if blocks is None:
            return None, None
        blocks = list(blocks)
        if all(isinstance(b, numbers.Integral) for b in blocks):
            sizes = [int(b) for b in blocks]
            if sum(sizes) != n_features or min(sizes) < 1:
                raise ValueError(f"feature_blocks sizes must be >= 1 and sum to n_features = "
                                 f"{n_features}, got {sizes}")
            return None, sizes
        columns = [np.asarray(b, dtype=np.int64).ravel() for b in blocks]
        order = np.concatenate(columns) if columns else np.array([], dtype=np.int64)
        if sorted(order.tolist()) != list(range(n_features)) or min(len(c) for c in columns) < 1:
            raise ValueError(f"feature_blocks must list every column 0 .. {n_features - 1} "
                             "exactly once, each block non-empty")
        return order, [len(c) for c in columns]

    def _spec(self, n_features: int, _unused) -> Dict[str, Any]:
        if self.algorithm not in _SHARING:
            raise ValueError(f"algorithm must be one of {', '.join(_SHARING)} "
                             f"(ConsensusClassifier runs the others), got {self.algorithm!r}")
        own: Dict[str, Any] = {}
        _, sizes = self._blocks(n_features)
        if sizes is not None:
            if self.fit_intercept:
                sizes = sizes[:-1] + [sizes[-1] + 1]
            own["parties"] = len(sizes)
            own["party_features"] = sizes
        else:
            own["parties"] = int(self.parties)
        spec = {"algorithm": {"name": self.algorithm, self.algorithm: own}}
        return self._common_spec(spec)

    def fit(self, X, y):
        """Fits the model: one dpadmm sharing run with the features split over the parties.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Two labels of any type (the coordinator's).

        Returns
        -------
        self : SharingClassifier
        """
        X, y, labels = self._prepare_fit(X, y)
        order, _ = self._blocks(X.shape[1])
        self.column_order_ = order
        if order is not None:
            X = X[:, order]
        return self._fit_spec(X, y, self._spec_text(X.shape[1], None), labels)

    def _coefficients(self):
        coef, intercept = super()._coefficients()
        if coef is not None and self.column_order_ is not None:
            ordered = np.empty_like(coef)
            ordered[:, self.column_order_] = coef
            coef = ordered
        return coef, intercept

    def _check_X(self, X):
        X = super()._check_X(X)
        if self.column_order_ is not None:
            X = X[:, self.column_order_]
        return X


# The parameters a spec is built from (every one but the callback), read in one call per fit.
_SPEC_PARAMS = {cls: operator.attrgetter(*(name for name in cls._get_param_names()
                                           if name != "callback"))
                for cls in (ConsensusClassifier, SharingClassifier)}
