"""``report.html``: one self-contained page (figures as data URIs, inline CSS, no JavaScript).

The page is the Jinja2 template ``templates/report.html.j2`` rendered with autoescape on: every
value reaches it as text (system and task names are data, never markup), so nothing here escapes
by hand. This module only turns a :class:`~rankstats.reporting.report_data.ReportData` into those
values: numbers formatted, names in running text with visible control characters.
"""

from __future__ import annotations

import base64
import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2

from rankstats._util.method_names import method_name, method_symbol, model_name
from rankstats._util.text import terminal
from rankstats.paired_analysis.paired_tests import Paired
from rankstats.plotting.matrices import NOT_SIGNIFICANT_NAME
from rankstats.plotting.names import name_key
from rankstats.reporting._format import column, contradiction_sentence, names
from rankstats.reporting.methods import bibtex, convergence_warning
from rankstats.reporting.model_comparison import ModelComparisonFiles, ModelComparisonSection
from rankstats.reporting.model_comparison import section as model_comparison_section
from rankstats.reporting.paired import STRENGTHS, PairedFiles, summary
from rankstats.reporting.power_section import PowerFiles, PowerSection
from rankstats.reporting.power_section import section as power_section
from rankstats.reporting.rank_posteriors import RankPosteriorFiles, RankPosteriors
from rankstats.reporting.rank_posteriors import section as rank_posterior_section
from rankstats.reporting.rankings_input import left_out
from rankstats.reporting.report_data import ReportData
from rankstats.reporting.significance import Significance, SignificanceFiles
from rankstats.reporting.significance import section as significance_section
from rankstats.reporting.top_systems import shown_note, shown_systems


