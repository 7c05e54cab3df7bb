r"""The LaTeX tables of a battle report (booktabs; a ``longtable`` above
:data:`rankstats._util.latex.LONG_ROWS` rows).

- ``leaderboard.tex``: ratings, the interval of each method, rank, rank (UB), the rank range of
  the Wald tests and the † of a model significantly above the next one;
- ``differences.tex``: the test of each pair of neighbours in the leaderboard (every pair is in
  ``differences.csv`` and the heat map);
- with battle covariates, ``covariate_effects.tex`` (γ per standard deviation, in log-odds and
  Elo points, with the intervals of each method) and ``adjusted_ranking.tex`` (the ranks and
  ratings at equal style beside the unadjusted ones).

Every name goes through :func:`rankstats._util.text.latex_escape`; every number is read off the
report's tables (:class:`~rankstats.reporting.battle_data.BattleReportData`), never recomputed.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import pandas as pd

from rankstats._util.latex import booktabs_table
from rankstats._util.text import latex_escape
from rankstats.reporting._format import column
from rankstats.reporting.battle_data import BattleReportData
from rankstats.reporting.battle_methods import INTERVAL_NAMES


def elo(value: float) -> str:
    """An Elo-scale number as every battle table shows it: one decimal (``1089.3``, ``-31.3``)."""
    return f"{value:.1f}"


def p_value(p: float, latex: bool = False) -> str:
    """A p-value as the tables show it: three significant digits, below 0.001 as ``< 0.001``."""
    if p < 0.001:
        return "$<$0.001" if latex else "< 0.001"
    return f"{p:.3g}"


def interval(low: float, high: float) -> str:
    """``[low, high]`` in Elo points (plain text; LaTeX and HTML alike)."""
    return f"[{elo(low)}, {elo(high)}]"


def neighbours(data: BattleReportData) -> pd.DataFrame:
    """The rows of :attr:`BattleReportData.differences` of each pair of neighbours in the
    leaderboard, best pair first (the same rows, not recomputed)."""
    order = data.order
    index = {
        (a, b): k
        for k, (a, b) in enumerate(
            zip(data.differences["model_a"], data.differences["model_b"], strict=True)
        )
    }
    rows = [index.get((a, b), index.get((b, a))) for a, b in itertools.pairwise(order)]
    return data.differences.iloc[rows].reset_index(drop=True)


def _float(columns: str, header: Sequence[str], rows: list[str], caption: str, label: str) -> str:
    return booktabs_table(columns, " & ".join(header), rows, caption, label)


def _methods_caption(data: BattleReportData) -> str:
    fit = data.fit
    shown = [latex_escape(INTERVAL_NAMES[m]) for m in fit.methods]
    if fit.bootstrap_distribution is not None and data.log.cluster is not None:
        shown[1] = f"bootstrap over the clusters of {latex_escape(data.log.cluster)}"
    return ", ".join(shown)


def leaderboard_table(data: BattleReportData) -> str:
    """``leaderboard.tex``."""
    fit, table = data.fit, data.leaderboard
    methods = fit.methods
    level = f"{fit.confidence_level:.0%}".replace("%", r"\%")
    header = ["Rank", "Model", "Rating"]
    header += [f"{latex_escape(INTERVAL_NAMES[m])} {level}" for m in methods]
    header += ["Rank (UB)", "Rank range", "Battles"]
    ranks = column(table["rank"], "rank")
    rows = []
    for i, (_, row) in enumerate(table.iterrows()):
        mark = r"$^{\dagger}$" if row["above_next"] else ""
        cells = [ranks[i], latex_escape(row["model"]) + mark, elo(row["rating"])]
        cells += [interval(row[f"{m}_low"], row[f"{m}_high"]) for m in methods]
        cells += [str(int(row["rank_ub"])), f"{row['rank_low']}--{row['rank_high']}"]
        cells.append(str(int(row["n_battles"])))
        rows.append(" & ".join(cells) + r" \\")
    adjusted = (
        " at equal style (adjusted for " + latex_escape(", ".join(fit.covariate_names)) + ")"
        if fit.covariate_names
        else ""
    )
    key = "bootstrap" if fit.bootstrap_distribution is not None else "Fisher (Wald)"
    caption = (
        f"Leaderboard of {latex_escape(data.name)}: Bradley--Terry ratings{adjusted} on the Elo "
        f"scale with {level} intervals ({_methods_caption(data)}). Rank (UB): 1 + the number "
        f"of models whose {key} interval lies entirely above. Rank range: the ranks compatible "
        r"with the significant rating differences (Wald tests, Holm, $\alpha = "
        rf"{data.alpha:g}$); $^{{\dagger}}$: significantly above the next model."
    )
    if data.posterior_problems:
        caption += " The posterior did not converge: its intervals are not reliable."
    label = "tab:rankstats-battle-leaderboard"
    columns = "r l r " + "c " * len(methods) + "r c r"
    return _float(columns, header, rows, caption, label)


def differences_table(data: BattleReportData) -> str:
    """``differences.tex``: the test of each pair of neighbours."""
    shown = neighbours(data)
    header = ["Model", "next model", "Difference", "SE", "$z$", r"$p_\mathrm{Holm}$", ""]
    rows = []
    for _, row in shown.iterrows():
        cells = [
            latex_escape(row["model_a"]),
            latex_escape(row["model_b"]),
            elo(row["difference"]),
            elo(row["se"]),
            f"{row['z']:.2f}",
            p_value(row["p_holm"], latex=True),
            r"$^{\dagger}$" if row["significant"] else "",
        ]
        rows.append(" & ".join(cells) + r" \\")
    caption = (
        f"Rating differences of neighbouring models of {latex_escape(data.name)} (Elo points): "
        "Wald tests with the Fisher covariance, Holm-adjusted over all "
        rf"{len(data.differences)} pairs; $^{{\dagger}}$: significant at $\alpha = "
        rf"{data.alpha:g}$. Every pair: differences.csv."
    )
    return _float("l l r r r r c", header, rows, caption, "tab:rankstats-battle-differences")


def effects_table(data: BattleReportData) -> str:
    """``covariate_effects.tex``."""
    fit, effects = data.fit, data.effects
    per = "standard deviation" if fit.info.get("standardized", True) else "unit"
    level = f"{fit.confidence_level:.0%}".replace("%", r"\%")
    methods = [m for m in fit.methods if f"{m}_low" in effects]
    header = ["Covariate", "SD", r"$\gamma$", "Elo"]
    header += [f"{latex_escape(INTERVAL_NAMES[m])} {level} (Elo)" for m in methods]
    rows = []
    for _, row in effects.iterrows():
        cells = [latex_escape(row["covariate"]), f"{row['sd']:.3f}", f"{row['estimate']:.3f}"]
        cells.append(elo(row["elo"]))
        cells += [interval(row[f"{m}_low_elo"], row[f"{m}_high_elo"]) for m in methods]
        rows.append(" & ".join(cells) + r" \\")
    caption = (
        f"Style control on {latex_escape(data.name)}: the effect $\\gamma$ of each battle "
        f"covariate on the log-odds of the model shown first, per {per} (SD: the covariate's "
        f"standard deviation over the battles fitted), and in Elo points with {level} "
        f"intervals ({_methods_caption(data)})."
    )
    return _float(
        "l r r r" + " c" * len(methods), header, rows, caption, "tab:rankstats-battle-effects"
    )


def adjustment_table(data: BattleReportData) -> str:
    """``adjusted_ranking.tex``."""
    table = data.adjustment
    ranks = column(table["rank"], "rank")
    before = column(table["rank_unadjusted"], "rank")
    change = column(table["rank_change"], "rank")
    header = ["Model", "Rating", "Rank", "Unadjusted rating", "Unadjusted rank", "Rank change"]
    rows = []
    for i, (_, row) in enumerate(table.iterrows()):
        moved = float(row["rank_change"])
        cells = [latex_escape(row["model"]), elo(row["rating"]), ranks[i]]
        cells += [elo(row["rating_unadjusted"]), before[i]]
        cells.append(("+" if moved > 0 else "") + change[i])
        rows.append(" & ".join(cells) + r" \\")
    caption = (
        f"Ratings and ranks of {latex_escape(data.name)} at equal style (adjusted for "
        f"{latex_escape(', '.join(data.fit.covariate_names))}) beside those of the same battles "
        "fitted without the covariates; rank change: unadjusted rank $-$ adjusted rank "
        "(positive: the model moves up at equal style)."
    )
    return _float("l r r r r r", header, rows, caption, "tab:rankstats-battle-adjusted")
