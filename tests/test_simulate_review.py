"""Defects found in review of rs.simulate (each test failed before its fix)."""

import numpy as np
import pytest

import rankstats as rs


@pytest.mark.parametrize("phi", [0.0, -0.5, np.nan, np.inf])
def test_gumbel_rejects_a_phi_for_which_the_recorded_truth_would_be_wrong(phi):
    # With φ ≤ 0 system 1 is at least as good as system N, so `.truth` (sysNN first) would be
    # false; NaN / inf give no benchmark at all.
    with pytest.raises(ValueError, match="phi"):
        rs.simulate.gumbel(n_systems=4, n_tasks=3, n_instances=2, phi=phi)


def test_gumbel_truth_matches_the_generating_law_for_a_valid_phi():
    sim = rs.simulate.gumbel(n_systems=5, n_tasks=40, n_instances=50, phi=1.0, seed=3)
    means = sim.to_wide().mean(axis=1).sort_values(ascending=False)
    assert tuple(means.index) == sim.truth


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_plackett_luce_rejects_non_finite_log_worths(bad):
    # A NaN log-worth used to be sorted last silently.
    with pytest.raises(ValueError, match="finite"):
        rs.simulate.plackett_luce([0.0, bad, 1.0], size=3, log=True)
