"""Penalised quasi-likelihood for a system random effect (issue 45, item 3): BradleyTerry2's
printed fits of the flatlizards data (its vignette, ``BTm(..., random = ~ 1|..)``), PQL of
Plackett–Luce on paired rankings against PQL of Bradley–Terry on the same pairs, and a
simulation of the bias and coverage of both estimators (Laplace, PQL) against the truth.

``python tests/models/test_random_effect_pql.py`` prints the simulation table the docs quote
(docs/user-guide/models.md, "System covariates and random effects")."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rankstats as rs
from rankstats.errors import DataWarning
from rankstats.models.random_effect_pql import fit_pql
from rankstats.models.system_covariates import fit_random_effect

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "converted"
LIZARDS = pytest.mark.skipif(
    not (DATA / "flatlizards_contests.csv").exists(),
    reason="BradleyTerry2's flatlizards (../shared/data/converted) is absent",
)

# Turner & Firth, "Bradley-Terry models in R: the BradleyTerry2 package", the package's
# vignette (BradleyTerry2 1.0-8, vignettes/BradleyTerry.pdf, § 3.1 and § 3.2), as printed:
# (estimate, standard error) per coefficient, and σ with its standard error.
LIZ_MODEL = {"beta: SVL": ("0.2051", "0.1158"), "sigma": ("1.126", "0.261")}
LIZ_MODEL2 = {
    "own: lizard099": ("9.531e-01", "1.283e+00"),
    "beta: throat.PC1": ("-8.689e-02", "4.120e-02"),
    "beta: throat.PC3": ("3.735e-01", "1.527e-01"),
    "beta: head.length": ("-1.382e+00", "7.390e-01"),
    "beta: SVL": ("1.722e-01", "1.373e-01"),
    "sigma": ("1.1099", "0.3223"),
}


def _half_unit(printed: str) -> float:
    """Half a unit of the last printed digit of ``printed`` ("1.283e+00" → 0.0005)."""
    mantissa, _, exponent = printed.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 0.5 * 10.0 ** (int(exponent or 0) - decimals)


def _lizards() -> tuple[pd.DataFrame, pd.DataFrame]:
    contests = pd.read_csv(DATA / "flatlizards_contests.csv")
    predictors = pd.read_csv(DATA / "flatlizards_predictors.csv").set_index("lizard")
    counts = pd.DataFrame(
        {"item1": contests["winner"], "item2": contests["loser"], "wins1": 1.0, "wins2": 0.0}
    )
    return counts, predictors


@LIZARDS
@pytest.mark.parametrize(
    ("columns", "printed"),
    [(["SVL"], LIZ_MODEL), (["throat.PC1", "throat.PC3", "head.length", "SVL"], LIZ_MODEL2)],
    ids=["lizModel", "lizModel2"],
)
def test_pql_reproduces_bradleyterry2_on_flatlizards(columns, printed) -> None:
    counts, predictors = _lizards()
    model = rs.models.BradleyTerry(covariates=predictors[columns], random_effect=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit = model.fit(counts, method="pql")
    for name, (estimate, se) in printed.items():
        got, got_se = fit.parameters[name], fit.parameters[f"{name}_se"]
        assert abs(got - float(estimate)) <= _half_unit(estimate), (name, got, estimate)
        assert abs(got_se - float(se)) <= _half_unit(se), (name, got_se, se)
    assert fit.method == "pql" and fit.info["estimator"] == "pql"
    assert "estimator 'pql'" in repr(fit)
    if "throat.PC1" in columns:
        # Lizard 096 has no throat data (a log-worth of its own) and never loses: BTm prints
        # 3.668e+01 with s.e. 3.875e+07, the estimate on its way to +∞; the others are the limit.
        assert fit.parameters["own: lizard096"] == np.inf
        assert np.isnan(fit.parameters["own: lizard096_se"])
        assert fit.worth["lizard096"] == np.inf and np.isfinite(fit.worth.drop("lizard096")).all()
        messages = [str(w.message) for w in caught if issubclass(w.category, DataWarning)]
        assert any("lizard096" in m and "infinite" in m for m in messages)
    else:  # with SVL every lizard has covariates and a random effect: 096 is shrunk, finite
        assert np.isfinite(fit.worth).all()


@LIZARDS
def test_the_docs_comparison_of_laplace_and_pql_on_flatlizards() -> None:
    """The numbers docs/user-guide/models.md quotes: the Laplace fit of the vignette's model
    names its estimator, and its σ and standard errors are larger than PQL's."""
    counts, predictors = _lizards()
    columns = ["throat.PC1", "throat.PC3", "head.length", "SVL"]
    model = rs.models.BradleyTerry(covariates=predictors[columns], random_effect=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)  # lizard096, checked above
        laplace = model.fit(counts, method="mle")
        pql = model.fit(counts, method="pql")
    assert laplace.info["estimator"] == "laplace" and "estimator 'laplace'" in repr(laplace)
    got = laplace.parameters
    assert (round(got["sigma"], 2), round(got["sigma_se"], 2)) == (2.19, 1.17)
    b, se = got["beta: throat.PC1"], got["beta: throat.PC1_se"]
    assert (round(b, 4), round(se, 4), round(b / se, 2)) == (-0.0880, 0.0639, -1.38)
    ratio = se / pql.parameters["beta: throat.PC1_se"]
    assert round(ratio, 2) == 1.55
    z_pql = pql.parameters["beta: throat.PC1"] / pql.parameters["beta: throat.PC1_se"]
    assert round(z_pql, 2) == -2.11


