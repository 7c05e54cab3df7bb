"""Bayesian Mallows: closed forms and the Gibbs sampler against exact enumeration."""

import itertools
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rankstats as rs
from rankstats._pymc.convergence import ConvergenceWarning
from rankstats.core.permutations.kendall import log_z, pair_probability
from rankstats.core.rankings import Rankings
from rankstats.models.mallows._gibbs import run_chain

pytestmark = pytest.mark.pymc  # runs PyMC / ArviZ: CI runs it on both stacks


def kendall(p, s):
    n = len(p)
    return sum((p[i] < p[j]) != (s[i] < s[j]) for i in range(n) for j in range(i + 1, n))


def test_published_log_z():
    # shared/data/README.md: n = 10, θ = 0.3.
    assert log_z(10, 0.3) == pytest.approx(9.69641008390133, abs=1e-12)


@pytest.mark.parametrize("theta", [0.2, 1.0, 2.5])
def test_log_z_and_pairwise_closed_form_by_enumeration(theta):
    n = 5
    perms = [np.array(p) for p in itertools.permutations(range(n))]
    centre = np.arange(n)
    w = np.array([np.exp(-theta * kendall(p, centre)) for p in perms])
    assert np.log(w.sum()) == pytest.approx(float(log_z(n, theta)), abs=1e-12)
    for a, b in [(0, 1), (0, 4), (1, 3), (2, 4)]:
        exact = sum(wi for p, wi in zip(perms, w, strict=True) if p[a] < p[b]) / w.sum()
        assert pair_probability(b - a, theta) == pytest.approx(exact, abs=1e-12)


def exact_posterior(ranks, grid, log_prior):
    """Posterior of (σ, θ) on a θ grid by enumerating σ and every compatible completion."""
    n = ranks.shape[1]
    perms = [np.array(p) for p in itertools.permutations(range(n))]

    def compatible(p, r):
        return all(
            p[i] < p[j] for i in range(n) for j in range(n) if r[i] < r[j]
        )  # NaN comparisons are False: no constraint

    completions = [[p for p in perms if compatible(p, r)] for r in ranks]
    log_post = np.zeros((len(perms), len(grid)))
    for k, s in enumerate(perms):
        for comp in completions:
            d = np.array([kendall(p, s) for p in comp])
            log_post[k] += np.log(np.exp(-np.outer(grid, d)).sum(axis=1))
        log_post[k] += -len(ranks) * log_z(n, grid) + log_prior(grid)
    post = np.exp(log_post - log_post.max())
    post /= post.sum()
    theta_mean = float((post.sum(axis=0) * grid).sum())
    position = np.zeros((n, n))
    for k, s in enumerate(perms):
        position[np.arange(n), s] += post[k].sum()
    return theta_mean, position


CASES = {
    "complete": [[1, 2, 3, 4], [2, 1, 3, 4], [1, 3, 2, 4], [1, 2, 4, 3]],
    "partial": [[1, 2, 3, 4], [2, 1, np.nan, 3], [1, np.nan, 2, np.nan], [np.nan, 2, 1, 3]],
    "ties": [[1.5, 1.5, 3, 4], [1, 2, 3.5, 3.5], [2, 1, 3, 4], [1, np.nan, 2.5, 2.5]],
}


