#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Privacy-utility curve: test accuracy against the total epsilon per node for DVP and PVP
(dpadmm.sweep; simulation mode, seeded noise), drawn with matplotlib when it is installed,
printed as a table otherwise.

    .venv/bin/python examples/python/privacy_utility.py
"""
import warnings

import numpy as np

import dpadmm

spec = {"iterations": 50, "graph": {"nodes": 10}, "data": {"rows": 3000}}
with warnings.catch_warnings():
    warnings.simplefilter("ignore", dpadmm.SimulationWarning)  # the result says "simulation"
    out = dpadmm.sweep(spec, ["dvp", "pvp"], [0.3, 1, 3, 10], seeds=3)
print(out["noise"])
for name, eps, mean, low, high in zip(out["algorithm"], out["epsilon"], out["accuracy_mean"],
                                      out["accuracy_low"], out["accuracy_high"]):
    print(f"{name:4s} eps {eps:5.1f}: accuracy {100 * mean:.2f}% "
          f"(95% band {100 * low:.2f} .. {100 * high:.2f})")
print(f"non-private admm {100 * out['admm']['mean']:.2f}%, "
      f"majority class {100 * out['majority']['mean']:.2f}%")
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("matplotlib is not installed: no plot")
else:
    names = np.asarray(out["algorithm"])
    for name in dict.fromkeys(out["algorithm"]):
        rows = names == name
        plt.errorbar(out["epsilon"][rows], out["accuracy_mean"][rows],
                     yerr=[out["accuracy_mean"][rows] - out["accuracy_low"][rows],
                           out["accuracy_high"][rows] - out["accuracy_mean"][rows]],
                     label=name, marker="o", capsize=3)
    plt.axhline(out["admm"]["mean"], ls="--", color="gray", label="admm (non-private)")
    plt.xscale("log")
    plt.xlabel("total epsilon per node (delta = 1e-5)")
    plt.ylabel("test accuracy")
    plt.title("simulation mode (seeded noise)")
    plt.legend()
    plt.savefig("privacy_utility.png", dpi=120)
    print("wrote privacy_utility.png")
