r"""Automatic choice between the parametric and the rank tests, as autorank makes it.

autorank (Herbold, 2020) compares ``k ≥ 3`` paired populations (here: ``k`` systems scored on
the same ``N`` blocks, :mod:`rankstats.significance.blocks`) in three steps, all at one family-wise
level α:

1. **Normality** of each system's scores by the Shapiro–Wilk test (Shapiro and Wilk, 1965), at the
   Bonferroni-corrected level :math:`\alpha / k`: the data are called normal when no system's
   p-value is below :math:`\alpha / k`.
2. **Homoscedasticity** (equal variances of the systems' scores): Bartlett's test (Bartlett, 1937)
   when all systems are normal, else Levene's test with the median as centre (Brown and
   Forsythe, 1974; ``scipy.stats.levene``'s default), at level α.
3. **The tests**: normal *and* homoscedastic → the repeated-measures ANOVA and Tukey's HSD
   (:mod:`rankstats.significance.parametric`); otherwise Friedman's test and Nemenyi's post-hoc test
   (:mod:`rankstats.significance.friedman_test`, :mod:`rankstats.significance.posthoc_tests`;
   critical difference of Demšar, 2006).

The effect size reported is Cohen's d (pooled standard deviation) when all systems are normal,
else Akinshin's γ (pooled median absolute deviations scaled by 1.4826), with the magnitudes of
Cohen (1988) for both (``|d| < 0.2`` negligible, ``< 0.5`` small, ``< 0.8`` medium, else large)
and of Romano et al. (2006) for Cliff's δ (``0.147``, ``0.33``, ``0.474``).  Like autorank, the
choice of effect size follows normality only, not the choice of test.

Differences from autorank, on purpose:

- Tukey's HSD uses the error term of the repeated-measures ANOVA (paired design, on
  ``(k − 1)(N − 1)`` df) by default; autorank (through statsmodels' ``MultiComparison``) uses the
  one-way error term of independent groups, which ignores the blocks: ``tukey_error="independent"``
  gives autorank's.
- The omnibus results are kept whole: for Friedman also the Iman–Davenport F; for the ANOVA the
  Greenhouse–Geisser ε.  The decision reads the same p-values as autorank (Friedman's χ², the
  uncorrected ANOVA F).

The checks of step 1 and 2 are tests of the data at hand, not of the population: with thousands
of blocks Shapiro–Wilk rejects normality for deviations of no practical consequence (and scipy's
p-value is approximate above 5,000 observations), with a handful it has no power.  The decision
is a convention (Demšar, 2006, argues for the rank tests in any case); ``force=`` overrides it.

References
----------
Herbold, S. (2020). Autorank: a Python package for automated ranking of classifiers. *Journal of
Open Source Software* 5(48), 2173. doi:10.21105/joss.02173.

Shapiro, S. S. and Wilk, M. B. (1965). An analysis of variance test for normality (complete
samples). *Biometrika* 52(3/4), 591–611.

Bartlett, M. S. (1937). Properties of sufficiency and statistical tests. *Proceedings of the Royal
Society of London A* 160(901), 268–282.

Brown, M. B. and Forsythe, A. B. (1974). Robust tests for the equality of variances. *Journal of
the American Statistical Association* 69(346), 364–367.

Demšar, J. (2006). Statistical comparisons of classifiers over multiple data sets. *Journal of
Machine Learning Research* 7, 1–30.

Cohen, J. (1988). *Statistical Power Analysis for the Behavioral Sciences*, 2nd ed. Erlbaum.

Romano, J., Kromrey, J. D., Coraggio, J. and Skowronek, J. (2006). Appropriate statistics for
ordinal level data. Annual meeting of the Florida Association of Institutional Research.
"""

from __future__ import annotations

import warnings
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
from rankstats.significance.effect_sizes import MAD_SCALE, pairwise_effect_sizes
from rankstats.significance.friedman_test import FriedmanResult, friedman
from rankstats.significance.parametric import AnovaResult, repeated_measures_anova, tukey_hsd
from rankstats.significance.posthoc_result import PosthocResult
from rankstats.significance.posthoc_tests import posthoc
from rankstats.significance.scored_blocks import _blocks_word, check_missing_scores, score_blocks

