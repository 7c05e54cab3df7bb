r"""Confidence sets for ranks: marginal and simultaneous (Mogstad, Romano, Shaikh & Wilhelm, 2024).

The parameter of system ``j`` is its **expected score** :math:`\theta_j = E[V_{bj}]`, the mean
over blocks ``b`` of the complete blocks × systems table of oriented scores (higher = better) that
:func:`rankstats.significance.blocks.rank_blocks` builds: one block per (task, instance) at
``by="instance"`` (select one task first, :meth:`Scores.select`, so that the blocks share a
metric), one per task at ``by="task"``.  The rank of ``j`` is
:math:`r_j = 1 + \#\{k : \theta_k > \theta_j\}` (1 = best; systems with equal θ share the best
rank they span).

A confidence set for :math:`r_j` follows from confidence intervals for the differences
:math:`\theta_j - \theta_k`: if ``k`` is significantly better than ``j`` it is above ``j`` in the
true order, if significantly worse it is below, so

.. math::  r_j \in \bigl[\,1 + \#\{k : \theta_k > \theta_j \text{ significantly}\},\;
           n - \#\{k : \theta_k < \theta_j \text{ significantly}\}\,\bigr].

The intervals for the differences are simultaneous (max-t) bootstrap intervals, with
:math:`\hat\sigma_{jk}` the standard error of :math:`\hat\theta_j - \hat\theta_k` (the standard
deviation of the paired differences over the blocks, over :math:`\sqrt N`):

- **marginal** (``simultaneous=False``): for each ``j`` the family
  :math:`\{\theta_j - \theta_k, \theta_k - \theta_j : k \ne j\}`; the set covers the rank of
  that one system with probability about ``1 − α``;
- **simultaneous** (``simultaneous=True``): the family of all ordered pairs; the sets cover the
  ranks of *all* systems at once with probability about ``1 − α``.

Each family is tested with one-sided lower bounds :math:`\hat\theta_j - \hat\theta_k -
\hat\sigma_{jk}\, c` for every ordered pair it contains (both directions: the same as two-sided
max-|t| intervals), where ``c`` is the ``1 − α`` quantile over bootstrap draws of the
**studentized** maximum :math:`\max_{(j,k)} \bigl[(\hat\theta^*_j - \hat\theta_j) -
(\hat\theta^*_k - \hat\theta_k)\bigr] / \hat\sigma^*_{jk}`, the standard error
:math:`\hat\sigma^*_{jk}` recomputed in every resample
(:mod:`rankstats.significance.rank_sets_bootstrap`; keeping the full-sample :math:`\hat\sigma_{jk}`
under-covers when systems are close: 0.88 joint coverage at nominal 0.95 for 8 equal systems on 30
blocks).  With ``stepdown=True`` the pairs found significant are removed from the family and ``c``
is recomputed on the rest until nothing new is rejected (Romano & Wolf, 2005; the step-down of
Mogstad et al., 2024, and of their R package csranks).

The bootstrap resamples **blocks** with replacement (all systems together, so the dependence
between systems on the same block is kept): a ``(B × N)`` matrix of multinomial counts gives
every bootstrap mean and covariance matrix at once, in chunks of ``B`` that bound the memory
(``memory=``, a budget in bytes); only the maxima of the ``B × n × n`` statistics are kept, and
the result does not depend on the budget.  ``n_resamples`` must be at least ``10 / α`` (200 at
α = 0.05): the critical value is an order statistic in the tail of the draws.
csranks uses a parametric (normal) bootstrap from an estimated covariance matrix instead; the two
agree asymptotically.

The sets are asymptotic (a central limit theorem over blocks): they need many blocks, independent
of each other.  The Hoeffding rank ranges of :mod:`rankstats.aggregation.hoeffding_intervals` answer
a different question (ranks implied by pairwise probabilities ``P(a above b)``, finite-sample,
distribution free); :meth:`RankSets.compare_hoeffding` puts both side by side.

References
----------
Mogstad, M., Romano, J. P., Shaikh, A. M. and Wilhelm, D. (2024). Inference for ranks with
applications to mobility across neighbourhoods and academic achievement across countries.
*Review of Economic Studies* 91(1), 476–518. doi:10.1093/restud/rdad006.

Romano, J. P. and Wolf, M. (2005). Exact and approximate stepdown methods for multiple hypothesis
testing. *Journal of the American Statistical Association* 100(469), 94–108.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from rankstats._util.advice import AdviceError, AdviceWarning, escape
from rankstats._util.arguments import count, probability, random_seed
from rankstats._util.renamed import renamed_parameters
from rankstats._util.text import shorten, terminal
from rankstats._util.user_frame import user_stacklevel
from rankstats.core.rankings import MIN_SYSTEMS, Rankings, check_level, require_systems
from rankstats.core.scores import Scores
from rankstats.errors import preview
from rankstats.significance.block_variation import require_variation
from rankstats.significance.blocks import Blocks, check_missing_blocks, rank_blocks
from rankstats.significance.missing_words import COMPLETE, check_missing
from rankstats.significance.rank_sets_bootstrap import (
    Studentized,
    marginal_families,
    simultaneous_family,
)

if TYPE_CHECKING:
    from rankstats.aggregation.hoeffding_intervals import HoeffdingResult

#: Below this many blocks the bootstrap sets are unreliable (a :class:`DataWarning` says so).
FEW_BLOCKS = 30

#: Fewest bootstrap draws at or beyond the ``1 − α`` quantile: ``n_resamples ≥ MIN_TAIL_DRAWS / α``
#: (200 at α = 0.05).  With fewer the critical value is one of the few largest draws (with
#: ``n_resamples < 1 / α``, the largest), and the sets mostly reflect Monte Carlo noise.
MIN_TAIL_DRAWS = 10

#: Default bound, in bytes, of the ``chunk × n × n`` bootstrap statistics held at once
#: (``memory=`` of :func:`rank_confidence_sets`).
MEMORY = 64 * 2**20


@renamed_parameters(level="by", n_boot="n_resamples")
@dataclass(frozen=True, eq=False, repr=False)
class RankSets:
    r"""Confidence sets for the ranks of the expected scores: the result of
    :func:`rank_confidence_sets`.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per system, best estimate first: ``system``, ``estimate`` (:math:`\hat\theta`,
        the mean oriented score over the blocks), ``std_error``, ``rank`` (the estimated rank
        :math:`1 + \#\{k : \hat\theta_k > \hat\theta_j\}`), ``rank_low``, ``rank_high`` (the
        confidence set :math:`\{\text{rank\_low}, \dots, \text{rank\_high}\}`).
    alpha : float
        Error level: the sets cover with probability about ``1 − alpha``.
    simultaneous : bool
        Sets covering all ranks at once (True) or each rank on its own (False).
    stepdown : bool
        Whether the step-down refinement was used.
    n_resamples : int
        Number of bootstrap resamples.
    seed : int or None
        Seed of the resampling.
    n_blocks : int
        Number of (complete) blocks ``N``.
    by : str
        What a block is (``"instance"``, ``"task"``, ``"block"`` for a DataFrame).
    critical : numpy.ndarray
        The final critical value(s) ``c``: one (simultaneous) or one per system of :attr:`table`
        (marginal); NaN where nothing was left to test.
    n_steps : int
        Number of step-down steps (1 without step-down).
    significant : pandas.DataFrame
        Square boolean matrix in :attr:`table` order: True where the row system is significantly
        better than the column system (for the marginal sets: in the family of the row or the
        column system).
    dropped : str
        What was dropped to get complete blocks (empty when nothing was).
    of : {"score", "rank"}
        The parameter: the expected oriented score (``estimate`` is the mean score), or the
        expected rank within a block (``estimate`` is the mean rank, 1 = best; the parameter of
        Friedman's test, free of the scales of the tasks).
    """

    table: pd.DataFrame
    alpha: float
    simultaneous: bool
    stepdown: bool
    n_resamples: int
    seed: int | None
    n_blocks: int
    by: str
    critical: np.ndarray
    n_steps: int
    significant: pd.DataFrame
    dropped: str = ""
    of: str = "score"

    @property
    def systems(self) -> tuple[str, ...]:
        """The systems in :attr:`table` order (best estimate first)."""
        return tuple(self.table["system"])

    def rank_range(self) -> pd.DataFrame:
        """``system``, ``rank_low``, ``rank_high``, as :meth:`HoeffdingResult.rank_range`."""
        return self.table[["system", "rank_low", "rank_high"]].reset_index(drop=True)

    def compare_hoeffding(self, hoeffding: HoeffdingResult) -> pd.DataFrame:
        """These sets and the Hoeffding rank ranges side by side, in :attr:`table` order.

        Columns ``system``, ``estimate``, ``rank``, ``rank_low``, ``rank_high`` (these sets),
        ``hoeffding_low``, ``hoeffding_high`` (:meth:`HoeffdingResult.rank_range`), and the
        widths ``width`` / ``hoeffding_width`` (number of ranks in each set).  The two answer
        different questions: these sets are for the ranks of the expected scores, the Hoeffding
        ranges for the order implied by the pairwise probabilities.
        """
        other = hoeffding.rank_range().rename(
            columns={"rank_low": "hoeffding_low", "rank_high": "hoeffding_high"}
        )
        missing = sorted(set(self.systems) - set(other["system"]))
        if missing:
            raise ValueError(
                f"the Hoeffding result has no {preview(missing, 4)}: compute both on the same "
                "systems"
            )
        out = self.table[["system", "estimate", "rank", "rank_low", "rank_high"]].merge(
            other, on="system", how="left"
        )
        out["width"] = out["rank_high"] - out["rank_low"] + 1
        out["hoeffding_width"] = out["hoeffding_high"] - out["hoeffding_low"] + 1
        return out

    def plot(self, ax=None, hoeffding: HoeffdingResult | None = None, width: int = 28):
        """Interval plot of the rank sets (one row per system, best at the top).

        A bar from ``rank_low`` to ``rank_high`` and a dot at the estimated rank; with
        ``hoeffding``, the Hoeffding rank range of each system as a thinner second bar. Names
        longer than ``width`` characters are drawn as unique abbreviations
        (:func:`rankstats.plotting.names.labels`); the axes' title then says so and
        ``rs.plotting.name_key(sets.systems, width)`` is the key. Returns the matplotlib ``Axes``.
        """
        import matplotlib.pyplot as plt

        from rankstats.plotting.names import labels, shortened_note

        n = len(self.table)
        if ax is None:
            _, ax = plt.subplots(figsize=(6.5, 0.8 + 0.28 * n))
        y = np.arange(n)
        kind = "simultaneous" if self.simultaneous else "marginal"
        offset = 0.0 if hoeffding is None else -0.17
        ax.hlines(
            y + offset,
            self.table["rank_low"] - 0.4,
            self.table["rank_high"] + 0.4,
            color="C0",
            lw=5,
            label=f"{kind} {1 - self.alpha:.0%} rank set (bootstrap)",
        )
        ax.plot(self.table["rank"], y + offset, "o", color="k", ms=4, label="estimated rank")
        if hoeffding is not None:
            both = self.compare_hoeffding(hoeffding)
            ax.hlines(
                y + 0.17,
                both["hoeffding_low"] - 0.4,
                both["hoeffding_high"] + 0.4,
                color="C1",
                lw=3,
                label="Hoeffding rank range",
            )
        ax.set_yticks(y)
        ax.set_yticklabels(labels(self.systems, width))
        if note := shortened_note(self.systems, width):
            ax.set_title(note, fontsize="small")
        ax.set_ylim(n - 0.5, -0.5)
        ax.set_xlim(0.4, n + 0.6)
        ax.set_xlabel("rank (1 = best)")
        ax.grid(axis="x", color="0.9")
        ax.legend(
            loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=2, fontsize="small", frameon=False
        )
        return ax

    def __repr__(self) -> str:
        n = len(self.table)
        kind = "simultaneous" if self.simultaneous else "marginal"
        step = "step-down" if self.stepdown else "single-step"
        blocks = "blocks" if self.by == "block" else f"{self.by} blocks"
        lines = [
            f"RankSets({n} systems, {self.n_blocks} {blocks}, {kind}, "
            f"{1 - self.alpha:.0%}, {step})",
            f"  ranks of the expected {self.of} in a block; {self.n_resamples} bootstrap "
            "resamples of "
            f"the blocks (seed {self.seed}), {self.n_steps} step(s)",
        ]
        if self.dropped:
            lines.append(f"  {self.dropped}")
        lines.append(
            f"  rank  set     {'mean rank' if self.of == 'rank' else 'estimate':>8}  system"
        )
        shown = self.table.head(10)
        for row in shown.itertuples(index=False):
            lines.append(
                f"  {row.rank:<4}  {f'{row.rank_low}–{row.rank_high}':<6}  {row.estimate:>8.4g}  "
                f"{terminal(shorten(row.system, 40))}"
            )
        if n > len(shown):
            lines.append(f"  ... {n - len(shown)} more")
        return "\n".join(lines)


def _values(
    data: Scores | Blocks | pd.DataFrame, by: str | None, missing: str, of: str
) -> tuple[np.ndarray, tuple[str, ...], str, str]:
    """``(values (N × n), systems, level, dropped)`` of the input, higher = better: the scores,
    or with ``of="rank"`` the negated ranks within each block (imputed expected ranks for
    blocks built with ``missing="imputed"``)."""
    if isinstance(data, pd.DataFrame):
        require_systems(data.columns)
        try:
            values = data.to_numpy(dtype=np.float64)
        except (TypeError, ValueError) as error:
            raise TypeError("the DataFrame must hold numbers only (blocks × systems)") from error
        if np.isinf(values).any():
            raise ValueError("the DataFrame holds infinite scores")
        incomplete = np.isnan(values).any(axis=1)
        dropped = ""
        if incomplete.any():
            if missing == "error":
                first = data.index[int(np.argmax(incomplete))]
                raise AdviceError(
                    f"block {escape(repr(first))} has a missing score ({int(incomplete.sum())} "
                    f"of {len(data)} blocks are incomplete): pass {{missing}} (drops them and "
                    "reports what was dropped)",
                    missing="complete-case",
                )
            dropped = (
                f"{int(incomplete.sum())} of {len(data)} blocks dropped (incomplete): "
                f"{preview([str(b) for b in data.index[incomplete]], 4)}"
            )
            values = values[~incomplete]
        require_variation(values)
        if of == "rank":
            from scipy.stats import rankdata

            # Rank 1 = best within each block; negated so that higher is better, as for scores.
            values = -rankdata(-values, axis=1, method="average")
        return values, tuple(str(c) for c in data.columns), "block", dropped
    if isinstance(data, Rankings):
        raise TypeError("rank confidence sets need scores (Scores or a DataFrame), not Rankings")
    if not isinstance(data, Scores | Blocks):
        raise TypeError(f"expected Scores, Blocks or a DataFrame, not {type(data).__name__}")
    blocks = rank_blocks(data, by=by, missing=missing)
    if of == "rank":
        # The ranks the tests read: mid-ranks of complete blocks, or the imputed expected ranks
        # (complete by construction) of blocks with missing scores.
        return -blocks.ranks, blocks.systems, blocks.by, blocks.dropped()
    if blocks.imputed:
        raise AdviceError(
            "the expected score needs complete blocks (these have missing scores, {imputed}): "
            "pass {of} (the expected imputed rank) or {complete}",
            imputed=("missing", "imputed"),
            of="rank",
            complete=("missing", "complete-case"),
        )
    if blocks.values is None:
        raise TypeError("these blocks carry no scores (built from Rankings): pass the Scores")
    return blocks.values, blocks.systems, blocks.by, blocks.dropped()


def check_rank_sets(
    alpha: float = 0.05,
    n_resamples: int = 1000,
    missing: str = "error",
    of: str = "score",
    frame: bool = False,
) -> str:
    """The arguments of :func:`rank_confidence_sets` checked before any computing (``frame``: the
    data is a DataFrame, whose blocks are never imputed); the word of ``missing`` in the one
    vocabulary."""
    probability("alpha", alpha)
    count("n_resamples", n_resamples, 1)
    if n_resamples < minimum_boot(alpha):
        raise AdviceError(
            f"{{n_resamples}} of {n_resamples} resamples is too few for {1 - alpha:.4g} "
            "confidence sets: "
            f"the critical value is the {1 - alpha:.4g} quantile of the draws, and at least "
            f"{MIN_TAIL_DRAWS} draws must lie beyond it; use at least {minimum_boot(alpha)} "
            f"resamples at {{alpha}} ({MIN_TAIL_DRAWS} / α)",
            n_resamples=None,
            alpha=alpha,
        )
    if of not in ("score", "rank"):
        raise ValueError(f"of must be 'score' or 'rank', not {of!r}")
    if frame:
        return check_missing(missing, COMPLETE, what="a DataFrame (its blocks are not imputed)")
    return check_missing_blocks(missing)


def minimum_boot(alpha: float) -> int:
    """Fewest resamples :func:`rank_confidence_sets` accepts at error level ``alpha``:
    ``ceil(MIN_TAIL_DRAWS / α)`` (200 at α = 0.05, 1,000 at α = 0.01)."""
    return int(np.ceil(MIN_TAIL_DRAWS / alpha - 1e-9))


@renamed_parameters(level="by", n_boot="n_resamples")
def rank_confidence_sets(
    data: Scores | Blocks | pd.DataFrame,
    *,
    by: str | None = None,
    alpha: float = 0.05,
    simultaneous: bool = True,
    stepdown: bool = True,
    n_resamples: int = 1000,
    seed: int | None = 0,
    missing: str = "error",
    of: str = "score",
    memory: int | None = None,
) -> RankSets:
    r"""Marginal or simultaneous confidence sets for the ranks of the expected scores.

    See :mod:`rankstats.significance.rank_sets` for the method (Mogstad, Romano, Shaikh &
    Wilhelm, 2024).

    Parameters
    ----------
    data : Scores, Blocks or pandas.DataFrame
        A score table (its complete blocks from :func:`rankstats.significance.blocks.rank_blocks`,
        oriented so that higher is better), a :class:`Blocks` with scores, or a DataFrame of blocks
        (rows) × systems (columns) whose higher scores are better.
    by : {"instance", "task"}, optional
        What a block is (:func:`~rankstats.core.rankings.default_level` by default).  The parameter
        of a system is its mean score over the blocks; at instance level select one task
        (``scores.select([task])``) unless the tasks share a scale.
    alpha : float
        Error level: coverage about ``1 − alpha``.
    simultaneous : bool
        True: the sets cover the ranks of all systems at once; False: each set covers the rank
        of its system (marginal sets, narrower).
    stepdown : bool
        Refine the critical value step by step over the pairs not yet found different
        (never wider than single-step).
    n_resamples : int
        Bootstrap resamples of the blocks: at least :func:`minimum_boot` ``(alpha)``
        ``= ceil(10 / alpha)`` (200 at α = 0.05), so that ten draws lie beyond the quantile
        that sets the critical value; fewer are refused.
    seed : int or None
        Seed of the ``numpy.random.Generator`` that draws the resamples.
    missing : {"error", "complete-case", "imputed"}
        Incomplete blocks: refuse (default), drop them and report it (``.dropped``), or (with
        ``of="rank"`` only) keep them with imputed expected ranks
        (:mod:`rankstats.significance.blocks`).
    of : {"score", "rank"}
        The parameter θ_j: the expected score of system j in a block (default), or its expected
        rank within a block (ties averaged; the average ranks of Friedman's test). Use
        ``"rank"`` when the blocks mix tasks whose scores are on different scales. With
        ``missing="imputed"`` (or imputed :class:`Blocks`) the rank of a system in a block is
        its imputed expected rank, so θ_j is the expected imputed rank (the parameter of the
        Friedman-type test on imputed ranks); every block is used, none holds NaN.
    memory : int, optional
        Bound in bytes (default :data:`MEMORY`, 64 MiB) of the bootstrap statistics held at
        once: the ``B × n × n`` studentized statistics are built a chunk of resamples at a
        time (at least one resample, ``2 × 8 n²`` bytes) and only their maxima are kept.
        The result does not depend on it, to the last bit.  (The resampling counts take at
        most 24 MB besides, the standard errors of the resamples a few MiB.)

    Returns
    -------
    RankSets

    Raises
    ------
    ValueError
        Bad arguments, fewer resamples than :func:`minimum_boot`, incomplete blocks with
        ``missing="error"``, ``of="score"`` on imputed blocks, fewer than two systems or two
        blocks, no block with two different scores
        (:class:`~rankstats.significance.block_variation.NoVariationError`).

    Warns
    -----
    DataWarning
        Fewer than 30 blocks: the bootstrap (a large-sample method) is then unreliable.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import rankstats as rs
    >>> from rankstats.significance.rank_sets import rank_confidence_sets
    >>> rng = np.random.default_rng(1)
    >>> table = pd.DataFrame(rng.normal([0.0, 0.05, 1.0], 1.0, size=(400, 3)), columns=list("abc"))
    >>> sets = rank_confidence_sets(table, n_resamples=500)
    >>> sets.table[["system", "rank", "rank_low", "rank_high"]]
      system  rank  rank_low  rank_high
    0      c     1         1          1
    1      b     2         2          3
    2      a     3         2          3
    """
    check_level(by)
    random_seed("seed", seed)
    missing = check_rank_sets(alpha, n_resamples, missing, of, isinstance(data, pd.DataFrame))
    memory = _memory(memory)
    values, systems, block_level, dropped = _values(data, by, missing, of)
    n_blocks, n = values.shape
    _check_shape(n_blocks, n)

    theta = values.mean(axis=0)
    diff = theta[:, None] - theta[None, :]  # θ̂_j − θ̂_k
    centred = values - theta
    # Standard error of θ̂_j − θ̂_k: Var(V_j − V_k) / N from the (co)variances of the blocks.
    cov = centred.T @ centred / n_blocks
    var = np.diag(cov)
    pair_var = np.maximum(var[:, None] + var[None, :] - 2.0 * cov, 0.0)
    scale = np.maximum(np.abs(values).max(), 1.0)
    pair_var[pair_var <= (1e-12 * scale) ** 2] = 0.0  # the same difference in every block
    se = np.sqrt(pair_var / n_blocks)

    # Studentized: the standard errors are recomputed in every resample (rank_sets_bootstrap);
    # every pass over the resamples draws them again from the same seed sequence.
    statistics = Studentized(centred, se, n_resamples, np.random.SeedSequence(seed), int(memory))
    if simultaneous:
        sig, critical, steps = simultaneous_family(statistics, diff, se, alpha, stepdown)
        better, worse = sig.T, sig  # better[j, k]: θ_k > θ_j
    else:
        better, worse, critical, steps = marginal_families(statistics, diff, se, alpha, stepdown)

    rank = 1 + (theta[None, :] > theta[:, None]).sum(axis=1)
    low = 1 + better.sum(axis=1)
    high = n - worse.sum(axis=1)
    order = np.lexsort((np.arange(n), -theta))
    table = pd.DataFrame(
        {
            "system": [systems[i] for i in order],
            "estimate": (-theta if of == "rank" else theta)[order],
            "std_error": np.sqrt(var[order] / n_blocks),
            "rank": rank[order].astype(int),
            "rank_low": low[order].astype(int),
            "rank_high": high[order].astype(int),
        }
    )
    names = list(table["system"])
    significant = pd.DataFrame((worse | better.T)[np.ix_(order, order)], index=names, columns=names)
    return RankSets(
        table=table,
        alpha=float(alpha),
        simultaneous=bool(simultaneous),
        stepdown=bool(stepdown),
        n_resamples=int(n_resamples),
        seed=seed,
        n_blocks=n_blocks,
        by=block_level,
        critical=critical if simultaneous else critical[order],
        n_steps=steps,
        significant=significant,
        dropped=dropped,
        of=of,
    )


def _memory(memory: int | None) -> int:
    """The ``memory=`` budget checked (:data:`MEMORY` by default)."""
    if memory is None:
        return MEMORY
    if not isinstance(memory, int | np.integer) or memory < 1:
        raise ValueError(f"memory must be a positive number of bytes, got {memory!r}")
    return int(memory)


def _check_shape(n_blocks: int, n: int) -> None:
    """Two systems and two blocks at least; a warning below :data:`FEW_BLOCKS` blocks."""
    if n < MIN_SYSTEMS:
        raise ValueError(f"rank confidence sets need at least {MIN_SYSTEMS} systems, got {n}")
    if n_blocks < 2:
        raise ValueError(f"rank confidence sets need at least 2 complete blocks, got {n_blocks}")
    if n_blocks < FEW_BLOCKS:
        warnings.warn(
            AdviceWarning(
                f"only {n_blocks} blocks: the bootstrap rank sets are a large-sample method and "
                "are unreliable with so few (use {by}, or the Hoeffding rank ranges)",
                by=("by", "instance"),
            ),
            stacklevel=user_stacklevel(),
        )
