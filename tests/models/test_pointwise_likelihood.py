"""The pointwise log-likelihood of Mallows fits of partial data (sub-rankings, top-k lists,
ties, preferences), and ``compare_fits`` with Plackett–Luce on NASCAR's sub-rankings.

No PyMC model is compiled in the default run: the Plackett–Luce "posterior" is the
normal-approximation draws of its MAP fit, relabelled as a sampled fit with the pointwise
log-likelihood a NUTS fit attaches (as tests/reporting/test_report_model_comparison.py does);
the Mallows fits are the real samplers, run short. The values are checked against brute force
(every complete ranking of 5 items, written here); one slow test runs the real fits on NASCAR.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
import math
import time
import warnings

import numpy as np
import pandas as pd
import pytest

import rankstats as rs
from rankstats._pymc import compat as _compat
from rankstats._pymc.convergence import ConvergenceWarning
from rankstats.models import LOOWarning
from rankstats.models import pointwise_likelihood as pointwise

SHORT = dict(draws=60, tune=40, chains=2, max_draws=60, progress=False, seed=0)


def _quiet(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return call()


def _sampled_pl(rk: rs.Rankings, kind: str = "subset"):
    """A MAP fit turned into a 'sampled' fit with the pointwise log-likelihood of NUTS."""
    model = rs.models.PlackettLuce(kind=kind)
    fit = model.fit(rk, method="map", seed=1)
    fake = dataclasses.replace(fit, method="nuts", idata=copy.deepcopy(fit.idata))
    pointwise.add_to_nuts_fit(model, rk, None, fake)
    return fake


def _group(fit):
    return _compat.group(fit.idata, "log_likelihood")


def _values(fit) -> np.ndarray:
    data = _group(fit)["loglik"].to_numpy()
    return data.reshape(-1, data.shape[-1])


def _brute_force(ranks: np.ndarray, position: np.ndarray, theta: float, kind: str) -> float:
    """log Σ over the complete rankings that keep the observed order (ties: either order; NaN:
    anywhere, or below every ranked item for top-k) of the Kendall probability."""
    n = len(ranks)
    key = [n + 1 if (kind == "top_k" and math.isnan(k)) else k for k in ranks]
    total = kept = 0.0
    for perm in itertools.permutations(range(1, n + 1)):
        d = sum(
            (perm[i] < perm[j]) != (position[i] < position[j])
            for i in range(n)
            for j in range(i + 1, n)
        )
        w = math.exp(-theta * d)
        total += w
        if all(perm[a] < perm[b] for a in range(n) for b in range(n) if key[a] < key[b]):
            kept += w
    return math.log(kept / total)


SUB = rs.Rankings.from_orderings(
    [["a", "b", "c", "d", "e"], ["b", "a", "c"], ["c", "a", "b", "d"], ["a", "d", "e"]] * 3
    + [["b", ("a", "c"), "e"], ["e", "d"]],
    systems=list("abcde"),
)


# ----------------------------------------------------------------------------- the values
def test_a_sub_ranking_fit_has_its_marginal_likelihood():
    """The Gibbs fit of sub-rankings of 5 systems: every value is the sum over the compatible
    rankings (enumerated: exact), checked by brute force at a few draws."""
    fit = _quiet(lambda: rs.models.Mallows().fit(SUB, **SHORT))
    group = _group(fit)
    assert group.attrs["estimate"] == "exact" and group.attrs["kind"] == "subset"
    assert group.sizes["ranking"] == SUB.n_rankings
    values, draws = _values(fit), fit.draws()
    for s in (0, 77):
        for row in (1, 3, 12, 13):
            expected = _brute_force(
                SUB.ranks[row], draws["position"][s], draws["theta"][s], "subset"
            )
            assert values[s, row] == pytest.approx(expected, abs=1e-10)


def test_a_top_k_fit_reads_the_unranked_below():
    """Kendall by Metropolis–Hastings with kind="top_k": the closed form of a top-k list (the
    unranked systems a tie group at the bottom), recorded as kind "top_k" — a rankings of two
    systems of five is a top-2 list here, not a pair."""
    fit = _quiet(
        lambda: rs.models.Mallows(kind="top_k").fit(
            SUB, draws=60, tune=100, chains=2, max_draws=60, progress=False
        )
    )
    group = _group(fit)
    assert group.attrs["kind"] == "top_k" and group.attrs["estimate"] == "exact"
    values, draws = _values(fit), fit.draws()
    for s in (0, 99):
        for row in (1, 13):
            expected = _brute_force(
                SUB.ranks[row], draws["position"][s], draws["theta"][s], "top_k"
            )
            assert values[s, row] == pytest.approx(expected, abs=1e-10)


def test_preferences_have_a_likelihood_per_assessor():
    table = pd.DataFrame(
        [(j, a, b) for j in range(5) for a, b in (("a", "b"), ("b", "c"), ("c", "d"))]
        + [(5, "b", "a"), (6, "d", "c"), (6, "a", "c")],
        columns=["assessor", "preferred", "other"],
    )
    prefs = rs.models.AssessorPreferences.from_table(table)
    fit = _quiet(
        lambda: rs.models.Mallows(distance="footrule").fit(
            prefs, draws=100, tune=200, chains=2, max_draws=100, progress=False
        )
    )
    group = _group(fit)
    assert group.attrs["unit"] == "assessor" and group.attrs["kind"] == "preferences"
    assert list(group["assessor"].values) == [str(a) for a in prefs.assessors]
    values, draws = _values(fit), fit.draws()
    perms = list(itertools.permutations(range(1, 5)))
    stated = table.groupby("assessor")[["preferred", "other"]].apply(
        lambda t: [("abcd".index(a), "abcd".index(b)) for a, b in t.to_numpy()]
    )
    for s in (0, 150):
        rho, alpha = draws["position"][s], draws["alpha"][s]
        weight = {
            p: math.exp(-alpha / 4 * sum(abs(p[i] - rho[i]) for i in range(4))) for p in perms
        }
        for j, pairs in enumerate(stated):
            kept = sum(w for p, w in weight.items() if all(p[a] < p[b] for a, b in pairs))
            assert values[s, j] == pytest.approx(math.log(kept / sum(weight.values())), abs=1e-10)


# ----------------------------------------------------------------------------- NASCAR
@pytest.fixture(scope="module")
def nascar():
    rk = rs.load_rankings("nascar")  # 36 races, 87 drivers, 43 ranked per race
    mallows = _quiet(lambda: rs.models.Mallows().fit(rk, **SHORT))
    return rk, mallows, _sampled_pl(rk)


def test_nascar_sub_rankings_are_estimated_and_the_error_recorded(nascar):
    _, mallows, _ = nascar
    group = _group(mallows)
    attrs = group.attrs
    assert attrs["estimate"] == "importance sampling"
    assert attrs["is_units"] == 36 and attrs["is_samples"] == 64  # the most by default
    assert 0 < attrs["is_se_mean"] < attrs["is_se_max"] < 1
    assert attrs["is_bias"] == pytest.approx(36 * attrs["is_se_mean"] ** 2, rel=1.0)
    assert 0.2 * attrs["is_samples"] < attrs["is_ess_median"] <= attrs["is_samples"]
    values = _values(mallows)
    # a race orders 43 of 87 drivers: the uniform model gives it log(1 / 43!) = −122.1, the
    # fitted model more on average (θ ≈ 0.05: not much more)
    uniform = -math.lgamma(44)
    assert uniform < values.mean() < uniform + 20 and np.ptp(values[:, 0]) > 0


def test_compare_fits_puts_mallows_next_to_plackett_luce_on_nascar(nascar):
    _, mallows, pl = nascar
    with pytest.warns(LOOWarning, match="mallows: the pointwise log-likelihood of 36 ranking"):
        result = rs.models.compare_fits({"pl": pl, "mallows": mallows})
    assert set(result.table.index) == {"pl", "mallows"} and result.n_units == 36
    assert any("importance-sampling estimate" in note for note in result.notes)
    assert "importance-sampling estimate" in repr(result)
    with pytest.warns(LOOWarning, match="importance-sampling estimate"):
        waic = rs.models.compare_fits({"pl": pl, "mallows": mallows}, ic="waic")
    assert np.isfinite(waic.table["elpd"]).all()


def test_more_samples_shrink_the_standard_error(nascar):
    rk, mallows, _ = nascar
    fit = copy.deepcopy(mallows)
    pointwise.add_to_fit(fit, rk, samples=4, seed=1)
    before = dict(_group(fit).attrs)
    pointwise.add_to_fit(fit, rk, samples=16, seed=2)
    after = _group(fit).attrs
    assert (before["is_samples"], after["is_samples"]) == (4, 16)
    assert 0.35 < after["is_se_mean"] / before["is_se_mean"] < 0.65  # 1/√4 = 0.5
    np.testing.assert_allclose(_values(fit), _values(mallows), atol=8 * before["is_se_max"])


def test_a_plackett_luce_fit_of_the_other_kind_is_refused(nascar):
    rk, mallows, _ = nascar
    with pytest.raises(ValueError, match="read the partial rankings differently"):
        rs.models.compare_fits({"pl": _sampled_pl(rk, kind="top_k"), "mallows": mallows})


@pytest.mark.slow
def test_nascar_default_fits_compared_by_loo():
    """The real thing (the block of docs/user-guide/mallows.md, sampler named): the default
    Mallows fit (Gibbs, chains extended until they converge: 40,000 draws) and Plackett–Luce
    by NUTS, compared by PSIS-LOO. The Monte Carlo error of Mallows' estimated likelihoods
    must be small next to the elpd's own standard error."""
    from rankstats.core.permutations.marginal import SAMPLE_BUDGET, SAMPLES

    rk = rs.load_rankings("nascar")
    start = time.perf_counter()
    mallows = rs.models.Mallows().fit(rk, seed=0, progress=False)
    seconds = time.perf_counter() - start
    pl = rs.models.PlackettLuce().fit(rk, seed=0, progress=False, sampler="pymc")
    with pytest.warns(LOOWarning, match="importance-sampling estimate"):
        result = rs.models.compare_fits({"pl": pl, "mallows": mallows})
    attrs = dict(_group(mallows).attrs)
    print(result, f"\nMallows fit with its pointwise likelihood: {seconds:.1f} s", attrs)
    pairs = _values(mallows).size
    assert attrs["is_samples"] == max(SAMPLES[0], min(SAMPLES[1], SAMPLE_BUDGET // pairs))
    assert np.isfinite(result.table["elpd"]).all()
    assert attrs["is_bias"] < 0.5 * result.table.loc["mallows", "se"]
