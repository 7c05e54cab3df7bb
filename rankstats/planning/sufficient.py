r"""Power on a test's sufficient statistic: the fast path of :func:`rankstats.power`.

The engine of :mod:`rankstats.planning.replications` draws every score of every simulated
benchmark, ranks every block and applies each test to the table. When the blocks are i.i.d.
(one (task, instance) each, no corruption) and one test is asked for, the test only sees a
statistic whose law is known in closed form; that statistic is drawn directly, vectorised over
the replications, and the p-value is computed by the function the analysis of a real table uses:

- ``"discordant counts"``: binary outcomes of two systems (normal latent scores, no ``scales``);
  ``mcnemar``, ``sign``, ``wilcoxon``; the 2 × 2 table :math:`(n_{11}, n_{10}, n_{01}, n_{00})`
  ~ Multinomial(B, p) (identical outputs: both as the first system);
- ``"win counts"``: two systems with continuous noise (Gumbel, normal, Laplace); ``sign``;
  (wins, losses, ties) ~ Multinomial(B; P(a > b), P(b > a), the identical share);
- ``"ranking counts"``: Gumbel noise, 3 to :data:`MAX_RANKED` systems (2 for ``friedman``);
  ``sign``, ``friedman``; the counts of the N! instance rankings ~ Multinomial(B, Plackett–Luce
  probabilities), with the all-tied blocks of identical outputs;
- ``"normal moments"``: normal noise, no identical outputs; ``t``; the systems' means
  ~ N(μ, Σ / B) and, independent of them, their scatter matrix ~ Wishart(B − 1, Σ).

``B`` is the number of blocks (tasks × instances). The p-values: the sign and McNemar tests by
:func:`~rankstats.paired_analysis.paired_tests.sign_test_p_values` of the win counts (then Holm
over the pairs, as the engine); Friedman's χ² by
:func:`~rankstats.significance.friedman_test.friedman_from_sums` of the rank sums and squares;
the paired t-test by :func:`~rankstats.paired_analysis.paired_tests.paired_t_from_moments` of
each pair's mean and standard deviation (the pair's scatter :math:`W_{aa} + W_{bb} - 2W_{ab}`);
the Wilcoxon test of ±1 / 0 differences by
:func:`~rankstats.paired_analysis.paired_tests.wilcoxon_p_values` of one column per distinct
count triple. The recovery of the true order is measured for the aggregators the statistic
determines: σ^l (Borda) from the ranking counts, σ^μ (the mean) from the 2 × 2 table or the
means; the other is not simulated on this path, and the result's repr says so.

Any other design, several tests, task-level blocks or the Bayesian test: None, and
:func:`rankstats.power` runs the engine.
"""

from __future__ import annotations

import contextlib
import contextvars
import itertools
import math
from collections.abc import Iterator

import numpy as np
from scipy import stats

from rankstats.aggregation.hoeffding_intervals import holm_adjust
from rankstats.core.pair_probabilities import ranking_borda
from rankstats.paired_analysis.paired_tests import (
    paired_t_from_moments,
    sign_test_p_values,
    wilcoxon_p_values,
)
from rankstats.planning.design import BenchmarkDesign, pair_indices
from rankstats.planning.replications import Replicates, recovery_metrics, signed
from rankstats.significance.friedman_test import friedman_from_sums
from rankstats.simulate.gumbel_benchmark import noise_mixing

#: What each path draws (the value of :attr:`rankstats.PowerResult.method`).
PATHS = ("discordant counts", "win counts", "ranking counts", "normal moments")
#: The general engine's :attr:`~rankstats.PowerResult.method`.
ENGINE = "scores"
#: Most systems whose N! rankings are the cells of one multinomial.
MAX_RANKED = 6
#: Numbers held per chunk of replications (cells or Wishart factors, and pairs).
CHUNK_CELLS = 2_000_000
#: What a chunk gives: decisions, estimates (None for an omnibus test), computable, and the
#: aggregate scores whose recovery is measured.
Parts = tuple[np.ndarray, np.ndarray | None, np.ndarray, dict[str, np.ndarray]]
#: The aggregators whose recovery of the true order each path measures (σ^l, σ^μ).
AGGREGATORS = {
    "discordant counts": ("borda", "mean"),
    "win counts": ("borda",),
    "ranking counts": ("borda",),
    "normal moments": ("mean",),
}
#: The aggregator a recovery target of :func:`rankstats.sample_size` needs (:func:`needing`).
_needed: contextvars.ContextVar[str | None] = contextvars.ContextVar("needed", default=None)


