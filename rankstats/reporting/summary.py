"""The plain-language paragraph a report opens with: what can and cannot be claimed.

Every sentence is read off results already computed — the marks and counts of the one
:class:`~rankstats.HoeffdingResult` (:meth:`~rankstats.HoeffdingResult.marks`,
:attr:`~rankstats.HoeffdingResult.n_significant`,
:meth:`~rankstats.HoeffdingResult.min_compared_for_significance`) and the convergence verdicts of
:func:`~rankstats.reporting.diagnostics.convergence` — so it can never claim more than the test did.
"""

from __future__ import annotations

from collections.abc import Sequence

from rankstats._util.method_names import method_name
from rankstats.aggregation.hoeffding_intervals import HoeffdingResult
from rankstats.reporting._format import names
from rankstats.reporting.diagnostics import Convergence


def claims(
    intervals: HoeffdingResult,
    convergence: Sequence[Convergence] = (),
    method: str = "borda",
    level: str = "task",
    has_instances: bool = False,
) -> str:
    """One paragraph: what the results support, then what they do not.

    Parameters
    ----------
    intervals : HoeffdingResult
        The report's test, in the order of ``method`` (best first).
    convergence : sequence of Convergence
        The verdicts of the fitted rank models.
    method : str
        The aggregator that orders the tables.
    level : {"task", "instance", "ranking"}
        What one ranking is (``"ranking"``: rankings given without scores).
    has_instances : bool
        The scores have an instance column (a task-level report could rank per instance).

    Returns
    -------
    str
        Names as visible text (control and bidirectional characters escaped).

    Examples
    --------
    >>> import rankstats as rs
    >>> rk = rs.Rankings.from_orderings([["a", "b", "c"]] * 60)
    >>> res = rs.hoeffding_test(rs.pairwise(rk), order=["a", "b", "c"])
    >>> claims(res).split("; ")[0]
    'Can be claimed: a is significantly above every other system'
    """
    marks = intervals.marks()
    n, order = len(marks), list(marks["system"])
    test = f"Hoeffding intervals, δ = {intervals.delta:g}, {intervals.correction} correction"
    symbol = method_name(method)
    can: list[str] = []
    cannot: list[str] = []
    if intervals.n_significant == 0:
        cannot.append(
            f"that any system is better than any other: no pair of systems differs significantly "
            f"({test}), so the order of the table, by {symbol}, is not supported by the test"
        )
        compared = intervals.table["compared"]
        most = int(compared.max()) if len(compared) else 0
        need = intervals.min_compared_for_significance()
        if most < need:
            if level == "task" and has_instances:
                hint = (
                    "rank per instance (level='instance', --level instance) to use every "
                    "instance as a ranking"
                )
            elif level == "ranking":  # rankings given without scores
                hint = "more rankings are needed"
            else:
                hint = "more tasks or instance-level scores are needed"
            cannot.append(
                f"any significant difference at all with these data: each pair is compared in at "
                f"most {most} ranking(s), and even a unanimous pair needs {need} at this level "
                f"({hint})"
            )
    else:
        top = marks.iloc[0]
        if top["significantly_above"] == n - 1:
            can.append(f"{names([top['system']])} is significantly above every other system")
        else:
            first = marks[marks["rank_low"] == 1]
            k = len(first)
            text = f"{k} systems could be first (their rank range starts at 1): "
            text += names(list(first["system"]), 8)
            if k < n and (first["significantly_above"] == n - k).all():
                # rank_high = k for each of them: the group beats every system outside it.
                text += (
                    f"; each of these {k} is significantly above all {n - k} other systems, "
                    "so together they form a significant top group (their order within it is "
                    "not established)"
                )
            can.append(text)
        can.append(
            f"{intervals.n_significant} of the {intervals.n_pairs} pairs of systems differ "
            f"significantly ({test}); each system's rank range lists the ranks it can take "
            "without contradicting them"
        )
        settled = int((marks["rank_low"] == marks["rank_high"]).sum())
        if settled == n:
            can.append("every system's rank is established (all rank ranges are single ranks)")
        else:
            cannot.append(
                f"the order of systems whose rank ranges overlap ({n - settled} of the {n} "
                f"systems have a range of several ranks): there the order of the table, by "
                f"{symbol}, is not a significant finding"
            )
        contradicted = [s for s, b in zip(order, marks["below_next"], strict=True) if b]
        if contradicted:
            cannot.append(
                f"the order by {symbol} at {len(contradicted)} place(s) where the next system is "
                f"significantly above (‡): {names(contradicted, 8)}"
            )
    for verdict in convergence:
        if not verdict.converged:
            cannot.append(
                f"anything from the {verdict.name}: it did not converge "
                f"({'; '.join(verdict.problems)})"
            )
    parts = []
    if can:
        parts.append("Can be claimed: " + "; ".join(can) + ".")
    if cannot:
        parts.append("Cannot be claimed: " + "; ".join(cannot) + ".")
    else:
        parts.append("Nothing in the results contradicts the order of the table.")
    return " ".join(parts)
