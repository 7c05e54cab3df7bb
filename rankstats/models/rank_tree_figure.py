"""The figure of a rank tree: the splits on top, each leaf's log-worths below.

Plain data in (node tuples, arrays, names), so the result module and this one never import each
other (docs/architecture.md).  Every name, rule and level is data, drawn literally through
:func:`rankstats.plotting.labels` / :func:`rankstats.plotting.label` (``$`` never starts
mathtext).
"""

from __future__ import annotations

import textwrap
import warnings
from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from rankstats.plotting.names import label, labels, shortened_note

#: The interval drawn around a log-worth: ± this many standard errors (95% Wald).
Z95 = 1.959963984540054


def tree_figure(
    nodes: Sequence[tuple[int, int | None, str, int, str, str]],
    leaves: Sequence[tuple[int, np.ndarray, np.ndarray]],
    systems: Sequence[str],
    unit: str,
    width: float | None = None,
) -> Figure:
    """Draw the tree and, under each leaf, a dot plot of its log-worths with 95% intervals.

    Parameters
    ----------
    nodes
        ``(id, parent, rule, n_units, covariate, p)`` of every node, depth first: an inner
        node's split covariate and its adjusted p-value as text (``"p = 0.0043"``, or
        ``"p ≤ 0.0003"`` at the floor of a simulated p-value; ``""`` and ``""`` for a leaf).
    leaves
        ``(id, log_worth, se)`` of every leaf, in the order of ``nodes``.
    systems
        The names of the worths' entries.
    unit
        What ``n_units`` counts (``"ranker"`` or ``"task"``).
    width
        Figure width in inches (default: 3.2 per leaf, at least 7).
    """
    n_leaves = len(leaves)
    names = labels(systems)
    # Systems ordered by their average (centred) log-worth over the leaves, best on top.
    stacked = np.vstack([w for _, w, _ in leaves])
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a system ranked in no leaf: NaN
        average = np.nanmean(stacked, axis=0)
    order = np.argsort(np.where(np.isfinite(average), -average, np.inf), kind="stable")
    height_rows = max(3.0, 0.22 * len(systems) + 1.0)
    fig = Figure(figsize=(width or max(7.0, 3.2 * n_leaves), 2.2 + height_rows))
    grid = fig.add_gridspec(2, n_leaves, height_ratios=[2.2, height_rows], hspace=0.25)
    _draw_tree(fig.add_subplot(grid[0, :]), nodes, [leaf[0] for leaf in leaves], unit)
    low = np.nanmin([np.nanmin(w - Z95 * s) for _, w, s in leaves if np.isfinite(w).any()] or [0])
    high = np.nanmax([np.nanmax(w + Z95 * s) for _, w, s in leaves if np.isfinite(w).any()] or [1])
    y = np.arange(len(systems))[::-1]
    for column, (leaf_id, worth, se) in enumerate(leaves):
        ax = fig.add_subplot(grid[1, column])
        w, s = worth[order], se[order]
        shown = np.isfinite(w)
        ax.errorbar(
            w[shown], y[shown], xerr=Z95 * s[shown], fmt="o", color="C0", ms=4, capsize=2, lw=1
        )
        ax.axvline(0.0, color="0.7", lw=0.8, zorder=0)
        ax.set_yticks(y)
        ax.set_yticklabels([names[i] for i in order] if column == 0 else [])
        ax.set_ylim(-0.7, len(systems) - 0.3)
        if np.isfinite([low, high]).all() and high > low:
            pad = 0.05 * (high - low)
            ax.set_xlim(low - pad, high + pad)
        ax.set_title(f"node {leaf_id}", fontsize=9)
        ax.set_xlabel("log-worth (95% interval)", fontsize=8)
        ax.tick_params(labelsize=8)
    note = shortened_note(systems)
    if note:
        fig.suptitle(note, fontsize=7, y=0.005, va="bottom")
    return fig


def _wrapped(rule: str, width: int = 26, lines: int = 4) -> str:
    """A rule on at most ``lines`` lines of about ``width`` characters, each drawn literally."""
    parts = textwrap.wrap(rule, width) or [""]
    shown = [label(part, width + 4) for part in parts[:lines]]
    if len(parts) > lines:
        shown[-1] += " …"
    return "\n".join(shown)


def _draw_tree(ax, nodes, leaf_ids: list[int], unit: str) -> None:
    """Nodes as boxes (inner: the split covariate and adjusted p; leaf: its id and size), edges
    labelled with the rule of the child.  Leaves sit above the columns of the dot plots."""
    x: dict[int, float] = {leaf: (i + 0.5) / len(leaf_ids) for i, leaf in enumerate(leaf_ids)}
    children: dict[int, list[int]] = {}
    for node_id, parent, *_ in nodes:
        if parent is not None:
            children.setdefault(parent, []).append(node_id)
    depth = {nodes[0][0]: 0}
    for node_id, parent, *_ in nodes[1:]:
        depth[node_id] = depth[parent] + 1
    for node_id, *_ in reversed(nodes):  # children come after their parent: fill bottom up
        if node_id not in x:
            x[node_id] = float(np.mean([x[c] for c in children[node_id]]))
    deepest = max(depth.values()) or 1
    level = {n: 1.0 - 0.85 * depth[n] / deepest for n in depth}
    for node_id, parent, rule, n_units, covariate, p in nodes:
        if parent is not None:
            ax.plot([x[parent], x[node_id]], [level[parent], level[node_id]], color="0.5", lw=1)
            ax.text(
                0.4 * x[parent] + 0.6 * x[node_id],
                0.4 * level[parent] + 0.6 * level[node_id],
                _wrapped(rule),
                ha="center",
                va="center",
                fontsize=7,
                bbox={"boxstyle": "round", "fc": "white", "ec": "none", "alpha": 0.9},
            )
        if covariate:
            text = f"{label(covariate, 30)}\n{p}, n = {n_units}"
        else:
            text = f"node {node_id}\nn = {n_units} {unit}s"
        ax.text(
            x[node_id],
            level[node_id],
            text,
            ha="center",
            va="center",
            fontsize=8,
            bbox={"boxstyle": "round", "fc": "#eef3fb" if covariate else "#f4f4f4", "ec": "0.4"},
        )
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.1, 1.1)
    ax.axis("off")
