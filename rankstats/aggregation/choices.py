"""The names a user chooses among in :mod:`rankstats.aggregation`, without what computes them.

Aggregation methods of :func:`~rankstats.aggregation.aggregators.aggregate` and the options of
the Hoeffding intervals (:mod:`rankstats.aggregation.hoeffding_intervals`). They live apart from
their implementations so that the command line can list them in its options (``rankstats
--help``) without importing numpy, pandas or the models.
"""

from __future__ import annotations

#: Methods defined in :mod:`rankstats.aggregation.aggregators` itself.
BUILTIN_METHODS = ("mean", "median", "borda", "borda2", "copeland")

# Methods registered by modules that are imported on first use (their dependencies are heavy).
LAZY_METHODS = {
    "pl": "rankstats.models",
    "bt": "rankstats.models",
    "kemeny": "rankstats.aggregation.kemeny_search",
}

#: Every method name of ``aggregate(..., method=...)``, sorted.
METHODS = tuple(sorted({*BUILTIN_METHODS, *LAZY_METHODS}))

#: Multiplicity corrections over pairs of the Hoeffding intervals.
CORRECTIONS = ("none", "bonferroni", "holm")
#: Half-widths: two-sided, or the one-sided width printed by Himmi et al. (2023).
FORMS = ("two-sided", "paper")
#: Pairwise probabilities estimated: imputed (Himmi et al. 2023) or observed pairs only.
ESTIMANDS = ("imputed", "observed")
