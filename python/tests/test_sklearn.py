# SPDX-License-Identifier: Apache-2.0
"""scikit-learn's estimator checks, pipelines, grid search and clone.

Non-private algorithms pass every check. Private algorithms in private mode (fresh noise keys
per fit) run every check except those that compare two fits of the same data and so need
bit-equal refits (NEEDS_EQUAL_REFITS, listed with the reason in python/README.md); the same
private estimators in simulation mode (a noise seed) then pass those too."""
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import check_estimator, parametrize_with_checks

import dpadmm
from conftest import two_gaussians

ITER = 30

NON_PRIVATE = [
    dpadmm.ConsensusClassifier(algorithm="admm", iterations=ITER),
    dpadmm.ConsensusClassifier(algorithm="radmm", iterations=ITER),
    dpadmm.ConsensusClassifier(algorithm="mradmm", iterations=ITER),
    dpadmm.ConsensusClassifier(algorithm="admm", loss="smooth_hinge", iterations=ITER),
    dpadmm.SharingClassifier(algorithm="sharing", iterations=ITER),
    dpadmm.SharingClassifier(algorithm="sgd", iterations=ITER),
]


def private_estimators(noise):
    """The private algorithms with a total epsilon large enough for the checks' accuracy and
    both-classes-predicted thresholds on their 10-300-row data sets (2 nodes). Measured at these
    settings: check_classifiers_classes failed 0 of 40 times for dvp and pvp (26 and 5 of 40 at
    epsilon 30), check_classifiers_classes + check_classifiers_train 0 of 12-15 times for the
    others (M-ADMM at C = 1750: 2 of 12; DP sharing at epsilon 30: 1 of 12). M-ADMM and private MR-ADMM compose unequal
    per-round terms through the PLD accountant, whose cost grows with epsilon and the rounds:
    they run 10 rounds at epsilon 10 (M-ADMM with C = 175, whose per-round cost is C-bound)."""
    common = dict(nodes=2, topology="complete", noise=noise)
    return [
        dpadmm.ConsensusClassifier(algorithm="dvp", epsilon=300.0, iterations=ITER, **common),
        dpadmm.ConsensusClassifier(algorithm="pvp", epsilon=300.0, iterations=ITER, **common),
        dpadmm.ConsensusClassifier(algorithm="madmm", C=175.0, epsilon=10.0, iterations=10,
                                   **common),
        dpadmm.ConsensusClassifier(algorithm="private_mradmm", epsilon=10.0, iterations=10,
                                   **common),
        dpadmm.ConsensusClassifier(algorithm="pdml", params={"label_eps": 8.0}, iterations=ITER,
                                   **common),
        dpadmm.SharingClassifier(algorithm="sharing", params={"dp": True}, epsilon=300.0,
                                 iterations=ITER, noise=noise),
    ]


# Checks that fit twice on the same data and compare the two models' outputs: with fresh noise
# keys per fit (private mode) the two models differ by construction.
NEEDS_EQUAL_REFITS = {
    "check_fit_idempotent": "refits on the same data and compares predictions",
    "check_supervised_y_2d": "compares fits with y as a column and as a vector",
    "check_pipeline_consistency": "compares a fit inside a pipeline with a plain fit",
    "check_classifier_data_not_an_array": "compares fits on arrays and on array-likes",
    "check_estimators_data_not_an_array": "compares fits on arrays and on array-likes",
}
# Already skipped by scikit-learn for estimators tagged non_deterministic:
# check_methods_subset_invariance, check_methods_sample_order_invariance.


@parametrize_with_checks(NON_PRIVATE)
def test_non_private_estimators_pass_every_check(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpadmm.RunWarning)
        check(estimator)


def _checks(estimators):
    out = []
    for est in estimators:
        for e, check in check_estimator(est, generate_only=True):
            name = getattr(check, "func", check).__name__
            out.append(pytest.param(e, check, name, id=f"{e!r}-{name}"[:160]))
    return out


# Checks with an accuracy threshold: in private mode each fit draws fresh noise, so a check
# fails with some probability p however the settings are chosen. p was measured at up to 1 in
# 12 attempts per check at the settings above (and one failure of DP sharing's
# check_classifiers_classes was seen in a CI run); each such check gets ACCURACY_ATTEMPTS
# independent attempts and fails only if all do, a false-failure rate of at most
# 0.1^5 = 1e-5 per check for p <= 0.1 (a broken estimator fails every attempt).
ACCURACY_CHECKS = {"check_classifiers_classes", "check_classifiers_train"}
ACCURACY_ATTEMPTS = 5


