"""Directions of tasks: whether a higher score is better.

One parser for every entry point (in-memory tables, streamed files, the CLI's
``--lower-is-better``): a bool for all tasks, or a ``{task: bool or word}`` dict. A lower-is-better
task is negated once, when a :class:`~rankstats.core.scores.Scores` is built, and never again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from rankstats._util.advice import AdviceScoresError, Spelled, escape
from rankstats.errors import InvalidScoresError, preview

Direction = bool | Mapping[str, bool | str]

_DIRECTION_WORDS = {
    "higher": True,
    "higher_is_better": True,
    "max": True,
    "lower": False,
    "lower_is_better": False,
    "min": False,
}


def _parse_direction(value: object, task: str) -> bool:
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, str) and value.lower() in _DIRECTION_WORDS:
        return _DIRECTION_WORDS[value.lower()]
    raise InvalidScoresError(
        f"unknown direction {value!r} for task {task!r}: use True/False or 'higher'/'lower'"
    )


def parse_directions(tasks: Sequence[str], higher_is_better: Direction) -> dict[str, bool]:
    """``{task: True if higher is better}`` from a bool, or a dict of bools / words.

    The one parser of directions: in-memory tables (:class:`~rankstats.core.scores.Scores`),
    streamed files (:func:`rankstats.scan_scores`) and the CLI's ``--lower-is-better`` all go
    through it. Words: ``"higher"``, ``"higher_is_better"``, ``"max"`` / ``"lower"``,
    ``"lower_is_better"``, ``"min"`` (any case). Anything else, and a task not in ``tasks``, is
    refused.
    """
    tasks = list(tasks)
    if isinstance(higher_is_better, Mapping):
        unknown = [t for t in higher_is_better if t not in set(tasks)]
        if unknown:
            raise AdviceScoresError(
                "{direction} names tasks that are not in the table: "
                + escape(f"{preview(unknown)}; tasks are: {preview(tasks)}"),
                # On the command line the tasks named are those of --lower-is-better.
                direction=Spelled("higher_is_better", "--lower-is-better"),
            )
        return {t: _parse_direction(higher_is_better.get(t, True), t) for t in tasks}
    direction = _parse_direction(higher_is_better, "<all tasks>")
    return {t: direction for t in tasks}
