# SPDX-License-Identifier: Apache-2.0
"""Raw-unit data through the dpadmm command: non-private consensus ADMM with scaling auto
(standardize) is within one test row of scikit-learn's StandardScaler + LogisticRegression at
the matching regularisation, on the same split; global-max-norm on the same rows is far worse.

Matching the regularisation (algorithms/data/README.md, "Standardize"): on N nodes of n/N rows
each, admm minimises (C N / n) sum_n l(y w^T z_n) + (rho d / 2) ||w||^2 over standardized rows z
with an intercept feature 1 (regularised like the others), for the rows that are not clipped:
LogisticRegression(C = C N / (n rho d), solver="liblinear", intercept_scaling=1) on the scaler's
output is the same problem."""
import json
import subprocess

import numpy as np
import pytest

from conftest import write_csv

pytest.importorskip("sklearn")
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

NODES, C, RHO = 4, 600.0, 1.0


def raw_units(n, seed):
    """Ages, incomes, hours, counts and a small ratio: units from 1e-2 to 1e5."""
    rng = np.random.RandomState(seed)
    age = rng.uniform(18.0, 80.0, n)
    income = np.exp(rng.normal(10.5, 0.6, n))
    hours = rng.normal(40.0, 10.0, n)
    children = rng.poisson(1.5, n).astype(float)
    ratio = rng.normal(0.02, 0.005, n)
    score = (0.06 * (age - 45.0) + 1.2 * (np.log(income) - 10.5) + 0.08 * (hours - 40.0)
             - 0.4 * (children - 1.5) + 150.0 * (ratio - 0.02))
    y = np.where(rng.rand(n) < 1.0 / (1.0 + np.exp(-score)), 1, -1)
    return np.column_stack([age, income, hours, children, ratio]), y


def run_admm(cli, folder, scaling):
    summary = folder / f"{scaling}.json"
    done = subprocess.run(
        [str(cli), "run", "--data", "csv", "--train", str(folder / "train.csv"), "--test",
         str(folder / "test.csv"), "--algorithm", "admm", "--nodes", str(NODES), "--edges", "5",
         "--bias", "--C", str(C), "--rho", str(RHO), "--iterations", "300", "--seed", "1",
         "--scaling", scaling, "--no-optimum", "--summary", str(summary), "--trace",
         str(folder / f"{scaling}-trace.csv"), "--quiet"],
        capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(summary.read_text())


def test_auto_standardizes_raw_units_like_scikit_learn(cli, tmp_path):
    X, y = raw_units(1200, 1)
    X_test, y_test = raw_units(600, 2)
    write_csv(tmp_path / "train.csv", X, y)
    write_csv(tmp_path / "test.csv", X_test, y_test)

    ours = run_admm(cli, tmp_path, "auto")
    assert ours["info"]["scaling"] == "standardize"
    ours_correct = round((1.0 - ours["final"]["test_error"]) * len(y_test))

    d = X.shape[1] + 1  # with the intercept column
    matching_c = C * NODES / (len(y) * RHO * d)
    sk = make_pipeline(StandardScaler(), LogisticRegression(
        C=matching_c, solver="liblinear", intercept_scaling=1.0, tol=1e-10, max_iter=10000))
    sk_correct = int((sk.fit(X, y).predict(X_test) == y_test).sum())
    print(f"test rows right: dpadmm standardize {ours_correct}, scikit-learn {sk_correct} "
          f"of {len(y_test)} (C_sklearn = {matching_c:.4g})")
    assert abs(ours_correct - sk_correct) <= 1

    # The same rows with one global factor: the small-unit features vanish against incomes.
    flat = run_admm(cli, tmp_path, "global-max-norm")
    flat_correct = round((1.0 - flat["final"]["test_error"]) * len(y_test))
    print(f"global-max-norm: {flat_correct} of {len(y_test)}")
    assert flat_correct + 12 < ours_correct