@pytest.mark.parametrize("estimator,check,name", _checks(private_estimators("private")))
def test_private_estimators_pass_every_check_not_needing_equal_refits(estimator, check, name):
    if name in NEEDS_EQUAL_REFITS:
        pytest.skip(f"{name}: {NEEDS_EQUAL_REFITS[name]} (private noise differs per fit)")
    attempts = ACCURACY_ATTEMPTS if name in ACCURACY_CHECKS else 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpadmm.RunWarning)
        for attempt in range(attempts):
            try:
                check(estimator)
                break
            except AssertionError:
                if attempt == attempts - 1:
                    raise


@pytest.mark.parametrize("estimator,check,name",
                         [p for p in _checks(private_estimators(7))
                          if p.values[2] in NEEDS_EQUAL_REFITS])
def test_private_estimators_in_simulation_pass_the_refit_checks(estimator, check, name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(estimator)


def test_pipeline_grid_search_and_clone():
    X, y = two_gaussians(300, 4, seed=2)
    pipe = make_pipeline(StandardScaler(), dpadmm.ConsensusClassifier(algorithm="admm",
                                                                       iterations=20))
    search = GridSearchCV(pipe, {"consensusclassifier__rho": [0.05, 0.22],
                                 "consensusclassifier__nodes": [4, 8]}, cv=3)
    search.fit(X, y)
    assert search.best_score_ > 0.8
    twin = clone(pipe)
    assert twin.get_params()["consensusclassifier__algorithm"] == "admm"
    assert "coef_" not in vars(twin.steps[-1][1])


def test_grid_search_with_cached_specs_scores_as_fresh_fits():
    """GridSearchCV with a fixed random_state repeats each candidate's spec text over the folds
    (the extension reuses its parse): the scores equal fits each parsed afresh, and clone
    keeps nothing of a fit."""
    from sklearn.model_selection import KFold
    X, y = two_gaussians(240, 4, seed=5)
    est = dpadmm.ConsensusClassifier(algorithm="admm", iterations=15, random_state=3)
    grid = {"rho": [0.05, 0.5], "nodes": [3, 6]}
    folds = KFold(3, shuffle=True, random_state=0)
    dpadmm._core.clear_spec_cache()
    search = GridSearchCV(est, grid, cv=folds).fit(X, y)
    assert dpadmm._core.spec_cache_stats()[0] > 0  # folds of a candidate reused its spec
    for params, score in zip(search.cv_results_["params"], search.cv_results_["mean_test_score"]):
        fresh = []
        for train, test in folds.split(X, y):
            dpadmm._core.clear_spec_cache()
            model = clone(est).set_params(**params).fit(X[train], y[train])
            fresh.append(model.score(X[test], y[test]))
        assert np.mean(fresh) == score
    assert search.best_estimator_.get_params()["rho"] == search.best_params_["rho"]
    assert "coef_" not in vars(clone(search.best_estimator_))


def test_consensus_classifier_runs_the_three_baselines():
    """local, average and central are consensus algorithms of the estimator: each fits at its
    epsilon (the estimator's epsilon is the mechanism's), average and central predict with
    their model, local has none (one model per node) and says so."""
    X, y = two_gaussians(300, 3, seed=2)
    for name in ("local", "average", "central"):
        est = dpadmm.ConsensusClassifier(algorithm=name, nodes=3, C=20.0, rho=1.0, epsilon=0.5,
                                         iterations=4, noise=7, random_state=1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # simulation mode's warning
            est.fit(X, y)
        assert est.outcome_ == "completed"
        assert est.spec_["algorithm"][name]["epsilon"] == 0.5
        assert 0.5 - 1e-4 <= est.privacy_["tight_epsilon"] <= 0.5
        if name == "local":
            assert est.model_ is None and est.coef_ is None
            with pytest.raises(ValueError, match="one model per node"):
                est.predict(X)
        else:
            assert est.predict(X).shape == (300,)
            assert est.coef_.shape == (1, 3)
    assert est.summary_["info"]["trusted_curator"] is True
