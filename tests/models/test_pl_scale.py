"""Plackett–Luce derivatives in O(L·K) / O(L·K²) and the inexact Newton driver (issue 47).

References, each independent of the code under test: the dense per-choice derivatives of
rankstats ≤ issue 46 (``dense_derivatives``: every choice's probability vector over the positions,
O(K³) per ranking), a plain loop over the choices of every ranking (``looped_loglik``, Efron's
denominators written out) maximised by scipy's BFGS with central-difference standard errors, and
exact Newton steps (the driver without the Hessian cost).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import optimize

import rankstats as rs
from rankstats.core import newton_krylov
from rankstats.core.bradley_terry_mle import ConvergenceError, check_strongly_connected, newton
from rankstats.models import _mle
from rankstats.models._data import pl_data


def simulated(n, rankings, size, seed, ties=False, spread=1.0, kind="subset"):
    """Rankings of ``size`` random systems each, drawn from Plackett–Luce (Gumbel trick), with
    ties (rounded positions) when asked."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(0.0, spread, n)
    ranks = np.full((rankings, n), np.nan)
    for row in range(rankings):
        items = rng.choice(n, size, replace=False)
        order = np.argsort(np.argsort(-(theta[items] + rng.gumbel(size=size))))
        ranks[row, items] = order // 2 if ties else order
    rk = rs.Rankings(ranks, tuple(f"s{i}" for i in range(n)), tuple(range(rankings)))
    return pl_data(rk, kind=kind)


DATA = {
    "subset": lambda: simulated(9, 40, 5, 1),
    "subset ties": lambda: simulated(9, 40, 6, 2, ties=True),
    "full": lambda: simulated(7, 30, 7, 3),
    "top_k": lambda: simulated(8, 40, 3, 4, kind="top_k"),
    "top_k ties": lambda: simulated(8, 40, 4, 5, ties=True, kind="top_k"),
}


def dense_derivatives(data, theta):
    """The derivatives of rankstats ≤ issue 46: ``v[l, t, q]`` for every choice and position."""
    n = data.n_systems
    a, x, shift = _mle._pl_denominators(data, theta)
    term, gs, frac, idx = data.term, data.group_start, data.fraction, data.index
    inv = np.where(term, 1.0 / np.where(term, x, 1.0), 0.0)
    later = gs[:, None, :] > gs[:, :, None]
    same = gs[:, None, :] == gs[:, :, None]
    v = (later + same * (1.0 - frac)[:, :, None]) * a[:, None, :] * inv[:, :, None]
    theta_pad = np.append(theta, 0.0)
    value = float(np.sum(np.where(term, theta_pad[idx] - shift + np.log(inv + ~term), 0.0)))
    expected = np.bincount(idx.ravel(), weights=v.sum(axis=1).ravel(), minlength=n + 1)
    grad = np.bincount(idx[term], minlength=n + 1) - expected
    outer = np.matmul(v.transpose(0, 2, 1), v)
    flat = (idx[:, :, None] * (n + 1) + idx[:, None, :]).ravel()
    hess = np.bincount(flat, weights=outer.ravel(), minlength=(n + 1) ** 2).reshape(n + 1, n + 1)
    return value, grad[:n], hess[:n, :n] - np.diag(expected[:n])


def looped_loglik(data, theta):
    """Σ over the choices of log(worth / Efron denominator), one choice at a time."""
    n, total = data.n_systems, 0.0
    worth = np.append(np.exp(theta), 0.0)
    for row in range(data.shape[0]):
        idx, gs, ge = data.index[row], data.group_start[row], data.group_end[row]
        for t in np.flatnonzero(data.term[row]):
            k, d = t - gs[t], ge[t] - gs[t]
            risk = worth[idx[gs[t] :]].sum() - k / d * worth[idx[gs[t] : ge[t]]].sum()
            total += theta[idx[t]] - np.log(risk) if idx[t] < n else 0.0
    return total


def test_covariates_fit_equals_an_independent_maximisation_over_beta():
    """PL with system covariates: log-worths Xβ; the driver runs on the gradient Xᵀ∇ℓ and the
    products XᵀHX u; scipy's BFGS on the looped likelihood of β agrees."""
    import pandas as pd

    data = simulated(12, 80, 6, 8)
    rng = np.random.default_rng(3)
    x = rng.normal(size=(12, 2))
    covariates = pd.DataFrame(x, index=list(data.systems), columns=["c1", "c2"])
    fit = rs.models.PlackettLuce(covariates=covariates).fit(data, method="mle")
    beta = np.array([fit.parameters["beta: c1"], fit.parameters["beta: c2"]])

    def negative(b):
        return -looped_loglik(data, (x - x.mean(axis=0)) @ b)

    found = optimize.minimize(negative, np.zeros(2), method="BFGS", options={"gtol": 1e-10})
    np.testing.assert_allclose(beta, found.x, atol=1e-5)


def exact_newton(objective):
    """The objective without its Hessian cost: plain Newton steps on the full Hessian."""

    def plain(params, derivatives):
        return objective(params, derivatives)

    return plain