#: autorank refuses fewer paired samples than this.
MIN_BLOCKS = 5
#: Magnitude thresholds of |effect size|: negligible below the first, small, medium, large.
MAGNITUDES = {
    "cohens_d": (0.2, 0.5, 0.8),
    "akinshin_gamma": (0.2, 0.5, 0.8),
    "cliffs_delta": (0.147, 0.33, 0.474),
}
_ALIASES = {"cohen_d": "cohens_d", "cliff_delta": "cliffs_delta"}
_EFFECT_NAMES = {"cohens_d": "d", "akinshin_gamma": "γ", "cliffs_delta": "δ"}
_EFFECT_LONG = {
    "cohens_d": "Cohen's d",
    "akinshin_gamma": "Akinshin's γ",
    "cliffs_delta": "Cliff's δ",
}


def magnitude(effect: float | np.ndarray, method: str = "cohens_d") -> np.ndarray:
    """``"negligible"``, ``"small"``, ``"medium"`` or ``"large"`` for each ``|effect|`` (autorank's
    thresholds, see :mod:`rankstats.significance.which_test`); ``"undefined"`` for NaN.

    Examples
    --------
    >>> magnitude([0.1, -0.3, 0.79, 2.0]).tolist()
    ['negligible', 'small', 'medium', 'large']
    >>> magnitude(0.4, "cliffs_delta").tolist()
    ['medium']
    """
    method = _ALIASES.get(method, method)
    if method not in MAGNITUDES:
        names = ", ".join(map(repr, MAGNITUDES))
        raise ValueError(f"method must be one of {names}, not {method!r}")
    size = np.abs(np.atleast_1d(np.asarray(effect, dtype=np.float64)))
    labels = np.array(["negligible", "small", "medium", "large"], dtype=object)
    out = labels[np.searchsorted(np.asarray(MAGNITUDES[method]), size, side="right")]
    out[np.isnan(size)] = "undefined"
    return out


@dataclass(frozen=True, eq=False, repr=False)
class ChoiceResult:
    r"""The tests autorank would choose, and their results: the result of :func:`choose_test`.

    Attributes
    ----------
    normality : pandas.Series
        Shapiro–Wilk p-value of every system (in the order of :attr:`blocks`).
    alpha_normality : float
        :math:`\alpha / k`, the Bonferroni-corrected level of the normality tests.
    all_normal : bool
        No normality p-value below :attr:`alpha_normality`.
    homoscedasticity_test : str
        ``"bartlett"`` (all normal) or ``"levene"``.
    homoscedasticity_p : float
        Its p-value.
    homoscedastic : bool
        ``homoscedasticity_p ≥ α``.
    decision : str
        ``"anova-tukey"`` or ``"friedman-nemenyi"``.
    forced : str or None
        The ``force=`` argument (``"parametric"`` / ``"nonparametric"``), None when the checks
        decided.
    omnibus : AnovaResult or FriedmanResult
        The omnibus test.
    posthoc : PosthocResult
        Tukey's HSD (a :class:`~rankstats.significance.parametric.TukeyResult`) or Nemenyi's test.
    effect_size : str
        The effect size of :attr:`summary`: ``"cohens_d"``, ``"akinshin_gamma"`` or
        ``"cliffs_delta"``.
    summary : pandas.DataFrame
        One row per system, by mean rank (best first), as autorank's ``rankdf``: ``system``,
        ``mean_rank``, ``mean``, ``std``, ``median``, ``mad`` (unscaled), ``effect_size`` and
        ``magnitude`` (against the best system), ``effect_size_above`` and ``magnitude_above``
        (against the system one row above; 0 for the first).
    explanation : str
        One paragraph saying what was tested, what was chosen and why, and what was found (the
        counterpart of autorank's ``create_report``).
    alpha : float
        The family-wise level.
    blocks : Blocks
        The complete table analysed, with what was dropped.
    """

    normality: pd.Series
    alpha_normality: float
    all_normal: bool
    homoscedasticity_test: str
    homoscedasticity_p: float
    homoscedastic: bool
    decision: str
    forced: str | None
    omnibus: AnovaResult | FriedmanResult
    posthoc: PosthocResult
    effect_size: str
    summary: pd.DataFrame
    explanation: str
    alpha: float
    blocks: Blocks

    @property
    def parametric(self) -> bool:
        """Whether the ANOVA and Tukey's HSD were chosen."""
        return self.decision == "anova-tukey"

    @property
    def p_value(self) -> float:
        """The omnibus p-value the decision reads (ANOVA F, or Friedman's χ²)."""
        return float(self.omnibus.p_value)

    @property
    def significant(self) -> bool:
        """Whether the omnibus test rejects "all systems alike" at :attr:`alpha`."""
        return bool(self.p_value < self.alpha)

    @property
    def n_blocks(self) -> int:
        return self.blocks.n_blocks

    @property
    def n_systems(self) -> int:
        return self.blocks.n_systems

    def __repr__(self) -> str:
        name = {"anova-tukey": "repeated-measures ANOVA + Tukey HSD"}.get(
            self.decision, "Friedman + Nemenyi"
        )
        why = f"forced {self.forced}" if self.forced else "chosen by the checks"
        normal = "all normal" if self.all_normal else "not all normal"
        var = "homoscedastic" if self.homoscedastic else "heteroscedastic"
        lines = [
            f"ChoiceResult({self.n_systems} systems, {self.n_blocks} "
            f"{_blocks_word(self.blocks)}, α = {self.alpha:g})",
            f"  Shapiro–Wilk at α/k = {self.alpha_normality:.3g}: {normal} (min p = "
            f"{self.normality.min():.3g}); {self.homoscedasticity_test.capitalize()} p = "
            f"{self.homoscedasticity_p:.3g}: {var}",
            f"  {why}: {name}; omnibus p = {self.p_value:.4g}; "
            f"{self.posthoc.n_significant} of {self.posthoc.n_pairs} pairs significant",
            f"  effect size: {self.effect_size}",
        ]
        return "\n".join(lines)


