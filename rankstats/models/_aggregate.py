"""``aggregate(..., method="pl" | "bt")``: maximum-likelihood log-worths as aggregate scores.

Systems that no ranking evaluates get a NaN score (no information), as elsewhere in
:func:`rankstats.aggregate`; the fit itself is in ``result.details["fit"]``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rankstats.aggregation.aggregators import Aggregate, register
from rankstats.core.pair_probabilities import Pairwise
from rankstats.core.rankings import Rankings, default_level
from rankstats.core.scores import Scores
from rankstats.models.bradley_terry import BradleyTerry
from rankstats.models.plackett_luce import PlackettLuce


def _rankings(data, by: str | None) -> tuple[Rankings, str]:
    if isinstance(data, Rankings):
        return data, "rankings"
    if isinstance(data, Scores):
        lvl = default_level(data, by)
        return Rankings.from_scores(data, by=lvl), lvl
    raise TypeError(f"expected Scores or Rankings, not {type(data).__name__}")


def _evaluated(rk: Rankings) -> Rankings:
    keep = (~np.isnan(rk.ranks)).any(axis=0)
    if keep.all():
        return rk
    return Rankings(
        rk.ranks[:, keep],
        tuple(s for s, k in zip(rk.systems, keep, strict=True) if k),
        rk.rankers,
        rk.groups,
        rk.group_names,
    )


def _scores(fit, systems: tuple[str, ...], name: str) -> pd.Series:
    return fit.worth.reindex(list(systems)).rename(name)


def _pl(data, by: str | None) -> Aggregate:
    rk, lvl = _rankings(data, by)
    fit = PlackettLuce().fit(_evaluated(rk), method="mle")
    return Aggregate("pl", _scores(fit, rk.systems, "pl"), lvl, {"fit": fit})


def _bt(data, by: str | None) -> Aggregate:
    if isinstance(data, Pairwise):
        fit = BradleyTerry().fit(data, method="mle")
        return Aggregate("bt", _scores(fit, data.systems, "bt"), "pairwise", {"fit": fit})
    rk, lvl = _rankings(data, by)
    fit = BradleyTerry().fit(_evaluated(rk), method="mle")
    return Aggregate("bt", _scores(fit, rk.systems, "bt"), lvl, {"fit": fit})


register("pl", _pl)
register("bt", _bt)
