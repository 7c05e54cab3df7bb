"""The complete blocks × systems table of *scores* that the parametric tests read.

:func:`score_blocks` is the scores' counterpart of
:func:`rankstats.significance.blocks.rank_blocks`: the repeated-measures ANOVA and Tukey's HSD
(:mod:`rankstats.significance.parametric`) and the choice between them and the rank tests
(:mod:`rankstats.significance.which_test`) compare mean scores, so they need the ``N`` complete
blocks (tasks, or instances of a task) × ``k`` systems of scores :math:`x_{ij}`, higher = better,
not only their ranks. A block missing a score is refused or dropped (``missing="complete-case"``),
never filled.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rankstats._util.advice import AdviceError, escape
from rankstats.core.rankings import MIN_SYSTEMS, Rankings, average_ranks, require_systems
from rankstats.core.scores import Scores
from rankstats.errors import preview
from rankstats.significance.block_variation import require_variation
from rankstats.significance.blocks import Blocks, rank_blocks
from rankstats.significance.missing_words import COMPLETE, check_missing

#: What cannot take ``missing="imputed"``, for its message.
_SCORE_TESTS = (
    "the tests on scores (the repeated-measures ANOVA, Tukey's HSD and the automatic choice of "
    "test read complete blocks of scores)"
)


def check_missing_scores(missing: str, min_coverage: float = 0.0) -> str:
    """``missing`` of the tests on scores, checked before any computing: ``"error"`` or
    ``"complete-case"`` (the one vocabulary of :mod:`rankstats.significance.missing_words`)."""
    return check_missing(missing, COMPLETE, what=_SCORE_TESTS, min_coverage=min_coverage)


def score_blocks(
    data: Scores | Blocks | pd.DataFrame,
    by: str | None = None,
    missing: str = "error",
    min_coverage: float = 0.0,
) -> Blocks:
    """The complete blocks × systems table of a score table, *with its scores*.

    A :class:`~rankstats.core.scores.Scores` or :class:`~rankstats.significance.blocks.Blocks` goes
    through
    :func:`~rankstats.significance.blocks.rank_blocks`; a DataFrame is read as blocks (rows) ×
    systems (columns) of scores whose higher values are better (autorank's input), NaN = not
    evaluated.

    Raises
    ------
    TypeError
        Rankings (or Blocks built from them): the parametric tests need the scores.
    ValueError
        A non-numeric or infinite score (the message names the system), an incomplete block with
        ``missing="error"`` (named), fewer than two systems.
    """
    missing = check_missing_scores(missing, min_coverage)
    if isinstance(data, Rankings):
        raise TypeError("the parametric tests need scores (Scores or a DataFrame), not Rankings")
    if not isinstance(data, pd.DataFrame):
        if not isinstance(data, Scores | Blocks):
            raise TypeError(f"expected Scores, Blocks or a DataFrame, not {type(data).__name__}")
        blocks = rank_blocks(data, by=by, missing=missing, min_coverage=min_coverage)
        if blocks.values is None:
            raise TypeError("these blocks carry no scores (built from Rankings): pass the Scores")
        if getattr(blocks, "imputed", False) or np.isnan(blocks.values).any():
            raise AdviceError(
                "these blocks have missing scores ({imputed}): the parametric tests need "
                "complete blocks; build them with {complete}",
                imputed=("missing", "imputed"),
                complete=("missing", "complete-case"),
            )
        return blocks
    require_systems(data.columns)
    if data.columns.duplicated().any():
        dup = data.columns[data.columns.duplicated()]
        raise ValueError(f"the DataFrame has duplicated system columns: {preview(map(str, dup))}")
    columns = []
    for name in data.columns:
        column = pd.to_numeric(data[name], errors="coerce").to_numpy(dtype=np.float64)
        bad = np.isnan(column) & data[name].notna().to_numpy()
        if bad.any():
            row = data.index[int(np.argmax(bad))]
            raise ValueError(
                f"system {str(name)!r} has a non-numeric score in block {row!r}: "
                f"{data[name].iloc[int(np.argmax(bad))]!r}"
            )
        if np.isinf(column).any():
            row = data.index[int(np.argmax(np.isinf(column)))]
            raise ValueError(f"system {str(name)!r} has an infinite score in block {row!r}")
        columns.append(column)
    values = np.column_stack(columns) if columns else np.empty((len(data), 0))
    systems = tuple(str(c) for c in data.columns)
    index = pd.Index(data.index)
    incomplete = np.isnan(values).any(axis=1)
    if incomplete.any() and missing == "error":
        first = int(np.argmax(incomplete))
        absent = [systems[j] for j in np.flatnonzero(np.isnan(values[first]))]
        raise AdviceError(
            f"block {escape(repr(index[first]))} has no score for {escape(preview(absent, 3))} "
            f"({int(incomplete.sum())} of {len(index)} blocks are incomplete): pass "
            "{missing} (drops them and reports what was dropped)",
            missing="complete-case",
        )
    kept = values[~incomplete]
    if len(kept) == 0:
        raise ValueError(f"no complete block is left: all {len(index)} blocks miss a score")
    require_variation(kept)
    return Blocks(
        ranks=average_ranks(kept),
        systems=systems,
        blocks=index[~incomplete],
        by="block",
        values=kept,
        missing=missing,
        dropped_blocks=index[incomplete],
        n_input_blocks=len(index),
    )


def _blocks_word(blocks: Blocks) -> str:
    """``"task blocks"``, ``"instance blocks"``, or ``"blocks"`` for a DataFrame's rows."""
    return "blocks" if blocks.by == "block" else f"{blocks.by} blocks"


def _check_blocks(blocks: Blocks, what: str) -> tuple[np.ndarray, int, int]:
    x = np.asarray(blocks.values, dtype=np.float64)
    n, k = x.shape
    if n < 2:
        raise ValueError(f"{what} needs at least 2 complete blocks, not {n}")
    if k < MIN_SYSTEMS:
        raise ValueError(f"{what} needs at least {MIN_SYSTEMS} systems, not {k}")
    return x, n, k
