"""The budgeted oracle (paper Section 4.3, DESIGN.md section 3): the cap, the charges, the guards.

A counting wrapper around DGP2 records every scenario row the problem generates, so "nothing
is drawn" is checked on the problem's side, not on the oracle's own counter.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import TABLE_X
from hypothesis import given, settings
from hypothesis import strategies as st

from acfs_cli.core.oracle import BudgetExhausted, Oracle, antithetic_normals
from acfs_cli.problems import DGP2, get_problem

X0 = np.array(TABLE_X[0])
X1 = np.array(TABLE_X[1])


class CountingProblem:
    """DGP2 with a counter of generated rows (the true simulator's side of the ledger)."""

    name = "counting-dgp2"
    dim_x = 6
    dim_w = 5

    def __init__(self):
        self.inner = DGP2()
        self.rows = 0

    def transform(self, x, z):
        W = self.inner.transform(x, z)
        self.rows += W.shape[0]
        return W

    def transform_batch(self, X, Z):
        W = self.inner.transform_batch(X, Z)
        self.rows += W.shape[0] * W.shape[1]
        return W

    def sample(self, x, n, rng):
        return self.transform(x, rng.standard_normal((n, 5)))

    def cost(self, W, x):
        return self.inner.cost(W, x)

    def project(self, x):
        return self.inner.project(x)


class SampleOnlyProblem:
    """A user simulator that can only sample (no supplied normals)."""

    dim_x = 6
    dim_w = 5

    def __init__(self):
        self.inner = DGP2()

    def sample(self, x, n, rng):
        return self.inner.sample(x, n, rng)

    def cost(self, W, x):
        return self.inner.cost(W, x)

    def project(self, x):
        return self.inner.project(x)


def rng_state(rng):
    return rng.bit_generator.state["state"]["state"]


# ---------------------------------------------------------------------------------------------
# The cap under random request sequences.
# ---------------------------------------------------------------------------------------------

request = st.one_of(
    st.tuples(st.just("draw"), st.integers(0, 120), st.booleans()),
    st.tuples(st.just("common"), st.integers(0, 120), st.booleans()),
    st.tuples(st.just("draw_batch"), st.integers(1, 12), st.integers(0, 15)),
    st.tuples(st.just("common_batch"), st.integers(1, 12), st.integers(0, 15)),
)


@settings(max_examples=80, deadline=None)
@given(
    budget=st.integers(1, 600),
    requests=st.lists(st.tuples(request, st.sampled_from(["a", "b", "c"])), max_size=25),
)
def test_budget_never_exceeded_under_random_request_sequences(budget, requests):
    problem = CountingProblem()
    rng = np.random.default_rng(0)
    oracle = Oracle(problem, budget, rng)
    for (kind, a, b), phase in requests:
        size = {"draw": a, "common": a}.get(kind, a * b)
        used, rows, state = oracle.used, problem.rows, rng_state(rng)
        fits = size <= oracle.remaining
        assert oracle.can_draw(size) == fits
        with oracle.phase(phase):
            try:
                if kind == "draw":
                    W = oracle.draw(X0, a, antithetic=b)
                    assert W.shape == (a, 5)
                elif kind == "common":
                    W = oracle.draw_common(X0, oracle.common_sample(a, antithetic=b))
                    assert W.shape == (a, 5)
                else:
                    X = np.stack([X0, X1] * 6)[:a]
                    W = (oracle.draw_batch(X, b) if kind == "draw_batch"
                         else oracle.draw_common(X, oracle.common_sample(b)))
                    assert W.shape == (a, b, 5)
            except BudgetExhausted:
                assert not fits
                # Nothing drawn: counter, simulator and random stream untouched.
                assert (oracle.used, problem.rows, rng_state(rng)) == (used, rows, state)
            else:
                assert fits
                assert oracle.used == used + size
                assert problem.rows == rows + size
        assert 0 <= oracle.used <= budget
        assert oracle.remaining == budget - oracle.used
    # Per-phase accounting sums to what was used, and to what the simulator generated.
    account = oracle.account
    assert sum(v["draws"] for v in account.values()) == oracle.used == problem.rows
    assert set(account) <= {"a", "b", "c"}


def test_a_request_that_would_pass_the_cap_raises_and_leaves_the_counter():
    oracle = Oracle(get_problem("dgp2"), 100, np.random.default_rng(0))
    oracle.draw(X0, 60)
    with pytest.raises(BudgetExhausted):
        oracle.draw(X0, 41)
    with pytest.raises(BudgetExhausted):
        oracle.draw_batch(np.stack([X0, X1]), 21)
    assert oracle.used == 60
    oracle.draw(X0, 40)  # exactly up to the cap
    assert oracle.remaining == 0
    with pytest.raises(BudgetExhausted):
        oracle.draw(X0, 1)
    assert oracle.draw(X0, 0).shape == (0, 5)  # a zero-size request still fits


# ---------------------------------------------------------------------------------------------
# Charges, antithetic pairs, supplied normals.
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 10, 451])
def test_antithetic_rows_come_from_z_and_minus_z(n):
    # DGP2: log W = mu(x) + sigma(x) * (z L^T) is affine in z, so the rows i and i + n/2
    # of an antithetic draw average to mu(x) on the log scale.
    problem = DGP2()
    oracle = Oracle(problem, 10_000, np.random.default_rng(3))
    W = oracle.draw(X0, n, antithetic=True)
    assert W.shape == (n, 5)
    assert oracle.used == n
    h = n // 2
    mu = problem.params(X0[None])["mu"][0]
    np.testing.assert_allclose(
        (np.log(W[:h]) + np.log(W[h : 2 * h])) / 2, np.broadcast_to(mu, (h, 5)), atol=1e-12
    )
    # The pairs are not degenerate: the first half varies.
    assert np.log(W[:h]).std(axis=0).min() > 0 if h > 1 else True
    if n % 2:
        # The unpaired last row is a fresh draw, not the mirror of any row.
        assert not np.allclose(np.log(W[-1]) + np.log(W[:h]), 2 * mu)


