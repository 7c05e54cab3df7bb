"""Results derived from an immutable object, built once per key.

:class:`~rankstats.core.scores.Scores` and :class:`~rankstats.core.rankings.Rankings` are frozen
dataclasses that many estimators read: their rankings and pairwise statistics are computed on
the first request and shared by the next ones (σ^l, σ^2l and the Hoeffding intervals of one
table use one ``Rankings``).
"""

from __future__ import annotations

from collections.abc import Callable


class DerivedOnce:
    """Mixin of a frozen dataclass with a ``_derived`` dict field (``field(default_factory=dict,
    init=False, repr=False, compare=False)``): :meth:`cached` keeps what is derived from it.

    The object is treated as immutable: editing its data in place is not supported.
    """

    _derived: dict

    def cached(self, key: object, build: Callable[[], object]) -> object:
        """``build()`` once per ``key``, then the same object (results derived from this
        immutable object, such as its rankings or pairwise statistics, are computed once)."""
        if key not in self._derived:
            self._derived[key] = build()
        return self._derived[key]
