"""``Convergence.suggested_draws``: the draws to rerun with, checked against what it promises
(with the bulk ESS growing in proportion to the draws, the suggestion reaches 400 with a 20 %
margin, at least doubles the draws, is a multiple of 500 and the smallest such)."""

from __future__ import annotations

import pytest

from rankstats.reporting.diagnostics import Convergence


@pytest.mark.parametrize("draws", [100, 500, 1000, 2300])
@pytest.mark.parametrize("ess", [3.0, 57.5, 150.0, 240.0, 399.0, 1e4])
def test_the_suggestion_is_the_smallest_that_reaches_the_target(draws, ess):
    suggested = Convergence("pl", "nuts", True, min_ess_bulk=ess).suggested_draws(draws)

    def enough(d: int) -> bool:  # the promise, written out
        return d % 500 == 0 and d >= 2 * draws and ess * d / draws >= 1.2 * 400

    assert enough(suggested)
    assert not enough(suggested - 500)


@pytest.mark.parametrize("ess", [None, 0.0])
def test_without_an_ess_the_chains_are_four_times_longer(ess):
    verdict = Convergence("mallows", "mcmc", True, min_ess_bulk=ess)
    assert verdict.suggested_draws(1000) == 4000
    assert verdict.suggested_draws(300) == 1500  # 1,200 rounded up to a multiple of 500