def test_antithetic_normals_are_mirrored_standard_normals():
    z = antithetic_normals(200_001, 5, np.random.default_rng(4))
    h = 100_000
    np.testing.assert_array_equal(z[:h], -z[h : 2 * h])
    assert abs(z[:h].mean()) < 5 / np.sqrt(5 * h)
    assert abs(z[:h].std() - 1) < 5 / np.sqrt(2 * 5 * h)
    assert z.shape == (200_001, 5)


def test_batched_design_draws_are_charged_m_times_n_each():
    oracle = Oracle(get_problem("dgp1"), 100_000, np.random.default_rng(5))
    X = get_problem("dgp1").design(np.random.default_rng(6).random((37, 6)))
    with oracle.phase("lhd"):
        W = oracle.draw_batch(X)
    assert W.shape == (37, 1, 5)
    with oracle.phase("rescore"):
        W = oracle.draw_batch(X[:7], 450)
    assert W.shape == (7, 450, 5)
    assert oracle.used == 37 + 7 * 450
    assert oracle.account == {
        "lhd": {"draws": 37, "calls": 1},
        "rescore": {"draws": 3150, "calls": 1},
    }


def test_a_common_sample_is_the_same_normals_at_every_decision():
    problem = get_problem("dgp1")
    oracle = Oracle(problem, 1000, np.random.default_rng(7))
    sample = oracle.common_sample(20)
    z = sample.normals(5)
    np.testing.assert_array_equal(oracle.draw_common(X0, sample), problem.transform(X0, z))
    # The same sample at another decision: different scenarios, charged again.
    W1 = oracle.draw_common(X1, sample)
    np.testing.assert_array_equal(W1, problem.transform(X1, z))
    assert oracle.used == 40
    Wb = oracle.draw_common(np.stack([X0, X1]), sample)
    np.testing.assert_array_equal(Wb[1], W1)
    assert oracle.used == 80
    # Another sample has other normals; the keys are issued in order.
    other = oracle.common_sample(20)
    assert (sample.key, other.key) == (0, 1)
    assert not np.allclose(other.normals(5), z)


