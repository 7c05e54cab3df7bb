r"""Dispersion of a sample of rankings and the distance of a consensus to it.

After Colombo, Noiry, Irurozki & Clémençon (2022), "What are the best systems? New perspectives
on NLP benchmarking", Appendix C, which follows the ranking-median theory of Korba, Clémençon &
Sibony (2017).  With ``d`` the Kendall distance (ties count ½) and ``Σ_1 .. Σ_L`` the
rankings:

pairwise term (the dispersion)
    :math:`\gamma = \frac{1}{L(L-1)} \sum_{l \ne l'} \mathbb E\, d(\Sigma_l, \Sigma_{l'})`, the
    mean distance between two different rankings;
consensus term
    :math:`\mathcal L(\sigma) = \frac1L \sum_l \mathbb E\, d(\sigma, \Sigma_l)`, the mean
    distance of a consensus ``σ`` to the rankings (the paper's Table 5 reports it for the Borda
    and mean consensus);
bounds
    :math:`\gamma / 2 \le \mathcal L(\sigma)` for *every* ``σ`` (triangle inequality), and
    :math:`\mathcal L(\sigma^*) \le \gamma` for a Kemeny consensus ``σ*`` of complete rankings
    without ties (it is no worse than the best of the rankings themselves, whose mean distance
    to the others is at most :math:`\frac{L-1}{L}\gamma`);
random baseline
    a uniformly random order is at expected distance :math:`N(N-1)/4` of *any* ranking (each
    pair disagrees, or meets a tie, with probability ½), so :math:`\mathcal L` and ``γ`` are
    both at most that for uninformative rankings.

Missing systems are handled by the imputation of :mod:`rankstats.core.pair_probabilities` (each
ranking is a uniformly random completion, independently of the others) and the expectations above
are exact: per pair of systems, a ranking either ties them (both evaluated, equal), or puts ``i``
above ``j`` with probability :math:`A[i, j]` (1/0 when both are evaluated, the closed form
otherwise). Then, summed over ordered pairs of distinct rankings,

.. math::

    \sum_{l \ne l'} \mathbb E\, d(\Sigma_l, \Sigma_{l'}) = \sum_{i \ne j} \Big(\bar A_{ij}
    \bar A_{ji} - \sum_l A^{(l)}_{ij} A^{(l)}_{ji}\Big) + \sum_{i<j} \bar T_{ij} (L - \bar T_{ij}),

with :math:`\bar A = \sum_l A^{(l)}` and :math:`\bar T_{ij}` the number of rankings tying ``i``
and ``j``: ``O(L N²)``, with no loop over pairs of rankings.  For very many rankings a sampled
estimate (random pairs of rankings, empirical-Bernstein stopping rule) is also available.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from rankstats._util.arguments import probability, random_seed
from rankstats._util.renamed import renamed_parameters
from rankstats.aggregation.aggregators import AGGREGATORS, Aggregate, aggregate
from rankstats.aggregation.kemeny_search import KemenyResult, kemeny
from rankstats.core.metrics import kendall_distance as kendall_distance  # rs.kendall_distance
from rankstats.core.metrics import kendall_rows
from rankstats.core.pair_probabilities import PairSums, insertion_probability, pair_sums
from rankstats.core.rankings import Rankings, as_rankings
from rankstats.core.scores import Scores

_BLOCK_CELLS = 4_000_000
# L · N² above which method="auto" samples pairs of rankings instead of the exact sum.
_EXACT_BUDGET = 300_000_000


# ---------------------------------------------------------------------------- pair states
def _pairwise_term(sums: PairSums) -> float:
    r"""γ from the sums of the imputation kernel
    (:func:`rankstats.core.pair_probabilities.pair_sums`).

    :math:`\bar A = W - \bar T / 2` (the probability of ``i`` strictly above ``j``, summed), and
    ``self_product`` is :math:`\sum_l A^{(l)}_{ij} A^{(l)}_{ji}` (a tie has ``A = 0`` both ways).
    """
    n_rows = sums.n_rankings
    if n_rows < 2:
        return float("nan")
    above = sums.wins - 0.5 * sums.ties
    discord = (above * above.T - sums.self_product).sum()
    tie_part = np.triu(sums.ties * (n_rows - sums.ties), 1).sum()
    return float((discord + tie_part) / (n_rows * (n_rows - 1)))


def _state_matrices(ranks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-ranking ``A`` and ``T`` matrices, shape (m, N, N)."""
    observed = ~np.isnan(ranks)
    q = insertion_probability(ranks)
    oi = observed[:, :, None]
    oj = observed[:, None, :]
    ri = ranks[:, :, None]
    rj = ranks[:, None, :]
    above = np.where(
        oi & oj,
        (ri < rj).astype(np.float64),
        np.where(
            ~oi & oj,
            q[:, None, :],
            np.where(oi & ~oj, 1.0 - q[:, :, None], 0.5),
        ),
    )
    tied = (oi & oj & (ri == rj)).astype(np.float64)
    n = ranks.shape[1]
    diag = np.arange(n)
    above[:, diag, diag] = 0.0
    tied[:, diag, diag] = 0.0
    return above, tied


