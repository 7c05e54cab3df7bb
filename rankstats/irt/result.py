"""The result of :func:`rankstats.irt.fit`: item parameters, abilities, fit, information, flags.

Arrays inside, labelled pandas tables at the edge. The Rasch model is fitted with one shared
slope ``σ`` and θ ~ N(0, 1); it is reported as mirt reports it: slope 1, the same intercepts, the
abilities on the scale θ ~ N(0, σ²), and ``σ`` as ``latent_sd`` (the two are one model).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd
from scipy.stats import norm

from rankstats.irt import abilities as _abilities
from rankstats.irt import item_fit as _item_fit
from rankstats.irt.estimation import EMResult
from rankstats.irt.item_models import Quadrature, item_information
from rankstats.irt.responses import Responses

#: Free parameters per item of each model (for the S-X² degrees of freedom).
FREE_PER_ITEM = {"rasch": 1, "2pl": 2, "3pl": 3}


@dataclass(frozen=True, repr=False)
class IRTFit:
    """An item response model fitted by MML-EM (:func:`rankstats.irt.fit`)."""

    model: str
    responses: Responses
    all_responses: Responses
    excluded: dict[str, str]
    em: EMResult
    quadrature: Quadrature
    method: str
    theta: np.ndarray
    theta_se: np.ndarray
    confidence_level: float

    # -- scalars ---------------------------------------------------------------------------
    @property
    def loglik(self) -> float:
        """Marginal log-likelihood at the estimates."""
        return float(self.em.posterior.loglik.sum())

    @property
    def converged(self) -> bool:
        return self.em.converged

    @property
    def n_iterations(self) -> int:
        return self.em.n_iterations

    @property
    def latent_sd(self) -> float:
        """Standard deviation of θ: the shared slope of the Rasch model, 1 otherwise."""
        return float(self.em.items.slope[0]) if self.model == "rasch" else 1.0

    @property
    def latent_sd_se(self) -> float:
        """Standard error of :attr:`latent_sd` (Rasch; NaN otherwise)."""
        return float(self.standard_errors[0]) if self.model == "rasch" else float("nan")

    @property
    def se_type(self) -> str:
        """How the standard errors were computed (as mirt's ``SE.type``)."""
        if self.em.covariance is None:
            return "none (too many parameters)"
        return "observed information: central differences of the exact marginal gradient"

    # -- tables ----------------------------------------------------------------------------
    @cached_property
    def standard_errors(self) -> np.ndarray:
        """Standard errors of the free parameters (layout of ``ItemParameters.vector``)."""
        x = self.em.items.vector(self.model)
        if self.em.covariance is None:
            return np.full(len(x), np.nan)
        return np.sqrt(np.clip(np.diag(self.em.covariance), 0.0, None))

    @cached_property
    def items(self) -> pd.DataFrame:
        """One row per item: slope ``a``, intercept(s) ``d``, guessing ``g`` (3PL),
        difficulty ``b = −d/a`` (IRT parameterisation), their standard errors (``se_*``, the
        delta method for ``b`` and ``g``), and the answers observed."""
        from rankstats.irt.item_tables import item_table

        return item_table(self)

    @cached_property
    def abilities(self) -> pd.DataFrame:
        """One row per system: ``theta``, ``se``, the interval ``low``–``high`` (θ ± z · SE at
        ``confidence_level``), the items it answered and its proportion right (binary) or mean
        category (graded), sorted best first."""
        scale = self.latent_sd
        theta, se = self.theta * scale, self.theta_se * scale
        z = norm.ppf(0.5 + self.confidence_level / 2)
        with np.errstate(invalid="ignore"):  # ML: ±∞ abilities have infinite intervals
            low, high = theta - z * se, theta + z * se
        values, observed = self.responses.values, self.responses.mask
        n = observed.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.nansum(values, axis=1) / n
        table = pd.DataFrame(
            {
                "system": list(self.responses.systems),
                "theta": theta,
                "se": se,
                "low": low,
                "high": high,
                "n_items": n.astype(int),
                "mean_response": mean,
            }
        )
        return table.sort_values("theta", ascending=False, kind="stable").reset_index(drop=True)

    def information(self, theta: np.ndarray | None = None) -> pd.DataFrame:
        """Test information ``I(θ)`` (sum over items) and the standard error ``1/√I(θ)`` of an
        ability measured by the whole benchmark, on ``theta`` (default: the grid), on the
        reported scale."""
        scale = self.latent_sd
        grid = self.quadrature.points * scale if theta is None else np.asarray(theta, float)
        info = item_information(self.em.items, grid / scale, self.model).sum(axis=0) / scale**2
        return pd.DataFrame({"theta": grid, "information": info, "se": 1.0 / np.sqrt(info)})

    def measurement_range(self, fraction: float = 0.5) -> tuple[float, float]:
        """The abilities where the test information is at least ``fraction`` of its peak: the
        range in which the benchmark separates systems well (on a fine grid over ±4 SD)."""
        grid = np.linspace(-4, 4, 801) * self.latent_sd
        info = self.information(grid)["information"].to_numpy()
        good = grid[info >= fraction * info.max()]
        return float(good.min()), float(good.max())

    def item_fit(self, min_expected: float = 1.0) -> pd.DataFrame:
        """Per item: S-X² with its df and p-value (complete binary data only, else NaN) and
        infit / outfit mean squares at the fit's abilities (binary models)."""
        if self.model == "graded":
            raise NotImplementedError("item fit is implemented for binary models only")
        values, items = self.responses.values, self.em.items
        table = pd.DataFrame({"item": list(self.responses.items)})
        n_free = np.full(len(table), FREE_PER_ITEM[self.model])
        complete = not np.isnan(values).any()
        if complete and values.shape[1] <= _item_fit.MAX_ITEMS_SX2:
            stat, df, p = _item_fit.s_x2(values, items, self.quadrature, n_free, min_expected)
        else:
            stat = df = p = np.full(len(table), np.nan)
        table["s_x2"], table["df"], table["p_value"] = stat, df, p
        infit, outfit = _item_fit.infit_outfit(values, items, np.nan_to_num(self.theta))
        table["infit"], table["outfit"] = infit, outfit
        return table

    @cached_property
    def flags(self) -> pd.DataFrame:
        """Items that look broken: left out (everyone alike), negative discrimination, a
        parameter on the optimiser's bound (not converged); columns item, flag, detail."""
        from rankstats.irt.item_tables import flag_table

        return flag_table(self)

    def ranking(self, **kwargs) -> pd.DataFrame:
        """The systems ranked by ability with rank confidence sets
        (:func:`rankstats.irt.ranking.ability_rank_sets`)."""
        from rankstats.irt.ranking import ability_rank_sets

        return ability_rank_sets(self, **kwargs)

    def compare_rankings(self, **kwargs) -> pd.DataFrame:
        """Ranks by ability beside mean accuracy, Borda and Bradley–Terry on the same data
        (:func:`rankstats.irt.ranking.compare_rankings`)."""
        from rankstats.irt.ranking import compare_rankings

        return compare_rankings(self, **kwargs)

    def test_information(self) -> np.ndarray:
        """Test information on the quadrature grid (internal scale)."""
        return _abilities.test_information(self.em.items, self.quadrature.points, self.model)

    def __repr__(self) -> str:
        s, i = self.responses.shape
        state = "converged" if self.converged else "NOT converged"
        lines = [
            f"IRTFit({self.model}, {s} systems × {i} items, loglik {self.loglik:.3f}, "
            f"{state} in {self.n_iterations} EM iterations)",
            f"  abilities: {self.method}; standard errors: {self.se_type}",
        ]
        if self.excluded:
            lines.append(f"  {len(self.excluded)} item(s) left out (see .flags)")
        top = self.abilities.head(5)
        for row in top.itertuples():
            lines.append(f"  {row.system:<20} θ = {row.theta:7.3f} ± {row.se:.3f}")
        if len(self.abilities) > 5:
            lines.append(f"  ... {len(self.abilities) - 5} more systems")
        return "\n".join(lines)