@functools.cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("rankstats.reporting", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def png_data_uri(path: Path) -> str:
    """A PNG file as an inline ``data:`` URI (the page needs no other file)."""
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode("ascii")


@dataclass(frozen=True)
class PageSections:
    """The optional sections of a report's page, each with the files it embeds or links.

    Attributes
    ----------
    summary_text : str
        The opening paragraph (:func:`rankstats.reporting.summary.claims`).
    paired_files : mapping
        ``{task: PairedFiles}`` of the paired sections (their matrix figures are embedded).
    significance, significance_files : optional
        The Friedman / post-hoc section and its files (its CD diagram is embedded).
    rank_posteriors, rank_posterior_files : optional
        The rank posteriors of the models and their files (the heat maps are embedded).
    model_comparison, model_comparison_files : optional
        PSIS-LOO and the posterior predictive checks of the models, and their files (the PPC
        figures are linked, not embedded).
    data_check : mapping, optional
        The "Data check" section (:func:`rankstats.reporting.data_check.section`).
    top : int, optional
        Only the best ``top`` systems in the ranking table.
    power, power_files : optional
        The power section and its files (its curve is embedded).
    """

    summary_text: str = ""
    paired_files: Mapping[str, PairedFiles] = field(default_factory=dict)
    significance: Significance | None = None
    significance_files: SignificanceFiles | None = None
    rank_posteriors: RankPosteriors | None = None
    rank_posterior_files: Mapping[str, RankPosteriorFiles] | None = None
    model_comparison: ModelComparisonSection | None = None
    model_comparison_files: ModelComparisonFiles | None = None
    data_check: Mapping[str, Any] | None = None
    top: int | None = None
    power: PowerSection | None = None
    power_files: PowerFiles | None = None

    def parts(self) -> dict[str, Any]:
        """The template's variables of the sections that were computed and written."""
        power, power_files = self.power, self.power_files
        sig, sig_files = self.significance, self.significance_files
        ranks, rank_files = self.rank_posteriors, self.rank_posterior_files
        models, model_files = self.model_comparison, self.model_comparison_files
        return {
            "power": None
            if power is None or power_files is None
            else power_section(power, power_files, png_data_uri(power_files.figures[0])),
            "significance": None
            if sig is None or sig_files is None
            else significance_section(sig, sig_files, png_data_uri(sig_files.figures[0])),
            "rank_posteriors": None
            if ranks is None or rank_files is None
            else rank_posterior_section(
                ranks, rank_files, {m: png_data_uri(f.figures[0]) for m, f in rank_files.items()}
            ),
            "model_comparison": None
            if models is None or model_files is None
            else model_comparison_section(models, model_files),
            "data_check": self.data_check,
        }


def render(
    data: ReportData,
    methods_text: str,
    cites: Sequence[str],
    heatmap: Path,
    sections: PageSections,
) -> str:
    """The page of a report.

    Parameters
    ----------
    data : ReportData
        What the report computed.
    methods_text, cites : str, sequence of str
        The methods paragraph and its citation keys
        (:func:`~rankstats.reporting.methods.methods_paragraph`).
    heatmap : Path
        The PNG of the significance heatmap (embedded).
    sections : PageSections
        The opening paragraph and the optional sections with their files.
    """
    ci, table, top = data.intervals, data.ranking, sections.top
    primary = method_name(data.primary)
    circled = ci.table["significant"] & (ci.table["distance"] == 0)
    return (
        _environment()
        .get_template("report.html.j2")
        .render(
            title=terminal(data.name),
            summary=sections.summary_text,
            **_meta(data),
            level=data.by,
            n_rankings=ci.n_rankings,
            warnings=[
                {"model": v.model, "text": convergence_warning(v)}
                for v in data.convergence
                if not v.converged
            ],
            transformations=data.transformations,
            method_name=primary,
            contradicted=bool(table["below_next"].any()),
            contradiction=contradiction_sentence(primary),
            n_significant=ci.n_significant,
            n_pairs=ci.n_pairs,
            delta=ci.delta,
            correction=ci.correction,
            methods=[_heading(m) for m in data.methods],
            model_columns=[
                {
                    **_heading(c[5:]),
                    "title": model_name(c[5:]),
                    "unconverged": c[5:] in data.unconverged,
                }
                for c in data.model_columns
            ],
            rows=_ranking_rows(data)[:top],
            shown_note=shown_note(min(top, len(table)), len(table), ci.n_pairs, ci.correction)
            if top is not None and top < len(table)
            else "",
            name_key=name_key(shown_systems(data, top)).to_dict(orient="records"),
            n_circled=int(circled.sum() // 2),
            heatmap=png_data_uri(heatmap),
            not_significant=NOT_SIGNIFICANT_NAME,
            agreement=_agreement(data.comparison),
            comparison_level=f"{data.comparison.ci_prob:.4g}" if data.comparison else "",
            paired=[
                _paired_section(task, result, sections.paired_files[task])
                for task, result in data.paired.items()
            ],
            strengths=STRENGTHS,
            methods_text=methods_text,
            bibtex=bibtex(cites, sep="\n"),
            **sections.parts(),
        )
    )


def _meta(data: ReportData) -> dict[str, Any]:
    """The counts of the page's opening line; for a report of rankings (no scores) the
    sentence of what is left out (:func:`rankstats.reporting.rankings_input.left_out`)."""
    scores, rankings = data.scores, data.rankings
    if scores is None:
        seen = rankings.observed.any(axis=0)
        never = [s for s, ok in zip(rankings.systems, seen, strict=True) if not ok]
        return {
            "n_systems": rankings.n_systems,
            "n_tasks": 0,
            "n_scores": 0,
            "never": names(never) or "none",
            "skipped": "none",
            "left_out": left_out(rankings),
        }
    return {
        "n_systems": len(scores.systems),
        "n_tasks": len(scores.tasks),
        "n_scores": len(scores.data),
        "never": names(scores.unevaluated_systems) or "none",
        "skipped": names(scores.skipped_tasks) or "none",
        "left_out": "",
    }


def _heading(method: str) -> dict[str, str]:
    """``{"base": "σ", "sup": "l", "title": <the method's name>}``: the template writes
    ``σ<sup>l</sup>`` (both parts as text)."""
    base, sup = method_symbol(method)
    return {"base": base, "sup": sup, "title": method_name(method)}


def _ranking_rows(data: ReportData) -> list[dict[str, Any]]:
    """The rows of the ranking table; each column formatted with one number of decimals."""
    table = data.ranking
    columns = []
    for m in data.methods:
        columns += [column(table[f"rank_{m}"], "rank"), column(table[f"score_{m}"], "score")]
    columns += [column(table[c], "rank") for c in data.model_columns]
    primary = column(table[f"rank_{data.primary}"], "rank")
    rows = []
    for i, (_, row) in enumerate(table.iterrows()):
        rows.append(
            {
                "mark": "above" if row["above_next"] else ("below" if row["below_next"] else ""),
                "rank": primary[i],
                "system": str(row["system"]),
                "cells": [cells[i] for cells in columns],
                "range": f"{row['rank_low']}–{row['rank_high']}",
            }
        )
    return rows


def _agreement(comparison: Any) -> list[dict[str, Any]]:
    if comparison is None:
        return []
    return [
        {**r, "model": model_name(r["method"])}
        for r in comparison.agreement.to_dict(orient="records")
    ]


def _paired_section(task: str, result: Paired, files: PairedFiles) -> dict[str, Any]:
    strengths = result.strengths
    key = "bt" if strengths["bt"].notna().all() else "mean"
    strengths = strengths.sort_values(key, ascending=False, kind="stable")
    shown = {c: column(strengths[c], "score", missing="–") for c in STRENGTHS}
    agree = result.agreement
    p = result.parameters
    return {
        "task": task,
        "n_instances": p["n_instances"],
        "n_pairs": len(result.pairs),
        "alpha": f"{p['alpha']:g}",
        "summary": summary(result),
        "pairs_file": files.pairs.name,
        "rows": [
            {"system": str(system), "cells": [shown[c][i] for c in STRENGTHS]}
            for i, system in enumerate(strengths["system"])
        ],
        "agreement": "; ".join(
            f"{a}–{b}: τ = {tau:.2f}, same best {'yes' if top else 'no'}"
            for a, b, tau, top in zip(
                agree["a"], agree["b"], agree["kendall_tau"], agree["same_top1"], strict=True
            )
        ),
        "image": png_data_uri(files.figures[0]),
    }
