r"""Samplers of complete rankings with a known centre or worths.

- :func:`plackett_luce`: Plackett–Luce rankings by the Gumbel-max construction (Yellott 1977);
- :func:`mallows`: Mallows rankings with Kendall distance by repeated insertion (Doignon et al.
  2004); ``mallows_expected_distance``, the expected Kendall distance to the centre (Fligner &
  Verducci 1986), lives in :mod:`rankstats.core.permutations.kendall` and is re-exported here.

Both are vectorised over rankings.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from rankstats._util.arguments import random_seed
from rankstats.core.permutations.kendall import mallows_expected_distance  # noqa: F401  (re-exported)
from rankstats.core.permutations.sampling import insertion_ranks
from rankstats.core.rankings import Rankings
from rankstats.simulate.argument_checks import check_count, is_real, require
from rankstats.simulate.labels import system_names


def plackett_luce(
    worths: Sequence[float] | pd.Series,
    size: int,
    seed: int | None = 0,
    log: bool = False,
) -> Rankings:
    r"""Complete Plackett–Luce rankings by the Gumbel-max construction.

    Ranking by :math:`\log w_i + G_i` with i.i.d. standard Gumbel :math:`G_i` gives exactly the
    Plackett–Luce distribution (Yellott 1977): the first choice is :math:`i` with probability
    :math:`w_i / \sum_j w_j`, and so on down the ranking.

    Parameters
    ----------
    worths : sequence or Series
        Positive worths (or log-worths with ``log=True``); a Series supplies the system names.
    size : int
        Number of rankings.
    seed : int

    Examples
    --------
    >>> import rankstats as rs
    >>> rk = rs.simulate.plackett_luce({"a": 3.0, "b": 1.0}.values(), size=4, seed=1)
    >>> rk.ranks.shape
    (4, 2)
    """
    random_seed("seed", seed)
    names = list(worths.index) if isinstance(worths, pd.Series) else None
    values = np.asarray(list(worths), dtype=np.float64)
    if not log:
        require(bool((values > 0).all()), "worths must be positive (or pass log=True)")
        values = np.log(values)
    bad = np.flatnonzero(np.isnan(values) | (values == np.inf))
    require(not len(bad), f"worths must be finite; offending item index(es): {bad.tolist()}")
    check_count("size", size, 1)
    rng = np.random.default_rng(seed)
    keys = values + rng.gumbel(size=(size, len(values)))
    ranks = np.empty_like(keys)
    np.put_along_axis(ranks, np.argsort(-keys, axis=1), np.arange(1.0, len(values) + 1), axis=1)
    systems = tuple(str(s) for s in names) if names else tuple(system_names(len(values)))
    return Rankings(ranks, systems, pd.RangeIndex(size))


def mallows(
    n: int,
    theta: float,
    size: int,
    center: Sequence[str] | None = None,
    seed: int | None = 0,
) -> Rankings:
    r"""Complete rankings from the Mallows model with Kendall distance, by repeated insertion.

    :math:`P(\pi) \propto e^{-\theta d(\pi, \sigma)}`. Item ``j`` of the centre (``j = 1..n``)
    is inserted among the ``j − 1`` before it with ``V_j`` of them ending up *after* it,
    :math:`P(V_j = v) \propto q^v`, :math:`q = e^{-\theta}`, :math:`v = 0..j-1`; the distance is
    :math:`\sum_j V_j` (Doignon et al. 2004; Lu & Boutilier 2014). The insertion codes are drawn
    for all rankings at once by inverse transform; the loop runs over the ``n`` insertion steps,
    vectorised across rankings.

    Parameters
    ----------
    n : int
        Number of items.
    theta : float
        Dispersion θ > 0 (``θ → 0``: uniform; large θ: concentrated on the centre).
    size : int
        Number of rankings.
    center : sequence of str, optional
        The centre σ, best first (default ``sys01 .. sysNN``... in that order).
    seed : int

    Examples
    --------
    >>> import rankstats as rs
    >>> rs.simulate.mallows(4, theta=50.0, size=2, center=list("abcd")).orderings()
    [['a', 'b', 'c', 'd'], ['a', 'b', 'c', 'd']]
    """
    random_seed("seed", seed)
    check_count("n", n, 1)
    check_count("size", size, 1)
    require(
        is_real(theta) and math.isfinite(theta) and theta > 0,
        f"theta must be finite and > 0 (use a uniform sampler for θ = 0), got {theta!r}",
    )
    items = list(center) if center is not None else system_names(n)
    require(len(items) == n, "center must list n items")
    position = insertion_ranks(n, theta, size, np.random.default_rng(seed))
    return Rankings(position + 1.0, tuple(str(s) for s in items), pd.RangeIndex(size))
