# SPDX-License-Identifier: Apache-2.0
"""A good Python citizen: the GIL released during runs, Ctrl-C, callbacks, errors, models."""
import copy
import os
import pickle
import signal
import sys
import threading
import time
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import dpadmm
from conftest import same_bits, two_gaussians


@pytest.fixture(scope="module")
def small():
    return two_gaussians(400, 5, seed=21)


def admm(**kw):
    kw.setdefault("algorithm", "admm")
    kw.setdefault("random_state", 1)
    return dpadmm.ConsensusClassifier(**kw)


# --- the GIL --------------------------------------------------------------------------------

def test_a_fit_releases_the_gil_while_its_run_computes():
    """The main thread runs Python code while another thread is inside a fit's run.

    No timing: with the interpreter's switch interval set to an hour, a thread gives the GIL up
    only when it blocks or when C code releases it. The fitting thread's progress callback
    (Python, run with the GIL) records each round; the main thread sleeps 10 ms at a time (which
    releases the GIL) until it sees a round past 0, and keeps that round. Were the run holding
    the GIL, the main thread could take it back only once the run had returned (every round
    reported): numpy's own releases before or after the run come with no round past 0 or with
    all of them. Seeing 1 <= round < rounds needs the GIL released while the run computes. The
    run is long (400 rounds) so that the main thread wakes inside it even on a busy machine.
    The two-threads speed-up is measured in bench/python_threads.py, not asserted here."""
    X, y = two_gaussians(10000, 50, seed=5)
    rounds = 400
    counted = []
    est = admm(nodes=10, iterations=rounds, n_jobs=None,
               callback=lambda m: counted.append(m["round"]))
    state = {"error": None}

    def fit():
        try:
            est.fit(X, y)
        except BaseException as e:  # reported by the main thread
            state["error"] = e

    previous = sys.getswitchinterval()
    sys.setswitchinterval(3600.0)
    try:
        worker = threading.Thread(target=fit)
        worker.start()
        seen = 0
        for _ in range(6000):  # at most about 60 s
            time.sleep(0.01)
            seen = counted[-1] if counted else 0
            if seen > 0:
                break
        worker.join(timeout=600)
    finally:
        sys.setswitchinterval(previous)
    assert not worker.is_alive()
    assert state["error"] is None, state["error"]
    assert est.summary_["rounds"] == rounds and counted[-1] == rounds
    assert 1 <= seen < rounds, f"the main thread ran only after the run (round {seen} seen)"


# --- Ctrl-C and callbacks -----------------------------------------------------------------

def test_ctrl_c_cancels_the_run_and_raises_keyboard_interrupt(small):
    X, y = small
    seen = []

    def progress(metrics):
        seen.append(metrics["round"])
        if metrics["round"] == 3:
            os.kill(os.getpid(), signal.SIGINT)  # as the terminal's Ctrl-C does

    est = admm(iterations=1_000_000, callback=progress)
    # Python's own Ctrl-C handler, whatever the test was started under (a shell without job
    # control starts its background commands with SIGINT ignored, and Python keeps that).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    t0 = time.perf_counter()
    try:
        with pytest.raises(KeyboardInterrupt) as caught:
            est.fit(X, y)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert time.perf_counter() - t0 < 60
    assert isinstance(caught.value, dpadmm.RunInterrupted)
    result = caught.value.result
    assert result.summary["outcome"] == "cancelled"
    assert 3 <= result.summary["rounds"] < 1_000_000
    assert result.history["round"][-1] == result.summary["rounds"]
    assert not hasattr(est, "model_")  # not fitted


def test_progress_callback_per_round_and_stop(small):
    X, y = small
    rounds = []
    est = admm(iterations=25, callback=lambda m: rounds.append(m["round"])).fit(X, y)
    assert rounds == list(range(26)) and est.outcome_ == "completed"
    stopped = admm(iterations=500, callback=lambda m: m["round"] < 4).fit(X, y)
    assert stopped.outcome_ == "cancelled" and stopped.n_iter_ == 4


