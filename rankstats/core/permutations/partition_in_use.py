r"""The partition functions a user has chosen for this process: an imported table
(:func:`rankstats.models.read_partition_function`) or a more precise estimate, used by every fit,
pointwise likelihood and prediction that needs :math:`Z_n(\alpha)` of that distance and number
of items, instead of the one :func:`rankstats.core.permutations.partition.partition_function` would
compute (BayesMallows: ``compute_mallows(pfun_estimate = ...)``).
"""

from __future__ import annotations

from typing import Any

#: (distance, n) → the partition function in use.
_IN_USE: dict[tuple[str, int], Any] = {}


def in_use(distance: str, n: int) -> Any | None:
    """The partition function chosen for ``distance`` on ``n`` items, or None."""
    return _IN_USE.get((distance, n))


class use_partition_function:  # a function to the user, a context manager too
    """Use ``pf`` (a :class:`~rankstats.core.permutations.partition.PartitionFunction`) wherever
    :math:`Z_n(\\alpha)` of its distance and number of items is needed in this process (and in
    the worker processes a fit forks), in place of what ``partition_function(n, distance)``
    computes by default (``method="auto"``); an explicit ``method=`` still gets its own.

    Called alone, the choice stays; as a context manager it ends with the block and the
    previous choice comes back::

        pf = rs.models.read_partition_function("spearman20.csv")
        with rs.models.use_partition_function(pf):
            fit = rs.models.Mallows(distance="spearman").fit(rk)  # fit.info: "imported"

    ``rs.models.use_partition_function(None, distance="spearman", n=20)`` forgets a choice.
    """

    def __init__(self, pf: Any | None, *, distance: str | None = None, n: int | None = None):
        if pf is None:
            if distance is None or n is None:
                raise ValueError("to forget a choice, give its distance and n")
            key = (distance, int(n))
        else:
            if not all(hasattr(pf, a) for a in ("distance", "n", "log_z", "log_z_table")):
                raise TypeError(
                    f"use_partition_function takes a PartitionFunction, not {type(pf).__name__}"
                )
            key = (pf.distance, int(pf.n))
        self._key, self._previous = key, _IN_USE.get(key)
        if pf is None:
            _IN_USE.pop(key, None)
        else:
            _IN_USE[key] = pf

    def __enter__(self) -> use_partition_function:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._previous is None:
            _IN_USE.pop(self._key, None)
        else:
            _IN_USE[self._key] = self._previous