# Sweeps per case, sized (issue 24) so that the worst Monte-Carlo standard error of a position
# probability, sqrt(p (1 - p) tau / N) <= 0.5 sqrt(tau / N), is at most a third of the tolerance
# 0.02: N >= 5625 tau, with tau the largest integrated autocorrelation time of the 16 position
# indicators (measured on 30 000 sweeps: complete 1.6, partial 2.8, ties 8.4).  The theta mean
# (sd 0.6-1.2, tau 1.7-4.2) then has an MC error of at most a quarter of its tolerance
# 0.05 max(theta, 1).  Defects this catches (exact posteriors of the defective samplers): a theta
# update whose normaliser counts L - 1 rankings moves E[theta] by -0.40 / -0.52 / -0.50 and the
# positions by up to 0.12 / 0.17 / 0.06 (checked once: it fails all three cases); a prior rate
# of 0.5 instead of 0.1 in it moves E[theta] by 11-18 %.  Both backends draw the same chain
# (tests/models/test_mallows_numba.py): "auto" runs the numba kernels, five times faster, where
# numba is installed.
SWEEPS = {"complete": 10_000, "partial": 16_000, "ties": 48_000}


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(CASES))
def test_gibbs_sampler_matches_the_exact_posterior(case):
    ranks = np.array(CASES[case], dtype=float)
    grid = np.linspace(0.002, 8, 1500)
    prior = lambda t: -0.1 * t  # noqa: E731 - Exponential(rate 0.1)
    theta_mean, position = exact_posterior(ranks, grid, prior)
    rng = np.random.default_rng(1)
    thetas, sigma = run_chain(ranks, SWEEPS[case], 1_000, prior, rng, np.arange(4), backend="auto")
    assert abs(thetas.mean() - theta_mean) < 0.05 * max(theta_mean, 1.0)
    mcmc = np.stack([np.bincount(sigma[:, i].astype(int) - 1, minlength=4) for i in range(4)])
    np.testing.assert_allclose(mcmc / len(sigma), position, atol=0.02)


def test_sampler_small_exact_check_fast():
    ranks = np.array(CASES["partial"], dtype=float)
    grid = np.linspace(0.002, 8, 800)
    prior = lambda t: -0.1 * t  # noqa: E731
    theta_mean, position = exact_posterior(ranks, grid, prior)
    thetas, sigma = run_chain(ranks, 6_000, 500, prior, np.random.default_rng(2), np.arange(4))
    assert abs(thetas.mean() - theta_mean) < 0.1 * max(theta_mean, 1.0)
    mcmc = np.stack([np.bincount(sigma[:, i].astype(int) - 1, minlength=4) for i in range(4)])
    np.testing.assert_allclose(mcmc / len(sigma), position, atol=0.05)


@pytest.mark.parametrize(
    ("n", "draws"), [(20, 2500), pytest.param(50, 3000, marks=pytest.mark.slow)]
)
def test_recovery_with_missing_items(n, draws):
    theta = 0.6
    centre = [f"i{k:02d}" for k in range(n)]
    rk = rs.simulate.mallows(n, theta, size=40, center=centre, seed=3)
    ranks = rk.ranks.copy()
    rng = np.random.default_rng(4)
    ranks[rng.random(ranks.shape) < 0.3] = np.nan
    partial = Rankings.from_rank_matrix(pd.DataFrame(ranks, columns=list(rk.systems)))
    fit = rs.models.Mallows().fit(partial, draws=draws, tune=300, chains=2, seed=5, progress=False)
    truth = pd.Series(np.arange(1, n + 1), index=centre)
    order_rank = pd.Series(np.arange(1, n + 1), index=fit.order)
    # Spearman footrule of the consensus summary to the true centre is small.
    assert (order_rank[centre] - truth).abs().mean() < 1.5
    low, high = np.quantile(fit.draws()["theta"], [0.005, 0.995])
    assert low < theta < high


def test_map_on_complete_rankings():
    rk = rs.simulate.mallows(6, 1.2, size=300, center=list("abcdef"), seed=6)
    fit = rs.models.Mallows().fit(rk, method="map")
    assert fit.order == list("abcdef")
    # ML equation E_θ[d] = mean distance, checked against a direct maximisation of the
    # log-likelihood -θ Σd - L log Z over a fine grid.
    grid = np.linspace(0.3, 3, 20_000)
    total = fit.info["mean_distance"] * 300
    best = grid[np.argmax(-grid * total - 300 * log_z(6, grid))]
    assert fit.theta == pytest.approx(best, abs=2e-3)
    assert fit.pairwise().iloc[0]["estimate"] > 0.5
    with pytest.raises(ValueError, match="complete rankings"):
        rs.models.Mallows().fit(
            rs.Rankings.from_orderings([["a", "b"], ["b", "a", "c"]]), method="map"
        )
    # Three systems tied for places 2-4 all get the integer mid-rank 3: still a tie.
    odd_tie = rs.Rankings.from_rank_matrix(
        pd.DataFrame([[1.0, 3.0, 3.0, 3.0], [1.0, 2.0, 3.0, 4.0]], columns=list("abcd"))
    )
    with pytest.raises(ValueError, match="without ties"):
        rs.models.Mallows().fit(odd_tie, method="map")


