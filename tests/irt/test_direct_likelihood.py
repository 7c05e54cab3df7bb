"""EM against a second algorithm: the marginal likelihood integrated by Gauss–Hermite (101 nodes,
not the EM grid) and maximised directly by BFGS, on small data sets with missing cells."""

import numpy as np
import pytest
from numpy.polynomial.hermite_e import hermegauss
from scipy.optimize import minimize
from scipy.special import expit, log_expit, logsumexp

import rankstats as rs
from rankstats.irt.simulation import simulate_responses

NODES, WEIGHTS = hermegauss(101)
LOG_W = np.log(WEIGHTS / WEIGHTS.sum())


def loglik_binary(values, a, d):
    z = np.outer(NODES, a) + d  # nodes × items
    obs = ~np.isnan(values)
    y = np.nan_to_num(values)
    terms = y[:, None, :] * log_expit(z)[None] + (1 - y[:, None, :]) * log_expit(-z)[None]
    return logsumexp(np.sum(terms * obs[:, None, :], axis=2) + LOG_W, axis=1).sum()


def loglik_graded(values, a, d):
    star = expit(a[None, :, None] * NODES[:, None, None] + d[None])  # nodes × items × thresholds
    n_nodes, n_items = star.shape[:2]
    cum = np.concatenate([np.ones((n_nodes, n_items, 1)), star, np.zeros((n_nodes, n_items, 1))], 2)
    probs = cum[..., :-1] - cum[..., 1:]  # nodes × items × categories
    obs = ~np.isnan(values)
    cat = np.nan_to_num(values).astype(int)
    picked = probs[:, np.arange(n_items)[None, :], cat]  # nodes × systems × items
    with np.errstate(divide="ignore"):
        ll = np.sum(np.where(obs[None], np.log(picked), 0.0), axis=2).T
    return logsumexp(ll + LOG_W, axis=1).sum()


def hessian(f, x, h=1e-4):
    """Second differences of ``f`` at ``x`` (four evaluations per entry)."""
    n = len(x)
    out = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            e_i, e_j = np.eye(n)[i] * h, np.eye(n)[j] * h
            out[i, j] = (
                f(x + e_i + e_j) - f(x + e_i - e_j) - f(x - e_i + e_j) + f(x - e_i - e_j)
            ) / (4 * h * h)
    return out


def test_2pl_with_missing_cells_equals_direct_maximisation():
    sim = simulate_responses(150, 5, "2pl", missing_rate=0.25, seed=3)
    values = sim.responses.values
    fit = rs.irt.fit(sim.responses, "2pl")

    def negative(x):
        return -loglik_binary(values, x[:5], x[5:])

    best = minimize(negative, np.r_[np.ones(5), np.zeros(5)], method="BFGS", options={"gtol": 1e-7})
    np.testing.assert_allclose(fit.items["a"], best.x[:5], atol=2e-4)
    np.testing.assert_allclose(fit.items["d"], best.x[5:], atol=2e-4)
    assert fit.loglik == pytest.approx(-best.fun, abs=1e-5)
    # The standard errors: inverse of the Hessian of the same function, by differences.
    se = np.sqrt(np.diag(np.linalg.inv(hessian(negative, best.x))))
    np.testing.assert_allclose(fit.standard_errors, se.reshape(2, 5).T.ravel(), rtol=2e-3)


def test_graded_with_missing_cells_equals_direct_maximisation():
    sim = simulate_responses(200, 4, "graded", n_categories=3, missing_rate=0.2, seed=5)
    values = sim.responses.values
    fit = rs.irt.fit(sim.responses, "graded")

    def negative(x):
        a, d1, gap = x[:4], x[4:8], np.exp(x[8:])
        return -loglik_graded(values, a, np.column_stack([d1, d1 - gap]))

    best = minimize(
        negative, np.r_[np.ones(4), np.ones(4), np.zeros(4)], method="BFGS", options={"gtol": 1e-7}
    )
    d = np.column_stack([best.x[4:8], best.x[4:8] - np.exp(best.x[8:])])
    # Two integration rules (61 equally spaced points vs 101 Gauss–Hermite nodes) differ by
    # about 1e-6 in the log-likelihood: enough to move the steep item's slope (2.7) by 2e-3.
    np.testing.assert_allclose(fit.items["a"], best.x[:4], atol=3e-3)
    np.testing.assert_allclose(fit.items[["d1", "d2"]], d, atol=3e-3)
    assert fit.loglik == pytest.approx(-best.fun, abs=1e-5)


def test_missing_cells_are_not_wrong_answers():
    """Dropping a system's unobserved items changes nothing; filling them with 0 does."""
    sim = simulate_responses(120, 6, "2pl", missing_rate=0.3, seed=2)
    fit = rs.irt.fit(sim.responses, "2pl")
    filled = rs.irt.fit(np.nan_to_num(sim.responses.values), "2pl")
    assert not np.allclose(fit.items["d"], filled.items["d"], atol=0.05)
    assert (fit.abilities["n_items"] < 6).any()
