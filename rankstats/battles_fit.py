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
:func:`rankstats.bt_mle.fit_bt` (``order=True``: the one Bradley–Terry likelihood of rankstats) on
the counts per ordered pair (:class:`rankstats.battles.Battles`), so a fit costs O(pairs).

Intervals, side by side in :meth:`BattleFit.table`:

- **fisher** — Wald intervals :math:`\hat\theta \pm z\,\mathrm{se}` from the observed information
  at the MLE (the inverse Hessian of :func:`rankstats.bt_mle.newton`).
- **bootstrap** — percentile intervals of the nonparametric bootstrap over battles.  Resampling
  battles with replacement is a multinomial draw on the table of (ordered pair, outcome) cells,
  so each replicate draws that table (exactly: Poisson counts plus a multinomial correction to
  the original total, :func:`resample_cells`) and refits by Newton iterations warm-started at the
  MLE with the information matrix of the MLE (a chord method), 50 replicates at a time,
  O(pairs) per replicate however many battles there are.  The inner loops (Poisson inversion,
  the gradient of every replicate) are numba kernels when numba is installed
  (:mod:`rankstats.battles_numba`), else NumPy; seeded chunks make the numbers independent of
  the number of threads.
- **posterior** — equal-tailed credible intervals of the Bayesian model (ZeroSumNormal log-worths,
  Normal log order effect and log tie parameter; NUTS in PyMC, :mod:`rankstats.battles_bayes`).

