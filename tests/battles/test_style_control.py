"""Style control: battle covariates in rs.fit_battles (issue 27, item 2).

Checked against what is computed another way: statsmodels' logistic regression (no ties: the
same model written as a GLM), a direct scipy maximisation of the Davidson likelihood written out
here (ties), the exact relation between scaled and raw covariates, recovery and Fisher coverage
in simulation, and the cluster bootstrap against the battle bootstrap when judgments repeat.
"""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from cli_run import one_error_line, run
from scipy import optimize, special

import rankstats as rs
from rankstats.battles.log_files import InvalidBattlesError
from rankstats.battles.style_control import bootstrap_rows, one_step_bootstrap, style_rows
from rankstats.core.bradley_terry_mle import fit_bt

ELO = 400 / np.log(10)


def _log(
    seed: int,
    n_models: int = 6,
    n_battles: int = 4000,
    gamma: tuple[float, ...] = (0.5, -0.3),
    eta: float = 0.1,
    log_tie: float | None = None,
) -> tuple[pd.DataFrame, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A battle log with covariates z (two columns) drawn from the style-control model."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(0, 0.5, n_models)
    theta -= theta.mean()
    a = rng.integers(0, n_models, n_battles)
    b = (a + rng.integers(1, n_models, n_battles)) % n_models
    z = rng.normal(0.2, 1.0, (n_battles, len(gamma)))
    t1 = theta[a] + eta + z @ np.asarray(gamma)
    t2 = theta[b]
    if log_tie is None:
        p1, p2 = special.expit(t1 - t2), special.expit(t2 - t1)
        pt = np.zeros(n_battles)
    else:
        e1, e2, et = np.exp(t1), np.exp(t2), np.exp(log_tie + 0.5 * (t1 + t2))
        total = e1 + e2 + et
        p1, p2, pt = e1 / total, e2 / total, et / total
    u = rng.random(n_battles)
    winner = np.where(u < p1, "model_a", np.where(u < p1 + p2, "model_b", "tie"))
    frame = pd.DataFrame(
        {
            "model_a": [f"m{k}" for k in a],
            "model_b": [f"m{k}" for k in b],
            "winner": winner,
            **{f"z{k}": z[:, k] for k in range(len(gamma))},
        }
    )
    del pt
    return frame, theta, a, b, z


def _fit(frame: pd.DataFrame, **kw) -> rs.BattleFit:
    names = [c for c in frame.columns if c.startswith("z")]
    battles = rs.read_battles(frame, covariates=names)
    return rs.fit_battles(battles, **{"n_resamples": 0, **kw})


def test_without_ties_it_is_a_logistic_regression() -> None:
    frame, *_, z = _log(1)
    fit = _fit(frame, covariates=rs.StyleControl(standardize=False))
    index = {m: k for k, m in enumerate(fit.models)}
    ia = frame["model_a"].map(index).to_numpy()
    ib = frame["model_b"].map(index).to_numpy()
    n, rows = fit.n_models, len(frame)
    x = np.zeros((rows, n))
    x[np.arange(rows), ia] += 1
    x[np.arange(rows), ib] -= 1
    design = np.column_stack([x[:, :-1], np.ones(rows), z])  # last model the reference
    y = (frame["winner"] == "model_a").to_numpy(float)
    glm = sm.Logit(y, design).fit(disp=0, tol=1e-12, maxiter=200)
    theta = np.append(glm.params[: n - 1], 0.0)
    np.testing.assert_allclose(fit.log_worth, theta - theta.mean(), atol=1e-6)
    assert fit.log_order == pytest.approx(glm.params[n - 1], abs=1e-6)
    np.testing.assert_allclose(fit.covariate_effects, glm.params[n:], atol=1e-6)
    # Standard errors: the GLM's of the order effect and the covariates (not the centring).
    se = np.sqrt(np.diag(fit.covariance))[n:]
    np.testing.assert_allclose(se, glm.bse[n - 1 :], rtol=1e-5)


def test_with_ties_it_maximises_the_davidson_likelihood() -> None:
    frame, _, _, _, z = _log(2, n_models=4, n_battles=2500, log_tie=-0.5)
    fit = _fit(frame, covariates=rs.StyleControl(standardize=False))
    index = {m: k for k, m in enumerate(fit.models)}
    ia = frame["model_a"].map(index).to_numpy()
    ib = frame["model_b"].map(index).to_numpy()
    outcome = frame["winner"].map({"model_a": 0, "model_b": 1, "tie": 2}).to_numpy()
    n = fit.n_models

    def negative_loglik(x: np.ndarray) -> float:  # θ (last fixed at 0), log ν, η, γ
        theta = np.append(x[: n - 1], 0.0)
        log_nu, eta, gamma = x[n - 1], x[n], x[n + 1 :]
        t1 = theta[ia] + eta + z @ gamma
        t2 = theta[ib]
        tt = log_nu + 0.5 * (t1 + t2)
        log_d = np.logaddexp(np.logaddexp(t1, t2), tt)
        chosen = np.choose(outcome, [t1, t2, tt])
        return -float(np.sum(chosen - log_d))

    best = optimize.minimize(negative_loglik, np.zeros(n + 3), method="BFGS", tol=1e-12)
    theta = np.append(best.x[: n - 1], 0.0)
    np.testing.assert_allclose(fit.log_worth, theta - theta.mean(), atol=1e-5)
    assert fit.log_tie == pytest.approx(best.x[n - 1], abs=1e-5)
    assert fit.log_order == pytest.approx(best.x[n], abs=1e-5)
    np.testing.assert_allclose(fit.covariate_effects, best.x[n + 1 :], atol=1e-5)


def test_scaling_changes_the_unit_of_the_effects_only() -> None:
    frame, *_ = _log(3)
    raw = _fit(frame, covariates=rs.StyleControl(standardize=False))
    scaled = _fit(frame)
    sd = frame[["z0", "z1"]].std(ddof=0).to_numpy()
    np.testing.assert_allclose(scaled.log_worth, raw.log_worth, atol=1e-9)
    np.testing.assert_allclose(scaled.covariate_effects, raw.covariate_effects * sd, rtol=1e-8)
    assert scaled.log_order == pytest.approx(raw.log_order, abs=1e-9)


def test_adjusted_and_unadjusted_ratings() -> None:
    frame, *_ = _log(4)
    fit = _fit(frame)
    plain = rs.fit_battles(rs.read_battles(frame), n_resamples=0)
    table = fit.table().set_index("model")
    np.testing.assert_allclose(
        table.loc[list(plain.models), "rating_unadjusted"], plain.ratings(), atol=1e-9
    )
    assert "covariate: z0" in set(fit.parameters()["parameter"])
    assert "adjusted for z0" in repr(fit)


def test_recovery_and_fisher_coverage_in_simulation() -> None:
    hits, effects = [], []
    for seed in range(120):
        frame, *_ = _log(100 + seed, n_models=4, n_battles=800, log_tie=-1.0)
        fit = _fit(frame, covariates=rs.StyleControl(standardize=False), ties=True)
        p = fit.parameters().set_index("parameter")
        low, high = p.loc["covariate: z0", ["fisher_low", "fisher_high"]]
        hits.append(low <= 0.5 <= high)
        effects.append(fit.covariate_effects["z0"])
    coverage = float(np.mean(hits))
    assert abs(coverage - 0.95) <= 3 * np.sqrt(0.95 * 0.05 / 120) + 0.01, coverage
    assert abs(np.mean(effects) - 0.5) < 0.03  # unbiased to within its Monte Carlo error


@pytest.mark.slow
def test_the_cluster_bootstrap_covers_when_judgments_repeat() -> None:
    # Each prompt is one battle whose judgment is repeated 6 times (the same verdict): the MLE
    # is that of the distinct prompts, but the battles of a prompt are not independent. The
    # cluster bootstrap (over prompts) covers γ; the battle bootstrap, √6 too narrow, does not.
    rng = np.random.default_rng(9)
    covered: dict[str, list[bool]] = {"battle": [], "cluster": []}
    sims, prompts, repeat = 80, 150, 6
    for _ in range(sims):
        theta = np.array([-0.3, 0.0, 0.1, 0.2])
        a = rng.integers(0, 4, prompts)
        b = (a + rng.integers(1, 4, prompts)) % 4
        z = rng.normal(0, 1, prompts)
        win = rng.random(prompts) < special.expit(theta[a] - theta[b] + 0.5 * z)
        frame = pd.DataFrame(
            {
                "model_a": [f"m{k}" for k in np.repeat(a, repeat)],
                "model_b": [f"m{k}" for k in np.repeat(b, repeat)],
                "winner": np.repeat(np.where(win, "model_a", "model_b"), repeat),
                "z0": np.repeat(z, repeat),
                "prompt": np.repeat(np.arange(prompts), repeat),
            }
        )
        for unit, cluster in (("battle", None), ("cluster", "prompt")):
            battles = rs.read_battles(frame, covariates=["z0"], cluster=cluster)
            fit = rs.fit_battles(
                battles,
                n_resamples=100,
                covariates=rs.StyleControl(standardize=False),
                order_effect=False,
                seed=0,
            )
            p = fit.parameters().set_index("parameter").loc["covariate: z0"]
            covered[unit].append(bool(p["bootstrap_low"] <= 0.5 <= p["bootstrap_high"]))
    cluster, battle = np.mean(covered["cluster"]), np.mean(covered["battle"])
    assert cluster >= 0.95 - 3 * np.sqrt(0.95 * 0.05 / sims) - 0.02, cluster
    assert battle <= 0.75, battle  # about 2Φ(1.96 / √6) − 1 = 0.58


def test_bad_covariates_are_named() -> None:
    frame, *_ = _log(5, n_battles=300)
    holes = frame.copy()
    holes.loc[7, "z0"] = np.nan
    with pytest.raises(InvalidBattlesError, match="row 7: missing value in covariate column 'z0'"):
        rs.read_battles(holes, covariates=["z0"])
    text = frame.astype({"z0": object})
    text.loc[3, "z0"] = "long"
    with pytest.raises(InvalidBattlesError, match="non-numeric covariate values in column 'z0'"):
        rs.read_battles(text, covariates=["z0"])
    paired = frame.assign(la=np.arange(300), lb=-1)
    with pytest.raises(InvalidBattlesError, match="needs values ≥ 0"):
        rs.read_battles(paired, covariates={"length": ("la", "lb")})
    with pytest.raises(ValueError, match="one column, or two"):
        rs.read_battles(frame, covariates={"x": ("z0", "z1", "z0")})
    with pytest.raises(TypeError, match=r"covariates must be a column name, a list .* not int 42"):
        rs.read_battles(frame, covariates=42)
    with pytest.raises(TypeError, match="cluster must be a column name"):
        rs.read_battles(frame, cluster=3)
    flat = rs.read_battles(frame.assign(c=1.0), covariates=["c"])
    with pytest.raises(InvalidBattlesError, match="take one value"):
        rs.fit_battles(flat, n_resamples=0)
    # collinear covariates are named (not blamed on ties or the order effect); a third,
    # independent one is not named, and a raw scale of 1e18 is not "collinear"
    lined = frame.assign(z2=frame["z0"] * 1e18 - 3 * frame["z1"] * 1e18, z3=frame["z0"] * 1e18)
    with pytest.raises(InvalidBattlesError, match="covariates 'z0', 'z1', 'z2' are collinear"):
        rs.fit_battles(rs.read_battles(lined, covariates=["z0", "z1", "z2"]), n_resamples=0)
    with pytest.raises(InvalidBattlesError, match="covariates 'z0', 'z3' are collinear"):
        rs.fit_battles(rs.read_battles(lined, covariates=["z0", "z1", "z3"]), n_resamples=0)
    raw = lined.assign(z1=frame["z1"] * 1e18)
    assert rs.fit_battles(rs.read_battles(raw, covariates=["z0", "z1"]), n_resamples=0)


def test_paired_columns_are_lmsys_normalised_differences() -> None:
    frame, *_ = _log(6, n_battles=200)
    frame = frame.assign(la=np.arange(200) % 7, lb=(np.arange(200) * 3) % 5)
    battles = rs.read_battles(frame, covariates={"length": ("la", "lb")})
    la, lb = frame["la"].to_numpy(float), frame["lb"].to_numpy(float)
    total = la + lb
    expected = np.divide(la - lb, total, out=np.zeros_like(total), where=total > 0)
    np.testing.assert_allclose(battles.rows.covariates[:, 0], expected)


def test_the_command_line_fits_the_covariates(tmp_path, capsys) -> None:
    frame, *_ = _log(7, n_battles=1500)
    path = tmp_path / "log.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "out"
    argv = ["battles", str(path), "--battle-covariate", "z0", "--battle-covariate", "second=z1"]
    code, stdout, _ = run([*argv, "--n-resamples", "50", "--no-figures", "--out", str(out)], capsys)
    assert code == 0
    assert "ratings adjusted for z0, second" in stdout
    ratings = pd.read_csv(out / "ratings.csv")
    assert {"rating_unadjusted", "rank_unadjusted"} <= set(ratings.columns)
    fit = rs.fit_battles(
        rs.read_battles(frame, covariates={"z0": "z0", "second": "z1"}), n_resamples=50
    )
    np.testing.assert_allclose(
        ratings.set_index("model").loc[list(fit.models), "rating"], fit.ratings(), atol=1e-6
    )
    figures = tmp_path / "figures"
    code, *_ = run([*argv, "--n-resamples", "20", "--out", str(figures)], capsys)
    assert code == 0 and (figures / "covariates.png").exists()
    code, _, err = run(
        ["battles", str(path), "--battle-covariate", "x=a,b,c", "--out", str(out)], capsys
    )
    assert code == 2
    one_error_line(err, "battles", "--battle-covariate")


def test_the_one_step_bootstrap_agrees_with_refits() -> None:
    # The one-step (score) bootstrap of large logs against the refit of every replicate, on a
    # log small enough to refit; clusters of 4 battles.
    frame, *_ = _log(11, n_models=5, n_battles=2400, log_tie=-0.8)
    frame["prompt"] = np.arange(len(frame)) // 4
    battles = rs.read_battles(frame, covariates=["z0", "z1"], cluster="prompt")
    rows, *_ = style_rows(battles, "tie", True, True)
    best = fit_bt(rows, ties=True, order=True)
    clusters = battles.rows.cluster
    refit, failed = bootstrap_rows(rows, best.params, 400, True, True, 0, clusters)
    step = one_step_bootstrap(rows, best.params, best.information, 400, True, True, 0, clusters)
    assert failed == 0
    sd_refit, sd_step = refit.std(axis=0), step.std(axis=0)
    # Each standard deviation from 400 replicates has a relative Monte Carlo error of ~3.5 %.
    np.testing.assert_allclose(sd_step, sd_refit, rtol=0.2)
    np.testing.assert_allclose(step.mean(axis=0), best.params, atol=0.25 * sd_refit.max())


def test_one_step_numbers_do_not_depend_on_numba_or_threads(monkeypatch) -> None:
    frame, *_ = _log(12, n_models=4, n_battles=600)
    battles = rs.read_battles(frame, covariates=["z0"])
    rows, *_ = style_rows(battles, "tie", False, True)
    best = fit_bt(rows, ties=False, order=True)
    args = (rows, best.params, best.information, 64, False, True, 3, None)
    threads = one_step_bootstrap(*args, n_jobs=2)
    single = one_step_bootstrap(*args, n_jobs=1)
    np.testing.assert_array_equal(threads, single)
    monkeypatch.setitem(sys.modules, "rankstats.battles.numba_kernels", None)  # no numba
    np.testing.assert_allclose(one_step_bootstrap(*args, n_jobs=1), single, atol=1e-12)
    assert not np.allclose(one_step_bootstrap(*args[:-2], 4, None, n_jobs=1), single)


def test_large_logs_take_the_one_step_bootstrap() -> None:
    frame, *_ = _log(13, n_models=4, n_battles=3000)
    fit = _fit(frame, n_resamples=1000)
    assert fit.info["bootstrap_method"] == "one-step"
    small = _fit(frame.head(500), n_resamples=100)
    assert small.info["bootstrap_method"] == "refit"


@pytest.mark.slow
def test_the_posterior_of_a_style_controlled_fit() -> None:
    # NUTS with the covariates: the posterior means near the MLE (a flat-ish prior and 3,000
    # battles), converged, and the effects' credible intervals beside Fisher's.
    frame, *_ = _log(14, n_models=4, n_battles=3000, log_tie=-0.8)
    fit = _fit(frame, posterior=rs.NutsSettings(sampler="pymc", draws=500, tune=500, chains=2))
    assert not fit.info["posterior_problems"]
    draws = fit.posterior["style"]
    assert draws.shape == (1000, 2)
    se = np.sqrt(np.diag(fit.covariance))[-2:]
    np.testing.assert_allclose(draws.mean(axis=0), fit.covariate_effects, atol=0.5 * se.max())
    np.testing.assert_allclose(draws.std(axis=0), se, rtol=0.25)
    p = fit.parameters().set_index("parameter")
    assert np.isfinite(p.loc["covariate: z0", ["posterior_low", "posterior_high"]]).all()
    # The sample as ArviZ data, chains kept, like every NUTS fit of rankstats.
    from rankstats._pymc import compat

    style = compat.group(fit.idata)["style"]
    assert style.shape == (2, 500, 2)
    np.testing.assert_array_equal(style.to_numpy().reshape(-1, 2), draws)
