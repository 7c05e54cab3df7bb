"""Firth's bias-reduced estimate (``bias_reduction=True``) against independent implementations:

- Bradley–Terry (with and without system covariates) is a logistic regression on the design
  ``x_winner − x_loser``; the test solves Firth's modified score equations of that regression,
  U*(β) = Xᵀ(y − p + h(½ − p)) with the hat values h (Firth 1993, §3; Heinze & Schemper 2002),
  by its own Fisher-scoring loop;
- BradleyTerry2's published bias-reduced fit of the flatlizards contests (``BTm(..., br =
  TRUE)``, tests/flatlizards.Rout.save of hturner/BradleyTerry2);
- Plackett–Luce, and Bradley–Terry with Davidson's ties and an order effect (the battle fits):
  the log-likelihood and the information Σ Zᵀ(diag p − ppᵀ)Z of each choice written out here as
  multinomial logits, ℓ + ½ log det I maximised by scipy's generic optimiser.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import optimize

import rankstats as rs
from rankstats.core.bradley_terry_mle import MLEDoesNotExistError

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "converted"


# ---------------------------------------------------------------- independent references
def firth_logistic(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Firth's logistic regression without intercept: (β, standard errors from I(β)⁻¹)."""
    beta = np.zeros(x.shape[1])

    def penalised(b):
        p = 1 / (1 + np.exp(-x @ b))
        info = x.T @ ((p * (1 - p))[:, None] * x)
        loglik = np.sum(y * np.log(p) + (1 - y) * np.log1p(-p))
        return loglik + 0.5 * np.linalg.slogdet(info)[1]

    for _ in range(500):
        p = 1 / (1 + np.exp(-x @ beta))
        w = p * (1 - p)
        inverse = np.linalg.inv(x.T @ (w[:, None] * x))
        hat = w * np.einsum("ij,jk,ik->i", x, inverse, x)
        step = inverse @ (x.T @ (y - p + hat * (0.5 - p)))
        scale = 1.0
        while penalised(beta + scale * step) < penalised(beta) and scale > 1e-8:
            scale /= 2
        beta = beta + scale * step
        if np.max(np.abs(scale * step)) < 1e-12:
            break
    p = 1 / (1 + np.exp(-x @ beta))
    info = x.T @ ((p * (1 - p))[:, None] * x)
    return beta, np.sqrt(np.diag(np.linalg.inv(info)))


def multinomial_penalised(blocks):
    """``-(ℓ + ½ log det I)`` of independent multinomial-logit choices: ``blocks`` is a list of
    ``(Z, chosen, count)`` — Z the rows of the alternatives' linear predictors (η = Z φ)."""

    def value(phi):
        loglik, info = 0.0, 0.0
        for z, chosen, count in blocks:
            eta = z @ phi
            p = np.exp(eta - eta.max())
            p /= p.sum()
            loglik += count * np.log(p[chosen])
            info = info + count * z.T @ (np.diag(p) - np.outer(p, p)) @ z
        sign, logdet = np.linalg.slogdet(info)
        return np.inf if sign <= 0 else -(loglik + 0.5 * logdet)

    return value


def minimise(function, size):
    found = optimize.minimize(function, np.zeros(size), method="BFGS", options={"gtol": 1e-9})
    return found.x


def separated_counts(seed=0, n=6):
    """Paired counts in which system s0 never loses and s5 never wins."""
    rng = np.random.default_rng(seed)
    i, j = np.triu_indices(n, 1)
    theta = np.linspace(1.0, -1.0, n)
    m = rng.integers(1, 4, len(i))
    wins1 = rng.binomial(m, 1 / (1 + np.exp(theta[j] - theta[i])))
    wins1[i == 0] = m[i == 0]  # s0 beats everyone
    wins1[j == n - 1] = m[j == n - 1]  # everyone beats s5
    names = np.array([f"s{k}" for k in range(n)])
    return pd.DataFrame({"item1": names[i], "item2": names[j], "wins1": wins1, "wins2": m - wins1})


def logistic_design(counts, columns):
    """One row per comparison: ``x_winner − x_loser`` (``columns``: system → row of x), y = 1."""
    rows = []
    for r in counts.itertuples():
        rows += [columns[r.item1] - columns[r.item2]] * r.wins1
        rows += [columns[r.item2] - columns[r.item1]] * r.wins2
    x = np.array(rows)
    # Half the rows mirrored (y = 0 on −x): the same likelihood, a design logistf would take.
    y = np.ones(len(x))
    x[::2], y[::2] = -x[::2], 0.0
    return x, y


