r"""Paired instance-level comparison of systems on one metric (after Peyrard et al. 2021).

Systems are evaluated on the same instances, so their scores are *paired*. For every pair
``(a, b)`` (on the instances where both were evaluated, ``n`` of them; differences
:math:`D = x_a - x_b`):

============================  ===================================================================
quantity                      test (two-sided)
============================  ===================================================================
mean difference               paired t-test: :math:`t = \bar D / (s_D / \sqrt n)`, ``n − 1`` df
difference of medians         Mood's median test (2 × 2 table around the grand median, values
                              equal to it counted below, Pearson χ² with Yates' correction; as
                              ``scipy.stats.median_test``)
P(a beats b) (ties ½)         exact sign test: ``wins_a ~ Binomial(wins_a + wins_b, ½)``, ties
                              excluded and reported
location of D                 Wilcoxon signed-rank (``scipy.stats.wilcoxon``; zero differences
                              dropped by default, ``zero_method=``)
============================  ===================================================================

Bootstrap intervals (percentile, ``n_resamples`` seeded resamples of the instances, pairing kept)
are at exactly the stated level: quantiles :math:`\alpha/2` and :math:`1 - \alpha/2` (the
pairformance tool took the 5 % and 95 % quantiles for a "95 %" interval). Every p-value is also
Holm-adjusted across the pairs (``*_p_holm``). Strengths per system: mean, median, Bradley–Terry,
Elo and TrueSkill (:mod:`rankstats.paired_analysis.ratings`), and the disagreement between these
aggregators (Peyrard et al. 2021, Table 1) from :func:`rankstats.core.metrics.agreement`.
"""

from __future__ import annotations

import contextlib
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from scipy import stats

from rankstats._util.arguments import count, probability, random_seed
from rankstats._util.renamed import renamed_parameters
from rankstats._util.user_frame import user_stacklevel
from rankstats.aggregation.hoeffding_intervals import holm_adjust
from rankstats.core.bradley_terry_mle import fit_bt, pairs_from_matrices
from rankstats.core.metrics import agreement
from rankstats.core.scores import Scores
from rankstats.core.task_choice import only_task
from rankstats.errors import InvalidScoresError, preview
from rankstats.paired_analysis.figures import matrix_figure, pair_figure
from rankstats.paired_analysis.pair_data import PairData
from rankstats.paired_analysis.ratings import bradley_terry, elo, trueskill, win_matrix
from rankstats.significance.signed_rank_exact import EXACT_MAX, signed_rank_exact_p_values
from rankstats.significance.zero_methods import DEFAULT as DEFAULT_ZERO_METHOD
from rankstats.significance.zero_methods import check_zero_method


def _matrix(data: Scores | pd.DataFrame, task: str | None) -> tuple[np.ndarray, list[str], str]:
    if isinstance(data, pd.DataFrame):
        frame = data.apply(pd.to_numeric, errors="coerce")
        bad = frame.isna() & data.notna()
        if bad.to_numpy().any():
            col = bad.any().idxmax()
            raise InvalidScoresError(f"non-numeric score in column {col!r}")
        return frame.to_numpy(np.float64), [str(c) for c in data.columns], task or "score"
    if not isinstance(data, Scores):
        raise TypeError("paired() takes instance-level Scores or a DataFrame (instances × systems)")
    if not data.has_instances:
        raise InvalidScoresError(
            "paired analysis needs instance-level scores (one score per system and instance)"
        )
    if task is None:
        task = only_task(
            data.tasks,
            "choose one task (metric) with task=...; this table has {n}: {tasks}",
            listing=lambda tasks: ", ".join(tasks[:8]) + (", ..." if len(tasks) > 8 else ""),
        )
    if task not in data.tasks:
        raise InvalidScoresError(f"unknown task {task!r}; tasks are: {', '.join(data.tasks)}")
    sub = data.data[data.data["task"] == task]
    wide = sub.pivot(index="instance", columns="system", values="score")
    wide = wide.reindex(columns=list(data.systems))
    return wide.to_numpy(np.float64), list(data.systems), task


