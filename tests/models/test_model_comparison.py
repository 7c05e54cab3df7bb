"""Pointwise log-likelihood of sampled fits (ArviZ ``log_likelihood`` group) and
``rs.models.compare_fits`` (PSIS-LOO / WAIC) across Plackett–Luce, Bradley–Terry and Mallows.

Small fits in module-scoped fixtures (short chains); every test that needs them compiles PyMC
models (about 35 s cold) and runs in the slow stage, as does the statistical check that LOO
prefers the family that generated the data. The default run keeps the exact checks that need no
NUTS fit (Mallows marginals, the refusals); tests/models/test_pointwise_likelihood.py compares
Mallows with Plackett–Luce on NASCAR's sub-rankings; tests/reporting/test_report_model_comparison.py
compares the report's table with ``compare_fits`` on fits relabelled as sampled."""

from __future__ import annotations

import copy
import itertools
import warnings

import numpy as np
import pandas as pd
import pytest

import rankstats as rs
from rankstats._pymc import compat as _compat
from rankstats._pymc.convergence import ConvergenceWarning
from rankstats.core.permutations.kendall import log_z
from rankstats.models import LOOWarning
from rankstats.models import pointwise_likelihood as pointwise
from rankstats.models._fit import Fit

pytest.importorskip("pymc")

SHORT = dict(draws=100, tune=150, chains=2, progress=False)


