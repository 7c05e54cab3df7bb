"""The result of a posterior predictive check (:class:`PPCResult`) and how it is built.

For every statistic :math:`T` with observed value :math:`T(y)` and replications
:math:`T(y^{rep,(s)})`, :func:`p_values` gives the two-sided mid-p value
:math:`2 \\min(p, 1 - p)`, :math:`p = P(T(y^{rep}) > T(y)) + \tfrac12 P(T(y^{rep}) = T(y))`
(Gelman, Meng & Stern 1996); :func:`build_result` adds the central intervals of the
replications and the misses (two-sided p below the threshold) to the table of observed
statistics.  The figures are in :mod:`.ppc_plots`; the checks in :mod:`.predictive_checks`.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from rankstats._util.renamed import renamed_parameters

#: Statistic groups, in the order of the table.
GROUPS = ("top1", "pairs", "kendall", "ties")


@renamed_parameters(prob="ci_prob")
@dataclass(frozen=True, eq=False, repr=False)
class PPCResult:
    """Posterior predictive check of a rank model (:func:`ppc`).

    Attributes
    ----------
    model, method : str
        The model (``"pl"``, ``"bt"``, ``"mallows"``) and how it was fitted.
    systems : tuple of str
    consensus : tuple of str
        Reference ranking of the Kendall statistics (the fit's ``order``), best first.
    n_rankings : int
        Rankings (PL, Mallows) or compared pairs (BT) in the observation pattern.
    draws : int
        Replicated data sets.
    seed : int or None
    threshold : float
        A statistic is missed when its two-sided p-value is below it.
    ci_prob : float
        Probability of the central intervals of the replicated statistics.
    statistics : pandas.DataFrame
        One row per statistic: ``group`` (``top1``, ``pairs``, ``kendall``, ``ties``),
        ``statistic`` (readable name), ``system_a``, ``system_b``, ``observed``, ``mean``,
        ``low``, ``high`` (of the replications), ``p_value`` (two-sided mid-p; NaN when the
        model cannot produce the statistic), ``missed``.
    replicated : numpy.ndarray, shape (draws, len(statistics))
        The statistic of every replicated data set, columns in the rows' order.
    undefined : dict
        Statistic group → why the model does not define it (Bradley–Terry: ``top1``,
        ``kendall``).
    notes : tuple of str
        How the replications were made (normal approximation, reused draws, dropped rankings,
        no tie mechanism).
    approximation : str or None
        For ``mle`` / ``map`` fits: the draws are those of the normal approximation at the
        optimum, not of a posterior.
    distance_bins, observed_distances, replicated_distances : numpy.ndarray or None
        Histogram of the per-ranking Kendall distance (divided by the ranking's number of pairs):
        bin edges, observed counts ``(bins,)``, replicated counts ``(draws, bins)``.
    """

    model: str
    method: str
    systems: tuple[str, ...]
    consensus: tuple[str, ...]
    n_rankings: int
    draws: int
    seed: int | None
    threshold: float
    ci_prob: float
    statistics: pd.DataFrame
    replicated: np.ndarray
    undefined: dict = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    approximation: str | None = None
    distance_bins: np.ndarray | None = None
    observed_distances: np.ndarray | None = None
    replicated_distances: np.ndarray | None = None

    def table(self, missed_only: bool = False) -> pd.DataFrame:
        """The statistics (a copy), optionally only those the model misses."""
        table = self.statistics.copy()
        return table[table["missed"]].reset_index(drop=True) if missed_only else table

    def missed(self) -> pd.DataFrame:
        """The statistics whose two-sided p-value is below :attr:`threshold`."""
        return self.table(missed_only=True)

    def summary(self) -> pd.DataFrame:
        """Per statistic group: how many statistics, how many missed, how many a correct model
        would miss by chance (``threshold × checked``; posterior predictive p-values are
        conservative, so usually fewer), and the missed ones by name."""
        rows = []
        for group in GROUPS:
            if group in self.undefined:
                rows.append(
                    {"group": group, "checked": 0, "missed": 0, "expected_by_chance": 0.0}
                    | {"which": "not defined for this model"}
                )
                continue
            part = self.statistics[self.statistics["group"] == group]
            checked = part[part["p_value"].notna()]
            if group == "ties" and checked.empty:
                observed = float(part["observed"].iloc[0]) if len(part) else 0.0
                rows.append(
                    {"group": group, "checked": 0, "missed": 0, "expected_by_chance": 0.0}
                    | {
                        "which": f"observed {observed:.1%} of compared pairs; the model "
                        "generates none (no tie mechanism)"
                    }
                )
                continue
            missed = part[part["missed"]]
            which = ", ".join(missed["statistic"].head(5))
            if len(missed) > 5:
                which += f", … {len(missed) - 5} more"
            rows.append(
                {
                    "group": group,
                    "checked": len(checked),
                    "missed": len(missed),
                    "expected_by_chance": round(self.threshold * len(checked), 2),
                    "which": which,
                }
            )
        return pd.DataFrame(rows).set_index("group")

    def plot(self, statistic: str):
        """The figure of one statistic group: ``"top1"``, ``"pairs"``, ``"kendall"``,
        ``"ties"`` (observed against the replicated intervals; missed ones in red)."""
        # Imported here so that a check without figures does not import matplotlib.
        from rankstats.models import ppc_plots

        return ppc_plots.plot(self, statistic)

    def plots(self) -> dict[str, Any]:
        """Every figure the model defines, by statistic group."""
        return {g: self.plot(g) for g in GROUPS if g not in self.undefined}

    def __repr__(self) -> str:
        what = "rankings" if self.model != "bt" else "compared pairs"
        head = (
            f"PPCResult(model={self.model!r}, method={self.method!r}, {self.draws} replicated "
            f"data sets of {self.n_rankings} {what}, threshold {self.threshold:g})"
        )
        lines = [head]
        if self.approximation:
            lines.append(f"  draws: {self.approximation}")
        summary = self.summary()
        for group, row in summary.iterrows():
            if group in self.undefined:
                lines.append(f"  {group:<8} not defined: {self.undefined[group]}")
                continue
            if row["checked"] == 0:
                lines.append(f"  {group:<8} {row['which']}")
                continue
            text = f"  {group:<8} {row['missed']:>3} of {row['checked']:>3} missed"
            text += f" (≈{row['expected_by_chance']:g} by chance)"
            if row["which"]:
                text += f": {row['which']}"
            lines.append(text)
        lines.extend(f"  note: {n}" for n in self.notes)
        return "\n".join(lines)


def p_values(observed: np.ndarray, replicated: np.ndarray) -> np.ndarray:
    """Two-sided mid-p posterior predictive p-values, ``2 min(p, 1 − p)`` with
    ``p = P(T_rep > T_obs) + ½ P(T_rep = T_obs)``; NaN replications are ignored."""
    observed = np.asarray(observed, dtype=np.float64)
    tol = 1e-9 * np.maximum(1.0, np.abs(observed))
    valid = ~np.isnan(replicated)
    diff = replicated - observed
    greater = ((diff > tol) & valid).sum(axis=0)
    equal = ((np.abs(diff) <= tol) & valid).sum(axis=0)
    count = valid.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = (greater + 0.5 * equal) / count
    return np.where(count > 0, 2 * np.minimum(p, 1 - p), np.nan)


def _summarise(values: np.ndarray, ci_prob: float) -> tuple[np.ndarray, ...]:
    q = [(1 - ci_prob) / 2, (1 + ci_prob) / 2]
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN column: never compared
        mean = np.nanmean(values, axis=0)
        low, high = np.nanquantile(values, q, axis=0)
    return mean, low, high


def statistic_row(
    group: str, name: str, a: str | None, b: str | None, value: float
) -> dict[str, Any]:
    """One row of the statistics table: its group, readable name, systems and observed value."""
    return {"group": group, "statistic": name, "system_a": a, "system_b": b, "observed": value}


def pair_rows(rows, columns, order, index, wins_obs, compared_obs, rep) -> None:
    """One row per pair compared in the data, ``a`` before ``b`` in ``order``."""
    n = len(order)
    pos = np.array([index[s] for s in order])
    ia, ib = np.triu_indices(n, k=1)  # positions in ``order``: ia before ib
    keep = compared_obs[pos[ia], pos[ib]] > 0
    ia, ib = ia[keep], ib[keep]
    a, b = pos[ia], pos[ib]
    names = np.array(order, dtype=object)
    with np.errstate(invalid="ignore", divide="ignore"):
        values = rep["wins"][:, a, b] / np.where(
            rep["compared"][:, a, b] > 0, rep["compared"][:, a, b], np.nan
        )
    observed = wins_obs[a, b] / compared_obs[a, b]
    for k in range(len(a)):
        sa, sb = names[ia[k]], names[ib[k]]
        rows.append(statistic_row("pairs", f"{sa} ≻ {sb}", sa, sb, observed[k]))
        columns.append(values[:, k])


@dataclass(frozen=True)
class CheckSettings:
    """How a check was run, as its :class:`PPCResult` records it: the model and how it was
    fitted, the replications and their seed, the miss threshold, the interval mass, and the
    approximation the draws are (None: a posterior sample)."""

    model: str
    method: str
    draws: int
    seed: int | None
    threshold: float
    ci_prob: float
    approximation: str | None = None


def build_result(
    settings: CheckSettings,
    *,
    systems: Sequence[str],
    consensus: Sequence[str],
    n_rankings: int,
    rows: list[dict[str, Any]],
    columns: list[np.ndarray],
    notes: Sequence[str],
    undefined: Mapping[str, str] | None = None,
    no_ties: bool = True,
    distances: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
) -> PPCResult:
    """The :class:`PPCResult` of observed statistics ``rows`` (:func:`statistic_row`) and their
    replications ``columns`` (one array of ``draws`` values per row): the central ``ci_prob``
    intervals, the two-sided mid-p values (:func:`p_values`; NaN for the tie share when the
    model generates no ties, ``no_ties``) and the misses at ``threshold``.  ``distances``:
    bin edges, observed and replicated counts of the per-ranking Kendall distance."""
    draws, ci_prob, threshold = settings.draws, settings.ci_prob, settings.threshold
    table = pd.DataFrame(rows)
    replicated = np.column_stack(columns) if columns else np.empty((draws, 0))
    mean, low, high = _summarise(replicated, ci_prob)
    p = p_values(table["observed"].to_numpy(np.float64), replicated)
    is_ties = (table["group"] == "ties").to_numpy()
    if no_ties:
        p = np.where(is_ties, np.nan, p)
    table["mean"], table["low"], table["high"] = mean, low, high
    table["p_value"] = p
    table["missed"] = np.nan_to_num(p, nan=1.0) < threshold
    bins, obs_hist, rep_hist = distances if distances is not None else (None, None, None)
    return PPCResult(
        model=settings.model,
        method=settings.method,
        systems=tuple(systems),
        consensus=tuple(consensus),
        n_rankings=n_rankings,
        draws=draws,
        seed=settings.seed,
        threshold=threshold,
        ci_prob=ci_prob,
        statistics=table,
        replicated=replicated,
        undefined=dict(undefined or {}),
        notes=tuple(dict.fromkeys(notes)),
        approximation=settings.approximation,
        distance_bins=bins,
        observed_distances=obs_hist,
        replicated_distances=rep_hist,
    )
