"""The exact gradient of Firth's penalty (the models' traces, :mod:`rankstats.core.firth`) against
two differentiations it does not use:

- the numerical gradient of ½ log det I(φ), I the negated Hessian of the model's objective at
  φ ± h, written here (central differences of log det, not of the Hessian);
- the penalised objective of the same model without its trace, whose modified score comes from
  central differences of the Hessian (:func:`rankstats.core.firth._differenced_trace`).

At an arbitrary (not fitted) point, on Bradley–Terry with and without Davidson's ties, battles
with ties, an order effect and a style covariate, Plackett–Luce sub-rankings and top-k rankings
with tie groups (Efron), and both through a covariate map θ = Aφ.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rankstats as rs
from rankstats.core.bradley_terry_mle import Pairs, bt_objective
from rankstats.core.firth import firth_objective, free_mask, trace_of
from rankstats.models._mle import pl_objective
from rankstats.models.system_covariates import _through

H = 1e-5


def log_det_gradient(function, free: np.ndarray, params: np.ndarray) -> np.ndarray:
    """∇ ½ log det I_ff by central differences of log det (the test's own)."""

    def half_log_det(x):
        sign, value = np.linalg.slogdet(-function(x, True)[2][np.ix_(free, free)])
        assert sign > 0
        return 0.5 * value

    out = np.zeros(len(params))
    for k in np.flatnonzero(free):
        up, down = params.copy(), params.copy()
        up[k] += H
        down[k] -= H
        out[k] = (half_log_det(up) - half_log_det(down)) / (2 * H)
    return out


def check_trace(function, free: np.ndarray, params: np.ndarray) -> None:
    assert trace_of(function) is not None
    exact = firth_objective(function, free)(params, True)[1]
    score = function(params, True)[1]
    penalty = np.where(free, exact - score, 0.0)
    expected = log_det_gradient(function, free, params)
    scale = max(1.0, float(np.max(np.abs(expected))))
    np.testing.assert_allclose(penalty, expected, atol=1e-7 * scale, rtol=0)

    def plain(x, derivatives):  # the same objective without its trace: differences
        return function(x, derivatives)

    assert trace_of(plain) is None
    differenced = firth_objective(plain, free)(params, True)[1]
    np.testing.assert_allclose(exact[free], differenced[free], atol=1e-7 * scale, rtol=0)
    assert np.max(np.abs(penalty)) > 1e-3  # the penalty's gradient is not trivially zero


def random_pairs(rng, n: int, ordered: bool, ties: bool, features: int = 0) -> Pairs:
    i, j = np.triu_indices(n, 1)
    if ordered:  # both orders, as battles (item1 shown first)
        i, j = np.r_[i, j], np.r_[j, i]
    keep = rng.random(len(i)) < 0.8
    i, j = i[keep], j[keep]
    m = rng.integers(1, 6, len(i)).astype(float)
    wins1 = rng.binomial(m.astype(int), 0.6).astype(float)
    tie = np.minimum(rng.binomial(m.astype(int), 0.2), m - wins1).astype(float) if ties else 0.0
    z = rng.normal(size=(len(i), features)) if features else None
    return Pairs(n, i, j, wins1, m - wins1 - tie, np.zeros(len(i)) + tie, features=z)


@pytest.mark.parametrize(
    ("ties", "order", "features"),
    [(False, False, 0), (True, False, 0), (True, True, 0), (True, True, 2), (False, True, 1)],
)
def test_bradley_terry_and_battle_traces_equal_differences(ties, order, features):
    rng = np.random.default_rng(11)
    n = 7
    counts = random_pairs(rng, n, ordered=order, ties=ties, features=features)
    function = bt_objective(counts, ties, None, order=order)
    size = n + int(ties) + int(order) + features
    params = rng.normal(scale=0.7, size=size)
    params[n - 1] = 0.0
    check_trace(function, free_mask(n, size), params)


def test_bradley_terry_through_a_covariate_map():
    rng = np.random.default_rng(12)
    n = 8
    counts = random_pairs(rng, n, ordered=False, ties=True)
    a = np.c_[rng.normal(size=(n, 2)), np.eye(n)[:, :2]]  # two covariates, two own log-worths
    jacobian = np.zeros((n + 1, a.shape[1] + 1))
    jacobian[:n, : a.shape[1]] = a
    jacobian[n, -1] = 1.0  # the tie parameter
    function = _through(bt_objective(counts, True, None), jacobian)
    params = rng.normal(scale=0.5, size=jacobian.shape[1])
    check_trace(function, free_mask(0, len(params)), params)


def tied_scores(rng, n_systems: int, n_tasks: int, missing: float) -> rs.Scores:
    """Scores rounded to 0.5 (tie groups) with missing cells (sub-rankings)."""
    values = np.round(rng.normal(size=(n_tasks, n_systems)) * 2) / 2
    values[rng.random(values.shape) < missing] = np.nan
    frame = pd.DataFrame(values, columns=[f"s{k}" for k in range(n_systems)])
    frame["task"] = [f"t{k}" for k in range(n_tasks)]
    long = frame.melt(id_vars="task", var_name="system", value_name="score").dropna()
    return rs.Scores.from_long(long)


@pytest.mark.parametrize("kind", ["subset", "top_k"])
def test_plackett_luce_traces_equal_differences(kind):
    rng = np.random.default_rng(13)
    rk = rs.Rankings.from_scores(tied_scores(rng, 9, 6, 0.3))
    data = rs.models.PlackettLuce(kind=kind)._prepare(rk)
    assert np.any(data.fraction > 0)  # tie groups: Efron's weights
    # subset: rankings of different lengths (padding); top_k: the unranked as a last group
    assert np.any(data.index == data.n_systems) == (kind == "subset")
    n = data.n_systems
    params = rng.normal(scale=0.7, size=n)
    params[n - 1] = 0.0
    check_trace(pl_objective(data, None), free_mask(n, n), params)


def test_plackett_luce_through_a_covariate_map():
    rng = np.random.default_rng(14)
    rk = rs.Rankings.from_scores(tied_scores(rng, 8, 5, 0.25))
    data = rs.models.PlackettLuce()._prepare(rk)
    n = data.n_systems
    a = np.c_[rng.normal(size=(n, 2)), np.eye(n)[:, :3]]
    function = _through(pl_objective(data, None), a)
    params = rng.normal(scale=0.5, size=a.shape[1])
    check_trace(function, free_mask(0, len(params)), params)


def test_a_fit_with_the_trace_equals_one_by_differences():
    """Newton on the exact modified score lands where it lands by differences (the fits of
    tests/core/test_firth.py check both against independent references)."""
    from rankstats.core.bradley_terry_mle import firth_newton

    rng = np.random.default_rng(15)
    counts = random_pairs(rng, 6, ordered=True, ties=True, features=1)
    function = bt_objective(counts, True, None, order=True)
    exact = firth_newton(function, 6, 3)
    differenced = firth_newton(lambda x, d: function(x, d), 6, 3)
    np.testing.assert_allclose(exact.params, differenced.params, atol=1e-7)
    np.testing.assert_allclose(exact.covariance, differenced.covariance, rtol=1e-6, atol=1e-9)
