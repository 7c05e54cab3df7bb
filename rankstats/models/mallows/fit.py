"""The result of a Mallows (Kendall) fit: :class:`MallowsFit`, its posterior pairwise
probabilities and its round trip through NetCDF.

``P(i above j)`` for consensus positions ``a < b`` is the closed form of
:func:`rankstats.core.permutations.kendall.pair_probability` (Fligner & Verducci 1986), evaluated
per draw of (σ, θ); the consensus and the convergence problems are kept in the file's attributes so
that :meth:`Fit.from_idata` rebuilds a :class:`MallowsFit`.
"""

from __future__ import annotations

import functools
import json
import weakref
from dataclasses import dataclass

import numpy as np
import pandas as pd

from rankstats._util.arguments import probability
from rankstats._util.renamed import renamed_parameters
from rankstats.core.permutations.kendall import pair_probability
from rankstats.core.permutations.pair_tables import PairTable, pair_table, rank_table
from rankstats.models._fit import Fit, register_model
from rankstats.models.mallows import predictive as _predictive

#: Values of α at which a non-Kendall fit's pair table is computed (:attr:`MallowsFit.pair_table`).
ALPHA_GRID = 5

#: The last table of :func:`gap_table`: (a weak reference to its θ draws, n, the table).
_LAST_TABLE: tuple[weakref.ref, int, np.ndarray] | None = None


def table_on_posterior(build, alpha: np.ndarray, n: int, distance: str) -> PairTable:
    """``build`` (:func:`pair_table` or :func:`rank_table`) on a grid of α spanning the
    posterior draws ``alpha``: their 0.5 % and 99.5 % quantiles and :data:`ALPHA_GRID` points
    between."""
    grid = np.quantile(np.ravel(alpha), np.linspace(0.005, 0.995, ALPHA_GRID))
    return build(n, grid, distance)


