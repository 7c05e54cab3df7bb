"""The task an analysis in the units of one metric reads, when the caller has not chosen one.

A ROPE, a mean difference or a paired test on instances is in the units of one task (metric):
a table with several tasks cannot be pooled for it, so the caller must choose one, and a table
with a single task needs no choice.  One guard for every such analysis (the Bayesian signed-rank
test on instances, the paired analysis), each with its own sentence.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rankstats.errors import InvalidScoresError, preview


def only_task(
    tasks: Sequence[str],
    message: str,
    listing: Callable[[Sequence[str]], str] = preview,
) -> str:
    """The task of a table that has exactly one.

    Parameters
    ----------
    tasks : sequence of str
        The table's tasks.
    message : str
        The error when there are several (or none), with ``{n}`` for their number and
        ``{tasks}`` for their ``listing``: it says why one task is needed and how to choose it.
    listing : callable
        Writes the tasks into the message (default :func:`rankstats.errors.preview`).

    Raises
    ------
    InvalidScoresError
        The table does not have exactly one task.

    Examples
    --------
    >>> only_task(["BLEU"], "choose one of {n}: {tasks}")
    'BLEU'
    >>> only_task(["BLEU", "chrF"], "choose one of {n}: {tasks}")
    Traceback (most recent call last):
    ...
    rankstats.errors.InvalidScoresError: choose one of 2: BLEU, chrF
    """
    if len(tasks) != 1:
        raise InvalidScoresError(message.format(n=len(tasks), tasks=listing(tasks)))
    return tasks[0]
