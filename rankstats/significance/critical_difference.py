r"""Critical-difference diagrams (Demšar, 2006) and their LaTeX companion table.

:func:`cd_diagram` draws the classic layout of a
:class:`~rankstats.significance.posthoc_result.PosthocResult`: a horizontal axis of average
ranks, 1 (best) on the left; the better half of the systems named on the left, the worse half on
the right, each joined to its average rank by a line; thick bars, under the axis, joining each
group of :meth:`~rankstats.significance.posthoc_result.PosthocResult.groups` (systems in which no
pair differs significantly); for Nemenyi, the critical difference drawn as a bracket above the
axis. It is the figure of :meth:`PosthocResult.plot
<rankstats.significance.posthoc_result.PosthocResult.plot>`, registered by
:mod:`rankstats.significance.posthoc_tests` (this module imports the result type, never the
other way round).
:func:`cd_table` is the same result as a booktabs table with a compact letter display of the groups.

Layout conventions (Demšar, 2006, Fig. 1; Orange's ``graph_ranks``; autorank's ``plot_stats``):
the rank axis is the x axis of the figure's single axes, in rank units, so every bar and the CD
bracket has its length in ranks; the y axis counts inches from the top. The names are measured
with the renderer before the figure is sized, so long names never reach the axis and the height
grows with the number of systems (one row of names per two systems).

Demšar, J. (2006). Statistical comparisons of classifiers over multiple data sets. *Journal of
Machine Learning Research* 7, 1–30.
"""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from rankstats._util.latex import LONG_ROWS, longtable
from rankstats._util.text import latex_escape
from rankstats.plotting.fonts import fitted_fonts, use_fallback_fonts
from rankstats.plotting.names import SHORTENED_NOTE, labels, name_key
from rankstats.significance.posthoc_result import PosthocResult
from rankstats.significance.zero_methods import SHORT

if TYPE_CHECKING:  # matplotlib is imported when a figure is drawn, not with this module
    from matplotlib.figure import Figure

#: Longest system name drawn in full (longer ones get unique labels: ``max_name``).
NAME_WIDTH = 40

#: Sizes of the diagram, inches (fonts in points).
_PAD = 0.12  # outer margin
_GAP = 0.06  # between the end of a name's line and the name
_STUB = 0.15  # how far the name lines run beyond the ends of the axis
_BAR_STEP = 0.09  # between two stacked rows of group bars
_BAR_WIDTH = 3.0  # points
_TICK = 0.07
_NAME_SIZE = 9.0
_SMALL_SIZE = 8.0

_TEST_NAMES = {
    "nemenyi": "Nemenyi test",
    "conover": "Conover's test",
    "wilcoxon-holm": "Wilcoxon signed-rank tests",
}
_ADJUST_NAMES = {
    "single-step": "",
    "holm": "Holm-adjusted",
    "bonferroni": "Bonferroni-adjusted",
    "none": "unadjusted",
}


def _test_description(result: PosthocResult) -> str:
    """``"Conover's test, Holm-adjusted"``: the test and its multiplicity treatment."""
    adjust = _ADJUST_NAMES.get(result.correction, f"{result.correction}-adjusted")
    if result.blocks.imputed:
        name = "z-tests of imputed expected ranks" + (
            " (single-step max |z|)" if result.correction == "single-step" else ""
        )
        return name + (f", {adjust}" if adjust else "")
    name = _TEST_NAMES.get(result.method, result.method)
    if result.zero_method is not None:  # Wilcoxon: how the zero differences were treated
        name += f" {SHORT[result.zero_method]}"
    return name + (f", {adjust}" if adjust else "")


def _has_cd(result: PosthocResult) -> bool:
    return result.method == "nemenyi" and bool(np.isfinite(result.critical_difference))


def _no_single_cd(result: PosthocResult) -> bool:
    """A Nemenyi-type result whose pairs have different variances (``missing="imputed"``): no
    bracket, and the caption says why."""
    return result.method == "nemenyi" and not _has_cd(result)


def bar_groups(result: PosthocResult) -> list[tuple[str, ...]]:
    """The groups a diagram draws as bars: those of ``result.groups()`` with two or more
    systems, best first."""
    return [g for g in result.groups() if len(g) > 1]


