#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""dpadmm inside scikit-learn: StandardScaler + ConsensusClassifier against LogisticRegression on
scikit-learn's bundled breast-cancer set (569 rows, 30 features), 70/30 split.

    .venv/bin/python examples/python/pipeline.py

Prints the misclassified test rows (of 171) of both pipelines.
"""
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from dpadmm import ConsensusClassifier

X, y = load_breast_cancer(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0,
                                                    stratify=y)
pipelines = {
    "dpadmm admm (10 nodes)": make_pipeline(StandardScaler(),
                                            ConsensusClassifier(algorithm="admm", random_state=1)),
    "sklearn LogisticRegression": make_pipeline(StandardScaler(), LogisticRegression()),
}
for name, pipe in pipelines.items():
    wrong = int((pipe.fit(X_train, y_train).predict(X_test) != y_test).sum())
    print(f"{name:28s} misclassified {wrong} of {len(y_test)} test rows "
          f"(accuracy {100 * (1 - wrong / len(y_test)):.2f}%)")
