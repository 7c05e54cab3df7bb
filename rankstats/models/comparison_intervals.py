r"""Quasi-variances of a fitted Plackett–Luce or Bradley–Terry model's log-worths (the numbers
behind comparison intervals; :mod:`rankstats.core.quasi_variance` computes them).

The covariance used is the fit's own: the inverse observed information (``mle``; the posterior
curvature for ``map``), or the posterior covariance of the draws for ``nuts`` (the quasi-variances
then summarise the posterior's spread of every difference :math:`\theta_i - \theta_j`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rankstats.core.quasi_variance import QuasiVariances, quasi_variances

if TYPE_CHECKING:
    from rankstats.models._fit import Fit


def fit_quasi_variances(fit: Fit) -> QuasiVariances:
    """Quasi-variances of ``fit.worth`` (Firth & de Menezes 2004): see :meth:`Fit.quasi_variances
    <rankstats.models.Fit.quasi_variances>`."""
    if fit.model not in ("pl", "bt"):
        raise ValueError(
            f"quasi-variances are for log-worths (Plackett–Luce, Bradley–Terry); a {fit.model!r} "
            "fit has none"
        )
    if fit.covariance is not None:
        covariance = fit.covariance.to_numpy()
    else:
        draws = fit.draws()[fit.variable]
        if draws.shape[0] < 2:
            raise ValueError("quasi-variances need the covariance or at least 2 draws of the fit")
        covariance = np.cov(draws, rowvar=False)
    return quasi_variances(covariance, fit.worth.to_numpy(), fit.systems)