@contextlib.contextmanager
def needing(aggregator: str | None) -> Iterator[None]:
    """Within the block, a path that does not measure ``aggregator``'s recovery is not taken
    (:func:`rankstats.sample_size` of a recovery target: its power calls keep their public
    signature, and a context variable is local to the thread and the block)."""
    token = _needed.set(aggregator)
    try:
        yield
    finally:
        _needed.reset(token)


def sufficient_path(design: BenchmarkDesign, tests: tuple[str, ...], by: str) -> str | None:
    """The path of :data:`PATHS` that simulates ``tests`` on ``design`` (None: the engine)."""
    if len(tests) != 1 or not _plain(design, by):
        return None
    test, n = tests[0], design.n_systems
    if design.outcome == "binary":
        ok = n == 2 and design.noise == "normal" and design.scales is None
        path = "discordant counts" if ok and test in ("mcnemar", "sign", "wilcoxon") else None
    elif test == "sign" and n == 2 and _continuous_pair(design):
        path = "win counts"
    elif test in ("sign", "friedman") and design.noise == "gumbel" and n <= MAX_RANKED:
        path = "ranking counts" if n > 2 or test == "friedman" else None
    elif test == "t" and design.noise == "normal" and not design.identical:
        path = "normal moments" if design.n_tasks * design.n_instances - 1 >= n else None
    else:
        path = None
    needed = _needed.get()
    if path is not None and needed is not None and needed not in AGGREGATORS[path]:
        return None
    return path


def _plain(design: BenchmarkDesign, by: str) -> bool:
    """I.i.d. blocks: instance-level, no missing score, outlier, instance type, rounding, task
    effect or Mallows ranking."""
    return (
        (by == "instance" or design.n_tasks == 1)
        and design.mallows is None
        and design.missing_rate == 0
        and design.outliers is None
        and design.instance_types is None
        and design.round_to is None
        and design.task_effects is None
    )


def _continuous_pair(design: BenchmarkDesign) -> bool:
    """The two systems' difference has no atom but the identical outputs (no tie otherwise)."""
    p = design.win_probabilities(np.array([0, 1]), np.array([1, 0]))
    return bool(abs(p.sum() - (1.0 - design.identical)) < 1e-12)