def _quiet(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return call()


@pytest.fixture(scope="module")
def salad():
    return rs.load_rankings("salad")  # 32 complete rankings of 4 systems


@pytest.fixture(scope="module")
def fits(salad):
    return {
        "pl": _quiet(lambda: rs.models.PlackettLuce().fit(salad, seed=1, sampler="pymc", **SHORT)),
        "bt": _quiet(lambda: rs.models.BradleyTerry().fit(salad, seed=2, sampler="pymc", **SHORT)),
        "mallows": _quiet(
            lambda: rs.models.Mallows().fit(salad, draws=300, tune=50, chains=2, progress=False)
        ),
    }


@pytest.fixture(scope="module")
def bt_counts():
    return _quiet(
        lambda: rs.models.BradleyTerry().fit(
            rs.load_paired("pudding"), seed=3, sampler="pymc", **SHORT
        )
    )


def _values(fit: Fit) -> np.ndarray:
    data = pointwise.pointwise(fit).to_numpy()
    return data.reshape(-1, data.shape[-1])


# ----------------------------------------------------------------------------- pointwise values
@pytest.mark.slow
def test_pointwise_sums_to_the_total_log_likelihood_at_each_draw(fits, salad, bt_counts):
    pl, bt, ma = fits["pl"], fits["bt"], fits["mallows"]
    for s in (0, 37, 199):
        theta = pl.draws()["log_worth"][s]
        total = rs.models.PlackettLuce().log_likelihood(salad, theta)
        assert _values(pl)[s].sum() == pytest.approx(total, rel=1e-10)
        draws = bt.draws()
        assert "log_tie" not in draws  # salad has no ties
        total = rs.models.BradleyTerry().log_likelihood(salad, draws["log_worth"][s])
        assert _values(bt)[s].sum() == pytest.approx(total, rel=1e-10)
        draws = bt_counts.draws()
        tie = draws["log_tie"][s] if "log_tie" in draws else None
        total = rs.models.BradleyTerry().log_likelihood(
            rs.load_paired("pudding"), draws["log_worth"][s], tie
        )
        assert _values(bt_counts)[s].sum() == pytest.approx(total, rel=1e-10)
        draws = ma.draws()
        total = rs.models.Mallows().log_likelihood(salad, draws["position"][s], draws["theta"][s])
        assert _values(ma)[s].sum() == pytest.approx(total, rel=1e-10)
    # not a constant: the values change with the draws
    assert np.ptp(_values(pl)[:, 0]) > 0 and np.ptp(_values(ma)[:, 0]) > 0


def _kendall(pos_a: np.ndarray, pos_b: np.ndarray) -> int:
    n = len(pos_a)
    return sum(
        (pos_a[i] < pos_a[j]) != (pos_b[i] < pos_b[j]) for i in range(n) for j in range(i + 1, n)
    )


@pytest.mark.slow
def test_mallows_complete_untied_rankings_give_the_mallows_probability_exactly(fits, salad):
    ma = fits["mallows"]
    values = _values(ma)
    draws = ma.draws()
    n = salad.n_systems
    for s in (0, 150, 599):
        for row in (0, 2, 31):
            expected = -draws["theta"][s] * _kendall(
                salad.ranks[row], draws["position"][s]
            ) - float(log_z(n, draws["theta"][s]))
            assert values[s, row] == pytest.approx(expected, abs=1e-12)


def test_mallows_marginal_over_ties_and_unranked_systems_is_exact():
    """Brute force: the sum of the Mallows probabilities of every compatible complete ranking
    (the orders inside tie groups; the positions of the unranked systems of a pair or of a
    longer sub-ranking, these summed over by the enumeration of their compatible rankings)."""
    rk = rs.Rankings.from_orderings(
        [
            ["a", ("b", "c"), "d", "e"],
            [("a", "b", "c", "d", "e")],
            [("e", "a"), ("b", "c", "d")],
            ["c", "a"],
            ["e", "b"],
            [("b", "d")],
            ["d", "a", "c"],
            [("b", "e"), "a"],
        ],
        systems=list("abcde"),
    )
    rng = np.random.default_rng(4)
    position = np.array([rng.permutation(5) + 1 for _ in range(3)], dtype=float)
    theta = np.array([0.3, 1.0, 2.5])
    values = pointwise.mallows_rankings(rk.ranks, position, theta)
    for s in range(3):
        for row in range(rk.n_rankings):
            r = rk.ranks[row]
            total = 0.0
            for perm in itertools.permutations(range(5)):
                p = np.empty(5)
                p[list(perm)] = np.arange(5)
                if all(p[i] < p[j] for i in range(5) for j in range(5) if r[i] < r[j]):  # NaN: no
                    total += np.exp(-theta[s] * _kendall(p, position[s]))
            expected = np.log(total) - float(log_z(5, theta[s]))
            assert values[s, row] == pytest.approx(expected, abs=1e-12)


@pytest.mark.slow
def test_unit_and_coordinates_are_recorded(fits, bt_counts, salad):
    for name in ("pl", "bt", "mallows"):
        group = _compat.group(fits[name].idata, "log_likelihood")
        assert group.attrs["unit"] == "ranking"
        assert group["loglik"].dims == ("chain", "draw", "ranking")
        assert group.sizes["ranking"] == salad.n_rankings
        assert list(group["ranking"].values) == [str(r) for r in salad.rankers]
    hashes = {_compat.group(f.idata, "log_likelihood").attrs["data_hash"] for f in fits.values()}
    assert len(hashes) == 1
    group = _compat.group(bt_counts.idata, "log_likelihood")
    assert group.attrs["unit"] == "comparison"
    assert group["loglik"].dims == ("chain", "draw", "comparison")
    assert group.sizes["comparison"] == len(
        rs.models.BradleyTerry().counts(rs.load_paired("pudding")).item1
    )
    assert " vs " in str(group["comparison"].values[0])


@pytest.mark.slow
def test_netcdf_round_trip_keeps_the_group(fits, tmp_path):
    for name, fit in fits.items():
        path = fit.to_netcdf(tmp_path / f"{name}.nc")
        back = Fit.from_idata(_compat.from_netcdf(path))
        np.testing.assert_array_equal(_values(back), _values(fit))
        assert _compat.group(back.idata, "log_likelihood").attrs["unit"] == "ranking"
    # the zoo's thinned files keep it too, thinned like the posterior
    rs.models.save(fits["pl"], "salad", tmp_path / "zoo", keep=20)
    back = rs.models.load("salad", "pl", tmp_path / "zoo")
    assert _values(back).shape == (2 * 20, 32)
    np.testing.assert_array_equal(
        _values(back), _values(fits["pl"]).reshape(2, 100, 32)[:, ::5].reshape(-1, 32)
    )
    loaded = {n: Fit.from_idata(_compat.from_netcdf(tmp_path / f"{n}.nc")) for n in fits}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LOOWarning)
        a = rs.models.compare_fits(loaded).table
        b = rs.models.compare_fits(fits).table
    pd.testing.assert_frame_equal(a, b)


