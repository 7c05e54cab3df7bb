"""Human names of the aggregation methods and rank models: one mapping, quoted by every output.

The CLI's tables, the report's methods paragraph and HTML page, and any other output that names a
method in prose take it from here, so σ^l is never "Borda" in one file and "one-level Borda" in
another.
"""

from __future__ import annotations

#: Rank models fitted by :mod:`rankstats.models` (``fit.model`` → name).
MODEL_NAMES: dict[str, str] = {
    "pl": "Plackett–Luce",
    "bt": "Bradley–Terry",
    "mallows": "Mallows (Kendall)",
}

#: Aggregation methods of :func:`rankstats.aggregate` (``method`` → name with its symbol).
METHOD_NAMES: dict[str, str] = {
    "mean": "mean of the available scores (σ^μ)",
    "median": "median of the available scores",
    "borda": "one-level Borda with imputation (σ^l)",
    "borda2": "two-level Borda with imputation (σ^2l)",
    "copeland": "Copeland (pairwise majority wins)",
    "kemeny": "Kemeny consensus",
    "bt": f"{MODEL_NAMES['bt']} (maximum-likelihood log-worths)",
    "pl": f"{MODEL_NAMES['pl']} (maximum-likelihood log-worths)",
}


def method_name(method: str) -> str:
    """The human name of an aggregation method (the key itself when it has none).

    >>> method_name("borda2"), method_name("my_method")
    ('two-level Borda with imputation (σ^2l)', 'my_method')
    """
    return METHOD_NAMES.get(method, method)


def model_name(model: str) -> str:
    """The human name of a rank model (the key itself when it has none).

    >>> model_name("mallows")
    'Mallows (Kendall)'
    """
    return MODEL_NAMES.get(model, model)
