"""Battles (Chatbot-Arena style): reading, Bradley–Terry with order effect and Davidson ties,
Fisher / bootstrap / posterior intervals, Elo scale, CLI."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, stats

from rankstats import EloScale, NutsSettings
from rankstats.battles.fitting import ELO_SCALE, BattleFit, fit_battles, resample_cells
from rankstats.battles.log import InvalidBattlesError, read_battles, simulate_battles
from rankstats.core.bradley_terry_mle import MLEDoesNotExistError
from rankstats.errors import DataWarning


def _frame(rows):
    return pd.DataFrame(rows, columns=["model_a", "model_b", "winner"])


# ---------------------------------------------------------------------------- reading
def test_counts_per_ordered_pair_and_spellings():
    frame = _frame(
        [
            ("x", "y", "model_a"),
            ("x", "y", "A"),
            ("x", "y", " tie "),
            ("y", "x", "b"),
            ("y", "x", "tie (bothbad)"),
            ("x", "z", "both-bad"),
            ("z", "y", "model_b"),
        ]
    )
    b = read_battles(frame)
    assert b.models == ("x", "y", "z")
    table = b.table().set_index(["model_a", "model_b"])
    assert table.loc[("x", "y")].tolist() == [2, 0, 1, 0, 3]
    assert table.loc[("y", "x")].tolist() == [0, 1, 0, 1, 2]
    assert table.loc[("x", "z"), "both_bad"] == 1
    assert b.n_battles == 7
    assert "both-bad counted as ties" in repr(b)
    assert b.pairs("drop").ties.sum() == 1 and b.pairs("tie").ties.sum() == 3


@pytest.mark.parametrize(
    ("rows", "words"),
    [
        ([("x", "y", "a"), ("x", "y", "winner?")], ["row 1", "'winner?'"]),
        ([("x", "y", "a"), ("y", "y", "b")], ["row 1", "'y' plays itself"]),
        ([("x", "y", "a"), ("x", None, "b")], ["row 1", "missing", "'model_b'"]),
        ([("x", "y", None), ("x", "y", "b")], ["row 0", "missing", "'winner'"]),
        ([("x", "y", "a"), ("x", " ", "b")], ["row 1", "missing"]),
    ],
)
def test_input_errors_name_the_row(rows, words):
    with pytest.raises(InvalidBattlesError) as err:
        read_battles(_frame(rows))
    for word in words:
        assert word in str(err.value)


def test_file_errors_name_the_line(tmp_path):
    path = tmp_path / "b.csv"
    path.write_text("model_a,model_b,winner\nx,y,a\nx,y,b\ny,x,oops\n")
    with pytest.raises(InvalidBattlesError, match=r"line 4.*'oops'"):
        read_battles(path)
    with pytest.raises(InvalidBattlesError, match=r"no column 'who' \(winner\)"):
        read_battles(path, winner="who")


def test_file_formats_agree(tmp_path):
    frame, _ = simulate_battles(6, 500, seed=3)
    frame = frame.astype(str)
    frame.to_csv(tmp_path / "b.csv", index=False)
    frame.to_parquet(tmp_path / "b.parquet")
    frame.to_json(tmp_path / "b.jsonl", orient="records", lines=True)
    reference = read_battles(frame).table()
    for name in ("b.csv", "b.parquet", "b.jsonl"):
        pd.testing.assert_frame_equal(read_battles(tmp_path / name).table(), reference)


def test_disconnected_graph_names_the_models():
    frame = _frame([("x", "y", "a"), ("y", "x", "a"), ("z", "w", "a"), ("w", "z", "b")])
    with pytest.raises(
        MLEDoesNotExistError,
        match=r"never win \(nor tie\), 1: w; the comparison graph of 4 systems is not strongly",
    ):
        fit_battles(read_battles(frame), n_resamples=0)
    never_loses = _frame([("x", "y", "a"), ("y", "x", "a"), ("z", "x", "a"), ("y", "z", "b")])
    with pytest.raises(
        MLEDoesNotExistError, match=r"never lose \(nor tie\), 1: z.*bias_reduction=True"
    ):
        fit_battles(read_battles(never_loses), n_resamples=0)


# ---------------------------------------------------------------------------- the MLE
def _independent_loglik(frame: pd.DataFrame, models: list[str]):
    """The battle log-likelihood written from the rows, independently of rankstats."""
    index = {m: k for k, m in enumerate(models)}
    a = frame["model_a"].astype(str).map(index).to_numpy()
    b = frame["model_b"].astype(str).map(index).to_numpy()
    w = frame["winner"].astype(str).to_numpy()
    win_a, win_b = w == "model_a", w == "model_b"
    tie = ~(win_a | win_b)
    n = len(models)

    def negative(x):
        theta = np.append(x[: n - 1], 0.0)
        log_nu, eta = x[n - 1], x[n]
        ha = theta[a] + eta
        hb = theta[b]
        tt = log_nu + 0.5 * (ha + hb)
        log_d = np.logaddexp(np.logaddexp(ha, hb), tt)
        return -(
            np.sum((ha - log_d)[win_a]) + np.sum((hb - log_d)[win_b]) + np.sum((tt - log_d)[tie])
        )

    return negative


def test_mle_equals_direct_scipy_maximisation():
    frame, _ = simulate_battles(6, 4000, order_effect=0.3, tie=-0.3, seed=11)
    battles = read_battles(frame)
    fit = fit_battles(battles, n_resamples=0)
    negative = _independent_loglik(frame, list(battles.models))
    n = battles.n_models
    res = optimize.minimize(negative, np.zeros(n + 1), method="BFGS", options={"gtol": 1e-9})
    theta = np.append(res.x[: n - 1], 0.0)
    theta -= theta.mean()
    np.testing.assert_allclose(fit.log_worth, theta, atol=2e-6)
    assert fit.log_tie == pytest.approx(res.x[n - 1], abs=2e-6)
    assert fit.log_order == pytest.approx(res.x[n], abs=2e-6)


def test_mle_without_ties_and_order_is_logistic_regression():
    frame, _ = simulate_battles(7, 3000, order_effect=0.0, tie=None, seed=12)
    battles = read_battles(frame)
    fit = fit_battles(battles, order_effect=False, n_resamples=0)
    assert not fit.ties and fit.log_order is None
    # One row per battle, +1 for model_a and −1 for model_b (last model dropped), y = a won.
    models = list(battles.models)
    n, rows = len(models), len(frame)
    design = np.zeros((rows, n))
    design[np.arange(rows), frame["model_a"].astype(str).map(models.index)] += 1.0
    design[np.arange(rows), frame["model_b"].astype(str).map(models.index)] -= 1.0
    design = design[:, : n - 1]
    y = (frame["winner"].astype(str) == "model_a").to_numpy(float)

    def loss(beta):
        z = design @ beta
        return np.sum(np.logaddexp(0.0, z) - y * z), design.T @ (stats.logistic.cdf(z) - y)

    res = optimize.minimize(loss, np.zeros(n - 1), jac=True, method="BFGS", options={"gtol": 1e-10})
    theta = np.append(res.x, 0.0)
    np.testing.assert_allclose(fit.log_worth, theta - theta.mean(), atol=1e-6)


def test_order_effect_recovered():
    frame, truth = simulate_battles(10, 20000, order_effect=0.3, tie=-0.5, seed=5)
    fit = fit_battles(read_battles(frame), n_resamples=200, seed=1)
    row = fit.parameters().set_index("parameter").loc["order_effect"]
    assert row["estimate"] == pytest.approx(0.3, abs=0.05)
    for method in ("fisher", "bootstrap"):
        assert row[f"{method}_low"] < 0.3 < row[f"{method}_high"]
    np.testing.assert_allclose(fit.log_worth, truth["log_worth"].to_numpy(), atol=0.1)


def test_fisher_intervals_cover_at_the_nominal_rate():
    reps, hits_theta, hits_eta, total = 200, 0, 0, 0
    rng = np.random.default_rng(0)
    for _ in range(reps):
        frame, truth = simulate_battles(
            5, 1500, order_effect=0.2, tie=-0.5, seed=int(rng.integers(1 << 31))
        )
        fit = fit_battles(read_battles(frame), n_resamples=0, confidence_level=0.9)
        intervals = fit.intervals(scale="log")
        inside = (intervals["fisher_low"] < truth["log_worth"]) & (
            truth["log_worth"] < intervals["fisher_high"]
        )
        hits_theta += int(inside.sum())
        total += len(inside)
        row = fit.parameters().set_index("parameter").loc["order_effect"]
        hits_eta += int(row["fisher_low"] < 0.2 < row["fisher_high"])
    tolerance = 3 * math.sqrt(0.9 * 0.1 / reps)
    assert abs(hits_eta / reps - 0.9) < tolerance
    # θ's are correlated within a replicate (they sum to 0): a looser tolerance.
    assert abs(hits_theta / total - 0.9) < tolerance


# ---------------------------------------------------------------------------- bootstrap
def test_resample_cells_is_multinomial():
    counts = np.array([30, 1, 0, 7, 12, 50])
    draws = resample_cells(counts, 20000, np.random.default_rng(1))
    assert (draws.sum(axis=1) == counts.sum()).all()
    assert (draws[:, 2] == 0).all()
    p = counts / counts.sum()
    np.testing.assert_allclose(draws.mean(axis=0), counts, atol=0.15)
    np.testing.assert_allclose(draws.var(axis=0), counts.sum() * p * (1 - p), rtol=0.05)
    # multinomial covariance −N p_i p_j (Poisson counts would be uncorrelated)
    cov = np.cov(draws[:, 0], draws[:, 5])[0, 1]
    assert cov == pytest.approx(-counts.sum() * p[0] * p[5], rel=0.1)


def test_bootstrap_over_counts_equals_bootstrap_over_rows():
    frame, _ = simulate_battles(4, 600, order_effect=0.2, tie=-0.5, seed=21)
    frame = frame.astype(str)
    battles = read_battles(frame)
    fit = fit_battles(battles, n_resamples=400, seed=2)
    rng = np.random.default_rng(3)
    naive = []
    for _ in range(400):
        rows = frame.iloc[rng.integers(0, len(frame), len(frame))].reset_index(drop=True)
        refit = fit_battles(read_battles(rows), n_resamples=0)
        order = [refit.models.index(m) for m in battles.models]  # models in the same order
        naive.append(np.append(refit.log_worth[order], refit.params[battles.n_models :]))
    naive = np.array(naive)
    for k in (0, len(fit.params) - 1):  # a log-worth and the order effect
        assert stats.ks_2samp(fit.bootstrap_distribution[:, k], naive[:, k]).pvalue > 0.001
    assert np.std(fit.bootstrap_distribution[:, 0]) == pytest.approx(np.std(naive[:, 0]), rel=0.2)


def test_bootstrap_is_seeded_and_independent_of_threads():
    frame, _ = simulate_battles(6, 2000, seed=4)
    battles = read_battles(frame)
    one = fit_battles(battles, n_resamples=120, seed=7, n_jobs=1).bootstrap_distribution
    two = fit_battles(battles, n_resamples=120, seed=7, n_jobs=2).bootstrap_distribution
    np.testing.assert_array_equal(one, two)
    other = fit_battles(battles, n_resamples=120, seed=8, n_jobs=1).bootstrap_distribution
    assert not np.array_equal(one, other)


def test_chord_newton_converges_to_the_exact_refit():
    from rankstats.core.bradley_terry_mle import Pairs, fit_bt

    frame, _ = simulate_battles(6, 3000, seed=9)
    battles = read_battles(frame)
    fit = fit_battles(battles, n_resamples=3, seed=1)
    # Refit replicate 0 exactly from its own resampled counts.
    pairs = battles.pairs()
    cells = np.stack([pairs.wins1, pairs.wins2, pairs.ties], axis=1).astype(np.int64)
    nonzero = np.flatnonzero(cells.ravel())
    rng = np.random.default_rng(np.random.SeedSequence(1).spawn(1)[0])
    flat = np.zeros((3, cells.size), dtype=np.int64)
    flat[:, nonzero] = resample_cells(cells.ravel()[nonzero], 3, rng)
    w = flat[0].reshape(-1, 3).astype(float)
    exact = fit_bt(
        Pairs(pairs.n_systems, pairs.item1, pairs.item2, w[:, 0], w[:, 1], w[:, 2]),
        ties=True,
        order=True,
    )
    np.testing.assert_allclose(fit.bootstrap_distribution[0], exact.params, atol=1e-5)


# ---------------------------------------------------------------------------- outputs
def test_elo_scale_anchor_and_differences():
    frame, _ = simulate_battles(5, 2000, seed=6)
    battles = read_battles(frame)
    centred = fit_battles(battles, n_resamples=0)
    ratings = centred.ratings()
    assert ratings.mean() == pytest.approx(1000.0)
    theta = centred.log_worth
    np.testing.assert_allclose(
        np.diff(ratings.to_numpy()), 400 * math.log10(math.e) * np.diff(theta), rtol=1e-12
    )
    anchored = fit_battles(battles, n_resamples=50, elo=EloScale(anchor="model-002", rating=1114.0))
    table = anchored.table().set_index("model")
    assert table.loc["model-002", "rating"] == pytest.approx(1114.0)
    assert table.loc["model-002", "bootstrap_low"] == pytest.approx(1114.0)
    np.testing.assert_allclose(
        anchored.ratings().to_numpy() - ratings.to_numpy(),
        1114.0 - ratings["model-002"],
    )
    assert ELO_SCALE == pytest.approx(400 / math.log(10))
    with pytest.raises(ValueError, match="anchor='nope' is not a model"):
        fit_battles(battles, n_resamples=0, elo=EloScale(anchor="nope"))


def test_table_parameters_and_win_probability():
    frame, _ = simulate_battles(5, 3000, seed=8)
    fit = fit_battles(read_battles(frame), n_resamples=100)
    assert isinstance(fit, BattleFit)
    table = fit.table()
    assert list(table.columns) == [
        "model",
        "rating",
        "fisher_low",
        "fisher_high",
        "bootstrap_low",
        "bootstrap_high",
        "quasi_se",
        "rank",
        "rank_ub",
        "n_battles",
    ]
    assert table["rating"].is_monotonic_decreasing
    assert (table["fisher_low"] < table["rating"]).all()
    assert table["n_battles"].sum() == 2 * 3000
    p = fit.win_probability()
    off = ~np.eye(5, dtype=bool)
    np.testing.assert_allclose((p.to_numpy() + p.to_numpy().T)[off], 1.0)
    first = fit.win_probability(position="first", ties="exclude")
    assert (first.to_numpy()[off] < p.to_numpy()[off] + 0.5).all()
    assert "BattleFit(5 models" in repr(fit)


@pytest.mark.slow
def test_posterior_agrees_with_the_mle():
    # Two chains of 500 draws after 400 tuning steps, not four of 500 + 500: the convergence
    # check (R-hat ≤ 1.01, bulk ESS ≥ 400) passes, and the posterior means differ from the MLE
    # by 0.7 Elo at most, against a tolerance of 15 (their Monte Carlo SE, posterior sd / √ESS,
    # is under 1 Elo). Most of the time is compiling and starting the chains, not drawing.
    frame, _ = simulate_battles(4, 2000, order_effect=0.2, seed=13)
    fit = fit_battles(
        read_battles(frame),
        n_resamples=100,
        posterior=NutsSettings(draws=500, tune=400, chains=2, sampler="pymc", progress=False),
    )
    assert fit.info["sampler"] == "pymc"
    assert fit.info["posterior_problems"] == []
    table = fit.table()
    assert {"posterior_mean", "posterior_low", "posterior_high"} <= set(table.columns)
    np.testing.assert_allclose(table["posterior_mean"], table["rating"], atol=15.0)
    row = fit.parameters().set_index("parameter").loc["order_effect"]
    assert row["posterior_low"] < row["estimate"] < row["posterior_high"]


@pytest.mark.parametrize(("ties", "order"), [(True, True), (False, False)])
def test_the_posterior_gives_the_sampler_choice_its_size(monkeypatch, ties, order):
    """``sampler="auto"`` decides by the model's size (nutpie from 50 parameters when
    installed): the battles' posterior must pass it, as the rank models do."""
    from rankstats._pymc import nuts

    class Stop(Exception):
        pass

    seen = {}

    def fake(model, sampler, **kwargs):
        seen.update(kwargs, sampler=sampler)
        raise Stop

    monkeypatch.setattr(nuts, "sample_nuts", fake)
    frame, _ = simulate_battles(6, 400, order_effect=0.2, seed=3)
    with pytest.raises(Stop):
        fit_battles(
            read_battles(frame), ties=ties, order_effect=order, n_resamples=0, posterior=True
        )
    assert seen["sampler"] == "auto"
    assert seen["n_parameters"] == 6 + int(ties) + int(order)


