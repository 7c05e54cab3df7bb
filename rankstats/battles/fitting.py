r"""Bradley–Terry ratings of pairwise battles with an order effect, and three kinds of interval.

Model (Bradley & Terry 1952; ties after Davidson 1970; the order effect is Agresti's (2002,
§10.6.1) home-advantage model).  Model ``a`` shown first against ``b`` shown second, worths
:math:`\pi = e^{\theta}`, order advantage :math:`h = e^{\eta}`, tie parameter
:math:`\nu = e^{\lambda}`:

.. math::

    P(a \succ b) = \frac{h\pi_a}{D}, \quad P(b \succ a) = \frac{\pi_b}{D}, \quad
    P(a \sim b) = \frac{\nu\sqrt{h\pi_a\pi_b}}{D}, \quad
    D = h\pi_a + \pi_b + \nu\sqrt{h\pi_a\pi_b}.

Without ties (``ties=False``) a tie counts as half a win for each side and :math:`\nu = 0`; without
the order effect :math:`h = 1`.  The log-worths are centred (:math:`\sum\theta = 0`).  The MLE is
:func:`rankstats.core.bradley_terry_mle.fit_bt` (``order=True``: the one Bradley–Terry likelihood of
rankstats) on the counts per ordered pair (:class:`rankstats.battles.log.Battles`), so a fit costs
O(pairs).

Intervals, side by side in :meth:`BattleFit.table`:

- **fisher** — Wald intervals :math:`\hat\theta \pm z\,\mathrm{se}` from the observed information
  at the MLE (the inverse Hessian of :func:`rankstats.core.bradley_terry_mle.newton`).
- **bootstrap** — percentile intervals of the nonparametric bootstrap over battles, or over
  clusters of battles (questions judged several times: ``read_battles(..., cluster=)``)
  (:mod:`rankstats.battles.bootstrap`).  Resampling battles with replacement is a multinomial
  draw on the table of (ordered pair, outcome) cells, so each replicate draws that table and
  refits by Newton iterations warm-started at the MLE with the information matrix of the MLE
  (a chord method), 50 replicates at a time, O(pairs) per replicate however many battles there
  are; seeded chunks make the numbers independent of the number of threads.
- **posterior** — equal-tailed credible intervals of the Bayesian model (ZeroSumNormal log-worths,
  Normal log order effect and log tie parameter; NUTS in PyMC, :mod:`rankstats.battles.bayes`).

The order effect is estimated only when the design identifies it
(:mod:`rankstats.battles.design`: decided from which ordered pairs were played, never from the
counts).  A star design — every battle against one baseline, as arena-hard-auto's — does not:
by default (``order_effect=None``) it is then left out with a :class:`DataWarning`.

Ratings are printed on the **Elo scale** as LMSYS's Chatbot Arena does: :math:`R_i = 400
\log_{10}(e)\,\theta_i + c`, so that a difference of 400 points is odds of 10 : 1; ``c`` centres
the ratings at ``anchor_rating`` (1000), or puts the ``anchor`` model at ``anchor_rating``.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from rankstats._util.advice import AdviceError, AdviceWarning, Spelled, escape
from rankstats.aggregation.hoeffding_intervals import holm_adjust
from rankstats.battles.bootstrap import (  # noqa: F401 - re-exported (API reference, tests)
    PoissonTable,
    bootstrap_battles,
    resample_cells,
)
from rankstats.battles.design import decide_order_effect
from rankstats.battles.figures import plot_intervals, plot_win_probability
from rankstats.battles.log import Battles
from rankstats.battles.log_files import AdviceBattlesError
from rankstats.battles.outcomes import outcome_probabilities
from rankstats.battles.rating_differences import (
    intervals_above,
    pair_positions,
    wald_differences,
)
from rankstats.core.bradley_terry_mle import ConvergenceError, MLEDoesNotExistError, Pairs, fit_bt
from rankstats.errors import DataWarning

#: Points per unit of log-worth on the Elo scale: 400 / ln 10.
ELO_SCALE = 400.0 / math.log(10.0)
ELO_START = 1000.0
METHODS = ("fisher", "bootstrap", "posterior")

BATTLES_HINT = Spelled(
    "Add battles that connect these models, or fit the connected part only (the posterior, "
    "posterior=True, stays finite thanks to its prior).",
    "Add battles that connect these models, or fit the connected part only (the posterior, "
    "--posterior, stays finite thanks to its prior).",
)


# ---------------------------------------------------------------------------- results
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
    bootstrap : ndarray or None, shape (B, len(params))
        Bootstrap replicates of ``params`` (centred log-worths).
    posterior : dict or None
        Posterior draws: ``log_worth`` (S, N), ``log_tie`` (S,), ``log_order`` (S,).
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
    confidence: float = 0.95
    anchor: str | None = None
    anchor_rating: float = ELO_START
    bootstrap: np.ndarray | None = None
    posterior: dict[str, np.ndarray] | None = None
    info: dict[str, Any] = field(default_factory=dict)

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
        return float(self.params[-1]) if self.order_effect else None

    @property
    def methods(self) -> list[str]:
        """Interval methods available in this fit."""
        found = ["fisher"]
        if self.bootstrap is not None:
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
        return float(stats.norm.ppf(0.5 + self.confidence / 2))

    def _quantiles(self, draws: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        alpha = 1.0 - self.confidence
        low, high = np.nanquantile(draws, [alpha / 2, 1 - alpha / 2], axis=0)
        return low, high

    def _worth_draws(self, method: str) -> np.ndarray:
        if method == "bootstrap":
            return self.bootstrap[:, : self.n_models]
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
        the bootstrap when computed, else Fisher's).
        """
        ratings = self.ratings(scale)
        frame = pd.DataFrame({"model": list(self.models), "rating": ratings.to_numpy()})
        intervals = self.intervals(scale)
        for column in intervals.columns:
            frame[column] = intervals[column].to_numpy()
        if self.posterior is not None:
            draws = self._worth_draws("posterior")
            anchor = self._anchor_index(self.anchor)
            draws = self._elo(draws, anchor) if scale == "elo" else draws
            frame.insert(2, "posterior_mean", draws.mean(axis=0))
        frame["rank"] = stats.rankdata(-frame["rating"].to_numpy(), method="average")
        key = "bootstrap" if self.bootstrap is not None else "fisher"
        low, high = frame[f"{key}_low"].to_numpy(), frame[f"{key}_high"].to_numpy()
        frame["rank_ub"] = 1 + intervals_above(low, high).sum(axis=0)
        frame["n_battles"] = self.n_battles.astype(np.int64)
        return frame.sort_values(["rating", "model"], ascending=[False, True]).reset_index(
            drop=True
        )

    def differences(self, alpha: float | None = None) -> pd.DataFrame:
        r"""Wald tests of every rating difference, Holm-adjusted over the pairs.

        :math:`z = (\hat\theta_a - \hat\theta_b)/\mathrm{se}` with the Fisher covariance of the
        fit (:func:`rankstats.battles.rating_differences.wald_differences`); one row per pair,
        the higher-rated model first: ``model_a``, ``model_b``, ``difference`` and ``se`` (Elo
        points), ``z``, ``p``, ``p_holm``, ``significant`` (``p_holm < alpha``; default
        ``alpha`` = 1 − the fit's confidence).  :func:`rankstats.power` simulates this decision
        (``tests="battles"``).
        """
        alpha = 1.0 - self.confidence if alpha is None else alpha
        if not (isinstance(alpha, (int, float)) and 0 < alpha < 1):
            raise ValueError(f"alpha must be a number in (0, 1), not {alpha!r}")
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
        ``400 log10(e) η``) and ``log_tie`` (:math:`\\log\\nu`); columns ``estimate``,
        ``<method>_low`` / ``<method>_high`` and ``elo`` (η in Elo points).
        """
        rows = []
        n = self.n_models
        names = []
        if self.order_effect:
            names.append(("order_effect", len(self.params) - 1, "log_order"))
        if self.ties:
            names.append(("log_tie", n, "log_tie"))
        z = self._z()
        for label, index, draw_name in names:
            est = float(self.params[index])
            se = math.sqrt(max(self.covariance[index, index], 0.0))
            row = {"parameter": label, "estimate": est}
            row["fisher_low"], row["fisher_high"] = est - z * se, est + z * se
            if self.bootstrap is not None:
                low, high = self._quantiles(self.bootstrap[:, index])
                row["bootstrap_low"], row["bootstrap_high"] = float(low), float(high)
            if self.posterior is not None:
                low, high = self._quantiles(self.posterior[draw_name])
                row["posterior_low"], row["posterior_high"] = float(low), float(high)
            row["elo"] = ELO_SCALE * est if label == "order_effect" else float("nan")
            rows.append(row)
        return pd.DataFrame(rows)

    def win_probability(self, position: str = "average", ties: str = "half") -> pd.DataFrame:
        """Predicted ``P[i, j]`` that model ``i`` beats model ``j`` (rows beat columns).

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
        """Interval plot: one row per model, one marker and bar per method."""
        table = self.table(scale)
        return plot_intervals(table, self.models, self.methods, self.confidence, scale, top)

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
        parts.append(f"intervals: {', '.join(self.methods)} at {self.confidence:.0%}")
        best = self.table().head(3)
        parts.append(
            "top: "
            + ", ".join(f"{m} {r:.0f}" for m, r in zip(best["model"], best["rating"], strict=True))
        )
        if self.info.get("posterior_problems"):
            parts.append("POSTERIOR NOT CONVERGED: " + "; ".join(self.info["posterior_problems"]))
        return "; ".join(parts) + ")"