def test_fit_interface_and_diagnostics():
    rk = rs.load_rankings("potato_visual")
    fit = rs.models.Mallows().fit(rk, draws=300, tune=100, chains=2, seed=0, progress=False)
    summary = fit.summary()
    assert {"r_hat", "ess_bulk"} <= set(summary.columns)
    assert "theta" in summary.index
    dist = fit.rank_distribution()
    np.testing.assert_allclose(dist.sum(axis=1), 1.0)
    pw = fit.pairwise()
    assert {"system_a", "system_b", "estimate", "low", "high"} <= set(pw.columns)
    cmp = rs.compare(rs.pairwise(rk), [fit])
    assert "mallows" in set(cmp.table.method)


def test_short_chain_warns():
    rk = rs.load_rankings("potato_visual")
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        # max_draws=15: no automatic extension, so 2 × 15 draws cannot reach bulk ESS 400.
        rs.models.Mallows().fit(
            rk, draws=15, tune=0, chains=2, seed=0, progress=False, max_draws=15
        )


def test_bad_input():
    with pytest.raises(rs.InvalidRankingsError, match="appear in no ranking"):
        rs.models.Mallows().fit(rs.Rankings.from_orderings([["a", "b"]], systems="abc"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rs.DataWarning)
        one = rs.Rankings.from_orderings([["a", "b"], ["a"]])
    with pytest.raises(rs.InvalidRankingsError, match="fewer than two"):
        rs.models.Mallows().fit(one)
    with pytest.raises(ValueError, match="prior must be"):
        rs.models.Mallows(prior="flat")


# short chains
@pytest.mark.filterwarnings("ignore::rankstats._pymc.convergence.ConvergenceWarning")
def test_netcdf_round_trip_and_zoo(tmp_path):
    """A stored Mallows fit reads back as a MallowsFit with the same consensus and numbers (runs on
    both PyMC / ArviZ stacks in CI: InferenceData and xarray.DataTree)."""
    rk = rs.load_rankings("potato_visual")
    fit = rs.models.Mallows().fit(
        rk, draws=200, tune=50, chains=2, seed=1, progress=False, max_draws=200
    )  # no extension: keep=200 stores every draw
    rs.models.save(fit, "potato", tmp_path, keep=200)
    back = rs.models.load("potato", "mallows", tmp_path)
    assert isinstance(back, rs.models.MallowsFit)
    assert back.order == fit.order
    assert back.theta == pytest.approx(fit.theta, rel=1e-12)
    pd.testing.assert_series_equal(back.worth, fit.worth)
    pd.testing.assert_frame_equal(back.pairwise(), fit.pairwise())
    assert back.info["dataset"] == "potato" and back.info["max_r_hat"] < 1.2

    exact = rs.models.Mallows().fit(rk, method="map")
    exact.to_netcdf(tmp_path / "map.nc")
    from rankstats._pymc import compat as _compat

    again = rs.models.Fit.from_idata(_compat.from_netcdf(tmp_path / "map.nc"))
    assert again.order == exact.order and again.info["kemeny_optimal"] is True
    assert again.theta == pytest.approx(exact.theta, rel=1e-12)
    assert again.log_likelihood == pytest.approx(exact.log_likelihood, rel=1e-12)


@pytest.mark.parametrize("dataset", ["glue", "superglue", "xtreme", "tac08"])
def test_stored_zoo_fits(dataset):
    """The Mallows fits shipped in models/ load on this PyMC / ArviZ stack,
    describe the bundled data, and agree with an independent aggregator: the consensus puts a
    before b for at least 90 % of the pairs that the pairwise majority of the data (σ^l's
    pairwise estimates) orders with a margin (P ≥ 0.6)."""
    fit = rs.models.load(dataset, "mallows")
    scores = rs.load_dataset(dataset)
    rk = Rankings.from_scores(scores, by="instance" if scores.has_instances else "task")
    assert fit.systems == rk.systems and fit.info["n_rankings"] == rk.n_rankings
    assert sorted(fit.order) == sorted(rk.systems) and fit.info["problems"] == ""
    assert fit.theta == pytest.approx(fit.draws()["theta"].mean(), rel=0.02)  # thinned draws
    p = rs.pairwise(rk).probability().to_numpy()
    position = {s: k for k, s in enumerate(fit.order)}
    where = np.array([position[s] for s in rk.systems])
    clear = p >= 0.6
    agree = (where[:, None] < where[None, :])[clear]
    assert agree.mean() >= 0.9, agree.mean()


def test_mallows_is_read_back_through_the_model_registry(monkeypatch):
    """Fit.from_idata has no Mallows special case: the model registers how its fits are rebuilt
    (as PL and BT register their pair functions), and any registered model can do the same."""
    from rankstats._pymc import compat as _compat
    from rankstats.models import _fit
    from rankstats.models.mallows.fit import from_attributes

    assert _fit.REBUILDERS["mallows"] is from_attributes
    assert _fit.MODEL_VARIABLES["mallows"] == ("position", False)
    rk = Rankings.from_orderings([["a", "b", "c"], ["b", "a", "c"], ["a", "c", "b"]] * 3)
    fit = rs.models.Mallows().fit(rk, method="map")
    assert repr(fit).startswith("Fit(model='mallows', method='map', 3 systems, log-likelihood")
    seen = []

    def rebuild(generic):
        seen.append(generic)
        return generic

    monkeypatch.setitem(_fit.PAIR_FUNCTIONS, "toy", _fit.PAIR_FUNCTIONS["mallows"])
    monkeypatch.setitem(_fit.MODEL_VARIABLES, "toy", _fit.MODEL_VARIABLES["mallows"])
    monkeypatch.setitem(_fit.REBUILDERS, "toy", rebuild)
    _compat.set_attrs(fit.idata, {"rankstats_model": "toy"})
    back = rs.models.Fit.from_idata(fit.idata)
    assert seen == [back] and type(back) is rs.models.Fit and back.model == "toy"


def test_chain_in_blocks_equals_one_run():
    """Extending a chain continues it exactly: tune + blocks draws the same as one run."""
    from rankstats.models.mallows._gibbs import Chain

    ranks = np.array(CASES["ties"], dtype=float)
    prior = lambda t: -0.1 * t  # noqa: E731
    theta, sigma = run_chain(ranks, 300, 50, prior, np.random.default_rng(9), np.arange(4))
    chain = Chain(ranks, prior, np.random.default_rng(9), np.arange(4))
    chain.run(50, keep=False)
    parts = [chain.run(k) for k in (100, 1, 199)]
    np.testing.assert_array_equal(np.concatenate([t for t, _ in parts]), theta)
    np.testing.assert_array_equal(np.concatenate([p for _, p in parts]), sigma)


def test_automatic_extension_keeps_the_first_draws_and_reports_the_cap():
    rk = rs.load_rankings("potato_visual")
    settings = dict(draws=40, tune=20, chains=2, seed=3, progress=False)
    with pytest.warns(ConvergenceWarning, match="max_draws=40"):
        short = rs.models.Mallows().fit(rk, max_draws=40, **settings)
    assert short.info["extensions"] == 0 and short.info["cap_reached"] is True
    longer = rs.models.Mallows().fit(rk, max_draws=4000, **settings)
    info = longer.info
    assert info["extensions"] >= 1 and info["draws"] == 40 * (1 + info["extensions"])
    assert info["convergence_problems"] == [] and info["cap_reached"] is False
    # The extended chains start with the draws of the run without extension.
    first = longer.draws()["theta"].reshape(2, -1)[:, :40]
    np.testing.assert_array_equal(first, short.draws()["theta"].reshape(2, 40))
    from rankstats.reporting.diagnostics import convergence

    verdict = convergence(longer)
    assert verdict.converged and verdict.max_r_hat <= 1.01 and verdict.min_ess_bulk >= 400
    with pytest.raises(ValueError, match="max_draws"):
        rs.models.Mallows().fit(rk, max_draws=10, **settings)


# short chains
@pytest.mark.filterwarnings("ignore::rankstats._pymc.convergence.ConvergenceWarning")
def test_chains_in_worker_processes_draw_the_same(monkeypatch):
    """Chains run in forked worker processes (long fits, Linux) give exactly the draws of the
    chains run one after the other."""
    from rankstats.models.mallows import timing

    if not timing.CAN_FORK:
        pytest.skip("chains run in parallel only where fork() is available")
    rk = rs.load_rankings("potato_visual")
    settings = dict(draws=60, tune=20, chains=3, seed=2, progress=False, max_draws=120)
    one = rs.models.Mallows().fit(rk, n_jobs=1, **settings)
    monkeypatch.setattr(timing, "PARALLEL_FROM", 0.0)
    many = rs.models.Mallows().fit(rk, n_jobs=2, **settings)
    assert one.info["workers"] == 1 and many.info["workers"] == 2
    assert many.info["draws"] == one.info["draws"]
    for name in ("theta", "position"):
        np.testing.assert_array_equal(many.draws()[name], one.draws()[name])


def test_backend_choice_without_numba(monkeypatch):
    """``backend="auto"`` falls back to the NumPy reference when numba does not import;
    ``backend="numba"`` then says how to install it; unknown names are refused."""
    import sys

    from rankstats.models.mallows._gibbs import resolve_backend

    assert resolve_backend("numpy") == "numpy"
    # The import fails (also when another test imported the kernels already).
    monkeypatch.setitem(sys.modules, "rankstats.models.mallows._gibbs_numba", None)
    monkeypatch.delattr(rs.models.mallows, "_gibbs_numba", raising=False)
    assert resolve_backend("auto") == "numpy"
    with pytest.raises(ImportError, match=r"rankstats\[fast\]"):
        resolve_backend("numba")
    rk = Rankings.from_orderings([["a", "b", "c"], ["b", "a", "c"], ["a", "c"]] * 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fit = rs.models.Mallows().fit(rk, draws=30, tune=10, chains=2, progress=False, max_draws=30)
    assert fit.info["backend"] == "numpy"
    with pytest.raises(ValueError, match="backend must be"):
        rs.models.Mallows().fit(rk, backend="cuda")


def test_numba_is_imported_only_by_the_numba_kernels():
    """Users who never sample a Mallows chain (or bootstrap battles) never compile (or load) the
    kernels, and rankstats never imports numba itself at the top of a module: only the kernel
    modules (``*_numba.py``, ``numba_kernels.py``) import it — and one another — and only the
    functions that use them import those."""
    import ast
    from pathlib import Path

    root = Path(rs.__file__).parent
    for path in root.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
        names = {a.name for n in top if isinstance(n, ast.Import) for a in n.names}
        names |= {n.module or "" for n in top if isinstance(n, ast.ImportFrom)}
        names |= {
            f"{n.module}.{a.name}" for n in top if isinstance(n, ast.ImportFrom) for a in n.names
        }
        if path.name.endswith(("_numba.py", "numba_kernels.py")):
            continue
        assert not any(x == "numba" or x.startswith("numba.") for x in names), path
        assert not any(x.endswith(("_numba", "numba_kernels")) for x in names), path


@pytest.mark.slow
def test_fitting_other_models_does_not_compile_the_kernels():
    """(numba itself may be loaded by ArviZ, which uses it when installed; the kernels' compile
    or cache-load cost is paid only by a Mallows chain with the numba backend.)"""
    import subprocess
    import sys

    code = (
        "import sys, rankstats as rs\n"
        "rk = rs.load_rankings('potato_visual')\n"
        "rs.models.Mallows().fit(rk, method='map')\n"
        "rs.models.Mallows().fit(rk, draws=20, tune=0, chains=1, backend='numpy',"
        " progress=False)\n"
        "print('rankstats.models.mallows._gibbs_numba' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "False"


# ---------------------------------------------------------------------------- bad input (#45)
@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"shape": float("nan")}, "shape must be a finite number > 0, not nan"),  # it hung
        ({"rate": float("inf")}, "rate must be a finite number > 0, not inf"),
        ({"shape": -1.0}, "shape must be a finite number > 0"),
        ({"rate": "0.1"}, "rate must be a finite number > 0, not '0.1'"),
        ({"psi": float("nan")}, "psi must be a finite number > 0"),
        ({"kappa": (1.0, float("nan"))}, "kappa must be two finite numbers > 0"),
        ({"kappa": 1.0}, "kappa must be two finite numbers > 0"),
        ({"clusters": 1.5}, "clusters must be a whole number"),
        ({"kind": "top-k"}, "kind must be one of"),
        (
            {"clusters": 2, "error_model": "bernoulli"},
            "error_model='bernoulli' fits one population",
        ),
    ],
)
def test_every_parameter_is_checked_at_construction(options, match):
    with pytest.raises(ValueError, match=match.replace("(", r"\(").replace(")", r"\)")):
        rs.models.Mallows(**options)