def test_callback_exception_is_raised(small):
    X, y = small

    def boom(metrics):
        if metrics["round"] == 2:
            raise ZeroDivisionError("from the callback")

    with pytest.raises(ZeroDivisionError, match="from the callback"):
        admm(iterations=100, callback=boom).fit(X, y)


# --- bad input ----------------------------------------------------------------------------

def test_bad_inputs_name_the_argument(small):
    X, y = small
    bad = X.copy()
    bad[3, 2] = np.nan
    with pytest.raises(ValueError, match="X.*NaN"):
        admm().fit(bad, y)
    bad[3, 2] = np.inf
    with pytest.raises(ValueError, match="X.*infinity"):
        admm().fit(bad, y)
    with pytest.raises(ValueError, match="2D array"):
        admm().fit(X[:, 0], y)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        admm().fit(X, y[:-1])
    with pytest.raises(ValueError, match="one class"):
        admm().fit(X, np.ones(len(y)))
    with pytest.raises(ValueError, match="3 classes"):
        admm().fit(X, np.arange(len(y)) % 3)
    with pytest.raises(ValueError, match="algorithm must be one of"):
        admm(algorithm="sharing").fit(X, y)
    with pytest.raises(ValueError, match="noise must be 'private' or an integer"):
        admm(noise="secret").fit(X, y)
    with pytest.raises(ValueError, match="node must be an integer array"):
        admm().fit(X, y, node=np.zeros(3, dtype=int))
    with pytest.raises(ValueError, match=r"node values must be in \[0, 10\)"):
        admm().fit(X, y, node=np.full(len(y), 10))
    with pytest.raises(dpadmm.InputError, match="graph.nodes"):
        admm(nodes=0).fit(X, y)
    fitted = admm(iterations=5).fit(X, y)
    with pytest.raises(ValueError, match="X has 4 features"):
        fitted.predict(X[:, :4])
    with pytest.raises(dpadmm.InputError, match="unknown field 'algorithm.etta'"):
        dpadmm.run({"algorithm": {"name": "admm", "etta": 1}}, X, y)
    with pytest.raises(ValueError, match="y_test has labels not in y"):
        dpadmm.run({"iterations": 2}, X, y, X[:5], np.array([7, 7, 7, 7, 7]))


def test_plain_arrays_take_the_short_input_check_with_the_same_result(small):
    """C-ordered float64 rows with integer labels skip scikit-learn's general input checks
    (bench/README, "Python calling overhead"): the same bits and fitted attributes as the
    checked path (lists), and whatever the checked path refuses is still refused."""
    X, y = small
    assert X.dtype == np.float64 and X.flags.c_contiguous and y.dtype.kind == "i"
    short = admm(iterations=5).fit(X, y)
    checked = admm(iterations=5).fit(X.tolist(), y.tolist())
    assert same_bits(short.coef_, checked.coef_)
    assert same_bits(short.intercept_, checked.intercept_)
    assert short.n_features_in_ == checked.n_features_in_ == X.shape[1]
    assert list(short.classes_) == list(checked.classes_)
    assert not hasattr(short, "feature_names_in_")
    for labels in (y.astype(np.float64), y > 0):  # the same classes order: the same run
        assert same_bits(admm(iterations=5).fit(X, labels).coef_, short.coef_)
    nan_labels = np.where(y == y[0], 1.0, 0.0)
    nan_labels[7] = np.nan
    with pytest.raises(ValueError, match="y.*NaN"):
        admm().fit(X, nan_labels)
    with pytest.raises(ValueError, match="Unknown label type"):
        admm().fit(X, np.linspace(0.0, 1.0, len(y)))
    with pytest.raises(ValueError, match="X.*NaN"):
        admm().fit(np.full_like(X, np.nan), y)
    one_inf = X.copy()
    one_inf[37, 2] = -np.inf  # the library's copy refuses it; the message is scikit-learn's
    with pytest.raises(ValueError, match="Input X contains infinity"):
        admm().fit(one_inf, y)
    with pytest.raises(ValueError, match="Input X contains infinity"):
        dpadmm.SharingClassifier(feature_blocks=[[4, 2], [0, 1, 3]]).fit(one_inf, y)
    with pytest.raises(ValueError, match="0 sample"):
        admm().fit(X[:0], y[:0])