# ---------------------------------------------------------------------------- fitting
def fit_battles(
    battles: Battles,
    *,
    ties: bool | None = None,
    order_effect: bool | None = None,
    both_bad: str = "tie",
    bootstrap: int = 1000,
    posterior: bool = False,
    confidence: float = 0.95,
    anchor: str | None = None,
    anchor_rating: float = ELO_START,
    seed: int | None = 0,
    n_jobs: int | None = None,
    sampler: str = "auto",
    draws: int = 1000,
    tune: int = 1000,
    chains: int = 4,
    progressbar: bool = True,
) -> BattleFit:
    """Fit Bradley–Terry with an order effect to battles, with Fisher, bootstrap and posterior
    intervals (see the module docstring for the model and the methods).

    Parameters
    ----------
    battles : Battles
        From :func:`rankstats.battles.log.read_battles`.  Read with ``cluster=`` (e.g. the question
        id), the bootstrap resamples clusters instead of battles.
    ties : bool, optional
        Davidson's tie parameter (default: when the battles hold ties); ``False`` counts a tie as
        half a win for each side (LMSYS's convention).
    order_effect : bool, optional
        Estimate the advantage :math:`h` of the model shown first.  ``None`` (default): when the
        design identifies it (:func:`rankstats.battles.design.order_design`); otherwise (e.g. a
        star design, every battle against one baseline) it is left out with a
        :class:`DataWarning`.  ``True`` refuses a design that does not identify it; ``False``
        never estimates it.
    both_bad : {"tie", "drop"}
        Count "both bad" battles as ties (default) or leave them out.
    bootstrap : int
        Bootstrap replicates (0: none).
    posterior : bool
        Also sample the posterior with NUTS (PyMC; compiles a model: tens of seconds).
    confidence : float
        Level of every interval.
    anchor, anchor_rating : str, float
        Elo scale: ``anchor`` is fixed at ``anchor_rating`` (a finite number); without,
        ratings are centred at ``anchor_rating`` (default 1000).
    seed : int, optional
        Seeds the bootstrap and the sampler: same seed, same numbers.
    n_jobs : int, optional
        Threads for the bootstrap (default: all cores); the numbers do not depend on it.
    sampler, draws, tune, chains, progressbar
        NUTS settings (``sampler``: ``"auto"``, ``"pymc"`` or ``"nutpie"``, recorded in
        ``info``).

    Raises
    ------
    InvalidBattlesError
        No battles (left), or ``order_effect=True`` on a design that cannot identify it.
    MLEDoesNotExistError
        The comparison graph is not strongly connected (the message names the groups).
    """
    _check_settings(confidence, bootstrap, anchor_rating, order_effect)
    pairs = battles.pairs(both_bad)
    if len(pairs.item1) == 0:
        raise AdviceBattlesError(
            escape(f"{battles.source}: no battles to fit")
            + (" once the both-bad battles are left out ({both_bad})" if battles.n_battles else ""),
            both_bad=("both_bad", "drop"),
        )
    if ties is None:
        ties = bool(pairs.ties.sum() > 0)
    fit_pairs = pairs if ties else _half_wins(pairs)
    models = battles.models
    if anchor is not None and anchor not in models:
        raise AdviceError(
            "{anchor} is not a model of the battles; models are "
            + escape(", ".join(map(repr, models[:20]))),
            anchor=Spelled(f"anchor {anchor!r}", f"--anchor {anchor!r}"),
        )
    order_effect, dropped = decide_order_effect(pairs, models, order_effect)
    try:
        optimum = fit_bt(
            fit_pairs, ties=ties, systems=models, hint=BATTLES_HINT, order=order_effect
        )
    except ConvergenceError as err:
        raise MLEDoesNotExistError(
            escape(f"the Bradley–Terry MLE of the battles could not be found ({err})")
            + ": a parameter runs off to infinity (e.g. no ties, only ties, or the model shown "
            "first always wins); fit with {ties} or {order_effect}",
            ties=Spelled("ties=False", "--ties half"),
            order_effect=Spelled("order_effect=False", "--no-order-effect"),
        ) from None
    clusters = battles.cluster_cells(both_bad) if bootstrap else None
    info: dict[str, Any] = {
        "ties": "davidson" if ties else "half",
        "order_effect": order_effect,
        "both_bad": both_bad,
        "confidence": confidence,
        "seed": seed,
        "n_bootstrap": bootstrap,
        "bootstrap_unit": "battle" if battles.cluster is None else f"cluster ({battles.cluster})",
        "newton_iterations": optimum.iterations,
        "warnings": [],
    }
    if battles.cluster is not None:
        info["n_clusters"] = battles.n_clusters

    def note(warning: str | AdviceWarning) -> None:  # a warning the fit keeps (info["warnings"])
        info["warnings"].append(str(warning))
        warnings.warn(warning, DataWarning, stacklevel=3)

    if dropped:
        info["order_effect_dropped"] = str(dropped)
        note(dropped)
    if battles.cluster is not None and not bootstrap:
        note(
            AdviceWarning(
                escape(f"the clusters ({battles.cluster}) are used by the bootstrap only, and ")
                + "{bootstrap}: the Fisher intervals treat every battle as independent and are "
                "too narrow when the battles of a cluster are correlated",
                bootstrap=0,
            )
        )
    boot = None
    if bootstrap:
        boot, failed = bootstrap_battles(
            pairs,
            optimum.params,
            optimum.information,
            bootstrap,
            ties,
            order_effect,
            seed,
            n_jobs,
            clusters=clusters,
        )
        info["bootstrap_failed"] = failed
        if failed:
            note(
                f"{failed} of {bootstrap} bootstrap replicates have no MLE (their comparison "
                "graph is not strongly connected, or the pairs they drew cannot identify the "
                "order effect); the bootstrap intervals use the others and are too narrow: "
                "collect more battles per model (or fit without the order effect)"
            )
    post = None
    if posterior:
        from rankstats.battles.bayes import sample_posterior

        post, problems, used = sample_posterior(
            pairs, models, ties, order_effect, seed, sampler, draws, tune, chains, progressbar
        )
        info["sampler"] = used
        info["posterior_problems"] = problems
    per_model = battles.battles_per_model(both_bad)
    return BattleFit(
        tuple(models),
        optimum.params,
        optimum.covariance,
        per_model,
        ties,
        order_effect,
        confidence,
        anchor,
        anchor_rating,
        boot,
        post,
        info,
    )


