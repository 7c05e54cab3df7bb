"""``ranking.tex``: the ranking table of a report as a booktabs LaTeX table.

Every name goes through :func:`rankstats._text.latex_escape`; the marks († above the next system,
‡ the next system significantly above) and the rank ranges are those of
:meth:`rankstats.HoeffdingResult.marks`, already in :attr:`ReportData.ranking`.
"""

from __future__ import annotations

from rankstats._text import latex_escape
from rankstats.report._format import contradiction_sentence, number
from rankstats.report.compute import ReportData


def caption(data: ReportData) -> str:
    """The table caption: order, test, marks and unconverged model columns explained."""
    ci = data.intervals
    text = (
        f"Ranking of {latex_escape(data.name)} by {latex_escape(data.primary)}. Rank range: ranks "
        f"compatible with the significant pairwise differences (Hoeffding, "
        f"$\\delta = {ci.delta}$, {latex_escape(ci.correction)}); $^{{\\dagger}}$: significantly "
        f"above the next system."
    )
    if data.ranking["below_next"].any():
        text += f" $^{{\\ddagger}}$: {latex_escape(contradiction_sentence(data.primary))}."
    if data.unconverged:
        text += (
            " Columns marked (not converged): the model fit did not converge; its ranks are "
            "not reliable."
        )
    return text


def ranking_table(data: ReportData) -> str:
    """The whole ``table`` environment (needs ``\\usepackage{booktabs}``)."""
    methods, extra, table = data.methods, data.model_columns, data.ranking
    cols = "r l " + " ".join("r r" for _ in methods) + " r" * len(extra) + " c"
    header = ["Rank", "System"]
    for m in methods:
        header += [f"rank {latex_escape(m)}", f"score {latex_escape(m)}"]
    header += [
        f"rank {latex_escape(c[5:])}" + (" (not converged)" if c[5:] in data.unconverged else "")
        for c in extra
    ]
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
    for _, row in table.iterrows():
        mark = r"$^{\dagger}$" if row["above_next"] else ""
        mark += r"$^{\ddagger}$" if row["below_next"] else ""
        cells = [number(row[f"rank_{data.primary}"]), latex_escape(row["system"]) + mark]
        for m in methods:
            cells += [number(row[f"rank_{m}"]), number(row[f"score_{m}"])]
        cells += [number(row[c]) for c in extra]
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
