"""The Kendall Mallows model's maximum a posteriori fit (``Mallows().fit(rk, method="map")``):
the Kemeny consensus and the maximum-likelihood dispersion (Fligner & Verducci 1986)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import optimize

from rankstats._pymc import compat as _compat
from rankstats._util.advice import AdviceError
from rankstats.core.permutations.kendall import log_z, mallows_expected_distance
from rankstats.core.rankings import Rankings, tied_entries
from rankstats.models.mallows._gibbs import pair_counts, total_distance
from rankstats.models.mallows.fit import MallowsFit, persisted_attributes


def fit_map(rk: Rankings) -> MallowsFit:
    r"""The Kendall model's MAP: σ = the exact Kemeny consensus (:func:`rankstats.kemeny`, 60 s
    limit) and θ solving the maximum-likelihood equation :math:`E_\theta[d] = \bar d`
    (complete rankings without ties only)."""
    from rankstats.aggregation.kemeny_search import kemeny

    observed = ~np.isnan(rk.ranks)
    if not observed.all() or tied_entries(rk.ranks).any():
        raise AdviceError(
            "{map} needs complete rankings without ties (the Kemeny consensus is the MAP of "
            "σ only then); use {mcmc} for partial or tied rankings",
            map=("method", "map"),
            mcmc=("method", "mcmc"),
        )
    n, n_rankings = rk.n_systems, rk.n_rankings
    result = kemeny(rk, method="auto", time_limit=60)
    index = {s: i for i, s in enumerate(rk.systems)}
    sigma_pos = np.empty(n, dtype=np.int64)
    sigma_pos[[index[s] for s in result.order]] = np.arange(n)
    positions = (rk.ranks - 1).astype(np.int64)
    mean_d = total_distance(pair_counts(positions), sigma_pos) / n_rankings

    max_d = n * (n - 1) / 4  # E[d] at θ → 0
    if mean_d <= 0:
        theta = np.inf
    elif mean_d >= max_d:
        theta = 0.0
    else:
        theta = optimize.brentq(lambda t: mallows_expected_distance(n, t) - mean_d, 1e-9, 50.0)
    finite = theta if np.isfinite(theta) else 50.0
    idata = _compat.from_dict(
        {"theta": np.full((1, 1), finite), "position": (sigma_pos + 1.0)[None, None, :]},
        coords={"system": list(rk.systems)},
        dims={"position": ["system"]},
        attrs={"rankstats_model": "mallows", "rankstats_method": "map"},
    )
    loglik = -finite * mean_d * n_rankings - n_rankings * float(log_z(n, finite))
    _compat.set_attrs(
        idata,
        {
            **persisted_attributes(float(theta), list(result.order), n_rankings, []),
            "log_likelihood": loglik,
            "info_kemeny_optimal": int(bool(result.optimal)),
            "info_mean_distance": mean_d,
        },
    )
    return MallowsFit(
        model="mallows",
        method="map",
        systems=rk.systems,
        idata=idata,
        worth=pd.Series(sigma_pos + 1.0, index=list(rk.systems), name="position"),
        log_likelihood=loglik,
        parameters={"theta": float(theta)},
        info={
            "n_rankings": n_rankings,
            "consensus": list(result.order),
            "kemeny_optimal": bool(result.optimal),
            "mean_distance": mean_d,
        },
    )