# ---------------------------------------------------------------- Bradley–Terry
def test_bt_free_worths_equal_firth_logistic_regression():
    counts = separated_counts()
    systems = sorted(set(counts.item1) | set(counts.item2))
    with pytest.raises(MLEDoesNotExistError, match=r"never lose \(nor tie\), 1: s0"):
        rs.models.BradleyTerry().fit(counts, method="mle")
    fit = rs.models.BradleyTerry().fit(counts, method="mle", bias_reduction=True)
    # Reference: the last system's worth is 0 (its column left out of the design).
    eye = np.eye(len(systems))[:, :-1]
    x, y = logistic_design(counts, dict(zip(systems, eye, strict=True)))
    beta, se = firth_logistic(x, y)
    theta = np.append(beta, 0.0)
    np.testing.assert_allclose(fit.worth[systems].to_numpy(), theta - theta.mean(), atol=1e-7)
    # The standard error of a contrast with the reference: √[I⁻¹]_kk.
    cov = fit.covariance.loc[systems, systems].to_numpy()
    contrast = np.diag(cov)[:-1] + cov[-1, -1] - 2 * cov[:-1, -1]
    np.testing.assert_allclose(np.sqrt(contrast), se, rtol=1e-6)
    assert fit.info["bias_reduction"].startswith("Firth")
    assert np.isfinite(fit.worth).all() and fit.worth["s0"] == fit.worth.max()


def test_bt_with_covariates_and_own_worths_equals_firth_logistic_regression():
    counts = separated_counts(seed=3, n=7)
    rng = np.random.default_rng(1)
    systems = [f"s{k}" for k in range(7)]
    x = pd.DataFrame(rng.normal(size=(7, 2)), index=systems, columns=["size", "age"])
    x.loc["s0", "size"] = np.nan  # s0 (never loses) has an own log-worth, as lizard096
    with pytest.raises(MLEDoesNotExistError, match=r"s0 \(never lose"):
        rs.models.BradleyTerry(covariates=x).fit(counts, method="mle")
    fit = rs.models.BradleyTerry(covariates=x).fit(counts, method="mle", bias_reduction=True)
    columns = {s: np.r_[x.loc[s].to_numpy(), 0.0] for s in systems[1:]}
    columns["s0"] = np.array([0.0, 0.0, 1.0])
    design, y = logistic_design(counts, columns)
    beta, se = firth_logistic(design, y)
    names = ["beta: size", "beta: age", "own: s0"]
    np.testing.assert_allclose([fit.parameters[k] for k in names], beta, atol=1e-7)
    np.testing.assert_allclose([fit.parameters[k + "_se"] for k in names], se, rtol=1e-6)


@pytest.mark.skipif(not SHARED.exists(), reason="needs ../shared (BradleyTerry2's flatlizards)")
def test_flatlizards_reproduces_bradleyterry2_br_true():
    # BTm(result, winner, loser, br = TRUE, data = contests): lizard003 is the reference, and
    # one lizard per other group of the (4-group) comparison graph is aliased (NA, i.e. 0).
    published = {  # estimate, standard error (4 digits as printed)
        "lizard005": (-1.2050, 4.6460),
        "lizard006": (-2.8710, 5.9226),
        "lizard009": (0.0795, 6.1826),
        "lizard010": (-1.9386, 5.3745),
        "lizard096": (-0.7485, 5.5614),
        "lizard170": (0.5872, 2.2387),
        "lizard061": (-1.0971, 1.9958),
        "lizard011": (-1.0986, 2.3094),  # its group's reference: lizard060
        "lizard026": (-2.1972, 3.2660),  # its group's reference: lizard058
    }
    contests = pd.read_csv(SHARED / "flatlizards_contests.csv")
    counts = pd.DataFrame(
        {"item1": contests.winner, "item2": contests.loser, "wins1": 1, "wins2": 0}
    )
    with pytest.raises(MLEDoesNotExistError, match="4 groups never compared"):
        rs.models.BradleyTerry().fit(counts, method="mle", bias_reduction=True)
    groups = [["lizard003", "lizard005"], ["lizard011", "lizard060"], ["lizard026", "lizard058"]]
    loglik = 0.0
    for members in [*groups, ["lizard024", "lizard053"]]:
        keep = _group_of(counts, members[0])
        fit = rs.models.BradleyTerry().fit(counts[keep], method="mle", bias_reduction=True)
        loglik += fit.log_likelihood
        reference = members[1] if members[0] != "lizard003" else "lizard003"
        cov = fit.covariance
        for name, (estimate, se) in published.items():
            if name in fit.worth.index and name != reference:
                assert fit.worth[name] - fit.worth[reference] == pytest.approx(estimate, abs=2e-4)
                var = cov.loc[name, name] + cov.loc[reference, reference]
                var -= 2 * cov.loc[name, reference]
                assert np.sqrt(var) == pytest.approx(se, abs=2e-4)
    assert -2 * loglik == pytest.approx(50.212, abs=1e-3)  # "Residual deviance: 50.212"