def _normality(values: np.ndarray) -> tuple[np.ndarray, bool]:
    """Shapiro–Wilk p per column; whether scipy warned (N > 5000, or a constant column)."""
    p = np.empty(values.shape[1])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for j in range(values.shape[1]):
            p[j] = stats.shapiro(values[:, j]).pvalue
    return p, bool(caught)


def _pair_effects(
    values: np.ndarray, blocks: Blocks, post: PosthocResult, method: str, a, b
) -> np.ndarray:
    """Effect sizes of the pairs ``(a[i], b[i])`` (column positions): read from the post-hoc
    table when it has them (every effect size is antisymmetric: e(x, y) = −e(y, x)), else
    computed for these pairs only."""
    column = post.table[method].to_numpy(dtype=np.float64)
    if len(column) and not np.isnan(column).all():
        pos = {s: i for i, s in enumerate(blocks.systems)}
        i = post.table["system_a"].map(pos).to_numpy()
        j = post.table["system_b"].map(pos).to_numpy()
        k = len(blocks.systems)
        signed = np.zeros((k, k))
        signed[i, j] = column
        signed[j, i] = -column
        return signed[a, b]
    if method == "cliffs_delta":
        return pairwise_effect_sizes(values, a, b)[method].to_numpy()
    # Cohen's d or Akinshin's γ of these pairs only (pairwise_effect_sizes also computes Cliff's δ
    # of all pairs), with the formulas of rankstats.significance.posthoc_tests.
    with np.errstate(divide="ignore", invalid="ignore"):
        if method == "cohens_d":
            centre = values.mean(axis=0)
            spread2 = values.var(axis=0, ddof=1)
        else:
            centre = np.median(values, axis=0)
            spread2 = (MAD_SCALE * np.median(np.abs(values - centre), axis=0)) ** 2
        return (centre[a] - centre[b]) / np.sqrt((spread2[a] + spread2[b]) / 2.0)


def _summary(values: np.ndarray, blocks: Blocks, post: PosthocResult, method: str) -> pd.DataFrame:
    mean_rank = blocks.ranks.mean(axis=0)
    order = np.argsort(mean_rank, kind="stable")
    k = len(order)
    a = np.concatenate([np.full(k, order[0]), order[:-1]])
    b = np.concatenate([order, order[1:]])
    effects = _pair_effects(values, blocks, post, method, a, b)
    vs_best = effects[:k]
    above = np.concatenate([[0.0], effects[k:]])
    median = np.median(values, axis=0)
    with np.errstate(invalid="ignore"):
        std = values.std(axis=0, ddof=1)
    return pd.DataFrame(
        {
            "system": [blocks.systems[j] for j in order],
            "mean_rank": mean_rank[order],
            "mean": values.mean(axis=0)[order],
            "std": std[order],
            "median": median[order],
            "mad": np.median(np.abs(values - median), axis=0)[order],
            "effect_size": vs_best,
            "magnitude": magnitude(vs_best, method),
            "effect_size_above": above,
            "magnitude_above": magnitude(above, method),
        }
    )