@pytest.mark.parametrize(
    ("options", "error", "match"),
    [
        ({"draws": 2.5}, TypeError, "draws must be an integer ≥ 1, not 2.5"),
        ({"draws": 0}, ValueError, "draws must be an integer ≥ 1, not 0"),
        ({"tune": -1}, ValueError, "tune must be an integer ≥ 0"),
        ({"chains": 0}, ValueError, "chains must be an integer ≥ 1"),
        ({"n_jobs": 0}, ValueError, "n_jobs must be a positive integer"),
        ({"thin": 0}, ValueError, "thin must be an integer ≥ 1"),
        ({"leap": 0}, ValueError, "leap must be an integer ≥ 1"),
        ({"seed": "x"}, TypeError, "seed must be None or an integer ≥ 0"),
    ],
)
def test_the_fit_names_each_bad_count(options, error, match):
    rk = rs.Rankings.from_orderings([["a", "b", "c"], ["b", "a", "c"]])
    with pytest.raises(error, match=match):
        rs.models.Mallows().fit(rk, progress=False, **options)


#: BayesMallows' beach_preferences, as published (the shared data, beside the worktree).
BEACH = Path(__file__).resolve().parents[3] / "shared/data/rankings/beach_preferences.csv"


@pytest.mark.long  # 10 s: a Metropolis fit with the pointwise likelihood of 60 assessors
@pytest.mark.skipif(not BEACH.exists(), reason="shared data absent")
@pytest.mark.filterwarnings("ignore::rankstats._pymc.convergence.ConvergenceWarning")
def test_beach_preferences_with_integer_ids_fit_end_to_end():
    """The table as pandas reads it (integer item ids) fitted directly: ids are named as text
    at the input boundary, so the fit is the one of the file read as text (same draws)."""
    table = pd.read_csv(BEACH)
    assert table["top_item"].dtype.kind == "i"
    prefs = rs.models.AssessorPreferences.from_table(
        table, preferred="top_item", other="bottom_item"
    )
    text = rs.read_preferences(BEACH, preferred="top_item", other="bottom_item")
    assert prefs.systems == text.systems and (prefs.above == text.above).all()
    settings = {"draws": 100, "tune": 100, "chains": 1, "max_draws": 100, "progress": False}
    model = rs.models.Mallows(distance="footrule")
    fit = model.fit(prefs, **settings)
    assert sorted(fit.order, key=int) == [str(k) for k in range(1, 16)]
    np.testing.assert_array_equal(
        fit.draws()["alpha"], model.fit(text, **settings).draws()["alpha"]
    )


def test_cyclic_preferences_get_advice_that_fits_the_model():
    """One population: the error model is advised; a mixture (which has none) is told to fit
    one population with it, never to pass the option it cannot take."""
    table = pd.DataFrame(
        {"assessor": [1, 1, 1, 2, 3], "preferred": list("abcab"), "other": list("bcabc")}
    )
    prefs = rs.models.AssessorPreferences.from_table(table, cycles="keep")
    with pytest.raises(ValueError, match=r"with error_model='bernoulli'$"):
        rs.models.Mallows(distance="footrule").fit(prefs, progress=False)
    with pytest.raises(ValueError, match=r"in one population \(a mixture, clusters=2, has no"):
        rs.models.Mallows(distance="footrule", clusters=2).fit(prefs, progress=False)
