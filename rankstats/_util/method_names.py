"""Human names of the aggregation methods and rank models: one mapping, quoted by every output.

The CLI's tables, the report's methods paragraph and HTML page, and any other output that names a
method in prose take it from here, so σ^l is never "Borda" in one file and "one-level Borda" in
another.
"""

from __future__ import annotations

from rankstats._util.text import latex_escape

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


#: Short column headings: ``method`` → (base, superscript). The three Borda-family estimators
#: carry the paper's symbols σ^μ, σ^l, σ^2l; the others a short word.
METHOD_SYMBOLS: dict[str, tuple[str, str]] = {
    "mean": ("σ", "μ"),
    "borda": ("σ", "l"),
    "borda2": ("σ", "2l"),
    "median": ("median", ""),
    "copeland": ("Copeland", ""),
    "kemeny": ("Kemeny", ""),
    "bt": ("BT", ""),
    "pl": ("PL", ""),
    "mallows": ("Mallows", ""),
}

_LATEX_GREEK = {"σ": r"\sigma", "μ": r"\mu"}


def method_symbol(method: str) -> tuple[str, str]:
    """``(base, superscript)`` of a method's column heading (the key itself when it has none).

    >>> method_symbol("borda2"), method_symbol("my_method")
    (('σ', '2l'), ('my_method', ''))
    """
    return METHOD_SYMBOLS.get(method, (method, ""))


def method_text(method: str) -> str:
    """The heading as plain text: ``σ^2l``, ``Copeland``.

    >>> method_text("borda"), method_text("copeland")
    ('σ^l', 'Copeland')
    """
    base, sup = method_symbol(method)
    return f"{base}^{sup}" if sup else base


def method_latex(method: str) -> str:
    r"""The heading in LaTeX: ``$\sigma^{2l}$``; other names escaped as text.

    >>> print(method_latex("borda2"), method_latex("mean"), method_latex("a_b"))
    $\sigma^{2l}$ $\sigma^{\mu}$ a\_b
    """
    base, sup = method_symbol(method)
    if not sup:
        return latex_escape(base)
    return f"${_greek(base)}^{{{_greek(sup)}}}$"


def _greek(text: str) -> str:
    return "".join(_LATEX_GREEK.get(c, c) for c in text)


def method_name(method: str) -> str:
    """The human name of an aggregation method (the key itself when it has none).

    >>> method_name("borda2"), method_name("my_method")
    ('two-level Borda with imputation (σ^2l)', 'my_method')
    """
    return METHOD_NAMES.get(method, method)


def model_name(model: str) -> str:
    """The human name of a rank model (the key itself when it has none); the keys of
    :func:`fit_key` too.

    >>> model_name("mallows"), model_name("mallows_footrule")
    ('Mallows (Kendall)', 'Mallows (footrule)')
    >>> model_name("mallows_cayley_3clusters")
    'Mallows (cayley), mixture of 3 clusters'
    """
    if model in MODEL_NAMES:
        return MODEL_NAMES[model]
    parts = model.split("_")
    if parts[0] == "mallows" and len(parts) in (2, 3):
        name = f"Mallows ({parts[1]})"
        if len(parts) == 3 and parts[2].endswith("clusters") and parts[2][:-8].isdigit():
            return f"{name}, mixture of {parts[2][:-8]} clusters"
        return name if len(parts) == 2 else model
    return model


def fit_key(fit: object) -> str:
    """The key that names a fitted model in outputs, file names and tables: ``fit.model``
    (``pl``, ``bt``, ``mallows`` — the Kendall model), else ``mallows_<distance>`` and, for a
    mixture, ``mallows_<distance>_<K>clusters`` (:func:`model_name` spells them out)."""
    model = str(getattr(fit, "model", type(fit).__name__)).lower()
    if model not in ("mallows", "mallows_mixture"):
        return model
    info = getattr(fit, "info", {}) or {}
    distance = str(info.get("distance", "kendall"))
    if model == "mallows_mixture":
        return f"mallows_{distance}_{int(info['clusters'])}clusters"
    return "mallows" if distance == "kendall" else f"mallows_{distance}"