# ----------------------------------------------------------------------------- compare_fits
@pytest.mark.slow
def test_compare_fits_table(fits):
    with pytest.warns(LOOWarning, match="composite"):
        result = rs.models.compare_fits(fits)
    table = result.table
    assert list(table.columns) == [
        "rank", "model", "elpd", "se", "p", "elpd_diff", "dse", "weight", "pareto_k_high",
        "warning",
    ]  # fmt: skip
    assert table["rank"].tolist() == [0, 1, 2]
    assert table["elpd"].is_monotonic_decreasing
    assert table["elpd_diff"].iloc[0] == 0 and (table["elpd_diff"] >= 0).all()
    assert table["weight"].sum() == pytest.approx(1.0)
    # BT's composite likelihood of 4-system rankings is far below the proper ones
    assert result.best in ("pl", "mallows") and table.index[-1] == "bt"
    assert result.unit == "ranking" and result.n_units == 32
    assert result.pointwise.shape == (32, 3)
    np.testing.assert_allclose(result.pointwise.sum().to_numpy(), table["elpd"].to_numpy())
    text = repr(result)
    assert "ic='loo'" in text and "elpd_diff" in text and "note: bt" in text
    with pytest.raises(ValueError, match="ic must be"):
        rs.models.compare_fits(fits, ic="aic")


@pytest.mark.skipif(_compat.DATATREE, reason="arviz 1.x has no az.waic; arviz 0.x is the reference")
@pytest.mark.slow
def test_waic_and_table_equal_arviz_0x(fits):
    import arviz as az

    two = {"pl": fits["pl"], "mallows": fits["mallows"]}
    for ic in ("loo", "waic"):
        ours = rs.models.compare_fits(two, ic=ic).table
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = az.compare({n: f.idata for n, f in two.items()}, ic=ic)
        assert list(ours.index) == list(theirs.index)
        np.testing.assert_allclose(ours["elpd"], theirs[f"elpd_{ic}"], rtol=1e-3)
        np.testing.assert_allclose(ours["p"], theirs[f"p_{ic}"], rtol=2e-2)
        np.testing.assert_allclose(ours["elpd_diff"], theirs["elpd_diff"], atol=1e-2)
        np.testing.assert_allclose(ours["dse"], theirs["dse"], rtol=1e-6)
        np.testing.assert_allclose(ours["weight"], theirs["weight"], atol=1e-3)
        if ic == "waic":
            np.testing.assert_allclose(ours["elpd"], theirs["elpd_waic"], rtol=1e-12)
            np.testing.assert_allclose(ours["se"], theirs["se"], rtol=1e-12)


@pytest.mark.slow
def test_refuses_map_fits(fits, salad):
    mle = rs.models.PlackettLuce().fit(salad, method="mle")
    with pytest.raises(ValueError, match=r"'pl_mle'.*method='mle'.*not posterior draws.*nuts"):
        rs.models.compare_fits({"pl_mle": mle, "mallows": fits["mallows"]})


@pytest.mark.slow
def test_refuses_different_units(fits, bt_counts):
    with pytest.raises(ValueError, match=r"different units.*pl per ranking; bt per comparison"):
        rs.models.compare_fits({"pl": fits["pl"], "bt": bt_counts})


@pytest.mark.slow
def test_refuses_different_data(fits, salad):
    other = rs.Rankings.from_rank_matrix(salad.to_frame().iloc[:20])
    pl_other = _quiet(
        lambda: rs.models.Mallows().fit(other, draws=100, tune=10, chains=2, progress=False)
    )
    with pytest.raises(ValueError, match=r"different data: pl \(32 rankings.*mallows20 \(20 rank"):
        rs.models.compare_fits({"pl": fits["pl"], "mallows20": pl_other})


