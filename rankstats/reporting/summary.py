"""The plain-language paragraph a report opens with: what can and cannot be claimed.

Every sentence is read off results already computed — the marks and counts of the one
:class:`~rankstats.HoeffdingResult` (:meth:`~rankstats.HoeffdingResult.marks`,
:attr:`~rankstats.HoeffdingResult.n_significant`,
:meth:`~rankstats.HoeffdingResult.min_compared_for_significance`), the count of the one
:class:`~rankstats.PosthocResult` of the post-hoc test the user asked for
(:attr:`~rankstats.PosthocResult.n_significant`, with Friedman's verdict) and the convergence
verdicts of :func:`~rankstats.reporting.diagnostics.convergence` — so it can never claim more than
a test did, and every count is stated under the name of the test it comes from. When a post-hoc
test was asked for, the paragraph opens with it; the Hoeffding intervals, which give the rank
ranges of the tables, follow under their own name.
"""

from __future__ import annotations

from collections.abc import Sequence

from rankstats._util.advice import AdviceText
from rankstats._util.method_names import method_name
from rankstats.aggregation.hoeffding_intervals import HoeffdingResult
from rankstats.reporting._format import names
from rankstats.reporting.diagnostics import Convergence
from rankstats.reporting.significance import Significance, posthoc_name
from rankstats.significance.zero_methods import SHORT


def claims(
    intervals: HoeffdingResult,
    convergence: Sequence[Convergence] = (),
    method: str = "borda",
    by: str = "task",
    has_instances: bool = False,
    significance: Significance | None = None,
    cli: bool = False,
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
    by : {"task", "instance", "ranking"}
        What one ranking is (``"ranking"``: rankings given without scores).
    has_instances : bool
        The scores have an instance column (a task-level report could rank per instance).
    significance : Significance, optional
        Friedman's test and the post-hoc test the user asked for: the paragraph opens with that
        test's count (:func:`requested_test`).
    cli : bool
        Name options as command-line flags (``--by instance``) instead of Python arguments
        (``by='instance'``).

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
    can: list[str] = []
    cannot: list[str] = []
    if intervals.n_significant == 0:
        cannot += _nothing_significant(intervals, method, by, has_instances, cli)
    else:
        can, cannot = _significant(intervals, method)
    for verdict in convergence:
        if not verdict.converged:
            cannot.append(
                f"anything from the {verdict.name}: it did not converge "
                f"({'; '.join(verdict.problems)})"
            )
    parts = [requested_test(significance)] if significance is not None else []
    if can:
        parts.append("Can be claimed: " + "; ".join(can) + ".")
    if cannot:
        parts.append("Cannot be claimed: " + "; ".join(cannot) + ".")
    else:
        parts.append("Nothing in the results contradicts the order of the table.")
    return " ".join(parts)


def _nothing_significant(
    intervals: HoeffdingResult, method: str, by: str, has_instances: bool, cli: bool
) -> list[str]:
    """What cannot be claimed when no pair differs, and why when the data could not show it."""
    cannot = [
        f"that any system is better than any other by the {hoeffding_text(intervals)}: no pair "
        f"of systems differs significantly by them, so the order of the table, by "
        f"{method_name(method)}, is not supported by this test"
    ]
    compared = intervals.table["compared"]
    most = int(compared.max()) if len(compared) else 0
    need = intervals.min_compared_for_significance()
    if most < need:
        if by == "task" and has_instances:
            advice = AdviceText(
                "rank per instance ({instance}) to use every instance as a ranking",
                instance=("by", "instance"),
            )
            hint = advice.cli() if cli else str(advice)
        elif by == "ranking":  # rankings given without scores
            hint = "more rankings are needed"
        else:
            hint = "more tasks or instance-level scores are needed"
        cannot.append(
            f"any significant difference by the Hoeffding intervals with these data: each "
            f"pair is compared in at most {most} ranking(s), and even a unanimous pair needs "
            f"{need} at this level ({hint})"
        )
    return cannot


def _significant(intervals: HoeffdingResult, method: str) -> tuple[list[str], list[str]]:
    """What can and what cannot be claimed when some pairs differ: the top system or group,
    the count, and the places where the order is not a finding."""
    marks = intervals.marks()
    n, order = len(marks), list(marks["system"])
    symbol = method_name(method)
    can: list[str] = []
    cannot: list[str] = []
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
        f"significantly by the {hoeffding_text(intervals)}; each system's rank range lists the "
        "ranks it can take without contradicting them"
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
    return can, cannot


def hoeffding_text(intervals: HoeffdingResult) -> str:
    """``"Hoeffding intervals (δ = 0.05, holm correction)"``: the name every count of the
    report's Hoeffding test is stated under."""
    return f"Hoeffding intervals (δ = {intervals.delta:g}, {intervals.correction} correction)"


def requested_test(significance: Significance) -> str:
    """The sentence that opens the paragraph when a post-hoc test was asked for: its name and
    its count, both from its one :class:`~rankstats.PosthocResult`, and Friedman's verdict
    (Demšar's protocol: without it no pairwise difference is claimed).

    Examples
    --------
    >>> import rankstats as rs
    >>> from rankstats.reporting.significance import run_significance
    >>> sig = run_significance(rs.load_dataset("xtreme"), "task", {"method": "nemenyi"})
    >>> print(requested_test(sig).split(":")[0])
    Requested post-hoc test, Nemenyi's test (critical difference CD = 10.7 average ranks)
    """
    ph, fr = significance.posthoc, significance.friedman
    # A p-value that underflows is a bound, not a value.
    p = "p < 1e-300" if fr.f_p_value == 0 else f"p = {fr.f_p_value:.3g}"
    name = posthoc_name(ph)
    if ph.zero_method is not None:
        name += f" {SHORT[ph.zero_method]}"
    text = (
        f"Requested post-hoc test, {name}: {ph.n_significant} of the {ph.n_pairs} "
        f"pairs of systems differ significantly at α = {ph.alpha:g}"
    )
    # On imputed ranks the omnibus test is Friedman's in its imputed form (T and its F form).
    omnibus, f = (
        ("the Friedman-type test", "its F form")
        if fr.blocks.imputed
        else ("Friedman's test", "Iman–Davenport's F")
    )
    if significance.significant:
        text += f" ({omnibus} significant: {f} {p})."
    else:
        text += (
            f", but {omnibus} is not significant ({f} {p} ≥ α), so by Demšar's protocol none "
            "of them is claimed."
        )
    return text + " The rank ranges of the tables come from the Hoeffding intervals:"
