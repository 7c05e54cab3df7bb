"""Permutations under the Mallows model: the six distances between rankings, the counts of
permutations by distance, the partition functions (closed forms, exact counts, importance
sampling; their disk cache and the table chosen for this process), rankings drawn from the model,
its pairwise probabilities and the marginal likelihood of partial observations.

They live in ``core`` because the models (:mod:`rankstats.models.mallows`), the simulators
(:mod:`rankstats.simulate`) and the planning designs all use them:

- ``distances.py``, ``counts.py``: the distances and :math:`N_n(d)`;
- ``kendall.py``: the closed forms of the Kendall model;
- ``partition.py`` (with ``importance.py``, ``partition_store.py``,
  ``partition_in_use.py``): normalising constants and expected distances;
- ``sampling.py``: rankings drawn from the model; ``pair_tables.py``: its pairwise probabilities
  and rank marginals;
- ``marginal.py`` (with ``insertion.py``, ``_insertion_numba.py``): the marginal likelihood of a
  partial observation.
"""
