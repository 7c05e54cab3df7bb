"""``report.html`` of a battle report: one self-contained page in the style of the score report.

The page is the Jinja2 template ``templates/battle_report.html.j2`` (with the score report's
``report.css``), rendered with autoescape on by the environment of
:mod:`rankstats.reporting.html`: every value reaches it as text, so model and covariate names are
data, never markup. This module turns a
:class:`~rankstats.reporting.battle_data.BattleReportData` into those values (numbers formatted
as in :mod:`rankstats.reporting.battle_latex`) and writes the opening paragraph of what can and
cannot be claimed (:func:`battle_claims`), read off the report's one test of the differences.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rankstats._util.text import terminal
from rankstats.plotting.names import name_key
from rankstats.reporting._format import column, names
from rankstats.reporting.battle_data import BattleReportData
from rankstats.reporting.battle_latex import elo, interval, neighbours, p_value
from rankstats.reporting.battle_methods import INTERVAL_NAMES, posterior_warning
from rankstats.reporting.html import _environment, png_data_uri
from rankstats.reporting.methods import bibtex


def battle_claims(data: BattleReportData) -> str:
    """The plain-language paragraph the page opens with, from the marks of the one test of the
    differences (the rank ranges) and the posterior's verdict."""
    table, n = data.leaderboard, len(data.leaderboard)
    test = f"Wald tests, Holm-adjusted, α = {data.alpha:g}"
    first = table.loc[table["rank_low"] == 1, "model"].tolist()
    can = []
    if len(first) == 1 and n > 1 and table["rank_high"].iloc[0] == 1:
        can.append(f"{terminal(first[0])} is rated significantly above every other model")
    elif n > 1:
        can.append(f"{len(first)} models could be first (rank range starting at 1): {names(first)}")
    can.append(
        f"{data.n_significant} of the {len(data.differences)} pairs of models differ "
        f"significantly in rating ({test})"
    )
    settled = (table["rank_low"] == table["rank_high"]).all()
    text = "Can be claimed: " + "; ".join(can) + "."
    if settled:
        text += " Every rank is established by the tests."
    else:
        open_ = int((table["rank_low"] != table["rank_high"]).sum())
        text += (
            f" Cannot be claimed: the order of the {open_} models whose rank ranges span more "
            "than one rank (their differences are not significant)."
        )
    if data.adjustment is not None:
        moved = data.adjustment[data.adjustment["rank_change"] != 0]
        text += (
            f" At equal style ({names(data.fit.covariate_names)} held equal), {len(moved)} of "
            f"{n} models change rank"
            + (f"; the largest move, {_largest_moves(moved)}" if len(moved) else "")
            + "."
        )
    if data.posterior_problems:
        text += " Nothing may be claimed from the posterior intervals: it did not converge."
    return text


def _largest_moves(moved: Any) -> str:
    """``"1 rank: claude-2.1 4 → 3, palm-2 7 → 6"``: every model with the largest rank change
    (at most three named)."""
    size = moved["rank_change"].abs()
    top = moved[size == size.max()]
    shown = [
        f"{terminal(m)} {before:g} → {after:g}"
        for m, before, after in zip(top["model"], top["rank_unadjusted"], top["rank"], strict=True)
    ]
    more = f" and {len(shown) - 3} more" if len(shown) > 3 else ""
    ranks = f"{size.max():g} rank" + ("" if size.max() == 1 else "s")
    return f"{ranks}: " + ", ".join(shown[:3]) + more


def render(
    data: BattleReportData,
    methods_text: str,
    cites: Sequence[str],
    summary: str,
    images: Mapping[str, Path],
) -> str:
    """The page. ``images``: ``{figure stem: PNG path}`` of the figures to embed
    (``intervals``, ``differences_heatmap`` and, with covariates, ``covariates`` and
    ``rank_change``)."""
    fit = data.fit
    level = f"{fit.confidence_level:.0%}"
    return (
        _environment()
        .get_template("battle_report.html.j2")
        .render(
            title=terminal(data.name),
            summary=summary,
            warnings=[posterior_warning(data.posterior_problems)]
            if data.posterior_problems
            else [],
            notes=[terminal(w) for w in fit.info.get("warnings", [])],
            facts=_facts(data),
            methods=[f"{INTERVAL_NAMES[m]} {level}" for m in fit.methods],
            rows=_leaderboard_rows(data),
            adjusted=", ".join(fit.covariate_names),
            ub_method=INTERVAL_NAMES[
                "bootstrap" if fit.bootstrap_distribution is not None else "fisher"
            ],
            alpha=f"{data.alpha:g}",
            n_significant=data.n_significant,
            n_pairs=len(data.differences),
            neighbours=_neighbour_rows(data),
            heatmap=png_data_uri(images["differences_heatmap"]),
            intervals=png_data_uri(images["intervals"]),
            style=_style(data, images) if data.effects is not None else None,
            name_key=name_key(fit.models).to_dict(orient="records"),
            methods_text=methods_text,
            bibtex=bibtex(cites, sep="\n"),
        )
    )