@pytest.mark.slow
def test_refuses_zoo_fits_without_the_group(fits):
    zoo = rs.models.load("glue", "pl")
    assert not _compat.has_group(zoo.idata, "log_likelihood")
    with pytest.raises(
        ValueError, match=r"'glue'.*no pointwise log-likelihood.*saved without.*refit"
    ):
        rs.models.compare_fits({"glue": zoo, "pl": fits["pl"]})


def test_mallows_with_unranked_systems_is_compared():
    """Sub-rankings (once refused): the fit holds their marginal likelihood (exact here: few
    compatible rankings; tests/models/test_pointwise_likelihood.py checks the values and the
    estimates of larger ones) and compare_fits takes it."""
    rk = rs.Rankings.from_orderings(
        [["a", "b", "c", "d"], ["b", "a", "c"], ["c", "a", "b", "d"], ["a", "c"]] * 3
    )
    fit = _quiet(lambda: rs.models.Mallows().fit(rk, draws=50, tune=10, chains=2, progress=False))
    assert _compat.group(fit.idata, "log_likelihood").attrs["estimate"] == "exact"
    result = rs.models.compare_fits({"mallows": fit, "again": fit})
    assert result.table.loc["mallows", "elpd"] == pytest.approx(result.table.loc["again", "elpd"])


@pytest.mark.slow
def test_pareto_k_warning_names_the_fits_and_counts(fits):
    """Three rankings whose log-likelihood is very low at a handful of draws (minus the absolute
    value of a Student t with 1.5 degrees of freedom): importance weights 1/p with a heavy
    tail, Pareto k far above 0.7."""
    spoiled = copy.deepcopy(fits["pl"])
    group = _compat.group(spoiled.idata, "log_likelihood")
    values = group["loglik"].to_numpy().copy()
    rng = np.random.default_rng(0)
    values[..., :3] = -np.minimum(2.0 * np.abs(rng.standard_t(1.5, (*values.shape[:2], 3))), 60)
    group = group.assign(loglik=(group["loglik"].dims, values))
    _compat.add_group(spoiled.idata, "log_likelihood", group)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = rs.models.compare_fits({"spoiled": spoiled, "mallows": fits["mallows"]})
    loo_warnings = [w for w in caught if issubclass(w.category, LOOWarning)]
    assert len(loo_warnings) == 1, [str(w.message) for w in caught]
    message = str(loo_warnings[0].message)
    count = int(result.table.loc["spoiled", "pareto_k_high"])
    assert count == 3 and f"{count} ranking(s) of spoiled" in message and "mallows" not in message
    assert (result.pareto_k["spoiled"].iloc[:3] > 0.7).sum() == count


@pytest.mark.slow
def test_waic_has_no_pareto_k(fits):
    result = rs.models.compare_fits({"pl": fits["pl"], "mallows": fits["mallows"]}, ic="waic")
    assert result.pareto_k is None and result.table["pareto_k_high"].isna().all()


# ----------------------------------------------------------------------------- slow: the truth
def _pl_data(seed: int, worth: np.ndarray, n_rankings: int) -> rs.Rankings:
    """Gumbel-max: sorting worth + Gumbel noise is a Plackett–Luce ranking."""
    rng = np.random.default_rng(seed)
    utility = worth + rng.gumbel(size=(n_rankings, len(worth)))
    return rs.Rankings.from_rank_matrix(
        pd.DataFrame((-utility).argsort(axis=1).argsort(axis=1) + 1.0, columns=list("abcdef"))
    )


def _mallows_data(seed: int, theta: float, n: int, n_rankings: int) -> rs.Rankings:
    """Repeated insertion (Doignon et al. 2004): the item at σ-position j (σ = a, b, c, ...) is
    inserted among the j − 1 better ones at slot s with probability ∝ e^{−θ (j − 1 − s)}."""
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(n_rankings):
        order: list[int] = []
        for j in range(n):
            w = np.exp(-theta * (j - np.arange(j + 1)))
            order.insert(int(rng.choice(j + 1, p=w / w.sum())), j)
        ranks = np.empty(n)
        ranks[order] = np.arange(1, n + 1)
        rows.append(ranks)
    return rs.Rankings.from_rank_matrix(pd.DataFrame(rows, columns=list("abcdef")[:n]))


