"""The report's rank-posterior section: ``P(rank = r)`` of every system under each fitted model.

Each fitted rank model of the report (:attr:`ReportData.comparison`) gives a
:class:`~rankstats.models.rank_posteriors.RankPosterior` (:meth:`Comparison.rank_posteriors`, the
one computation, shared with ``rs.compare``).  For each model :func:`write_rank_posteriors`
writes

- ``rank_posterior_<model>.csv``: per system the expected rank, its standard deviation,
  ``P(best)``, the median rank and the equal-tailed credible rank interval;
- ``rank_posterior_<model>_probabilities.csv``: the tidy table of ``P(rank = r)`` (and the
  cumulative ``P(rank ≤ r)``);
- ``rank_posterior_<model>.png`` / ``.pdf``: the heat map (:meth:`RankPosterior.plot`);

and one LaTeX table ``rank_posteriors.tex`` with every model side by side.  A fit that holds a
single point (Mallows fitted by ``map``: the Kemeny consensus) has no rank posterior; the section
says so in a note instead of leaving the model out silently.  For ``map`` / ``mle`` fits of
Plackett–Luce and Bradley–Terry the draws come from the normal approximation at the optimum,
and the section says that too (:attr:`RankPosterior.approximation`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rankstats._util.latex import booktabs_table
from rankstats._util.method_names import model_name
from rankstats._util.text import latex_escape, write_csv
from rankstats.plotting.saving import save_figure
from rankstats.reporting._format import column

if TYPE_CHECKING:  # importing rankstats.models loads ArviZ: only when a model was fitted
    from rankstats.models.rank_posteriors import RankPosterior

#: Probability of the credible rank intervals shown in the report.
PROB = 0.95


@dataclass(frozen=True)
class RankPosteriors:
    """The rank posteriors of a report's models and the notes on the models without one."""

    posteriors: dict[str, RankPosterior]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class RankPosteriorFiles:
    """Files written for one model."""

    summary: Path
    probabilities: Path
    figures: tuple[Path, ...]


def run_rank_posteriors(comparison: Any, ci_prob: float = PROB) -> RankPosteriors | None:
    """The rank posteriors of the models of ``comparison`` (None without models).

    A model without a rank posterior gets a note of the section, with the reason.
    """
    if comparison is None or not comparison.models:
        return None
    posteriors, skipped = comparison.rank_posteriors_and_skipped(ci_prob)
    notes = tuple(
        f"No rank posterior for {model_name(name)} ({comparison.models[name].method}): {why}"
        for name, why in skipped
    )
    return RankPosteriors(posteriors, notes)


def write_rank_posteriors(
    result: RankPosteriors,
    directory: Path,
    written: Callable[[Path], None] = lambda path: None,
) -> dict[str, RankPosteriorFiles]:
    """Write the CSV files and the heat map of every model, and ``rank_posteriors.tex``.

    Parameters
    ----------
    result : RankPosteriors
        From :func:`run_rank_posteriors`.
    directory : Path
        The report's temporary output directory.
    written : callable
        Called with each path right after it is written.
    """
    files = {}
    for name, post in result.posteriors.items():
        stem = f"rank_posterior_{_slug(name)}"
        summary = directory / f"{stem}.csv"
        write_csv(post.summary.rename_axis("system").reset_index(), summary)
        written(summary)
        probabilities = directory / f"{stem}_probabilities.csv"
        write_csv(post.table(), probabilities)
        written(probabilities)
        figures = save_figure(post.plot(), directory / stem)
        for path in figures:
            written(path)
        files[name] = RankPosteriorFiles(summary, probabilities, tuple(figures))
    if result.posteriors:
        tex = directory / "rank_posteriors.tex"
        tex.write_text(latex_table(result), encoding="utf-8")
        written(tex)
    return files


def _slug(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name.lower())


def _order(result: RankPosteriors) -> list[str]:
    """Systems by the first model's expected rank (the row order of every table)."""
    first = next(iter(result.posteriors.values()))
    return first.order


def latex_table(result: RankPosteriors) -> str:
    """A booktabs table: per model, the expected rank, ``P(best)`` and the credible interval."""
    models = list(result.posteriors)
    order = _order(result)
    ci_prob = next(iter(result.posteriors.values())).ci_prob
    header = ["System"]
    for m in models:
        header += [
            f"E[rank] {latex_escape(model_name(m))}",
            r"$P(\mathrm{best})$",
            f"{ci_prob:.0%}".replace("%", r"\%") + " interval",
        ]
    cells = {}
    for m, post in result.posteriors.items():
        s = post.summary.loc[order]
        cells[m] = (
            column(s["expected_rank"].to_numpy(), "score"),
            [f"{p:.3f}" for p in s["p_best"]],
            [f"{int(lo)}--{int(hi)}" for lo, hi in zip(s["low"], s["high"], strict=True)],
        )
    columns = f"l {' '.join('r r c' for _ in models)}"
    rows = []
    for i, system in enumerate(order):
        row = [latex_escape(system)]
        for m in models:
            row += [cells[m][0][i], cells[m][1][i], cells[m][2][i]]
        rows.append(" & ".join(row) + r" \\")
    approx = [m for m, p in result.posteriors.items() if p.approximation]
    caption = (
        "Rank posteriors: expected rank (1 = best), probability of being best and the "
        f"{ci_prob:.0%} equal-tailed credible rank interval under each model".replace("%", r"\%")
    )
    if approx:
        caption += (
            "; for "
            + ", ".join(latex_escape(model_name(m)) for m in approx)
            + " the draws come from the normal approximation at the posterior mode"
        )
    label = "tab:rankstats-rank-posteriors"
    return booktabs_table(columns, " & ".join(header), rows, caption + ".", label)


def section(
    result: RankPosteriors, files: Mapping[str, RankPosteriorFiles], images: Mapping[str, str]
) -> dict[str, Any]:
    """What the HTML template needs: one table (systems × models) and one figure per model.

    ``images``: ``{model: data URI of its heat map}``.
    """
    order = _order(result) if result.posteriors else []
    models = []
    for name, post in result.posteriors.items():
        models.append(
            {
                "name": model_name(name),
                "method": post.method,
                "draws": post.draws,
                "approximation": post.approximation or "",
                "image": images[name],
                "summary_file": files[name].summary.name,
                "probabilities_file": files[name].probabilities.name,
            }
        )
    rows = []
    for system in order:
        cells = []
        for post in result.posteriors.values():
            s = post.summary.loc[system]
            cells += [
                f"{s['expected_rank']:.2f}",
                f"{s['p_best']:.3f}",
                f"[{int(s['low'])}, {int(s['high'])}]",
            ]
        rows.append({"system": system, "cells": cells})
    ci_prob = next(iter(result.posteriors.values())).ci_prob if result.posteriors else PROB
    return {
        "models": models,
        "rows": rows,
        "notes": list(result.notes),
        "prob": f"{ci_prob:.0%}",
        "table_file": "rank_posteriors.tex",
    }
