r"""Hoeffding confidence intervals on pairwise probabilities.

For a pair ``(a, b)`` compared in ``z`` rankings, the estimate :math:`\hat p` of
``P(a ranked above b)`` is a mean of ``z`` terms in ``[0, 1]``.  Hoeffding's inequality
(Hoeffding, 1963) gives the two-sided interval

.. math::  \hat p \pm \varepsilon, \qquad \varepsilon = \sqrt{\log(2/\delta) / (2 z)},

with coverage at least ``1 − δ`` when the rankings are independent.  Himmi et al. (2023, Sec. 3.3)
print the one-sided width :math:`\sqrt{-\log\delta / (2 z)}`; ``form="paper"`` reproduces it (its
two-sided coverage is only ``1 − 2δ``).  A difference is *significant* when the interval excludes
½; the matching p-value is :math:`\min(1, 2\exp(-2 z (\hat p - \tfrac12)^2))` (``paper``: without
the 2), and multiplicity over the ``N (N − 1) / 2`` pairs is handled by Bonferroni or Holm (1979)
on these p-values.

Two estimands:

``imputed`` (the paper's)
    :math:`\hat p = \text{wins}[a, b] / L`, the mean imputed probability over all ``L``
    rankings, with ``z`` = the number of rankings that evaluated both (Z).
``observed``
    :math:`\hat p = \text{wins\_observed}[a, b] / Z`, only rankings where both were evaluated
    (ties count ½), ``z = Z``: the usual two-sample-free estimate of ``P(a beats b)``.

:func:`hoeffding_test` returns a :class:`HoeffdingResult` (the table and every parameter as named
fields, in the style of ``scipy.stats``); :func:`hoeffding` returns its table, a DataFrame whose
``attrs`` repeat the parameters (for backwards compatibility).  The report,
:func:`rankstats.compare` and the heatmap take the result and read its fields.

References
----------
Hoeffding, W. (1963). Probability inequalities for sums of bounded random variables. *Journal of
the American Statistical Association* 58(301), 13–30.

Himmi, A., Irurozki, E., Noiry, N., Clémençon, S. and Colombo, P. (2023). Towards more robust NLP
system evaluation: handling missing scores in benchmarks. arXiv:2305.10284.

Holm, S. (1979). A simple sequentially rejective multiple test procedure. *Scandinavian Journal of
Statistics* 6(2), 65–70.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from rankstats._util.arguments import probability
from rankstats._util.resources import hoeffding_bytes, require_memory
from rankstats._util.text import shorten, terminal
from rankstats.aggregation.choices import CORRECTIONS, ESTIMANDS, FORMS
from rankstats.core.pair_probabilities import Pairwise


def holm_adjust(p_values: np.ndarray) -> np.ndarray:
    """Holm (1979) step-down adjusted p-values: ``max_{k ≤ i} min(1, (m − k + 1) p_(k))``.

    Along the last axis: a batch ``(..., m)`` of families (the power simulations) is adjusted
    family by family in one call.
    """
    p = np.asarray(p_values, dtype=np.float64)
    m = p.shape[-1] if p.ndim else 0
    if m == 0:
        return p.copy()
    order = np.argsort(p, axis=-1, kind="stable")
    stepped = np.minimum(1.0, (m - np.arange(m)) * np.take_along_axis(p, order, axis=-1))
    adjusted = np.empty_like(p)
    np.put_along_axis(adjusted, order, np.maximum.accumulate(stepped, axis=-1), axis=-1)
    return adjusted


PARAMETERS = (
    "delta",
    "correction",
    "form",
    "estimand",
    "n_rankings",
    "n_pairs",
    "interval_level",
    "order",
)
"""The parameters of a :class:`HoeffdingResult`, also written to the table's ``DataFrame.attrs``."""


def _log_term(level: float, form: str) -> float:
    """``log(2/level)`` (two-sided) or ``−log(level)`` (paper): the half-width is
    ``√(log_term / 2z)``."""
    return float(np.log(2.0 / level)) if form == "two-sided" else float(-np.log(level))