Ratings are printed on the **Elo scale** as LMSYS's Chatbot Arena does: :math:`R_i = 400
\log_{10}(e)\,\theta_i + c`, so that a difference of 400 points is odds of 10 : 1; ``c`` centres
the ratings at ``anchor_rating`` (1000), or puts the ``anchor`` model at ``anchor_rating``.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import sparse, stats

from rankstats.battles import Battles
from rankstats.bt_mle import ConvergenceError, MLEDoesNotExistError, Pairs, fit_bt
from rankstats.errors import DataWarning

#: Points per unit of log-worth on the Elo scale: 400 / ln 10.
ELO_SCALE = 400.0 / math.log(10.0)
ELO_START = 1000.0
METHODS = ("fisher", "bootstrap", "posterior")
_CHUNK = 50  # bootstrap replicates per chunk (one seed each: results do not depend on n_jobs)

BATTLES_HINT = (
    "Add battles that connect these models, or fit the connected part only (the posterior, "
    "posterior=True, stays finite thanks to its prior)."
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
        order effect): the layout of :func:`rankstats.bt_mle.fit_bt`.
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
        frame["rank_ub"] = 1 + (low[None, :] > high[:, None]).sum(axis=1)
        frame["n_battles"] = self.n_battles.astype(np.int64)
        return frame.sort_values(["rating", "model"], ascending=[False, True]).reset_index(
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
        nu = math.exp(self.log_tie) if self.ties else 0.0

        def win(first: bool) -> np.ndarray:
            ti = theta[:, None] + (eta if first else 0.0)
            tj = theta[None, :] + (0.0 if first else eta)
            pi, pj = np.exp(ti - np.maximum(ti, tj)), np.exp(tj - np.maximum(ti, tj))
            pt = nu * np.sqrt(pi * pj)
            d = pi + pj + pt
            return (pi + (0.5 * pt if ties == "half" else 0.0)) / d

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
        from rankstats.battles_plot import plot_intervals

        return plot_intervals(self, scale=scale, top=top)

    def plot_win_probability(self, top: int | None = 30):
        """Heat map of :meth:`win_probability` for the ``top`` models."""
        from rankstats.battles_plot import plot_win_probability

        return plot_win_probability(self, top=top)

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
    order_effect: bool = True,
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
        From :func:`rankstats.battles.read_battles`.
    ties : bool, optional
        Davidson's tie parameter (default: when the battles hold ties); ``False`` counts a tie as
        half a win for each side (LMSYS's convention).
    order_effect : bool
        Estimate the advantage :math:`h` of the model shown first.
    both_bad : {"tie", "drop"}
        Count "both bad" battles as ties (default) or leave them out.
    bootstrap : int
        Bootstrap replicates (0: none).
    posterior : bool
        Also sample the posterior with NUTS (PyMC; compiles a model: tens of seconds).
    confidence : float
        Level of every interval.
    anchor, anchor_rating : str, float
        Elo scale: ``anchor`` is fixed at ``anchor_rating``; without, ratings are centred at
        ``anchor_rating`` (default 1000).
    seed : int, optional
        Seeds the bootstrap and the sampler: same seed, same numbers.
    n_jobs : int, optional
        Threads for the bootstrap (default: all cores); the numbers do not depend on it.
    sampler, draws, tune, chains, progressbar
        NUTS settings (``sampler``: ``"auto"``, ``"pymc"`` or ``"nutpie"``, recorded in
        ``info``).

    Raises
    ------
    MLEDoesNotExistError
        The comparison graph is not strongly connected (the message names the groups).
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), not {confidence!r}")
    if bootstrap < 0:
        raise ValueError(f"bootstrap must be >= 0, not {bootstrap!r}")
    pairs = battles.pairs(both_bad)
    if ties is None:
        ties = bool(pairs.ties.sum() > 0)
    fit_pairs = pairs if ties else _half_wins(pairs)
    models = battles.models
    if anchor is not None and anchor not in models:
        raise ValueError(
            f"anchor {anchor!r} is not a model of the battles; models are "
            f"{', '.join(map(repr, models[:20]))}"
        )
    try:
        optimum = fit_bt(
            fit_pairs, ties=ties, systems=models, hint=BATTLES_HINT, order=order_effect
        )
    except ConvergenceError as err:
        raise MLEDoesNotExistError(
            f"the Bradley–Terry MLE of the battles could not be found ({err}): the order effect "
            "is not identified when most pairs are always shown in the same order, or a "
            "parameter runs off to infinity (e.g. no ties or only ties); fit with "
            "order_effect=False or ties=False"
        ) from None
    info: dict[str, Any] = {
        "ties": "davidson" if ties else "half",
        "order_effect": order_effect,
        "both_bad": both_bad,
        "confidence": confidence,
        "seed": seed,
        "n_bootstrap": bootstrap,
        "newton_iterations": optimum.iterations,
    }
    boot = None
    if bootstrap:
        boot, failed = bootstrap_battles(
            pairs, optimum.params, optimum.information, bootstrap, ties, order_effect, seed, n_jobs
        )
        info["bootstrap_failed"] = failed
        if failed:
            warnings.warn(
                f"{failed} of {bootstrap} bootstrap replicates have no MLE (their comparison "
                "graph is not strongly connected); the bootstrap intervals use the others and "
                "are too narrow: collect more battles per model",
                DataWarning,
                stacklevel=2,
            )
    post = None
    if posterior:
        from rankstats.battles_bayes import sample_posterior

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


# ---------------------------------------------------------------------------- bootstrap
def resample_cells(counts: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    r"""``size`` multinomial draws of ``counts.sum()`` items with probabilities ``counts / sum``.

    Exact, and several times faster than ``rng.multinomial`` for many cells: Poisson counts
    :math:`X_k \sim \text{Poisson}(c_k)` are multinomial given their total :math:`S`; if
    :math:`S < N` a multinomial of the missing :math:`N - S` items is added, if :math:`S > N`,
    :math:`S - N` of the drawn items are removed uniformly at random (a random subset of i.i.d.
    categorical draws is i.i.d.).  This is the bootstrap over battles: resampling rows with
    replacement draws this multinomial on the (ordered pair, outcome) cells.
    """
    counts = np.asarray(counts, dtype=np.int64)
    return _resample(PoissonTable(counts), size, rng)


def _resample(table: PoissonTable, size: int, rng: np.random.Generator) -> np.ndarray:
    counts = table.counts
    total = int(counts.sum())
    out = table.draw(size, rng)
    cumulative = np.cumsum(counts) / total
    for row in out:
        gap = total - int(row.sum())
        if gap > 0:
            cells = np.searchsorted(cumulative, rng.random(gap), side="right")
            row += np.bincount(np.minimum(cells, len(counts) - 1), minlength=len(counts))
        elif gap < 0:
            positions = rng.choice(total - gap, -gap, replace=False)
            cells = np.searchsorted(np.cumsum(row), positions, side="right")
            row -= np.bincount(cells, minlength=len(counts))
    return out


class PoissonTable:
    r"""Poisson variates with integer means ``counts`` by inversion with a guide table.

    :math:`X = \min\{x : F_c(x) \ge U\}` for a uniform :math:`U` (inversion; Chen & Asau's
    1974 guide table starts the search at most a step or two before the answer).  Cells with the
    same mean share one table of :math:`F_c`, cut where the upper tail is below 1e-300
    (:math:`c + 40\sqrt{c} + 60`).  The search runs in a numba kernel when numba is installed
    (:mod:`rankstats.battles_numba`, a few ns per variate, GIL released), else in NumPy: the
    same function of the same uniforms, so the numbers do not depend on numba.
    """

    def __init__(self, counts: np.ndarray) -> None:
        self.counts = np.asarray(counts, dtype=np.int64)
        values, group = np.unique(self.counts, return_inverse=True)
        lengths = (values + np.ceil(40 * np.sqrt(values)) + 60).astype(np.int64)
        offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
        cdf, guide = [], []
        for value, length in zip(values, lengths, strict=True):
            f = stats.poisson.cdf(np.arange(length), value)
            f[-1] = 1.0
            cdf.append(f)
            guide.append(np.searchsorted(f, np.arange(length) / length, side="left"))
        self.cdf = np.ascontiguousarray(np.concatenate(cdf), dtype=np.float64)
        self.guide = np.ascontiguousarray(np.concatenate(guide), dtype=np.int64)
        self.cell_length = np.ascontiguousarray(lengths[group], dtype=np.int64)
        self.cell_offset = np.ascontiguousarray(offsets[group], dtype=np.int64)

    def draw(self, size: int, rng: np.random.Generator) -> np.ndarray:
        u = rng.random((size, len(self.counts)))
        out = np.empty(u.shape, dtype=np.int64)
        try:
            from rankstats.battles_numba import invert
        except ImportError:
            return self._draw_numpy(u)
        invert(u, self.cell_offset, self.cell_length, self.cdf, self.guide, out)
        return out

    def _draw_numpy(self, u: np.ndarray) -> np.ndarray:
        x = self.guide[self.cell_offset + (u * self.cell_length).astype(np.int64)]
        rows, cols = np.nonzero(self.cdf[self.cell_offset + x] < u)
        while len(rows):
            x[rows, cols] += 1
            more = (x[rows, cols] < self.cell_length[cols] - 1) & (
                self.cdf[self.cell_offset[cols] + x[rows, cols]] < u[rows, cols]
            )
            rows, cols = rows[more], cols[more]
        return x


def bootstrap_battles(
    pairs: Pairs,
    params: np.ndarray,
    information: np.ndarray,
    n_bootstrap: int,
    ties: bool,
    order: bool,
    seed: int | None = 0,
    n_jobs: int | None = None,
    tol: float = 1e-6,
    max_iter: int = 100,
) -> tuple[np.ndarray, int]:
    """Bootstrap replicates of the MLE ``params`` over battles (see :func:`resample_cells`).

    Each replicate is refitted by chord-Newton iterations
    :math:`x \\leftarrow x + I(\\hat x)^{-1} g(x)` started at the MLE, with the information
    matrix of the MLE (replicates are close to it, so the contraction factor is small: a few
    iterations), vectorised over a chunk of replicates: per iteration O(pairs × chunk) NumPy work
    and one sparse product.  Replicates that do not converge are refitted by
    :func:`rankstats.bt_mle.fit_bt`; those without an MLE are NaN and counted.

    Returns
    -------
    (ndarray, int)
        Replicates, shape ``(n_bootstrap, len(params))`` (centred log-worths), and the number
        of replicates without an MLE.
    """
    n = pairs.n_systems
    size = len(params)
    free = np.ones(size, dtype=bool)
    free[n - 1] = False
    step_matrix = np.zeros((size, size))
    step_matrix[np.ix_(free, free)] = np.linalg.inv(information[np.ix_(free, free)])
    cells = np.stack([pairs.wins1, pairs.wins2, pairs.ties], axis=1).round().astype(np.int64)
    nonzero = np.flatnonzero(cells.ravel())
    n_chunks = -(-n_bootstrap // _CHUNK)
    seeds = np.random.SeedSequence(seed).spawn(n_chunks)
    poisson = PoissonTable(cells.ravel()[nonzero])
    setup = (pairs, params, step_matrix, cells, nonzero, poisson, ties, order, tol, max_iter)

    def run(k: int) -> tuple[np.ndarray, int]:
        count = min(_CHUNK, n_bootstrap - k * _CHUNK)
        return _bootstrap_chunk(np.random.default_rng(seeds[k]), count, *setup)

    workers = n_jobs or min(4, _cpu_count())
    if workers > 1 and n_chunks > 1:
        with ThreadPoolExecutor(workers) as pool:
            results = list(pool.map(run, range(n_chunks)))
    else:
        results = [run(k) for k in range(n_chunks)]
    return np.concatenate([r[0] for r in results]), sum(r[1] for r in results)


def _cpu_count() -> int:
    import os

    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - macOS, Windows
        return os.cpu_count() or 1


def _bootstrap_chunk(
    rng: np.random.Generator,
    count: int,
    pairs: Pairs,
    params: np.ndarray,
    step_matrix: np.ndarray,
    cells: np.ndarray,
    nonzero: np.ndarray,
    poisson: PoissonTable,
    ties: bool,
    order: bool,
    tol: float,
    max_iter: int = 100,
) -> tuple[np.ndarray, int]:
    """``count`` replicates: resampled cells, then vectorised chord-Newton (layout (pairs, B))."""
    n, n_pairs = pairs.n_systems, len(pairs.item1)
    flat = np.zeros((count, cells.size), dtype=np.int64)
    flat[:, nonzero] = _resample(poisson, count, rng)
    table = flat.reshape(count, n_pairs, 3).transpose(1, 2, 0).astype(float)  # (P, 3, B)
    w1, w2, t = table[:, 0], table[:, 1], table[:, 2]
    if not ties:
        w1, w2, t = w1 + 0.5 * t, w2 + 0.5 * t, np.zeros_like(t)
    m = w1 + w2 + t
    a = w1 + 0.5 * t
    x = np.repeat(params[:, None], count, axis=1)  # (size, B), float64
    gradient = _gradient_function(pairs, a, m, t, ties, order)
    converged = np.zeros(count, dtype=bool)
    previous = None
    for _ in range(max_iter):
        step = step_matrix @ gradient(x)
        x += step
        biggest = np.max(np.abs(step), axis=0)
        # Linear convergence with ratio ρ: the remaining error is about step · ρ / (1 − ρ).
        ratio = biggest / previous if previous is not None else np.ones(count)
        fast = ratio < 0.5
        remaining = np.where(fast, biggest * ratio / np.where(fast, 1.0 - ratio, 1.0), np.inf)
        converged = (biggest < tol) | (remaining < 0.1 * tol)
        previous = np.maximum(biggest, 1e-300)
        if converged.all() or not np.all(np.isfinite(x)):
            break
    x[:n] -= x[:n].mean(axis=0)
    failed = 0
    for b in np.flatnonzero(~(converged & np.all(np.isfinite(x), axis=0))):
        one = Pairs(n, pairs.item1, pairs.item2, *(v[:, b].astype(float) for v in (w1, w2, t)))
        try:
            x[:, b] = fit_bt(one, ties=ties, order=order).params
        except (MLEDoesNotExistError, ConvergenceError):
            x[:, b] = np.nan
            failed += 1
    return x.T.copy(), failed


def _gradient_function(
    pairs: Pairs, a: np.ndarray, m: np.ndarray, t: np.ndarray, ties: bool, order: bool
):
    """``x (size, B) -> gradient (size, B)`` of the log-likelihood of every replicate: the numba
    kernel (:func:`rankstats.battles_numba.gradient`, float64, fused) when numba is installed,
    else NumPy on float32 work arrays (residuals accurate to ~1e-7 relative, far below the
    bootstrap spread; the replicates then agree with the numba ones to ~1e-7)."""
    n, n_pairs = pairs.n_systems, len(pairs.item1)
    lam_index, eta_index = n, n + int(ties)
    try:
        from rankstats.battles_numba import gradient as kernel
    except ImportError:
        kernel = None
    if kernel is not None:
        a64, m64, t64 = (np.ascontiguousarray(v, dtype=np.float64) for v in (a, m, t))
        item1 = np.ascontiguousarray(pairs.item1, dtype=np.int64)
        item2 = np.ascontiguousarray(pairs.item2, dtype=np.int64)
        zeros = np.zeros(a.shape[1])

        def numba_gradient(x: np.ndarray) -> np.ndarray:
            grad = np.empty_like(x)
            eta = np.ascontiguousarray(x[eta_index]) if order else zeros
            log_nu = np.ascontiguousarray(x[lam_index]) if ties else zeros
            kernel(
                np.ascontiguousarray(x[:n]),
                item1,
                item2,
                a64,
                m64,
                t64,
                eta,
                log_nu,
                ties,
                order,
                grad,
            )
            return grad

        return numba_gradient
    count = a.shape[1]
    a, m, t = (np.asarray(v, dtype=np.float32) for v in (a, m, t))
    tie_total = t.sum(axis=0, dtype=np.float64)
    difference = sparse.csr_matrix(
        (
            np.concatenate([np.ones(n_pairs), -np.ones(n_pairs)]),
            (np.concatenate([pairs.item1, pairs.item2]), np.tile(np.arange(n_pairs), 2)),
        ),
        shape=(n, n_pairs),
        dtype=np.float32,
    )
    z, c, d = (np.empty((n_pairs, count), dtype=np.float32) for _ in range(3))

    def numpy_gradient(x: np.ndarray) -> np.ndarray:
        theta = x[:n].astype(np.float32)
        np.take(theta, pairs.item1, axis=0, out=z)
        np.subtract(z, np.take(theta, pairs.item2, axis=0, out=d), out=z)
        if order:
            np.add(z, x[eta_index].astype(np.float32), out=z)
        np.multiply(z, 0.5, out=z)
        np.exp(z, out=z)  # s = sqrt of the odds h π_i / π_j
        grad = np.empty_like(x)
        if ties:
            np.multiply(z, np.exp(x[lam_index]).astype(np.float32), out=c)  # ν s
        np.multiply(z, z, out=z)  # r = s²
        np.add(z, 1.0, out=d)
        if ties:
            np.add(d, c, out=d)
            np.divide(c, d, out=c)  # P(tie)
        np.divide(z, d, out=z)  # P(item1 wins)
        if ties:
            np.add(z, 0.5 * c, out=z)
            np.multiply(c, m, out=c)
            grad[lam_index] = tie_total - c.sum(axis=0, dtype=np.float64)
        np.multiply(z, m, out=z)
        np.subtract(a, z, out=z)  # residual of item1 (item2's is its negative)
        grad[:n] = difference @ z
        if order:
            grad[eta_index] = z.sum(axis=0, dtype=np.float64)
        return grad

    return numpy_gradient


def elo(
    log_worth: Sequence[float] | np.ndarray, anchor: int | None = None, rating: float = ELO_START
):
    """Elo-scale ratings :math:`400\\log_{10}(e)(\\theta - \\theta_{anchor}) + \\text{rating}`
    (``anchor=None``: centred, the mean rating is ``rating``)."""
    theta = np.asarray(log_worth, dtype=float)
    base = theta.mean() if anchor is None else theta[anchor]
    return ELO_SCALE * (theta - base) + rating
