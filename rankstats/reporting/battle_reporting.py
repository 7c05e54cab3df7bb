"""The paper-ready report of a battle log: :func:`battle_report` (``rs.battle_report``).

The battle counterpart of :func:`rankstats.report`, in the same style and with the same
guarantees: one self-contained ``report.html`` (figures embedded, no JavaScript), booktabs
LaTeX tables, the CSV files behind every number, figures as PNG and PDF, ``methods.txt`` and
``references.bib``; the output directory is checked before anything is computed and replaced as
a whole once the last file is written; names are data in every output (HTML autoescape,
:func:`~rankstats._util.text.latex_escape`, :func:`~rankstats.plotting.names.labels` for the
figures, formula-safe CSV cells).

Every number is the fit's own (:mod:`rankstats.reporting.battle_data`): the leaderboard is
:meth:`BattleFit.table`, the parameters :meth:`BattleFit.parameters`, and the one
:meth:`BattleFit.differences` result gives the neighbours' table, the heat map, the † marks and
the rank ranges.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from rankstats._util.arguments import probability
from rankstats._util.atomic import check_output_dir, output_dir
from rankstats.battles.battle_fit import BattleFit
from rankstats.battles.log import Battles
from rankstats.plotting.names import name_key
from rankstats.plotting.saving import save_figure
from rankstats.reporting import battle_latex
from rankstats.reporting.battle_data import BattleReportData, check_log, compute_battles
from rankstats.reporting.battle_figures import differences_heatmap, rank_change_figure
from rankstats.reporting.battle_html import battle_claims, render
from rankstats.reporting.battle_methods import battle_methods_paragraph
from rankstats.reporting.methods import bibtex
from rankstats.reporting.written_files import WrittenFiles


@dataclass(frozen=True, eq=False)
class BattleReport:
    """What :func:`battle_report` computed and where it wrote it.

    Attributes
    ----------
    out : Path
        Output directory.
    files : tuple of Path
        Every file written (``report.html`` first), under its final name in ``out``.
    data : BattleReportData
        Everything the report shows: ``leaderboard`` (:meth:`BattleFit.table` with the rank
        ranges and † marks), ``differences`` (:meth:`BattleFit.differences`), ``parameters``,
        ``effects`` and ``adjustment`` (with covariates), ``log`` (the counts of the log).
    methods_text : str
        The methods paragraph (also in ``methods.txt``).
    summary : str
        The paragraph the page opens with: what can and cannot be claimed.
    """

    out: Path
    files: tuple[Path, ...]
    data: BattleReportData
    methods_text: str
    summary: str

    @property
    def html(self) -> Path:
        return self.files[0]

    @property
    def leaderboard(self) -> pd.DataFrame:
        return self.data.leaderboard

    @property
    def differences(self) -> pd.DataFrame:
        return self.data.differences

    def __repr__(self) -> str:
        return (
            f"BattleReport({self.html}, {self.data.log.n_models} models, "
            f"{self.data.n_significant} of {len(self.data.differences)} differences significant, "
            f"{len(self.files)} files)"
        )


def battle_report(
    fit: BattleFit,
    battles: Battles,
    out: str | Path = "report",
    title: str | None = None,
    alpha: float | None = None,
) -> BattleReport:
    r"""Write a paper-ready report of a battle fit (:func:`rankstats.fit_battles`).

    Files written to ``out``:

    - ``report.html``: a paragraph of what can and cannot be claimed; a warning box when the
      posterior did not converge; the data (models, battles, ordered pairs, clusters, ties,
      both-bad battles, the share won by the model shown first and the order effect fitted or
      why not); the leaderboard (ratings, the interval of each method, rank (UB), the rank range
      of the tests, † where a model is significantly above the next); the test of each pair of
      neighbours and the heat map of every significant difference; with battle covariates, the
      style-control section (the effects table and figure, the adjusted beside the unadjusted
      ranking and a slope chart); the methods paragraph and its BibTeX;
    - ``leaderboard.csv`` / ``.tex``, ``differences.csv`` (every pair) / ``differences.tex``
      (neighbours), ``parameters.csv``, ``intervals.png`` / ``.pdf``,
      ``differences_heatmap.png`` / ``.pdf``; with covariates ``covariate_effects.csv`` /
      ``.tex``, ``adjusted_ranking.csv`` / ``.tex``, ``covariates.png`` / ``.pdf``,
      ``rank_change.png`` / ``.pdf``; ``methods.txt``, ``references.bib``, and ``labels.csv``
      when a figure shortens names.

    Parameters
    ----------
    fit : BattleFit
        The fit to report.
    battles : Battles
        The log it was fitted on (:func:`rankstats.read_battles`): its counts are the data
        summary; a log with other models or battle counts is refused.
    out : str or Path
        Output directory: new, empty, or one an earlier rankstats run wrote; any other
        non-empty directory or an existing file is refused with
        :class:`~rankstats.errors.OutputError` before anything is computed.
    title : str, optional
        Report title (default: the log's file name).
    alpha : float, optional
        Level of the tests of the rating differences (default 1 − the fit's confidence).

    Returns
    -------
    BattleReport

    Examples
    --------
    >>> import tempfile, warnings, rankstats as rs
    >>> log = rs.read_battles(rs.simulate_battles(n_models=5, n_battles=2000, seed=1)[0])
    >>> fit = rs.fit_battles(log, bootstrap=0)
    >>> rep = rs.battle_report(fit, log, out=tempfile.mkdtemp())
    >>> rep.html.name, rep.leaderboard["model"].tolist() == fit.table()["model"].tolist()
    ('report.html', True)
    """
    if alpha is not None:
        probability("alpha", alpha)
    out = check_output_dir(out, option="out")
    check_log(fit, battles)
    data = compute_battles(fit, battles, title, alpha)
    text, cites = battle_methods_paragraph(data)
    summary = battle_claims(data)
    styled = data.effects is not None
    with output_dir(out, option="out") as tmp:
        written = WrittenFiles(tmp, out)
        written.csv("leaderboard.csv", data.leaderboard)
        written.csv("differences.csv", data.differences)
        written.csv("parameters.csv", data.parameters)
        written.text("leaderboard.tex", battle_latex.leaderboard_table(data))
        written.text("differences.tex", battle_latex.differences_table(data))
        if styled:
            written.csv("covariate_effects.csv", data.effects)
            written.csv("adjusted_ranking.csv", data.adjustment)
            written.text("covariate_effects.tex", battle_latex.effects_table(data))
            written.text("adjusted_ranking.tex", battle_latex.adjustment_table(data))
        written.text("references.bib", bibtex(cites) + "\n")
        written.text("methods.txt", text + "\n")
        images = _figures(data, tmp, written)
        key = _names_key(data)
        if not key.empty:
            written.csv("labels.csv", key)
        written.text("report.html", render(data, text, cites, summary, images))
        files = [out / "report.html", *(p for p in written.files if p.name != "report.html")]
    return BattleReport(out=out, files=tuple(files), data=data, methods_text=text, summary=summary)


def _figures(data: BattleReportData, tmp: Path, written: WrittenFiles) -> dict[str, Path]:
    """Draw and save every figure (PNG + PDF); ``{stem: PNG path}``."""
    import matplotlib.pyplot as plt

    fit = data.fit
    drawn = {
        "intervals": fit.plot(),
        "differences_heatmap": differences_heatmap(
            data.differences, data.order, data.alpha, fit.models
        ),
    }
    if data.effects is not None:
        drawn["covariates"] = fit.plot_covariates()
        drawn["rank_change"] = rank_change_figure(data.adjustment, fit.models)
    images = {}
    for stem, figure in drawn.items():
        paths = save_figure(figure, tmp / stem)
        plt.close(figure)
        for path in paths:
            written(path)
        images[stem] = paths[0]
    return images


def _names_key(data: BattleReportData) -> pd.DataFrame:
    """``labels.csv``: the shortened names of each figure (``figure``, ``label``, ``name``)."""
    figures = {"intervals": data.fit.models, "differences_heatmap": data.fit.models}
    if data.effects is not None:
        figures["covariates"] = data.fit.covariate_names
        figures["rank_change"] = data.fit.models
    parts = [name_key(names).assign(figure=stem) for stem, names in figures.items()]
    return pd.concat(parts, ignore_index=True)[["figure", "label", "name"]]
