"""TrueSkill's truncated-Gaussian corrections against scipy.stats.truncnorm."""

import numpy as np
import pytest
from scipy import stats

from rankstats.ratings import _v_w_draw, _v_w_win


@pytest.mark.parametrize("t", [-30.0, -6.0, -0.4, 0.0, 0.3, 2.5, 9.0, 30.0])
def test_v_w_equal_truncated_normal_moments(t):
    # For N(t, 1) truncated to an interval, v = E[Z] and w = 1 − Var[Z] with Z = X − t
    # (Herbrich et al. 2007): a win truncates to (ε, ∞), a draw to [−ε, ε].
    eps = 0.7
    for (lo, hi), function in (((eps, np.inf), _v_w_win), ((-eps, eps), _v_w_draw)):
        mean, var = stats.truncnorm.stats(lo - t, hi - t, moments="mv")
        v, w = function(np.array([t]), np.array([eps]))
        assert v[0] == pytest.approx(float(mean), rel=1e-7, abs=1e-9), (t, function.__name__)
        assert w[0] == pytest.approx(1 - float(var), rel=1e-6, abs=1e-9), (t, function.__name__)
