"""K-fold cross-validation of rank models (Vehtari, Gelman & Gabry 2017, sec. 4).

Checked against a direct computation that shares no code with rankstats: a Plackett–Luce
log-likelihood written as a loop over the rankings and maximised by scipy's BFGS, refitted
without each ranking in turn (K = n: leave-one-out by refitting).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import optimize

import rankstats as rs
from rankstats.errors import InvalidRankingsError
from rankstats.models.cross_validation import fold_ids


def _sample_pl(n_rankings: int, worth: np.ndarray, seed: int) -> list[list[str]]:
    """Complete rankings drawn from Plackett–Luce (Gumbel trick)."""
    rng = np.random.default_rng(seed)
    names = [f"s{i}" for i in range(len(worth))]
    utility = np.log(worth) + rng.gumbel(size=(n_rankings, len(worth)))
    return [[names[j] for j in np.argsort(-u)] for u in utility]


def _pl_loglik(theta: np.ndarray, ordering: list[int]) -> float:
    total = 0.0
    rest = list(ordering)
    while len(rest) > 1:
        top = rest[0]
        total += theta[top] - np.log(np.sum(np.exp(theta[rest])))
        rest = rest[1:]
    return total


def _direct_map(orderings: list[list[int]], n: int, scale: float = 1.0) -> np.ndarray:
    def negative(theta):
        c = theta - theta.mean()
        return -sum(_pl_loglik(theta, o) for o in orderings) + 0.5 * c @ c / scale**2

    res = optimize.minimize(negative, np.zeros(n), method="BFGS", options={"gtol": 1e-9})
    return res.x - res.x.mean()


def test_leave_one_out_by_refitting_matches_a_direct_computation():
    orderings = _sample_pl(12, np.array([4.0, 2.0, 1.0, 0.5]), seed=1)
    rk = rs.Rankings.from_orderings(orderings)
    cv = rs.models.kfold(rs.models.PlackettLuce(), rk, k=rk.n_rankings, seed=0, method="map")
    assert cv.estimate == "plug-in" and cv.k == 12
    index = {s: i for i, s in enumerate(rk.systems)}
    coded = [[index[s] for s in o] for o in orderings]
    expected = np.empty(len(coded))
    for i in range(len(coded)):
        theta = _direct_map(coded[:i] + coded[i + 1 :], len(index))
        expected[i] = _pl_loglik(theta, coded[i])
    np.testing.assert_allclose(cv.elpd_i.to_numpy(), expected, atol=1e-5)
    assert cv.elpd == pytest.approx(expected.sum(), abs=1e-4)
    assert cv.se == pytest.approx(np.sqrt(12 * np.var(expected)), abs=1e-4)


def test_pl_and_bt_agree_on_paired_comparisons():
    # A ranking of two systems is one Bradley–Terry comparison: the same model, the same
    # held-out likelihood, fold by fold.
    rk = rs.Rankings.from_orderings(
        [
            ["a", "b"],
            ["a", "b"],
            ["b", "a"],
            ["b", "c"],
            ["c", "b"],
            ["a", "c"],
            ["c", "a"],
            ["a", "c"],
            ["b", "c"],
            ["a", "b"],
        ]
    )
    pl = rs.models.kfold(rs.models.PlackettLuce(), rk, k=5, seed=3, method="map")
    bt = rs.models.kfold(rs.models.BradleyTerry(), rk, k=5, seed=3, method="map")
    np.testing.assert_allclose(pl.elpd_i, bt.elpd_i, atol=1e-8)
    assert not bt.composite


def test_folds_are_balanced_and_seeded():
    folds = fold_ids(23, 5, seed=7)
    assert sorted(np.bincount(folds)) == [4, 4, 5, 5, 5]
    assert (fold_ids(23, 5, seed=7) == folds).all()
    assert not (fold_ids(23, 5, seed=8) == folds).all()
    with pytest.raises(ValueError, match="between 2"):
        fold_ids(3, 4, seed=0)


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"k": 2.5}, "k must be an integer ≥ 2"),
        ({"k": True}, "k must be an integer ≥ 2"),
        ({"k": 4, "seed": 1.5}, "seed must be None or an integer ≥ 0"),
        ({"k": 4, "method": 3}, "method must be a method name"),
    ],
)
def test_arguments_are_checked_before_any_refit(options, match):
    rk = rs.load_rankings("salad")
    options.setdefault("method", "map")
    with pytest.raises(TypeError, match=match):
        rs.models.kfold(rs.models.PlackettLuce(), rk, **options)


def test_compare_fits_by_kfold_from_point_fits():
    rk = rs.load_rankings("salad")
    fits = {
        "pl": rs.models.PlackettLuce().fit(rk, method="map"),
        "bt": rs.models.BradleyTerry().fit(rk, method="map"),
    }
    with pytest.warns(rs.models.LOOWarning, match="composite"):
        cmp = rs.models.compare_fits(fits, ic="kfold", data=rk, k=8, seed=0)
    assert cmp.ic == "kfold" and cmp.best == "pl" and cmp.n_units == 32
    assert any("plug-in" in n for n in cmp.notes)
    # the table is the per-fit K-fold results on the same folds
    for name in fits:
        assert cmp.table.loc[name, "elpd"] == pytest.approx(cmp.kfold[name].elpd)
    assert (cmp.kfold["pl"].folds == cmp.kfold["bt"].folds).all()
    with pytest.raises(ValueError, match="data="):
        rs.models.compare_fits(fits, ic="kfold")


def test_mallows_sub_rankings_are_scored_by_their_marginal_likelihood():
    """A held-out sub-ranking of 3 of 4 systems: its 4 compatible rankings summed exactly (it
    was refused for want of a closed form), so no Monte Carlo note."""
    rk = rs.Rankings.from_orderings(
        [["a", "b", "c"], ["b", "a", "c", "d"], ["a", "c", "b", "d"], ["d", "a", "b", "c"]] * 2
    )
    result = rs.models.kfold(
        rs.models.Mallows(), rk, k=2, method="mcmc", draws=200, tune=200, chains=2
    )
    assert np.isfinite(result.elpd_i).all() and (result.elpd_i < 0).all()
    assert not any("importance-sampling" in note for note in result.notes)


def test_a_fold_holding_every_ranking_of_a_system_is_refused():
    rk = rs.Rankings.from_orderings([["a", "b"], ["b", "a"], ["a", "b"], ["a", "c"]])
    with pytest.raises(InvalidRankingsError, match="system\\(s\\) c"):
        rs.models.kfold(rs.models.PlackettLuce(), rk, k=4, method="map")


@pytest.mark.slow  # NUTS: 1 fit + 10 refits, then 2 fits + 2 × 3 refits
@pytest.mark.filterwarnings("ignore::rankstats._pymc.convergence.ConvergenceWarning")  # 150 draws
def test_nuts_kfold_agrees_with_psis_loo():
    """Sized (issue 24): both elpd_i estimates are log-mean-exps over 2 x 500 draws of held-out
    likelihoods whose coefficient of variation over the posterior is 0.4-1.05: an MC error of
    0.013-0.033 each, so atol 0.1 is 2-5 SD of their difference (measured: +0.03 to +0.06, a
    small PSIS-against-refit bias).  The refits' convergence is checked (no K-fold note).  The
    PL-against-BT ordering differs by far more than its dse (BT's composite likelihood) and
    needs few draws: 2 x 150."""
    from rankstats._pymc import compat as _compat
    from rankstats.models import pointwise_likelihood as pointwise

    settings = {"draws": 500, "tune": 500, "chains": 2, "sampler": "pymc", "progressbar": False}
    settings["cores"] = 1  # every fit and refit: no process start-up per fit
    one_process = {"cores": 1}
    # Leave-one-out by refitting (K = n) against PSIS-LOO of the full fit, where every Pareto
    # k is below 0.7 (the importance-sampling estimate is reliable there).
    rk = rs.Rankings.from_orderings(_sample_pl(10, np.array([3.0, 2.0, 1.0, 0.7]), seed=2))
    fit = rs.models.PlackettLuce().fit(rk, **settings)
    loo = _compat.loo(fit.idata, pointwise.VARIABLE, 1.0)
    assert np.all(np.asarray(loo["pareto_k"]) < 0.7)
    cv = rs.models.kfold(fit, rk, k=rk.n_rankings, seed=0, **one_process)
    assert cv.estimate == "posterior"
    assert not any("did not converge" in note for note in cv.notes), cv.notes
    np.testing.assert_allclose(cv.elpd_i.to_numpy(), np.asarray(loo["elpd_i"]), atol=0.1)
    assert cv.elpd == pytest.approx(float(loo["elpd"]), abs=0.3)
    # PL against BT on a bundled data set: K-fold orders them as PSIS-LOO does.
    salad = rs.load_rankings("salad")
    settings.update(draws=150, tune=200)
    fits = {
        "pl": rs.models.PlackettLuce().fit(salad, **settings),
        "bt": rs.models.BradleyTerry().fit(salad, **settings),
    }
    with pytest.warns(rs.models.LOOWarning):
        by_loo = rs.models.compare_fits(fits)
    with pytest.warns(rs.models.LOOWarning):
        by_kfold = rs.models.compare_fits(fits, ic="kfold", data=salad, k=3, seed=0)
    assert list(by_kfold.table.index) == list(by_loo.table.index)
