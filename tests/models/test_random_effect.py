"""System covariates in Plackett–Luce and a system random effect (issue 27, item 1): the PL
MLE against statsmodels' conditional logit, the Laplace fit of the random effect against the
marginal likelihood integrated by adaptive Gauss–Hermite quadrature, interval coverage in
simulation."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, special
from statsmodels.discrete.conditional_models import ConditionalLogit

import rankstats as rs
from rankstats.errors import InvalidScoresError
from rankstats.models.system_covariates import covariate_map


def _pl_rankings(theta: np.ndarray, n_rankings: int, size: int, rng) -> list[list[int]]:
    """Rankings of ``size`` systems drawn at random, ordered by Gumbel-perturbed log-worths
    (a Plackett–Luce sample: Yellott 1977)."""
    out = []
    for _ in range(n_rankings):
        chosen = rng.choice(len(theta), size=size, replace=False)
        keys = theta[chosen] + rng.gumbel(size=size)
        out.append(list(chosen[np.argsort(-keys)]))
    return out


def test_plackett_luce_with_covariates_is_a_conditional_logit() -> None:
    rng = np.random.default_rng(7)
    n = 9
    systems = [f"s{k}" for k in range(n)]
    x = rng.normal(size=(n, 2))
    theta = x @ np.array([0.9, -0.4])
    theta[4] = 0.7  # s4: no covariates below, a log-worth of its own
    orderings = _pl_rankings(theta, 300, 4, rng)
    rankings = rs.Rankings.from_orderings([[systems[k] for k in o] for o in orderings])
    covariates = pd.DataFrame(x, index=systems, columns=["size", "age"]).drop(index="s4")
    fit = rs.models.PlackettLuce(covariates=covariates).fit(rankings, method="mle")
    # The conditional logit: every stage of a ranking is a choice among the systems not yet
    # placed (a group with one 1), with the columns of A (the covariates; s4's indicator).
    cmap = covariate_map(fit.systems, covariates)
    index = [fit.systems.index(s) for s in systems]
    a = cmap.matrix[index]
    rows, groups, chosen = [], [], []
    group = 0
    for order in orderings:
        for stage in range(len(order) - 1):
            for pos, k in enumerate(order[stage:]):
                rows.append(a[k])
                groups.append(group)
                chosen.append(float(pos == 0))
            group += 1
    logit = ConditionalLogit(np.array(chosen), np.array(rows), groups=np.array(groups))
    reference = logit.fit(method="newton", disp=False, tol=1e-12, maxiter=100)
    names = cmap.parameter_names
    np.testing.assert_allclose([fit.parameters[k] for k in names], reference.params, atol=1e-6)
    np.testing.assert_allclose([fit.parameters[f"{k}_se"] for k in names], reference.bse, rtol=1e-5)
    np.testing.assert_allclose(fit.log_likelihood, reference.llf, rtol=1e-9)


def _bt_counts(seed: int, n: int, m: int, beta: float, sigma: float):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    theta = beta * x + sigma * rng.normal(size=n)
    i, j = np.triu_indices(n, 1)
    wins1 = rng.binomial(m, 1.0 / (1.0 + np.exp(-(theta[i] - theta[j])))).astype(float)
    systems = [f"s{k}" for k in range(n)]
    frame = pd.DataFrame(
        {
            "item1": [systems[k] for k in i],
            "item2": [systems[k] for k in j],
            "wins1": wins1,
            "wins2": m - wins1,
        }
    )
    return frame, pd.DataFrame({"x": x}, index=systems), x, i, j, wins1


def _quadrature_mle(x, i, j, wins1, m, start):
    """The marginal MLE of (β, σ) with u ~ N(0, σ²) integrated out by adaptive Gauss–Hermite
    quadrature (12 nodes per system, centred and scaled at the mode of each integrand)."""
    n = len(x)
    nodes, weights = np.polynomial.hermite_e.hermegauss(12)
    grid = np.array(list(itertools.product(range(len(nodes)), repeat=n)))
    z = nodes[grid]
    log_w = np.log(weights[grid]).sum(axis=1)  # ∫ f(z) N(z; 0, I) dz · (2π)^{n/2}

    def loglik(u, b):
        d = (b * x + u)[..., i] - (b * x + u)[..., j]
        return (-wins1 * np.logaddexp(0, -d) - (m - wins1) * np.logaddexp(0, d)).sum(axis=-1)

    def log_marginal(params):
        b, s = params[0], np.exp(params[1])

        def f(u):
            return -(loglik(u, b) - 0.5 * (u @ u) / s**2)

        mode = optimize.minimize(f, np.zeros(n), method="BFGS", options={"gtol": 1e-9}).x
        h = 1e-4
        eye = np.eye(n) * h
        hess = np.array(
            [
                [
                    (f(mode + eye[a] + eye[c]) - f(mode + eye[a] - eye[c]))
                    - (f(mode - eye[a] + eye[c]) - f(mode - eye[a] - eye[c]))
                    for c in range(n)
                ]
                for a in range(n)
            ]
        ) / (4 * h * h)
        root = np.linalg.cholesky(np.linalg.inv(hess))
        u = mode + z @ root.T
        log_prior = -0.5 * (u**2).sum(axis=1) / s**2 - n * np.log(s)
        log_std = -0.5 * (z**2).sum(axis=1)
        values = loglik(u, b) + log_prior - log_std + np.log(np.linalg.det(root))
        return special.logsumexp(values + log_w) - 0.5 * n * np.log(2 * np.pi)

    found = optimize.minimize(
        lambda p: -log_marginal(p),
        start,
        method="Nelder-Mead",
        options={"xatol": 1e-6, "fatol": 1e-9},
    )
    return found.x[0], float(np.exp(found.x[1])), -found.fun


def test_the_laplace_fit_of_a_random_effect_matches_the_integrated_likelihood() -> None:
    frame, covariates, x, i, j, wins1 = _bt_counts(3, 4, 150, 0.8, 0.6)
    fit = rs.models.BradleyTerry(covariates=covariates, random_effect=True).fit(frame, method="mle")
    beta, sigma = fit.parameters["beta: x"], fit.parameters["sigma"]
    b, s, value = _quadrature_mle(x, i, j, wins1, 150, [beta, np.log(sigma)])
    assert abs(beta - b) < 0.05 * fit.parameters["beta: x_se"]
    assert abs(sigma - s) < 0.05 * fit.parameters["sigma_se"]
    # the binomial coefficients are omitted by both
    assert abs(fit.log_likelihood - value) < 0.01


def test_no_variation_beyond_the_covariates_gives_the_fixed_effect_fit() -> None:
    frame, covariates, *_ = _bt_counts(5, 12, 60, 1.0, 0.0)
    fixed = rs.models.BradleyTerry(covariates=covariates).fit(frame, method="mle")
    mixed = rs.models.BradleyTerry(covariates=covariates, random_effect=True).fit(
        frame, method="mle"
    )
    # The Laplace likelihood decreases in σ here: σ̂ = 0, the fixed-effect fit.
    assert mixed.parameters["sigma"] == 0.0 and np.isnan(mixed.parameters["sigma_se"])
    assert mixed.log_likelihood == fixed.log_likelihood
    assert mixed.parameters["beta: x"] == fixed.parameters["beta: x"]


def test_random_effect_alone_shrinks_the_free_log_worths() -> None:
    frame, *_ = _bt_counts(11, 10, 8, 0.0, 1.0)
    free = rs.models.BradleyTerry().fit(frame, method="mle")
    mixed = rs.models.BradleyTerry(random_effect=True).fit(frame, method="mle")
    spread_free = free.worth.abs().sum()
    assert 0 < mixed.worth.abs().sum() < spread_free
    assert mixed.info["random_effect"] is True and mixed.info["covariates"] == []


@pytest.mark.slow
def test_wald_intervals_of_the_coefficients_cover() -> None:
    """Plackett–Luce with covariates: 95 % Wald intervals of β cover the true β in 200 data
    sets (binomial 99.9 % band around 0.95)."""
    rng = np.random.default_rng(2026)
    n, reps = 10, 200
    systems = [f"s{k}" for k in range(n)]
    truth = np.array([0.6, -0.3])
    hits = np.zeros(2)
    for _ in range(reps):
        x = rng.normal(size=(n, 2))
        orderings = _pl_rankings(x @ truth, 60, 4, rng)
        rankings = rs.Rankings.from_orderings([[systems[k] for k in o] for o in orderings])
        covariates = pd.DataFrame(x, index=systems, columns=["a", "b"])
        fit = rs.models.PlackettLuce(covariates=covariates).fit(rankings, method="mle")
        est = np.array([fit.parameters["beta: a"], fit.parameters["beta: b"]])
        se = np.array([fit.parameters["beta: a_se"], fit.parameters["beta: b_se"]])
        hits += np.abs(est - truth) <= 1.959964 * se
    low, high = 0.95 - 3.29 * np.sqrt(0.95 * 0.05 / reps), 0.95 + 3.29 * np.sqrt(0.95 * 0.05 / reps)
    assert np.all((hits / reps >= low) & (hits / reps <= high)), hits / reps


@pytest.mark.slow
def test_sigma_is_recovered_and_the_coefficient_covered_in_simulation() -> None:
    """The Laplace fit with a random effect: over 100 benchmarks of 40 systems (σ = 0.8,
    β = 0.5), the mean σ̂ is within 10 % of σ (maximum likelihood of a variance component is
    biased down by about (N − K)/N) and the Wald intervals of β cover at 95 % ± MC error."""
    rng = np.random.default_rng(77)
    n, reps, sigma, beta = 40, 100, 0.8, 0.5
    sigmas, hits = [], 0
    for _ in range(reps):
        frame, covariates, *_ = _bt_counts(int(rng.integers(1 << 31)), n, 6, beta, sigma)
        fit = rs.models.BradleyTerry(covariates=covariates, random_effect=True).fit(
            frame, method="mle"
        )
        sigmas.append(fit.parameters["sigma"])
        hits += abs(fit.parameters["beta: x"] - beta) <= 1.959964 * fit.parameters["beta: x_se"]
    assert abs(np.mean(sigmas) - sigma) < 0.1 * sigma, np.mean(sigmas)
    assert 0.95 - 3.29 * np.sqrt(0.0475 / reps) <= hits / reps <= 1.0, hits


@pytest.mark.slow
def test_the_posterior_with_covariates_and_a_random_effect() -> None:
    """NUTS with covariates and a random effect: converges, agrees with the Laplace fit within
    a fraction of a posterior sd, and carries the pointwise log-likelihood that compare_fits
    needs to compare the model with the one without covariates."""
    rng = np.random.default_rng(12)
    n = 12
    systems = [f"s{k}" for k in range(n)]
    x = rng.normal(size=n)
    theta = 0.9 * x + 0.5 * rng.normal(size=n)
    orderings = _pl_rankings(theta, 150, 5, rng)
    rankings = rs.Rankings.from_orderings([[systems[k] for k in o] for o in orderings])
    covariates = pd.DataFrame({"x": x}, index=systems).drop(index="s0")
    model = rs.models.PlackettLuce(covariates=covariates, random_effect=True)
    kwargs = {"progressbar": False, "sampler": "pymc"}
    posterior = model.fit(rankings, method="nuts", **kwargs)
    laplace = model.fit(rankings, method="mle")
    assert posterior.info["converged"], posterior.info["problems"]
    # σ's posterior is skewed (its mean lies above the likelihood's mode): one sd for it.
    for name, within in (("beta: x", 0.5), ("own: s0", 0.5), ("sigma", 1.0)):
        gap = abs(posterior.parameters[name] - laplace.parameters[name])
        assert gap < within * posterior.parameters[f"{name}_se"], name
    coefficients, draws = posterior.coefficients(0.9), posterior.draws()
    for name, values in (("beta: x", draws["beta"][:, 0]), ("sigma", draws["sigma"])):
        low, high = np.quantile(values, [0.05, 0.95])
        assert coefficients.loc[name, ["low", "high"]].tolist() == pytest.approx([low, high])
    new = pd.DataFrame({"x": [1.2, -0.5]})
    by_posterior = rs.models.predict_worth(posterior, new)
    by_laplace = rs.models.predict_worth(laplace, new)
    gap = (by_posterior["estimate"] - by_laplace["estimate"]).abs()
    assert (gap < 0.5 * by_posterior["se"]).all(), (by_posterior, by_laplace)
    free = rs.models.PlackettLuce().fit(rankings, method="nuts", **kwargs)
    table = rs.models.compare_fits({"covariates": posterior, "free": free})
    assert set(table.table.index) == {"covariates", "free"}


def test_predicted_worths_are_the_glm_linear_predictor() -> None:
    """predict_worth against statsmodels' binomial GLM: the log-odds of a system with
    covariates x against a fitted system j is the GLM's linear predictor at x − x_j, and the
    predicted log-worth's standard error the delta method's through the GLM's covariance."""
    import statsmodels.api as sm

    frame, covariates, x, i, j, _ = _bt_counts(21, 15, 30, 0.7, 0.0)
    x2 = np.column_stack([x, np.random.default_rng(1).normal(size=len(x))])
    covariates = pd.DataFrame(x2, index=covariates.index, columns=["a", "b"])
    fit = rs.models.BradleyTerry(covariates=covariates).fit(frame, method="mle")
    glm = sm.GLM(
        frame[["wins1", "wins2"]].to_numpy(), x2[i] - x2[j], family=sm.families.Binomial()
    ).fit(tol=1e-12)
    new = pd.DataFrame({"a": [1.5, -0.2], "b": [0.3, 2.0]}, index=["big", "odd"])
    predicted = rs.models.predict_worth(fit, new)
    reference = new.to_numpy() - x2[4]  # against system s4
    np.testing.assert_allclose(
        predicted["estimate"] - fit.worth["s4"], reference @ glm.params, atol=1e-7
    )
    centred = new.to_numpy() - x2.mean(axis=0)
    se = np.sqrt(np.einsum("ri,ij,rj->r", centred, glm.cov_params(), centred))
    np.testing.assert_allclose(predicted["se"], se, rtol=0.04)  # 4,000 normal draws
    # at a fitted system's own covariates: its log-worth
    own = rs.models.predict_worth(fit, covariates.loc[["s2"]])
    assert own["estimate"].iloc[0] == pytest.approx(fit.worth["s2"], abs=1e-9)
    with pytest.raises(InvalidScoresError, match="lack column"):
        rs.models.predict_worth(fit, new[["a"]])
    with pytest.raises(ValueError, match="random_effect=True"):
        rs.models.predict_worth(fit, new, new_system=True)