# ---------------------------------------------------------------------------- CLI
def test_cli_writes_files_and_keeps_names_as_data(tmp_path, capsys):
    from rankstats.cli import main

    frame, _ = simulate_battles(5, 1500, seed=14)
    rename = {"model-000": "<b>&", "model-001": "$x^2$", "model-002": "=cmd()"}
    frame = frame.astype(str).replace(rename)
    frame.to_csv(tmp_path / "b.csv", index=False)
    out = tmp_path / "out"
    code = main(["battles", str(tmp_path / "b.csv"), "--n-resamples", "50", "--out", str(out)])
    assert code == 0
    names = {p.name for p in out.iterdir()}
    assert {
        "ratings.csv",
        "ratings.tex",
        "parameters.csv",
        "win_probability.csv",
        "intervals.png",
        "intervals.pdf",
        "win_probability.png",
    } <= names
    csv = (out / "ratings.csv").read_text()
    assert "'=cmd()" in csv and "<b>&" in csv
    tex = (out / "ratings.tex").read_text()
    assert r"\textless{}b\textgreater{}\&" in tex and r"\$x\textasciicircum{}2\$" in tex
    assert "$x^2$" not in tex
    printed = capsys.readouterr().out
    assert "$x^2$" in printed and "order_effect" in printed