@pytest.mark.skipif(not SHARED.exists(), reason="needs ../shared (BradleyTerry2's flatlizards)")
def test_flatlizards_whiting_model_bias_reduced_equals_firth_logistic_regression():
    # Whiting et al. (2006), Table 1: BTm(..., ~ throat.PC1[..] + throat.PC3[..] +
    # head.length[..] + SVL[..]); lizards 096 and 099 lack throat data (abilities of their own)
    # and 096 never loses, so the MLE is infinite (BTm prints 16.4 ± 1194.5).
    contests = pd.read_csv(SHARED / "flatlizards_contests.csv")
    predictors = pd.read_csv(SHARED / "flatlizards_predictors.csv", index_col="lizard")
    x = predictors[["throat.PC1", "throat.PC3", "head.length", "SVL"]]
    counts = pd.DataFrame(
        {"item1": contests.winner, "item2": contests.loser, "wins1": 1, "wins2": 0}
    )
    model = rs.models.BradleyTerry(covariates=x)
    with pytest.raises(MLEDoesNotExistError, match=r"lizard096 \(never lose") as err:
        model.fit(counts, method="mle")
    assert "lizard099" not in str(err.value) and "bias_reduction=True" in str(err.value)
    fit = model.fit(counts, method="mle", bias_reduction=True)
    own = ["lizard096", "lizard099"]
    columns = {s: np.r_[x.loc[s].to_numpy(), 0.0, 0.0] for s in x.index if s not in own}
    columns["lizard096"], columns["lizard099"] = np.eye(6)[4], np.eye(6)[5]
    design, y = logistic_design(counts, columns)
    beta, se = firth_logistic(design, y)
    names = [f"beta: {c}" for c in x.columns] + [f"own: {s}" for s in own]
    np.testing.assert_allclose([fit.parameters[k] for k in names], beta, atol=1e-7)
    np.testing.assert_allclose([fit.parameters[k + "_se"] for k in names], se, rtol=1e-6)
    assert 0 < fit.parameters["own: lizard096"] < 5  # finite, with a finite standard error


def _group_of(counts: pd.DataFrame, system: str) -> np.ndarray:
    """Rows of the comparisons in ``system``'s connected group."""
    group = {system}
    while True:
        rows = counts.item1.isin(group) | counts.item2.isin(group)
        grown = group | set(counts.item1[rows]) | set(counts.item2[rows])
        if grown == group:
            return rows.to_numpy()
        group = grown


# ---------------------------------------------------------------- Plackett–Luce
def pl_blocks(orderings, columns):
    """The choices of Plackett–Luce: each position of each ordering picks from what is left."""
    blocks = []
    for order in orderings:
        for k in range(len(order) - 1):
            blocks.append((np.array([columns[s] for s in order[k:]]), 0, 1))
    return blocks


def pl_orderings():
    rng = np.random.default_rng(5)
    systems = ["a", "b", "c", "d", "e"]
    orderings = []
    for _ in range(12):
        chosen = list(rng.choice(systems[:4], size=3, replace=False))
        rng.shuffle(chosen)
        orderings.append(["e", *chosen] if rng.random() < 0.5 else chosen)  # e never loses
    return systems, orderings


