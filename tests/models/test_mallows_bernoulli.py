"""The Bernoulli error model of preferences (issue 25, item 2): the latent rankings and the error
probability θ against their exact conditional posterior, enumerated."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, stats

from rankstats.core.permutations.distances import rank_distance
from rankstats.core.preferences import AssessorPreferences
from rankstats.models.mallows._bernoulli import BernoulliAugmentation, violations

ITEMS = ("a", "b", "c")
# Assessor 0 states a cycle a ≻ b ≻ c ≻ a; assessor 1 states a ≻ b, a ≻ c and c ≻ b.
ROWS = [(0, "a", "b"), (0, "b", "c"), (0, "c", "a"), (1, "a", "b"), (1, "a", "c"), (1, "c", "b")]


def _preferences() -> AssessorPreferences:
    table = pd.DataFrame(ROWS, columns=["assessor", "preferred", "other"])
    return AssessorPreferences.from_table(table, cycles="keep")


def test_cycles_are_kept_only_when_asked():
    prefs = _preferences()
    assert prefs.cyclic == (0,)
    assert "1 assessor(s) with a cycle" in repr(prefs)
    with pytest.raises(Exception, match="cycle: a ≻ b ≻ c ≻ a"):
        AssessorPreferences.from_table(
            pd.DataFrame(ROWS, columns=["assessor", "preferred", "other"])
        )


def _exact(stated, rho, c, kappa):
    """P(R̃_0 = r) for every r and E[θ] given ρ and α (c = α/n), enumerating both assessors'
    rankings and integrating θ over [0, ½] — from the model's definition."""
    perms = [np.array(p) + 1 for p in itertools.permutations(range(3))]
    d = rank_distance(np.stack(perms), rho, "footrule")
    v = [violations(stated[j : j + 1].repeat(len(perms), 0), np.stack(perms)) for j in range(2)]
    s = int(stated.sum())
    weights = np.zeros((len(perms), len(perms)))
    theta_mean = 0.0
    for i, k in itertools.product(range(len(perms)), repeat=2):
        total_v = int(v[0][i] + v[1][k])

        def f(t, power, total_v=total_v):
            return t**power * stats.beta.pdf(t, *kappa) * t**total_v * (1 - t) ** (s - total_v)

        z = integrate.quad(f, 0, 0.5, args=(0,))[0]
        w = math.exp(-c * (d[i] + d[k])) * z
        weights[i, k] = w
        theta_mean += w * integrate.quad(f, 0, 0.5, args=(1,))[0] / z
    total = weights.sum()
    return weights.sum(axis=1) / total, theta_mean / total


@pytest.mark.slow  # a sampler against exact enumeration
def test_the_updates_reproduce_the_exact_conditional_posterior():
    prefs = _preferences()
    rho, c, kappa = np.array([1, 3, 2]), 0.6, (1.0, 1.0)
    exact_r, exact_theta = _exact(prefs.stated, rho, c, kappa)
    aug = BernoulliAugmentation(prefs.stated, "footrule", np.random.default_rng(1), kappa=kappa)
    perms = [tuple(np.array(p) + 1) for p in itertools.permutations(range(3))]
    counts = np.zeros(len(perms))
    thetas = []
    for t in range(30_000):
        aug.update(rho, c)
        thetas.append(aug.update_error())
        if t >= 1000:
            counts[perms.index(tuple(aug.completions[0]))] += 1
    share = counts / counts.sum()
    assert np.abs(share - exact_r).max() < 0.02, (share, exact_r)
    assert abs(np.mean(thetas[1000:]) - exact_theta) < 0.006, (np.mean(thetas), exact_theta)
    # The running count of violations is the count of the current rankings.
    assert aug.violations == int(violations(prefs.stated, aug.completions).sum())


