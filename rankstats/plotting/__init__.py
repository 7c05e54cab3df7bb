"""Figure primitives shared by every domain: fonts, names, pair matrices, saving.

Figures are built on an explicit ``Figure`` (no pyplot state), so they are safe in scripts,
notebooks and worker processes alike. The functions here take plain data (names, arrays); each
domain draws its own figures with them (the significance heatmap in
:mod:`rankstats.aggregation.hoeffding_figure`, the CD diagram in
:mod:`rankstats.significance.critical_difference`, ...), so this package imports no estimator.

- :mod:`~rankstats.plotting.names`: every system name reaches a figure through :func:`labels`
  (unique abbreviations, the key :func:`name_key`), drawn literally (never as mathtext);
- :mod:`~rankstats.plotting.fonts`: fallback fonts for characters the default font lacks, and
  one :class:`MissingFontWarning` when none is installed;
- :mod:`~rankstats.plotting.matrices`: the diverging distance-from-½ image of a pair matrix;
- :mod:`~rankstats.plotting.saving`: :func:`save_figure` (PNG and PDF);
- :mod:`~rankstats.plotting.comparison`: the legend of comparison intervals (quasi-variances).
"""

from rankstats.plotting.fonts import (
    FALLBACK_FAMILIES,
    MissingFontWarning,
    fallback_fonts,
    fitted_fonts,
    use_fallback_fonts,
)
from rankstats.plotting.matrices import (
    NOT_SIGNIFICANT,
    NOT_SIGNIFICANT_NAME,
    annotate_distances,
    distance_image,
    distance_legend,
    heatmap_layout,
)
from rankstats.plotting.names import (
    MIN_NAME_FONT,
    NAME_WIDTH,
    SHORTENED_NOTE,
    label,
    labels,
    name_key,
    shortened_note,
)
from rankstats.plotting.saving import save_figure

__all__ = [
    "FALLBACK_FAMILIES",
    "MIN_NAME_FONT",
    "NAME_WIDTH",
    "NOT_SIGNIFICANT",
    "NOT_SIGNIFICANT_NAME",
    "SHORTENED_NOTE",
    "MissingFontWarning",
    "annotate_distances",
    "distance_image",
    "distance_legend",
    "fallback_fonts",
    "fitted_fonts",
    "heatmap_layout",
    "label",
    "labels",
    "name_key",
    "save_figure",
    "shortened_note",
    "use_fallback_fonts",
]
