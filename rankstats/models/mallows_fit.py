"""The result of a Mallows (Kendall) fit: :class:`MallowsFit`, its posterior pairwise
probabilities and its round trip through NetCDF.

``P(i above j)`` for consensus positions ``a < b`` is the closed form of
:func:`rankstats.core.mallows_kendall.pair_probability` (Fligner & Verducci 1986), evaluated per
draw of (σ, θ); the consensus and the convergence problems are kept in the file's attributes so
that :meth:`Fit.from_idata` rebuilds a :class:`MallowsFit`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from rankstats.core.mallows_kendall import pair_probability
from rankstats.models._fit import Fit, register_model


def mallows_pairs(draws: dict[str, np.ndarray], rows: np.ndarray) -> np.ndarray:
    """``P(row item above column item)`` for every draw of (σ positions, θ)."""
    pos = draws["position"]
    theta = draws["theta"].reshape(-1, 1, 1)
    gap = pos[:, None, :] - pos[:, rows, None]  # > 0: the row item is above in σ
    p = pair_probability(np.maximum(np.abs(gap), 1), theta)
    return np.where(gap > 0, p, np.where(gap < 0, 1 - p, 0.5))


@dataclass(frozen=True, eq=False, repr=False)
class MallowsFit(Fit):
    """A fitted Mallows model: :class:`~rankstats.models.Fit` with a Kemeny consensus summary.

    ``worth`` is the posterior mean consensus position (1 = best); ``order`` is the ranking that
    minimises the expected Kendall distance to the posterior draws of σ (their Kemeny consensus,
    solved exactly by :func:`rankstats.kemeny` within 60 s, else its best heuristic with a gap).
    """

    @property
    def order(self) -> list[str]:
        return list(self.info["consensus"])

    def point(self) -> dict[str, np.ndarray]:
        theta = self.theta if np.isfinite(self.theta) else 50.0
        return {"position": self.worth.to_numpy()[None, :], "theta": np.array([theta])}

    @property
    def theta(self) -> float:
        """Posterior mean (``mcmc``) or maximum-likelihood (``map``) dispersion θ."""
        return float(self.parameters["theta"])

    def _objective_label(self) -> str:
        # "map" maximises the likelihood in θ (σ has a uniform prior).
        return "log-likelihood"


def persisted_attributes(
    theta: float, consensus: list[str], n_rankings: int, problems: list[str]
) -> dict[str, object]:
    """Attributes that let :meth:`Fit.from_idata` rebuild a :class:`MallowsFit` from NetCDF."""
    return {
        "param_theta": theta,
        "info_consensus": json.dumps(consensus),
        "info_n_rankings": n_rankings,
        "info_convergence_problems": json.dumps(problems),
    }


def from_attributes(fit: Fit) -> MallowsFit:
    """The :class:`MallowsFit` of a generic :class:`Fit` read back from NetCDF."""
    info = dict(fit.info)
    for key in ("consensus", "convergence_problems"):
        if isinstance(info.get(key), str):
            info[key] = json.loads(info[key])
    if "kemeny_optimal" in info:
        info["kemeny_optimal"] = bool(info["kemeny_optimal"])
    return MallowsFit(
        model=fit.model,
        method=fit.method,
        systems=fit.systems,
        idata=fit.idata,
        worth=fit.worth.rename("position"),
        log_likelihood=fit.log_likelihood,
        parameters=fit.parameters,
        info=info,
    )


register_model(
    "mallows", mallows_pairs, variable="position", higher_is_better=False, rebuild=from_attributes
)