def test_plain_input_is_checked_and_encoded_in_one_call_only_when_plain(small):
    """_core.plain_two_labels: for an ndarray of C-ordered float64 rows and an ndarray of two
    integer or boolean labels, encode_labels' result; None for any other input (the general
    checks decide), so the fit is the same as through them."""
    from dpadmm._run import encode_labels
    X, y = small
    classes, labels = dpadmm._core.plain_two_labels(X, y)
    expected = encode_labels(y.tolist())
    assert classes.dtype == y.dtype and list(classes) == list(expected[0])
    assert same_bits(labels, expected[1])
    assert dpadmm._core.plain_two_labels(X, y > 0)[0].dtype == np.bool_
    not_plain = [(X.tolist(), y), (X, y.tolist()), (np.asfortranarray(X), y),
                 (X.astype(np.float32), y), (X.astype(">f8"), y), (X[:, :0], y), (X[:0], y[:0]),
                 (X, y[:-1]), (X, y[:, None]), (X, y.astype(np.float64)), (X[0], y[:1]),
                 (X, np.ones_like(y)), (X, y[::-1].copy()[::-1]),
                 (X.view(np.recarray), y)]
    for rows, labels in not_plain:
        assert dpadmm._core.plain_two_labels(rows, labels) is None
    est = admm(iterations=5).fit(X, y)
    for rows, labels in ((X.tolist(), y), (X, y[::-1].copy()[::-1])):
        assert same_bits(admm(iterations=5).fit(rows, labels).coef_, est.coef_)


def test_two_integer_labels_encode_as_np_unique_does():
    """encode_labels' one-pass path for two integer or boolean labels (_core.encode_two_labels)
    gives np.unique's classes (value and dtype) and the same +-1 labels, whatever the integer
    type, byte order or layout; one class or three still raise."""
    from dpadmm._run import encode_labels
    rng = np.random.RandomState(3)
    for y in (rng.choice([-1, 1], 50), rng.choice([7, 3], 50).astype(np.uint8),
              rng.rand(50) < 0.5, rng.choice([-(2**62), 2**62], 50), np.array([5, 2]),
              np.array([0, 2**64 - 1], dtype=np.uint64)[rng.randint(0, 2, 50)], rng.choice([-128, 127], 50).astype(
                  np.int8), rng.choice([1, 9], 50).astype(">i4"), rng.choice([4, 8], 99)[::2],
              rng.choice([2, 5], (50, 1))[:, 0], rng.choice([-1.0, 1.0], 50)):
        classes, labels = encode_labels(y)
        expected = np.unique(y)
        assert classes.dtype == expected.dtype and list(classes) == list(expected)
        assert same_bits(labels, np.where(y == expected[1], 1.0, -1.0))
    assert dpadmm._core.encode_two_labels(np.array([3, 3])) is None
    assert dpadmm._core.encode_two_labels(np.array([3, 1, 2])) is None
    assert dpadmm._core.encode_two_labels(np.array([1.0, 2.0])) is None
    with pytest.raises(ValueError, match="one class"):
        encode_labels(np.array([4, 4, 4]))
    with pytest.raises(ValueError, match="3 classes"):
        encode_labels(np.array([1, 2, 3, 1]))


def test_unreachable_epsilon_is_a_privacy_budget_error(small):
    X, y = small
    # With its own rounds (the epsilon policy off), M-ADMM keeps the paper's penalty, whose
    # alpha-independent term alone spends more than 1e-6 (the policy's penalty follows the
    # target and reaches any epsilon).
    with pytest.raises(dpadmm.PrivacyBudgetError, match="out of reach"):
        dpadmm.ConsensusClassifier(algorithm="madmm", epsilon=1e-6, iterations=5, noise=1,
                                   random_state=1).fit(X, y)
    assert issubclass(dpadmm.PrivacyBudgetError, ValueError)


