"""The files of a report (:func:`rankstats.report`), written from what it computed: the tables,
the methods paragraph and its references, the figures, the sections' files and, last, the page
that embeds them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rankstats._util.text import mpl_text
from rankstats.aggregation.hoeffding_figure import significance_heatmap
from rankstats.plotting.saving import save_figure
from rankstats.reporting import html, latex
from rankstats.reporting.data_check import section, write_data_check
from rankstats.reporting.methods import bibtex
from rankstats.reporting.model_comparison import write_model_comparison
from rankstats.reporting.paired import write_paired
from rankstats.reporting.power_section import PowerSection, write_power
from rankstats.reporting.rank_posteriors import (
    RankPosteriors,
    run_rank_posteriors,
    write_rank_posteriors,
)
from rankstats.reporting.report_data import ReportData
from rankstats.reporting.significance import Significance, write_significance
from rankstats.reporting.top_systems import figure_systems, names_key, shown_systems
from rankstats.reporting.written_files import WrittenFiles


@dataclass(frozen=True, eq=False)
class ReportPage:
    """What a report shows: the computed data, the methods paragraph (``text``) and its
    citation keys, the opening ``summary``, the data check, the significance and power
    sections, the number of systems shown (``top``), and whether options are named as
    command-line flags (``cli``)."""

    data: ReportData
    text: str
    cites: list[str]
    summary: str
    check: Any
    significance: Significance | None
    power: PowerSection | None
    top: int | None
    cli: bool

    def write(self, written: WrittenFiles) -> RankPosteriors | None:
        """Write every file into ``written``'s directory, ``report.html`` last; the rank
        posteriors of the models (computed here, for their section)."""
        data, sig, tmp = self.data, self.significance, written.tmp
        written.csv("ranking.csv", data.ranking)
        written.csv("pairs.csv", data.intervals.table)
        written.text("ranking.tex", latex.ranking_table(data, self.top))
        written.text("references.bib", bibtex(self.cites) + "\n")
        written.text("methods.txt", self.text + "\n")
        if self.check is not None:
            write_data_check(self.check, tmp, written)
        shown = shown_systems(data, self.top)
        heatmap = significance_heatmap(
            data.intervals,
            title=f"{mpl_text(data.name)}: P(row above column), {mpl_text(data.primary)} order",
            systems=shown if len(shown) < len(data.ranking) else None,
        )
        figures = save_figure(heatmap, tmp / "significance_heatmap")
        for path in figures:
            written(path)
        paired_files = write_paired(data.paired, tmp, written)
        sig_files = write_significance(sig, tmp, written) if sig is not None else None
        power_files = write_power(self.power, tmp, written) if self.power is not None else None
        ranks = run_rank_posteriors(data.comparison)
        rank_files = write_rank_posteriors(ranks, tmp, written) if ranks is not None else None
        models = data.model_comparison
        model_files = write_model_comparison(models, tmp, written) if models is not None else None
        others = figure_systems(data.paired, paired_files, ranks, rank_files, models, model_files)
        cd = list(sig.posthoc.mean_ranks.index) if sig is not None else None
        key = names_key(shown, cd, others)
        if not key.empty:
            written.csv("labels.csv", key)
        sections = html.PageSections(
            summary_text=self.summary,
            paired_files=paired_files,
            significance=sig,
            significance_files=sig_files,
            rank_posteriors=ranks,
            rank_posterior_files=rank_files,
            model_comparison=models,
            model_comparison_files=model_files,
            data_check=section(self.check, cli=self.cli) if self.check is not None else None,
            top=self.top,
            power=self.power,
            power_files=power_files,
        )
        written.text("report.html", html.render(data, self.text, self.cites, figures[0], sections))
        return ranks