def test_common_samples_are_named_by_the_oracle_seed_and_key_not_by_the_order_of_draws():
    a = Oracle(get_problem("dgp2"), 10_000, np.random.default_rng(22))
    b = Oracle(get_problem("dgp2"), 10_000, np.random.default_rng(22))
    b.draw(X0, 50)  # independent draws in between move b's stream, not its samples
    np.testing.assert_array_equal(a.draw_common(X1, a.common_sample(30)),
                                  b.draw_common(X1, b.common_sample(30)))
    c = Oracle(get_problem("dgp2"), 10_000, np.random.default_rng(23))
    assert not np.allclose(a.common_sample(30).normals(5), c.common_sample(30).normals(5))


def test_an_extended_sample_keeps_its_rows():
    oracle = Oracle(get_problem("dgp2"), 10_000, np.random.default_rng(24))
    sample = oracle.common_sample(40, antithetic=True)
    longer = oracle.extend(sample, 60)
    assert longer.n == 100 and longer.key == sample.key
    np.testing.assert_array_equal(longer.normals(5)[:40], sample.normals(5))
    z = longer.normals(5)[40:]
    np.testing.assert_array_equal(z[:30], -z[30:])  # the new chunk is paired too


class StreamCopy:
    """The sample-only copy of DGP2: its ``sample`` draws normals from the generator first."""

    name, dim_x, dim_w = "dgp2-sample-only", 6, 5
    vectorized = True

    def __init__(self):
        self.inner = DGP2()

    def sample(self, x, n, rng):
        return self.inner.transform(x, rng.standard_normal((n, 5)))

    def cost(self, W, x):
        return self.inner.cost(W, x)

    def project(self, x):
        return self.inner.project(x)