def simulate_sufficient(
    design: BenchmarkDesign,
    path: str,
    test: str,
    alpha: float,
    n_replications: int,
    seed: int,
    zero_method: str | None = None,
) -> Replicates:
    """``n_replications`` draws of ``test``'s statistic on ``design`` by ``path``
    (:func:`sufficient_path`), as the engine's :class:`Replicates`."""
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    blocks = design.n_tasks * design.n_instances
    n, n_pairs = design.n_systems, design.n_systems * (design.n_systems - 1) // 2
    if path == "normal moments":
        per_chunk = max(1, CHUNK_CELLS // (n * n + n * n_pairs))

        def chunk(count: int) -> Parts:
            return _normal_moments(design, blocks, alpha, count, rng)

    else:
        ranks, scores, p = _cells(design, path)
        per_chunk = max(1, CHUNK_CELLS // (len(p) + n * n_pairs))

        def chunk(count: int) -> Parts:
            counts = rng.multinomial(blocks, p, size=count)
            return _on_counts(design, test, counts, ranks, scores, alpha, zero_method)

    # Chunks of replications bound the memory (the N! cells, the Wishart factors); drawn in
    # turn from one generator, so the numbers depend on the seed alone.
    sizes = [min(per_chunk, n_replications - lo) for lo in range(0, n_replications, per_chunk)]
    parts = [chunk(size) for size in sizes]
    decisions, estimates, computable = (
        None if parts[0][k] is None else np.concatenate([part[k] for part in parts])
        for k in range(3)
    )
    aggregates = {key: np.concatenate([part[3][key] for part in parts]) for key in parts[0][3]}
    return Replicates(
        design=design,
        tests=(test,),
        by="instance",
        alpha=alpha,
        seed=seed,
        decisions={test: decisions},
        estimates={} if estimates is None else {test: estimates},
        computable={test: computable},
        recovery=_recovery(design, aggregates, counted=path != "normal moments"),
        n_replications=n_replications,
        complete=True,
        rope_claims={},
        tested={} if test == "friedman" else {test: np.ones(n_pairs, dtype=bool)},
    )


def _recovery(
    design: BenchmarkDesign, aggregates: dict[str, np.ndarray], counted: bool
) -> dict[str, np.ndarray]:
    """:func:`~rankstats.planning.replications.recovery_metrics` of the aggregate scores; those
    made of counts repeat (a few hundred distinct rows in thousands of replications), so they
    are measured once per distinct row (a lexicographic sort, not ``np.unique``'s slower
    structured rows)."""
    if not counted:
        return recovery_metrics(design, aggregates)
    out: dict[str, np.ndarray] = {}
    for name, rows in aggregates.items():
        order = np.lexsort(rows.T[::-1])
        ordered = rows[order]
        first = np.r_[True, np.any(ordered[1:] != ordered[:-1], axis=1)]
        inverse = np.empty(len(rows), dtype=np.int64)
        inverse[order] = np.cumsum(first) - 1
        metrics = recovery_metrics(design, {name: ordered[first]})
        out.update({key: value[inverse] for key, value in metrics.items()})
    return out


def _cells(design: BenchmarkDesign, path: str) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """The kinds of block of a path: their mid-ranks ``(C, N)``, their scores ``(C, N)`` when
    the mean aggregator is determined (binary outcomes), and their probabilities ``(C,)``."""
    tie = design.identical
    if path == "discordant counts":
        outcomes = np.array([[1.0, 1.0], [1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
        a, b = design.names
        p10, p01 = design.discordance(a, b)
        right = float(design.accuracies[0])
        p11 = right - p10
        p = np.array([p11, p10, p01, 1.0 - p11 - p10 - p01]) * (1.0 - tie)
        p += tie * np.array([right, 0.0, 0.0, 1.0 - right])  # as the first system, both
        ranks = np.array([[1.5, 1.5], [1.0, 2.0], [2.0, 1.0], [1.5, 1.5]])
        return ranks, outcomes, _normalised(p)
    if path == "win counts":
        win = design.win_probabilities(np.array([0, 1]), np.array([1, 0]))
        ranks = np.array([[1.0, 2.0], [2.0, 1.0], [1.5, 1.5]])
        return ranks, None, _normalised(np.array([win[0], win[1], tie]))
    orders = np.array(list(itertools.permutations(range(design.n_systems))))  # best first
    ranks = np.empty(orders.shape)
    np.put_along_axis(ranks, orders, np.arange(1.0, design.n_systems + 1), axis=1)
    p = np.exp(plackett_luce_log_probabilities(design.mu / design.scale, orders))
    tied = np.full((1, design.n_systems), (design.n_systems + 1) / 2.0)
    return np.vstack([ranks, tied]), None, _normalised(np.append(p * (1.0 - tie), tie))


def plackett_luce_log_probabilities(log_worth: np.ndarray, orders: np.ndarray) -> np.ndarray:
    r"""Log-probabilities of complete orders (``(C, N)``, system positions best first) under
    Plackett–Luce: :math:`\log P(\pi) = \sum_k [\lambda_{\pi_k} - \log \sum_{j \ge k}
    e^{\lambda_{\pi_j}}]` (Luce 1959; the law of the order of :math:`\lambda_i + G_i`, ``G``
    i.i.d. standard Gumbel: Yellott 1977)."""
    lam = np.asarray(log_worth, dtype=np.float64)[orders]
    # log Σ_{j ≥ k} e^{λ_{π_j}}: a log-sum-exp of every suffix, from the last position back.
    suffix = np.logaddexp.accumulate(lam[:, ::-1], axis=1)[:, ::-1]
    return (lam - suffix).sum(axis=1)


def _normalised(p: np.ndarray) -> np.ndarray:
    """Probabilities clipped at 0 and summing to 1 exactly (``Generator.multinomial`` checks
    that the first ``C − 1`` add up to at most 1)."""
    p = np.clip(p, 0.0, None)
    return p / p.sum()


def _on_counts(
    design: BenchmarkDesign,
    test: str,
    counts: np.ndarray,
    ranks: np.ndarray,
    scores: np.ndarray | None,
    alpha: float,
    zero_method: str | None,
) -> Parts:
    """Decisions, estimates, computable and aggregate scores from the counts ``(R, C)`` of the
    kinds of block (:func:`_cells`)."""
    blocks = counts.sum(axis=1).astype(np.float64)
    counts_f = counts.astype(np.float64)
    aggregates = {"borda": counts_f @ ranking_borda(ranks)}
    if scores is not None:
        aggregates["mean"] = counts_f @ scores / blocks[:, None]
    computable = blocks >= 2
    if test == "friedman":
        centred = ranks - (ranks.shape[1] + 1) / 2.0
        chi2, _ = friedman_from_sums(
            blocks, counts_f @ centred, counts_f @ (centred**2).sum(axis=1)
        )
        p = stats.chi2.sf(chi2, ranks.shape[1] - 1)
        return computable & (p < alpha), None, computable & np.isfinite(chi2), aggregates
    ia, ib = pair_indices(design.n_systems)
    # Float products (BLAS; integer ones are not): whole numbers, exactly, far below 2^53.
    wins_a = counts_f @ (ranks[:, ia] < ranks[:, ib]).astype(np.float64)  # (R, P)
    wins_b = counts_f @ (ranks[:, ia] > ranks[:, ib]).astype(np.float64)
    if test == "wilcoxon":
        p = _wilcoxon_on_counts(wins_a[:, 0], wins_b[:, 0], counts.sum(axis=1), zero_method)
        estimate = ((wins_a - wins_b) / blocks[:, None]).astype(np.float64)
    else:
        p = sign_test_p_values(wins_a, wins_b)
        estimate = (wins_a + 0.5 * (blocks[:, None] - wins_a - wins_b)) / blocks[:, None] - 0.5
    p = np.where(np.isnan(p), 1.0, p).reshape(wins_a.shape)
    return signed(holm_adjust(p) < alpha, estimate), estimate, computable, aggregates


def _wilcoxon_on_counts(
    positive: np.ndarray, negative: np.ndarray, blocks: np.ndarray, zero_method: str | None
) -> np.ndarray:
    """Wilcoxon p-values of differences that are +1 (``positive`` of them), −1 or 0: one
    column per distinct count triple through
    :func:`~rankstats.paired_analysis.paired_tests.wilcoxon_p_values` (a few hundred columns
    for thousands of replications)."""
    triples, inverse = np.unique(
        np.stack([positive, negative, blocks], axis=1), axis=0, return_inverse=True
    )
    row = np.arange(int(blocks.max()))[:, None]
    p = np.empty(len(triples))
    group = max(1, CHUNK_CELLS // len(row))  # columns held at once
    for lo in range(0, len(triples), group):
        pos, neg, n = triples[lo : lo + group].T
        columns = np.where(row < pos, 1.0, np.where(row < pos + neg, -1.0, 0.0))
        columns = np.where(row < n, columns, np.nan)
        p[lo : lo + group] = wilcoxon_p_values(columns, False, zero_method or "wilcox")
    return p[inverse.ravel()][:, None]


def _normal_moments(
    design: BenchmarkDesign,
    blocks: int,
    alpha: float,
    n_replications: int,
    rng: np.random.Generator,
) -> Parts:
    r"""The paired t-test of every pair from the means and the scatter matrix of normal scores.

    The scores of a block are :math:`\mu + \text{scale}\, M z`, :math:`M M^\top` the
    correlation-and-scales matrix of :func:`rankstats.simulate.gumbel_benchmark.gumbel_cubes`
    and ``z`` standard normal. Over ``B`` blocks the means are
    :math:`\mu + \text{scale}\, M z / \sqrt B` and, independently, the scatter matrix is
    :math:`\text{scale}^2 M G M^\top` with :math:`G \sim \mathrm{Wishart}(B - 1, I)`, drawn by
    Bartlett's decomposition :math:`G = L L^\top` (:math:`L_{ii}^2 \sim \chi^2_{B-1-i}`,
    :math:`L_{ij} \sim N(0, 1)` below the diagonal; Bartlett 1933). The difference of a pair
    ``(a, b)`` has scatter :math:`\text{scale}^2 \lVert L^\top v \rVert^2`,
    :math:`v = M^\top (e_a - e_b)`.
    """
    n = design.n_systems
    mix = noise_mixing(n, design.correlation, design.scales)
    df = blocks - 1
    means = design.mu + design.scale * rng.standard_normal((n_replications, n)) @ mix.T / math.sqrt(
        blocks
    )
    lower = np.tril(rng.standard_normal((n_replications, n, n)), -1)
    diagonal = np.sqrt(rng.chisquare(df - np.arange(n), size=(n_replications, n)))
    lower[:, np.arange(n), np.arange(n)] = diagonal
    ia, ib = pair_indices(n)
    v = (mix[ia] - mix[ib]).T  # (N, P)
    scatter = np.square(np.matmul(lower.transpose(0, 2, 1), v)).sum(axis=1)  # (R, P)
    sd = design.scale * np.sqrt(scatter / df)
    estimate = means[:, ia] - means[:, ib]
    p = paired_t_from_moments(estimate, sd, np.full(estimate.shape, blocks))
    p = np.where(np.isnan(p), 1.0, p)
    computable = np.full(n_replications, blocks >= 2)
    return signed(holm_adjust(p) < alpha, estimate), estimate, computable, {"mean": means}