@pytest.mark.slow  # a sampler's long chain against exact enumeration (15 s)
def test_the_chain_reproduces_the_exact_joint_posterior():
    """ρ, α and θ of MetropolisChain(error_model="bernoulli") against the joint posterior,
    enumerated over ρ and both latent rankings with α and θ integrated (they separate given
    them)."""
    from rankstats.core.permutations.partition import partition_function
    from rankstats.models.mallows._metropolis import MetropolisChain

    prefs = _preferences()
    n, shape, rate = 3, 2.0, 1.0
    pf = partition_function(n, "footrule")
    perms = [np.array(p) + 1 for p in itertools.permutations(range(n))]
    stack = np.stack(perms)
    v = [violations(prefs.stated[j : j + 1].repeat(len(perms), 0), stack) for j in range(2)]
    s = int(prefs.stated.sum())
    alpha_cache: dict = {}
    p_rho = np.zeros(len(perms))
    e_alpha = e_theta = total = 0.0
    for a, rho in enumerate(perms):
        d = rank_distance(stack, rho, "footrule")
        for i, k in itertools.product(range(len(perms)), repeat=2):
            big_d, total_v = int(d[i] + d[k]), int(v[0][i] + v[1][k])
            if big_d not in alpha_cache:

                def fa(x, power, big_d=big_d):
                    return (
                        x**power
                        * stats.gamma.pdf(x, shape, scale=1 / rate)
                        * math.exp(-x * big_d / n - 2 * float(pf.log_z(x)))
                    )

                alpha_cache[big_d] = [integrate.quad(fa, 0, 60, args=(q,))[0] for q in (0, 1)]

            def ft(t, power, total_v=total_v):
                return t**power * t**total_v * (1 - t) ** (s - total_v)

            t0, t1 = (integrate.quad(ft, 0, 0.5, args=(q,))[0] for q in (0, 1))
            a0, a1 = alpha_cache[big_d]
            w = a0 * t0
            p_rho[a] += w
            e_alpha += w * a1 / a0
            e_theta += w * t1 / t0
            total += w
    p_rho, e_alpha, e_theta = p_rho / total, e_alpha / total, e_theta / total
    chain = MetropolisChain(
        prefs, "footrule", np.random.default_rng(5), error_model="bernoulli",
        alpha_shape=shape, alpha_rate=rate, alpha_sd=0.6,
    )  # fmt: skip
    chain.run(2000, adapt=True)
    draws = chain.run(40_000, thin=2)
    share = np.array([np.mean((draws.rho == r).all(axis=1)) for r in perms])
    assert np.abs(share - p_rho).max() < 0.025, (share, p_rho)
    assert abs(draws.alpha.mean() - e_alpha) < 0.06 * e_alpha, (draws.alpha.mean(), e_alpha)
    assert abs(draws.error.mean() - e_theta) < 0.01, (draws.error.mean(), e_theta)


def test_a_fit_with_the_error_model_and_its_refusals():
    import rankstats as rs
    from rankstats._pymc import compat
    from rankstats._util.advice import AdviceError
    from rankstats.models.pointwise_likelihood import UNAVAILABLE

    rows = [(j, "a", "b") for j in range(8)] + [(j, "b", "c") for j in range(8)]
    rows += [(8, "c", "a"), (8, "a", "b"), (8, "b", "c")]  # one assessor with a cycle
    table = pd.DataFrame(rows, columns=["assessor", "preferred", "other"])
    prefs = AssessorPreferences.from_table(table, cycles="keep")
    with pytest.raises(AdviceError, match="error_model='bernoulli'"):
        rs.models.Mallows(distance="footrule").fit(prefs, progress=False)
    fit = rs.models.Mallows(distance="footrule", error_model="bernoulli").fit(
        prefs, draws=300, tune=1000, chains=2, progress=False, max_draws=300
    )
    assert fit.order == ["a", "b", "c"]
    error = fit.summary().loc["error_probability"]
    assert 0 < error["mean"] < 0.5 and error["r_hat"] < 1.05
    assert fit.info["error_model"]["cyclic_assessors"] == 1
    assert UNAVAILABLE in compat.attrs(fit.idata)  # not the Mallows marginal: no LOO
    with pytest.raises(ValueError, match=r"stated preferences \(AssessorPreferences\), not"):
        rs.models.Mallows(error_model="bernoulli").fit(
            rs.Rankings.from_orderings([["a", "b"], ["b", "a"]]), progress=False
        )
    with pytest.raises(ValueError, match="mixture"):
        rs.models.Mallows(error_model="bernoulli", clusters=2)
    with pytest.raises(ValueError, match="error_model"):
        rs.models.Mallows(error_model="logistic")
