# SPDX-License-Identifier: Apache-2.0
"""The same seeded spec gives the same bits through the dpadmm command, dpadmm.run (from the
spec's files and from arrays in memory) and the estimators, for every algorithm."""
import warnings

import numpy as np
import pytest

import dpadmm
from conftest import cell_value, read_trace, run_cli, same_bits, two_gaussians, write_csv

# Each algorithm with its noise on where it has one (simulation mode: noise_seed).
OWN_PARAMS = {
    "admm": {}, "dvp": {}, "pvp": {}, "madmm": {}, "radmm": {}, "mradmm": {},
    "private_mradmm": {}, "pdml": {"label_eps": 1.0}, "sharing": {"dp": True}, "sgd": {},
    "average": {}, "central": {},  # (local has no single model to compare)
}
SHARING = ("sharing", "sgd")
ITERATIONS = 15


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bits")
    X, y = two_gaussians(300, 6, seed=11)
    X_test, y_test = two_gaussians(100, 6, seed=12)
    write_csv(folder / "train.csv", X, y)
    write_csv(folder / "test.csv", X_test, y_test)
    return folder, X, y, X_test, y_test


def spec_for(algorithm):
    spec = {"algorithm": {"name": algorithm}, "iterations": ITERATIONS, "seed": 3,
            "noise_seed": 5}
    if OWN_PARAMS[algorithm]:
        spec["algorithm"][algorithm] = dict(OWN_PARAMS[algorithm])
    if algorithm not in SHARING:
        spec["graph"] = {"nodes": 4}
    return spec


def assert_same_trace(cli_trace, history):
    assert cli_trace.keys() - {"seconds"} == history.keys() - {"seconds"}
    for name, cells in cli_trace.items():
        if name == "seconds":
            continue
        if name in ("node_privacy", "node_noise"):
            cli_values = [[cell_value(v) for v in c.split(";")] if c else [] for c in cells]
        else:
            cli_values = [cell_value(c) for c in cells]
        assert same_bits(cli_values, history[name]), name


def assert_same_summary(cli_summary, summary):
    for key in ("outcome", "rounds", "model", "noise_mode", "tight_privacy"):
        assert cli_summary.get(key) == summary.get(key), key
    drop = {"seconds"}
    assert ({k: v for k, v in cli_summary["final"].items() if k not in drop} ==
            {k: v for k, v in summary["final"].items() if k not in drop})


@pytest.mark.parametrize("algorithm", sorted(OWN_PARAMS))
def test_run_matches_cli(cli, data, algorithm):
    folder, X, y, X_test, y_test = data
    spec = spec_for(algorithm)
    file_spec = dict(spec, data={"source": "csv", "train_path": str(folder / "train.csv"),
                                 "test_path": str(folder / "test.csv")})
    trace, summary, model = run_cli(cli, file_spec, folder, algorithm)
    assert summary["noise_mode"] in ("simulation", "none")

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # simulation-mode warnings, tested elsewhere
        from_files = dpadmm.run(file_spec)
        in_memory = dpadmm.run(spec, X, y, X_test, y_test)
    for result in (from_files, in_memory):
        assert_same_trace(trace, result.history)
        assert_same_summary(summary, result.summary)
        assert same_bits(model["weights"], result.model.weights)
        assert result.model.preparation == dpadmm.Model.load(
            str(folder / f"{algorithm}-model.json")).preparation
    # The model file embeds the spec it was trained with: the same text from the same spec.
    assert from_files.model.to_json() == dpadmm.Model.load(
        str(folder / f"{algorithm}-model.json")).to_json()


@pytest.mark.parametrize("algorithm", sorted(OWN_PARAMS))
def test_estimator_matches_cli(cli, data, algorithm):
    folder, X, y, _, _ = data
    labels = np.where(y > 0, "yes", "no")  # any two labels: "yes" (the larger) is +1
    common = dict(iterations=ITERATIONS, random_state=3, noise=5,
                  params=OWN_PARAMS[algorithm] or None)
    if algorithm in SHARING:
        est = dpadmm.SharingClassifier(algorithm=algorithm, **common)
    else:
        est = dpadmm.ConsensusClassifier(algorithm=algorithm, nodes=4, **common)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, labels)
    assert list(est.classes_) == ["no", "yes"]
    # The spec the estimator ran, on the same rows from a file (test set = the training rows,
    # so that the global-max-norm factor, max over train and test, is the same).
    spec = dict(est.spec_)
    spec["data"] = dict(spec["data"], source="csv", train_path=str(folder / "train.csv"),
                        test_path=str(folder / "train.csv"))
    trace, summary, model = run_cli(cli, spec, folder, f"est-{algorithm}")
    assert same_bits(model["weights"], est.model_.weights)
    assert same_bits([cell_value(v) for v in trace["train_loss"]], est.history_["train_loss"])
    assert summary["outcome"] == est.outcome_
    loaded = dpadmm.Model.load(str(folder / f"est-{algorithm}-model.json"))
    assert same_bits(loaded.decision_function(X), est.decision_function(X))
    np.testing.assert_array_equal(
        np.where(loaded.predict(X) > 0, "yes", "no"), est.predict(X))
