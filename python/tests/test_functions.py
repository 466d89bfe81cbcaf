# SPDX-License-Identifier: Apache-2.0
"""dpadmm.run without data, the accountant and calibration, sweep and audit."""
import warnings

import numpy as np
import pytest

import dpadmm
from dpadmm import privacy


def test_run_from_the_spec_alone_matches_the_defaults():
    spec = {"algorithm": {"name": "admm"}, "iterations": 5, "graph": {"nodes": 4},
            "data": {"rows": 500}}
    result = dpadmm.run(spec)
    assert result.summary["outcome"] == "completed"
    assert result.summary["info"]["nodes"] == 4
    assert result.spec["iterations"] == 5 and result.spec["schema"] == 2
    assert len(result.history["round"]) == 6
    assert dpadmm.default_spec("dvp")["algorithm"]["name"] == "dvp"


def test_tight_epsilon_is_the_exact_composition():
    # One pure release: at most its epsilon (a delta > 0 buys a little); k equal ones: below
    # the plain sum and above one term.
    assert 0.49 < privacy.tight_epsilon([0.5], 1e-5) <= 0.5
    tight = privacy.tight_epsilon([0.15] * 100, 1e-5)
    assert 0.15 < tight < privacy.basic_epsilon([0.15] * 100) == pytest.approx(15.0)
    # The README's figure for DVP's defaults: 0.15 x 100 rounds gives 6.88.
    assert tight == pytest.approx(6.88, abs=0.01)
    # Gaussian releases compose analytically: k releases of sigma = one of sigma / sqrt(k).
    k, sigma = 16, 4.0
    composed = privacy.tight_epsilon([{"kind": "gaussian", "sensitivity": 1.0,
                                       "scale": sigma}] * k, 1e-5)
    assert composed == pytest.approx(
        privacy.analytic_gaussian_epsilon(1.0, sigma / np.sqrt(k), 1e-5), rel=1e-6)
    with pytest.raises(dpadmm.InputError, match="kind"):
        privacy.tight_epsilon([{"kind": "cauchy"}], 1e-5)


def test_calibration_reaches_the_target_and_the_run_reports_it():
    spec = {"algorithm": {"name": "dvp"}, "iterations": 20, "graph": {"nodes": 4},
            "data": {"rows": 800}, "noise_seed": 1}
    c = privacy.calibrate(spec, target_epsilon=2.0)
    assert c["knob"] == "algorithm.dvp.alpha"
    assert 2.0 * (1 - 1e-4) <= c["epsilon"] <= 2.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # The knob alone, as calibrate sets it (the epsilon policy would change the settings).
        result = dpadmm.run(dict(spec, target_epsilon=2.0, epsilon_policy=False))
    assert result.summary["tight_privacy"]["epsilon"] == pytest.approx(c["epsilon"], rel=1e-12)
    with pytest.raises(dpadmm.PrivacyBudgetError):
        privacy.calibrate(dict(spec, algorithm={"name": "madmm"}), target_epsilon=1e-6)


def test_sweep_returns_arrays():
    spec = {"iterations": 10, "graph": {"nodes": 4}, "data": {"rows": 600}}
    with pytest.warns(dpadmm.SimulationWarning):
        out = dpadmm.sweep(spec, ["dvp"], [1.0, 10.0], seeds=2)
    assert list(out["algorithm"]) == ["dvp", "dvp"]
    assert out["accuracy"].shape == (2, 2)
    assert np.all((out["accuracy"] >= 0) & (out["accuracy"] <= 1))
    assert out["achieved_epsilon"].max() <= 10.0
    assert out["csv"].startswith("# simulation")
    assert "\nalgorithm,epsilon," in out["csv"]


def test_audit_lower_bound_below_claim():
    with pytest.warns(dpadmm.SimulationWarning):
        out = dpadmm.audit("dvp", runs_per_side=400, noise_seed=3, threads=1)
    assert out["runs_per_side"] == 400
    assert 0 <= out["epsilon_lower_bound"] <= out["claim"]
    assert out["passed"]