def test_pl_equals_generic_optimisation_of_the_penalised_likelihood():
    systems, orderings = pl_orderings()
    rk = rs.Rankings.from_orderings(orderings)
    fit = rs.models.PlackettLuce().fit(rk, method="mle", bias_reduction=True)
    eye = dict(zip(systems, np.eye(5)[:, :-1], strict=True))  # e, the last, fixed at 0
    theta = np.append(minimise(multinomial_penalised(pl_blocks(orderings, eye)), 4), 0.0)
    np.testing.assert_allclose(fit.worth[systems], theta - theta.mean(), atol=2e-5)


def test_pl_with_covariates_equals_generic_optimisation():
    systems, orderings = pl_orderings()
    x = pd.DataFrame({"size": [0.3, -1.2, 0.8, 0.1]}, index=systems[:4])  # e: its own worth
    rk = rs.Rankings.from_orderings(orderings)
    fit = rs.models.PlackettLuce(covariates=x).fit(rk, method="mle", bias_reduction=True)
    columns = {s: np.array([x.loc[s, "size"], 0.0]) for s in systems[:4]}
    columns["e"] = np.array([0.0, 1.0])
    phi = minimise(multinomial_penalised(pl_blocks(orderings, columns)), 2)
    assert fit.parameters["beta: size"] == pytest.approx(phi[0], abs=2e-5)
    assert fit.parameters["own: e"] == pytest.approx(phi[1], abs=2e-5)


# ---------------------------------------------------------------- battles
def test_battles_with_ties_and_order_effect_equal_generic_optimisation():
    rows = [  # model_a shown first; "d" never loses
        ("d", "a", "model_a"), ("b", "d", "tie"), ("d", "c", "model_a"), ("a", "b", "model_a"),
        ("b", "a", "model_a"), ("c", "a", "model_b"), ("a", "c", "tie"), ("b", "c", "model_a"),
        ("c", "b", "model_a"), ("a", "b", "model_b"), ("d", "b", "model_a"), ("c", "d", "model_b"),
    ]  # fmt: skip
    log = pd.DataFrame(rows, columns=["model_a", "model_b", "winner"])
    battles = rs.read_battles(log)
    fit = rs.fit_battles(battles, bias_reduction=True, n_resamples=0, order_effect=True)
    models = list(battles.models)
    index = {m: k for k, m in enumerate(models)}
    size = len(models) - 1 + 2  # worths (last fixed), log ν, η
    blocks = []
    for a, b, winner in rows:
        za, zb = np.zeros(size), np.zeros(size)
        if index[a] < len(models) - 1:
            za[index[a]] = 1.0
        if index[b] < len(models) - 1:
            zb[index[b]] = 1.0
        za[-1] = 1.0  # the order effect: h π_a
        tie = 0.5 * (za + zb)
        tie[-2] = 1.0  # ν √(h π_a π_b)
        chosen = {"model_a": 0, "model_b": 1, "tie": 2}[winner]
        blocks.append((np.array([za, zb, tie]), chosen, 1))
    phi = minimise(multinomial_penalised(blocks), size)
    theta = np.append(phi[: len(models) - 1], 0.0)
    np.testing.assert_allclose(fit.log_worth, theta - theta.mean(), atol=2e-5)
    assert "bias_reduction" in fit.info
    n = len(models)
    assert fit.params[n] == pytest.approx(phi[-2], abs=2e-5)  # log ν
    assert fit.params[n + 1] == pytest.approx(phi[-1], abs=2e-5)  # η


# ---------------------------------------------------------------- options
def test_bias_reduction_is_refused_where_it_does_not_apply():
    counts = separated_counts()
    with pytest.raises(ValueError, match="bias_reduction=True penalises the likelihood"):
        rs.models.BradleyTerry().fit(counts, method="map", bias_reduction=True)
    with pytest.raises(TypeError, match="bias_reduction must be True or False"):
        rs.models.BradleyTerry().fit(counts, method="mle", bias_reduction="yes")
    with pytest.raises(ValueError, match="random_effect=True"):
        rs.models.BradleyTerry(random_effect=True).fit(counts, method="mle", bias_reduction=True)
    log = pd.DataFrame({"model_a": ["a", "b"], "model_b": ["b", "c"], "winner": ["model_a"] * 2})
    with pytest.raises(ValueError, match=r"not available with the bootstrap \(n_resamples=10"):
        rs.fit_battles(rs.read_battles(log), bias_reduction=True, n_resamples=10)


