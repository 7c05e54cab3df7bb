r"""Power, its Monte Carlo error, and the Type-S / Type-M errors, from the simulated decisions.

For a test and a pair whose first system is truly better (by the design's locations), over ``R``
simulated benchmarks:

- **power** = P(significant *and* in the true direction) (Card et al. 2020 count a rejection
  with the wrong sign as a failure too);
- **wrong direction** = P(significant the other way); **Type S** = wrong / (right + wrong), the
  share of significant results with the wrong sign (Gelman & Carlin 2014);
- **Type M** (exaggeration ratio) = E[|estimate| | significant] / |true effect|, the true effect
  being the expected estimate (its mean over all replications, oriented), so that a value above
  1 says by how much the significant results overstate the difference (Gelman & Carlin 2014);
- for a pair of equal locations (no difference), the rejection rate: the test's size.

Every proportion comes with its Monte Carlo standard error :math:`\sqrt{\hat p (1 - \hat p)/R}`;
the summaries over several pairs (the mean power over the adjacent pairs, the probability that
*every* adjacent pair is significant in the right direction) are means over replications of a
per-replication value, with the standard error of that mean.

References
----------
Card, D., Henderson, P., Khandelwal, U., Jia, R., Mahowald, K. and Jurafsky, D. (2020). With little
power comes great responsibility. *EMNLP 2020*, 9263–9274.

Gelman, A. and Carlin, J. (2014). Beyond power calculations: assessing Type S (sign) and Type M
(magnitude) errors. *Perspectives on Psychological Science* 9(6), 641–651.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import pandas as pd

from rankstats._util.renamed import renamed_parameters
from rankstats._util.text import terminal
from rankstats.planning.design import BenchmarkDesign, pair_indices
from rankstats.planning.replications import OMNIBUS, Replicates
from rankstats.significance.zero_methods import SHORT

#: What :attr:`PowerResult.summary` reports per test (the targets of :func:`rankstats.sample_size`).
TARGETS = ("pair", "adjacent", "all_adjacent", "all_pairs", "omnibus")
#: Recovery of the true order by an aggregator (whatever the test): P(the true best first alone)
#: and the mean Kendall τ_b to the truth, of σ^l (``borda``) and σ^μ (``mean``) for score tables,
#: of the fitted Bradley–Terry ratings (``bt``) for battle logs.
RECOVERY_TARGETS = ("borda_top1", "borda_tau", "mean_top1", "mean_tau", "bt_top1", "bt_tau")
#: How a sentence names each target.
TARGET_WORDS = {
    "pair": "the named pair",
    "adjacent": "a pair of systems next to each other in the true order (mean over those pairs)",
    "all_adjacent": "every pair of systems next to each other in the true order at once",
    "all_pairs": "every pair of systems that differ at once",
    "omnibus": "the omnibus test",
    "borda_top1": "σ^l ranking the true best system first",
    "borda_tau": "the mean Kendall τ of σ^l to the true order",
    "mean_top1": "σ^μ ranking the true best system first",
    "mean_tau": "the mean Kendall τ of σ^μ to the true order",
    "bt_top1": "the fitted ratings ranking the true best model first",
    "bt_tau": "the mean Kendall τ of the fitted ratings to the true order",
}
TEST_LABELS = {
    "hoeffding": "Hoeffding intervals (Holm)",
    "friedman": "Friedman χ²",
    "nemenyi": "Nemenyi",
    "conover": "Conover (Holm)",
    "imputed": "imputed-rank test χ²",
    "imputed-holm": "imputed-rank z tests (Holm)",
    "sign": "sign test (Holm)",
    "mcnemar": "exact McNemar test (Holm)",
    "wilcoxon": "Wilcoxon signed-rank (Holm)",
    "t": "paired t-test (Holm)",
    "bayes": "Bayesian signed-rank test",
    "battles": "Bradley–Terry Wald tests of rating differences (Holm)",
    "battles-ub": "separated Fisher intervals of the ratings (rank UB)",
}
#: The tests in running prose ("… by the paired t-test").
TEST_PROSE = {
    "t": "the paired t-test",
    "wilcoxon": "the Wilcoxon signed-rank test",
    "sign": "the sign test",
    "mcnemar": "the exact McNemar test",
    "hoeffding": "the Hoeffding intervals",
    "nemenyi": "Nemenyi's test",
    "conover": "Conover's test",
    "imputed-holm": "the imputed-rank z tests",
    "bayes": "the Bayesian signed-rank test",
    "battles": "the Wald tests of rating differences",
    "battles-ub": "the separation of the ratings' Fisher intervals",
}


def test_label(test: str, zero_method: str | None = None, prose: bool = False) -> str:
    """How a table (:data:`TEST_LABELS`) or a sentence (``prose``: :data:`TEST_PROSE`) names
    ``test``; the Wilcoxon test with its treatment of zero differences
    (:data:`rankstats.significance.zero_methods.SHORT`).

    >>> test_label("wilcoxon", "pratt", prose=True)
    'the Wilcoxon signed-rank test with zero differences ranked as Pratt (1959)'
    """
    label = TEST_PROSE.get(test, test) if prose else TEST_LABELS[test]
    return f"{label} {SHORT[zero_method]}" if test == "wilcoxon" and zero_method else label


def mean_and_se(values: np.ndarray) -> tuple[float, float]:
    """Mean over replications (axis 0) and its Monte Carlo standard error ``sd / √R``; NaN
    values (a statistic that does not exist in that replication, e.g. the Kendall τ of a
    battle log without an MLE) are left out."""
    values = np.asarray(values, dtype=np.float64)
    values = values[~np.isnan(values)]
    n = values.shape[0]
    mean = float(values.mean()) if n else float("nan")
    se = float(values.std(ddof=1) / np.sqrt(n)) if n > 1 else float("nan")
    return mean, se


def true_signs(design: BenchmarkDesign) -> np.ndarray:
    """``sign(μ_a − μ_b)`` of every pair ``a < b`` of the pair axis."""
    ia, ib = pair_indices(design.n_systems)
    return np.sign(design.mu[ia] - design.mu[ib]).astype(np.int8)


def adjacent_pairs(design: BenchmarkDesign) -> np.ndarray:
    """Positions on the pair axis of the pairs of systems next to each other in the truth (equal
    locations excluded: there is nothing to detect)."""
    mu = design.mu
    order = np.argsort(-mu, kind="stable")
    ia, ib = pair_indices(design.n_systems)
    lookup = {(int(a), int(b)): k for k, (a, b) in enumerate(zip(ia, ib, strict=True))}
    out = []
    for better, worse in itertools.pairwise(order):
        if mu[better] != mu[worse]:
            out.append(lookup[(int(min(better, worse)), int(max(better, worse)))])
    return np.asarray(out, dtype=np.int64)


@renamed_parameters(level="by", replications="n_replications")
@dataclass(frozen=True, eq=False, repr=False)
class PowerResult:
    r"""Power of each test for a design: the result of :func:`rankstats.power`.

    Attributes
    ----------
    summary : pandas.DataFrame
        One row per test: ``pair`` (power for the named pair), ``adjacent`` (mean power over the
        pairs next to each other in the true order), ``all_adjacent`` (P(every adjacent pair
        significant in the right direction)), ``all_pairs`` (the same for every pair with a
        difference), ``omnibus`` (Friedman and the imputed-rank test: P(reject)),
        ``false_claims`` (P(at least one pair without a difference declared different, or one
        declared the wrong way round)), each
        with ``<name>_se``, and ``computable`` (share of replications where the test had the
        blocks it needs).
    pairs : pandas.DataFrame
        One row per (test, pair), the truly better system first: ``true_effect`` (the expected
        estimate: P(above) − ½ for Hoeffding and the sign test, the mean rank gap for Nemenyi and
        Conover, the mean imputed-rank gap for the imputed-rank z tests, the mean score difference
        for Wilcoxon and t), ``power``, ``power_se``,
        ``wrong_direction``, ``type_s``, ``type_m``, ``adjacent``, ``null`` (equal locations:
        ``power`` is then the rejection rate); for the Bayesian signed-rank test (which decides
        the named pair and the adjacent pairs only) ``rope_claim``, P(practical equivalence
        claimed).
    recovery : pandas.DataFrame
        Per aggregator (``borda`` = σ^l, ``mean`` = σ^μ): Kendall τ_b of the aggregate order to
        the truth and P(the true best ranked first alone), with standard errors.
    design : BenchmarkDesign
    tests : tuple of str
    by : str
    alpha : float
    n_replications : int
        Replications done (fewer than asked when interrupted: ``complete`` is then False).
    seed : int
    pair : tuple of str or None
    complete : bool
    bayes : dict or None
        The Bayesian signed-rank test's ``rope``, ``threshold`` and ``posterior_draws`` (when
        it was simulated).
    notes : tuple of str
        What the numbers rest on beyond the design (e.g. sizes beyond a calibration pilot's).
    zero_method : str or None
        The Wilcoxon test's treatment of zero score differences (``"wilcox"``, ``"pratt"`` or
        ``"zsplit"``: :mod:`rankstats.significance.zero_methods`); None without that test.
    method : str
        How the benchmarks were simulated: ``"scores"`` (every score drawn, every block ranked,
        each test applied to the table: :mod:`rankstats.planning.replications`), ``"battles"``
        (battle logs), or the one test's sufficient statistic drawn directly
        (:mod:`rankstats.planning.sufficient`): ``"discordant counts"``, ``"win counts"``,
        ``"ranking counts"`` or ``"normal moments"``; such a statistic determines the recovery
        of one aggregator only (σ^l from rankings, σ^μ from means) where it does not give both,
        and :attr:`recovery` then has that row alone.
    """

    summary: pd.DataFrame
    pairs: pd.DataFrame
    recovery: pd.DataFrame
    design: BenchmarkDesign
    tests: tuple[str, ...]
    by: str
    alpha: float
    n_replications: int
    seed: int
    pair: tuple[str, str] | None
    complete: bool
    bayes: dict | None = None
    notes: tuple[str, ...] = ()
    zero_method: str | None = None
    method: str = "scores"

    def power_of(self, test: str, target: str = "adjacent") -> tuple[float, float]:
        """``(power, Monte Carlo s.e.)`` of one test for one target of :attr:`summary`; a
        recovery target (:data:`RECOVERY_TARGETS`, e.g. ``"borda_top1"``) is the aggregator's,
        whatever the test."""
        if test not in self.summary.index:
            raise ValueError(f"test {test!r} was not simulated; tests: {', '.join(self.tests)}")
        if target in RECOVERY_TARGETS:
            aggregator, what = target.split("_")
            if aggregator not in self.recovery.index:
                known = ", ".join(f"{a}_{w}" for a in self.recovery.index for w in ("top1", "tau"))
                raise ValueError(f"target {target!r} does not apply to this design; its: {known}")
            column = "kendall_tau" if what == "tau" else "top1"
            row = self.recovery.loc[aggregator]
            return float(row[column]), float(row[f"{column}_se"])
        if target not in TARGETS:
            known = ", ".join((*TARGETS, *RECOVERY_TARGETS))
            raise ValueError(f"target must be one of {known}, not {target!r}")
        row = self.summary.loc[test]
        return float(row[target]), float(row[f"{target}_se"])

    def sentence(self, test: str | None = None, target: str | None = None) -> str:
        """One sentence for a methods section, e.g. "With 1,000 instances per task, …"."""
        test = test or self.tests[0]
        if test in OMNIBUS:
            target = "omnibus"  # their only target
        target = target or ("pair" if self.pair else "adjacent")
        value, se = self.power_of(test, target)
        what = {
            "pair": f"declares the better of {self.pair[0]} and {self.pair[1]} significantly better"
            if self.pair
            else "detects the named pair",
            "adjacent": "declares the better of two systems next to each other in the true order "
            "significantly better (mean over those pairs)",
            "all_adjacent": "orders every pair of systems next to each other in the true order "
            "significantly and correctly",
            "all_pairs": "orders every pair of systems that differ significantly and correctly",
            "omnibus": "rejects that all systems rank alike",
        }[target]
        how = f"at α = {self.alpha:g}"
        if test == "bayes" and self.bayes:
            # A Bayesian claim: "practically better" at a posterior threshold, not a test level.
            how = (
                f"(ROPE ±{self.bayes['rope']:g}, a claim at posterior probability "
                f"≥ {self.bayes['threshold']:g})"
            )
            what = what.replace("significantly better", "practically better").replace(
                "significantly and correctly", "as practically different, correctly"
            )
        notes = "".join(f"; {note}" for note in self.notes)
        simulated = "benchmarks"
        if self.by == "battle":
            simulated, what = "battle logs", what.replace("systems", "models")
        return (
            f"{self.design.setting()}, {test_label(test, self.zero_method)} {how} "
            f"{what} with power {value:.3f} (Monte Carlo s.e. {se:.3f}, "
            f"{self.n_replications:,} simulated {simulated}; Card et al. 2020{notes})."
        )

    def __repr__(self) -> str:
        shown = self.summary[
            [
                c
                for c in ("pair", "adjacent", "all_adjacent", "omnibus", "false_claims")
                if c in self.summary
            ]
        ]
        lines = [
            f"PowerResult({self.n_replications:,} replications, α = {self.alpha:g}, "
            f"{'battle logs' if self.by == 'battle' else self.by + '-level blocks'}"
            f"{'' if self.complete else ', INTERRUPTED'})",
            f"  design: {self.design.describe()}",
        ]
        if self.pair:
            lines.append(f"  pair: {terminal(self.pair[0])} vs {terminal(self.pair[1])}")
        if self.method not in ("scores", "battles"):
            # A sufficient statistic determines one aggregator's recovery only (σ^l or σ^μ).
            measured = ", ".join(self.recovery.index)
            lines.append(
                f"  simulated: the test's sufficient statistic ({self.method}); recovery of the "
                f"true order measured for {measured} only"
            )
        if self.zero_method:
            zeros = self.zero_method
            lines.append(f"  wilcoxon: {SHORT[zeros]} (zero_method={zeros!r})")
        table = shown.to_string(float_format=lambda v: f"{v:.3f}", na_rep="—")
        lines += ["  " + line for line in table.splitlines()]
        lines += [f"  note: {note}" for note in self.notes]
        return "\n".join(lines)


def power_tables(
    rep: Replicates, pair: int | None
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """:attr:`PowerResult.summary`, ``.pairs`` and ``.recovery`` from the replications."""
    truth = _Truth.of(rep.design)
    summary_rows, pair_frames = [], []
    for test in rep.tests:
        row: dict[str, float | str] = {"test": test}
        computable_share, _ = mean_and_se(rep.computable[test])
        if test in OMNIBUS:
            row["omnibus"], row["omnibus_se"] = mean_and_se(rep.decisions[test])
        else:
            frame = _pair_test(rep, test, truth, pair, row)
            pair_frames.append(frame)
        row["computable"] = computable_share
        summary_rows.append(row)
    columns = ["test"]
    for target in (*TARGETS, "false_claims"):
        columns += [target, f"{target}_se"]
    summary = pd.DataFrame(summary_rows).reindex(columns=[*columns, "computable"])
    summary = summary.set_index("test")
    pairs = (
        pd.concat(pair_frames, ignore_index=True)
        if pair_frames
        else pd.DataFrame(columns=["test", "system_a", "system_b", "power"])
    )
    return summary, pairs, _recovery_table(rep)


@dataclass(frozen=True, eq=False)
class _Truth:
    """The design's pairs ``a < b``: true signs (0: no difference), better system first."""

    signs: np.ndarray
    null: np.ndarray
    adjacent: np.ndarray
    is_adjacent: np.ndarray
    first: np.ndarray
    second: np.ndarray

    @classmethod
    def of(cls, design: BenchmarkDesign) -> _Truth:
        signs = true_signs(design)
        adjacent = adjacent_pairs(design)
        ia, ib = pair_indices(design.n_systems)
        names = np.array(design.names, dtype=object)
        better_first = signs >= 0
        is_adjacent = np.zeros(len(ia), dtype=bool)
        is_adjacent[adjacent] = True
        return cls(
            signs=signs,
            null=signs == 0,
            adjacent=adjacent,
            is_adjacent=is_adjacent,
            first=np.where(better_first, names[ia], names[ib]),
            second=np.where(better_first, names[ib], names[ia]),
        )