def _stack(spans: list[tuple[float, float]], margin: float) -> list[int]:
    """Row of each ``(lo, hi)`` span: the first row whose last span ends more than ``margin``
    before it starts (spans sorted by ``lo``), so bars of one row never touch."""
    ends: list[float] = []
    rows = []
    for lo, hi in spans:
        for row, end in enumerate(ends):
            if end + margin < lo:
                ends[row] = hi
                rows.append(row)
                break
        else:
            ends.append(hi)
            rows.append(len(ends) - 1)
    return rows


def _tick_step(inches_per_rank: float, minimum: float = 0.28) -> int:
    """The smallest step of 1, 2, 5, 10, 20, 25, 50, ... ranks whose labels are ``minimum``
    inches apart."""
    for magnitude in (1, 10, 100, 1000):
        for base in (1, 2, 5) if magnitude == 1 else (1, 2, 2.5, 5):
            step = int(base * magnitude)
            if step * inches_per_rank >= minimum:
                return step
    return 10_000


#: Above this many systems :func:`cd_diagram` draws the best :data:`CD_TOP` by name and
#: summarises the rest as one band (``top=`` chooses; ``top=len(result.mean_ranks)``: all).
#: At 120 systems the full diagram is 60 rows of names over 40-odd stacked bars.
CD_FULL_MAX = 50

#: Systems named by default in a diagram of more than :data:`CD_FULL_MAX` systems.
CD_TOP = 30


@dataclass(frozen=True)
class _Layout:
    """Where everything of a diagram goes: x in ranks (``scale`` inches per rank, rank 1 at
    ``x0`` inches), y in inches from the top."""

    fig_w: float
    fig_h: float
    scale: float
    x0: float
    last: float
    row: float
    n_left: int
    y_title: float
    y_cd: float
    y_axis: float
    y_bar0: float
    y_names: float
    y_caption: float
    caption_lines: tuple[str, ...]

    def rank_x(self, inches: float) -> float:
        return 1.0 + (inches - self.x0) / self.scale


def _shown_count(k: int, top: int | None) -> int:
    """How many systems the diagram names: all up to :data:`CD_FULL_MAX`, else :data:`CD_TOP`
    (or ``top``, at least 2, at most ``k``)."""
    if top is None:
        return k if k <= CD_FULL_MAX else CD_TOP
    if isinstance(top, bool) or not isinstance(top, int | np.integer) or top < 2:
        raise ValueError(f"top must be an integer of at least 2, not {top!r}")
    return min(int(top), k)


def _layout(
    fig: Figure,
    names: list,
    heading,
    result: PosthocResult,
    spans: list[tuple[float, float]],
    caption: str,
    width: float | None,
    shown: int,
) -> tuple[_Layout, list[int]]:
    """Measure the names (with the figure's renderer) and place everything: the margins are
    as wide as the longest name on each side, the height grows with the rows of names and of
    stacked bars.  Returns the layout and the row of each bar."""
    k = len(result.mean_ranks)
    has_cd = _has_cd(result)
    cd = float(result.critical_difference) if has_cd else float("nan")
    last = max(float(k), 1.0 + cd) if has_cd else float(k)  # the right end of the rank scale
    span = max(last - 1.0, 1.0)
    # A summarised diagram names its systems on the left only: they are the best ones.
    n_left = math.ceil(shown / 2) if shown == k else shown
    with fitted_fonts(fig):
        renderer = fig.canvas.get_renderer()
        widths = [t.get_window_extent(renderer).width / fig.dpi for t in names]
        title_w = heading.get_window_extent(renderer).width / fig.dpi if heading.get_text() else 0
    left_w = max(widths[:n_left], default=0.0)
    right_w = max(widths[n_left:], default=0.0)
    outside = 2 * (_PAD + _GAP + _STUB) + left_w + right_w
    if width is None:
        axis_len = min(9.0, max(2.5, 0.25 * span))
    else:
        axis_len = max(1.5, float(width) - outside)
    axis_len = max(axis_len, title_w + 2 * _PAD - outside)  # the title fits
    fig_w = outside + axis_len
    scale = axis_len / span  # inches per rank
    y = _PAD
    y_title = y + 0.12
    if heading.get_text():
        y += 0.35
    y_cd = y + 0.26
    if has_cd:
        y += 0.36
    y_axis = y + 0.25 + _TICK
    bar_rows = _stack(spans, margin=(0.12 + _BAR_WIDTH / 72.0) / scale)
    y_bar0 = y_axis + 0.12
    size = names[0].get_fontsize() if names else _NAME_SIZE
    row = max(0.2, 1.55 * size / 72.0)
    y_names = y_bar0 + (max(bar_rows, default=-1) + 1) * _BAR_STEP + 0.12
    y = y_names + (max(n_left, shown - n_left) - 1) * row + row / 2
    if shown < k:
        y += row  # the line under the names about the systems not shown
    caption_lines = textwrap.wrap(
        caption, max(30, int((fig_w - 2 * _PAD) * 72 / (0.62 * _SMALL_SIZE)))
    )
    y_caption = y + 0.12
    fig_h = y_caption + len(caption_lines) * 0.17 + _PAD
    x0 = _PAD + left_w + _GAP + _STUB  # where rank 1 sits, inches from the left
    layout = _Layout(
        fig_w, fig_h, scale, x0, last, row, n_left, y_title, y_cd, y_axis, y_bar0, y_names,
        y_caption, tuple(caption_lines),
    )  # fmt: skip
    return layout, bar_rows


