#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Quick start: a private consensus classifier, its privacy figures and a saved model."""
import numpy as np

import dpadmm

rng = np.random.RandomState(0)
y = np.where(rng.rand(10000) < 0.5, "spam", "ham")
X = rng.randn(10000, 10) + (y == "spam")[:, None] * 0.6

# DVP over 10 parties on a random graph, calibrated to a total epsilon of 3 per party (tight, at
# delta = 1e-5). Noise keys come from the operating system: a private run. The features' public
# range [-5, 5] (known without looking at anyone's data) lets every party scale its rows alike.
clf = dpadmm.ConsensusClassifier(algorithm="dvp", nodes=10, epsilon=3.0, feature_range=(-5, 5),
                                 scaling="public-bounds", random_state=1)
clf.fit(X[:7000], y[:7000])
print("test accuracy", clf.score(X[7000:], y[7000:]))
print("noise", clf.privacy_["noise"])
print("tight epsilon per party (max)", clf.privacy_["tight_epsilon"], "at delta",
      clf.privacy_["tight_delta"])
print("the paper's figure", clf.privacy_["paper_epsilon"])
print("rounds", clf.n_iter_, "outcome", clf.outcome_)
clf.model_.save("quickstart-model.json")  # `dpadmm predict --model quickstart-model.json ...`
