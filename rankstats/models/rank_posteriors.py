r"""Rank posteriors: the distribution of each system's rank under a fitted model.

One computation serves every model (:func:`rank_probabilities`): it receives one row per
posterior draw of the per-system quantity that orders the systems — log-worths for
Plackett–Luce and Bradley–Terry (higher is better), consensus positions for Mallows (lower is
better) — ranks every draw (rank 1 = best) and counts, for each system, how often it takes each
rank.  From those probabilities :class:`RankPosterior` derives ``P(best)``, the expected rank and
equal-tailed credible rank intervals, and draws a heat map of ``P(rank = r)`` (after the
``heat_plot`` of the BayesMallows R package; Sørensen et al. 2020).

**Ties inside a draw** have probability zero for continuous draws (log-worths) and cannot occur
for Mallows consensus positions (a permutation); when they do occur (draws rounded on disk, a
degenerate posterior) the draw's unit of probability is split evenly over the ranks the tied
systems span — the probabilistic counterpart of the average ranks used everywhere in rankstats —
so that every row and every column still sums to 1 and the result does not depend on the order
of the systems.

**MLE / MAP fits.** Their ``idata.posterior`` holds seeded draws from the normal (Laplace)
approximation :math:`N(\hat\theta, I(\hat\theta)^{-1})` at the optimum (see
:class:`~rankstats.models.Fit`); the rank posterior is computed from those draws and says so in
:attr:`RankPosterior.approximation`.  A fit that holds a single point (Mallows ``method="map"``:
the Kemeny consensus) has no distribution over rankings and is refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from rankstats._util.arguments import probability
from rankstats._util.renamed import renamed_parameters

if TYPE_CHECKING:  # matplotlib is imported when a figure is drawn
    from matplotlib.figure import Figure

#: Draws × systems² cells handled at once for draws that contain ties.
_TIE_CELLS = 4_000_000
#: Relative tolerance of the cumulative probabilities when reading interval ends.
_EPS = 1e-9


def rank_probabilities(values: np.ndarray, higher_is_better: bool = True) -> np.ndarray:
    """``P[i, r − 1]``: the share of draws in which system ``i`` has rank ``r`` (1 = best).

    Parameters
    ----------
    values : numpy.ndarray
        ``(S, N)``: one row per draw of the per-system quantity that orders the systems.
    higher_is_better : bool
        True for worths (the largest value has rank 1), False for positions (the smallest).

    Returns
    -------
    numpy.ndarray
        ``(N, N)``; every row and every column sums to 1.  A group of ``k`` systems tied in a
        draw spreads that draw's weight ``1/k`` over each of the ``k`` ranks it spans.

    Vectorised over the draws: one ``argsort`` of the ``(S, N)`` array and one ``bincount``;
    only draws that contain ties (none, for continuous draws) take the ``O(S N²)`` path.
    """
    values = np.asarray(values, dtype=np.float64)
    if values.ndim != 2 or values.shape[0] < 1 or values.shape[1] < 1:
        raise ValueError(f"values must be a (draws, systems) array, got shape {values.shape}")
    if not np.isfinite(values).all():
        raise ValueError("values contain NaN or infinite draws")
    key = -values if higher_is_better else values  # smaller key = better
    s, n = key.shape
    order = np.argsort(key, axis=1, kind="stable")
    tied = (np.diff(np.take_along_axis(key, order, axis=1), axis=1) == 0).any(axis=1)
    clean = ~tied
    ranks = np.empty_like(order[clean])
    np.put_along_axis(ranks, order[clean], np.arange(n)[None, :], axis=1)
    cells = (np.arange(n)[None, :] * n + ranks).ravel()
    counts = np.bincount(cells, minlength=n * n).reshape(n, n).astype(np.float64)
    if tied.any():
        counts += _tied_counts(key[tied])
    return counts / s


def _tied_counts(key: np.ndarray) -> np.ndarray:
    """Rank counts of draws with ties: a tied group's weight is split over its ranks."""
    s, n = key.shape
    out = np.zeros((n, n + 1))
    block = max(1, _TIE_CELLS // (n * n))
    item = np.broadcast_to(np.arange(n), (min(block, s), n))
    for lo in range(0, s, block):
        part = key[lo : lo + block]
        better = (part[:, None, :] < part[:, :, None]).sum(axis=2)  # (b, n)
        equal = (part[:, None, :] == part[:, :, None]).sum(axis=2)  # ≥ 1 (itself)
        rows = item[: len(part)]
        weight = 1.0 / equal
        # Difference array over ranks: +w at the first rank of the group, −w after its last.
        np.add.at(out, (rows, better), weight)
        np.add.at(out, (rows, better + equal), -weight)
    return np.cumsum(out, axis=1)[:, :n]


def equal_tailed(probabilities: np.ndarray, ci_prob: float) -> tuple[np.ndarray, np.ndarray]:
    """Equal-tailed credible rank intervals ``[low, high]`` (ranks, 1-based) of each row.

    ``low`` is the smallest rank with ``P(rank ≤ low) > (1 − ci_prob)/2`` and ``high`` the
    smallest with ``P(rank ≤ high) ≥ (1 + ci_prob)/2``: at most ``(1 − ci_prob)/2`` of the
    probability lies on either side, so each interval holds at least ``ci_prob`` (ranks are
    discrete).
    """
    cdf = np.cumsum(probabilities, axis=1)
    alpha = (1.0 - ci_prob) / 2.0
    low = np.argmax(cdf > alpha + _EPS, axis=1) + 1
    high = np.argmax(cdf >= 1.0 - alpha - _EPS, axis=1) + 1
    return low, high


@renamed_parameters(prob="ci_prob", n_draws="draws")
@dataclass(frozen=True, eq=False, repr=False)
class RankPosterior:
    """Posterior distribution of every system's rank (1 = best) under a fitted model.

    Made by :meth:`rankstats.models.Fit.rank_posterior`.

    Attributes
    ----------
    probabilities : pandas.DataFrame
        ``P(rank = r)``: one row per system, ordered by expected rank (best first), one column
        per rank ``1 … N``; every row and column sums to 1.
    summary : pandas.DataFrame
        Same rows: ``expected_rank`` (posterior mean rank), ``sd_rank``, ``p_best``
        (``P(rank = 1)``), ``median_rank``, ``low`` / ``high`` (equal-tailed credible rank
        interval at :attr:`ci_prob`, see :func:`equal_tailed`).
    ci_prob : float
        Probability of the credible rank intervals.
    model, method : str
        Of the fit (``"pl"``, ``"bt"``, ``"mallows"``; ``"nuts"``, ``"mcmc"``, ``"mle"``, ...).
    draws : int
        Number of draws counted (Monte Carlo standard error of a probability ``p`` is about
        ``sqrt(p (1 − p) / ESS)`` with ESS ≤ ``draws``).
    approximation : str or None
        None for a posterior sample; for ``mle`` / ``map`` fits, what the draws come from
        (the normal approximation at the optimum).
    """

    probabilities: pd.DataFrame
    summary: pd.DataFrame
    ci_prob: float
    model: str
    method: str
    draws: int
    approximation: str | None = None

    # ------------------------------------------------------------------ views
    @property
    def order(self) -> list[str]:
        """Systems by expected rank, best first."""
        return list(self.probabilities.index)

    @property
    def p_best(self) -> pd.Series:
        """``P(rank = 1)`` of every system."""
        return self.summary["p_best"]

    @property
    def expected_rank(self) -> pd.Series:
        """Posterior mean rank of every system."""
        return self.summary["expected_rank"]

    @property
    def intervals(self) -> pd.DataFrame:
        """Equal-tailed credible rank intervals (``low``, ``high``) at :attr:`ci_prob`."""
        return self.summary[["low", "high"]]

    def table(self) -> pd.DataFrame:
        """Tidy form: one row per (system, rank) with ``probability`` and ``cumulative``
        (``P(rank ≤ r)``), systems by expected rank."""
        values = self.probabilities.to_numpy()
        n_sys, n_ranks = values.shape
        return pd.DataFrame(
            {
                "system": np.repeat(np.array(self.order, dtype=object), n_ranks),
                "rank": np.tile(np.arange(1, n_ranks + 1), n_sys),
                "probability": values.ravel(),
                "cumulative": np.cumsum(values, axis=1).ravel(),
            }
        )

    # ------------------------------------------------------------------ figure
    def plot(self, annotate: bool | None = None, intervals: bool = True) -> Figure:
        """Heat map of ``P(rank = r)``: systems (by expected rank) down, ranks across.

        One cell per (system, rank), white (0) to dark blue (the largest probability; the colour
        bar is labelled ``P(rank = r)``).  ``intervals``: outline each system's credible rank
        interval.  ``annotate``: write the probabilities in the cells (default: up to 12
        systems).  Names are shown literally, those longer than
        :data:`rankstats.plotting.names.NAME_WIDTH` characters as unique abbreviations
        (:func:`rankstats.plotting.names.labels`; the title then says so and
        ``rs.plotting.name_key(posterior.order)`` is the key), fonts fall back
        for characters the default font lacks; figure and font sizes follow the number of
        systems (40 systems stay readable).
        """
        from matplotlib.figure import Figure
        from matplotlib.patches import Rectangle

        from rankstats._util.text import mpl_text
        from rankstats.plotting.fonts import fitted_fonts
        from rankstats.plotting.names import labels, shortened_note

        values = self.probabilities.to_numpy()
        n = len(values)
        cell = 0.26 if n > 12 else 0.5
        width = max(4.5, min(cell * n + 3.2, 30.0))
        height = max(3.0, min(cell * n + 1.6, 30.0))
        fig = Figure(figsize=(width, height))
        ax = fig.add_subplot()
        top = max(float(values.max()), 1e-12)
        image = ax.imshow(
            values,
            cmap="Blues",
            vmin=0.0,
            vmax=top,
            aspect="auto",
            interpolation="nearest",
        )
        fontsize = max(5.0, 9.0 - n / 15)
        ax.set_yticks(range(n), labels(self.order), fontsize=fontsize)
        # Every rank up to 30 systems; beyond, ranks 1, 5, 10, ... (1, 3, 5, ... up to 60).
        step = 1 if n <= 30 else (2 if n <= 60 else 5)
        ticks = list(range(0, n, step)) if step < 5 else [0, *range(step - 1, n, step)]
        ax.set_xticks(ticks, [str(r + 1) for r in ticks], fontsize=fontsize)
        ax.set_xlabel("rank r (1 = best)")
        ax.set_ylabel("system (by expected rank)")
        if intervals:
            for i, (lo, hi) in enumerate(self.summary[["low", "high"]].to_numpy(dtype=int)):
                ax.add_patch(
                    Rectangle(
                        (lo - 1.5, i - 0.5),
                        hi - lo + 1,
                        1.0,
                        fill=False,
                        edgecolor="#d95f02",
                        linewidth=0.9,
                    )
                )
        if annotate if annotate is not None else n <= 12:
            for i in range(n):
                for r in range(n):
                    if values[i, r] >= 0.005:
                        colour = "white" if values[i, r] > 0.6 * top else "black"
                        ax.text(
                            r,
                            i,
                            f"{values[i, r]:.2f}",
                            ha="center",
                            va="center",
                            fontsize=7,
                            color=colour,
                        )
        cbar = fig.colorbar(image, ax=ax, shrink=0.8)
        cbar.set_label("P(rank = r)")
        title = f"{mpl_text(self.model.upper())} ({mpl_text(self.method)}): rank posterior"
        if intervals:
            title += f"; boxes: {self.ci_prob:.0%} equal-tailed rank intervals"
        if self.approximation:
            title += "\n" + mpl_text(self.approximation)
        if note := shortened_note(self.order):
            title += "\n" + note
        ax.set_title(title, fontsize=9)
        with fitted_fonts(fig):
            fig.tight_layout()
        return fig

    # ------------------------------------------------------------------ display
    def __repr__(self) -> str:
        n = len(self.summary)
        head = (
            f"RankPosterior(model={self.model!r}, method={self.method!r}, {n} systems, "
            f"{self.draws} draws, {self.ci_prob:.0%} equal-tailed rank intervals)"
        )
        lines = [head]
        if self.approximation:
            lines.append(f"  approximate: {self.approximation}")
        shown = self.summary.iloc[:10]
        width = min(max(6, *(len(s) for s in shown.index)), 40)
        lines.append(f"  {'system':<{width}}  {'E[rank]':>7}  {'P(best)':>7}  interval")
        for s, row in shown.iterrows():
            name = s if len(s) <= width else s[: width - 1] + "…"
            lines.append(
                f"  {name:<{width}}  {row['expected_rank']:>7.2f}  {row['p_best']:>7.3f}  "
                f"[{int(row['low'])}, {int(row['high'])}]"
            )
        if n > 10:
            lines.append(f"  ... {n - 10} more")
        return "\n".join(lines)


@renamed_parameters(prob="ci_prob")
def rank_posterior(
    values: np.ndarray,
    systems: list[str] | tuple[str, ...],
    higher_is_better: bool = True,
    ci_prob: float = 0.95,
    model: str = "",
    method: str = "",
    approximation: str | None = None,
) -> RankPosterior:
    """The :class:`RankPosterior` of draws ``values`` (``(S, N)``, columns = ``systems``).

    Rows are ordered by expected rank; systems with equal expected ranks keep the order given.
    """
    probability("ci_prob", ci_prob)
    values = np.asarray(values, dtype=np.float64)
    systems = [str(s) for s in systems]
    if values.ndim != 2 or values.shape[1] != len(systems):
        raise ValueError(
            f"values must be shaped (draws, {len(systems)} systems), got {values.shape}"
        )
    probs = rank_probabilities(values, higher_is_better)
    n = len(systems)
    ranks = np.arange(1, n + 1, dtype=np.float64)
    expected = probs @ ranks
    sd = np.sqrt(np.clip(probs @ ranks**2 - expected**2, 0.0, None))
    low, high = equal_tailed(probs, ci_prob)
    median = np.argmax(np.cumsum(probs, axis=1) >= 0.5 - _EPS, axis=1) + 1
    keep = np.argsort(np.round(expected, 12), kind="stable")
    index = pd.Index([systems[i] for i in keep], name="system")
    table = pd.DataFrame(probs[keep], index=index, columns=pd.RangeIndex(1, n + 1, name="rank"))
    summary = pd.DataFrame(
        {
            "expected_rank": expected[keep],
            "sd_rank": sd[keep],
            "p_best": probs[keep, 0],
            "median_rank": median[keep],
            "low": low[keep],
            "high": high[keep],
        },
        index=index,
    )
    return RankPosterior(
        probabilities=table,
        summary=summary,
        ci_prob=ci_prob,
        model=model,
        method=method,
        draws=int(values.shape[0]),
        approximation=approximation,
    )
