"""``top=``: the best N systems shown in a report's tables and heat map, all of them computed."""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from rankstats.reporting.report_data import ReportData


def check_top(top: object) -> None:
    """Refuse a ``top`` that is not a positive integer (before any computing)."""
    if top is None:
        return
    if isinstance(top, bool) or not isinstance(top, numbers.Integral) or top < 1:
        raise ValueError(f"top must be a positive integer (the systems shown), not {top!r}")


def shown_systems(data: ReportData, top: int | None) -> list[str]:
    """The systems a report shows: the best ``top`` of the primary order (all by default)."""
    systems = data.ranking["system"].tolist()
    return systems if top is None else systems[:top]


def shown_note(shown: int, total: int, n_pairs: int, correction: str) -> str:
    """The sentence under a table that shows only the best ``shown`` of ``total`` systems."""
    return (
        f"The best {shown} of {total} systems are shown; every statistic (the intervals, the "
        f"{correction} correction over all {n_pairs} pairs, the ranks and rank ranges) is "
        f"computed on all {total}, and ranking.csv and pairs.csv list every system."
    )


def names_key(
    heatmap: Sequence[str],
    cd_diagram: Sequence[str] | None = None,
    figures: Mapping[str, Sequence[str]] | None = None,
) -> pd.DataFrame:
    """``labels.csv``: the shortened names of each figure (columns ``figure``, ``label``,
    ``name``), empty when every name is drawn in full. ``figures``: ``{file stem: systems}`` of
    the other figures drawn with :func:`rankstats.plotting.names.labels`
    (:func:`figure_systems`)."""
    from rankstats.plotting.names import name_key
    from rankstats.significance.critical_difference import NAME_WIDTH

    parts = [name_key(heatmap).assign(figure="significance_heatmap")]
    if cd_diagram is not None:
        parts.append(name_key(cd_diagram, width=NAME_WIDTH).assign(figure="cd_diagram"))
    parts += [name_key(names).assign(figure=stem) for stem, names in (figures or {}).items()]
    return pd.concat(parts, ignore_index=True)[["figure", "label", "name"]]


#: Figures of a posterior predictive check that draw system names (``ties`` draws none).
PPC_NAMED = ("top1", "pairs", "kendall")


def figure_systems(
    paired: Mapping[str, Any] | None = None,
    paired_files: Mapping[str, Any] | None = None,
    ranks: Any = None,
    rank_files: Mapping[str, Any] | None = None,
    models: Any = None,
    model_files: Any = None,
) -> dict[str, list[str]]:
    """``{file stem: systems drawn}`` of a report's figures beside the heat map and the CD
    diagram that draw system names: the paired matrices, the rank posteriors and the predictive
    checks (the arguments are those sections' results and the files they wrote)."""
    out: dict[str, list[str]] = {}
    for task, files in (paired_files or {}).items():
        out[files.figures[0].stem] = list(paired[task].strengths["system"])
    for name, files in (rank_files or {}).items():
        out[files.figures[0].stem] = list(ranks.posteriors[name].order)
    for key, groups in (model_files.ppc_figures if model_files is not None else {}).items():
        for group in PPC_NAMED:
            if group in groups:
                out[groups[group][0].stem] = list(models.ppc[key].consensus)
    return out