def _check_settings(
    confidence: float, bootstrap: int, anchor_rating: float, order_effect: bool | None
) -> None:
    if not (isinstance(confidence, (int, float)) and 0 < confidence < 1):
        raise ValueError(f"confidence must be a number in (0, 1), not {confidence!r}")
    if isinstance(bootstrap, bool) or not isinstance(bootstrap, (int, np.integer)) or bootstrap < 0:
        raise ValueError(f"bootstrap must be an integer >= 0, not {bootstrap!r}")
    if not (isinstance(anchor_rating, (int, float)) and math.isfinite(anchor_rating)):
        raise AdviceError(
            "{anchor_rating} must be a finite number, not " + escape(repr(anchor_rating)),
            anchor_rating=Spelled("anchor_rating", "--rating"),
        )
    if order_effect not in (None, True, False):
        raise ValueError(f"order_effect must be None, True or False, not {order_effect!r}")


def _half_wins(pairs: Pairs) -> Pairs:
    """Ties as half a win each way (``ties=False``)."""
    half = 0.5 * pairs.ties
    return Pairs(
        pairs.n_systems,
        pairs.item1,
        pairs.item2,
        pairs.wins1 + half,
        pairs.wins2 + half,
        np.zeros_like(half),
    )


def elo(
    log_worth: Sequence[float] | np.ndarray, anchor: int | None = None, rating: float = ELO_START
):
    """Elo-scale ratings :math:`400\\log_{10}(e)(\\theta - \\theta_{anchor}) + \\text{rating}`
    (``anchor=None``: centred, the mean rating is ``rating``)."""
    theta = np.asarray(log_worth, dtype=float)
    base = theta.mean() if anchor is None else theta[anchor]
    return ELO_SCALE * (theta - base) + rating
