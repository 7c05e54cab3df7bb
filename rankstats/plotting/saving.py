"""Figures saved as PNG and PDF, fonts fitted first."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rankstats.plotting.fonts import fitted_fonts

if TYPE_CHECKING:  # matplotlib is imported when a figure is drawn, not with this module
    from matplotlib.figure import Figure


def save_figure(
    fig: Figure, path_stem: str | Path, formats: tuple[str, ...] = ("png", "pdf")
) -> list[Path]:
    """Save ``fig`` as ``<stem>.png``, ``<stem>.pdf`` ...; return the written paths."""
    stem = Path(path_stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = []
    for fmt in formats:
        path = stem.with_suffix("." + fmt)
        with fitted_fonts(fig):
            fig.savefig(path, dpi=150 if fmt == "png" else None, bbox_inches="tight")
        paths.append(path)
    return paths