def expected_distance(ranks_a: np.ndarray, ranks_b: np.ndarray) -> np.ndarray:
    """Expected Kendall distance between the rows of two partial rank matrices (m, N).

    Complete rows use the ``O(N log² N)`` merge count; rows with missing systems use the
    per-pair state probabilities (``O(N²)``).
    """
    ranks_a = np.atleast_2d(ranks_a)
    ranks_b = np.atleast_2d(ranks_b)
    m, n = ranks_a.shape
    out = np.empty(m)
    complete = ~(np.isnan(ranks_a).any(axis=1) | np.isnan(ranks_b).any(axis=1))
    if complete.any():
        out[complete] = kendall_rows(ranks_a[complete], ranks_b[complete])
    rows = np.flatnonzero(~complete)
    chunk = max(1, _BLOCK_CELLS // max(n * n, 1))
    for start in range(0, len(rows), chunk):
        idx = rows[start : start + chunk]
        a_above, a_tied = _state_matrices(ranks_a[idx])
        b_above, b_tied = _state_matrices(ranks_b[idx])
        discord = (a_above * np.swapaxes(b_above, 1, 2)).sum(axis=(1, 2))
        half = a_tied * (1.0 - b_tied) + (1.0 - a_tied) * b_tied
        diag = np.arange(n)
        half[:, diag, diag] = 0.0
        out[idx] = discord + 0.25 * half.sum(axis=(1, 2))
    return out


# ---------------------------------------------------------------------------- result
@renamed_parameters(n_samples="draws")
@dataclass(frozen=True, eq=False, repr=False)
class Dispersion:
    """The result of :func:`dispersion`.

    Attributes
    ----------
    pairwise : float
        ``γ``: mean (expected) Kendall distance between two different rankings.
    pairwise_interval : tuple of float
        Confidence interval of ``γ`` (a point when ``method == "exact"``).
    consensus : float
        ``L(σ)``: mean (expected) Kendall distance of the consensus to the rankings (NaN when
        no consensus was given).
    random_baseline : float
        ``N(N-1)/4``: expected distance of a uniformly random order to any ranking.
    n_systems, n_rankings : int
    method : str
        ``"exact"`` or ``"sampled"``.
    draws : int
        Pairs of rankings drawn (0 when exact).
    delta : float
        Error level of ``pairwise_interval`` when sampled.
    """

    pairwise: float
    pairwise_interval: tuple[float, float]
    consensus: float
    random_baseline: float
    n_systems: int
    n_rankings: int
    method: str
    draws: int = 0
    delta: float = 0.0

    @property
    def lower_bound(self) -> float:
        """``γ / 2``: no consensus is closer to the rankings than this on average."""
        return self.pairwise / 2.0

    @property
    def upper_bound(self) -> float:
        """``γ``: a Kemeny consensus of complete rankings without ties is at most this far."""
        return self.pairwise

    @property
    def max_distance(self) -> float:
        """``N(N-1)/2``, the largest Kendall distance."""
        return self.n_systems * (self.n_systems - 1) / 2.0

    @property
    def consensus_ratio(self) -> float:
        """``L(σ) / γ``: in ``[½, 1]`` for a Kemeny consensus of complete, tie-free rankings."""
        return self.consensus / self.pairwise if self.pairwise > 0 else float("nan")

    def __repr__(self) -> str:
        interval = ""
        if self.method == "sampled":
            low, high = self.pairwise_interval
            interval = f" [{low:.6g}, {high:.6g}] ({1 - self.delta:.0%}, {self.draws} pairs)"
        consensus = (
            ""
            if math.isnan(self.consensus)
            else f"; consensus {self.consensus:.6g} (ratio {self.consensus_ratio:.3f})"
        )
        return (
            f"Dispersion({self.n_rankings} rankings of {self.n_systems} systems, {self.method}: "
            f"pairwise γ = {self.pairwise:.6g}{interval}, bounds for a consensus "
            f"[{self.lower_bound:.6g}, {self.upper_bound:.6g}]{consensus}; random order "
            f"{self.random_baseline:.6g}, max {self.max_distance:.6g})"
        )


# ---------------------------------------------------------------------------- consensus input
def consensus_ranks(consensus, systems: Sequence[str]) -> np.ndarray:
    """Rank vector (1 = best, ties allowed) of a consensus aligned to ``systems``.

    Accepts a best-first list of all systems, an :class:`~rankstats.Aggregate` (its ranks, ties
    kept), a :class:`~rankstats.KemenyResult`, or a pandas Series ``system → rank``.
    """
    systems = list(systems)
    if isinstance(consensus, KemenyResult):
        consensus = consensus.order
    if isinstance(consensus, Aggregate):
        table = consensus.table.set_index("system")["rank"]
        if table.isna().any():
            raise ValueError(
                f"consensus {consensus.method!r} has no rank for: "
                f"{table[table.isna()].index.tolist()[:8]}"
            )
        consensus = table
    if isinstance(consensus, pd.Series):
        unknown = [s for s in consensus.index if s not in set(systems)]
        missing = [s for s in systems if s not in consensus.index]
        if unknown or missing:
            raise ValueError(
                f"consensus must rank exactly the systems; unknown: {unknown[:8]}, "
                f"missing: {missing[:8]}"
            )
        values = consensus.reindex(systems).to_numpy(dtype=np.float64)
        if np.isnan(values).any():
            raise ValueError("consensus ranks contain NaN")
        return values
    order = [str(s) for s in consensus]
    if len(set(order)) != len(order):
        raise ValueError("consensus order names a system twice")
    unknown = [s for s in order if s not in set(systems)]
    missing = [s for s in systems if s not in set(order)]
    if unknown or missing:
        raise ValueError(
            f"consensus must list every system once; unknown: {unknown[:8]}, missing: {missing[:8]}"
        )
    position = {s: k + 1.0 for k, s in enumerate(order)}
    return np.array([position[s] for s in systems])


def consensus_distance(
    ranks_consensus: np.ndarray, wins: np.ndarray, ties: np.ndarray, n_rows: int
) -> float:
    """Mean expected distance of a consensus rank vector to ``n_rows`` rankings summarised by
    their :class:`~rankstats.core.pair_probabilities.PairSums` ``wins`` and ``ties``."""
    c = ranks_consensus
    higher = c[:, None] < c[None, :]
    tied = np.triu(c[:, None] == c[None, :], 1)
    # i above j in the consensus costs P(j above i) = A_ji + T_ji / 2; a consensus tie costs ½
    # unless the ranking ties the pair too.
    total = wins.T[higher].sum() + 0.5 * (n_rows - ties[tied]).sum()
    return float(total / n_rows)


# ---------------------------------------------------------------------------- public API
@renamed_parameters(level="by", max_samples="max_draws")
def dispersion(
    data: Rankings | Scores,
    consensus=None,
    method: str = "auto",
    by: str | None = None,
    delta: float = 0.05,
    rtol: float = 0.01,
    max_draws: int = 200_000,
    seed: int = 0,
) -> Dispersion:
    r"""Dispersion of rankings (mean distance between two) and distance of a consensus to them.

    Parameters
    ----------
    data : Rankings or Scores
        Scores are ranked per instance when they have instances, else per task.
    consensus : list of str, Aggregate, KemenyResult or pandas Series, optional
        The consensus whose mean distance ``L(σ)`` to the rankings is reported.
    method : {"auto", "exact", "sampled"}
        ``exact``: the ``O(L N²)`` closed form.  ``sampled``: mean over random pairs of distinct
        rankings, drawn in doubling batches until the half-width of the empirical-Bernstein
        (Maurer & Pontil, 2009) or Hoeffding interval, whichever is shorter, falls below
        ``rtol`` × the estimate (error level ``δ_k = δ / (k (k + 1))`` at the ``k``-th look,
        so the interval is valid whenever the rule stops).  ``auto``: exact unless
        ``L · N²`` exceeds 3·10⁸.
    by : {"task", "instance"}, optional
        Ranking level for Scores.
    delta, rtol, max_draws, seed
        Sampled estimate: error level, relative half-width target, cap, random seed.

    Returns
    -------
    Dispersion

    Examples
    --------
    >>> import rankstats as rs
    >>> rk = rs.Rankings.from_orderings([["a", "b", "c"], ["a", "c", "b"], ["b", "a", "c"]])
    >>> dp = rs.dispersion(rk, consensus=["a", "b", "c"])
    >>> round(dp.pairwise, 4), round(dp.consensus, 4), dp.random_baseline
    (1.3333, 0.6667, 1.5)
    """
    if method not in ("auto", "exact", "sampled"):
        raise ValueError(f"method must be 'auto', 'exact' or 'sampled', not {method!r}")
    probability("delta", delta)
    random_seed("seed", seed)
    rk = as_rankings(data, by)
    ranks = rk.ranks
    n_rows, n = ranks.shape
    if n_rows < 2:
        raise ValueError(f"dispersion needs at least two rankings, got {n_rows}")
    if method == "auto":
        method = "exact" if n_rows * n * n <= _EXACT_BUDGET else "sampled"
    need_sums = method == "exact" or consensus is not None
    sums = pair_sums(ranks, second_moment=True) if need_sums else None
    draws = 0
    if method == "exact":
        gamma = _pairwise_term(sums)
        interval = (gamma, gamma)
    else:
        gamma, interval, draws = _sampled_pairwise(ranks, delta, rtol, max_draws, seed)
    distance = float("nan")
    if consensus is not None:
        c = consensus_ranks(consensus, rk.systems)
        distance = consensus_distance(c, sums.wins, sums.ties, n_rows)
    return Dispersion(
        pairwise=gamma,
        pairwise_interval=interval,
        consensus=distance,
        random_baseline=n * (n - 1) / 4.0,
        n_systems=n,
        n_rankings=n_rows,
        method=method,
        draws=draws,
        delta=delta if method == "sampled" else 0.0,
    )


def _sampled_pairwise(
    ranks: np.ndarray, delta: float, rtol: float, max_draws: int, seed: int
) -> tuple[float, tuple[float, float], int]:
    rng = np.random.default_rng(seed)
    n_rows, n = ranks.shape
    span = n * (n - 1) / 2.0
    values: list[np.ndarray] = []
    batch = 256
    look = 0
    while True:
        look += 1
        size = min(batch, max_draws - sum(len(v) for v in values))
        first = rng.integers(n_rows, size=size)
        second = rng.integers(n_rows - 1, size=size)
        second += second >= first
        values.append(expected_distance(ranks[first], ranks[second]))
        sample = np.concatenate(values)
        m = len(sample)
        mean = float(sample.mean())
        level = delta / (look * (look + 1))
        half = _half_width(sample, span, level)
        if half <= rtol * mean or m >= max_draws or (span == 0):
            low, high = max(0.0, mean - half), min(span, mean + half)
            return mean, (low, high), m
        batch *= 2


def _half_width(sample: np.ndarray, span: float, level: float) -> float:
    """Shorter of the Hoeffding and empirical-Bernstein two-sided half-widths (each at level/2)."""
    m = len(sample)
    hoeffding = span * math.sqrt(math.log(4.0 / level) / (2.0 * m))
    if m < 2:
        return hoeffding
    log_term = math.log(8.0 / level)
    var = float(sample.var(ddof=1))
    bernstein = math.sqrt(2.0 * var * log_term / m) + 7.0 * span * log_term / (3.0 * (m - 1))
    return min(hoeffding, bernstein)


@renamed_parameters(level="by")
def dispersion_table(
    data: Rankings | Scores,
    candidates: Sequence[str] | Mapping[str, object] = ("kemeny", "borda", "mean", "random"),
    by: str | None = None,
    time_limit: float | None = 60.0,
    seed: int = 0,
) -> pd.DataFrame:
    """Distance of several consensus candidates to the rankings, next to the dispersion bounds.

    The table of Colombo et al. (2022, Table 5), for any aggregation methods at once.

    Parameters
    ----------
    data : Rankings or Scores
        ``mean`` / ``median`` candidates need Scores.
    candidates : sequence of str, or dict
        ``kemeny`` (exact, or best found within ``time_limit``), ``random`` (a uniformly random
        order: ``N(N-1)/4`` in closed form), or any :func:`rankstats.aggregate` method.  A dict
        maps row labels to such names or to ready consensus objects (an order, an
        :class:`~rankstats.Aggregate`, a :class:`~rankstats.KemenyResult`).
    by : {"task", "instance"}, optional
        Ranking level for Scores (also passed to the aggregation methods).

    Returns
    -------
    pandas.DataFrame
        One row per candidate: ``candidate``, ``distance`` (mean Kendall distance to a ranking),
        ``ratio`` (distance / γ), ``relative_to_random``, ``above_lower_bound`` (distance ≥ γ/2,
        always true), ``below_pairwise`` (distance ≤ γ), ``optimal`` (Kemeny proved optimal).
        ``attrs`` holds ``pairwise`` (γ), ``random_baseline``, ``n_rankings``, ``n_systems``.

    Examples
    --------
    >>> import rankstats as rs
    >>> tab = rs.dispersion_table(rs.load_dataset("xtreme"), candidates=["kemeny", "random"])
    >>> tab["candidate"].tolist()
    ['kemeny', 'random']
    """
    random_seed("seed", seed)
    rk = as_rankings(data, by)
    ranks = rk.ranks
    n_rows, n = ranks.shape
    sums = pair_sums(ranks, second_moment=True)
    gamma = _pairwise_term(sums)
    baseline = n * (n - 1) / 4.0
    rows = []
    tol = 1e-9 * max(1.0, gamma)
    items = candidates.items() if isinstance(candidates, Mapping) else [(c, c) for c in candidates]
    for name, spec in items:
        optimal = None
        if not isinstance(spec, str):
            optimal = spec.optimal if isinstance(spec, KemenyResult) else None
            candidate = spec
        elif spec == "random":
            candidate = None
        elif spec == "kemeny":
            candidate = kemeny(rk, method="auto", time_limit=time_limit, seed=seed)
            optimal = candidate.optimal
        elif spec in AGGREGATORS:
            if spec in ("mean", "median") and not isinstance(data, Scores):
                raise ValueError(f"candidate {spec!r} needs Scores, not Rankings")
            agg_input = data if spec in ("mean", "median", "borda2") else rk
            candidate = aggregate(
                agg_input, method=spec, by=by if isinstance(data, Scores) else None
            )
        else:
            raise ValueError(
                f"unknown candidate {spec!r}; use 'kemeny', 'random' or one of "
                f"{', '.join(AGGREGATORS)}"
            )
        if candidate is None:
            distance = baseline
        else:
            c = consensus_ranks(candidate, rk.systems)
            distance = consensus_distance(c, sums.wins, sums.ties, n_rows)
        rows.append(
            {
                "candidate": name,
                "distance": distance,
                "ratio": distance / gamma if gamma > 0 else float("nan"),
                "relative_to_random": distance / baseline if baseline > 0 else float("nan"),
                "above_lower_bound": bool(distance >= gamma / 2 - tol),
                "below_pairwise": bool(distance <= gamma + tol),
                "optimal": optimal,
            }
        )
    table = pd.DataFrame(rows)
    table.attrs.update(
        {"pairwise": gamma, "random_baseline": baseline, "n_rankings": n_rows, "n_systems": n}
    )
    return table
