"""The batched forms of the statistics (a leading axis of benchmarks, a mask of kept blocks) equal
the one-benchmark functions applied to each benchmark's kept blocks alone.

These are the functions the user-facing tests call (pair_sums, holm_adjust, friedman_statistic,
posthoc's Nemenyi and Conover) and the power simulations call with many benchmarks at once.
"""

from __future__ import annotations

import numpy as np
import pytest

from rankstats.aggregation.hoeffding_intervals import holm_adjust
from rankstats.core import pair_probabilities
from rankstats.core.pair_probabilities import pair_sum_arrays, pair_sums
from rankstats.core.rankings import average_ranks
from rankstats.significance.friedman_test import friedman_arrays, friedman_statistic
from rankstats.significance.posthoc_tests import conover_arrays, nemenyi_arrays

FIELDS = ("wins", "wins_observed", "compared", "ties", "n_evaluated", "n_rankings")


def _ranks(shape: tuple[int, ...], missing: float, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = np.round(rng.normal(size=shape), 1)  # coarse: ties
    x[rng.random(shape) < missing] = np.nan
    return average_ranks(x.reshape(-1, shape[-1])).reshape(shape)


@pytest.mark.parametrize("broadcast_cells", [1_000_000, 10])  # both ways of counting wins
def test_pair_sum_arrays_equal_pair_sums_of_each_batch(
    monkeypatch: pytest.MonkeyPatch, broadcast_cells: int
) -> None:
    monkeypatch.setattr(pair_probabilities, "_BROADCAST_CELLS", broadcast_cells)
    ranks = _ranks((3, 2, 40, 5), missing=0.3)
    keep = (~np.isnan(ranks)).sum(axis=-1) >= 2
    arrays = pair_sum_arrays(ranks, keep, second_moment=True)
    for idx in np.ndindex(3, 2):
        one = pair_sums(ranks[idx][keep[idx]], second_moment=True)
        for field, value in zip(FIELDS, arrays, strict=False):
            np.testing.assert_allclose(value[idx], getattr(one, field), err_msg=field)
        np.testing.assert_allclose(arrays[6][idx], one.self_product)


def test_holm_adjust_of_a_batch_adjusts_each_family() -> None:
    p = np.random.default_rng(1).random((6, 10)) ** 3
    p[0, :3] = p[0, 3]  # ties
    batch = holm_adjust(p)
    for row, out in zip(p, batch, strict=True):
        np.testing.assert_array_equal(holm_adjust(row), out)
    # Holm by hand for one family: max over k ≤ i of min(1, (m − k + 1) p_(k)).
    order = np.argsort(p[1])
    stepped = np.minimum(1, (10 - np.arange(10)) * p[1][order])
    np.testing.assert_allclose(batch[1][order], np.maximum.accumulate(stepped))


def test_friedman_nemenyi_conover_of_kept_blocks() -> None:
    ranks = _ranks((4, 30, 5), missing=0.0)
    keep = np.random.default_rng(2).random((4, 30)) < 0.7
    chi2, correction = friedman_arrays(ranks, keep)
    ia, ib = np.triu_indices(5, 1)
    q = nemenyi_arrays(ranks, ia, ib, keep)
    t, df = conover_arrays(ranks, ia, ib, keep)
    for i in range(4):
        kept = ranks[i][keep[i]]
        assert (chi2[i], correction[i]) == pytest.approx(friedman_statistic(kept))
        np.testing.assert_allclose(q[i], nemenyi_arrays(kept, ia, ib))
        t_one, df_one = conover_arrays(kept, ia, ib)
        np.testing.assert_allclose(t[i], t_one)
        assert df[i] == df_one == (len(kept) - 1) * 4