def _facts(data: BattleReportData) -> list[str]:
    """The data summary, one sentence each."""
    fit, log = data.fit, data.log
    total = max(log.n_battles, 1)
    facts = [
        f"{log.n_models} models, {log.n_battles} battles over {log.n_pairs} ordered pairs "
        f"(source: {terminal(log.source)}); {log.n_fitted} battles fitted.",
        f"Outcomes: the model shown first won {log.first_wins} ({log.first_wins / total:.1%}), "
        f"the model shown second {log.second_wins} ({log.second_wins / total:.1%}); "
        f"{log.ties} ties ({log.ties / total:.1%}) and {log.both_bad} 'both bad' "
        f"({log.both_bad / total:.1%}; "
        + ("left out" if fit.info.get("both_bad") == "drop" else "counted as ties")
        + "). Ties: "
        + ("Davidson's tie parameter." if fit.ties else "half a win each."),
    ]
    if log.cluster is not None:
        facts.append(
            f"{log.n_clusters} clusters (prompts / questions: column {terminal(log.cluster)}); "
            "the bootstrap resamples clusters."
        )
    else:
        facts.append("No clusters given: the bootstrap resamples battles.")
    share = f"{log.first_share:.1%} of the decisive battles were won by the model shown first"
    if fit.order_effect:
        row = data.parameters.set_index("parameter").loc["order_effect"]
        facts.append(
            f"Order effect: {share}; fitted η = {row['estimate']:.3f} "
            f"({row['elo']:+.1f} Elo points for the model shown first)."
        )
    else:
        why = fit.info.get("order_effect_dropped")
        facts.append(
            f"Order effect: {share}; not fitted"
            + (f" ({terminal(why)})" if why else " (left out when the fit was made)")
            + "."
        )
    return facts


def _leaderboard_rows(data: BattleReportData) -> list[dict[str, Any]]:
    table, methods = data.leaderboard, data.fit.methods
    ranks = column(table["rank"], "rank")
    rows = []
    for i, (_, row) in enumerate(table.iterrows()):
        rows.append(
            {
                "mark": bool(row["above_next"]),
                "rank": ranks[i],
                "model": str(row["model"]),
                "rating": elo(row["rating"]),
                "intervals": [interval(row[f"{m}_low"], row[f"{m}_high"]) for m in methods],
                "rank_ub": str(int(row["rank_ub"])),
                "range": f"{row['rank_low']}–{row['rank_high']}",
                "n": str(int(row["n_battles"])),
            }
        )
    return rows


def _neighbour_rows(data: BattleReportData) -> list[dict[str, Any]]:
    return [
        {
            "a": str(row["model_a"]),
            "b": str(row["model_b"]),
            "difference": elo(row["difference"]),
            "se": elo(row["se"]),
            "z": f"{row['z']:.2f}",
            "p": p_value(row["p_holm"]),
            "significant": bool(row["significant"]),
        }
        for _, row in neighbours(data).iterrows()
    ]


def _style(data: BattleReportData, images: Mapping[str, Path]) -> dict[str, Any]:
    fit, effects, table = data.fit, data.effects, data.adjustment
    methods = [m for m in fit.methods if f"{m}_low" in effects]
    ranks = column(table["rank"], "rank")
    before = column(table["rank_unadjusted"], "rank")
    change = column(table["rank_change"], "rank")
    return {
        "per": "standard deviation" if fit.info.get("standardized", True) else "unit",
        "methods": [f"{INTERVAL_NAMES[m]} {fit.confidence_level:.0%}" for m in methods],
        "effects": [
            {
                "name": str(row["covariate"]),
                "sd": f"{row['sd']:.3f}",
                "gamma": f"{row['estimate']:.3f}",
                "elo": elo(row["elo"]),
                "intervals": [interval(row[f"{m}_low_elo"], row[f"{m}_high_elo"]) for m in methods],
            }
            for _, row in effects.iterrows()
        ],
        "rows": [
            {
                "model": str(row["model"]),
                "rating": elo(row["rating"]),
                "rank": ranks[i],
                "before_rating": elo(row["rating_unadjusted"]),
                "before": before[i],
                "change": ("+" if row["rank_change"] > 0 else "") + change[i],
                "move": "up"
                if row["rank_change"] > 0
                else ("down" if row["rank_change"] < 0 else ""),
            }
            for i, (_, row) in enumerate(table.iterrows())
        ],
        "effects_image": png_data_uri(images["covariates"]),
        "change_image": png_data_uri(images["rank_change"]),
    }
