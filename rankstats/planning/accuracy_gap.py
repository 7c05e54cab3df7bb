r"""The minimum detectable accuracy gap: paired binary outcomes at a varied gap.

A design of paired binary outcomes (:meth:`~rankstats.planning.design.BenchmarkDesign.
from_accuracies`: system ``i`` right when a latent normal score :math:`\mu_i + \varepsilon_i` is
above 0, the :math:`\varepsilon` of an item equicorrelated with correlation ρ) is varied by the
gap :math:`\delta` between neighbouring accuracies: the systems, ordered by accuracy, get
:math:`a_{(k)} = a_{\min} + k\delta` (:math:`k = 0 .. N-1`), so that the least accurate system
keeps its accuracy and ρ — how much the items' difficulty is shared — is held fixed; the
agreement of two systems then changes with the gap, as it does between real classifiers (Card
et al. 2020, Sec. 3.1, predict the agreement from the accuracy and the gap). With two systems,
:func:`rankstats.sample_size` over :math:`\delta` gives the minimum detectable accuracy
difference of McNemar's test (Card et al.'s Table 2).
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from rankstats.planning.design import BenchmarkDesign
from rankstats.simulate.argument_checks import require


def check_gap_design(design: object) -> None:
    """An accuracy gap varies a design of paired binary outcomes with normal latent scores."""
    require(
        isinstance(design, BenchmarkDesign)
        and design.outcome == "binary"
        and design.noise == "normal"
        and design.scales is None,
        "vary='accuracy_gap' varies a design of paired binary outcomes "
        "(rs.BenchmarkDesign.from_accuracies, or a calibrated binary pilot)",
    )


def largest_gap(design: BenchmarkDesign) -> float:
    """The supremum of the gaps that keep every accuracy below 1 (itself excluded)."""
    return float((1.0 - design.accuracies.min()) / (design.n_systems - 1))


def keeps_accuracies_below_one(design: BenchmarkDesign, gap: float) -> bool:
    """Whether ``gap`` > 0 leaves the most accurate system below 1 *as computed*: a gap just
    under :func:`largest_gap` can round the top accuracy to exactly 1 (0.7 + 2 · 0.15 == 1.0),
    whose latent location would be infinite."""
    return bool(gap > 0 and _stepped(design, gap).max() < 1.0)


def with_accuracy_gap(design: BenchmarkDesign, gap: float) -> BenchmarkDesign:
    """The design whose accuracies, in the design's order of accuracy, step by ``gap`` from the
    lowest one (the latent correlation unchanged)."""
    check_gap_design(design)
    require(
        keeps_accuracies_below_one(design, gap),
        f"an accuracy gap must be in (0, {largest_gap(design):.4g}) for these "
        f"{design.n_systems} systems (the most accurate would reach 1), got {gap!r}",
    )
    new = _stepped(design, gap)
    return design.replace(locations=tuple(float(v) for v in stats.norm.ppf(new) * design.scale))


def _stepped(design: BenchmarkDesign, gap: float) -> np.ndarray:
    """The accuracies stepped by ``gap`` from the lowest, in the design's order of accuracy."""
    accuracies = design.accuracies
    order = np.argsort(accuracies, kind="stable")
    new = np.empty_like(accuracies)
    new[order] = accuracies.min() + gap * np.arange(design.n_systems)
    return new