def test_simulation_mode_warns_that_the_model_is_not_private(small):
    X, y = small
    with pytest.warns(dpadmm.SimulationWarning, match="simulation"):
        est = dpadmm.ConsensusClassifier(algorithm="dvp", iterations=5, noise=3,
                                         random_state=1).fit(X, y)
    assert est.privacy_["noise_mode"] == "simulation"
    assert est.privacy_["tight_epsilon"] > 0
    assert est.privacy_["node_tight_epsilon"].shape == (10,)
    assert est.privacy_["tight_epsilon"] <= est.privacy_["paper_epsilon"]


def test_private_mode_is_the_default_and_not_reproducible(small):
    X, y = small
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = dpadmm.ConsensusClassifier(algorithm="dvp", iterations=5, random_state=1).fit(X, y)
        b = dpadmm.ConsensusClassifier(algorithm="dvp", iterations=5, random_state=1).fit(X, y)
    assert a.privacy_["noise_mode"] == "private"
    assert a.model_.preparation["scaling"] == "clip-only"
    assert not same_bits(a.model_.weights, b.model_.weights)


# --- data layouts and models ---------------------------------------------------------------

def test_csr_with_either_index_type_and_dense_give_the_same_predictions(small):
    X, y = small
    # One scaling for both storages (auto standardizes dense raw-unit rows, never sparse ones).
    dense = admm(iterations=30, scaling="global-max-norm").fit(X, y)
    for index in (np.int32, np.int64):
        S = sp.csr_matrix(X)
        S.indices, S.indptr = S.indices.astype(index), S.indptr.astype(index)
        sparse = admm(iterations=30, scaling="global-max-norm").fit(S, y)
        np.testing.assert_allclose(sparse.decision_function(S), dense.decision_function(X),
                                   rtol=1e-9, atol=1e-12)
    fortran = admm(iterations=30, scaling="global-max-norm").fit(np.asfortranarray(X), y)
    assert same_bits(fortran.model_.weights, dense.model_.weights)


def test_coef_and_intercept_describe_the_decision_function(small):
    X, y = small
    # A linear preparation (auto would standardize these raw-unit rows, then clip some).
    est = admm(iterations=30, scaling="global-max-norm").fit(X, y)
    np.testing.assert_allclose(X @ est.coef_.ravel() + est.intercept_[0],
                               est.decision_function(X), rtol=1e-10, atol=1e-10)
    proba = est.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert est.score(X, y) > 0.8


def test_model_save_load_and_pickle_round_trip(small, tmp_path):
    X, y = small
    est = admm(iterations=10).fit(X, y)
    path = str(tmp_path / "model.json")
    est.model_.save(path)
    loaded = dpadmm.Model.load(path)
    assert loaded.to_json() == est.model_.to_json()
    assert same_bits(loaded.decision_function(X), est.decision_function(X))
    again = pickle.loads(pickle.dumps(est))
    assert same_bits(again.decision_function(X), est.decision_function(X))
    with pytest.raises(dpadmm.InputError, match="model.json"):
        (tmp_path / "bad").mkdir()
        (tmp_path / "bad" / "model.json").write_text("{\"format\": 1}")
        dpadmm.Model.load(str(tmp_path / "bad" / "model.json"))


