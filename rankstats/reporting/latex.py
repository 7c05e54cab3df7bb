"""``ranking.tex``: the ranking table of a report as a booktabs LaTeX table.

Every name goes through :func:`rankstats._util.text.latex_escape`; the marks († above the next
system, ‡ the next system significantly above) and the rank ranges are those of
:meth:`rankstats.HoeffdingResult.marks`, already in :attr:`ReportData.ranking`.
"""

from __future__ import annotations

from rankstats._util.latex import booktabs_table
from rankstats._util.method_names import method_latex, method_name, method_text
from rankstats._util.text import latex_escape
from rankstats.reporting._format import column, contradiction_sentence
from rankstats.reporting.rankings_input import left_out
from rankstats.reporting.report_data import ReportData

LABEL = "tab:rankstats-ranking"


def caption(data: ReportData, shown: int | None = None) -> str:
    """The table caption: order, test, marks and unconverged model columns explained (and,
    when only the best ``shown`` systems are listed, that the statistics use all of them)."""
    ci = data.intervals
    text = (
        f"Ranking of {latex_escape(data.name)} by {method_latex(data.primary)}. Rank range: ranks "
        f"compatible with the significant pairwise differences (Hoeffding, "
        f"$\\delta = {ci.delta}$, {latex_escape(ci.correction)}); $^{{\\dagger}}$: significantly "
        f"above the next system."
    )
    if data.ranking["below_next"].any():
        # The sentence is plain words; the method's symbol is already LaTeX.
        text += f" $^{{\\ddagger}}$: {contradiction_sentence(method_latex(data.primary))}."
    symbols = [m for m in data.methods if method_latex(m).startswith("$")]
    if symbols:
        text += " " + "; ".join(f"{method_latex(m)}: {_plain_name(m)}" for m in symbols) + "."
    total = len(data.ranking)
    if shown is not None and shown < total:
        text += (
            f" The best {shown} of {total} systems are shown; ranks, rank ranges and the "
            f"multiplicity correction are computed on all {total} (ranking.csv lists every one)."
        )
    if data.from_rankings:
        text += " " + left_out(data.rankings, latex=True)
    if data.unconverged:
        text += (
            " Columns marked (not converged): the model fit did not converge; its ranks are "
            "not reliable."
        )
    return text


def ranking_table(data: ReportData, top: int | None = None) -> str:
    """The whole ``table`` environment (needs ``\\usepackage{booktabs}``); above
    :data:`rankstats._util.latex.LONG_ROWS` rows a ``longtable`` that breaks across pages (also
    ``\\usepackage{longtable}``).

    Headings name the methods by their symbols (``$\\sigma^{l}$``); each column shows one number
    of decimals for all its cells (:func:`~rankstats.reporting._format.column`). ``top``: only the
    best ``top`` systems are listed, and the caption says that the ranks and intervals are those
    computed on all of them.
    """
    methods, extra, table = data.methods, data.model_columns, data.ranking
    cols = "r l " + " ".join("r r" for _ in methods) + " r" * len(extra) + " c"
    header = ["Rank", "System"]
    for m in methods:
        header += [f"rank {method_latex(m)}", f"score {method_latex(m)}"]
    header += [
        f"rank {method_latex(c[5:])}" + (" (not converged)" if c[5:] in data.unconverged else "")
        for c in extra
    ]
    shown = {c: column(table[c], "rank") for c in (f"rank_{m}" for m in methods)}
    shown.update({c: column(table[c], "score") for c in (f"score_{m}" for m in methods)})
    shown.update({c: column(table[c], "rank") for c in extra})
    header.append("rank range")
    rows = []
    for i, (_, row) in enumerate(table.iterrows()):
        mark = r"$^{\dagger}$" if row["above_next"] else ""
        mark += r"$^{\ddagger}$" if row["below_next"] else ""
        cells = [shown[f"rank_{data.primary}"][i], latex_escape(row["system"]) + mark]
        for m in methods:
            cells += [shown[f"rank_{m}"][i], shown[f"score_{m}"][i]]
        cells += [shown[c][i] for c in extra]
        cells.append(f"{row['rank_low']}--{row['rank_high']}")
        rows.append(" & ".join(cells) + r" \\")
    if top is not None and top < len(rows):
        rows = rows[:top]
    text = caption(data, shown=len(rows))
    return booktabs_table(cols, " & ".join(header), rows, text, LABEL)


def _plain_name(method: str) -> str:
    """``one-level Borda with imputation``: the method's name without its ``(σ^l)`` suffix."""
    return latex_escape(method_name(method).removesuffix(f" ({method_text(method)})"))
