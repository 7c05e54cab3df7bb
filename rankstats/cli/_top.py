"""What ``rank`` and ``report`` share for many systems: ``--top N`` and the names' key.

``--top N`` shows the best N systems in the printed tables and the figures; every statistic
(Hoeffding intervals, their multiplicity correction, ranks and rank ranges) is computed on all
systems, the outputs say so, and the CSV files list every system. A figure whose names had to be
shortened comes with ``labels.csv``: each unique abbreviation and its full name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from rankstats._util.text import write_csv
from rankstats.plotting.names import NAME_WIDTH


def top_note(shown: int, total: int, n_pairs: int, correction: str) -> str:
    """The line saying that only the best ``shown`` of ``total`` systems are displayed."""
    from rankstats.reporting.top_systems import shown_note

    return f"note (--top {shown}): " + shown_note(shown, total, n_pairs, correction)


def key_file(
    systems: Sequence[object], directory: Path, figure: str = "significance_heatmap"
) -> list[Path]:
    """``labels.csv`` (figure, label, name) when some of ``systems`` are drawn shortened in
    ``figure`` (``"significance_heatmap"`` or ``"cd_diagram"``), else no file."""
    return figures_key_file({figure: systems}, directory)


def figures_key_file(figures: Mapping[str, Sequence[object]], directory: Path) -> list[Path]:
    """``labels.csv`` of several figures, ``{figure: systems drawn}`` (each drawn by
    :func:`rankstats.plotting.names.labels`: 40 characters in ``"cd_diagram"``, else
    :data:`rankstats.plotting.names.NAME_WIDTH`), when some name is shortened, else no file."""
    import pandas as pd

    from rankstats.plotting.names import name_key

    parts = [
        name_key(systems, _name_width(figure)).assign(figure=figure)
        for figure, systems in figures.items()
    ]
    key = pd.concat(parts, ignore_index=True)[["figure", "label", "name"]]
    if key.empty:
        return []
    path = directory / "labels.csv"
    write_csv(key, path)
    return [path]


def _name_width(figure: str) -> int:
    """The length above which ``figure`` draws a name shortened."""
    if figure == "cd_diagram":
        # Drawn by ``rankstats significance`` alone, which has imported the module (SciPy)
        # already; ``rank`` and the others never pay for it.
        from rankstats.significance.critical_difference import NAME_WIDTH as CD_WIDTH

        return CD_WIDTH
    return NAME_WIDTH


def heatmap_files(test, systems: Sequence[object], directory: Path) -> list[Path]:
    """The significance heat map of ``systems`` (PNG, PDF) and its names' key."""
    from rankstats.aggregation.hoeffding_figure import significance_heatmap
    from rankstats.plotting.saving import save_figure

    total = len(test.matrix("distance"))
    shown = list(systems) if len(systems) < total else None
    figure = significance_heatmap(test, systems=shown)
    return [*save_figure(figure, directory / "significance_heatmap"), *key_file(systems, directory)]