@pytest.mark.parametrize("name", DATA)
def test_derivatives_equal_the_dense_ones(name):
    data = DATA[name]()
    rng = np.random.default_rng(7)
    theta = rng.normal(size=data.n_systems)
    value, grad, hess = _mle.pl_derivatives(data, theta)
    dense = dense_derivatives(data, theta)
    scale = np.abs(dense[2]).max()
    assert value == pytest.approx(dense[0], rel=1e-13)
    np.testing.assert_allclose(grad, dense[1], atol=1e-12 * scale)
    np.testing.assert_allclose(hess, dense[2], atol=1e-12 * scale)
    assert _mle.pl_gradient(data, theta)[0] == pytest.approx(looped_loglik(data, theta), rel=1e-12)
    u = rng.normal(size=data.n_systems)
    product = _mle.pl_hessian_product(data, theta)
    np.testing.assert_allclose(product(u), dense[2] @ u, atol=1e-12 * scale * np.abs(u).sum())


@pytest.mark.parametrize("prior_scale", [None, 0.8])
@pytest.mark.parametrize("name", DATA)
def test_krylov_newton_finds_the_newton_optimum(name, prior_scale):
    data = DATA[name]()
    objective = _mle.pl_objective(data, prior_scale)
    assert newton_krylov.hessian_cost(objective) > 0
    fast = newton(objective, data.n_systems)
    plain = newton(exact_newton(objective), data.n_systems)
    np.testing.assert_allclose(fast.params, plain.params, atol=1e-9)
    np.testing.assert_allclose(fast.covariance, plain.covariance, rtol=1e-8, atol=1e-12)
    assert fast.objective == pytest.approx(plain.objective, rel=1e-13)


@pytest.mark.parametrize("name", ["subset ties", "top_k"])
def test_mle_and_standard_errors_match_an_independent_maximisation(name):
    data = DATA[name]()
    n = data.n_systems
    fit = rs.models.PlackettLuce(kind=data.kind).fit(data, method="mle")

    def negative(free):
        return -looped_loglik(data, np.append(free, 0.0))

    found = optimize.minimize(negative, np.zeros(n - 1), method="BFGS", options={"gtol": 1e-9})
    theta = np.append(found.x, 0.0)
    np.testing.assert_allclose(fit.worth.to_numpy(), theta - theta.mean(), atol=2e-5)
    # the information of the free log-worths by central differences of the looped likelihood
    h, info = 1e-4, np.zeros((n - 1, n - 1))
    for i in range(n - 1):
        for j in range(n - 1):
            shifts = [(h, h), (h, -h), (-h, h), (-h, -h)]
            values = []
            for di, dj in shifts:
                x = found.x.copy()
                x[i] += di
                x[j] += dj
                values.append(negative(x))
            info[i, j] = (values[0] - values[1] - values[2] + values[3]) / (4 * h * h)
    cov = np.zeros((n, n))
    cov[:-1, :-1] = np.linalg.inv(info)
    centre = np.eye(n) - 1.0 / n
    se = np.sqrt(np.diag(centre @ cov @ centre))
    np.testing.assert_allclose(fit.se.to_numpy(), se, rtol=1e-4)


def test_a_dominant_system_converges():
    """Systems that win nearly every choice: Newton's steps from 0 overshoot by tens of log-worth
    units, where the worths underflow (rankstats ≤ issue 46 failed its line search on these
    data, whose MLE exists); the step cap keeps the iteration where they do not."""
    data = simulated(200, 400, 20, 25, spread=2.0)
    check_strongly_connected(data.systems, _mle.pl_beats(data))  # the MLE exists
    with pytest.raises(ConvergenceError, match="line search failed"):
        newton(exact_newton(_mle.pl_objective(data, None)), data.n_systems)
    optimum = newton(_mle.pl_objective(data, None), data.n_systems)
    assert np.abs(_mle.pl_gradient(data, optimum.params)[1]).max() < 1e-8


def test_bradley_terry_log_probabilities_without_ties():
    """log P(i beats j) = −log(1 + e^{θj−θi}) by log1p: against math.log1p/exp term by term,
    accurate for the loser's tiny log-probability at large differences too."""
    import math

    from rankstats.core.bradley_terry_likelihood import Pairs, bt_terms

    diffs = np.array([-40.0, -5.0, -1e-9, 0.0, 0.3, 7.0, 40.0])
    counts = Pairs(
        2 * len(diffs),
        np.arange(0, 2 * len(diffs), 2),
        np.arange(1, 2 * len(diffs), 2),
        np.ones(len(diffs)),
        np.ones(len(diffs)),
        np.zeros(len(diffs)),
    )
    theta = np.zeros(2 * len(diffs))
    theta[1::2] = diffs  # θj − θi
    win, loss, _ = bt_terms(counts, theta, ties=False)
    for d, w, lo in zip(diffs, win, loss, strict=True):
        exact_win = -(max(d, 0.0) + math.log1p(math.exp(-abs(d))))
        exact_loss = -(max(-d, 0.0) + math.log1p(math.exp(-abs(d))))
        assert w == pytest.approx(exact_win, rel=1e-15, abs=0)
        assert lo == pytest.approx(exact_loss, rel=1e-15, abs=0)
    assert loss[-1] == pytest.approx(-math.exp(-40.0), rel=1e-12)  # the loser's tiny log-prob
