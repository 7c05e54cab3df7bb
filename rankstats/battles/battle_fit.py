r"""The result of :func:`rankstats.fit_battles`: ratings, intervals, the leaderboard, tests of
rating differences and figures (the model and the methods: :mod:`rankstats.battles.fitting`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from rankstats._util.arguments import probability
from rankstats._util.renamed import renamed_parameters
from rankstats.aggregation.hoeffding_intervals import holm_adjust
from rankstats.battles.figures import plot_intervals, plot_win_probability
from rankstats.battles.outcomes import outcome_probabilities
from rankstats.battles.rating_differences import (
    intervals_above,
    pair_positions,
    wald_differences,
)
from rankstats.core.quasi_variance import QuasiVariances, quasi_variances

#: Points per unit of log-worth on the Elo scale: 400 / ln 10.
ELO_SCALE = 400.0 / math.log(10.0)
ELO_START = 1000.0
METHODS = ("fisher", "bootstrap", "posterior")


# ---------------------------------------------------------------------------- results
@renamed_parameters(confidence="confidence_level", bootstrap="bootstrap_distribution")
@dataclass(frozen=True, eq=False, repr=False)
class BattleFit:
    """Bradley–Terry fit of battles (:func:`fit_battles`).

    Attributes
    ----------
    models : tuple of str
    log_worth : ndarray, shape (N,)
        Centred MLE log-worths :math:`\\theta`.
    params : ndarray
        ``log_worth``, then :math:`\\log\\nu` (with ties), then :math:`\\eta = \\log h` (with the
        order effect): the layout of :func:`rankstats.core.bradley_terry_mle.fit_bt`.
    covariance : ndarray
        Inverse observed information of ``params`` (log-worths centred).
    confidence_level : float
        Coverage of the intervals (default 0.95).
    bootstrap_distribution : ndarray or None, shape (B, len(params))
        Bootstrap replicates of ``params`` (centred log-worths), as SciPy's
        ``BootstrapResult.bootstrap_distribution``.
    posterior : dict or None
        Posterior draws flattened over chains: ``log_worth`` (S, N), ``log_tie`` (S,),
        ``log_order`` (S,), ``style`` (S, K) with covariates.
    idata : arviz.InferenceData or xarray.DataTree or None
        The posterior sample as ArviZ data, like every NUTS fit of rankstats (chains kept;
        ``InferenceData`` on the pymc 5 stack, ``DataTree`` on pymc 6).
    covariate_names : tuple of str
        The battle covariates of a style-controlled fit (empty without).
    unadjusted : ndarray or None
        Centred log-worths of the same battles fitted without the covariates.
    n_battles : ndarray
        Battles per model (after ``both_bad``).
    info : dict
        Settings and diagnostics: ties, order_effect, both_bad, confidence, seed, sampler,
        convergence problems of the posterior, failed bootstrap replicates.
    """

    models: tuple[str, ...]
    params: np.ndarray
    covariance: np.ndarray
    n_battles: np.ndarray
    ties: bool
    order_effect: bool
    confidence_level: float = 0.95
    anchor: str | None = None
    anchor_rating: float = ELO_START
    bootstrap_distribution: np.ndarray | None = None
    posterior: dict[str, np.ndarray] | None = None
    info: dict[str, Any] = field(default_factory=dict)
    covariate_names: tuple[str, ...] = ()
    unadjusted: np.ndarray | None = None
    idata: Any = None

    # ---------------------------------------------------------------- parameters
    @property
    def n_models(self) -> int:
        return len(self.models)

    @property
    def log_worth(self) -> np.ndarray:
        return self.params[: self.n_models]

    @property
    def log_tie(self) -> float | None:
        """:math:`\\log\\nu` (None without ties)."""
        return float(self.params[self.n_models]) if self.ties else None

    @property
    def log_order(self) -> float | None:
        """:math:`\\eta = \\log h`, the log advantage of the model shown first (None without)."""
        return float(self.params[self.n_models + int(self.ties)]) if self.order_effect else None

    @property
    def covariate_effects(self) -> pd.Series:
        """:math:`\\gamma`, the effect of each battle covariate on the log-odds of the model shown
        first (per standard deviation of the covariate when it was standardised; empty without
        covariates)."""
        start = self.n_models + int(self.ties) + int(self.order_effect)
        return pd.Series(self.params[start:], index=list(self.covariate_names), name="effect")

    @property
    def methods(self) -> list[str]:
        """Interval methods available in this fit."""
        found = ["fisher"]
        if self.bootstrap_distribution is not None:
            found.append("bootstrap")
        if self.posterior is not None:
            found.append("posterior")
        return found

    # ---------------------------------------------------------------- Elo scale
    def _anchor_index(self, anchor: str | None) -> int | None:
        if anchor is None:
            return None
        try:
            return self.models.index(anchor)
        except ValueError:
            raise ValueError(
                f"anchor {anchor!r} is not a model of the battles; models are "
                f"{', '.join(map(repr, self.models[:20]))}"
            ) from None

    def _elo(self, theta: np.ndarray, anchor: int | None) -> np.ndarray:
        """Elo-scale ratings of log-worths ``theta`` (last axis = models)."""
        shift = 0.0 if anchor is None else theta[..., [anchor]]
        return ELO_SCALE * (theta - shift) + self.anchor_rating

    def ratings(self, scale: str = "elo") -> pd.Series:
        """Point ratings: ``"elo"`` (:math:`400\\log_{10}(e)\\theta + c`) or ``"log"`` (θ)."""
        theta = self.log_worth
        values = self._elo(theta, self._anchor_index(self.anchor)) if scale == "elo" else theta
        return pd.Series(values, index=list(self.models), name="rating")

    # ---------------------------------------------------------------- intervals
    def _z(self) -> float:
        return float(stats.norm.ppf(0.5 + self.confidence_level / 2))

    def _quantiles(self, draws: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        alpha = 1.0 - self.confidence_level
        low, high = np.nanquantile(draws, [alpha / 2, 1 - alpha / 2], axis=0)
        return low, high

    def _worth_draws(self, method: str) -> np.ndarray:
        if method == "bootstrap":
            return self.bootstrap_distribution[:, : self.n_models]
        return self.posterior["log_worth"]

    def intervals(self, scale: str = "elo") -> pd.DataFrame:
        """``<method>_low`` / ``<method>_high`` of every rating, one row per model."""
        n, anchor = self.n_models, self._anchor_index(self.anchor)
        theta = self.log_worth
        out = {}
        # Fisher: variance of θ_i − θ_anchor (or of the centred θ_i).
        cov = self.covariance[:n, :n]
        if anchor is None:
            var = np.diag(cov)
        else:
            var = np.diag(cov) + cov[anchor, anchor] - 2 * cov[:, anchor]
        se = np.sqrt(np.maximum(var, 0.0))
        point = self._elo(theta, anchor) if scale == "elo" else theta
        unit = ELO_SCALE if scale == "elo" else 1.0
        out["fisher_low"] = point - self._z() * se * unit
        out["fisher_high"] = point + self._z() * se * unit
        for method in self.methods[1:]:
            draws = self._worth_draws(method)
            draws = self._elo(draws, anchor) if scale == "elo" else draws
            out[f"{method}_low"], out[f"{method}_high"] = self._quantiles(draws)
        return pd.DataFrame(out, index=list(self.models))

    def table(self, scale: str = "elo") -> pd.DataFrame:
        """The leaderboard: model, rating, intervals per method, rank, rank (UB), n battles.

        ``rank`` is 1 for the best rating (ties averaged).  ``rank_ub`` is LMSYS's "rank (UB)":
        1 + the number of models whose interval lies entirely above this model's (intervals of
        the bootstrap when computed, else Fisher's).  With battle covariates (style control)
        the ratings are adjusted for them, and ``rating_unadjusted`` / ``rank_unadjusted`` are
        those of the same battles fitted without the covariates.
        """
        ratings = self.ratings(scale)
        frame = pd.DataFrame({"model": list(self.models), "rating": ratings.to_numpy()})
        intervals = self.intervals(scale)
        for column in intervals.columns:
            frame[column] = intervals[column].to_numpy()
        frame["quasi_se"] = self.quasi_variances(scale).table["quasi_se"].to_numpy()
        if self.posterior is not None:
            draws = self._worth_draws("posterior")
            anchor = self._anchor_index(self.anchor)
            draws = self._elo(draws, anchor) if scale == "elo" else draws
            frame.insert(2, "posterior_mean", draws.mean(axis=0))
        frame["rank"] = stats.rankdata(-frame["rating"].to_numpy(), method="average")
        key = "bootstrap" if self.bootstrap_distribution is not None else "fisher"
        low, high = frame[f"{key}_low"].to_numpy(), frame[f"{key}_high"].to_numpy()
        frame["rank_ub"] = 1 + intervals_above(low, high).sum(axis=0)
        if self.unadjusted is not None:  # style control: the ratings without the covariates
            plain = self._elo(self.unadjusted, self._anchor_index(self.anchor))
            frame["rating_unadjusted"] = plain if scale == "elo" else self.unadjusted
            frame["rank_unadjusted"] = stats.rankdata(-plain, method="average")
        frame["n_battles"] = self.n_battles.astype(np.int64)
        return frame.sort_values(["rating", "model"], ascending=[False, True]).reset_index(
            drop=True
        )

    def quasi_variances(self, scale: str = "elo") -> QuasiVariances:
        """Quasi-variances of the ratings (Firth & de Menezes 2004; :func:`rankstats.models.
        quasi_variances`): ``Var(r_i − r_j) ≈ q_i + q_j`` for every pair, from the Fisher
        covariance, so that comparison intervals ``r_i ± 1.96 √q_i`` (:meth:`plot`) compare by
        eye; with the relative error of every pair's standard error and the worst over all
        contrasts.  The anchor changes no difference, so neither the quasi-variances.

        Parameters
        ----------
        scale : {"elo", "log"}
            Elo points (``q`` times :math:`(400 \\log_{10} e)^2`) or log-worths.
        """
        if scale not in ("elo", "log"):
            raise ValueError(f"scale must be 'elo' or 'log', not {scale!r}")
        n = self.n_models
        unit = ELO_SCALE if scale == "elo" else 1.0
        cov = unit**2 * self.covariance[:n, :n]
        return quasi_variances(cov, self.ratings(scale).to_numpy(), self.models)

    def differences(self, alpha: float | None = None) -> pd.DataFrame:
        r"""Wald tests of every rating difference, Holm-adjusted over the pairs.

        :math:`z = (\hat\theta_a - \hat\theta_b)/\mathrm{se}` with the Fisher covariance of the
        fit (:func:`rankstats.battles.rating_differences.wald_differences`); one row per pair,
        the higher-rated model first: ``model_a``, ``model_b``, ``difference`` and ``se`` (Elo
        points), ``z``, ``p``, ``p_holm``, ``significant`` (``p_holm < alpha``; default
        ``alpha`` = 1 − the fit's ``confidence_level``).  :func:`rankstats.power` simulates this
        decision (``tests="battles"``).
        """
        if alpha is not None:
            probability("alpha", alpha)
        alpha = 1.0 - self.confidence_level if alpha is None else alpha
        n = self.n_models
        a, b = pair_positions(n)
        theta = self.log_worth
        swap = theta[a] < theta[b]
        a, b = np.where(swap, b, a), np.where(swap, a, b)
        difference, se, p = wald_differences(theta, self.covariance[:n, :n], a, b)
        adjusted = holm_adjust(p)
        names = np.asarray(self.models, dtype=object)
        with np.errstate(divide="ignore", invalid="ignore"):
            z = difference / se
        frame = pd.DataFrame(
            {
                "model_a": names[a],
                "model_b": names[b],
                "difference": ELO_SCALE * difference,
                "se": ELO_SCALE * se,
                "z": z,
                "p": p,
                "p_holm": adjusted,
                "significant": adjusted < alpha,
            }
        )
        return frame.sort_values(["difference", "model_a"], ascending=[False, True]).reset_index(
            drop=True
        )

    def parameters(self) -> pd.DataFrame:
        """Order effect and tie parameter: estimate and intervals per method.

        Rows ``order_effect`` (:math:`\\eta = \\log h`; in Elo points it is
        ``400 log10(e) η``), ``log_tie`` (:math:`\\log\\nu`) and ``covariate: <name>`` (the
        effect :math:`\\gamma` of each battle covariate, per standard deviation when
        standardised); columns ``estimate``, ``<method>_low`` / ``<method>_high`` and ``elo``
        (η and γ in Elo points).
        """
        rows = []
        n = self.n_models
        names = []
        if self.order_effect:
            names.append(("order_effect", n + int(self.ties), "log_order"))
        if self.ties:
            names.append(("log_tie", n, "log_tie"))
        first = n + int(self.ties) + int(self.order_effect)
        for k, name in enumerate(self.covariate_names):
            names.append((f"covariate: {name}", first + k, ("style", k)))
        z = self._z()
        for label, index, draw_name in names:
            est = float(self.params[index])
            se = math.sqrt(max(self.covariance[index, index], 0.0))
            row = {"parameter": label, "estimate": est}
            row["fisher_low"], row["fisher_high"] = est - z * se, est + z * se
            if self.bootstrap_distribution is not None:
                low, high = self._quantiles(self.bootstrap_distribution[:, index])
                row["bootstrap_low"], row["bootstrap_high"] = float(low), float(high)
            if self.posterior is not None:
                draws = (
                    self.posterior[draw_name]
                    if isinstance(draw_name, str)
                    else self.posterior[draw_name[0]][:, draw_name[1]]
                )
                low, high = self._quantiles(draws)
                row["posterior_low"], row["posterior_high"] = float(low), float(high)
            row["elo"] = ELO_SCALE * est if label != "log_tie" else float("nan")
            rows.append(row)
        return pd.DataFrame(rows)

    def win_probability(self, position: str = "average", ties: str = "half") -> pd.DataFrame:
        """Predicted ``P[i, j]`` that model ``i`` beats model ``j`` (rows beat columns); with
        battle covariates, at equal style (every covariate 0).

        Parameters
        ----------
        position : {"average", "first", "second"}
            ``i`` shown first, second, or the average of both orders.
        ties : {"half", "exclude"}
            ``"half"``: P(i wins) + ½ P(tie) (rows and columns sum to 1 pairwise);
            ``"exclude"``: P(i wins) only.
        """
        if position not in ("average", "first", "second"):
            raise ValueError(f"position must be 'average', 'first' or 'second', not {position!r}")
        if ties not in ("half", "exclude"):
            raise ValueError(f"ties must be 'half' or 'exclude', not {ties!r}")
        theta = self.log_worth
        eta = self.log_order or 0.0
        log_nu = self.log_tie if self.ties else None

        def win(first: bool) -> np.ndarray:
            shift = eta if first else -eta  # i shown second: j gets the advantage
            p_i, _, p_tie = outcome_probabilities(theta[:, None] + shift, theta[None, :], log_nu)
            return p_i + (0.5 * p_tie if ties == "half" else 0.0)

        if position == "first":
            p = win(True)
        elif position == "second":
            p = win(False)
        else:
            p = 0.5 * (win(True) + win(False))
        np.fill_diagonal(p, np.nan)
        return pd.DataFrame(p, index=list(self.models), columns=list(self.models))

    # ---------------------------------------------------------------- figures
    def plot(self, scale: str = "elo", top: int | None = None):
        """Interval plot: one row per model, one marker and bar per method, and the comparison
        intervals ``rating ± z·quasi-se`` (:meth:`quasi_variances`; z = 1.96 at 95 %)."""
        table = self.table(scale)
        half = self._z() * table["quasi_se"]
        table["quasi_low"], table["quasi_high"] = table["rating"] - half, table["rating"] + half
        methods = [*self.methods, "quasi"]
        errors = self.quasi_variances(scale).worst_pair
        return plot_intervals(
            table, self.models, methods, self.confidence_level, scale, top, quasi_errors=errors
        )

    def plot_covariates(self):
        """The covariate effects of a style-controlled fit, in Elo points per standard deviation
        (per unit with ``standardize=False``), one bar per interval method."""
        if not self.covariate_names:
            raise ValueError("this fit has no battle covariates (read_battles(covariates=))")
        rows = self.parameters().iloc[-len(self.covariate_names) :]
        table = pd.DataFrame({"model": list(self.covariate_names), "rating": rows["elo"]})
        for method in self.methods:
            if f"{method}_low" in rows:
                table[f"{method}_low"] = ELO_SCALE * rows[f"{method}_low"].to_numpy()
                table[f"{method}_high"] = ELO_SCALE * rows[f"{method}_high"].to_numpy()
        methods = [m for m in self.methods if f"{m}_low" in table]
        unit = "standard deviation" if self.info.get("standardized", True) else "unit"
        label = (
            f"effect on the log-odds, Elo points per {unit}; {self.confidence_level:.0%} intervals"
        )
        return plot_intervals(
            table, self.covariate_names, methods, self.confidence_level, xlabel=label
        )

    def plot_win_probability(self, top: int | None = 30):
        """Heat map of :meth:`win_probability` for the ``top`` models."""
        order = list(self.table()["model"])
        return plot_win_probability(self.win_probability(), order, top=top)

    def __repr__(self) -> str:
        parts = [
            f"BattleFit({self.n_models} models, {int(self.n_battles.sum()) // 2:,} battles",
            "Davidson ties" if self.ties else "ties as half wins",
        ]
        if self.order_effect:
            parts.append(
                f"order effect η = {self.log_order:.3f} ({ELO_SCALE * self.log_order:+.1f} Elo)"
            )
        if self.covariate_names:
            effects = ", ".join(
                f"{name} {ELO_SCALE * value:+.1f} Elo"
                for name, value in self.covariate_effects.items()
            )
            parts.append(f"adjusted for {effects}")
        parts.append(f"intervals: {', '.join(self.methods)} at {self.confidence_level:.0%}")
        best = self.table().head(3)
        parts.append(
            "top: "
            + ", ".join(f"{m} {r:.0f}" for m, r in zip(best["model"], best["rating"], strict=True))
        )
        if self.info.get("posterior_problems"):
            parts.append("POSTERIOR NOT CONVERGED: " + "; ".join(self.info["posterior_problems"]))
        return "; ".join(parts) + ")"