def _names(items: list[str], limit: int = 6) -> str:
    """``a``, ``a and b``, ``a, b, and c`` (autorank's lists), at most ``limit`` named."""
    items = [terminal(s) for s in items]
    if len(items) > limit:
        return ", ".join(items[:limit]) + f", and {len(items) - limit} more"
    if len(items) <= 2:
        return " and ".join(items)
    return ", ".join(items[:-1]) + ", and " + items[-1]


def _explain(res: dict, blocks: Blocks, approximate: bool) -> str:
    k, n, alpha = blocks.n_systems, blocks.n_blocks, res["alpha"]
    out = [
        f"The statistical analysis was conducted for {k} systems with {n} paired samples "
        f"({_blocks_word(blocks)}); the family-wise significance level is α = {alpha:g}."
    ]
    dropped = blocks.dropped()
    if dropped:
        out.append(f"To get complete blocks, {dropped}.")
    p = res["normality"]
    if res["all_normal"]:
        out.append(
            "We failed to reject the null hypothesis of the Shapiro–Wilk test that the scores are "
            f"normal for every system at α/k = {res['alpha_normality']:.4g} (minimal p = "
            f"{p.min():.3g}); therefore we assume that all systems are normal."
        )
    else:
        rejected = p[p < res["alpha_normality"]].sort_values()
        listed = [f"{shorten(s, 32)} (p = {v:.3g})" for s, v in rejected.items()]
        out.append(
            "We rejected the null hypothesis of the Shapiro–Wilk test that the scores are normal "
            f"at α/k = {res['alpha_normality']:.4g} for {len(rejected)} of {k} systems: "
            f"{_names(listed)}; therefore we assume that not all systems are normal."
        )
    if approximate:
        out.append(
            "(scipy warned about the Shapiro–Wilk p-values: above 5,000 blocks they are "
            "approximate, and a constant system gives none.)"
        )
    test = "Bartlett's" if res["homoscedasticity_test"] == "bartlett" else "Levene's"
    verdict = "homoscedastic" if res["homoscedastic"] else "heteroscedastic"
    verb = "failed to reject" if res["homoscedastic"] else "rejected"
    out.append(
        f"We applied {test} test for homogeneity of variances and {verb} the null hypothesis "
        f"(p = {res['homoscedasticity_p']:.3g}) that the variances are equal; therefore we assume "
        f"that the data are {verdict}."
    )
    omnibus, post = res["omnibus"], res["posthoc"]
    if res["decision"] == "anova-tukey":
        why = (
            f"the user forced the parametric tests (the checks would choose {res['would']})"
            if res["override"]
            else "all systems are normal and homoscedastic"
        )
        out.append(
            f"Because we have more than two systems and {why}, we use the repeated-measures ANOVA "
            "as omnibus test and Tukey's HSD "
            f"({post.error} error term) as post-hoc test, and report means."
        )
        reject = omnibus.p_value < alpha
        out.append(
            f"We {'reject' if reject else 'failed to reject'} the null hypothesis of the ANOVA "
            f"that the mean scores are equal (F = {omnibus.statistic:.4g}, df "
            f"{omnibus.df[0]}, {omnibus.df[1]}, p = {omnibus.p_value:.3g}; Greenhouse–Geisser "
            f"ε = {omnibus.epsilon:.3g})."
        )
        test_name = "Tukey's HSD"
    else:
        why = (
            f"the user forced the non-parametric tests (the checks would choose {res['would']})"
            if res["override"]
            else (
                "the systems are normal but heteroscedastic"
                if res["all_normal"]
                else "not all systems are normal"
            )
        )
        out.append(
            f"Because we have more than two systems and {why}, we use Friedman's test as omnibus "
            "test and Nemenyi's post-hoc test; two systems differ significantly when their mean "
            f"ranks differ by more than the critical difference CD = "
            f"{post.critical_difference:.3f}."
        )
        reject = omnibus.p_value < alpha
        out.append(
            f"We {'reject' if reject else 'failed to reject'} the null hypothesis of Friedman's "
            f"test that all systems rank alike (χ²_F = {omnibus.statistic:.4g}, df {omnibus.df}, "
            f"p = {omnibus.p_value:.3g}; Iman–Davenport F_F p = {omnibus.f_p_value:.3g})."
        )
        test_name = "Nemenyi's test"
    if reject:
        groups = [g for g in post.groups() if len(g) > 1]
        if not groups:
            out.append(f"By {test_name}, all differences between the systems are significant.")
        else:
            shown = "; ".join(_names([shorten(s, 32) for s in g], 4) for g in groups[:3])
            more = f"; and {len(groups) - 3} more groups" if len(groups) > 3 else ""
            out.append(
                f"By {test_name}, there are no significant differences within the groups: "
                f"{shown}{more}. All other differences are significant."
            )
    else:
        out.append("No difference between the systems can therefore be claimed.")
    summary = res["summary"]
    if len(summary) > 1:
        last = summary.iloc[-1]
        out.append(
            f"The effect size ({_EFFECT_LONG[res['effect_size']]}) of the best system "
            f"{terminal(shorten(summary['system'].iloc[0], 32))} against the last, "
            f"{terminal(shorten(last['system'], 32))}, is "
            f"{_EFFECT_NAMES[res['effect_size']]} = {last['effect_size']:.3f} "
            f"({last['magnitude']})."
        )
    return " ".join(out)