_LINE = {"color": "black", "lw": 0.8, "solid_capstyle": "butt", "clip_on": False}


def _draw_axis(ax, at: _Layout, k: int) -> None:
    """The rank axis, its ticks and their labels."""
    ax.plot([1.0, float(k)], [at.y_axis, at.y_axis], gid="rank-axis", **_LINE)
    step = _tick_step(at.scale)
    for r in range(1, k + 1):
        # Labels at 1, 1 + step, ... for steps 1 and 2; at 1 and the multiples of larger ones.
        major = (
            (r - 1) % step == 0 if step <= 2 else r == 1 or (r % step == 0 and r - 1 >= 0.6 * step)
        )
        length = _TICK if major else _TICK / 2
        ax.plot([r, r], [at.y_axis, at.y_axis - length], **_LINE)
        if major:
            ax.text(
                r, at.y_axis - _TICK - 0.03, str(r), ha="center", va="bottom", fontsize=_SMALL_SIZE
            )


def _draw_cd(ax, at: _Layout, cd: float) -> None:
    """The critical difference as a bracket above the axis, from rank 1."""
    ax.plot([1.0, 1.0 + cd], [at.y_cd, at.y_cd], gid="cd-bracket", **_LINE)
    for end in (1.0, 1.0 + cd):
        ax.plot([end, end], [at.y_cd - 0.05, at.y_cd + 0.05], **_LINE)
    ax.text(
        1.0 + cd / 2,
        at.y_cd - 0.18,
        f"CD = {cd:.2f}",
        ha="center",
        va="center",
        fontsize=_SMALL_SIZE,
        gid="cd-label",
    )


def _draw_names(ax, at: _Layout, names: list, values: np.ndarray) -> None:
    """Each named system: a line down from its average rank, then out to its name."""
    shown = len(names)
    left_end = at.rank_x(at.x0 - _STUB)
    right_end = at.last + _STUB / at.scale
    first_row = at.y_names
    for i, (text, value) in enumerate(zip(names, values, strict=True)):
        if i < at.n_left:
            y_row, end, x_text = first_row + i * at.row, left_end, at.rank_x(at.x0 - _STUB - _GAP)
        else:
            y_row, end = first_row + (shown - 1 - i) * at.row, right_end
            x_text = at.rank_x(at.x0 + (at.last - 1.0) * at.scale + _STUB + _GAP)
        ax.plot([value, value, end], [at.y_axis, y_row, y_row], **_LINE)
        text.set_position((x_text, y_row))


def _draw_rest(ax, at: _Layout, values: np.ndarray, shown: int) -> None:
    """The systems not named: a grey band over their average ranks on the axis, and one line
    saying how many they are and where the full list is."""
    rest = values[shown:]
    lo, hi = float(rest.min()), float(rest.max())
    ax.plot(
        [lo, hi], [at.y_axis, at.y_axis], color="0.6", lw=6, solid_capstyle="butt",
        clip_on=False, gid="rest-band", zorder=0,
    )  # fmt: skip
    ax.text(  # under the names: no system's line crosses it
        at.rank_x(_PAD),
        at.y_names + at.n_left * at.row,
        f"… and {len(rest)} more systems, average ranks {lo:.1f}–{hi:.1f} (grey band): "
        "all are in the table (cd_table, average_ranks.csv)",
        ha="left",
        va="center",
        fontsize=_SMALL_SIZE,
        color="0.25",
        gid="rest-note",
    )