def _mood(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Mood's median test p-values, column by column (NaN = absent), as scipy.median_test."""
    both = np.concatenate([a, b], axis=0)
    grand = np.nanmedian(both, axis=0)
    n = (~np.isnan(a)).sum(axis=0).astype(np.float64)
    above_a = np.sum(a > grand, axis=0)
    above_b = np.sum(b > grand, axis=0)
    observed = np.stack([np.stack([above_a, above_b]), np.stack([n - above_a, n - above_b])])
    rows = observed.sum(axis=1, keepdims=True)
    cols = observed.sum(axis=0, keepdims=True)
    expected = rows * cols / (2 * n)
    with np.errstate(divide="ignore", invalid="ignore"):
        diff = expected - observed
        corrected = observed + np.minimum(0.5, np.abs(diff)) * np.sign(diff)  # Yates
        chi2 = np.sum((corrected - expected) ** 2 / expected, axis=(0, 1))
    p = stats.chi2.sf(chi2, 1)
    # scipy refuses a table with an empty row (all values on one side of the grand median).
    return np.where((rows.squeeze(1) > 0).all(axis=0), p, np.nan)


def sign_test_p_values(wins_a: np.ndarray, wins_b: np.ndarray) -> np.ndarray:
    r"""Exact two-sided sign test p-values :math:`\min(1, 2 F(\min(w, l)))`, ``F`` the
    Binomial(w + l, ½) distribution function (as ``scipy.stats.binomtest``); 1 without a decided
    instance. Arrays of any shape: :func:`paired` passes one value per pair, the power
    simulations (:mod:`rankstats.planning`) one per pair and simulated benchmark."""
    decided = wins_a + wins_b
    return np.where(
        decided > 0,
        np.minimum(1.0, 2 * stats.binom.cdf(np.minimum(wins_a, wins_b), decided, 0.5)),
        1.0,
    )


def paired_t_p_values(d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""Mean difference and paired t-test p-value per column of differences ``d`` (instances
    along axis 0, NaN = absent): :math:`t = \bar D \sqrt n / s_D` on ``n − 1`` df, as
    ``scipy.stats.ttest_rel`` (NaN when ``n < 2`` or :math:`s_D = \bar D = 0`). Columns are
    pairs in :func:`paired`, pairs × simulated benchmarks in :mod:`rankstats.planning`."""
    present = ~np.isnan(d)
    n = present.sum(axis=0)
    # NaN-aware sums under errstate rather than nanmean / nanstd, whose warnings would need a
    # warnings filter: not thread-safe, and the power simulations call this from threads.
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_diff = np.where(present, d, 0.0).sum(axis=0) / n
        sq = np.where(present, d - mean_diff, 0.0) ** 2
        sd = np.sqrt(sq.sum(axis=0) / (n - 1))
    return mean_diff, paired_t_from_moments(mean_diff, sd, n)


def paired_t_from_moments(mean_diff: np.ndarray, sd: np.ndarray, n: np.ndarray) -> np.ndarray:
    r"""Two-sided paired t-test p-values from the sufficient statistic of normal differences:
    the mean :math:`\bar D`, the standard deviation :math:`s_D` (``n − 1`` divisor) and the
    count ``n``; :math:`t = \bar D \sqrt n / s_D` on ``n − 1`` df (NaN when ``n < 2`` or
    :math:`s_D = \bar D = 0`). Arrays of any shape: :func:`paired_t_p_values` passes one value
    per column of differences, the power simulations (:mod:`rankstats.planning.sufficient`) the
    means and variances they draw."""
    n = np.asarray(n)
    with np.errstate(invalid="ignore", divide="ignore"):
        sd = np.where(n >= 2, sd, np.nan)
        t_stat = mean_diff / (sd / np.sqrt(n))
        return 2 * stats.t.sf(np.abs(t_stat), n - 1)


def wilcoxon_p_values(
    d: np.ndarray, quiet: bool = True, zero_method: str = DEFAULT_ZERO_METHOD
) -> np.ndarray:
    """Wilcoxon signed-rank p-values per column (NaN = absent), equal to per-column scipy calls
    ``scipy.stats.wilcoxon(column, zero_method=zero_method)`` (zero differences: dropped by
    default; :mod:`rankstats.significance.zero_methods`).

    ``scipy.stats.wilcoxon`` is vectorised along an axis, but with ``method="auto"`` it chooses
    exact / permutation / normal approximation once for the whole batch (from the sample size and
    from ties or zeros *anywhere* in it). Columns are therefore batched by (number of pairs,
    whether the column has zero or tied differences), which makes every batch decide as a
    single-column call would. Where scipy would run its permutation test (up to 13 differences,
    with zeros or ties), the exact law of :math:`T^+` comes from
    :func:`~rankstats.significance.signed_rank_exact.signed_rank_exact_p_values` instead: the
    same p-values, without enumerating the :math:`2^n` sign flips of every column (and p = 1 for
    a single zero difference, which scipy's permutation test refuses).
    """
    out = np.full(d.shape[1], np.nan)
    present = ~np.isnan(d)
    n_obs = present.sum(axis=0)
    # Per column: its values first (sorted), padding (+inf) last.
    ordered = np.sort(np.where(present, d, np.inf), axis=0)
    zeros = np.any(ordered == 0, axis=0)
    mags = np.sort(np.where(present & (d != 0), np.abs(d), np.inf), axis=0)
    tied = np.any((mags[1:] == mags[:-1]) & np.isfinite(mags[1:]), axis=0)
    irregular = zeros | tied
    # quiet=False: the caller silences scipy's warnings itself (the power simulations, once in
    # the main thread: a warnings filter set in a worker thread is not thread-safe).
    with warnings.catch_warnings() if quiet else contextlib.nullcontext():
        if quiet:
            warnings.simplefilter("ignore")
        for size, flag in set(zip(n_obs.tolist(), irregular.tolist(), strict=True)):
            cols = np.flatnonzero((n_obs == size) & (irregular == flag))
            if size == 0 or len(cols) == 0:
                continue
            if flag and size <= EXACT_MAX:
                # scipy enumerates the 2^n sign flips per column here: the same exact law by a
                # recursion over the ranks, every column at once.
                out[cols] = signed_rank_exact_p_values(ordered[:size, cols], zero_method)
                continue
            out[cols] = stats.wilcoxon(ordered[:size, cols], axis=0, zero_method=zero_method).pvalue
    return out


@dataclass(frozen=True, eq=False, repr=False)
class Paired:
    """Result of :func:`paired`.

    Attributes
    ----------
    pairs : pandas.DataFrame
        One row per pair ``system_a, system_b`` (``a`` before ``b`` in the systems' order): ``n``,
        ``wins_a``, ``wins_b``, ``ties``, ``p_a_beats_b`` (ties ½) with bootstrap ``_low/_high``,
        ``bt_probability`` (from the Bradley–Terry strengths), ``sign_p``, ``wilcoxon_p``,
        ``mean_diff`` (+ interval), ``ttest_p``, ``median_diff`` (+ interval), ``mood_p``, and the
        Holm-adjusted ``*_p_holm``.
    strengths : pandas.DataFrame
        Per system: ``mean``, ``median``, ``bt`` (centred log-strength), ``elo``, ``trueskill``
        (μ) and ``trueskill_sigma``.
    agreement : pandas.DataFrame
        Disagreement between the aggregators ``mean, median, bt, elo, trueskill`` (Peyrard et
        al. 2021, Table 1), one row per pair of aggregators ``a, b``: ``kendall_tau`` (τ_b),
        ``share_discordant`` (share of system pairs ordered differently, a pair tied by one
        aggregator only counting ½; equals (1 − τ)/2 without ties), ``same_top1`` (same single
        best system), ``top3_overlap`` (share of the three best in common) and ``same_top3``
        (the same three best systems). ``bt`` is left out when its MLE does not exist.
    parameters : dict
        Every setting used (task, confidence, α, resamples, seed, Elo and TrueSkill parameters).
    scores : numpy.ndarray
        The ``(instances, systems)`` score matrix analysed (NaN = not evaluated).
    """

    pairs: pd.DataFrame
    strengths: pd.DataFrame
    agreement: pd.DataFrame
    parameters: dict = field(default_factory=dict)
    scores: np.ndarray | None = None

    def _column(self, system: str) -> np.ndarray:
        systems = list(self.strengths["system"])
        if system not in systems:
            raise KeyError(f"unknown system {system!r}; systems are: {preview(systems)}")
        return self.scores[:, systems.index(system)]

    def plot_pair(self, a: str, b: str) -> Figure:
        """Pairing plot (paired scores of ``a`` against ``b`` with the x = y line) and the
        histogram of the differences ``a − b``
        (:func:`rankstats.paired_analysis.figures.pair_figure`)."""
        return pair_figure(self._column(a), self._column(b), a, b)

    def plot_matrix(self, test: str = "sign", order: str = "bt") -> Figure:
        """Matrix of P(a beats b) (ties ½), ``*`` where the Holm-adjusted ``test`` p-value
        (``"sign"``, ``"wilcoxon"``, ``"ttest"`` or ``"mood"``) is below α = 1 − confidence_level.

        Systems are ordered by the strength column ``order`` (best first; ``mean`` when the
        Bradley–Terry MLE does not exist)."""
        column = f"{test}_p_holm"
        if column not in self.pairs:
            raise ValueError(f"unknown test {test!r}; use sign, wilcoxon, ttest or mood")
        strengths = self.strengths.set_index("system")
        key = order if strengths[order].notna().all() else "mean"
        ranked = list(strengths[key].sort_values(ascending=False, kind="stable").index)
        alpha = self.parameters["alpha"]
        title = (
            f"{self.parameters['task']}: P(a beats b), * = {test} test significant "
            f"(Holm, α = {alpha:g}); ordered by {key}"
        )
        return matrix_figure(self.pairs, ranked, column, alpha, title)

    def __repr__(self) -> str:
        p = self.parameters
        sig = int((self.pairs["sign_p_holm"] < p.get("alpha", 0.05)).sum())
        return (
            f"Paired({p.get('task')}: {len(self.strengths)} systems, {len(self.pairs)} pairs, "
            f"{p.get('n_instances')} instances; {sig} pairs significant by the sign test "
            f"(Holm, α = {p.get('alpha', 0.05)}))"
        )


@renamed_parameters(confidence="confidence_level", n_bootstrap="n_resamples")
def paired(
    data: Scores | pd.DataFrame,
    task: str | None = None,
    confidence_level: float = 0.95,
    n_resamples: int = 1000,
    seed: int | None = 0,
    elo_k: float = 16.0,
    elo_start: float = 1500.0,
    n_orders: int = 100,
    draw_probability: float = 0.1,
    trueskill_orders: int = 20,
    bt_ties: str = "half",
    zero_method: str = DEFAULT_ZERO_METHOD,
) -> Paired:
    r"""Paired comparison of every pair of systems on one metric (Peyrard et al. 2021).

    Parameters
    ----------
    data : Scores or DataFrame
        Instance-level Scores (choose the metric with ``task``), or a wide DataFrame with one row
        per instance and one column per system (the pairformance format; higher = better).
    task : str, optional
        The metric (required when the Scores holds several).
    confidence_level : float
        Coverage of the bootstrap intervals; ``alpha = 1 − confidence_level`` also marks
        significance in
        the summary, the figures and the CLI.
    n_resamples : int
        Bootstrap resamples of the instances (percentile intervals at quantiles
        :math:`\alpha/2` and :math:`1 - \alpha/2`).
    seed : int
        Seeds the bootstrap and the random instance orders of Elo / TrueSkill.
    elo_k, elo_start, n_orders : float, float, int
        Elo K-factor (16), start rating (1500), number of seeded random instance orders averaged
        (Elo 1978; see :func:`rankstats.paired_analysis.ratings.elo`).
    draw_probability : float
        TrueSkill draw probability (sets the draw margin; Herbrich et al. 2007). The other
        TrueSkill parameters are the paper's: μ0 = 25, σ0 = 25/3, β = σ0/2, τ = σ0/100.
    trueskill_orders : int
        Random instance orders averaged for TrueSkill.
    bt_ties : {"half", "davidson"}
        Ties in the Bradley–Terry strengths: counted as half a win each way (default), or
        modelled by Davidson's (1970) tie parameter ν (as
        :class:`rankstats.models.BradleyTerry` ``(ties="davidson")``); ``bt_probability`` is
        then :math:`P(a \succ b) + \tfrac12 P(a \sim b)` and the MLE of ν is in
        ``parameters``. Both are maximum likelihood by
        :func:`rankstats.core.bradley_terry_mle.fit_bt`.
    zero_method : {"wilcox", "pratt", "zsplit"}
        Zero differences in Wilcoxon's signed-rank test, passed to ``scipy.stats.wilcoxon``:
        dropped (``"wilcox"``, default), ranked (Pratt, 1959) or their ranks split between the
        signs (:mod:`rankstats.significance.zero_methods`); kept in ``parameters``.

    Returns
    -------
    Paired
        ``.pairs`` (one row per pair, ``a`` before ``b`` in the systems' order), ``.strengths``,
        ``.agreement``, ``.parameters``; ``.plot_pair(a, b)`` and ``.plot_matrix()``.

    Notes
    -----
    Pair ``(a, b)`` uses the ``n`` instances where both were evaluated; :math:`D = x_a - x_b`.

    - ``mean_diff`` :math:`= \bar D`, ``ttest_p``: paired t-test, :math:`t = \bar D \sqrt n / s_D`
      with ``n − 1`` df (``scipy.stats.ttest_rel``; NaN when ``n < 2`` or :math:`s_D = \bar D = 0`).
    - ``median_diff`` = median of ``a`` − median of ``b``, ``mood_p``: Mood's (1954) median test
      (values equal to the grand median count below; Pearson χ² of the 2 × 2 table with Yates'
      correction, as ``scipy.stats.median_test``; NaN when all values fall on one side of the
      grand median, where scipy refuses).
    - ``wins_a``, ``wins_b``, ``ties``; ``p_a_beats_b`` = (wins_a + ties / 2) / n (the
      two-system Bradley–Terry MLE with ties as half wins); ``sign_p``: exact two-sided sign
      test, ``wins_a ~ Binomial(wins_a + wins_b, ½)`` with ties **excluded**,
      :math:`p = \min(1, 2 F(\min(w, l)))` (as ``scipy.stats.binomtest``; 1 when every instance
      is a tie).
    - ``wilcoxon_p``: Wilcoxon (1945) signed-rank test on ``D`` (zeros treated by
      ``zero_method``), exactly as ``scipy.stats.wilcoxon(a, b, zero_method=zero_method)``
      (exact, permutation or normal approximation as scipy chooses for that pair).
    - ``bt_probability`` :math:`= 1 / (1 + e^{\beta_b - \beta_a})` from the Bradley–Terry
      strengths of all systems (NaN when the MLE does not exist).
    - ``*_low``, ``*_high``: bootstrap percentile intervals of ``mean_diff``, ``median_diff``,
      ``p_a_beats_b``: ``n_resamples`` resamples of the instance rows (multinomial counts shared
      by every pair, so the pairing is kept); each pair uses the resampled rows where both
      systems were evaluated.
    - ``*_p_holm``: Holm (1979) adjustment across the pairs with a p-value, per test.

    Nothing is imputed; a system without any score, or a pair never evaluated on a common
    instance, is an error naming them.

    Examples
    --------
    >>> import pandas as pd, rankstats as rs
    >>> toy = pd.DataFrame({"A": [0, 0, 10, 10, 10], "B": [1, 1, 11, 11, 6],
    ...                     "C": [2, 2, 12, 12, 2]})
    >>> res = rs.paired(toy, n_resamples=200)
    >>> res.strengths.set_index("system")[["mean", "median"]].to_dict("list")
    {'mean': [6.0, 6.0, 6.0], 'median': [10.0, 6.0, 2.0]}
    """
    probability("confidence_level", confidence_level)
    random_seed("seed", seed)
    if bt_ties not in ("half", "davidson"):
        raise ValueError(f"bt_ties must be 'half' or 'davidson', not {bt_ties!r}")
    check_zero_method(zero_method)
    for name, value in (
        ("n_resamples", n_resamples),
        ("n_orders", n_orders),
        ("trueskill_orders", trueskill_orders),
    ):
        count(name, value, 1)
    probability("draw_probability", draw_probability)
    x, systems, task = _matrix(data, task)
    pairs = PairData.of(x, systems, task)
    columns = {
        **_pair_tests(pairs, zero_method),
        **pairs.bootstrap(n_resamples, seed, confidence_level),
    }
    bt, log_tie = _bt_strengths(x, systems, task, bt_ties)
    mu, sigma = trueskill(
        x, draw_probability=draw_probability, n_orders=trueskill_orders, seed=seed
    )
    strengths = pd.DataFrame(
        {
            "system": systems,
            "mean": np.nanmean(x, axis=0),
            "median": np.nanmedian(x, axis=0),
            "bt": bt,
            "elo": elo(x, k=elo_k, start=elo_start, n_orders=n_orders, seed=seed),
            "trueskill": mu,
            "trueskill_sigma": sigma,
        }
    )
    names = np.array(systems, dtype=object)
    columns.update(
        system_a=names[pairs.ia],
        system_b=names[pairs.ib],
        bt_probability=_bt_probability(bt[pairs.ia], bt[pairs.ib], log_tie),
    )
    return Paired(
        pairs=_with_holm(pd.DataFrame({name: columns[name] for name in _PAIR_COLUMNS})),
        strengths=strengths,
        agreement=_agreement(strengths),
        parameters={
            "task": task,
            "confidence": confidence_level,
            "alpha": round(1 - confidence_level, 12),
            "n_bootstrap": n_resamples,
            "seed": seed,
            "elo_k": elo_k,
            "elo_start": elo_start,
            "n_orders": n_orders,
            "trueskill_mu0": 25.0,
            "trueskill_sigma0": 25.0 / 3,
            "trueskill_beta": 25.0 / 6,
            "trueskill_tau": 25.0 / 300,
            "draw_probability": draw_probability,
            "trueskill_orders": trueskill_orders,
            "bt_ties": bt_ties,
            "zero_method": zero_method,
            "bt_tie_nu": float(np.exp(log_tie)) if log_tie is not None else None,
            "n_instances": x.shape[0],
        },
        scores=x,
    )


#: The columns of :attr:`Paired.pairs` before the Holm-adjusted p-values, in order.
_PAIR_COLUMNS = tuple(
    "system_a system_b n wins_a wins_b ties p_a_beats_b p_a_beats_b_low p_a_beats_b_high "
    "bt_probability sign_p wilcoxon_p mean_diff mean_diff_low mean_diff_high ttest_p "
    "median_diff median_diff_low median_diff_high mood_p".split()
)


def _pair_tests(pairs: PairData, zero_method: str) -> dict[str, np.ndarray]:
    """Counts, estimates and p-values of the four tests, per pair."""
    d, n = pairs.d, pairs.mask.sum(axis=0)
    wins_a, wins_b = np.sum(d > 0, axis=0), np.sum(d < 0, axis=0)
    ties = n - wins_a - wins_b
    mean_diff, ttest_p = paired_t_p_values(d)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        median_diff = np.nanmedian(pairs.a, axis=0) - np.nanmedian(pairs.b, axis=0)
    return {
        "n": n,
        "wins_a": wins_a,
        "wins_b": wins_b,
        "ties": ties,
        "sign_p": sign_test_p_values(wins_a, wins_b),
        "mean_diff": mean_diff,
        "ttest_p": ttest_p,
        "median_diff": median_diff,
        "mood_p": _mood(pairs.a, pairs.b),
        "wilcoxon_p": wilcoxon_p_values(d, zero_method=zero_method),
        "p_a_beats_b": (wins_a + 0.5 * ties) / n,
    }


def _bt_strengths(
    x: np.ndarray, systems: list[str], task: str, bt_ties: str
) -> tuple[np.ndarray, float | None]:
    """Bradley–Terry log-strengths and Davidson's log ν (None with ties as half wins); NaN with
    a warning when the MLE does not exist."""
    try:
        if bt_ties == "davidson":
            return _davidson(x, systems)
        return bradley_terry(x, systems), None
    except ValueError as err:
        # Common on real data (e.g. reference summaries that never lose): report, don't abort.
        warnings.warn(
            f"task {task!r}: {err} The bt columns are NaN.",
            UserWarning,
            stacklevel=user_stacklevel(),
        )
        return np.full(len(systems), np.nan), None


def _with_holm(pairs: pd.DataFrame) -> pd.DataFrame:
    """``pairs`` with the Holm (1979) adjustment of each test's p-values across the pairs."""
    for col in ("sign_p", "wilcoxon_p", "ttest_p", "mood_p"):
        values = pairs[col].to_numpy()
        adjusted = np.full(len(values), np.nan)
        ok = ~np.isnan(values)
        adjusted[ok] = holm_adjust(values[ok])
        pairs[f"{col}_holm"] = adjusted
    return pairs


def _agreement(strengths: pd.DataFrame) -> pd.DataFrame:
    """Agreement of the aggregators that rank every system (Peyrard et al. 2021, Table 1)."""
    aggregators = ("mean", "median", "bt", "elo", "trueskill")
    available = [k for k in aggregators if strengths[k].notna().all()]
    table = agreement({k: strengths.set_index("system")[k] for k in available})
    # The same set of three best systems (pairformance's "Same Top-3" compared the best only).
    table["same_top3"] = table["top3_overlap"] == 1.0
    return table


def _davidson(x: np.ndarray, systems: list[str]) -> tuple[np.ndarray, float]:
    """Bradley–Terry with Davidson's ties (Davidson 1970), maximum likelihood, on the paired wins
    and draws: centred log-strengths and the log tie parameter log ν (:func:`fit_bt`, the MLE of
    :class:`rankstats.models.BradleyTerry` ``(ties="davidson")``)."""
    wins, draws = win_matrix(x)
    optimum = fit_bt(pairs_from_matrices(wins, draws), ties=True, systems=systems)
    n = len(systems)
    return optimum.params[:n], float(optimum.params[n])


def _bt_probability(a: np.ndarray, b: np.ndarray, log_tie: float | None) -> np.ndarray:
    r""":math:`P(a \succ b)` (plain BT) or :math:`P(a \succ b) + \tfrac12 P(a \sim b)` under
    Davidson's model: :math:`(\pi_a + \tfrac12 \nu\sqrt{\pi_a\pi_b}) /
    (\pi_a + \pi_b + \nu\sqrt{\pi_a\pi_b})`."""
    if log_tie is None or not np.isfinite(log_tie):
        return 1 / (1 + np.exp(b - a))
    tie = log_tie + 0.5 * (a + b)
    top = np.maximum(np.maximum(a, b), tie)
    ea, eb, et = np.exp(a - top), np.exp(b - top), np.exp(tie - top)
    return (ea + 0.5 * et) / (ea + eb + et)
