"""``ranking.tex``: the ranking table of a report as a booktabs LaTeX table.

Every name goes through :func:`rankstats._text.latex_escape`; the marks († above the next system,
‡ the next system significantly above) and the rank ranges are those of
:meth:`rankstats.HoeffdingResult.marks`, already in :attr:`ReportData.ranking`.
"""

from __future__ import annotations

from rankstats._labels import method_latex, method_name, method_text
from rankstats._text import latex_escape
from rankstats.report._format import column, contradiction_sentence
from rankstats.report.compute import ReportData


def caption(data: ReportData) -> str:
    """The table caption: order, test, marks and unconverged model columns explained."""
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
    if data.unconverged:
        text += (
            " Columns marked (not converged): the model fit did not converge; its ranks are "
            "not reliable."
        )
    return text


def ranking_table(data: ReportData) -> str:
    """The whole ``table`` environment (needs ``\\usepackage{booktabs}``).

    Headings name the methods by their symbols (``$\\sigma^{l}$``); each column shows one number
    of decimals for all its cells (:func:`~rankstats.report._format.column`).
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
    lines = [
        r"\begin{table}[t]",
        r"\centering",
        r"\small",
        rf"\begin{{tabular}}{{{cols}}}",
        r"\toprule",
        " & ".join(header) + r" \\",
        r"\midrule",
    ]
    for i, (_, row) in enumerate(table.iterrows()):
        mark = r"$^{\dagger}$" if row["above_next"] else ""
        mark += r"$^{\ddagger}$" if row["below_next"] else ""
        cells = [shown[f"rank_{data.primary}"][i], latex_escape(row["system"]) + mark]
        for m in methods:
            cells += [shown[f"rank_{m}"][i], shown[f"score_{m}"][i]]
        cells += [shown[c][i] for c in extra]
        cells.append(f"{row['rank_low']}--{row['rank_high']}")
        lines.append(" & ".join(cells) + r" \\")
    lines += [
        r"\bottomrule",
        r"\end{tabular}",
        rf"\caption{{{caption(data)}}}",
        r"\label{tab:rankstats-ranking}",
        r"\end{table}",
    ]
    return "\n".join(lines) + "\n"


def _plain_name(method: str) -> str:
    """``one-level Borda with imputation``: the method's name without its ``(σ^l)`` suffix."""
    return latex_escape(method_name(method).removesuffix(f" ({method_text(method)})"))
