"""Figures at leaderboard scale (issue 47): 300 and 1,000 systems.

The CD diagram names the best 30 and summarises the rest, the Hoeffding heat map is drawn by
blocks of consecutive systems; both are chosen above a documented size, the full figures stay
available (``top=``, ``block_size=1``).  What is measured: every label's font size (at least
:data:`rankstats.plotting.names.MIN_NAME_FONT`), that no two labels overlap (their rendered
boxes), that every label is inside the figure, and the block values against a loop over pairs.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

import rankstats as rs
from rankstats.aggregation.hoeffding_figure import (
    HEATMAP_BLOCKS,
    HEATMAP_FULL_MAX,
    block_balance,
    significance_heatmap,
)
from rankstats.plotting.names import MIN_NAME_FONT
from rankstats.significance.critical_difference import CD_FULL_MAX, CD_TOP, cd_diagram
from rankstats.significance.posthoc_tests import posthoc


def _table(n: int, blocks: int = 40, seed: int = 0) -> rs.Scores:
    rng = np.random.default_rng(seed)
    values = rng.normal(np.linspace(0.0, 8.0, n), 1.0, size=(blocks, n))
    wide = pd.DataFrame(values.T, columns=[f"t{b}" for b in range(blocks)])
    wide.insert(0, "system", [f"leaderboard-model-{i:04d}" for i in range(n)])
    return rs.Scores.from_wide(wide)


def _boxes(fig, texts):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)  # a bare Figure (no pyplot) has no renderer of its own
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    return [t.get_window_extent(renderer) for t in texts]


def _legible_apart_inside(fig, texts) -> None:
    assert min(t.get_fontsize() for t in texts) >= MIN_NAME_FONT
    boxes = _boxes(fig, texts)
    ordered = sorted(boxes, key=lambda b: (b.y0, b.x0))
    for a, b in itertools.combinations(ordered, 2):
        assert not a.overlaps(b)
    for box in boxes:
        assert fig.bbox.x0 - 0.5 <= box.x0 and box.x1 <= fig.bbox.x1 + 0.5
        assert fig.bbox.y0 - 0.5 <= box.y0 and box.y1 <= fig.bbox.y1 + 0.5


@pytest.mark.parametrize("n", [300, pytest.param(1000, marks=pytest.mark.slow)])
def test_cd_diagram_names_the_best_and_summarises_the_rest(n):
    res = posthoc(_table(n), method="nemenyi")
    fig = cd_diagram(res)
    names = [t for t in fig.texts if t.get_gid() == "system-name"]
    assert n > CD_FULL_MAX and len(names) == CD_TOP
    assert [t.get_text() for t in names] == list(res.mean_ranks.index[:CD_TOP])
    ax = fig.axes[0]
    note = [t for t in ax.texts if t.get_gid() == "rest-note"]
    assert len(note) == 1 and f"{n - CD_TOP} more systems" in note[0].get_text()
    band = [line for line in ax.get_lines() if line.get_gid() == "rest-band"]
    rest = res.mean_ranks.to_numpy()[CD_TOP:]
    assert np.allclose(sorted(band[0].get_xdata()), [rest.min(), rest.max()])
    _legible_apart_inside(fig, names + note)
    assert fig.get_figheight() < 12  # a page, not a poster


@pytest.mark.slow
def test_full_cd_diagram_on_request_at_300_systems():
    res = posthoc(_table(300), method="nemenyi")
    fig = cd_diagram(res, top=300)
    names = [t for t in fig.texts if t.get_gid() == "system-name"]
    assert len(names) == 300
    _legible_apart_inside(fig, names)
    with pytest.raises(ValueError, match="top must be an integer"):
        cd_diagram(res, top=1)


def _loop_balance(significant: np.ndarray, size: int) -> np.ndarray:
    n = len(significant)
    starts = range(0, n, size)
    out = np.full((len(starts), len(starts)), np.nan)
    for i, a0 in enumerate(starts):
        for j, b0 in enumerate(starts):
            terms = [
                float(significant[a, b]) - float(significant[b, a])
                for a in range(a0, min(a0 + size, n))
                for b in range(b0, min(b0 + size, n))
                if a != b
            ]
            if terms:
                out[i, j] = sum(terms) / len(terms)
    return out


@pytest.mark.parametrize(("n", "size"), [(7, 3), (10, 5), (11, 1), (5, 5)])
def test_block_balance_equals_a_loop_over_pairs(n, size):
    rng = np.random.default_rng(n)
    upper = np.triu(rng.random((n, n)) < 0.5, 1)
    lower = np.tril(rng.random((n, n)) < 0.3, -1)
    significant = upper | (lower & ~upper.T)  # never both a > b and b > a
    np.testing.assert_allclose(
        block_balance(significant, size), _loop_balance(significant, size), equal_nan=True
    )


@pytest.mark.parametrize("n", [300, pytest.param(1000, marks=pytest.mark.slow)])
def test_heatmap_by_blocks_above_the_threshold(n):
    scores = _table(n, blocks=30)
    ranking = rs.aggregate(scores, method="borda")
    test = rs.hoeffding_test(rs.pairwise(scores), order=ranking.order)
    fig = significance_heatmap(test)
    ax = fig.axes[0]
    size = -(-n // HEATMAP_BLOCKS)
    labels = ax.get_yticklabels()
    assert n > HEATMAP_FULL_MAX and len(labels) == -(-n // size)
    assert labels[0].get_text() == f"1–{size}" and labels[-1].get_text().endswith(f"–{n}")
    assert f"blocks of {size}" in ax.get_title()
    _legible_apart_inside(fig, labels)
    _legible_apart_inside(fig, ax.get_xticklabels())
    significant = test.matrix("significant").to_numpy(dtype=float, na_value=0.0) > 0
    drawn = ax.get_images()[0].get_array()
    np.testing.assert_allclose(drawn, block_balance(significant, size), equal_nan=True)


@pytest.mark.slow
def test_full_heatmap_on_request_at_300_systems():
    scores = _table(300, blocks=30)
    test = rs.hoeffding_test(rs.pairwise(scores))
    fig = significance_heatmap(test, block_size=1)
    labels = fig.axes[0].get_yticklabels()
    assert len(labels) == 300
    _legible_apart_inside(fig, labels)
    with pytest.raises(ValueError, match="block_size"):
        significance_heatmap(test, block_size=0)


def test_heatmap_by_blocks_says_when_no_pair_is_significant():
    rng = np.random.default_rng(3)
    wide = pd.DataFrame(rng.normal(size=(80, 3)), columns=["t0", "t1", "t2"])
    wide.insert(0, "system", [f"m{i}" for i in range(80)])
    test = rs.hoeffding_test(rs.pairwise(rs.Scores.from_wide(wide)))
    ax = significance_heatmap(test).axes[0]
    assert any("no pair is significant" in t.get_text() for t in ax.texts)