def _named(seed: np.random.SeedSequence, *key: int) -> np.random.Generator:
    """The generator of the seed named ``key`` under ``seed``."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(
        seed.entropy, spawn_key=(*seed.spawn_key, *key))))


def test_a_sample_only_copy_sees_the_transform_of_each_seeded_blocks_normals():
    # A sample-only simulator's stream is cut into seeded blocks (DESIGN.md section 3): 30
    # rows are 16 blocks, 14 of 2 rows and 2 of 1, block j drawn from the seed named j under
    # the chunk's seed - the same at every decision; a chunk of one row is its seed's own.
    s = Oracle(StreamCopy(), 10_000, np.random.default_rng(25))
    dgp2, X = DGP2(), np.stack([X0, X1])
    sample = s.common_sample(30)
    ((seed, _),) = sample.chunks
    W = s.draw_common(X, sample)
    start = 0
    for j, rows in enumerate([2] * 14 + [1] * 2):
        z = _named(seed, j).standard_normal((rows, 5))
        for i, x in enumerate(X):
            np.testing.assert_array_equal(W[i, start:start + rows], dgp2.transform(x, z))
        start += rows
    assert start == 30
    one = s.common_sample(1)
    z = np.random.Generator(np.random.PCG64(one.chunks[0][0])).standard_normal((1, 5))
    np.testing.assert_array_equal(s.draw_common(X0, one), dgp2.transform(X0, z))
    # independent draws: request k's decision i draws the stream of the seed named
    # (draws branch, k, i) under the oracle's seed, 7 rows in 7 blocks of one
    root = np.random.default_rng(25).bit_generator.seed_seq
    W = s.draw_batch(X, 7)
    for i, x in enumerate(X):
        rows = [dgp2.transform(x, _named(root, 0x44524157, 0, i, j).standard_normal((1, 5)))
                for j in range(7)]
        np.testing.assert_array_equal(W[i], np.concatenate(rows))


class PoissonQueue:
    """A sample-only simulator whose use of the stream depends on x: N ~ Poisson(4 x_1)
    arrivals, each with an Exp(1) service; W = total work."""

    dim_x, dim_w = 1, 1
    bounds = [(0.2, 2.0)]

    def sample(self, x, n, rng):
        out = np.empty((n, 1))
        for i in range(n):
            out[i, 0] = rng.exponential(1.0, size=rng.poisson(4 * x[0])).sum()
        return out

    def cost(self, W, x):
        return W[:, 0] - 3.0 * x[0]


def test_re_seeded_samples_of_a_drifting_simulator_still_reduce_the_variance_of_a_difference():
    oracle = Oracle(PoissonQueue(), 10**6, np.random.default_rng(26))
    xa, xb = np.array([1.0]), np.array([1.05])
    diffs_crn, diffs_ind = [], []
    for _ in range(40):
        sample = oracle.common_sample(200)
        W = oracle.draw_common(np.stack([xa, xb]), sample)
        diffs_crn.append(W[1].mean() - W[0].mean())
        W2 = oracle.draw_batch(np.stack([xa, xb]), 200)
        diffs_ind.append(W2[1].mean() - W2[0].mean())
    # valid: both estimate the same mean difference (0.2); CRN with less spread
    assert abs(np.mean(diffs_crn) - 0.2) < 4 * np.std(diffs_crn) / np.sqrt(40) + 0.02
    assert np.std(diffs_crn) < 0.7 * np.std(diffs_ind)


def test_draws_follow_the_oracle_rng_and_match_the_problem_sampler():
    problem = get_problem("dgp2")
    W = Oracle(problem, 1000, np.random.default_rng(9)).draw(X0, 30)
    np.testing.assert_array_equal(W, problem.sample(X0, 30, np.random.default_rng(9)))


def test_a_sample_only_problem_gets_plain_samples_where_pairs_were_asked_and_says_so():
    oracle = Oracle(SampleOnlyProblem(), 1000, np.random.default_rng(10))
    assert not oracle.supports_normals
    assert oracle.draw(X0, 10).shape == (10, 5)
    assert oracle.draw_batch(np.stack([X0, X1]), 3).shape == (2, 3, 5)
    assert not oracle.pairs_refused
    assert oracle.draw(X0, 4, antithetic=True).shape == (4, 5)
    sample = oracle.common_sample(6, antithetic=True)
    assert not sample.antithetic
    assert oracle.draw_common(X1, sample).shape == (6, 5)
    assert oracle.used == 26
    assert oracle.pairs_refused and oracle.notes == []  # a method's run notes it (test_base)


def test_an_allowance_caps_a_phase_and_a_reservation_keeps_draws_back():
    from acfs_cli.core.oracle import AllowanceSpent

    oracle = Oracle(get_problem("dgp2"), 1000, np.random.default_rng(27))
    with oracle.allowance(300) as allowance:
        oracle.draw(X0, 200)
        assert oracle.available == 100 and not oracle.can_draw(101)
        with pytest.raises(AllowanceSpent):
            oracle.draw(X0, 101)
        assert allowance.hit
    assert oracle.available == 800
    with oracle.reserve(500) as kept:
        with pytest.raises(BudgetExhausted) as info:
            oracle.draw(X0, 301)
        assert not isinstance(info.value, AllowanceSpent) and kept.hit
        oracle.draw(X0, 300)
    oracle.draw(X0, 500)  # the reserve is there after the block
    assert oracle.remaining == 0 and oracle.used == 1000


def test_the_trajectory_holds_each_new_incumbent_with_the_draws_used():
    oracle = Oracle(get_problem("dgp2"), 1000, np.random.default_rng(28))
    oracle.record_best(X0, 10.0)
    oracle.draw(X0, 100)
    oracle.record_best(X1, 12.0)  # worse, not kept
    oracle.record_best(X1, 8.0)
    oracle.record_best(X1, 8.0)  # no change
    oracle.draw(X0, 50)
    oracle.record_best(X0, 9.0, replace=True)
    oracle.record_best(X1, 7.0)
    traj = oracle.trajectory
    assert [(d, v) for d, _, v in traj] == [(0, 10.0), (100, 8.0), (150, 7.0)]
    np.testing.assert_array_equal(traj[1][1], X1)


# ---------------------------------------------------------------------------------------------
# Bad input.
# ---------------------------------------------------------------------------------------------

BAD_X = {
    "infeasible_sum": np.array([0.5, 0.5, 0.0, 0.0, 0.0, 0.5]),
    "infeasible_box": np.array([0.0, 0.0, 0.0, 0.0, 0.0, 1.2]),
    "negative": np.array([-1e-6, 0.0, 0.0, 0.0, 0.0, 0.5]),
    "nan": np.array([0.1, np.nan, 0.0, 0.0, 0.0, 0.5]),
    "inf": np.array([0.1, 0.0, 0.0, 0.0, 0.0, np.inf]),
    "short": np.array([0.1, 0.1, 0.1, 0.1, 0.1]),
    "long": np.zeros(7),
    "scalar": np.array(0.1),
    "batch_for_single": np.stack([X0, X1]),
}


@pytest.mark.parametrize("case", sorted(BAD_X))
def test_bad_decisions_raise_value_error_naming_x_and_charge_nothing(case):
    x = BAD_X[case]
    problem = CountingProblem()
    oracle = Oracle(problem, 1000, np.random.default_rng(11))
    calls = [
        lambda: oracle.draw(x, 5),
        lambda: oracle.draw(x, 6, antithetic=True),
        lambda: oracle.draw_common(x if x.ndim < 2 else x[None], oracle.common_sample(5)),
        lambda: oracle.record_best(x, 1.0),
    ]
    if case != "batch_for_single":
        calls.append(
            lambda: oracle.draw_batch(
                np.stack([X0, x]) if x.ndim == 1 and x.size == 6 else x[None], 2
            )
        )
    for call in calls:
        with pytest.raises(ValueError, match=r"\bx\b"):
            call()
    assert oracle.used == 0 and problem.rows == 0
    assert oracle.incumbent is None


def test_a_batch_with_extra_axes_is_rejected():
    oracle = Oracle(get_problem("dgp2"), 1000, np.random.default_rng(12))
    with pytest.raises(ValueError, match=r"\bx\b"):
        oracle.draw_batch(np.stack([X0, X1])[None], 2)


@pytest.mark.parametrize("n", [2.5, -1, "3", True, None, np.float64(3.0)])
def test_counts_that_are_not_non_negative_integers_raise_naming_the_count(n):
    oracle = Oracle(get_problem("dgp2"), 1000, np.random.default_rng(13))
    with pytest.raises(ValueError, match=r"\bn\b"):
        oracle.draw(X0, n)
    with pytest.raises(ValueError, match=r"\bn_each\b"):
        oracle.draw_batch(X0[None], n)
    assert oracle.used == 0


def test_numpy_integer_counts_are_accepted():
    oracle = Oracle(get_problem("dgp2"), 1000, np.random.default_rng(14))
    assert oracle.draw(X0, np.int32(4)).shape == (4, 5)
    assert oracle.used == 4


@pytest.mark.parametrize("budget", [0, -5, 2.5, "100", None, True, 10**9 + 1])
def test_every_bad_budget_gets_the_same_one_line_rule(budget):
    with pytest.raises(ValueError) as caught:
        Oracle(get_problem("dgp2"), budget, np.random.default_rng(0))
    assert str(caught.value).startswith(
        "budget must be a positive integer of at most 1,000,000,000 draws, got ")


# ---------------------------------------------------------------------------------------------
# The problem stays hidden.
# ---------------------------------------------------------------------------------------------


def test_the_oracle_exposes_no_attribute_that_returns_the_problem():
    problem = get_problem("dgp1")
    oracle = Oracle(problem, 1000, np.random.default_rng(16))
    assert not hasattr(oracle, "__dict__")  # __slots__: no vars(), no new attributes
    with pytest.raises(TypeError):
        vars(oracle)
    with pytest.raises(AttributeError):
        oracle.problem = problem
    for name in set(dir(oracle)) | set(Oracle.__slots__):
        if name.startswith("__") and name not in Oracle.__slots__:
            continue
        value = getattr(oracle, name, None)
        assert value is not problem, name
        assert not isinstance(value, DGP2.__mro__[1]), name  # no GaussianCopulaProblem
        # No bound method of the problem either (its __self__ would be the problem).
        assert getattr(value, "__self__", None) is not problem, name


# ---------------------------------------------------------------------------------------------
# Incumbent and per-phase accounting.
# ---------------------------------------------------------------------------------------------


def test_incumbent_keeps_the_lower_value_unless_replaced():
    oracle = Oracle(get_problem("dgp2"), 1000, np.random.default_rng(17))
    assert oracle.incumbent is None
    oracle.record_best(X0, 10.0)
    oracle.record_best(X1, 12.0)
    x, v = oracle.incumbent
    assert np.array_equal(x, X0) and v == 10.0
    oracle.record_best(X1, 9.0)
    assert oracle.incumbent[1] == 9.0 and np.array_equal(oracle.incumbent[0], X1)
    oracle.record_best(X0, 50.0, replace=True)
    assert oracle.incumbent[1] == 50.0 and np.array_equal(oracle.incumbent[0], X0)


def test_incumbent_is_a_copy_on_the_way_in_and_out():
    oracle = Oracle(get_problem("dgp2"), 1000, np.random.default_rng(18))
    x = X0.copy()
    oracle.record_best(x, 1.0)
    x[0] = 0.0
    got, _ = oracle.incumbent
    got[1] = 0.0
    assert np.array_equal(oracle.incumbent[0], X0)


def test_a_nan_value_never_blocks_a_real_incumbent():
    oracle = Oracle(get_problem("dgp2"), 1000, np.random.default_rng(19))
    oracle.record_best(X0, float("nan"))
    oracle.record_best(X1, 5.0)
    assert oracle.incumbent[1] == 5.0
    oracle.record_best(X0, float("nan"))
    assert oracle.incumbent[1] == 5.0 and np.array_equal(oracle.incumbent[0], X1)


def test_phases_nest_and_restore_after_an_exception():
    oracle = Oracle(get_problem("dgp2"), 100, np.random.default_rng(20))
    oracle.draw(X0, 3)
    with oracle.phase("outer"):
        oracle.draw(X0, 4)
        with oracle.phase("inner"):
            oracle.draw(X0, 5)
        oracle.draw(X0, 6)
        with pytest.raises(BudgetExhausted), oracle.phase("failing"):
            oracle.draw(X0, 1000)
        oracle.draw(X0, 7)
    oracle.draw(X0, 8)
    assert oracle.account == {
        "main": {"draws": 11, "calls": 2},
        "outer": {"draws": 17, "calls": 3},
        "inner": {"draws": 5, "calls": 1},
    }
    assert sum(v["draws"] for v in oracle.account.values()) == oracle.used == 33
    summary = oracle.summary()
    assert summary["used"] == 33 and summary["budget"] == 100
    # The account handed out is a copy.
    oracle.account["main"]["draws"] = 0
    assert oracle.account["main"]["draws"] == 11


def test_feasibility_tolerance_is_1e_9():
    oracle = Oracle(get_problem("dgp2"), 100, np.random.default_rng(21))
    edge = np.array([0.7, 0.15, 0.0, 0.0, 0.0, 1.0])
    oracle.draw(edge + np.r_[0, 5e-10, 0, 0, 0, 0], 1)
    oracle.draw(edge + np.r_[0, 0, 0, 0, 0, 5e-10], 1)
    for bump in (np.r_[0, 1e-8, 0, 0, 0, 0], np.r_[0, 0, 0, 0, 0, 1e-8]):
        with pytest.raises(ValueError, match=r"\bx\b"):
            oracle.draw(edge + bump, 1)
    assert oracle.used == 2


def test_the_first_request_after_the_timeout_stops_the_search_and_draws_nothing(monkeypatch):
    import acfs_cli.core.oracle as oracle_module
    from acfs_cli.core.oracle import SearchStopped

    clock = [100.0]  # the oracle's clock, moved by hand: no test of a machine's speed
    monkeypatch.setattr(oracle_module.time, "monotonic", lambda: clock[0])
    oracle = Oracle(SampleOnlyProblem(), 1000, np.random.default_rng(10), timeout=2.5)
    assert oracle.timeout == 2.5 and not oracle.timed_out
    oracle.draw(X0, 10)
    oracle.record_best(X0, 1.0)
    clock[0] = 102.4  # within the limit
    oracle.draw(X0, 10)
    clock[0] = 102.5
    with pytest.raises(SearchStopped, match="by the timeout of 2.5 s"):
        oracle.draw(X0, 10)
    assert oracle.used == 20 and oracle.timed_out and oracle.stopped
    assert oracle.notes == ["stopped by the timeout of 2.5 s after 20 of 1,000 draws: the "
                            "answer is the incumbent so far (a run cut by the clock is not "
                            "repeated exactly by its seed)"]
    with pytest.raises(SearchStopped):  # and every request after it
        oracle.draw_batch(X0[None], 1)
    assert Oracle(SampleOnlyProblem(), 1000, np.random.default_rng(10)).timeout is None