def test_a_stored_fit_keeps_its_coefficients(tmp_path) -> None:
    frame, covariates, *_ = _bt_counts(8, 8, 20, 0.6, 0.4)
    model = rs.models.BradleyTerry(covariates=covariates.drop(index="s1"), random_effect=True)
    fit = model.fit(frame, method="mle")
    rs.models.save(fit, "toy", tmp_path)
    back = rs.models.load("toy", "bt", tmp_path)
    assert back.parameters == pytest.approx(fit.parameters, nan_ok=True)
    new = pd.DataFrame({"x": [0.3]})
    # the estimate is the MLE's; the stored draws are thinned (its se then differs a little)
    assert rs.models.predict_worth(back, new)["estimate"].iloc[0] == pytest.approx(
        rs.models.predict_worth(fit, new)["estimate"].iloc[0], abs=1e-9
    )


def test_covariates_link_the_components_of_a_disconnected_graph() -> None:
    """Two groups of systems never compared across: the free MLE does not exist (the groups'
    difference is not identified), but with a covariate shared by both groups it does, and it
    is the same binomial GLM."""
    import statsmodels.api as sm

    rng = np.random.default_rng(3)
    systems = [f"s{k}" for k in range(8)]
    x = rng.normal(size=8)
    pairs = [(a, b) for g in (range(4), range(4, 8)) for a in g for b in g if a < b]
    i, j = np.array(pairs).T
    wins1 = rng.binomial(30, 1 / (1 + np.exp(-0.9 * (x[i] - x[j])))).astype(float)
    frame = pd.DataFrame(
        {
            "item1": [systems[k] for k in i],
            "item2": [systems[k] for k in j],
            "wins1": wins1,
            "wins2": 30 - wins1,
        }
    )
    with pytest.raises(rs.models.MLEDoesNotExistError):
        rs.models.BradleyTerry().fit(frame, method="mle")
    covariates = pd.DataFrame({"x": x}, index=systems)
    fit = rs.models.BradleyTerry(covariates=covariates).fit(frame, method="mle")
    glm = sm.GLM(
        frame[["wins1", "wins2"]].to_numpy(), (x[i] - x[j])[:, None], family=sm.families.Binomial()
    ).fit(tol=1e-12)
    assert fit.parameters["beta: x"] == pytest.approx(glm.params[0], abs=1e-6)