def _pair_test(
    rep: Replicates, test: str, truth: _Truth, pair: int | None, row: dict[str, float | str]
) -> pd.DataFrame:
    """The pair rows of a pairwise test (power, Type S and M), its summary targets put in
    ``row``."""
    null, signs, adjacent = truth.null, truth.signs, truth.adjacent
    dec = rep.decisions[test].astype(np.int16) * np.where(null, 1, signs)
    right = (dec > 0) & ~null
    wrong = (dec < 0) & ~null
    null_rejected = (dec != 0) & null
    estimate = rep.estimates[test] * np.where(null, 1, signs)
    present = ~np.isnan(estimate)  # a battle log without an MLE has no estimate
    effect = np.where(present, estimate, 0.0).sum(axis=0) / np.maximum(present.sum(axis=0), 1)
    significant = right | wrong
    with np.errstate(invalid="ignore", divide="ignore"):
        n_sig = significant.sum(axis=0)
        type_s = np.where(n_sig > 0, wrong.sum(axis=0) / n_sig, np.nan)
        type_m = np.abs(np.where(significant & present, estimate, 0.0)).sum(axis=0) / n_sig
        type_m = np.where((n_sig > 0) & ~null, type_m / np.abs(effect), np.nan)
    power = np.where(null, null_rejected.mean(axis=0), right.mean(axis=0))
    tested = rep.tested[test]  # the Bayesian test decides some pairs only
    frame = pd.DataFrame(
        {
            "test": test,
            "system_a": truth.first,
            "system_b": truth.second,
            "adjacent": truth.is_adjacent,
            "null": null,
            "true_effect": effect,
            "power": power,
            "power_se": np.sqrt(power * (1 - power) / rep.n_replications),
            "wrong_direction": wrong.mean(axis=0),
            "type_s": type_s,
            "type_m": type_m,
        }
    )
    if test in rep.rope_claims:
        frame["rope_claim"] = rep.rope_claims[test].mean(axis=0)
    if pair is not None:
        row["pair"], row["pair_se"] = mean_and_se(
            null_rejected[:, pair] if null[pair] else right[:, pair]
        )
    if len(adjacent):
        row["adjacent"], row["adjacent_se"] = mean_and_se(right[:, adjacent].mean(axis=1))
        row["all_adjacent"], row["all_adjacent_se"] = mean_and_se(right[:, adjacent].all(axis=1))
    if (~null).any() and tested[~null].all():
        row["all_pairs"], row["all_pairs_se"] = mean_and_se(right[:, ~null].all(axis=1))
    row["false_claims"], row["false_claims_se"] = mean_and_se(
        ((null_rejected | wrong) & tested).any(axis=1)
    )
    return frame[tested]


def _recovery_table(rep: Replicates) -> pd.DataFrame:
    """Kendall's τ to the true order and the share of correct winners, per aggregator."""
    rows = []
    for aggregator in dict.fromkeys(key.rsplit("_", 1)[0] for key in rep.recovery):
        tau, tau_se = mean_and_se(rep.recovery[f"{aggregator}_tau"])
        top1, top1_se = mean_and_se(rep.recovery[f"{aggregator}_top1"])
        rows.append(
            {
                "aggregator": aggregator,
                "kendall_tau": tau,
                "kendall_tau_se": tau_se,
                "top1": top1,
                "top1_se": top1_se,
            }
        )
    return pd.DataFrame(rows).set_index("aggregator")