# ---------------------------------------------------------------- simulation
def bias_and_coverage(replications: int = 400, seed: int = 2027):
    """Bradley–Terry on 6 systems (log-worths −1.5 … 1.5), every pair compared 4 times:
    (Firth's bias, its Monte Carlo s.e., the MLE's bias where it exists, the coverage of
    Firth's 95 % Wald intervals, the number of data sets without MLE), per system."""
    from rankstats.core.bradley_terry_mle import Pairs, fit_bt

    rng = np.random.default_rng(seed)
    n, m = 6, 4
    theta = np.linspace(1.5, -1.5, n)
    i, j = np.triu_indices(n, 1)
    firth, covered, mle = [], [], []
    for _ in range(replications):
        wins1 = rng.binomial(m, 1 / (1 + np.exp(theta[j] - theta[i]))).astype(float)
        pairs = Pairs(n, i, j, wins1, m - wins1, np.zeros(len(i)))
        found = fit_bt(pairs, ties=False, bias_reduction=True)
        estimate, se = found.params[:n], np.sqrt(np.diag(found.covariance)[:n])
        firth.append(estimate)
        covered.append(np.abs(estimate - theta) < 1.959964 * se)
        try:
            mle.append(fit_bt(pairs, ties=False).params[:n])
        except MLEDoesNotExistError:
            pass
    firth = np.array(firth)
    return (
        firth.mean(axis=0) - theta,
        firth.std(axis=0, ddof=1) / np.sqrt(replications),
        np.mean(mle, axis=0) - theta,
        np.mean(covered, axis=0),
        replications - len(mle),
    )


@pytest.mark.slow
def test_firth_removes_the_bias_and_its_intervals_cover():
    bias, mc_se, mle_bias, coverage, separated = bias_and_coverage()
    assert separated > 0  # some data sets have no MLE; Firth's estimate is finite on all
    assert np.all(np.abs(bias) < 3 * mc_se), (bias, mc_se)
    # The MLE (where it exists) is biased away from zero at both ends; Firth's is not.
    assert mle_bias[0] > 4 * mc_se[0] and mle_bias[-1] < -4 * mc_se[-1]
    assert np.all((coverage > 0.93) & (coverage < 0.995)), coverage


def test_battles_with_style_covariate_equal_generic_optimisation():
    rows = [  # model_a, model_b, winner, length difference (a − b); "d" never loses
        ("d", "a", "model_a", 0.5), ("b", "d", "tie", -0.2), ("d", "c", "model_a", 1.0),
        ("a", "b", "model_a", 0.3), ("b", "a", "model_a", -0.4), ("c", "a", "model_b", 0.1),
        ("a", "c", "tie", 0.0), ("b", "c", "model_a", 0.8), ("c", "b", "model_a", -0.6),
        ("a", "b", "model_b", -0.9), ("d", "b", "model_a", 0.2), ("c", "d", "model_b", -0.3),
    ]  # fmt: skip
    log = pd.DataFrame(rows, columns=["model_a", "model_b", "winner", "length"])
    battles = rs.read_battles(log, covariates={"length": "length"})
    raw = rs.StyleControl(standardize=False)
    fit = rs.fit_battles(battles, bias_reduction=True, order_effect=False, covariates=raw)
    models = list(battles.models)
    index = {m: k for k, m in enumerate(models)}
    size = len(models) - 1 + 2  # worths (last fixed), log ν, γ
    blocks = []
    for a, b, winner, z in rows:
        za, zb = np.zeros(size), np.zeros(size)
        if index[a] < len(models) - 1:
            za[index[a]] = 1.0
        if index[b] < len(models) - 1:
            zb[index[b]] = 1.0
        za[-1] = z  # γ z in the log-worth of model_a
        tie = 0.5 * (za + zb)
        tie[-2] = 1.0
        chosen = {"model_a": 0, "model_b": 1, "tie": 2}[winner]
        blocks.append((np.array([za, zb, tie]), chosen, 1))
    phi = minimise(multinomial_penalised(blocks), size)
    theta = np.append(phi[: len(models) - 1], 0.0)
    np.testing.assert_allclose(fit.log_worth, theta - theta.mean(), atol=2e-5)
    n = len(models)
    assert fit.params[n] == pytest.approx(phi[-2], abs=2e-5)  # log ν
    assert fit.params[n + 1] == pytest.approx(phi[-1], abs=2e-5)  # γ
