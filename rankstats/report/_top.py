"""``top=``: the best N systems shown in a report's tables and heat map, all of them computed."""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import pandas as pd

from rankstats.report.compute import ReportData


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


def names_key(heatmap: Sequence[str], cd_diagram: Sequence[str] | None = None) -> pd.DataFrame:
    """``labels.csv``: the shortened names of each figure (columns ``figure``, ``label``,
    ``name``), empty when every name is drawn in full."""
    from rankstats.cd_diagram import NAME_WIDTH
    from rankstats.plotting import name_key

    parts = [name_key(heatmap).assign(figure="significance_heatmap")]
    if cd_diagram is not None:
        parts.append(name_key(cd_diagram, width=NAME_WIDTH).assign(figure="cd_diagram"))
    return pd.concat(parts, ignore_index=True)[["figure", "label", "name"]]
