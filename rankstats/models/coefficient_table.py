"""The coefficient table of a fit with system covariates or a random effect
(:meth:`rankstats.models.Fit.coefficients`): each coefficient with its Wald or posterior
interval."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from rankstats._pymc.convergence import SAMPLED
from rankstats._util.arguments import probability

if TYPE_CHECKING:
    from rankstats.models._fit import Fit


def coefficients(fit: Fit, ci_prob: float = 0.95) -> pd.DataFrame:
    r"""The coefficients of a fit with system covariates or a random effect, with intervals.

    One row per coefficient :math:`\beta_k` (``beta: <covariate>``), own log-worth
    (``own: <system>``) and the random effect's :math:`\sigma` (``sigma``), in the order of
    ``fit.parameters``: ``estimate`` and ``se`` as ``fit.parameters`` holds them, and the
    interval of probability ``ci_prob``:

    - ``mle`` / ``pql``: the Wald interval :math:`\hat\beta \pm z_{(1+p)/2}\,
      \widehat{\mathrm{se}}`, with :math:`z_q = \Phi^{-1}(q)` and the standard error from
      the observed information (for :math:`\sigma`, of the Laplace approximation; the interval
      is symmetric and may reach below 0 when :math:`\hat\sigma` is small against its se);
    - ``nuts``: the equal-tailed posterior interval, the :math:`(1-p)/2` and
      :math:`(1+p)/2` quantiles of the draws (``estimate`` the posterior mean, ``se`` the
      posterior sd).

    Returns
    -------
    DataFrame
        Indexed by ``parameter``: ``estimate``, ``se``, ``low``, ``high``.

    Raises
    ------
    ValueError
        The fit has neither covariates nor a random effect.
    """
    probability("ci_prob", ci_prob)
    names = [
        k
        for k in fit.parameters
        if (k.startswith(("beta: ", "own: ")) or k == "sigma") and not k.endswith("_se")
    ]
    if not names:
        raise ValueError(
            "coefficients needs a fit with system covariates or a random effect "
            "(covariates=..., random_effect=True)"
        )
    estimate = np.array([fit.parameters[k] for k in names], dtype=np.float64)
    se = np.array([fit.parameters.get(f"{k}_se", np.nan) for k in names], dtype=np.float64)
    q = [(1 - ci_prob) / 2, (1 + ci_prob) / 2]
    if fit.method in SAMPLED:
        draws = fit.draws()
        values = np.column_stack([_coefficient_draws(fit, draws, k) for k in names])
        low, high = np.quantile(values, q, axis=0)
    else:
        from scipy import stats

        z = stats.norm.ppf(q[1])
        low, high = estimate - z * se, estimate + z * se
    return pd.DataFrame(
        {"estimate": estimate, "se": se, "low": low, "high": high},
        index=pd.Index(names, name="parameter"),
    )


def _coefficient_draws(fit: Fit, draws: dict[str, np.ndarray], name: str) -> np.ndarray:
    """The draws of one coefficient named as in ``fit.parameters``."""
    if name == "sigma":
        return draws["sigma"]
    kind, _, label = name.partition(": ")
    labels = listed(fit.info["covariates" if kind == "beta" else "own_log_worth"])
    return draws[kind][:, labels.index(label)]


def listed(value: Any) -> list[str]:
    """A list of names from ``fit.info`` (a NetCDF round trip stores a one-name list as the
    name itself, and any list as an array)."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return [str(v) for v in np.atleast_1d(value)]
