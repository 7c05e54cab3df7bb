"""Figures saved as PNG and PDF, fonts fitted first.

The formats of one figure share one layout: the figure is drawn once at the PNG resolution, its
tight bounding box (``bbox_inches="tight"``) is taken from that drawing, the PNG is that drawing
cut to the box, and every other format is saved with the same box. ``savefig(...,
bbox_inches="tight")`` per format would draw the figure twice per format (once to measure it,
once to write it) — four drawings for a PNG and a PDF, the most expensive part of a
``rankstats rank``.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from rankstats.plotting.fonts import fitted_fonts

if TYPE_CHECKING:  # matplotlib is imported when a figure is drawn, not with this module
    from matplotlib.figure import Figure
    from matplotlib.transforms import Bbox

#: Resolution of the PNG files, dots per inch (the PDF files are vector graphics).
PNG_DPI = 150
#: zlib level of the PNG files: half the time of the default (6), files within a few per cent
#: of its size (figures are large areas of a few colours).
PNG_OPTIONS = {"compress_level": 3}


def save_figure(
    fig: Figure, path_stem: str | Path, formats: tuple[str, ...] = ("png", "pdf")
) -> list[Path]:
    """Save ``fig`` as ``<stem>.png``, ``<stem>.pdf`` ...; return the written paths.

    Each file holds the figure cut to its tight bounding box (``bbox_inches="tight"``), the PNG
    at :data:`PNG_DPI` dots per inch.
    """
    stem = Path(path_stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = [stem.with_suffix("." + fmt) for fmt in formats]
    with fitted_fonts(fig), _laid_out(fig) as fixed:
        if "png" not in formats or not fixed:
            # A layout engine lays the figure out anew at every drawing: matplotlib's own way.
            for fmt, path in zip(formats, paths, strict=True):
                png = fmt == "png"
                fig.savefig(
                    path,
                    dpi=PNG_DPI if png else None,
                    bbox_inches="tight",
                    **({"pil_kwargs": PNG_OPTIONS} if png else {}),
                )
            return paths
        bbox = _png_and_box(fig, paths[formats.index("png")])
        for fmt, path in zip(formats, paths, strict=True):
            if fmt != "png":
                fig.savefig(path, bbox_inches=bbox)
    return paths


@contextmanager
def _laid_out(fig: Figure) -> Iterator[bool]:
    """Whether ``fig`` keeps its layout from one drawing to the next (no layout engine, or only
    the placeholder that ``tight_layout`` leaves), the placeholder set aside meanwhile: with it,
    ``savefig`` would draw the figure once more before every file, to lay it out."""
    import matplotlib as mpl
    from matplotlib.layout_engine import PlaceHolderLayoutEngine

    engine = fig.get_layout_engine()
    automatic = mpl.rcParams["figure.autolayout"] or mpl.rcParams["figure.constrained_layout.use"]
    if engine is None:
        yield True
    elif isinstance(engine, PlaceHolderLayoutEngine) and not automatic:
        fig.set_layout_engine(None)  # none at all (with these rcParams)
        try:
            yield True
        finally:
            fig.set_layout_engine(engine)
    else:
        yield False


def _png_and_box(fig: Figure, path: Path) -> Bbox:
    """Draw ``fig`` once at :data:`PNG_DPI`, write the part inside its tight bounding box to
    ``path`` (PNG) and return the box (inches, padded as ``savefig`` pads it)."""
    import matplotlib as mpl
    import numpy as np
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = fig.canvas
    agg = FigureCanvasAgg(fig)  # the figure's canvas until the end (matplotlib switches so too)
    try:
        with mpl.rc_context({"savefig.bbox": "standard"}):  # the whole figure
            fig.savefig(io.BytesIO(), format="rgba", dpi=PNG_DPI)  # the one raster drawing
        dpi = fig.dpi
        fig.dpi = PNG_DPI  # the drawing's positions and renderer, to measure it
        try:
            renderer = agg.get_renderer()
            pixels = np.asarray(renderer.buffer_rgba())
            tight = fig.get_tightbbox(renderer)
        finally:
            fig.dpi = dpi
        bbox = tight.padded(mpl.rcParams["savefig.pad_inches"])
        width, height = fig.get_size_inches()
        inside = tight.x0 >= 0 and tight.y0 >= 0 and tight.x1 <= width and tight.y1 <= height
        if inside and not fig.patch.get_linewidth():
            part = _cut(pixels, bbox, _background(fig))
            mpl.image.imsave(path, part, dpi=PNG_DPI, pil_kwargs=dict(PNG_OPTIONS))
        else:  # something drawn beyond the figure's edge, or a frame around the box
            fig.savefig(path, dpi=PNG_DPI, bbox_inches=bbox, pil_kwargs=dict(PNG_OPTIONS))
    finally:
        fig.set_canvas(canvas)
    return bbox


def _cut(pixels, bbox: Bbox, background: tuple[int, ...]):
    """The pixels of a drawing at :data:`PNG_DPI` inside ``bbox`` (inches), the size
    ``savefig(bbox_inches=bbox)`` gives; the margin beyond the drawing is ``background``."""
    import numpy as np

    rows, columns = int(bbox.height * PNG_DPI), int(bbox.width * PNG_DPI)
    left = round(bbox.x0 * PNG_DPI)
    top = round(pixels.shape[0] - bbox.y1 * PNG_DPI)  # rows count from the top
    out = np.empty((rows, columns, 4), dtype=np.uint8)
    out[...] = background
    src_top, src_left = max(top, 0), max(left, 0)
    src_bottom = min(top + rows, pixels.shape[0])
    src_right = min(left + columns, pixels.shape[1])
    out[src_top - top : src_bottom - top, src_left - left : src_right - left] = pixels[
        src_top:src_bottom, src_left:src_right
    ]
    return out


def _background(fig: Figure) -> tuple[int, ...]:
    """The RGBA (0–255) of the figure's background as ``savefig`` paints it."""
    import matplotlib as mpl

    if mpl.rcParams["savefig.transparent"]:
        return (0, 0, 0, 0)
    color = mpl.rcParams["savefig.facecolor"]
    if isinstance(color, str) and color == "auto":
        color = fig.get_facecolor()
    return tuple(round(255 * c) for c in mpl.colors.to_rgba(color))