def test_cli_errors_are_one_line_with_exit_code_2(tmp_path, capsys):
    from rankstats.cli import main

    path = tmp_path / "b.csv"
    path.write_text("model_a,model_b,winner\nx,y,a\ny,x,maybe\n")
    assert main(["battles", str(path), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "line 3" in err and "'maybe'" in err
    path.write_text("model_a,model_b,winner\nx,y,a\ny,x,b\n")
    assert main(["battles", str(path), "--anchor", "zz", "--out", str(tmp_path / "o")]) == 2
    assert "--anchor 'zz'" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_numpy_fallback_matches_the_numba_kernels(monkeypatch):
    pytest.importorskip("numba")
    import sys

    frame, _ = simulate_battles(6, 3000, seed=15)
    battles = read_battles(frame)
    with_numba = fit_battles(battles, n_resamples=60, seed=4, n_jobs=1).bootstrap_distribution
    monkeypatch.setitem(sys.modules, "rankstats.battles.numba_kernels", None)  # import fails
    without = fit_battles(battles, n_resamples=60, seed=4, n_jobs=1).bootstrap_distribution
    # Same resampled counts (the same inversion of the same uniforms); the NumPy gradient works
    # in float32, so the refits agree to the stopping tolerance.
    np.testing.assert_allclose(without, with_numba, atol=2e-6)


def test_unidentified_order_effect_says_what_to_do():
    """Two models, x always shown first: only θ_x − θ_y + η is identified."""
    frame = pd.DataFrame(
        {
            "model_a": ["x"] * 30,
            "model_b": ["y"] * 30,
            "winner": ["a"] * 18 + ["b"] * 9 + ["tie"] * 3,
        }
    )
    battles = read_battles(frame)
    with pytest.raises(InvalidBattlesError, match="order_effect=False"):
        fit_battles(battles, n_resamples=0, order_effect=True)
    with pytest.warns(DataWarning, match="order effect is left out"):
        fit = fit_battles(battles, n_resamples=0)  # identified without it
    assert fit.log_worth[0] > fit.log_worth[1] and fit.log_order is None


def test_cli_drops_both_bad_before_deciding_on_ties(tmp_path):
    """The only ties are 'both bad' and --both-bad drop removes them: no tie parameter is fitted
    (Davidson's ν would run off to 0 and the fit would fail)."""
    import json

    from rankstats.cli import main

    frame, _ = simulate_battles(6, 3000, seed=15)
    frame = frame[frame["winner"] != "tie"]
    assert (frame["winner"] == "tie (bothbad)").any()
    frame.to_csv(tmp_path / "b.csv", index=False)
    out = tmp_path / "out"
    argv = ["battles", str(tmp_path / "b.csv"), "--both-bad", "drop", "--n-resamples", "20"]
    assert main([*argv, "--no-figures", "--out", str(out)]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["info"]["ties"] == "half" and summary["info"]["both_bad"] == "drop"