@renamed_parameters(level="by")
def choose_test(
    data: Scores | Blocks | pd.DataFrame,
    alpha: float = 0.05,
    by: str | None = None,
    missing: str = "error",
    min_coverage: float = 0.0,
    force: str | None = None,
    effect_size: str | None = None,
    tukey_error: str = "repeated",
    effect_sizes: bool = True,
) -> ChoiceResult:
    """Choose between the repeated-measures ANOVA + Tukey's HSD and Friedman + Nemenyi, as
    autorank does, and run them (see :mod:`rankstats.significance.which_test`).

    Parameters
    ----------
    data : Scores, Blocks or pandas.DataFrame
        A score table (complete blocks from :func:`~rankstats.significance.blocks.rank_blocks`,
        higher = better), Blocks with scores, or a DataFrame of blocks (rows) × systems (columns)
        whose higher scores are better (autorank's input with ``order="descending"``).
    alpha : float
        Family-wise significance level of every step (normality at ``alpha / k``).
    by, missing, min_coverage
        As in :func:`rankstats.significance.friedman_test.friedman`.
    force : {"parametric", "nonparametric"}, optional
        Run these tests whatever the checks say (autorank's ``force_mode``); the checks are still
        reported.
    effect_size : {"cohens_d", "akinshin_gamma", "cliffs_delta"}, optional
        The effect size of :attr:`ChoiceResult.summary` (autorank's names ``cohen_d`` and
        ``cliff_delta`` are accepted); default Cohen's d when all systems are normal, else
        Akinshin's γ.
    tukey_error : {"repeated", "independent"}
        Error term of Tukey's HSD (:func:`~rankstats.significance.parametric.tukey_hsd`): the
        ANOVA's (default), or autorank's one-way error of independent groups.
    effect_sizes : bool
        Cliff's δ, Cohen's d and Akinshin's γ of every pair in the post-hoc table (default).
        False leaves them NaN there and computes only the ``2k − 1`` effect sizes of
        :attr:`ChoiceResult.summary`, as autorank does: Cliff's δ of all pairs is the costly
        part of a large table (about 1 s for 100 systems × 10,000 blocks).

    Returns
    -------
    ChoiceResult

    Raises
    ------
    ValueError
        Fewer than 3 systems (compare two with :func:`rankstats.paired`) or 5 complete blocks,
        bad arguments, incomplete blocks with ``missing="error"`` (the block is named).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from rankstats.significance.which_test import choose_test
    >>> rng = np.random.default_rng(0)
    >>> x = pd.DataFrame(rng.normal([0.5, 0.6, 0.9], 0.1, (30, 3)), columns=["a", "b", "c"])
    >>> res = choose_test(x)
    >>> res.decision, res.posthoc.groups()
    ('anova-tukey', [('c',), ('b',), ('a',)])
    """
    probability("alpha", alpha)
    check_level(by)
    if force not in (None, "parametric", "nonparametric"):
        raise ValueError(f"force must be None, 'parametric' or 'nonparametric', not {force!r}")
    effect_size = _effect_size_name(effect_size)
    missing = check_missing_scores(missing, min_coverage)  # before any computing
    blocks = score_blocks(data, by=by, missing=missing, min_coverage=min_coverage)
    values = _checked_values(blocks)
    k = values.shape[1]
    alpha = float(alpha)
    alpha_normality = alpha / k
    p_normal, approximate = _normality(values)
    all_normal = bool(np.all(p_normal >= alpha_normality))
    homo_test, homo_p = _homoscedasticity(values, all_normal)
    homoscedastic = bool(homo_p >= alpha)  # NaN (constant systems): not homoscedastic
    checks = "anova-tukey" if all_normal and homoscedastic else "friedman-nemenyi"
    decision = {None: checks, "parametric": "anova-tukey", "nonparametric": "friedman-nemenyi"}[
        force
    ]
    if decision == "anova-tukey":
        omnibus = repeated_measures_anova(blocks)
        post: PosthocResult = tukey_hsd(
            blocks, alpha=alpha, error=tukey_error, effect_sizes=effect_sizes
        )
    else:
        omnibus = friedman(blocks)
        post = posthoc(blocks, method="nemenyi", alpha=alpha, effect_sizes=effect_sizes)
    method = effect_size or ("cohens_d" if all_normal else "akinshin_gamma")
    summary = _summary(values, blocks, post, method)
    normality = pd.Series(p_normal, index=list(blocks.systems), name="shapiro_p")
    parts = {
        "alpha": alpha,
        "normality": normality,
        "alpha_normality": alpha_normality,
        "all_normal": all_normal,
        "homoscedasticity_test": homo_test,
        "homoscedasticity_p": homo_p,
        "homoscedastic": homoscedastic,
        "decision": decision,
        "forced": force,
        "would": "Friedman and Nemenyi" if checks == "friedman-nemenyi" else "ANOVA and Tukey",
        "omnibus": omnibus,
        "posthoc": post,
        "effect_size": method,
        "summary": summary,
    }
    parts["override"] = force is not None and decision != checks
    explanation = _explain(parts, blocks, approximate)
    parts.pop("would")
    parts.pop("override")
    return ChoiceResult(**parts, explanation=explanation, blocks=blocks)


