"""The Bayesian hierarchical test across tasks (Corani et al. 2017): the PyMC model's density
against a hand-written scipy density, the rescaling, the t probabilities, the errors; slow (they
sample): one small shared NUTS fit (simulated δ0 well above the ROPE) and the result object,
δ0 = 0 inside the ROPE, and baycomp's HierarchicalTest when pystan is installed."""

from __future__ import annotations

import importlib
import time
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rankstats as rs
from rankstats._pymc import compat as _compat
from rankstats._pymc.convergence import ConvergenceWarning
from rankstats.significance.bayesian_hierarchical import (
    BayesHierarchical,
    bayes_hierarchical,
    thetas,
)
from rankstats.significance.hierarchical_data import prepare
from rankstats.significance.hierarchical_model import build_model

ROPE = 0.01


def _simulate(
    delta0: float,
    sigma0: float,
    n_tasks: int = 6,
    n_instances: int = 10,
    noise: float = 0.01,
    seed: int = 0,
    rho: float = 0.0,
) -> rs.Scores:
    """``a`` and ``b`` on ``n_tasks`` tasks: δ_i ~ N(delta0, sigma0), then the instances'
    differences ~ MVN(δ_i 1, noise² ((1 − ρ) I + ρ J)) (a shared task effect added to both)."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n_tasks):
        delta = rng.normal(delta0, sigma0)
        base = rng.uniform(0.6, 0.9)
        shared = rng.normal(0, noise * np.sqrt(rho))
        for j in range(n_instances):
            b = base + rng.normal(0, 0.02)
            d = delta + shared + rng.normal(0, noise * np.sqrt(1 - rho))
            rows += [("a", f"task{i}", j, b + d), ("b", f"task{i}", j, b)]
    frame = pd.DataFrame(rows, columns=["system", "task", "instance", "score"])
    return rs.Scores.from_long(frame, instance="instance")


# ---------------------------------------------------------------- the one shared NUTS fit
@pytest.fixture(scope="module")
def fit():
    scores = _simulate(delta0=0.04, sigma0=0.005, rho=0.1, seed=1)
    start = time.perf_counter()
    with warnings.catch_warnings():
        # Few draws for speed: the convergence check may warn (tested on its own below).
        warnings.simplefilter("ignore", ConvergenceWarning)
        res = bayes_hierarchical(
            scores, "a", "b", rope=ROPE, rho=0.1, draws=300, tune=400, chains=2, seed=3
        )
    print(f"shared fit: {time.perf_counter() - start:.1f} s")
    return scores, res


@pytest.mark.slow  # shares one NUTS fit (a 25–45 s first compile)
def test_a_clearly_better_than_the_rope(fit):
    _, res = fit
    assert isinstance(res, BayesHierarchical)
    assert res.p_a > 0.95 and res.decision == "a"
    assert res.shares["a"] > 0.95
    # The population mean difference: near the simulated 0.04, in score units.
    delta0 = _compat.group(res.idata)["delta0"].to_numpy()
    assert 0.03 < delta0.mean() < 0.05


@pytest.mark.slow  # shares one NUTS fit (a 25–45 s first compile)
def test_probabilities_sum_to_one_and_the_draws_are_probabilities(fit):
    _, res = fit
    assert sum(res.probabilities.values()) == pytest.approx(1.0, abs=1e-12)
    assert sum(res.predictive.values()) == pytest.approx(1.0, abs=1e-12)
    assert res.draws.shape == (600, 3)
    assert np.all(res.draws >= 0) and np.allclose(res.draws.sum(axis=1), 1.0)
    # The headline is baycomp's probs(): the share of draws in which each θ is the largest.
    winners = np.bincount(np.argmax(res.draws, axis=1), minlength=3) / 600
    np.testing.assert_allclose([res.p_a, res.p_rope, res.p_b], winners, rtol=1e-12)
    assert res.shares == res.probabilities
    # The posterior predictive probabilities, labelled as such.
    np.testing.assert_allclose(
        [res.predictive[k] for k in ("a", "rope", "b")], res.draws.mean(axis=0), rtol=1e-12
    )
    table = res.table()
    assert table["outcome"].tolist() == ["a", "rope", "b"]
    assert table["system"].tolist() == ["a", None, "b"]
    assert table["probability"].sum() == pytest.approx(1.0)
    assert table["predictive"].sum() == pytest.approx(1.0)
    # δ_new draws agree with the predictive probability of the right region (Monte Carlo).
    share = float(np.mean(res.delta_new > ROPE))
    p = res.predictive["a"]
    assert abs(share - p) < 5 * np.sqrt(p * (1 - p) / 600) + 0.01
    assert "posterior predictive" in repr(res)


@pytest.mark.slow  # shares one NUTS fit (a 25–45 s first compile)
def test_task_estimates_are_labelled_and_shrunk(fit):
    scores, res = fit
    tasks = res.task_table()
    assert tasks["task"].tolist()[:6] == [f"task{i}" for i in range(6)]
    assert tasks["task"].tolist()[6:] == ["(new task)", "(population mean δ0)"]
    per_task = tasks.iloc[:6]
    assert (per_task["n"] == 10).all()
    observed = (
        scores.data.pivot_table(index=["task", "instance"], columns="system", values="score")
        .eval("a - b")
        .groupby(level="task")
        .mean()
    )
    np.testing.assert_allclose(per_task["mean_difference"], observed.to_numpy(), rtol=1e-12)
    assert (per_task["delta_low"] < per_task["delta_mean"]).all()
    assert (per_task["delta_mean"] < per_task["delta_high"]).all()
    # Shrinkage: the task estimates are closer together than the observed task means.
    assert per_task["delta_mean"].std() < per_task["mean_difference"].std()
    # The ArviZ data carry the task names and score-unit variables.
    posterior = _compat.group(res.idata)
    assert list(posterior["delta"].coords["task"].values) == res.tasks
    np.testing.assert_allclose(
        posterior["delta"].mean(("chain", "draw")).to_numpy(), per_task["delta_mean"]
    )


@pytest.mark.slow  # shares one NUTS fit (a 25–45 s first compile)
def test_arviz_object_and_diagnostics(fit):
    _, res = fit
    if _compat.DATATREE:
        import xarray as xr

        assert isinstance(res.idata, xr.DataTree)
    else:
        import arviz as az

        assert isinstance(res.idata, az.InferenceData)
    d = res.diagnostics
    assert {"max_r_hat", "min_ess_bulk", "divergences", "converged", "problems"} <= set(d)
    assert d["max_r_hat"] < 1.1 and d["min_ess_bulk"] > 50
    assert d["converged"] == (not d["problems"])
    text = repr(res)
    assert "BayesHierarchical(a vs b: 6 tasks, 60 instances" in text
    assert "max R-hat" in text and "divergences" in text
    assert ("NOT CONVERGED" in text) != d["converged"]


@pytest.mark.slow  # shares one NUTS fit (a 25–45 s first compile)
def test_plot_is_the_simplex(fit):
    from matplotlib.figure import Figure

    _, res = fit
    fig = res.plot()
    assert isinstance(fig, Figure)
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert any(t.startswith("a better") for t in texts)
    assert any(f"P = {res.p_rope:.3f}" in t for t in texts)
    assert "hierarchical" in fig.axes[0].get_title()


@pytest.mark.slow  # shares one NUTS fit (a 25–45 s first compile)
def test_a_second_pair_reuses_the_compiled_model(fit, monkeypatch):
    from rankstats._pymc import shared
    from rankstats.significance.hierarchical_data import pair_differences

    scores, res = fit
    module = importlib.import_module("rankstats.significance.hierarchical_model")
    built = []
    monkeypatch.setattr(module, "build_model", lambda *args: built.append(args))
    kind = res.parameters["parameterization"]
    assert kind in ("centered", "noncentered")
    # Another pair of the same data set (b against a): its statistics go into the same model.
    prep = prepare(pair_differences(scores, "b", "a", None)[0], rope=ROPE, seed=0)
    with shared.LOCK:
        model = module.shared_model(prep, 0.1, kind)
        assert module.shared_model(prep, 0.1, kind) is model
        assert model["task_mean"].get_value() == pytest.approx(prep.mean)
    assert built == []  # the shared fit's model, not a new one


@pytest.mark.slow  # shares one NUTS fit (a 25–45 s first compile)
def test_convergence_warning_names_draws_and_tune(fit, monkeypatch):
    module = importlib.import_module("rankstats.significance.bayesian_hierarchical")

    scores, res = fit
    real = module.diagnose

    def bad(idata):
        d = real(idata)
        return {**d, "converged": False, "problems": ["max R-hat = 1.300 > 1.01"]}

    monkeypatch.setattr(module, "diagnose", bad)
    monkeypatch.setattr(_compat, "sample", lambda model, **kw: res.idata)  # no new sampling
    with pytest.warns(ConvergenceWarning, match=r"draws= \(now 5\) and tune= \(now 7\)"):
        again = bayes_hierarchical(scores, "a", "b", rope=ROPE, draws=5, tune=7, chains=2)
    assert not again.converged and "NOT CONVERGED" in repr(again)


# -------------------------------------------------------------- the model, without sampling
def _hand_written_logp(point: dict, x: list[np.ndarray], rho: float, bounds: dict) -> float:
    """The model of Corani et al. (2017) on rescaled data, written with scipy.stats: uniform
    priors, Gamma(α, rate β) on ν − 1, δ_i ~ t(ν, δ0, σ0), x_i ~ MVN(δ_i 1, σ_i² M)."""
    d0, s0, alpha, beta = (
        point[k] for k in ("delta0_std", "sigma0_std", "gamma_alpha", "gamma_beta")
    )
    nu = point["nu_minus_one"] + 1
    delta = point["delta_std"] if "delta_std" in point else d0 + s0 * point["z"]
    m, up, up0 = bounds["delta_bound"], bounds["sigma_upper"], bounds["sigma0_upper"]
    total = stats.uniform.logpdf(d0, -m, 2 * m) + stats.uniform.logpdf(s0, 0, up0)
    total += stats.uniform.logpdf(alpha, 1, 1) + stats.uniform.logpdf(beta, 0.01, 0.09)
    total += stats.gamma.logpdf(point["nu_minus_one"], alpha, scale=1 / beta)
    total += stats.t.logpdf(delta, nu, loc=d0, scale=s0).sum()
    total += stats.uniform.logpdf(point["sigma_std"], 0, up).sum()
    for xi, di, si in zip(x, delta, point["sigma_std"], strict=True):
        n = len(xi)
        cov = si**2 * ((1 - rho) * np.eye(n) + rho * np.ones((n, n)))
        total += stats.multivariate_normal.logpdf(xi, np.full(n, di), cov)
    return float(total)


@pytest.mark.parametrize("kind", ["centered", "noncentered"])
@pytest.mark.parametrize("rho", [0.0, 0.2])
def test_joint_log_density_equals_scipy(rho, kind):
    from pymc.model.transform.conditioning import remove_value_transforms

    rng = np.random.default_rng(7)
    sizes = [3, 5, 4]  # tasks may have different numbers of instances
    raw = [
        rng.normal(mu, sd, n)
        for mu, sd, n in zip([0.02, -0.01, 0.05], [0.01, 0.03, 0.02], sizes, strict=True)
    ]
    diff = pd.DataFrame(
        {
            "task": [f"t{i}" for i, n in enumerate(sizes) for _ in range(n)],
            "difference": np.concatenate(raw),
        }
    )
    prep = prepare(diff, rope=0.01, seed=0)
    # The rescaling, computed independently: mean within-task sd (ddof 0), baycomp's bounds.
    s = np.mean([x.std() for x in raw])
    x = [xi / s for xi in raw]
    assert prep.scale == pytest.approx(s, rel=1e-12)
    assert prep.rope == pytest.approx(0.01 / s, rel=1e-12)
    bounds = {
        "delta_bound": max(np.abs(xi).max() for xi in x),
        "sigma_upper": 1000 * np.mean([xi.std() for xi in x]),
        "sigma0_upper": 1000 * np.std([xi.mean() for xi in x]),
    }
    assert prep.delta_bound == pytest.approx(bounds["delta_bound"], rel=1e-12)
    assert prep.sigma_upper == pytest.approx(bounds["sigma_upper"], rel=1e-12)
    assert prep.sigma0_upper == pytest.approx(bounds["sigma0_upper"], rel=1e-12)

    import pymc as pm

    model = build_model(3, kind)
    with model:
        pm.set_data(
            {
                "n_instances": prep.n,
                "task_mean": prep.mean,
                "within_ss": prep.ss,
                "rho": rho,
                "scale": prep.scale,
                "delta_bound": prep.delta_bound,
                "sigma_upper": prep.sigma_upper,
                "sigma0_upper": prep.sigma0_upper,
            }
        )
    plain = remove_value_transforms(model)
    logp = plain.compile_logp(jacobian=False, mode="FAST_COMPILE")
    for k in range(4):
        point = {
            "delta0_std": rng.uniform(-1, 1),
            "sigma0_std": rng.uniform(0.1, 2),
            "gamma_alpha": rng.uniform(1, 2),
            "gamma_beta": rng.uniform(0.01, 0.1),
            "nu_minus_one": rng.uniform(0.5, 30),
            ("delta_std" if kind == "centered" else "z"): rng.standard_t(5, 3),
            "sigma_std": rng.uniform(0.3, 3, 3),
        }
        got = float(logp(point))
        want = _hand_written_logp(point, x, rho, bounds)
        # The model samples z_i (δ_i = δ0 + σ0 z_i): its density in z is the density in δ
        # times the Jacobian σ0 per task.
        if kind == "noncentered":
            want += 3 * np.log(point["sigma0_std"])
        assert got == pytest.approx(want, rel=1e-9, abs=1e-9), k


def test_t_probabilities_in_closed_form():
    # ν → large: the normal; a symmetric case; a point far right.
    got = thetas(np.array([0.0, 0.0, 5.0]), np.array([1.0, 2.0, 1.0]), np.array([1e6, 3, 3]), 1)
    assert got[0, 0] == pytest.approx(stats.norm.sf(1), rel=1e-5)
    assert got[0, 0] == pytest.approx(got[0, 2])
    assert got[1, 1] == pytest.approx(stats.t.cdf(0.5, 3) - stats.t.cdf(-0.5, 3))
    assert got[2, 0] == pytest.approx(stats.t.cdf(4, 3))  # P(t₃ > 1 − 5)
    np.testing.assert_allclose(got.sum(axis=1), 1.0)


def test_a_constant_task_keeps_its_mean():
    diff = pd.DataFrame(
        {"task": ["t0"] * 4 + ["t1"] * 4, "difference": [0.02] * 4 + [0.0, 0.01, 0.03, 0.02]}
    )
    prep = prepare(diff, rope=0.01, seed=0)
    assert prep.constant == ["t0"]
    assert prep.mean[0] * prep.scale == pytest.approx(0.02)
    assert prep.ss[0] > 0


# ------------------------------------------------------------------------------- errors
@pytest.fixture(scope="module")
def small():
    return _simulate(delta0=0.02, sigma0=0.01, n_tasks=3, n_instances=4)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"a": "zzz"}, r"unknown system 'zzz'"),
        ({"b": "zzz"}, r"unknown system 'zzz'"),
        ({"rope": -0.1}, r"rope must be a finite number ≥ 0"),
        ({"rho": 1.0}, r"rho .* must be in \[0, 1\)"),
        ({"rho": -0.2}, r"rho .* must be in \[0, 1\)"),
        ({"task": "task0"}, r"needs at least 2 tasks .* found 1"),
        ({"task": ["task0", "nope"]}, r"unknown task 'nope'"),
        ({"sampler": "stan"}, r"sampler must be one of"),
        ({"draws": 0}, r"draws must be an integer ≥ 1"),
        ({"parameterization": "x"}, r"parameterization must be 'auto' or one of"),
    ],
)
def test_errors(small, kwargs, match):
    args = {"a": "a", "b": "b", "rope": 0.01, **kwargs}
    with pytest.raises(ValueError, match=match) as err:
        bayes_hierarchical(small, args.pop("a"), args.pop("b"), **args)
    assert "\n" not in str(err.value)


@pytest.mark.filterwarnings("ignore::rankstats.errors.DataWarning")
def test_tasks_with_fewer_than_two_shared_instances_are_named(small):
    data = small.data.copy()
    # task1: b scored on one instance only; task2: b nowhere.
    keep = ~(
        (data["system"] == "b")
        & (((data["task"] == "task1") & (data["instance"] != 0)) | (data["task"] == "task2"))
    )
    scores = rs.Scores.from_long(
        data[keep].astype({"task": str, "system": str}), instance="instance"
    )
    with pytest.raises(
        ValueError,
        match=r"on 2 task\(s\): 'task1' \(1\), 'task2' \(0\); pass missing='complete-case'",
    ):
        bayes_hierarchical(scores, "a", "b", rope=0.01)
    # Dropping them leaves one task: still refused, and said so.
    with pytest.raises(ValueError, match=r"at least 2 tasks .* found 1"):
        bayes_hierarchical(scores, "a", "b", rope=0.01, missing="complete-case")


def test_task_level_scores_are_refused():
    scores = rs.load_dataset("xtreme")
    a, b = scores.systems[:2]
    with pytest.raises(ValueError, match="needs instance-level scores"):
        bayes_hierarchical(scores, a, b, rope=0.5)


# ---------------------------------------------------------------------------------- slow
@pytest.mark.slow
def test_equivalent_systems_are_in_the_rope():
    # Sized by the convergence check it asserts (bulk ESS ≥ 400): σ0 near 0 mixes slowly, and
    # 1000 + 1000 draws on two chains give a bulk ESS of about 510; 800 + 800 (246) and
    # 700 + 500 (282, 2 divergences) fail it, so this fit is not shortened.
    scores = _simulate(delta0=0.0, sigma0=0.0005, n_tasks=8, noise=0.01, seed=5)
    res = bayes_hierarchical(scores, "a", "b", rope=0.02, draws=1000, tune=1000, chains=2, seed=1)
    assert res.parameters["parameterization"] == "noncentered"  # alike tasks, σ0 near 0
    assert res.converged, res.diagnostics
    assert res.predictive["rope"] > 0.9 and res.p_rope > 0.9


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::rankstats.errors.DataWarning")
def test_b_better_and_dropped_tasks_are_reported():
    scores = _simulate(delta0=-0.05, sigma0=0.01, n_tasks=7, seed=6)
    data = scores.data
    keep = ~((data["system"] == "b") & (data["task"] == "task6") & (data["instance"] > 0))
    scores = rs.Scores.from_long(
        data[keep].astype({"task": str, "system": str}), instance="instance"
    )
    # PyMC's defaults (4 chains × 2000 + 2000) were 4× what the claims need: with two chains of
    # 800 draws after 600 tuning steps the bulk ESS is about 1000 (≥ 400 asserted by
    # `converged`; 600 draws gave 800 and R-hat 1.008) and every draw has "b" as the largest θ
    # (P(b) = 1.000, predictive 0.99): the decision is far from the 0.95 threshold, beyond any
    # Monte Carlo error (SE of a share ≤ 0.5 / √ESS = 0.016).
    res = bayes_hierarchical(
        scores, "a", "b", rope=0.01, missing="complete-case", seed=2, draws=800, tune=600, chains=2
    )
    assert res.dropped.to_dict("records") == [{"task": "task6", "n_shared": 1}]
    assert "1 task(s) dropped" in repr(res) and res.n_tasks == 6
    assert res.parameters["parameterization"] == "centered"  # tasks differ, each well measured
    assert res.decision == "b" and res.converged, res.diagnostics


@pytest.mark.slow
def test_equals_baycomp():
    baycomp = pytest.importorskip("baycomp")
    pytest.importorskip("stan", reason="baycomp's HierarchicalTest needs pystan")
    scores = _simulate(delta0=0.012, sigma0=0.01, n_tasks=8, seed=8, rho=0.1)
    wide = scores.data.pivot_table(index=["task", "instance"], columns="system", values="score")
    x = wide["a"].unstack("instance").to_numpy()
    y = wide["b"].unstack("instance").to_numpy()
    ours = bayes_hierarchical(scores, "a", "b", rope=0.01, rho=0.1, draws=5000, seed=0)
    # baycomp's differences are y − x with "left" = x better: (left, rope, right) = (a, rope, b)
    theirs = baycomp.HierarchicalTest.sample(x, y, 0.01, runs=1, nsamples=5000, random_state=0)
    shares = np.bincount(np.argmax(theirs, axis=1), minlength=3) / len(theirs)
    for k, key in enumerate(("a", "rope", "b")):
        assert ours.shares[key] == pytest.approx(shares[k], abs=0.03)


def _baycomp_accuracies(classifier: str, folds: int) -> pd.DataFrame:
    """baycomp's docs/code/accuracies.txt (../shared/data/reference/baycomp): one classifier's
    first ``folds`` scores of every data set, long form; the repeated row ``credit`` is kept
    (as baycomp's ``get_data`` does) under a second name."""
    from pathlib import Path

    path = Path(__file__).resolve().parents[3] / "shared/data/reference/baycomp/accuracies.txt"
    if not path.exists():
        pytest.skip(f"baycomp's reference data not found at {path}")
    rows, current, seen = [], None, {}
    for line in path.read_text().splitlines():
        parts = line.split()
        if len(parts) == 1:
            current, seen = parts[0], {}
        elif parts and current == classifier:
            name = parts[0]
            seen[name] = seen.get(name, 0) + 1
            name = name if seen[name] == 1 else f"{name} ({seen[name]})"
            rows += [(classifier, name, j, float(v)) for j, v in enumerate(parts[1 : folds + 1])]
    return pd.DataFrame(rows, columns=["system", "task", "instance", "score"])


@pytest.mark.slow  # NUTS on 54 tasks: about 2 min on a loaded 2-core machine
def test_reproduces_baycomps_published_hierarchical_example():
    """Issue 23, item 10: baycomp's documentation (functions.rst, "Multiple data sets") runs
    ``two_on_multiple(nbc, j48, rope=1)`` on the 54 × 10 matrices (one 10-fold CV per data set,
    runs=1, so ρ = 1/10) and publishes (0.0795, 0.0365, 0.884): P(nbc better), P(rope),
    P(j48 better). The headline must be that quantity, within Monte Carlo error (baycomp's
    own value is itself one Monte Carlo run)."""
    frame = pd.concat([_baycomp_accuracies("nbc", 10), _baycomp_accuracies("j48", 10)])
    scores = rs.Scores.from_long(frame, instance="instance")
    assert scores.data["task"].nunique() == 54
    # Draws sized to the tolerance: the Monte Carlo SE of a share p is √(p(1 − p) / ESS), 0.010
    # for p = 0.884 at an ESS of 1000, so ±0.03 is 3 SE with 2 × 1500 draws (1000 + 600 gave a
    # bulk ESS of 670 and (0.076, 0.034, 0.891)); 2000 + 1000 was 40 % more sampling than that.
    res = bayes_hierarchical(
        scores, "nbc", "j48", rope=1.0, rho=0.1, draws=1500, tune=600, chains=2, seed=0
    )
    assert res.converged, res.diagnostics
    published = {"a": 0.0795, "rope": 0.0365, "b": 0.884}
    for key, value in published.items():
        assert res.probabilities[key] == pytest.approx(value, abs=0.03), (key, res.probabilities)
    # The other quantity is not the published one: it is labelled, not the headline.
    assert res.predictive["b"] < 0.6


class _Sampled(Exception):
    """Raised by the stand-in sampler with the run it was given (nothing is compiled)."""


def _run_of(monkeypatch, **kw):
    from rankstats.significance.hierarchical_model import NutsRun

    def stop(self, prep, rho, parameterization, progress):
        raise _Sampled((self, progress))

    monkeypatch.setattr(NutsRun, "sample", stop)
    with pytest.raises(_Sampled) as caught:
        bayes_hierarchical(_simulate(0.02, 0.01), "a", "b", rope=ROPE, seed=4, **kw)
    return caught.value.args[0]


def test_nuts_settings_equal_the_old_sampler_keywords(monkeypatch):
    """``nuts=NutsSettings(...)`` and the keywords it replaced give the same NUTS run; the old
    keywords (``progressbar`` too) warn; the defaults are the hierarchical model's."""
    nuts = rs.NutsSettings(
        draws=300, tune=200, chains=2, sampler="numpyro", progress=True, target_accept=0.9
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        new = _run_of(monkeypatch, nuts=nuts)
        default = _run_of(monkeypatch)
    with pytest.warns(FutureWarning, match=r"draws is now nuts=NutsSettings\(draws=\.\.\.\)"):
        old = _run_of(
            monkeypatch,
            draws=300,
            tune=200,
            chains=2,
            sampler="numpyro",
            progressbar=True,
            target_accept=0.9,
        )
    assert new == old and new[0].sampler == "numpyro" and new[1] is True
    assert default[0].parameters() == {
        "draws": 2000,
        "tune": 2000,
        "chains": 4,
        "seed": 4,
        "sampler": "pymc",
        "target_accept": 0.95,
    }
    assert default[1] is False