def test_fitted_attributes_built_on_first_access_are_the_run_results(small):
    """history_, privacy_, summary_, spec_, coef_ and intercept_ are built from the run's output
    when first read (then kept): the same values and types as dpadmm.run's, a refit replaces
    them, and a pickle or deepcopy of a fitted estimator holds them built."""
    X, y = small
    lazy = ("summary_", "spec_", "history_", "privacy_", "coef_", "intercept_")
    est = admm(iterations=10).fit(X, y)
    assert all(name not in vars(est) for name in lazy)
    expected = dpadmm.run(est.spec_, X, y)
    assert "spec_" in vars(est) and est.spec_ is est.spec_
    untimed = lambda s: {k: untimed(v) if isinstance(v, dict) else v  # noqa: E731
                         for k, v in s.items() if not k.startswith("seconds")}
    assert untimed(est.summary_) == untimed(expected.summary)
    assert est.history_ is est.history_ and set(est.history_) == set(expected.history)
    for name, column in expected.history.items():
        assert type(est.history_[name]) is np.ndarray
        assert est.history_[name].dtype == column.dtype
        assert est.history_[name].shape == column.shape
        assert name == "seconds" or same_bits(est.history_[name], column)
    assert est.privacy_["noise_mode"] == "none" and est.privacy_["tight_epsilon"] is None
    assert same_bits(est.privacy_["node_paper_epsilon"],
                     np.asarray(expected.summary["final"]["node_privacy"], dtype=np.float64))
    assert est.n_iter_ == est.summary_["rounds"] == 10 and est.outcome_ == "completed"

    fresh = admm(iterations=10).fit(X, y)
    for kept in (pickle.loads(pickle.dumps(fresh)), copy.deepcopy(fresh)):
        assert "_run_output" not in vars(kept) and all(name in vars(kept) for name in lazy)
        assert same_bits(kept.history_["objective"], est.history_["objective"])
        assert same_bits(kept.coef_, fresh.coef_) and same_bits(kept.intercept_, fresh.intercept_)
        assert kept.spec_ == est.spec_ and kept.privacy_.keys() == fresh.privacy_.keys()
        for name, value in fresh.privacy_.items():
            assert type(kept.privacy_[name]) is type(value)
            assert same_bits(kept.privacy_[name], value) if isinstance(value, np.ndarray) else (
                kept.privacy_[name] == value)
    with pytest.raises(AttributeError, match="history_"):
        admm().history_

    est.set_params(iterations=4).fit(X, y)
    assert all(name not in vars(est) for name in lazy)
    assert len(est.history_["round"]) == len(dpadmm.run(est.spec_, X, y).history["round"])
    assert est.history_["round"][-1] == 4 and est.summary_["rounds"] == 4


def test_node_assignment_and_feature_blocks(small):
    X, y = small
    node = np.arange(len(y)) % 4
    est = admm(nodes=4, iterations=10).fit(X, y, node=node)
    assert est.summary_["info"]["rows_per_node"] == [100, 100, 100, 100]
    blocks = dpadmm.SharingClassifier(feature_blocks=[[4, 0], [1, 2, 3]], iterations=10,
                                      random_state=1, scaling="global-max-norm").fit(X, y)
    assert blocks.summary_["info"]["party_features"] == [2, 4]
    np.testing.assert_allclose(blocks.decision_function(X), X @ blocks.coef_.ravel() +
                               blocks.intercept_[0], rtol=1e-9, atol=1e-9)


# --- the parsed spec reused between runs ----------------------------------------------------

def test_a_repeated_spec_text_is_parsed_once_and_a_changed_one_runs_as_changed(small):
    """_core.run keeps the validated specs of its last few spec texts (bench/README, "Python
    calling overhead"): the same text reuses its entry with the same bits as a fresh parse; a
    changed parameter is a new text, parsed and run as changed; past the last
    SPEC_CACHE_ENTRIES texts the oldest is parsed again; a refused spec is never kept."""
    X, y = small
    core = dpadmm._core
    core.clear_spec_cache()
    est = admm(iterations=5)
    first = est.fit(X, y).coef_
    assert core.spec_cache_stats() == (0, 1, 1)
    assert same_bits(est.fit(X, y).coef_, first)
    assert core.spec_cache_stats() == (1, 1, 1)
    changed = est.set_params(rho=0.5).fit(X, y).coef_
    assert core.spec_cache_stats() == (1, 2, 2) and not same_bits(changed, first)
    assert est.spec_["algorithm"]["rho"] == 0.5
    assert same_bits(admm(iterations=5).fit(X, y).coef_, first)  # the older entry, still right
    core.clear_spec_cache()
    assert same_bits(admm(iterations=5, rho=0.5).fit(X, y).coef_, changed)  # parsed afresh

    runs = core.SPEC_CACHE_ENTRIES + 2
    specs = [admm(iterations=2 + k) for k in range(runs)]
    fresh = []
    for spec in specs:
        core.clear_spec_cache()
        fresh.append(spec.fit(X, y).coef_)
    core.clear_spec_cache()
    for _ in range(2):  # the second pass finds every text evicted by the ones after it
        for spec, expected in zip(specs, fresh):
            assert same_bits(spec.fit(X, y).coef_, expected)
    assert core.spec_cache_stats() == (0, 2 * runs, core.SPEC_CACHE_ENTRIES)
    assert same_bits(specs[-1].fit(X, y).coef_, fresh[-1])
    assert core.spec_cache_stats()[0] == 1

    bad = {"algorithm": {"name": "admm", "etta": 1}}
    for _ in range(2):
        with pytest.raises(ValueError, match="etta"):
            dpadmm.run(bad, X, y)
    assert core.spec_cache_stats() == (1, 2 * runs, core.SPEC_CACHE_ENTRIES)