def _bt_data(seed: int, worth: np.ndarray, n_rankings: int) -> rs.Rankings:
    """Paired comparisons as rankings of two systems: a random pair, the winner by BT.  For
    rankings of two systems BT's likelihood is a proper one (for longer rankings it is a
    composite, not a distribution over rankings), and it coincides with Plackett–Luce's, so
    the test compares BT with Mallows."""
    rng = np.random.default_rng(seed)
    names = list("abcdef")
    orderings = []
    for _ in range(n_rankings):
        i, j = rng.choice(len(worth), 2, replace=False)
        p = 1 / (1 + np.exp(worth[j] - worth[i]))
        orderings.append([names[i], names[j]] if rng.random() < p else [names[j], names[i]])
    return rs.Rankings.from_orderings(orderings, systems=names)


def _fit_all(rk: rs.Rankings, which: tuple[str, ...], seed: int) -> dict[str, Fit]:
    # 2 x 250 draws: the MC error of an elpd (a sum of log-mean-exps) is under 1, against elpd
    # differences of 9-77 and dse of 4-9 (measured, seeds 0-2).
    # n_jobs=1: chains one after the other in this process, no worker start-up per fit.
    nuts = dict(draws=250, tune=300, chains=2, n_jobs=1, progress=False, seed=seed, sampler="pymc")
    makers = {
        "pl": lambda: rs.models.PlackettLuce().fit(rk, **nuts),
        "bt": lambda: rs.models.BradleyTerry().fit(rk, **nuts),
        "mallows": lambda: rs.models.Mallows().fit(
            rk, draws=500, tune=200, chains=2, seed=seed, progress=False
        ),
    }
    return {name: _quiet(makers[name]) for name in which}


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_loo_prefers_the_family_that_generated_the_data(seed):
    """Sized (issue 24): elpd_diff grows like n and its dse like sqrt(n).  With 150 rankings of
    each family, elpd_diff / dse was 5.2-8.3 (PL truth), 2.0-3.5 (Mallows truth) and, with 300
    paired comparisons, 3.4-4.5 (BT truth), seeds 0-2.  The Mallows and BT cases keep their
    data (a ratio of 2 has no room to halve; BT with 150 comparisons fell to 0.55 for seed 1);
    PL data are cut to 60 rankings (ratio 2.6-4.8 measured)."""
    uneven = np.array([2.0, 1.9, 0.0, -0.1, -1.8, -2.0])
    cases = {
        "pl": (_pl_data(seed, uneven, 60), ("pl", "mallows")),
        "mallows": (_mallows_data(seed, 0.8, 6, 150), ("pl", "mallows")),
        # two clusters: coin flips inside, near-certain outcomes across, whatever the gap in σ
        "bt": (_bt_data(seed, np.array([3.0, 2.9, 2.8, -2.8, -2.9, -3.0]), 300), ("bt", "mallows")),
    }
    for truth, (rk, which) in cases.items():
        result = rs.models.compare_fits(_fit_all(rk, which, seed))
        assert result.best == truth, (truth, result)
        assert result.table["elpd_diff"].iloc[1] > result.table["dse"].iloc[1], (truth, result)


def test_only_the_kfold_descriptions_are_kept_from_warning():
    """A caveat is warned whatever its text (a fit may be named "K-fold ..."); the notes that
    describe K-fold's estimates are named by the caller, not recognised by their first word."""
    from rankstats.models.model_comparison import LOOWarning, _issue

    caveat = "K-fold bt: a composite likelihood (Bradley–Terry on rank-broken pairs)"
    described = "K-fold (5 folds, seed 0) of pl: the log-mean-exp over the refit's draws"
    with pytest.warns(LOOWarning) as caught:
        texts = _issue([caveat, described], stacklevel=1, described=(described,))
    assert [str(w.message) for w in caught] == [caveat]
    assert texts == (caveat, described)