@dataclass(frozen=True, eq=False, repr=False)
class HoeffdingResult:
    r"""Hoeffding intervals on every pairwise probability: the result of :func:`hoeffding_test`.

    For a pair compared in ``z`` rankings the interval is :math:`\hat p \pm \varepsilon` with
    :math:`\varepsilon = \sqrt{\log(2/\alpha) / (2z)}` (Hoeffding, 1963), where ``α`` is
    :attr:`interval_level` (``δ``, or ``δ/m`` after a multiplicity correction over the ``m``
    pairs); ``form="paper"`` uses the one-sided :math:`\sqrt{-\log\alpha / (2z)}` printed by
    Himmi et al. (2023, Sec. 3.3).

    Attributes
    ----------
    table : pandas.DataFrame
        One row per ordered pair, as :func:`hoeffding` returns it: ``system_a``, ``system_b``,
        ``estimate``, ``low``, ``high``, ``compared`` (z), ``half_width``, ``p_value``,
        ``p_adjusted``, ``significant``, ``winner``, ``distance``.
    delta : float
        Error level of each interval (``correction="none"``) or of the family.
    correction : {"holm", "bonferroni", "none"}
        Multiplicity correction.
    form : {"two-sided", "paper"}
        Half-width formula.
    estimand : {"imputed", "observed"}
        What the estimate estimates (see :mod:`rankstats.aggregation.hoeffding_intervals`).
    n_pairs : int
        Number of unordered pairs ``m = N (N − 1) / 2``.
    interval_level : float
        The level ``α`` of every interval: ``δ``, or ``δ / m`` (Bonferroni and Holm).
    order : tuple of str
        The systems in the order of :attr:`table` (best first when an aggregate order was given).
    n_rankings : int
        Number of rankings ``L`` behind the statistics.

    Examples
    --------
    >>> import rankstats as rs
    >>> rk = rs.Rankings.from_orderings([["a", "b", "c"]] * 40 + [["b", "a", "c"]] * 20)
    >>> pw = rs.pairwise(rk)
    >>> res = rs.hoeffding_test(pw, delta=0.05, order=["a", "b", "c"])
    >>> res.n_significant, res.n_pairs  # a vs b (40 to 20) is not significant
    (2, 3)
    >>> res.rank_range()
      system  rank_low  rank_high
    0      a         1          2
    1      b         1          2
    2      c         3          3
    >>> res.min_compared_for_significance()
    10
    """

    table: pd.DataFrame
    delta: float
    correction: str
    form: str
    estimand: str
    n_pairs: int
    interval_level: float
    order: tuple[str, ...]
    n_rankings: int

    @classmethod
    def from_table(cls, ci: pd.DataFrame) -> HoeffdingResult:
        """The result behind a :func:`hoeffding` table, from the parameters in its ``attrs``.

        Raises
        ------
        ValueError
            The table has lost its ``attrs`` (pandas drops them in ``merge``, ``concat`` and
            when a table is read back from CSV): keep the :class:`HoeffdingResult` instead.
        """
        missing = [key for key in PARAMETERS if key not in ci.attrs]
        if missing:
            raise ValueError(
                f"this table has no {', '.join(missing)} in its DataFrame.attrs (not a "
                "rs.hoeffding table, or pandas dropped them): use the result of rs.hoeffding_test"
            )
        values = {key: ci.attrs[key] for key in PARAMETERS}
        values["order"] = tuple(values["order"])
        return cls(table=ci, **values)

    @property
    def parameters(self) -> dict[str, Any]:
        """Every field but :attr:`table`, as the table's ``attrs`` hold them (``order`` a list)."""
        values = {key: getattr(self, key) for key in PARAMETERS}
        values["order"] = list(self.order)
        return values

    @property
    def log_term(self) -> float:
        """``log(2/α)`` (two-sided) or ``−log α`` (paper): half-width ``√(log_term / 2z)``."""
        return _log_term(self.interval_level, self.form)

    @property
    def n_significant(self) -> int:
        """Number of unordered pairs that differ significantly."""
        return int(self.table["significant"].sum() // 2)

    def marks(self) -> pd.DataFrame:
        """Every per-system mark in :attr:`order`: :func:`significance_marks` of this test."""
        return significance_marks(self.table, self.order)

    def rank_range(self) -> pd.DataFrame:
        """``system``, ``rank_low``, ``rank_high`` in :attr:`order`.

        The rank range of a system is ``[1 + b, N − a]``, where ``a`` (``b``) is the number of
        systems it is significantly above (below): the ranks it can take in an order that
        contradicts no significant difference (from :func:`significance_marks`).
        """
        return self.marks()[["system", "rank_low", "rank_high"]]

    def matrix(self, value: str = "distance") -> pd.DataFrame:
        """Square matrix of one column of :attr:`table` (rows ``system_a``, columns ``system_b``)
        in :attr:`order`, diagonal NaN; ``"distance"`` is the signed distance of each interval
        from ½ (the colour of the heatmaps of Himmi et al. 2023, Fig. 6)."""
        return _square(self.table, self.order, value)

    def significant_matrix(self) -> pd.DataFrame:
        """Boolean square matrix in :attr:`order`: True where row and column differ
        significantly (symmetric; the diagonal is False)."""
        matrix = self.matrix("significant")
        values = matrix.to_numpy(dtype=np.float64, na_value=0.0) > 0
        return pd.DataFrame(values, index=matrix.index, columns=matrix.columns)

    def min_compared_for_significance(self) -> int:
        r"""The fewest rankings ``z`` in which even a unanimous pair can be significant.

        A pair with estimate 1 (or 0) is significant iff its interval excludes ½, i.e.
        :math:`\varepsilon < \tfrac12`, i.e. :math:`2 z (\tfrac12)^2 > \text{log\_term}`
        (the same bound for Holm's first, most significant, step as for Bonferroni).  When no
        pair is compared in that many rankings, no pair can be significant at this level.
        """
        return math.floor(self.log_term / (2 * 0.25)) + 1

    def __repr__(self) -> str:
        n = len(self.order)
        correction = "no" if self.correction == "none" else self.correction
        lines = [
            f"HoeffdingResult({n} systems, {self.n_pairs} pairs, {self.n_significant} significant)",
            f"  δ = {self.delta:g}, {correction} correction, intervals at level "
            f"{self.interval_level:.4g}, {self.form}, {self.estimand} estimand, "
            f"{self.n_rankings} rankings",
            "  rank range  system",
        ]
        shown = self.rank_range().head(10)
        for system, low, high in shown.itertuples(index=False):
            lines.append(f"  {f'{low}–{high}':<10}  {terminal(shorten(system, 40))}")
        if n > len(shown):
            lines.append(f"  ... {n - len(shown)} more")
        return "\n".join(lines)


def hoeffding_arrays(
    wins: np.ndarray,
    wins_observed: np.ndarray,
    compared: np.ndarray,
    n_rankings: np.ndarray | float,
    delta: float = 0.05,
    correction: str = "holm",
    form: str = "two-sided",
    estimand: str = "imputed",
) -> dict[str, np.ndarray]:
    r"""The intervals and decisions of :func:`hoeffding_test` as ``(..., N, N)`` matrices.

    The one computation behind :func:`hoeffding_test` (one benchmark) and the power simulations
    (:mod:`rankstats.planning`, a leading axis of simulated benchmarks): entry ``[..., a, b]`` is
    the pair ``(a, b)`` — estimate :math:`\hat p` of ``P(a above b)``, half-width
    :math:`\sqrt{\text{log\_term} / 2z}`, interval, p-value
    :math:`\min(1, c\,e^{-2z(\hat p - 1/2)^2})`, the adjusted p-value (Holm or Bonferroni over
    the ``N (N − 1) / 2`` unordered pairs of each benchmark) and ``significant``
    (adjusted p-value < δ). The diagonal is meaningless. Arguments are checked by
    :func:`hoeffding_test`.

    Parameters
    ----------
    wins, wins_observed, compared : ndarray, shape (..., N, N)
        The sums of :class:`~rankstats.core.pair_probabilities.PairSums`.
    n_rankings : float or ndarray, shape (...)
        Rankings summed (``L``), per benchmark.
    delta, correction, form, estimand
        As in :func:`hoeffding_test`.

    Returns
    -------
    dict of ndarray
        ``estimate``, ``half_width``, ``low``, ``high``, ``p_value``, ``p_adjusted``,
        ``significant``, each ``(..., N, N)``.
    """
    z = np.asarray(compared, dtype=np.float64)
    n = z.shape[-1]
    if estimand == "imputed":
        rankings = np.maximum(np.asarray(n_rankings, dtype=np.float64), 1.0)
        estimate = wins / rankings[..., None, None]
    else:
        with np.errstate(invalid="ignore", divide="ignore"):
            estimate = np.where(z > 0, wins_observed / np.maximum(z, 1), 0.5)
    n_pairs = n * (n - 1) // 2
    level = delta / n_pairs if correction != "none" and n_pairs else delta
    log_term = _log_term(level, form)
    with np.errstate(divide="ignore"):
        half = np.where(z > 0, np.sqrt(log_term / (2.0 * np.maximum(z, 1))), np.inf)
    low = np.clip(estimate - half, 0.0, 1.0)
    high = np.clip(estimate + half, 0.0, 1.0)
    factor = 2.0 if form == "two-sided" else 1.0
    p_value = np.minimum(1.0, factor * np.exp(-2.0 * z * (estimate - 0.5) ** 2))
    if correction == "none":
        p_adjusted = p_value
    else:
        # Adjust over unordered pairs; (a, b) and (b, a) share one p-value.
        ia, ib = np.triu_indices(n, 1)
        upper = p_value[..., ia, ib]
        adjusted = holm_adjust(upper) if correction == "holm" else np.minimum(1.0, n_pairs * upper)
        p_adjusted = np.zeros_like(p_value)
        p_adjusted[..., ia, ib] = adjusted
        p_adjusted[..., ib, ia] = adjusted
    return {
        "estimate": estimate,
        "half_width": half,
        "low": low,
        "high": high,
        "p_value": p_value,
        "p_adjusted": p_adjusted,
        "significant": p_adjusted < delta,
    }


def hoeffding_test(
    pw: Pairwise,
    delta: float = 0.05,
    correction: str = "holm",
    form: str = "two-sided",
    estimand: str = "imputed",
    order: Sequence[str] | None = None,
) -> HoeffdingResult:
    r"""Hoeffding confidence interval on every pairwise probability, as a result object.

    For the pair ``(a, b)`` compared in ``z`` rankings, :math:`\hat p` (see ``estimand``) is a
    mean of ``z`` terms in ``[0, 1]``, and Hoeffding's inequality (Hoeffding, 1963) gives

    .. math::  P(|\hat p - p| \ge \varepsilon) \le 2 \exp(-2 z \varepsilon^2), \qquad
               \varepsilon = \sqrt{\log(2/\alpha) / (2 z)},

    an interval of coverage at least ``1 − α`` for independent rankings, with ``α = δ`` or
    ``δ / m`` over the ``m = N (N − 1) / 2`` pairs (Bonferroni; Holm, 1979, sharpens only the
    decisions, through the adjusted p-values :math:`\min(1, 2\exp(-2z(\hat p - \tfrac12)^2))`).
    ``form="paper"`` uses the one-sided :math:`\sqrt{-\log\alpha / (2z)}` of Himmi et al.
    (2023, Sec. 3.3), whose two-sided coverage is only ``1 − 2α``.

    Parameters
    ----------
    pw : Pairwise
        Pairwise statistics (:func:`rankstats.pairwise`).
    delta : float
        Error level: each interval (``correction="none"``) or the family (Bonferroni / Holm)
        covers with probability at least ``1 − δ``.
    correction : {"holm", "bonferroni", "none"}
        Multiplicity correction over the ``N (N − 1) / 2`` unordered pairs.  Intervals are at
        level ``δ`` (none) or ``δ / m`` (Bonferroni and Holm: Holm only sharpens the decisions,
        through the adjusted p-values, not the intervals).
    form : {"two-sided", "paper"}
        Half-width ``√(log(2/δ) / 2z)`` or the paper's ``√(−log δ / 2z)``.
    estimand : {"imputed", "observed"}
        See :mod:`rankstats.aggregation.hoeffding_intervals`.
    order : sequence of str, optional
        Order of the systems in the output (e.g. an aggregate ranking, best first).

    Returns
    -------
    HoeffdingResult
        ``.table`` (what :func:`hoeffding` returns) and the parameters as fields, with
        ``.rank_range()``, ``.marks()``, ``.matrix()``, ``.significant_matrix()`` and
        ``.min_compared_for_significance()``.

    Raises
    ------
    ResourceError
        The table (``N (N − 1)`` rows, about ``240 N²`` bytes at the peak) would not fit in the
        available memory; ``RANKSTATS_IGNORE_MEMORY=1`` skips the check.

    Examples
    --------
    >>> import rankstats as rs
    >>> pw = rs.pairwise(rs.Rankings.from_orderings([["a", "b"]] * 30))
    >>> res = rs.hoeffding_test(pw, delta=0.05)
    >>> res
    HoeffdingResult(2 systems, 1 pairs, 1 significant)
      δ = 0.05, holm correction, intervals at level 0.05, two-sided, imputed estimand, 30 rankings
      rank range  system
      1–1         a
      2–2         b
    >>> float(res.table.loc[0, "low"].round(3)), res.min_compared_for_significance()
    (0.752, 8)
    """
    probability("delta", delta)
    require_memory(hoeffding_bytes(pw.n_systems), "rs.hoeffding", n_systems=pw.n_systems)
    if correction not in CORRECTIONS:
        raise ValueError(f"correction must be one of {CORRECTIONS}, not {correction!r}")
    if form not in FORMS:
        raise ValueError(f"form must be one of {FORMS}, not {form!r}")
    if estimand not in ESTIMANDS:
        raise ValueError(f"estimand must be one of {ESTIMANDS}, not {estimand!r}")

    systems = list(pw.systems)
    index = {s: i for i, s in enumerate(systems)}
    if order is None:
        order = systems
    unknown = [s for s in order if s not in index]
    if unknown or len(order) != len(systems):
        raise ValueError("order must be a permutation of the systems")
    pos = np.array([index[s] for s in order])
    n = len(pos)
    a_idx, b_idx = np.nonzero(~np.eye(n, dtype=bool))
    a, b = pos[a_idx], pos[b_idx]

    n_pairs = n * (n - 1) // 2
    level = delta / n_pairs if correction != "none" and n_pairs else delta
    full = hoeffding_arrays(
        pw.wins, pw.wins_observed, pw.compared, pw.n_rankings, delta, correction, form, estimand
    )
    z = pw.compared[a, b]
    estimate, half, low, high, p_value, p_adjusted, significant = (
        full[key][a, b]
        for key in ("estimate", "half_width", "low", "high", "p_value", "p_adjusted", "significant")
    )
    above = significant & (estimate > 0.5)
    below = significant & (estimate < 0.5)
    names = np.array(systems, dtype=object)
    winner = np.where(above, names[a], np.where(below, names[b], None))
    distance = np.where(low > 0.5, low - 0.5, np.where(high < 0.5, high - 0.5, 0.0))
    distance = np.where(significant, distance, 0.0)

    out = pd.DataFrame(
        {
            "system_a": names[a],
            "system_b": names[b],
            "estimate": estimate,
            "low": low,
            "high": high,
            "compared": z.astype(np.int64),
            "half_width": half,
            "p_value": p_value,
            "p_adjusted": p_adjusted,
            "significant": significant,
            "winner": winner,
            "distance": distance,
        }
    )
    result = HoeffdingResult(
        table=out,
        delta=delta,
        correction=correction,
        form=form,
        estimand=estimand,
        n_pairs=n_pairs,
        interval_level=level,
        order=tuple(order),
        n_rankings=pw.n_rankings,
    )
    out.attrs.update(result.parameters)
    return result


def hoeffding(
    pw: Pairwise,
    delta: float = 0.05,
    correction: str = "holm",
    form: str = "two-sided",
    estimand: str = "imputed",
    order: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Hoeffding confidence interval on every pairwise probability, as a table.

    The table of :func:`hoeffding_test` (``hoeffding_test(...).table``); use
    :func:`hoeffding_test` for the parameters as named fields and the rank ranges.

    Parameters
    ----------
    pw, delta, correction, form, estimand, order
        As in :func:`hoeffding_test`.

    Returns
    -------
    pandas.DataFrame
        One row per ordered pair ``(system_a, system_b)``, ``a ≠ b``: ``estimate`` (of
        ``P(a above b)``), ``low``, ``high``, ``compared`` (z), ``half_width``, ``p_value``,
        ``p_adjusted``, ``significant`` (``p_adjusted < δ``, i.e. the interval excludes ½ when
        there is no correction), ``winner`` (``system_a``, ``system_b`` or ``None``),
        ``distance`` (signed distance of the interval from ½: ``low − ½`` if above,
        ``high − ½`` if below, 0 if it contains ½). ``DataFrame.attrs`` records the parameters
        (the fields of :class:`HoeffdingResult`; ``order`` as a list).

    Raises
    ------
    ResourceError
        The table would not fit in the available memory (see :func:`hoeffding_test`).

    Examples
    --------
    >>> import rankstats as rs
    >>> pw = rs.pairwise(rs.Rankings.from_orderings([["a", "b"]] * 30))
    >>> ci = rs.hoeffding(pw, delta=0.05)
    >>> ci[["system_a", "system_b", "estimate", "low", "high", "significant"]].round(3)
      system_a system_b  estimate    low   high  significant
    0        a        b       1.0  0.752  1.000         True
    1        b        a       0.0  0.000  0.248         True
    """
    return hoeffding_test(pw, delta, correction, form, estimand, order).table


def as_hoeffding_result(ci: HoeffdingResult | pd.DataFrame) -> HoeffdingResult:
    """``ci`` itself, or the :class:`HoeffdingResult` behind a :func:`hoeffding` table."""
    return ci if isinstance(ci, HoeffdingResult) else HoeffdingResult.from_table(ci)


def _square(ci: pd.DataFrame, order: Sequence[str], value: str) -> pd.DataFrame:
    matrix = ci.pivot(index="system_a", columns="system_b", values=value)
    return matrix.reindex(index=list(order), columns=list(order))


def significance_matrix(
    ci: HoeffdingResult | pd.DataFrame, value: str = "distance"
) -> pd.DataFrame:
    """Square matrix (rows = ``system_a``, columns = ``system_b``) of one column of a
    :func:`hoeffding` table, in the table's system order; the diagonal is NaN.

    ``value="distance"`` gives the signed distance of each interval from ½ (positive: the row
    system is significantly above the column system), the colour of the heatmaps of Himmi et al.
    (2023, Fig. 6).  ``ci`` may be a :class:`HoeffdingResult` (:meth:`HoeffdingResult.matrix`)
    or a table; a table without ``attrs`` keeps the order of its ``system_a`` column.
    """
    if isinstance(ci, HoeffdingResult):
        return ci.matrix(value)
    return _square(ci, ci.attrs.get("order") or list(pd.unique(ci["system_a"])), value)


def significance_marks(ci: pd.DataFrame, order: Sequence[str]) -> pd.DataFrame:
    """Every per-system mark of the outputs, derived from the ``winner`` column of one test.

    The CLI table, the report (HTML, LaTeX) and the JSON summary all take their marks from this
    function, so a mark can never claim more than the test did.

    Parameters
    ----------
    ci : pandas.DataFrame
        A :func:`hoeffding` table (one row per ordered pair).
    order : sequence of str
        The systems in the order of the output table (best first), e.g. a Borda order.

    Returns
    -------
    pandas.DataFrame
        In ``order``: ``system``; ``significantly_above`` / ``significantly_below`` (number of
        systems this one is significantly above / below); ``rank_low`` / ``rank_high`` (the rank
        range: ``1 + #below`` to ``N − #above``, the ranks it can take in an order that
        contradicts no significant difference); ``above_next``: True only when the pair
        (this system, the next one in ``order``) is significant **and** this system wins it.
        When ``order`` is not the pairwise majority (σ^2l can disagree with the pairwise test),
        a significant adjacent pair won by the lower system is *not* marked; ``below_next`` marks
        it instead, so the output can say that the order contradicts the test there.
    """
    order = list(order)
    winners = ci[ci["winner"].notna()]
    wins = winners[winners["winner"] == winners["system_a"]].groupby("system_a").size()
    losses = winners[winners["winner"] == winners["system_b"]].groupby("system_a").size()
    above = wins.reindex(order).fillna(0).astype(int).to_numpy()
    below = losses.reindex(order).fillna(0).astype(int).to_numpy()
    winner = ci.set_index(["system_a", "system_b"])["winner"]
    pairs = list(itertools.pairwise(order))
    next_winner = [winner.get((a, b)) for a, b in pairs]
    n = len(order)
    return pd.DataFrame(
        {
            "system": order,
            "significantly_above": above,
            "significantly_below": below,
            "rank_low": 1 + below,
            "rank_high": n - above,
            "above_next": [w == a for w, (a, _) in zip(next_winner, pairs, strict=True)] + [False],
            "below_next": [w == b for w, (_, b) in zip(next_winner, pairs, strict=True)] + [False],
        }
    )