def check_top_k(k: int, n: int, ci_prob: float) -> None:
    """Refuse a ``k`` outside ``1 … n`` and a ``ci_prob`` outside (0, 1)."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= n:
        raise ValueError(f"k must be a whole number between 1 and {n}, not {k!r}")
    probability("ci_prob", ci_prob)


def top_k_frame(
    fit: Fit, per_draw: np.ndarray, k: int, ci_prob: float, table: PairTable, **columns
) -> pd.DataFrame:
    """The table of :meth:`MallowsFit.top_k` from the probability per draw and system
    ``(S, n)``: mean, equal-tailed interval, ``columns`` (per system), rows in ``fit.order``."""
    low, high = np.quantile(per_draw, [(1 - ci_prob) / 2, (1 + ci_prob) / 2], axis=0)
    frame = {"system": list(fit.systems), "probability": per_draw.mean(axis=0), "low": low}
    out = pd.DataFrame({**frame, "high": high, **columns}).set_index("system")
    out = out.loc[fit.order].reset_index()
    out.attrs.update(
        {"k": k, "prob": ci_prob, "table": table.method, "standard_error": table.standard_error}
    )
    return out


def gap_table(theta: np.ndarray, n: int) -> np.ndarray:
    """``table[s, d − 1]`` = :func:`~rankstats.core.permutations.kendall.pair_probability`
    ``(d, θ_s)`` for every draw ``s`` and gap ``d = 1 … n − 1``.

    The gap between two consensus positions is an integer, so the closed form takes only
    ``n − 1`` values per draw; :func:`mallows_pairs` looks them up instead of evaluating it for
    every (draw, pair): the same numbers, elementwise, at a fraction of the cost (NASCAR, 87
    systems × 40,000 draws: 0.30 G evaluations against 3.4 M).  The table of the last θ array is
    kept, as :meth:`Fit.pairwise` asks for the rows of one fit in blocks.
    """
    global _LAST_TABLE
    last = _LAST_TABLE
    if last is not None and last[0]() is theta and last[1] == n:
        return last[2]
    gaps = np.arange(1, n, dtype=np.float64)
    table = pair_probability(gaps[None, :], theta.reshape(-1, 1))
    _LAST_TABLE = (weakref.ref(theta, _forget), n, table)
    return table


def _forget(ref: weakref.ref) -> None:
    """The θ draws of the last table are gone: so is the table (no memory held after a fit)."""
    global _LAST_TABLE
    if _LAST_TABLE is not None and _LAST_TABLE[0] is ref:
        _LAST_TABLE = None


def mallows_pairs(draws: dict[str, np.ndarray], rows: np.ndarray) -> np.ndarray:
    """``P(row item above column item)`` for every draw of (σ positions, θ)."""
    pos = draws["position"]
    theta = draws["theta"]
    gap = pos[:, None, :] - pos[:, rows, None]  # > 0: the row item is above in σ
    n = pos.shape[1]
    if n < 2:
        return np.full(gap.shape, 0.5)
    if not np.array_equal(pos, np.rint(pos)):
        # Not positions of a ranking (e.g. posterior means): the closed form at each gap.
        p = pair_probability(np.maximum(np.abs(gap), 1), theta.reshape(-1, 1, 1))
        return np.where(gap > 0, p, np.where(gap < 0, 1 - p, 0.5))
    table = gap_table(theta, n)
    # Row s of the table, at column |gap| − 1 (a gap of 0 is the item itself: ½ below).
    cell = np.maximum(np.abs(gap), 1).astype(np.intp) - 1
    cell += (np.arange(len(table), dtype=np.intp) * (n - 1))[:, None, None]
    p = table.ravel()[cell]
    return np.where(gap > 0, p, np.where(gap < 0, 1 - p, 0.5))


@dataclass(frozen=True, eq=False, repr=False)
class MallowsFit(Fit):
    """A fitted Mallows model: :class:`~rankstats.models.Fit` with a consensus summary.

    ``worth`` is the posterior mean consensus position (1 = best); ``order`` is the ranking that
    minimises the expected distance to the posterior draws of σ in the model's distance — for
    Kendall their Kemeny consensus (solved exactly by :func:`rankstats.kemeny` within 60 s, else
    its best heuristic with a gap), for the others see
    :func:`rankstats.models.mallows.metropolis_fit.bayes_consensus`. ``distance`` names it;
    ``parameters`` holds θ (and α = nθ for a Metropolis–Hastings fit).
    """

    @property
    def order(self) -> list[str]:
        return list(self.info["consensus"])

    def point(self) -> dict[str, np.ndarray]:
        theta = self.theta if np.isfinite(self.theta) else 50.0
        return {"position": self.worth.to_numpy()[None, :], "theta": np.array([theta])}

    @property
    def distance(self) -> str:
        """The distance of the model (``"kendall"`` for every fit that does not say)."""
        return str(self.info.get("distance", "kendall"))

    def _pair_function(self):
        if self.distance == "kendall":
            return mallows_pairs
        return self._distance_pairs

    @functools.cached_property
    def pair_table(self) -> PairTable:
        """:math:`T_\\alpha` (:mod:`rankstats.core.permutations.pair_tables`) on a grid of α over
        the posterior: its 0.5 % and 99.5 % quantiles and :data:`ALPHA_GRID` points between (the
        draws' tables are interpolated linearly in α). Exact for Kendall and up to 8 systems;
        beyond, Monte Carlo with ``pair_table.standard_error`` (``pairwise()`` records it).
        Computed once per fit."""
        alpha = self.draws()["alpha"]
        return table_on_posterior(pair_table, alpha, len(self.systems), self.distance)

    def _distance_pairs(self, draws: dict[str, np.ndarray], rows: np.ndarray) -> np.ndarray:
        """``P(row item above column item)`` per draw: the table at the draw's α, read at the
        consensus ranks of the two items."""
        rank = np.rint(draws["position"]).astype(np.intp) - 1
        return self.pair_table.at(draws["alpha"], rank[:, rows][:, :, None], rank[:, None, :])

    @renamed_parameters(prob="ci_prob")
    def top_k(self, k: int, ci_prob: float = 0.95) -> pd.DataFrame:
        """Posterior predictive probability that a new ranking puts each system in its top
        ``k``, with an equal-tailed interval over the posterior.

        Per draw of (ρ, α): :math:`\\sum_{r \\le k} M_\\alpha[\\rho_i, r]`, the rank marginals
        of the model (:func:`rankstats.core.permutations.pair_tables.rank_table` on a grid of α over
        the posterior, as :attr:`pair_table`, interpolated). Rows in :attr:`order`; ``attrs``
        name the table's method and its Monte Carlo standard error. Works for fits of every
        distance, the Gibbs sampler's included (α = nθ).

        The column ``consensus`` is the population's answer: the posterior probability that the
        consensus ρ itself has the system in its top ``k``, :math:`P(\\rho_i \\le k \\mid
        \\text{data})` (a new ranking varies around ρ, so ``probability`` is the flatter of the
        two).
        """
        n = len(self.systems)
        check_top_k(k, n, ci_prob)
        draws = self.draws()
        table = self._rank_table
        rank = np.rint(draws["position"]).astype(np.intp) - 1
        marginals = table.at(self._alpha_draws(draws), rank[:, :, None], np.arange(n)[None, None])
        per_draw = marginals[:, :, :k].sum(axis=2)
        return top_k_frame(self, per_draw, k, ci_prob, table, consensus=(rank < k).mean(axis=0))

    def _alpha_draws(self, draws: dict[str, np.ndarray]) -> np.ndarray:
        """α per draw (the Gibbs sampler's θ times n)."""
        if "alpha" in draws:
            return draws["alpha"]
        return draws["theta"] * len(self.systems)

    @functools.cached_property
    def _rank_table(self) -> PairTable:
        alpha = self._alpha_draws(self.draws())
        return table_on_posterior(rank_table, alpha, len(self.systems), self.distance)

    # -------------------------------------------------------- a new assessor's ranking
    def _predictive_posterior(self) -> _predictive.PredictivePosterior:
        return _predictive.PredictivePosterior.from_draws(
            self.systems, self.draws(), self.distance, self.idata
        )

    def predictive_probability(self, rankings: object) -> pd.DataFrame:
        r"""Posterior predictive probability that a new assessor gives each complete ranking,
        :math:`\frac1S \sum_s \sum_k \tau_k^{(s)} e^{-\alpha_k^{(s)} d(r, \rho_k^{(s)})/n} /
        Z_n(\alpha_k^{(s)})` (one cluster: τ = 1; Vitelli et al. 2018, JMLR 18(158)), with its
        Monte Carlo s.e. ``rankings``: a DataFrame of ranks (columns = systems), a dict system
        → rank, or orders (lists of systems, best first); see
        :func:`rankstats.models.mallows.predictive.predictive_probability`."""
        return _predictive.predictive_probability(self._predictive_posterior(), rankings)

    def predictive_rankings(self, size: int = 1000, seed: int | None = 0) -> pd.DataFrame:
        """``size`` rankings of new assessors (ranks, columns = systems), one per posterior draw
        (resampled): :func:`rankstats.models.mallows.predictive.sample_rankings`."""
        return _predictive.predictive_rankings(self._predictive_posterior(), size, seed)

    def predictive_distribution(
        self, top: int = 20, draws: int = _predictive.TABLE_DRAWS, seed: int | None = 0
    ) -> pd.DataFrame:
        """The ``top`` most probable rankings of a new assessor, their probability and s.e.:
        exact over all ``n!`` rankings up to 8 systems, else the most probable of ``draws``
        predictive rankings, scored exactly
        (:func:`rankstats.models.mallows.predictive.predictive_distribution`)."""
        return _predictive.predictive_distribution(self._predictive_posterior(), top, draws, seed)

    @renamed_parameters(prob="ci_prob")
    def pairwise(self, ci_prob: float = 0.95, order=None):
        table = super().pairwise(ci_prob, order)
        if self.distance != "kendall":
            pt = self.pair_table
            table.attrs.update(
                {"pair_table": pt.method, "pair_table_standard_error": pt.standard_error}
            )
        return table

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
