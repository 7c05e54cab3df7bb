"""A report of rankings read without scores (PrefLib files, rank matrices, orderings).

Everything that needs only the rankings is computed exactly as for a score table: σ^l (Borda),
Copeland, Kemeny (when asked for), the Hoeffding intervals and their heat map, the rank models
with their comparison and rank posteriors, and Friedman's test with the rankings as blocks. What
needs scores is left out: σ^μ (mean, median), two-level Borda σ^2l when the rankings carry no
tasks (one ranking per group makes σ^2l equal σ^l), the paired instance-level analyses and the
data check on scores. Asking for one of them is refused before anything is computed
(:func:`unavailable`, worded by the caller: arguments in Python, flags on the command line), and
the page, the LaTeX caption and the methods paragraph say in one sentence that they are left
out (:func:`left_out`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rankstats._util.method_names import method_latex, method_text
from rankstats.core.rankings import Rankings, tied_entries
from rankstats.reporting._format import names

#: Aggregators of a report of rankings when none are asked for.
DEFAULT_METHODS = ("borda", "copeland")

#: Aggregators that read scores, and why.
SCORE_METHODS = {
    "mean": "σ^μ (the mean score) needs scores",
    "median": "the median score needs scores",
}


def level(rankings: Rankings) -> str:
    """What one ranking is: ``"instance"`` for rankings with tasks (``groups``), ``"task"``
    for rankings labelled by task, else ``"ranking"`` (the rule of
    :func:`rankstats.significance.blocks.rank_blocks`)."""
    if rankings.group_names is not None:
        return "instance"
    return "task" if rankings.rankers.name == "task" else "ranking"


def unavailable(rankings: Rankings, methods: Sequence[str]) -> dict[str, str]:
    """``{method: reason}`` of the ``methods`` that ``rankings`` cannot give."""
    out = {m: SCORE_METHODS[m] for m in methods if m in SCORE_METHODS}
    if "borda2" in methods and rankings.groups is None:
        out["borda2"] = "two-level Borda (σ^2l) needs tasks, and these rankings carry none"
    return out


def refuse(
    rankings: Rankings, methods: Sequence[str], paired: Sequence[str], given_level: Any, check: Any
) -> None:
    """Refuse, in the words of :func:`rankstats.report`, what a report of rankings cannot do.

    Raises
    ------
    ValueError
        A method that needs scores, ``paired``, ``by`` or ``data_check``.
    """
    bad = unavailable(rankings, methods)
    if bad:
        method, reason = next(iter(bad.items()))
        raise ValueError(
            f"methods={method!r}: {reason}; a report of Rankings can use "
            f"{', '.join(repr(m) for m in ('borda', 'copeland', 'kemeny', 'bt', 'pl'))}"
        )
    for given, what in (
        (paired, "paired= needs instance-level scores"),
        (given_level, "by= chooses how scores are ranked"),
        (check, "data_check= is the check of a score table"),
    ):
        if given:
            raise ValueError(f"{what}; the report was given Rankings, not Scores")


def left_out(rankings: Rankings, latex: bool = False) -> str:
    """The one sentence that says what a report of rankings leaves out, and why (``latex``:
    the method symbols in LaTeX math, for ``ranking.tex``; the words need no escaping)."""
    symbol = method_latex if latex else method_text
    parts = [f"{symbol('mean')} (mean and median scores)"]
    if rankings.groups is None:
        parts.append(f"two-level Borda {symbol('borda2')} (it needs tasks)")
    parts += ["the paired instance-level analyses", "the data check on scores"]
    return (
        "Computed from rankings without scores: "
        + ", ".join(parts[:-1])
        + f" and {parts[-1]} need a score table and are left out."
    )


def transformations(rankings: Rankings) -> list[str]:
    """What the rankings went through, one sentence each (the counterpart of the score
    table's transformations): missing systems per ranking, ties, systems ranked nowhere."""
    n_rankings, n_systems = rankings.ranks.shape
    observed = rankings.observed
    out = [
        f"The {n_rankings} rankings of {n_systems} systems were read as given (ranks, not "
        "scores): nothing was negated or averaged."
    ]
    absent = n_systems - observed.sum(axis=1)
    if absent.any():
        out.append(
            f"{int((absent > 0).sum())} of the {n_rankings} rankings lack at least one of the "
            f"{n_systems} systems ({int(absent.sum())} missing (system, ranking) cells in all, up "
            f"to {int(absent.max())} systems missing in one ranking; never filled with a number: "
            "imputed in the rankings, see Methods)."
        )
    else:
        out.append(f"Every one of the {n_rankings} rankings ranks all {n_systems} systems.")
    tied = tied_entries(rankings.ranks).any(axis=1)
    if tied.any():
        out.append(
            f"{int(tied.sum())} ranking(s) tie systems; tied systems share the average of the "
            "ranks they span."
        )
    never = [s for s, seen in zip(rankings.systems, observed.any(axis=0), strict=True) if not seen]
    if never:
        out.append(
            f"{len(never)} system(s) ranked nowhere were kept and ranked on imputation alone "
            f"(every pairwise probability ½): {names(never)}."
        )
    return out
