# SPDX-License-Identifier: Apache-2.0
"""The accountant and the calibration, callable on their own (no training run).

>>> from dpadmm import privacy
>>> privacy.tight_epsilon([0.15] * 100, delta=1e-5)     # 100 pure-epsilon rounds, tight
>>> privacy.tight_epsilon([{"kind": "gaussian", "sensitivity": 1, "scale": 4}] * 50, 1e-5)
>>> privacy.calibrate({"algorithm": {"name": "dvp"}}, target_epsilon=1.0)["value"]  # alpha
"""
from typing import Any, Dict, Iterable, Optional, Union

from . import _core
from ._run import SpecLike, _spec_text, check_rows, encode_labels

TIGHT_DELTA: float = _core.TIGHT_DELTA
"""The delta at which every private consensus run reports its tight (epsilon, delta)."""

Mechanism = Union[float, Dict[str, Any]]


def tight_epsilon(mechanisms: Iterable[Mechanism], delta: float = TIGHT_DELTA) -> float:
    """The smallest epsilon for which the composition of ``mechanisms`` is (epsilon, delta)-DP.

    Each mechanism is a number (a pure epsilon-DP release) or a dict ``{"kind": "gaussian" |
    "laplace" | "pure" | "discrete_gaussian", "sensitivity": D, "scale": sigma_or_b,
    "epsilon": e}``. Pure terms only: the optimal composition (Kairouz, Oh and Viswanath 2015,
    Thm 3.3; the PLD accountant for unequal terms); with Gaussian releases the per-node
    accountant (analytic Gaussian composition). This is the figure runs report as
    ``tight_privacy``.
    """
    return _core.tight_epsilon(list(mechanisms), float(delta))


def basic_epsilon(epsilons: Iterable[float]) -> float:
    """The plain sum of pure-epsilon terms (basic composition; the papers' figures)."""
    return _core.compose_basic([float(e) for e in epsilons])


def analytic_gaussian_epsilon(sensitivity: float, sigma: float, delta: float) -> float:
    """Epsilon of the Gaussian mechanism at ``delta`` (Balle and Wang 2018, exact)."""
    return _core.analytic_gaussian_epsilon(sensitivity, sigma, delta)


def analytic_gaussian_delta(sensitivity: float, sigma: float, epsilon: float) -> float:
    """Delta of the Gaussian mechanism at ``epsilon`` (Balle and Wang 2018, exact)."""
    return _core.analytic_gaussian_delta(sensitivity, sigma, epsilon)


def can_calibrate(algorithm: str) -> bool:
    """Whether :func:`calibrate` supports ``algorithm`` (dvp, pvp, madmm, private_mradmm, pdml,
    sharing with the gaussian mechanism, and the baselines local, average, central, whose
    knob is their epsilon)."""
    return _core.can_calibrate(algorithm)


def calibrate(spec: SpecLike, target_epsilon: float, delta: float = TIGHT_DELTA, X=None,
              y=None) -> Dict[str, Any]:
    """Sets the spec's noise knob so that the run's tight total epsilon per node (max over
    nodes) at ``delta`` is ``target_epsilon`` (within 1e-4 below), without a training run.

    The graph and partition of the spec (and of ``X`` when given: only its row count and the
    partition matter) fix each node's B_i and V_i. Returns ``knob`` ("algorithm.dvp.alpha"),
    ``value``, ``epsilon`` (achieved), ``delta``, ``evaluations`` and ``spec_json`` (the spec
    with the knob set). Raises :class:`dpadmm.PrivacyBudgetError` when the target is below
    what the mechanism spends at any noise level.
    """
    text, where = _spec_text(spec)
    if X is not None:
        X = check_rows(X, "X")
        _, y = encode_labels(y, "y")
    return _core.calibrate(text, where, float(target_epsilon), float(delta), X, y)


__all__ = ["TIGHT_DELTA", "tight_epsilon", "basic_epsilon", "analytic_gaussian_epsilon",
           "analytic_gaussian_delta", "can_calibrate", "calibrate"]