def _draw_bars(ax, at: _Layout, spans: list[tuple[float, float]], rows: list[int]) -> None:
    """The groups: thick bars under the axis, stacked so that they never touch."""
    for (lo, hi), r in zip(spans, rows, strict=True):
        y_bar = at.y_bar0 + r * _BAR_STEP
        ax.plot(
            [lo, hi], [y_bar, y_bar], color="black", lw=_BAR_WIDTH, solid_capstyle="round",
            gid="group-bar", clip_on=False,
        )  # fmt: skip


def cd_diagram(
    result: PosthocResult,
    *,
    title: str | None = None,
    width: float | None = None,
    max_name: int = NAME_WIDTH,
    top: int | None = None,
) -> Figure:
    """Critical-difference diagram of a post-hoc comparison (Demšar, 2006).

    Parameters
    ----------
    result : PosthocResult
        Output of :func:`rankstats.significance.posthoc_tests.posthoc` (any method).
    title : str, optional
        Title above the diagram (none by default).
    width : float, optional
        Figure width in inches. By default the rank axis gets 0.25 inch per rank (between 2.5 and
        9 inches) and the figure is as wide as the axis and the names need; a given width
        shrinks or stretches the axis (never below 1.5 inches) and keeps the names whole.
    max_name : int
        Names longer than this are shortened to unique labels with "…"
        (:func:`rankstats.plotting.names.labels`; :func:`rankstats.plotting.names.name_key` is
        the key, and the caption says so).
    top : int, optional
        Name only the best ``top`` systems; the others are one grey band over their average
        ranks on the axis and one line of text (the table has them all).  By default every
        system up to :data:`CD_FULL_MAX` (50), the best :data:`CD_TOP` (30) beyond;
        ``top=len(result.mean_ranks)`` draws the full diagram at any size.

    Returns
    -------
    matplotlib.figure.Figure
        An explicit figure (no pyplot state) with one axes: x in average-rank units, y in
        inches from the top. Its lines carry gids: ``"rank-axis"``, ``"group-bar"`` (one per
        group of two or more systems drawn — with ``top``, the groups whose best system is
        named — from the group's best to its worst average rank), ``"cd-bracket"`` (Nemenyi
        only, from rank 1 to ``1 + CD``), ``"rest-band"`` (the systems not named); the names
        are texts with gid ``"system-name"``. Save it with
        :func:`rankstats.plotting.saving.save_figure`.

    Notes
    -----
    Nemenyi's groups are the maximal runs of systems whose average ranks lie within one CD of
    each other, and the bracket shows that CD. Conover's and Wilcoxon's tests have no single
    critical difference: the bars are their groups (no pair within a bar differs
    significantly after the adjustment) and the caption names the test and α. Neither has the
    test of imputed expected ranks (``missing="imputed"``) when the variances of the pairwise
    differences differ: the bars come from its pairwise decisions, the bracket is omitted and
    the caption says so.

    Examples
    --------
    >>> import rankstats as rs
    >>> from rankstats.significance.posthoc_tests import posthoc
    >>> res = posthoc(rs.load_dataset("summeval"), by="task", method="nemenyi")
    >>> fig = cd_diagram(res)
    >>> [t.get_text() for t in fig.texts if t.get_gid() == "system-name"][:2]
    ['M11', 'M6']
    >>> len([t for t in cd_diagram(res, top=5).texts if t.get_gid() == "system-name"])
    5
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    if not isinstance(result, PosthocResult):
        raise TypeError(f"cd_diagram needs a PosthocResult (rs.posthoc(...)), not {type(result)}")
    if max_name < 2:
        raise ValueError(f"max_name must be at least 2, not {max_name!r}")
    systems = list(result.mean_ranks.index)
    values = result.mean_ranks.to_numpy(dtype=np.float64)
    k = len(systems)
    shown = _shown_count(k, top)
    name_size = _NAME_SIZE if shown <= 60 else _SMALL_SIZE
    fig = Figure()
    FigureCanvasAgg(fig)  # a renderer to measure the names with
    ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
    ax.set_axis_off()
    n_left = math.ceil(shown / 2) if shown == k else shown
    names = [
        fig.text(0.0, 0.0, label, fontsize=name_size, ha="right" if i < n_left else "left",
                 va="center", gid="system-name", transform=ax.transData)
        for i, label in enumerate(labels(systems, width=max_name)[:shown])
    ]  # fmt: skip
    caption = _caption(result)
    if not name_key(systems[:shown], width=max_name).empty:
        caption += " " + SHORTENED_NOTE + "."
    heading = fig.text(0.0, 0.0, title or "", fontsize=10, ha="center", va="center")
    named = set(systems[:shown])
    position = {s: i for i, s in enumerate(systems)}
    spans = [
        (values[position[g[0]]], values[position[g[-1]]])
        for g in bar_groups(result)
        if g[0] in named
    ]
    at, bar_rows = _layout(fig, names, heading, result, spans, caption, width, shown)
    heading.remove()
    fig.set_size_inches(at.fig_w, at.fig_h)
    ax.set_xlim(at.rank_x(0.0), at.rank_x(at.fig_w))
    ax.set_ylim(at.fig_h, 0.0)
    _draw_axis(ax, at, k)
    if title:
        middle = (at.rank_x(0.0) + at.rank_x(at.fig_w)) / 2
        ax.text(middle, at.y_title, title, ha="center", va="center", fontsize=10)
    if _has_cd(result):
        _draw_cd(ax, at, float(result.critical_difference))
    _draw_names(ax, at, names, values[:shown])
    if shown < k:
        _draw_rest(ax, at, values, shown)
    _draw_bars(ax, at, spans, bar_rows)
    for j, text in enumerate(at.caption_lines):
        ax.text(
            at.rank_x(_PAD), at.y_caption + j * 0.17, text, ha="left", va="top",
            fontsize=_SMALL_SIZE, color="0.25", gid="caption",
        )  # fmt: skip
    use_fallback_fonts(fig)  # the texts added after the names
    return fig


def _caption(result: PosthocResult) -> str:
    what = (
        f"{_test_description(result)}, α = {result.alpha:g}, N = {result.n_blocks} "
        f"{result.blocks.by} blocks, k = {result.n_systems} systems"
    )
    if result.blocks.imputed:
        what += " (average imputed expected ranks)"
    if _has_cd(result):
        return (
            f"{what}. Bars join systems whose average ranks differ by less than the critical "
            f"difference (CD = {result.critical_difference:.2f})."
        )
    if _no_single_cd(result):
        return (
            f"{what}. Bars join systems in which no pair differs significantly. No single "
            "critical difference (the variances of the pairwise differences differ): the CD "
            "bracket is omitted."
        )
    return f"{what}. Bars join systems in which no pair differs significantly."


# ------------------------------------------------------------------------------ LaTeX table
def _letter(i: int) -> str:
    """a, ..., z, A, ..., Z, then aa, ab, ... (multi-character letters are comma-separated)."""
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    if i < len(alphabet):
        return alphabet[i]
    i -= len(alphabet)
    out = ""
    i += 26  # two letters at least
    while i >= 0:
        out = alphabet[i % 26] + out
        i = i // 26 - 1
    return out


def group_letters(result: PosthocResult) -> dict[str, str]:
    """A compact letter display of ``result.groups()``: ``{system: letters}``, best first.

    Each group (a system that differs from all its neighbours is a group of its own) gets one
    letter, best group ``a``; two systems share a letter exactly when they are in a common
    group. Three or more consecutive letters are written as a range (``c–h``: c, d, e, f, g,
    h), so the column stays narrow with 100+ systems. Beyond 52 groups the letters have two
    characters and are separated by commas (``aa–bc,bf``).

    Examples
    --------
    >>> import rankstats as rs
    >>> from rankstats.significance.posthoc_tests import posthoc
    >>> res = posthoc(rs.load_dataset("summeval"), by="task", method="nemenyi")
    >>> group_letters(res)["M11"], group_letters(res)["M13"]
    ('a', 'ef')
    """
    groups = result.groups()
    indices: dict[str, list[int]] = {s: [] for s in result.mean_ranks.index}
    for i, group in enumerate(groups):
        for system in group:
            indices[system].append(i)
    sep = "" if len(groups) <= 52 else ","
    return {s: sep.join(_letter_runs(ix)) for s, ix in indices.items()}


def _letter_runs(indices: list[int]) -> list[str]:
    """Letters of sorted group indices, three or more consecutive ones as a range ``c–h``: with
    100+ systems a system can sit in dozens of overlapping groups, and its letters stay short."""
    out: list[str] = []
    start = 0
    for k in range(1, len(indices) + 1):
        if k == len(indices) or indices[k] != indices[k - 1] + 1:
            run = indices[start:k]
            if len(run) >= 3:
                out.append(f"{_letter(run[0])}–{_letter(run[-1])}")
            else:
                out += [_letter(i) for i in run]
            start = k
    return out


def _rank_digits(values: np.ndarray) -> int:
    """Decimals (2 to 4) enough to tell every two different average ranks apart."""
    distinct = np.unique(values)
    for digits in (2, 3, 4):
        if len(np.unique(np.round(distinct, digits))) == len(distinct):
            return digits
    return 4


def cd_table(
    result: PosthocResult, *, caption: str | None = None, label: str = "tab:cd-diagram"
) -> str:
    r"""The LaTeX (booktabs) companion table of :func:`cd_diagram`.

    One row per system, best first: the name (escaped with
    :func:`rankstats._util.text.latex_escape`), its average rank (one number of decimals for the
    column, enough to tell different ranks apart) and its group letters (:func:`group_letters`:
    systems sharing a letter are not significantly different). The caption names the test, α,
    N and, for Nemenyi, the critical difference. Needs ``\usepackage{booktabs}``; above
    :data:`rankstats._util.latex.LONG_ROWS` systems it is a ``longtable`` that breaks across pages
    (``\usepackage{longtable}``).

    Parameters
    ----------
    result : PosthocResult
    caption : str, optional
        LaTeX caption, used as given (escape names yourself); default: the test, α, N, CD.
    label : str
        The ``\label`` of the table.

    Examples
    --------
    >>> import rankstats as rs
    >>> from rankstats.significance.posthoc_tests import posthoc
    >>> res = posthoc(rs.load_dataset("summeval"), by="task", method="nemenyi")
    >>> print(cd_table(res).splitlines()[8])
    M11 & 3.18 & a \\
    """
    if not isinstance(result, PosthocResult):
        raise TypeError(f"cd_table needs a PosthocResult (rs.posthoc(...)), not {type(result)}")
    values = result.mean_ranks.to_numpy(dtype=np.float64)
    digits = _rank_digits(values)
    letters = group_letters(result)
    if caption is None:
        test = latex_escape(_test_description(result))
        caption = (
            f"Average {'imputed expected ' if result.blocks.imputed else ''}ranks of "
            f"{result.n_systems} systems over $N = {result.n_blocks}$ "
            f"{latex_escape(result.blocks.by)} blocks (1 = best). Systems sharing a letter "
            f"are not significantly different ({test}, $\\alpha = {result.alpha:g}$"
        )
        if _has_cd(result):
            caption += f", critical difference $\\mathrm{{CD}} = {result.critical_difference:.2f}$"
        elif _no_single_cd(result):
            caption += "; no single critical difference: the variances of the pairs differ"
        caption += ")."
    rows = []
    for system, value in zip(result.mean_ranks.index, values, strict=True):
        group = letters[system].replace("–", "--")
        rows.append(f"{latex_escape(system)} & {value:.{digits}f} & {group} \\\\")
    header = "System & Average rank & Group"
    if len(rows) > LONG_ROWS:  # breaks across pages
        return longtable("lrl", header, rows, caption, label)
    lines = [
        r"\begin{table}[htbp]",
        r"\centering",
        rf"\caption{{{caption}}}",
        rf"\label{{{label}}}",
        r"\begin{tabular}{lrl}",
        r"\toprule",
        header + r" \\",
        r"\midrule",
        *rows,
        r"\bottomrule",
        r"\end{tabular}",
        r"\end{table}",
    ]
    return "\n".join(lines) + "\n"
