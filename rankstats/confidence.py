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
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
import pandas as pd

from rankstats._resources import hoeffding_bytes, require_memory
from rankstats.pairwise import Pairwise

CORRECTIONS = ("none", "bonferroni", "holm")
FORMS = ("two-sided", "paper")
ESTIMANDS = ("imputed", "observed")


def holm_adjust(p_values: np.ndarray) -> np.ndarray:
    """Holm (1979) step-down adjusted p-values: ``max_{k ≤ i} min(1, (m − k + 1) p_(k))``."""
    p = np.asarray(p_values, dtype=np.float64)
    m = p.size
    if m == 0:
        return p.copy()
    order = np.argsort(p, kind="stable")
    stepped = np.minimum(1.0, (m - np.arange(m)) * p[order])
    adjusted = np.empty(m)
    adjusted[order] = np.maximum.accumulate(stepped)
    return adjusted


def hoeffding(
    pw: Pairwise,
    delta: float = 0.05,
    correction: str = "holm",
    form: str = "two-sided",
    estimand: str = "imputed",
    order: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Hoeffding confidence interval on every pairwise probability.

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
        See the module docstring.
    order : sequence of str, optional
        Order of the systems in the output (e.g. an aggregate ranking, best first).

    Returns
    -------
    pandas.DataFrame
        One row per ordered pair ``(system_a, system_b)``, ``a ≠ b``: ``estimate`` (of
        ``P(a above b)``), ``low``, ``high``, ``compared`` (z), ``half_width``, ``p_value``,
        ``p_adjusted``, ``significant`` (``p_adjusted < δ``, i.e. the interval excludes ½ when
        there is no correction), ``winner`` (``system_a``, ``system_b`` or ``None``),
        ``distance`` (signed distance of the interval from ½: ``low − ½`` if above,
        ``high − ½`` if below, 0 if it contains ½). ``DataFrame.attrs`` records the parameters.

    Raises
    ------
    ResourceError
        The table (``N (N − 1)`` rows, about ``240 N²`` bytes at the peak) would not fit in the
        available memory; ``RANKSTATS_IGNORE_MEMORY=1`` skips the check.

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
    require_memory(hoeffding_bytes(pw.n_systems), "rs.hoeffding", n_systems=pw.n_systems)
    if not 0 < delta < 1:
        raise ValueError(f"delta must be in (0, 1), got {delta}")
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

    z = pw.compared[a, b]
    if estimand == "imputed":
        estimate = pw.wins[a, b] / max(pw.n_rankings, 1)
    else:
        with np.errstate(invalid="ignore", divide="ignore"):
            estimate = np.where(z > 0, pw.wins_observed[a, b] / np.maximum(z, 1), 0.5)

    n_pairs = n * (n - 1) // 2
    level = delta / n_pairs if correction != "none" and n_pairs else delta
    log_term = np.log(2.0 / level) if form == "two-sided" else -np.log(level)
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
        upper = a_idx < b_idx
        adj_upper = (
            holm_adjust(p_value[upper])
            if correction == "holm"
            else np.minimum(1.0, n_pairs * p_value[upper])
        )
        lookup = np.zeros((n, n))
        lookup[a_idx[upper], b_idx[upper]] = adj_upper
        lookup = lookup + lookup.T
        p_adjusted = lookup[a_idx, b_idx]
    significant = p_adjusted < delta
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
    out.attrs.update(
        {
            "delta": delta,
            "correction": correction,
            "form": form,
            "estimand": estimand,
            "n_rankings": pw.n_rankings,
            "n_pairs": n_pairs,
            "interval_level": level,
            "order": list(order),
        }
    )
    return out


def significance_matrix(ci: pd.DataFrame, value: str = "distance") -> pd.DataFrame:
    """Square matrix (rows = ``system_a``, columns = ``system_b``) of one column of a
    :func:`hoeffding` table, in the table's system order; the diagonal is NaN.

    ``value="distance"`` gives the signed distance of each interval from ½ (positive: the row
    system is significantly above the column system), the colour of the heatmaps of Himmi et al.
    (2023, Fig. 6).
    """
    order = ci.attrs.get("order") or list(pd.unique(ci["system_a"]))
    matrix = ci.pivot(index="system_a", columns="system_b", values=value)
    return matrix.reindex(index=order, columns=order)


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
