"""Figures of a posterior predictive check (:class:`~rankstats.models.ppc_result.PPCResult`).

One figure per statistic group, observed against replicated: ``top1`` (one row per system, best
of the consensus at the top: the central interval of the replications and the observed share),
``pairs`` (a matrix in consensus order: how far the observed proportion of each pair lies from
its replications, in standard deviations, missed pairs marked), ``kendall`` (the replicated
mean and standard deviation of the Kendall distance to the consensus, observed as a line, and
the distribution of the per-ranking distance), ``ties``.  Missed statistics are drawn in red.
System names are shown literally, those longer than :data:`rankstats.plotting.names.NAME_WIDTH`
characters as unique abbreviations (:func:`rankstats.plotting.names.labels`; the title then says
so and ``rs.plotting.name_key(result.consensus)`` is the key); the figures stay readable with 40
systems (rows and cells shrink their fonts, the figure grows).
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np
from matplotlib.figure import Figure

from rankstats.plotting.fonts import fitted_fonts
from rankstats.plotting.names import labels, shortened_note

if TYPE_CHECKING:
    from rankstats.models.ppc_result import PPCResult

ROW_HEIGHT = 0.24  # inches per system (top-1 figure)
CELL = 0.26  # inches per system (pair matrix)
MISSED = "#c0392b"
OBSERVED = "black"
REPLICATED = "C0"


def plot(result: PPCResult, statistic: str) -> Figure:
    """The figure of one statistic group of ``result`` (see the module docstring)."""
    figures = {"top1": _top1, "pairs": _pairs, "kendall": _kendall, "ties": _ties}
    if statistic not in figures:
        raise ValueError(f"statistic must be one of {tuple(figures)}, not {statistic!r}")
    if statistic in result.undefined:
        raise ValueError(
            f"{statistic!r} is not defined for model {result.model!r}: "
            f"{result.undefined[statistic]}"
        )
    fig = figures[statistic](
        result, dict(zip(result.consensus, labels(result.consensus), strict=True))
    )
    with fitted_fonts(fig):
        fig.tight_layout()
    return fig


def _title(result: PPCResult, what: str, rows) -> str:
    missed = int(rows["missed"].sum())
    checked = int(rows["p_value"].notna().sum())
    head = f"{what}: observed vs {result.draws} replications ({result.model.upper()}, "
    head += f"{result.method}{', normal approx.' if result.approximation else ''})"
    return head + f"\n{missed} of {checked} missed at p < {result.threshold:g}"


def _noted(result: PPCResult, title: str) -> str:
    """``title`` and, when some names are shortened,
    :data:`~rankstats.plotting.names.SHORTENED_NOTE`."""
    note = shortened_note(result.consensus)
    return title + ("\n" + note if note else "")


def _rows(result: PPCResult, group: str):
    table = result.statistics
    mask = (table["group"] == group).to_numpy()
    return table[mask], result.replicated[:, mask]


def _top1(result: PPCResult, short: dict[str, str]) -> Figure:
    rows, _ = _rows(result, "top1")
    n = len(rows)
    height = max(2.5, ROW_HEIGHT * n + 1.6)
    fig = Figure(figsize=(7.0, height))
    ax = fig.add_subplot()
    y = np.arange(n)[::-1]
    ax.hlines(y, rows["low"], rows["high"], color=REPLICATED, linewidth=3, alpha=0.6)
    ax.plot(rows["mean"], y, "|", color=REPLICATED, markersize=8, label="replicated mean")
    missed = rows["missed"].to_numpy()
    obs = rows["observed"].to_numpy()
    ax.plot(obs[~missed], y[~missed], "o", color=OBSERVED, markersize=4, label="observed")
    if missed.any():
        ax.plot(obs[missed], y[missed], "o", color=MISSED, markersize=5, label="observed, missed")
    points = 72.0 * (height - 1.6) / max(n, 1)
    ax.set_yticks(y, [short[s] for s in rows["system_a"]])
    ax.tick_params(axis="y", labelsize=max(3.0, min(9.0, 0.7 * points)))
    ax.set_ylim(-0.7, n - 0.3)
    ax.set_xlabel(
        f"share of rankings ranking the system first ({result.ci_prob:.0%} interval of "
        "replications)"
    )
    ax.set_title(_noted(result, _title(result, "Top-1 frequency", rows)), fontsize=9)
    ax.legend(fontsize=7, loc="lower right")
    return fig


def _pairs(result: PPCResult, short: dict[str, str]) -> Figure:
    rows, reps = _rows(result, "pairs")
    order = list(result.consensus)
    n = len(order)
    index = {s: i for i, s in enumerate(order)}
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a pair never compared in a replication
        sd = np.nanstd(reps, axis=0)
        z = (rows["observed"].to_numpy() - rows["mean"].to_numpy()) / sd
    z = np.where(sd > 0, z, 0.0)
    matrix = np.full((n, n), np.nan)
    a = np.array([index[s] for s in rows["system_a"]], dtype=np.int64)
    b = np.array([index[s] for s in rows["system_b"]], dtype=np.int64)
    matrix[a, b] = z
    matrix[b, a] = -z
    size = max(4.5, CELL * n + 2.8)
    fig = Figure(figsize=(size + 1.0, size))
    ax = fig.add_subplot()
    image = ax.imshow(np.clip(matrix, -4, 4), cmap="RdBu_r", vmin=-4, vmax=4)
    missed = rows["missed"].to_numpy()
    if missed.any():
        ax.plot(b[missed], a[missed], "x", color="black", markersize=max(2.0, 18 * CELL))
        ax.plot(a[missed], b[missed], "x", color="black", markersize=max(2.0, 18 * CELL))
    names = [short[s] for s in order]
    font = max(3.0, min(9.0, 0.8 * 72.0 * (size - 2.8) / max(n, 1)))
    ax.set_xticks(np.arange(n), names, rotation=90, fontsize=font)
    ax.set_yticks(np.arange(n), names, fontsize=font)
    ax.set_xlabel("column system (consensus order)")
    ax.set_ylabel("row system")
    bar = fig.colorbar(image, ax=ax, shrink=0.7)
    bar.set_label("row beats column: observed − replicated mean, in replicated sd", fontsize=8)
    ax.set_title(
        _noted(
            result,
            _title(result, "Pairwise win proportions", rows) + " (×: missed; white: not compared)",
        ),
        fontsize=9,
    )
    return fig


def _hist_panel(ax, values, observed, missed, title):
    values = values[np.isfinite(values)]
    ax.hist(values, bins=30, color=REPLICATED, alpha=0.6, label="replicated")
    ax.axvline(observed, color=MISSED if missed else OBSERVED, linewidth=2, label="observed")
    ax.set_title(title, fontsize=8)
    ax.legend(fontsize=7)


def _kendall(result: PPCResult, short: dict[str, str]) -> Figure:
    rows, reps = _rows(result, "kendall")
    fig = Figure(figsize=(12.0, 3.8))
    axes = fig.subplots(1, 3)
    for k in range(2):
        row = rows.iloc[k]
        _hist_panel(
            axes[k],
            reps[:, k],
            row["observed"],
            bool(row["missed"]),
            f"{row['statistic']}\np = {row['p_value']:.3f}",
        )
        axes[k].set_xlabel("discordant pairs per ranking")
    ax = axes[2]
    bins = result.distance_bins
    centres = 0.5 * (bins[:-1] + bins[1:])
    rep = result.replicated_distances / result.n_rankings
    low, high = np.quantile(rep, [(1 - result.ci_prob) / 2, (1 + result.ci_prob) / 2], axis=0)
    width = bins[1] - bins[0]
    ax.bar(centres, high - low, bottom=low, width=0.8 * width, color=REPLICATED, alpha=0.5)
    ax.plot(centres, rep.mean(axis=0), "_", color=REPLICATED, markersize=12, label="replicated")
    ax.plot(
        centres,
        result.observed_distances / result.n_rankings,
        "o",
        color=OBSERVED,
        markersize=4,
        label="observed",
    )
    ax.set_xlabel("Kendall distance / pairs in the ranking")
    ax.set_ylabel("share of rankings")
    ax.set_title(f"distribution over rankings ({result.ci_prob:.0%} interval)", fontsize=8)
    ax.legend(fontsize=7)
    consensus = ", ".join(short[s] for s in result.consensus[:5])
    more = "…" if len(result.consensus) > 5 else ""
    fig.suptitle(
        _noted(
            result,
            _title(result, "Kendall distance to the consensus", rows).replace("\n", "; ")
            + f"\nconsensus: {consensus}{more}",
        ),
        fontsize=9,
    )
    return fig


def _ties(result: PPCResult, short: dict[str, str]) -> Figure:
    rows, reps = _rows(result, "ties")
    row = rows.iloc[0]
    fig = Figure(figsize=(5.5, 3.5))
    ax = fig.add_subplot()
    modelled = bool(np.isfinite(row["p_value"]))
    title = f"{row['statistic']}"
    if modelled:
        title += f"\np = {row['p_value']:.3f}"
    else:
        title += "\nthe model generates no ties (replicated: 0)"
    _hist_panel(ax, reps[:, 0], row["observed"], bool(row["missed"]), title)
    ax.set_xlabel("share of compared pairs that are tied")
    return fig