def test_pql_needs_a_random_effect() -> None:
    counts = pd.DataFrame(
        {"item1": ["a", "b"], "item2": ["b", "c"], "wins1": [3, 2], "wins2": [1, 2]}
    )
    with pytest.raises(ValueError, match=r"method='pql'.*random_effect=True"):
        rs.models.BradleyTerry().fit(counts, method="pql")


def _pairs(theta: np.ndarray, n_pairs: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """``n_pairs`` contests between systems drawn at random: (winner, loser) index arrays."""
    i = rng.integers(len(theta), size=n_pairs)
    j = (i + rng.integers(1, len(theta), size=n_pairs)) % len(theta)
    first = rng.random(n_pairs) < 1.0 / (1.0 + np.exp(theta[j] - theta[i]))
    return np.where(first, i, j), np.where(first, j, i)


def test_plackett_luce_pql_on_pairs_is_bradley_terry_pql() -> None:
    """A ranking of two systems has the Bradley–Terry probability: the two models' PQL fits of
    the same contests (the same likelihood through two different codes) agree."""
    rng = np.random.default_rng(3)
    systems = [f"s{k}" for k in range(25)]
    x = rng.normal(size=(25, 2))
    theta = x @ np.array([0.8, -0.5]) + 0.7 * rng.normal(size=25)
    winner, loser = _pairs(theta, 300, rng)
    covariates = pd.DataFrame(x, index=systems, columns=["a", "b"]).drop(index="s4")
    names = np.array(systems)
    counts = pd.DataFrame({"item1": names[winner], "item2": names[loser], "wins1": 1, "wins2": 0})
    rankings = rs.Rankings.from_orderings(
        [[names[w], names[v]] for w, v in zip(winner, loser, strict=True)]
    )
    bt = rs.models.BradleyTerry(covariates=covariates, random_effect=True).fit(counts, method="pql")
    pl = rs.models.PlackettLuce(covariates=covariates, random_effect=True).fit(
        rankings, method="pql"
    )
    assert 0.2 < bt.parameters["sigma"] < 2.0
    for name in ("beta: a", "beta: b", "own: s4", "sigma"):
        assert pl.parameters[name] == pytest.approx(bt.parameters[name], rel=1e-6)
        assert pl.parameters[f"{name}_se"] == pytest.approx(bt.parameters[f"{name}_se"], rel=1e-6)


def _schall_pql(x: np.ndarray, z: np.ndarray, iterations: int = 2000) -> tuple:
    """PQL of a binary GLMM ``logit P(y = 1) = Xα + Zb``, every y = 1, written in the space of
    the observations as Breslow & Clayton (1993) and Schall (1991) do: iteratively reweighted
    Henderson equations for (α, b) at σ, then σ² = (bᵀb + tr C_bb)/q (C: the inverse of the
    Henderson matrix), until σ stops moving.  Returns (α, se of α, σ)."""
    p, q = x.shape[1], z.shape[1]
    design = np.hstack([x, z])
    coef, sigma2 = np.zeros(p + q), 1.0
    for _ in range(iterations):
        for _ in range(50):
            eta = design @ coef
            mu = 1.0 / (1.0 + np.exp(-eta))
            w = mu * (1.0 - mu)
            working = eta + (1.0 - mu) / w
            henderson = design.T @ (w[:, None] * design)
            henderson[p:, p:] += np.eye(q) / sigma2
            new = np.linalg.solve(henderson, design.T @ (w * working))
            done = np.max(np.abs(new - coef)) < 1e-12
            coef = new
            if done:
                break
        inverse = np.linalg.inv(henderson)
        b = coef[p:]
        new_sigma2 = (b @ b + np.trace(inverse[p:, p:])) / q
        if abs(new_sigma2 - sigma2) < 1e-13:
            break
        sigma2 = new_sigma2
    return coef[:p], np.sqrt(np.diag(inverse)[:p]), np.sqrt(sigma2)


def test_pql_is_the_observation_space_algorithm() -> None:
    """Another data set than the vignette's: the PQL of the log-worths' space equals the PQL
    of a binary GLMM written on the contests (:func:`_schall_pql`), an own log-worth included."""
    rng = np.random.default_rng(11)
    n = 30
    systems = np.array([f"s{k}" for k in range(n)])
    x = rng.normal(size=n)
    winner, loser = _pairs(1.0 * x + 0.8 * rng.normal(size=n), 240, rng)
    covariates = pd.DataFrame({"x": x}, index=systems).drop(index="s0")  # s0: its own
    counts = pd.DataFrame(
        {"item1": systems[winner], "item2": systems[loser], "wins1": 1, "wins2": 0}
    )
    model = rs.models.BradleyTerry(covariates=covariates, random_effect=True)
    fit = model.fit(counts, method="pql")
    own = (np.arange(n) == 0).astype(float)
    columns = np.column_stack([np.where(own > 0, 0.0, x), own])  # x (0 for s0), s0's own
    x_design = columns[winner] - columns[loser]
    indicator = np.eye(n)[:, 1:]  # random effects of the systems with covariates
    alpha, alpha_se, sigma = _schall_pql(x_design, indicator[winner] - indicator[loser])
    names = ["beta: x", "own: s0"]
    np.testing.assert_allclose([fit.parameters[k] for k in names], alpha, rtol=1e-6)
    np.testing.assert_allclose([fit.parameters[f"{k}_se"] for k in names], alpha_se, rtol=1e-6)
    assert fit.parameters["sigma"] == pytest.approx(sigma, rel=1e-6)


@pytest.mark.parametrize("method", ["mle", "pql"])
def test_an_unbeaten_own_system_with_ties_and_another_own_system(method) -> None:
    """Davidson's tie parameter, a system of its own that never loses ("top") and one that
    does ("mid"): "top" is +∞ and its comparisons drop out of the limit, the others' covariance
    and draws stay finite and labelled."""
    rng = np.random.default_rng(2)
    systems = np.array([f"s{k}" for k in range(20)] + ["mid", "top"])
    x = rng.normal(size=22)
    winner, loser = _pairs(x + 0.5 * rng.normal(size=22), 200, rng)
    keep = (systems[winner] != "top") & (systems[loser] != "top")
    counts = pd.DataFrame(
        {"item1": systems[winner][keep], "item2": systems[loser][keep], "wins1": 1, "wins2": 0}
    )
    counts["ties"] = (np.arange(len(counts)) % 9 == 0).astype(float)
    counts.loc[counts["ties"] > 0, "wins1"] = 0
    beaten = pd.DataFrame({"item1": "top", "item2": ["s1", "s2", "mid"], "wins1": 2, "wins2": 0})
    covariates = pd.DataFrame({"x": x[:20]}, index=systems[:20])
    model = rs.models.BradleyTerry(covariates=covariates, random_effect=True)
    with pytest.warns(DataWarning, match="top never loses"):
        fit = model.fit(pd.concat([counts, beaten.assign(ties=0.0)]), method=method)
    without = model.fit(counts, method=method)  # the limit: top's comparisons tell nothing
    assert fit.parameters["own: top"] == np.inf and np.isfinite(fit.parameters["own: mid"])
    for name in ("beta: x", "own: mid", "sigma", "tie"):
        assert fit.parameters[name] == pytest.approx(without.parameters[name], rel=1e-6)
    finite = fit.covariance.drop(index="top", columns="top")
    assert np.isfinite(finite.to_numpy()).all()
    own = fit.draws()["own"]
    assert np.all(own[:, 1] == 50.0)  # "top", the second own system in the data's order
    assert own[:, 0].mean() == pytest.approx(fit.parameters["own: mid"], abs=0.1)


def test_no_variation_beyond_the_covariates_gives_sigma_zero() -> None:
    """Log-worths exactly x β and many comparisons: the REML score of the working model is
    negative from σ = 0, so σ̂ = 0 and the fit is the fixed-effect MLE."""
    systems = [f"s{k}" for k in range(8)]
    x = np.linspace(-1.5, 1.5, 8)
    i, j = np.triu_indices(8, 1)
    p = 1.0 / (1.0 + np.exp(-(x[i] - x[j])))
    wins1 = np.round(400 * p)  # expected counts: no noise at all around the covariate model
    counts = pd.DataFrame(
        {
            "item1": np.array(systems)[i],
            "item2": np.array(systems)[j],
            "wins1": wins1,
            "wins2": 400 - wins1,
        }
    )
    covariates = pd.DataFrame({"x": x}, index=systems)
    pql = rs.models.BradleyTerry(covariates=covariates, random_effect=True).fit(
        counts, method="pql"
    )
    fixed = rs.models.BradleyTerry(covariates=covariates).fit(counts, method="mle")
    assert pql.parameters["sigma"] == 0.0
    assert pql.parameters["beta: x"] == pytest.approx(fixed.parameters["beta: x"], rel=1e-9)


# ----------------------------------------------------------------------------- simulation
#: The designs of the simulation: systems, comparisons (BT contests or PL rankings of 4),
#: and the truth (β of one N(0, 1) covariate, σ).
DESIGNS = {
    "bt sparse": ("bt", 60, 150, 1.0, 1.0),  # ~5 contests per system, like flatlizards
    "bt dense": ("bt", 30, 900, 1.0, 1.0),  # ~60 contests per system
    "pl sparse": ("pl", 40, 50, 1.0, 1.0),  # ~5 rankings of 4 per system
}
Z95 = 1.959963984540054


def _replicate(design: str, seed: int) -> tuple[object, object]:
    """One simulated data set: (model, data)."""
    kind, n, m, beta, sigma = DESIGNS[design]
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    theta = beta * x + sigma * rng.normal(size=n)
    systems = [f"s{k}" for k in range(n)]
    covariates = pd.DataFrame({"x": x}, index=systems)
    names = np.array(systems)
    if kind == "bt":
        winner, loser = _pairs(theta, m, rng)
        data = pd.DataFrame({"item1": names[winner], "item2": names[loser], "wins1": 1, "wins2": 0})
        seen = sorted(set(winner) | set(loser))
        model = rs.models.BradleyTerry(covariates=covariates.iloc[seen], random_effect=True)
    else:
        orderings = []
        for _ in range(m):
            chosen = rng.choice(n, size=4, replace=False)
            keys = theta[chosen] + rng.gumbel(size=4)
            orderings.append(list(names[chosen[np.argsort(-keys)]]))
        data = rs.Rankings.from_orderings(orderings)
        seen = sorted({s for o in orderings for s in o})
        model = rs.models.PlackettLuce(covariates=covariates.loc[seen], random_effect=True)
    return model, data


def simulate_estimators(design: str, replications: int, seed: int = 2045) -> pd.DataFrame:
    """Bias and 95 % Wald-interval coverage of β and σ for the Laplace and PQL estimators, over
    ``replications`` data sets of ``design`` (:data:`DESIGNS`): one row per estimator."""
    beta, sigma = DESIGNS[design][3:]
    fits = {"laplace": fit_random_effect, "pql": fit_pql}
    rows = {name: [] for name in fits}
    for r in range(replications):
        model, data = _replicate(design, seed + r)
        prepared = model._prepare(data)
        function = model._objective(prepared, prior=False)
        cmap = model._covariate_map(prepared.systems)
        extra = len(model._extra_names(prepared))
        for name, estimator in fits.items():
            opt = estimator(function, cmap, extra, model._beats(prepared))
            b, b_se = opt.params[0], np.sqrt(opt.covariance[0, 0])
            s, s_se = opt.sigma, opt.sigma_se if opt.sigma_se is not None else np.nan
            rows[name].append(
                (b, abs(b - beta) <= Z95 * b_se, s, abs(s - sigma) <= Z95 * s_se, s == 0.0)
            )
    table = []
    for name, values in rows.items():
        b, b_cover, s, s_cover, zero = map(np.array, zip(*values, strict=True))
        table.append(
            {
                "design": design,
                "estimator": name,
                "beta_bias": b.mean() - beta,
                "beta_coverage": b_cover.mean(),
                "sigma_mean": s.mean(),
                "sigma_median": np.median(s),
                "sigma_coverage": s_cover.mean(),
                "sigma_zero": zero.mean(),
            }
        )
    return pd.DataFrame(table)


REPLICATIONS = 200


@pytest.mark.slow
@pytest.mark.parametrize("design", list(DESIGNS))
def test_simulated_bias_and_coverage_of_both_estimators(design: str) -> None:
    """The docs' table: PQL's σ̂ is biased down where systems have few comparisons (Breslow &
    Lin 1995) and its intervals of β too narrow there; with many comparisons per system both
    estimators recover σ and cover β."""
    table = simulate_estimators(design, REPLICATIONS).set_index("estimator")
    print(table.round(3).to_string())
    pql, laplace = table.loc["pql"], table.loc["laplace"]
    if design.endswith("dense"):
        for row in (pql, laplace):
            assert abs(row["sigma_mean"] - 1.0) < 0.1
            assert 0.9 <= row["beta_coverage"] <= 0.99
    else:
        assert pql["sigma_mean"] < laplace["sigma_mean"]
        assert pql["sigma_mean"] < 0.9  # biased down by more than 10 %
        assert pql["sigma_coverage"] < laplace["sigma_coverage"]
        assert pql["beta_coverage"] < laplace["beta_coverage"]


if __name__ == "__main__":
    pd.set_option("display.width", 120)
    print(pd.concat([simulate_estimators(d, REPLICATIONS) for d in DESIGNS]).round(3).to_string())