def _effect_size_name(effect_size: str | None) -> str | None:
    """The effect size asked for, autorank's names translated; an unknown name is an error."""
    if effect_size is None:
        return None
    effect_size = _ALIASES.get(effect_size, effect_size)
    if effect_size not in MAGNITUDES:
        raise ValueError(
            f"effect_size must be one of {', '.join(map(repr, MAGNITUDES))}, not {effect_size!r}"
        )
    return effect_size


def _checked_values(blocks: Blocks) -> np.ndarray:
    """The blocks' scores ``(N, k)``: at least 3 systems and :data:`MIN_BLOCKS` blocks."""
    values = np.asarray(blocks.values, dtype=np.float64)
    n, k = values.shape
    if k < 3:
        raise ValueError(
            f"the automatic choice compares at least 3 systems, got {k} "
            f"({', '.join(blocks.systems)}): compare two with rs.paired"
        )
    if n < MIN_BLOCKS:
        raise ValueError(
            f"the automatic choice needs at least {MIN_BLOCKS} complete blocks (as autorank), got "
            f"{n}: normality cannot be checked on fewer; call rs.friedman / rs.posthoc directly"
        )
    return values


def _homoscedasticity(values: np.ndarray, all_normal: bool) -> tuple[str, float]:
    """Bartlett's test of equal variances when every system is normal, else Levene's (as
    autorank): its name and p-value (NaN for constant systems)."""
    columns = [values[:, j] for j in range(values.shape[1])]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        if all_normal:
            return "bartlett", float(stats.bartlett(*columns).pvalue)
        return "levene", float(stats.levene(*columns).pvalue)


__all__ = ["ChoiceResult", "choose_test", "magnitude"]
