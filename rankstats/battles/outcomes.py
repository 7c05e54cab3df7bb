r"""The outcome probabilities of one battle under the model of :mod:`rankstats.battles.fitting`.

Model ``a`` shown first with log-worth (order advantage included) :math:`t_a = \theta_a + \eta`,
model ``b`` second with :math:`t_b = \theta_b`, log tie parameter :math:`\lambda = \log\nu`
(Bradley & Terry 1952; Davidson 1970; Agresti 2002, §10.6.1):

.. math::

    P(a) = \frac{e^{t_a}}{D},\quad P(b) = \frac{e^{t_b}}{D},\quad
    P(\text{tie}) = \frac{e^{\lambda + (t_a + t_b)/2}}{D},\quad
    D = e^{t_a} + e^{t_b} + e^{\lambda + (t_a + t_b)/2}.

The one place these are computed: the simulated battle logs (:func:`rankstats.simulate_battles`,
the power simulations of :mod:`rankstats.planning.battle_replications`) and the predicted win
probabilities of a fit (:meth:`rankstats.BattleFit.win_probability`).
"""

from __future__ import annotations

import numpy as np


def outcome_probabilities(
    first: np.ndarray, second: np.ndarray, log_tie: float | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(P(first wins), P(second wins), P(tie))`` for log-worths ``first`` (order advantage
    included) and ``second`` (broadcast together); ``log_tie=None``: no ties."""
    first, second = np.broadcast_arrays(
        np.asarray(first, dtype=np.float64), np.asarray(second, dtype=np.float64)
    )
    top = np.maximum(first, second)  # shifted: no overflow for large log-worths
    pa, pb = np.exp(first - top), np.exp(second - top)
    if log_tie is None:
        pt = np.zeros_like(pa)
    else:
        pt = np.exp(log_tie + 0.5 * (first + second) - top)
    total = pa + pb + pt
    return pa / total, pb / total, pt / total
