"""The Mallows fit's posterior P(a above b): a table lookup of the closed form, the same numbers."""

import numpy as np
import pytest
import xarray as xr

from rankstats._pymc import compat as _compat
from rankstats.core.permutations.kendall import pair_probability
from rankstats.models.mallows import fit as mallows_fit


def _draws(n_draws: int, n: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    position = np.argsort(rng.random((n_draws, n)), axis=1).astype(float) + 1.0
    theta = rng.gamma(2.0, 0.5, n_draws)
    theta[:3] = [1e-9, 1e-12, 40.0]  # near 0 (→ ½) and large
    return {"position": position, "theta": theta}


@pytest.mark.parametrize(("n", "rows"), [(2, [1]), (7, [0, 3, 6]), (12, list(range(12)))])
def test_lookup_equals_the_closed_form_per_draw_and_pair(n, rows):
    draws = _draws(500, n, seed=n)
    rows = np.asarray(rows)
    got = mallows_fit.mallows_pairs(draws, rows)
    pos, theta = draws["position"], draws["theta"]
    expected = np.empty_like(got)
    for s in range(len(theta)):  # the closed form cell by cell, straight from its definition
        for r, row in enumerate(rows):
            for col in range(n):
                gap = pos[s, col] - pos[s, row]
                if gap == 0:
                    expected[s, r, col] = 0.5
                    continue
                p = pair_probability(np.array(abs(gap)), np.array(theta[s]))
                expected[s, r, col] = p if gap > 0 else 1 - p
    assert np.array_equal(got, expected)  # bit for bit: the same arithmetic per cell


def test_positions_that_are_not_integers_get_the_closed_form_at_their_gaps():
    draws = _draws(40, 6, seed=3)
    draws["position"] = draws["position"] + np.linspace(0, 0.4, 6)  # e.g. posterior means
    got = mallows_fit.mallows_pairs(draws, np.arange(6))
    gap = draws["position"][:, None, :] - draws["position"][:, :, None]
    p = pair_probability(np.maximum(np.abs(gap), 1), draws["theta"][:, None, None])
    assert np.array_equal(got, np.where(gap > 0, p, np.where(gap < 0, 1 - p, 0.5)))


def test_the_table_is_not_kept_after_its_draws():
    import gc

    draws = _draws(50, 5, seed=0)
    mallows_fit.mallows_pairs(draws, np.arange(5))
    assert mallows_fit._LAST_TABLE is not None
    del draws
    gc.collect()
    assert mallows_fit._LAST_TABLE is None
    # A new θ array of the same size gets its own table, not the last one.
    a, b = _draws(50, 5, seed=1), _draws(50, 5, seed=2)
    first = mallows_fit.mallows_pairs(a, np.arange(5))
    assert not np.array_equal(first, mallows_fit.mallows_pairs(b, np.arange(5)))


def test_diagnostics_subset_equals_the_full_set():
    rng = np.random.default_rng(0)
    posterior = xr.Dataset(
        {"x": (("chain", "draw", "k"), rng.normal(size=(4, 300, 3)).cumsum(axis=1))}
    )
    full = _compat.diagnostics(posterior)
    some = _compat.diagnostics(posterior, which=("r_hat", "ess_bulk"))
    assert list(some) == ["r_hat", "ess_bulk"]
    for key in some:
        assert np.array_equal(some[key]["x"].to_numpy(), full[key]["x"].to_numpy())
    with pytest.raises(ValueError, match="unknown diagnostic"):
        _compat.diagnostics(posterior, which=("rhat",))
