r"""Repeated-measures ANOVA and Tukey's HSD on a complete blocks × systems table of scores.

The parametric counterparts of Friedman's test and its post-hoc tests
(:mod:`rankstats.significance.friedman_test`,
:mod:`rankstats.significance.posthoc_tests`), on the same complete table
(:mod:`rankstats.significance.scored_blocks`): ``N`` blocks, ``k`` systems, scores
:math:`x_{ij}` oriented so that higher is better, block means :math:`\bar x_{i\cdot}`, system
means :math:`\bar x_{\cdot j}` and grand mean :math:`\bar x`.

**One-way repeated-measures ANOVA** (the blocks are the "subjects", the systems the within
factor; Maxwell and Delaney, 2004, ch. 11):

.. math::

   SS_{\text{systems}} = N \sum_j (\bar x_{\cdot j} - \bar x)^2, \qquad
   SS_{\text{blocks}} = k \sum_i (\bar x_{i\cdot} - \bar x)^2, \qquad
   SS_{\text{error}} = \sum_{ij} (x_{ij} - \bar x_{i\cdot} - \bar x_{\cdot j} + \bar x)^2,

   F = \frac{SS_{\text{systems}} / (k - 1)}{SS_{\text{error}} / ((k - 1)(N - 1))}

against an ``F`` distribution on ``k − 1`` and ``(k − 1)(N − 1)`` degrees of freedom (the test
``statsmodels.stats.anova.AnovaRM`` computes, and autorank uses).  It assumes normal errors and
*sphericity* (equal variances of all pairwise differences); the Greenhouse–Geisser
:math:`\hat\varepsilon = (\operatorname{tr} \tilde S)^2 / ((k - 1) \operatorname{tr} \tilde S^2)`
of the double-centred covariance matrix :math:`\tilde S` of the systems is reported, with the
p-value on :math:`\hat\varepsilon (k - 1)` and :math:`\hat\varepsilon (k - 1)(N - 1)` degrees of
freedom (Greenhouse and Geisser, 1959).

**Tukey's honestly significant difference** (Tukey, 1949/1953; Kramer, 1956): every pair of
systems by the studentized range of ``k`` means,

.. math::  q_{ab} = \frac{|\bar x_{\cdot a} - \bar x_{\cdot b}|}{\sqrt{MS / N}}, \qquad
           p_{ab} = P(Q_{k, \nu} \ge q_{ab}),

single-step family-wise (``p_adjusted = p_value``), significant when the means differ by more than
:math:`HSD = q_{1-\alpha; k, \nu} \sqrt{MS / N}`.  Two error terms:

``error="repeated"`` (default)
    :math:`MS = SS_{\text{error}} / \nu`, :math:`\nu = (k - 1)(N - 1)`: the error term of the
    repeated-measures ANOVA above (block effects removed, as the design is paired);
``error="independent"``
    :math:`MS = \sum_{ij} (x_{ij} - \bar x_{\cdot j})^2 / \nu`, :math:`\nu = k (N - 1)`: the
    one-way ANOVA of ``k`` independent groups, ignoring the blocks.  This is what
    ``scipy.stats.tukey_hsd`` and ``statsmodels``' ``MultiComparison.tukeyhsd`` compute (and so
    what autorank reports after its repeated-measures ANOVA).  It keeps the block-to-block
    variance in the error and is conservative for paired data.

References
----------
Greenhouse, S. W. and Geisser, S. (1959). On methods in the analysis of profile data.
*Psychometrika* 24(2), 95–112.

Kramer, C. Y. (1956). Extension of multiple range tests to group means with unequal numbers of
replications. *Biometrics* 12(3), 307–310.

Maxwell, S. E. and Delaney, H. D. (2004). *Designing Experiments and Analyzing Data*, 2nd ed.
Lawrence Erlbaum.

Tukey, J. W. (1953). *The problem of multiple comparisons*. Unpublished manuscript, Princeton
University (reprinted in *The Collected Works of John W. Tukey* VIII, 1994).

Herbold, S. (2020). Autorank: a Python package for automated ranking of classifiers. *Journal of
Open Source Software* 5(48), 2173.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from rankstats._util.arguments import probability
from rankstats._util.renamed import renamed_parameters
from rankstats._util.text import shorten, terminal
from rankstats.core.rankings import check_level
from rankstats.core.scores import Scores
from rankstats.significance.blocks import Blocks
from rankstats.significance.effect_sizes import EFFECT_SIZES, effect_sizes_alongside
from rankstats.significance.groups import consecutive_groups
from rankstats.significance.posthoc_result import PosthocResult
from rankstats.significance.scored_blocks import _blocks_word, _check_blocks, score_blocks

ERRORS = ("repeated", "independent")


def anova_sums(values: np.ndarray) -> dict[str, float]:
    r"""Sums of squares of the one-way repeated-measures ANOVA of an ``(N, k)`` score matrix:
    ``{"systems", "blocks", "error", "total"}`` (see :mod:`rankstats.significance.parametric`).

    :math:`SS_{\text{error}}` is summed from the double-centred residuals, not as a difference of
    large sums, so it stays accurate when the systems differ little.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[1.0, 2.0, 4.0], [2.0, 2.0, 5.0], [3.0, 5.0, 6.0]])
    >>> {k: round(v, 4) for k, v in anova_sums(x).items()}
    {'systems': 14.0, 'blocks': 8.6667, 'error': 1.3333, 'total': 24.0}
    """
    x = np.asarray(values, dtype=np.float64)
    n, k = x.shape
    grand = x.mean()
    col = x.mean(axis=0)
    row = x.mean(axis=1)
    residual = x - row[:, None] - col[None, :] + grand
    return {
        "systems": float(n * np.sum((col - grand) ** 2)),
        "blocks": float(k * np.sum((row - grand) ** 2)),
        "error": float(np.sum(residual**2)),
        "total": float(np.sum((x - grand) ** 2)),
    }


def greenhouse_geisser(values: np.ndarray) -> float:
    r"""Greenhouse–Geisser :math:`\hat\varepsilon \in [1/(k - 1), 1]` of an ``(N, k)`` score
    matrix: :math:`(\operatorname{tr} \tilde S)^2 / ((k - 1) \operatorname{tr} \tilde S^2)`,
    :math:`\tilde S` the covariance matrix of the systems centred on both sides (1 under
    sphericity; NaN when every difference is constant)."""
    x = np.asarray(values, dtype=np.float64)
    n, k = x.shape
    centred = x - x.mean(axis=0)
    cov = centred.T @ centred / (n - 1)
    dc = cov - cov.mean(axis=0)[None, :] - cov.mean(axis=1)[:, None] + cov.mean()
    trace = float(np.trace(dc))
    square = float(np.sum(dc * dc))  # tr(S̃²) of a symmetric matrix
    if square <= 0.0:
        return float("nan")
    return min(1.0, trace**2 / ((k - 1) * square))


@dataclass(frozen=True, eq=False, repr=False)
class AnovaResult:
    r"""One-way repeated-measures ANOVA of the systems: the result of
    :func:`repeated_measures_anova`.

    Attributes
    ----------
    statistic : float
        ``F`` = :math:`MS_{\text{systems}} / MS_{\text{error}}` (``inf`` when the error is zero and
        the systems differ; NaN when both are zero).
    p_value : float
        :math:`P(F_{k-1, (k-1)(N-1)} \ge F)` (no sphericity correction: as ``AnovaRM``).
    df : tuple of int
        ``(k − 1, (k − 1)(N − 1))``.
    sum_squares : dict
        ``systems``, ``blocks``, ``error``, ``total`` (see :func:`anova_sums`).
    mse : float
        :math:`MS_{\text{error}} = SS_{\text{error}} / ((k − 1)(N − 1))`.
    eta_squared : float
        Partial :math:`\eta^2 = SS_{\text{systems}} / (SS_{\text{systems}} + SS_{\text{error}})`.
    epsilon : float
        Greenhouse–Geisser :math:`\hat\varepsilon` (1 = sphericity).
    p_value_gg : float
        The p-value on the Greenhouse–Geisser corrected degrees of freedom.
    means : pandas.Series
        Mean score of every system, best (highest) first.
    n_blocks, n_systems : int
        ``N`` and ``k``.
    blocks : Blocks
        The table tested, with what was dropped to make it complete.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from rankstats.significance.parametric import repeated_measures_anova
    >>> rng = np.random.default_rng(0)
    >>> x = pd.DataFrame(rng.normal([0.0, 0.0, 1.0], 1.0, (30, 3)), columns=["a", "b", "c"])
    >>> res = repeated_measures_anova(x)
    >>> res.df, res.p_value < 0.001
    ((2, 58), True)
    """

    statistic: float
    p_value: float
    df: tuple[int, int]
    sum_squares: dict[str, float]
    mse: float
    eta_squared: float
    epsilon: float
    p_value_gg: float
    means: pd.Series
    n_blocks: int
    n_systems: int
    blocks: Blocks

    def table(self) -> pd.DataFrame:
        """The ANOVA table: one row per source (``systems``, ``blocks``, ``error``, ``total``)
        with ``sum_squares``, ``df``, ``mean_square``, ``F``, ``p_value``."""
        n, k = self.n_blocks, self.n_systems
        ss = self.sum_squares
        df = {"systems": k - 1, "blocks": n - 1, "error": (k - 1) * (n - 1), "total": n * k - 1}
        rows = []
        for source in ("systems", "blocks", "error", "total"):
            ms = ss[source] / df[source] if df[source] else float("nan")
            rows.append((source, ss[source], df[source], ms))
        out = pd.DataFrame(rows, columns=["source", "sum_squares", "df", "mean_square"])
        out["F"] = [self.statistic, np.nan, np.nan, np.nan]
        out["p_value"] = [self.p_value, np.nan, np.nan, np.nan]
        return out

    def __repr__(self) -> str:
        lines = [
            f"AnovaResult(repeated measures, {self.n_systems} systems, {self.n_blocks} "
            f"{_blocks_word(self.blocks)}, missing={self.blocks.missing!r})",
            f"  F = {self.statistic:.4g} (df {self.df[0]}, {self.df[1]}), p = {self.p_value:.4g}; "
            f"partial η² = {self.eta_squared:.3g}",
            f"  Greenhouse–Geisser ε = {self.epsilon:.3g}, corrected p = {self.p_value_gg:.4g}",
        ]
        dropped = self.blocks.dropped()
        lines.append(f"  {dropped}" if dropped else "  nothing dropped")
        lines.append("       mean  system")
        shown = self.means.head(10)
        for system, mean in shown.items():
            lines.append(f"  {mean:>9.4g}  {terminal(shorten(system, 40))}")
        if len(self.means) > len(shown):
            lines.append(f"  ... {len(self.means) - len(shown)} more")
        return "\n".join(lines)


@renamed_parameters(level="by")
def repeated_measures_anova(
    data: Scores | Blocks | pd.DataFrame,
    by: str | None = None,
    missing: str = "error",
    min_coverage: float = 0.0,
) -> AnovaResult:
    r"""One-way repeated-measures ANOVA: do the systems' mean scores differ?

    See :mod:`rankstats.significance.parametric` for the sums of squares.  The same ``F`` and p as
    ``statsmodels.stats.anova.AnovaRM(df, "score", "block", within=["system"])``.

    Parameters
    ----------
    data : Scores, Blocks or pandas.DataFrame
        Scores (ranked into complete blocks by :func:`~rankstats.significance.blocks.rank_blocks`),
        Blocks with scores, or a DataFrame of blocks (rows) × systems (columns), higher = better.
    by, missing, min_coverage
        As in :func:`rankstats.significance.friedman_test.friedman`.

    Returns
    -------
    AnovaResult

    Raises
    ------
    ValueError
        Incomplete blocks with ``missing="error"``, fewer than two blocks or systems.
    """
    check_level(by)
    blocks = score_blocks(data, by=by, missing=missing, min_coverage=min_coverage)
    x, n, k = _check_blocks(blocks, "the repeated-measures ANOVA")
    ss = anova_sums(x)
    df1, df2 = k - 1, (k - 1) * (n - 1)
    mse = ss["error"] / df2
    scale = max(ss["total"], 1e-300)
    with np.errstate(divide="ignore", invalid="ignore"):
        if ss["error"] <= 1e-24 * scale:  # the same differences in every block
            f = float("inf") if ss["systems"] > 1e-24 * scale else float("nan")
        else:
            f = (ss["systems"] / df1) / mse
        eta = ss["systems"] / (ss["systems"] + ss["error"])
    p = float(stats.f.sf(f, df1, df2)) if not np.isnan(f) else float("nan")
    eps = greenhouse_geisser(x) if k > 2 else 1.0
    if np.isfinite(eps) and not np.isnan(f):
        p_gg = float(stats.f.sf(f, eps * df1, eps * df2))
    else:
        p_gg = p
    means = pd.Series(x.mean(axis=0), index=list(blocks.systems), name="mean")
    return AnovaResult(
        statistic=float(f),
        p_value=p,
        df=(df1, df2),
        sum_squares=ss,
        mse=float(mse),
        eta_squared=float(eta),
        epsilon=float(eps),
        p_value_gg=p_gg,
        means=means.sort_values(ascending=False, kind="stable"),
        n_blocks=n,
        n_systems=k,
        blocks=blocks,
    )


@renamed_parameters(adjust="correction")
@dataclass(frozen=True, eq=False, repr=False)
class TukeyResult(PosthocResult):
    r"""Tukey's HSD for every pair of systems: the result of :func:`tukey_hsd`.

    A :class:`~rankstats.significance.posthoc_result.PosthocResult` (``method="tukey"``,
    ``correction="single-step"``, the same :attr:`table` columns, :meth:`matrix`, :meth:`groups`,
    :meth:`plot`) whose comparisons are of **mean scores**, not mean ranks: in :attr:`table`
    ``system_a`` has the higher mean, ``statistic`` is the studentized range ``q``, and the columns
    ``mean_a``, ``mean_b``, ``mean_difference``, ``ci_low``, ``ci_high`` (the simultaneous ``1 − α``
    confidence interval of ``mean_a − mean_b``) are added; ``mean_rank_a`` / ``mean_rank_b`` are
    still the average ranks (``rank_difference`` may then be negative).  :meth:`groups` and
    :meth:`matrix` follow :attr:`means`.

    Attributes
    ----------
    means : pandas.Series
        Mean score of every system, highest first.
    honest_difference : float
        :math:`HSD = q_{1-\alpha; k, \nu} \sqrt{MS / N}`: two means differ significantly when
        they are further apart.
    error : str
        ``"repeated"`` (the ANOVA's error term) or ``"independent"`` (one-way, as scipy).
    df : int
        :math:`\nu`, the degrees of freedom of the error term.
    mse : float
        The error mean square :math:`MS`.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from rankstats.significance.parametric import tukey_hsd
    >>> rng = np.random.default_rng(0)
    >>> x = pd.DataFrame(rng.normal([0.0, 0.1, 2.0], 1.0, (40, 3)), columns=["a", "b", "c"])
    >>> tukey_hsd(x).groups()
    [('c',), ('b', 'a')]
    """

    means: pd.Series = None  # type: ignore[assignment]
    honest_difference: float = float("nan")
    error: str = "repeated"
    df: int = 0
    mse: float = float("nan")

    def matrix(self, value: str = "p_adjusted") -> pd.DataFrame:
        """Symmetric square matrix of one column of :attr:`table`, systems by mean (highest
        first; diagonal NaN, or False for ``"significant"``): the inherited matrix, in the order
        of :attr:`means` instead of the average ranks."""
        order = list(self.means.index)
        return super().matrix(value).loc[order, order]

    def groups(self) -> list[tuple[str, ...]]:
        """Maximal groups of systems, consecutive by mean score, in which no pair differs
        significantly (a system that differs from its neighbours is a group of its own)."""
        return consecutive_groups(list(self.means.index), self.matrix("significant").to_numpy())

    def plot(self, ax=None, width: int = 28):
        """Means with intervals of half-width ``HSD / 2``, best at the top: two systems differ
        significantly exactly when their intervals do not overlap (the figure of autorank's
        ``plot_stats`` for Tukey).  Names longer than ``width`` characters are drawn as unique
        abbreviations (:func:`rankstats.plotting.names.labels`; the title then says so, and
        ``rs.plotting.name_key(result.means.index, width)`` is the key).  Returns the matplotlib
        ``Axes``."""
        import matplotlib.pyplot as plt

        from rankstats.plotting.names import labels, shortened_note

        k = len(self.means)
        if ax is None:
            _, ax = plt.subplots(figsize=(6.5, 0.8 + 0.28 * k))
        y = np.arange(k)
        half = self.honest_difference / 2.0
        means = self.means.to_numpy()
        ax.hlines(y, means - half, means + half, color="C0", lw=4, label="mean ± HSD/2")
        ax.plot(means, y, "o", color="k", ms=4)
        ax.set_yticks(y)
        ax.set_yticklabels(labels(self.means.index, width))
        ax.set_ylim(k - 0.5, -0.5)
        ax.set_xlabel("mean score (higher = better)")
        note = shortened_note(self.means.index, width)
        ax.set_title(
            f"Tukey HSD ({self.error} error), α = {self.alpha:g}" + ("\n" + note if note else ""),
            fontsize="medium",
        )
        ax.grid(axis="x", color="0.9")
        return ax

    def __repr__(self) -> str:
        lines = [
            f"TukeyResult({self.n_systems} systems, {self.n_blocks} {_blocks_word(self.blocks)}, "
            f"{self.n_significant} of {self.n_pairs} pairs significant at α = {self.alpha:g})",
            f"  {self.error} error term: MS = {self.mse:.4g} on {self.df} df; "
            f"HSD = {self.honest_difference:.4g} (difference of means)",
        ]
        return "\n".join(lines + self._dropped_and_groups())


@renamed_parameters(level="by")
def tukey_hsd(
    data: Scores | Blocks | pd.DataFrame,
    alpha: float = 0.05,
    error: str = "repeated",
    by: str | None = None,
    missing: str = "error",
    min_coverage: float = 0.0,
    effect_sizes: bool = True,
) -> TukeyResult:
    r"""Tukey's HSD of every pair of systems' mean scores (see
    :mod:`rankstats.significance.parametric`).

    Parameters
    ----------
    data : Scores, Blocks or pandas.DataFrame
        As in :func:`repeated_measures_anova`.
    alpha : float
        Family-wise error level of ``significant``, of the intervals and of the HSD.
    error : {"repeated", "independent"}
        The error term: that of the repeated-measures ANOVA (default; blocks removed, on
        ``(k − 1)(N − 1)`` df), or that of ``k`` independent groups (``k (N − 1)`` df; equal to
        ``scipy.stats.tukey_hsd(*columns)`` and to what autorank reports).
    by, missing, min_coverage
        As in :func:`rankstats.significance.friedman_test.friedman`.
    effect_sizes : bool
        Add Cliff's δ, Cohen's d and Akinshin's γ
        (:func:`~rankstats.significance.effect_sizes.pairwise_effect_sizes`).

    Returns
    -------
    TukeyResult

    Notes
    -----
    The p-values need the studentized range distribution with finite degrees of freedom, a
    numerical double integral in scipy (a few ms per pair: about 30 s for the 4,950 pairs of 100
    systems).  ``significant`` needs one quantile only.
    """
    if error not in ERRORS:
        raise ValueError(f"error must be one of {', '.join(map(repr, ERRORS))}, not {error!r}")
    probability("alpha", alpha)
    check_level(by)
    blocks = score_blocks(data, by=by, missing=missing, min_coverage=min_coverage)
    x, n, k = _check_blocks(blocks, "Tukey's HSD")
    mean = x.mean(axis=0)
    df, mse = _error_term(x, error)
    se = float(np.sqrt(mse / n))
    q_crit = float(stats.studentized_range.ppf(1.0 - alpha, k, df))
    order = np.lexsort((np.arange(k), -mean))  # highest mean first, ties in column order
    i, j = np.triu_indices(k, 1)
    a, b = order[i], order[j]
    difference = mean[a] - mean[b]
    # Cliff's δ is counted meanwhile on a second thread (the costly effect size).
    sizes_of = effect_sizes_alongside(x, a, b) if effect_sizes else None
    q, p = _studentized_range_tests(difference, se, k, df)
    ranks = blocks.ranks.mean(axis=0)
    systems = np.asarray(blocks.systems, dtype=object)
    table = pd.DataFrame(
        {
            "system_a": systems[a],
            "system_b": systems[b],
            "mean_rank_a": ranks[a],
            "mean_rank_b": ranks[b],
            "rank_difference": ranks[b] - ranks[a],
            "statistic": q,
            "p_value": p,
            "p_adjusted": p.copy(),
            "significant": np.abs(difference) > q_crit * se if se > 0 else difference != 0,
        }
    )
    if sizes_of is not None:
        sizes = sizes_of()
    else:
        sizes = pd.DataFrame(np.nan, index=range(len(a)), columns=EFFECT_SIZES)
    table = pd.concat([table, sizes.set_axis(table.index)], axis=1)
    table["mean_a"] = mean[a]
    table["mean_b"] = mean[b]
    table["mean_difference"] = difference
    table["ci_low"] = difference - q_crit * se
    table["ci_high"] = difference + q_crit * se
    rank_order = np.argsort(ranks, kind="stable")
    return TukeyResult(
        table=table,
        method="tukey",
        alpha=float(alpha),
        correction="single-step",
        critical_difference=float("nan"),
        q_alpha=float("nan"),
        mean_ranks=pd.Series(ranks[rank_order], index=list(systems[rank_order]), name="mean_rank"),
        n_blocks=n,
        n_systems=k,
        blocks=blocks,
        means=pd.Series(mean[order], index=list(systems[order]), name="mean"),
        honest_difference=q_crit * se,
        error=error,
        df=int(df),
        mse=float(mse),
    )


def _error_term(x: np.ndarray, error: str) -> tuple[int, float]:
    """Degrees of freedom and mean square of the error of ``k`` systems on ``N`` blocks: the
    repeated-measures ANOVA's (blocks removed) or that of ``k`` independent groups."""
    n, k = x.shape
    if error == "repeated":
        df = (k - 1) * (n - 1)
        return df, anova_sums(x)["error"] / df
    df = k * (n - 1)
    return df, float(np.sum((x - x.mean(axis=0)) ** 2)) / df


def _studentized_range_tests(
    difference: np.ndarray, se: float, k: int, df: int
) -> tuple[np.ndarray, np.ndarray]:
    r"""Tukey's statistic :math:`q = |\bar x_a - \bar x_b| / SE` and its p-value from the
    studentized range law of ``k`` means on ``df`` degrees of freedom, computed once per distinct
    ``q`` (a numerical double integral each)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.abs(difference) / se
    q = np.where(np.isnan(q), 0.0, q)  # no error and no difference
    p = np.ones(len(q))
    positive = q > 0
    if positive.any():
        unique, inverse = np.unique(q[positive], return_inverse=True)
        p[positive] = np.clip(stats.studentized_range.sf(unique, k, df), 0.0, 1.0)[inverse]
    return q, p
