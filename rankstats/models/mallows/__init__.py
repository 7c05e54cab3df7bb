"""The Bayesian Mallows model (``rs.models.Mallows``): the model and its fits, samplers, mixture,
posterior predictive, MAP and the chains they share.

- ``model.py``: :class:`~rankstats.models.Mallows` (validation and the dispatch to a fit);
- ``fit.py``, ``mixture_result.py``: the results (:class:`~rankstats.models.MallowsFit`,
  :class:`~rankstats.models.MallowsMixtureFit`);
- ``gibbs_fit.py`` (Kendall, exact Gibbs: ``_gibbs.py``, ``_gibbs_numba.py``),
  ``metropolis_fit.py`` (any distance, Metropolis–Hastings: ``_metropolis.py``,
  ``_metropolis_numba.py`` with ``_distances_numba.py`` and ``_partition_numba.py``, the latent
  ranks of ``_augmentation.py`` and ``_bernoulli.py``), ``mixture_fit.py`` (``_mixture.py``),
  ``map.py`` (Kemeny consensus and maximum-likelihood dispersion); ``_chains.py``: what the
  samplers share around their chains; ``timing.py``: their cost model and worker processes;
- ``predictive.py``: the posterior predictive ranking of a new assessor.

The permutation machinery these build on (distances, counts, partition functions, sampling,
marginal likelihoods) is in :mod:`rankstats.core.permutations`, below the models, because the
simulators and the planning designs use it too. The public names are those of
:mod:`rankstats.models`; the module paths here are private.
"""
