"""Complete blocks × systems rank tables: the input of the classical rank tests.

Friedman's test and its post-hoc tests (:mod:`rankstats.significance.friedman_test`,
:mod:`rankstats.significance.posthoc_tests`) compare ``k`` systems over ``N`` *blocks*, each block
ranking every system once:

- ``by="task"``: one block per task, instance-level scores first averaged over instances
  (:meth:`Scores.to_task_level`, the aggregation rankstats uses everywhere);
- ``by="instance"``: one block per (task, instance).

The ranks are those of :meth:`Rankings.from_scores` (1 = best, ties averaged, lower-is-better
tasks already negated once by :class:`Scores`), so that these tests see exactly the rankings every
other estimator of rankstats sees.

The classical tests need *complete* blocks. A block that did not evaluate every system is handled
by the ``missing`` argument, and nothing is dropped silently:

``"error"`` (default)
    refuse, naming the first incomplete block;
``"complete-case"``
    keep only the blocks that evaluated every (kept) system. Systems evaluated in no block at all,
    and with ``min_coverage > 0`` the systems evaluated in fewer than that fraction of the blocks,
    are removed first (otherwise one rarely evaluated system would empty the table). Every removed
    block and system is listed in :attr:`Blocks.dropped_blocks` / :attr:`Blocks.dropped_systems`
    and counted in the ``repr``.
``"imputed"``
    keep every block and replace each rank by the system's *imputed expected rank*: its expected
    rank in a uniformly random complete ranking compatible with the block (the imputation model
    of :mod:`rankstats.core.pair_probabilities`; :mod:`rankstats.significance.imputed_ranks`).
    :attr:`Blocks.ranks` is then a complete table of expected ranks and :attr:`Blocks.observed` says
    which cells were evaluated; the tests use the exact permutation covariance of
    :mod:`rankstats.significance.imputed_ranks`. Systems evaluated nowhere (and, with
    ``min_coverage``, rarely) are dropped and reported: a system never observed is never kept at the
    middle rank. Blocks that evaluated fewer than two systems carry no information: :class:`Scores`
    sets them aside when the table is built (listed in :attr:`Blocks.set_aside`), and those left
    with fewer than two after dropping systems are listed in :attr:`Blocks.dropped_blocks`.

Each treatment of missing scores is one function registered in :data:`MISSING`, mapping the
partial rank matrix to a complete :class:`Blocks`; the classical tests read nothing but
:attr:`Blocks.ranks` (and :attr:`Blocks.values` for the score-based statistics), and the tests
on imputed ranks also :attr:`Blocks.observed`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from rankstats._util.advice import AdviceError, escape
from rankstats._util.arguments import share
from rankstats._util.renamed import renamed_parameters
from rankstats._util.text import shorten, terminal
from rankstats.core.rankings import (
    MIN_SYSTEMS,
    Rankings,
    average_ranks,
    check_level,
    default_level,
    instance_score_matrix,
    require_systems,
)
from rankstats.core.scores import Scores
from rankstats.errors import preview
from rankstats.significance.block_variation import require_variation
from rankstats.significance.imputed_ranks import imputed_expected_ranks
from rankstats.significance.missing_words import check_missing


@renamed_parameters(level="by")
@dataclass(frozen=True, eq=False, repr=False)
class Blocks:
    """A complete blocks × systems table of ranks (1 = best, ties averaged).

    Attributes
    ----------
    ranks : ndarray, shape (N, k)
        Mid-ranks of the ``k`` systems in each of the ``N`` blocks; no NaN. With
        ``missing="imputed"``: the imputed expected ranks (``m (k + 1) / (k_b + 1)`` for a system
        of mid-rank ``m`` among the ``k_b`` evaluated, ``(k + 1) / 2`` for one not evaluated).
    systems : tuple of str
        The ``k`` systems (columns).
    blocks : pandas.Index
        The ``N`` blocks (rows): task names, or a ``(task, instance)`` MultiIndex.
    by : str
        ``"task"`` or ``"instance"`` (``"ranking"`` for :class:`Rankings` built by hand).
    values : ndarray, shape (N, k), or None
        The scores behind the ranks, oriented so that higher is better (task level: means over
        instances); ``None`` when the input was a :class:`Rankings` (scores unknown). With
        ``missing="imputed"``, NaN where not evaluated.
    missing : str
        How incomplete blocks were treated (see :data:`MISSING`).
    dropped_blocks : pandas.Index
        Blocks of the input removed because they miss a kept system (``"imputed"``: because
        they evaluated fewer than two kept systems).
    dropped_systems : tuple of str
        Systems removed before the blocks (evaluated nowhere, or below ``min_coverage``).
    n_input_blocks : int
        Number of blocks before anything was removed.
    set_aside : tuple of str
        What :class:`Scores` had already set aside for evaluating fewer than two systems
        (reported when the table was built; repeated here so that the report is complete).
    observed : ndarray of bool, shape (N, k), or None
        Which cells were evaluated (``missing="imputed"``); ``None``: every cell (a complete
        table).
    """

    ranks: np.ndarray
    systems: tuple[str, ...]
    blocks: pd.Index
    by: str
    values: np.ndarray | None = None
    missing: str = "error"
    dropped_blocks: pd.Index = field(default_factory=lambda: pd.Index([]))
    dropped_systems: tuple[str, ...] = ()
    n_input_blocks: int = 0
    set_aside: tuple[str, ...] = ()
    observed: np.ndarray | None = None

    @property
    def imputed(self) -> bool:
        """Whether :attr:`ranks` are imputed expected ranks (``missing="imputed"``)."""
        return self.observed is not None

    @property
    def n_imputed(self) -> int:
        """Cells not evaluated, filled with their imputed expected rank."""
        return 0 if self.observed is None else int(self.observed.size - self.observed.sum())

    @property
    def n_blocks(self) -> int:
        """``N``, the number of (complete) blocks."""
        return self.ranks.shape[0]

    @property
    def n_systems(self) -> int:
        """``k``, the number of systems."""
        return self.ranks.shape[1]

    @property
    def mean_ranks(self) -> pd.Series:
        """Average rank of each system over the blocks (1 = best), in :attr:`systems` order
        (with ``missing="imputed"``: the average imputed expected rank)."""
        return pd.Series(self.ranks.mean(axis=0), index=list(self.systems), name="mean_rank")

    def to_frame(self) -> pd.DataFrame:
        """The rank table as a labelled DataFrame (rows = blocks, columns = systems)."""
        return pd.DataFrame(self.ranks, index=self.blocks, columns=list(self.systems))

    def dropped(self) -> str:
        """One line saying what was removed (empty when nothing was)."""
        parts = []
        if len(self.dropped_systems):
            parts.append(
                f"{len(self.dropped_systems)} system(s) dropped: "
                f"{terminal(preview([shorten(s, 40) for s in self.dropped_systems], 4))}"
            )
        if len(self.dropped_blocks):
            why = "fewer than 2 systems evaluated" if self.imputed else "incomplete"
            parts.append(
                f"{len(self.dropped_blocks)} of {self.n_input_blocks} blocks dropped "
                f"({why}): {terminal(preview(_labels(self.dropped_blocks), 4))}"
            )
        if self.set_aside:
            why = " (fewer than 2 systems evaluated: no information)" if self.imputed else ""
            parts.append(f"set aside by Scores{why}: {preview(self.set_aside, 4)}")
        if self.imputed:
            parts.insert(
                0,
                f"{self.n_imputed} of {self.observed.size} cells not evaluated, "
                "replaced by imputed expected ranks",
            )
        return "; ".join(parts)

    def __repr__(self) -> str:
        head = (
            f"Blocks({self.n_blocks} {self.by} blocks × {self.n_systems} systems, "
            f"missing={self.missing!r})"
        )
        dropped = self.dropped()
        return head + (f"\n  {dropped}" if dropped else "\n  nothing dropped")


class DroppedFromBlocks:
    """What a test on :class:`Blocks` dropped to make its table complete: the ``dropped_*`` of
    every result that keeps its ``blocks`` (Friedman, the post-hoc tests, Tukey)."""

    blocks: Blocks  # a field of the dataclass that inherits this

    @property
    def dropped_blocks(self) -> pd.Index:
        """Blocks removed to make the table complete (see :class:`Blocks`)."""
        return self.blocks.dropped_blocks

    @property
    def dropped_systems(self) -> tuple[str, ...]:
        """Systems removed before the blocks (see :class:`Blocks`)."""
        return self.blocks.dropped_systems


def _labels(index: pd.Index) -> list[str]:
    """Block labels as text: ``task`` or ``task/instance``."""
    if isinstance(index, pd.MultiIndex):
        return ["/".join(str(part) for part in key) for key in index]
    return [str(key) for key in index]


def _score_matrix(scores: Scores, by: str) -> np.ndarray:
    """The (oriented) score matrix whose row-wise average ranks are
    ``Rankings.from_scores(scores, level).ranks``: same rows (the matrix of
    :func:`~rankstats.core.rankings.instance_score_matrix` at instance level), same columns;
    NaN = not evaluated."""
    if by == "task":
        return scores.to_wide().to_numpy(dtype=np.float64).T.copy()
    return instance_score_matrix(scores)[0]


def _set_aside(scores: Scores, by: str) -> tuple[str, ...]:
    out = [f"task {t}" for t in scores.skipped_tasks]
    skipped = scores.skipped_instances
    if by == "instance" and len(skipped):
        out += [f"{t}/{i}" for t, i in skipped[["task", "instance"]].itertuples(index=False)]
    return tuple(out)


def _coverage_kept(observed: np.ndarray, min_coverage: float) -> np.ndarray:
    """The systems kept: evaluated at least once, and in at least ``min_coverage`` of the blocks
    (a system evaluated nowhere is dropped and reported, never kept at the middle rank)."""
    if not len(observed):
        return np.zeros(observed.shape[1], dtype=bool)
    coverage = observed.mean(axis=0)
    return (coverage > 0) & (coverage >= min_coverage)


def _among_kept(
    ranks: np.ndarray, values: np.ndarray | None, observed: np.ndarray, keep_systems: np.ndarray
) -> tuple[np.ndarray, np.ndarray | None]:
    """Ranks (and values) among the kept systems only: re-ranked from the values when known,
    else from the ranks, when a dropped system was evaluated somewhere (dropping systems
    evaluated nowhere changes no rank)."""
    sub = ranks[:, keep_systems]
    sub_values = None if values is None else values[:, keep_systems]
    if not keep_systems.all() and observed[:, ~keep_systems].any():
        sub = average_ranks(sub_values if sub_values is not None else -sub)
    return sub, sub_values


def _kept(
    systems: tuple[str, ...],
    rankers: pd.Index,
    keep_systems: np.ndarray,
    keep_blocks: np.ndarray,
    **fields: object,
) -> Blocks:
    """The :class:`Blocks` of the kept blocks and systems, with what was dropped."""
    return Blocks(
        systems=tuple(s for s, k in zip(systems, keep_systems, strict=True) if k),
        blocks=rankers[keep_blocks],
        dropped_blocks=rankers[~keep_blocks],
        dropped_systems=tuple(s for s, k in zip(systems, keep_systems, strict=True) if not k),
        n_input_blocks=len(rankers),
        **fields,
    )


def _complete(
    ranks: np.ndarray,
    values: np.ndarray | None,
    systems: tuple[str, ...],
    rankers: pd.Index,
    by: str,
    min_coverage: float,
    set_aside: tuple[str, ...],
    missing: str,
) -> Blocks:
    observed = ~np.isnan(ranks)
    if missing == "error":
        incomplete = ~observed.all(axis=1)
        if incomplete.any():
            first = int(np.argmax(incomplete))
            absent = [systems[j] for j in np.flatnonzero(~observed[first])]
            block = _labels(rankers[first : first + 1])[0]
            raise AdviceError(
                f"block {escape(repr(block))} has no score for {escape(preview(absent, 3))} "
                f"({int(incomplete.sum())} of {len(rankers)} blocks are incomplete); the "
                "Friedman-type tests need complete blocks: pass {missing} (drops them and "
                "reports what was dropped) or {imputed} (keeps them, with imputed expected ranks)",
                missing="complete-case",
                imputed=("missing", "imputed"),
            )
        keep_systems = np.ones(len(systems), dtype=bool)
    else:
        keep_systems = _coverage_kept(observed, min_coverage)
    keep_blocks = observed[:, keep_systems].all(axis=1)
    if keep_systems.sum() < MIN_SYSTEMS or not keep_blocks.any():
        raise AdviceError(
            f"no complete block of at least {MIN_SYSTEMS} systems is left after dropping "
            f"{int((~keep_systems).sum())} system(s) and {int((~keep_blocks).sum())} of "
            f"{len(rankers)} blocks; raise {{min_coverage}} to drop rarely evaluated systems "
            "first",
            min_coverage=None,
        )
    sub, sub_values = _among_kept(ranks, values, observed, keep_systems)
    return _kept(
        systems,
        rankers,
        keep_systems,
        keep_blocks,
        ranks=sub[keep_blocks],
        values=None if sub_values is None else sub_values[keep_blocks],
        by=by,
        missing=missing,
        set_aside=set_aside,
    )


def _imputed(
    ranks: np.ndarray,
    values: np.ndarray | None,
    systems: tuple[str, ...],
    rankers: pd.Index,
    by: str,
    min_coverage: float,
    set_aside: tuple[str, ...],
    missing: str,
) -> Blocks:
    observed = ~np.isnan(ranks)
    keep_systems = _coverage_kept(observed, min_coverage)
    sub, sub_values = _among_kept(ranks, values, observed, keep_systems)
    sub_observed = observed[:, keep_systems]
    keep_blocks = sub_observed.sum(axis=1) >= MIN_SYSTEMS
    if keep_systems.sum() < MIN_SYSTEMS or keep_blocks.sum() < 1:
        raise AdviceError(
            f"no block evaluates {MIN_SYSTEMS} or more of the {int(keep_systems.sum())} kept "
            f"systems (after dropping {int((~keep_systems).sum())} system(s) evaluated nowhere "
            "or below {min_coverage})",
            min_coverage=None,
        )
    return _kept(
        systems,
        rankers,
        keep_systems,
        keep_blocks,
        ranks=imputed_expected_ranks(sub[keep_blocks]),
        values=None if sub_values is None else sub_values[keep_blocks],
        by=by,
        missing=missing,
        set_aside=set_aside,
        observed=sub_observed[keep_blocks],
    )


#: Treatments of incomplete blocks: name → function(ranks, values, systems, rankers, level,
#: min_coverage, set_aside, missing) → complete :class:`Blocks`.
MISSING: dict[str, Callable[..., Blocks]] = {
    "error": _complete,
    "complete-case": _complete,
    "imputed": _imputed,
}


def check_missing_blocks(missing: str, min_coverage: float = 0.0) -> str:
    """``missing`` and ``min_coverage`` of the rank tests, checked before any computing: the
    word in the one vocabulary (:func:`~rankstats.significance.missing_words.check_missing`)."""
    share("min_coverage", min_coverage)
    return check_missing(missing, tuple(MISSING), min_coverage=min_coverage)


@renamed_parameters(level="by")
def rank_blocks(
    data: Scores | Rankings | Blocks,
    by: str | None = None,
    missing: str = "error",
    min_coverage: float = 0.0,
) -> Blocks:
    """The complete blocks × systems rank table of a score table (see
    :mod:`rankstats.significance.blocks`).

    Parameters
    ----------
    data : Scores, Rankings or Blocks
        A :class:`Blocks` is returned as it is.
    by : {"task", "instance"}, optional
        One block per task (scores averaged over instances) or per (task, instance); default
        :func:`~rankstats.core.rankings.default_level`.
    missing : {"error", "complete-case", "imputed"}
        Refuse incomplete blocks (default), drop them and report what was dropped, or keep
        them with imputed expected ranks (see :mod:`rankstats.significance.blocks`; the one
        vocabulary of :mod:`rankstats.significance.missing_words`).
    min_coverage : float
        With ``missing="complete-case"`` or ``"imputed"``: first drop the systems evaluated in
        fewer than this fraction of the blocks (systems evaluated in none are always dropped).

    Returns
    -------
    Blocks

    Raises
    ------
    ValueError
        An incomplete block with ``missing="error"`` (the message names it), or nothing left.
    NoVariationError
        A ``ValueError``: no block has two systems that differ
        (:func:`~rankstats.significance.block_variation.require_variation`).

    Examples
    --------
    >>> import rankstats as rs
    >>> from rankstats.significance.blocks import rank_blocks
    >>> rank_blocks(rs.load_dataset("xtreme")).ranks.shape
    (4, 15)
    """
    check_level(by)
    if isinstance(data, Blocks):
        require_variation(data.ranks, data.by)
        return data
    missing = check_missing_blocks(missing, min_coverage)
    if isinstance(data, Scores | Rankings):
        require_systems(data.systems)
    if isinstance(data, Scores):
        lvl = default_level(data, by)
        # Once per table: Friedman, the post-hoc test and the automatic choice of one script all
        # test the same blocks (a failure raises and is not kept).
        return data.cached(
            ("blocks", lvl, missing, min_coverage),
            lambda: _score_blocks(data, lvl, missing, min_coverage),
        )
    if isinstance(data, Rankings):
        rankings, values, set_aside = data, None, ()
        named = "task" if data.rankers.name == "task" else "ranking"
        lvl = by or ("instance" if data.group_names is not None else named)
    else:
        raise TypeError(f"expected Scores, Rankings or Blocks, not {type(data).__name__}")
    return _checked(rankings, values, lvl, missing, min_coverage, set_aside)


def _score_blocks(scores: Scores, by: str, missing: str, min_coverage: float) -> Blocks:
    """:func:`rank_blocks` of a score table at ``by``."""
    values = scores.cached(("blocks.values", by), lambda: _score_matrix(scores, by))
    rankings = Rankings.from_scores(scores, by=by)
    return _checked(rankings, values, by, missing, min_coverage, _set_aside(scores, by))


def _checked(
    rankings: Rankings,
    values: np.ndarray | None,
    by: str,
    missing: str,
    min_coverage: float,
    set_aside: tuple[str, ...],
) -> Blocks:
    """The complete :class:`Blocks` of ``rankings`` by the treatment ``missing``, refused
    without variation."""
    blocks = MISSING[missing](
        rankings.ranks,
        values,
        rankings.systems,
        rankings.rankers,
        by,
        min_coverage,
        set_aside,
        missing,
    )
    require_variation(blocks.ranks, by)
    return blocks


def centred_ranks(
    ranks: np.ndarray, keep: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Blocks counted and centred ranks :math:`R_{ij} - (k+1)/2` of a batch ``(..., N, k)``.

    The start of the rank-sum statistics (Friedman, Nemenyi, Conover) on one benchmark or, with
    leading axes, on many (the power simulations): ``keep`` (``(..., N)``, bool) selects each
    batch's blocks (the others count 0), and ``N`` is then the number kept.

    Returns
    -------
    n : ndarray, shape (...)
        Blocks counted (float).
    deviations : ndarray, shape (..., N, k)
        Centred ranks, 0 in the blocks not kept.
    """
    centre = (ranks.shape[-1] + 1) / 2.0
    if keep is None:
        return np.full(ranks.shape[:-2], float(ranks.shape[-2])), ranks - centre
    n = keep.sum(axis=-1).astype(np.float64)
    return n, np.where(keep[..., None], ranks - centre, 0.0)
