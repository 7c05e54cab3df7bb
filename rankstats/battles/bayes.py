r"""Posterior of the battle model (Bradley–Terry, Davidson ties, order effect) by NUTS in PyMC.

The model is :func:`rankstats.models.bradley_terry.pymc_model` with ``order=True``, on the
counts per ordered pair: ``log_worth ~ ZeroSumNormal(prior_scale)``, ``log_tie ~ Normal(0, 1.5)``,
``log_order ~ Normal(0, 1.5)`` and the likelihood of
:func:`rankstats.core.bradley_terry_mle.bt_loglik`.  The sampler is always named explicitly
(``sampler="auto"`` resolves to nutpie or PyMC's NUTS, as
:meth:`rankstats.models.BradleyTerry.fit` does), and R-hat, ESS and divergences are checked
(:func:`rankstats._pymc.convergence.check_convergence`): problems are warned about and returned.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from rankstats._pymc.settings import NutsSettings
from rankstats._util.advice import Spelled
from rankstats.core.bradley_terry_mle import Pairs


def sample_posterior(
    pairs: Pairs,
    models: Sequence[str],
    ties: bool,
    order: bool,
    seed: int | None = 0,
    nuts: NutsSettings | None = None,
    prior_scale: float = 2.0,
    covariates: Sequence[str] = (),
) -> tuple[dict[str, np.ndarray], list[str], str, Any]:
    """NUTS draws of the battle model (with ``covariates``: ``pairs`` holds one row per battle
    and its features, style control, ``style`` ~ Normal(0, 1.5) per covariate), sampled with
    ``nuts`` (default :class:`~rankstats.NutsSettings`).

    Returns
    -------
    (dict, list of str, str, ArviZ data)
        Draws flattened over chains (``log_worth`` (S, N), ``log_tie`` and ``log_order`` (S,)
        when in the model, ``style`` (S, K) with covariates), convergence problems (empty when
        R-hat ≤ 1.01, bulk ESS ≥ 400 and no divergences), the sampler used, and the sampler's
        ArviZ data (``InferenceData`` on the pymc 5 stack, ``xarray.DataTree`` on pymc 6).
    """
    from rankstats._pymc import compat as _compat
    from rankstats._pymc.convergence import check_convergence, warn_convergence
    from rankstats._pymc.nuts import sample_nuts
    from rankstats.models.bradley_terry import pymc_model

    nuts = NutsSettings() if nuts is None else nuts
    if not ties:  # ties as half wins (the same counts as the MLE)
        half = 0.5 * pairs.ties
        w1, w2, t = pairs.wins1 + half, pairs.wins2 + half, np.zeros_like(half)
    else:
        w1, w2, t = pairs.wins1, pairs.wins2, pairs.ties
    counts = Pairs(len(models), pairs.item1, pairs.item2, w1, w2, t, tuple(models), pairs.features)
    model = pymc_model(counts, prior_scale, ties, order=order, covariates=covariates)
    idata, used = sample_nuts(
        model,
        nuts.sampler,
        draws=nuts.draws,
        tune=nuts.tune,
        chains=nuts.chains,
        n_jobs=None,
        seed=seed,
        progress=nuts.progress,
        target_accept=nuts.target_accept,
        n_parameters=len(models) + int(ties) + int(order) + len(covariates),  # sampler="auto"
    )
    variables = ["log_worth"] + (["log_tie"] if ties else []) + (["log_order"] if order else [])
    variables += ["style"] if covariates else []
    problems = check_convergence(idata, variables)
    warn_convergence(
        problems,
        hint="run longer chains ({draws}, {tune}) or more chains ({chains})",
        inspect=Spelled(
            "fit.info['posterior_problems'] and the draws in fit.posterior",
            "posterior_problems in summary.json",
        ),
    )
    posterior = _compat.group(idata)
    out: dict[str, Any] = {}
    for name in variables:
        values = posterior[name].to_numpy()
        out[name] = values.reshape(-1, *values.shape[2:])
    return out, problems, used, idata