def test_runs_in_threads_sharing_cached_specs_give_the_serial_bits(small):
    """Runs in four threads at once, two spec texts each (so the same cached spec is read by
    concurrent runs with the GIL released), give the bits of the same fits one at a time."""
    X, y = small
    params = [dict(iterations=6, rho=r) for r in (0.1, 0.3)]
    expected = [admm(**p).fit(X, y).coef_ for p in params]
    failures = []

    def fits():
        for k in range(6):
            coef = admm(**params[k % 2]).fit(X, y).coef_
            if not same_bits(coef, expected[k % 2]):
                failures.append(k)

    threads = [threading.Thread(target=fits) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not any(t.is_alive() for t in threads) and failures == []


def test_spec_texts_are_reused_only_for_parameters_written_alike():
    """The estimators keep the spec text of their last few parameter sets (_SPEC_TEXTS): the
    same parameters give the kept text; parameters that compare equal in Python but are
    written differently (1 and 1.0, 0.0 and -0.0, True and 1, a list and a tuple) each get the
    text built from them; a random_state drawing a seed per fit, a parameter of another type
    and a subclass are never kept."""
    import json
    from dpadmm._estimators import _SPEC_TEXTS

    def fresh(est, n=5):
        return json.dumps(est._spec(n, None))

    _SPEC_TEXTS.clear()
    est = admm(algorithm="dvp", iterations=3)
    kept = est._spec_text(5, None)
    assert kept == fresh(est) and est._spec_text(5, None) is kept  # the same object: reused
    alike = [("iterations", 3, 3.0), ("iterations", 1, True), ("tol", 0.0, -0.0),
             ("C", 1, True),
             ("params", {"alpha": 1}, {"alpha": 1.0}), ("params", {"alpha": 0}, {"alpha": False}),
             ("params", {"node_alpha": [1, 2]}, {"node_alpha": (1, 2)}),
             ("params", {"alpha": 1, "beta": 2}, {"beta": 2, "alpha": 1}),
             ("feature_range", [0, 1], [0.0, 1.0]), ("nodes", 4, 4.0), ("noise", 3, True)]
    for name, a, b in alike:
        first, second = admm(algorithm="dvp", **{name: a}), admm(algorithm="dvp", **{name: b})
        for _ in range(2):
            for e in (first, second):
                try:
                    expected = fresh(e)
                except (TypeError, ValueError) as error:  # refused alike, never kept
                    with pytest.raises(type(error)):
                        e._spec_text(5, None)
                else:
                    assert e._spec_text(5, None) == expected, (name, a, b)
    sharing = dpadmm.SharingClassifier(feature_blocks=[2, 3], random_state=1)
    assert sharing._spec_text(5, None) == fresh(sharing)
    with pytest.raises(ValueError, match="sum to n_features = 6"):  # n_features is in the key
        sharing._spec_text(6, None)
    for e in (admm(random_state=None), admm(random_state=np.random.RandomState(1)),
              admm(iterations=np.int64(3)), admm(params={"alpha": np.float64(0.5)}),
              type("Sub", (dpadmm.ConsensusClassifier,), {})(random_state=1)):
        assert e._spec_key(5, None) is None
