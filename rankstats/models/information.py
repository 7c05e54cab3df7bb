r"""What the data say about the order of the systems, checked before a rank model is fitted.

Three situations give a fit that looks like an answer and is not one:

* **No order information at all** — every ranking ties all its systems (Plackett–Luce with
  Efron's ties: the last tie group of a ranking makes no choice, so such a ranking has
  probability 1 whatever the worths), or every paired comparison is a tie.  The MLE does not
  exist (Newton–Raphson met a singular information matrix) and the MAP is the prior's mean:
  refused (:class:`~rankstats.errors.InvalidRankingsError`).  When only some rankings tie all
  their systems, they are named in a :class:`~rankstats.errors.DataWarning`.
* **A disconnected comparison graph** — groups of systems never compared with one another.
  The likelihood is unchanged when one group's log-worths are all shifted by a constant, so the
  data order systems within a group only.  The MLE refuses such data
  (:func:`rankstats.core.bradley_terry_mle.check_strongly_connected`); under the ``ZeroSumNormal``
  prior (``map``, ``nuts``) the prior alone pulls every group's mean log-worth to the same value, so
  the ranks *across* groups are the prior's, not the data's.  A ``DataWarning`` names the groups
  (the connected components of the undirected comparison graph), and the fit records them in
  ``fit.info["groups"]`` (``"{a, b}; {c, d}"``) and ``fit.info["n_groups"]``.
* **Systems in no comparison** (Plackett–Luce: ranked only in rankings that tie everything):
  their log-worth under ``map`` / ``nuts`` is the prior's; the warning says so.

The comparison graph has an edge ``i — j`` when the likelihood involves ``θ_i − θ_j``: for
Plackett–Luce, ``j`` in the risk set of a choice of ``i`` (members of one tie group above the
last place included); for Bradley–Terry, a win or (Davidson) a tie between them.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from rankstats._util.user_frame import user_stacklevel
from rankstats.errors import DataWarning, InvalidRankingsError, preview


@dataclass(frozen=True)
class Information:
    """The comparison graph of a prepared data set.

    Attributes
    ----------
    groups : tuple of tuple of str
        Connected components of the undirected comparison graph, largest first (systems in
        their data order inside each).
    isolated : tuple of str
        Systems in no comparison at all (singleton components).
    """

    groups: tuple[tuple[str, ...], ...]
    isolated: tuple[str, ...]

    @property
    def connected(self) -> bool:
        return len(self.groups) <= 1

    def label(self, limit: int = 8) -> str:
        """``"{a, b}; {c, d}"`` (at most ``limit`` groups, then a count)."""
        shown = ["{" + preview(g) + "}" for g in self.groups[:limit]]
        if len(self.groups) > limit:
            shown.append(f"... ({len(self.groups) - limit} more groups)")
        return "; ".join(shown)


def components(systems: tuple[str, ...], edges: np.ndarray) -> Information:
    """Connected components of the graph with an edge ``i — j`` where ``edges[i, j] > 0`` or
    ``edges[j, i] > 0`` (:func:`scipy.sparse.csgraph.connected_components`)."""
    n = len(systems)
    if n == 0:
        return Information((), ())
    _, label = connected_components(csr_matrix(edges > 0), directed=True, connection="weak")
    sizes = np.bincount(label)
    # largest first; equal sizes in the order of their first system
    first = np.full(len(sizes), n)
    np.minimum.at(first, label, np.arange(n))
    order = np.lexsort((first, -sizes))
    groups = tuple(tuple(systems[i] for i in np.flatnonzero(label == g)) for g in order)
    isolated = tuple(g[0] for g in groups if len(g) == 1) if len(groups) > 1 else ()
    return Information(groups, isolated)


def all_tied(ranks: np.ndarray, kind: str = "subset") -> np.ndarray:
    """Rankings of two or more systems that tie all of them (with ``kind="top_k"``, only when
    they also rank every system: a tied top group still beats the unranked)."""
    observed = ~np.isnan(ranks)
    n_obs = observed.sum(axis=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN rows
        spread = np.nanmax(ranks, axis=1) - np.nanmin(ranks, axis=1) if ranks.size else n_obs
    tied = (n_obs >= 2) & (spread == 0)
    if kind == "top_k":
        tied &= n_obs == ranks.shape[1]
    return tied


def no_rankings(n_given: int) -> InvalidRankingsError:
    """The error for data with no ranking of two or more systems."""
    if n_given == 0:
        return InvalidRankingsError(
            "no rankings to fit (an empty set of rankings: no task or instance scores two or "
            "more systems)"
        )
    return InvalidRankingsError(
        f"none of the {n_given} ranking(s) ranks two or more systems: no order information, "
        "nothing to fit"
    )


def require_order(rankings: Any) -> None:
    """Refuse rankings that are empty or all tie all their systems (Mallows: no consensus is
    more likely than another)."""
    if rankings.n_rankings == 0:
        raise no_rankings(0)
    if all_tied(rankings.ranks).all():
        raise InvalidRankingsError(
            f"no order information: every ranking ties all its systems ({rankings.n_rankings} "
            "ranking(s)), so no order of the systems is more likely than another; nothing to "
            "fit (were the scores all equal, or missing?)"
        )


def check(
    model: str,
    rankings: Any,
    n_choices: float,
    edges: np.ndarray,
    systems,
    kind: str,
    method: str,
    stacklevel: int | None = None,
) -> dict[str, Any]:
    """Refuse data without order information; report rankings that tie all their systems and,
    for ``map`` / ``nuts``, a disconnected comparison graph.  Returns the entries of
    ``fit.info`` that record what was found.

    Parameters
    ----------
    model : str
        ``"pl"`` or ``"bt"`` (wording only).
    rankings : Rankings or None
        The rankings the model was given (None for paired counts).
    n_choices : float
        Order-carrying terms of the likelihood: Plackett–Luce choices, Bradley–Terry wins.
    edges : ndarray (N, N)
        The comparison graph (see the module docstring).
    """
    tied = None
    if rankings is not None and rankings.n_rankings:
        tied = all_tied(rankings.ranks, kind)
    if n_choices <= 0:
        if tied is not None and tied.any():
            raise InvalidRankingsError(
                f"no order information: every ranking ties all its systems ({int(tied.sum())} "
                "ranking(s)), so no order of the systems is more likely than another; nothing "
                "to fit (were the scores all equal, or missing?)"
            )
        what = "comparison" if model == "bt" else "ranking"
        raise InvalidRankingsError(
            f"no order information: every {what} is a tie, so no order of the systems is more "
            "likely than another; nothing to fit"
        )
    info: dict[str, Any] = {}
    if tied is not None and tied.any():
        labels = rankings.rankers[tied].tolist()
        effect = (
            "they enter the tie parameter only"
            if model == "bt"
            else "their likelihood is 1 whatever the worths"
        )
        warnings.warn(
            f"{len(labels)} ranking(s) tie all their systems and carry no order information "
            f"({effect}): {preview(labels)}",
            DataWarning,
            stacklevel=stacklevel or user_stacklevel(),
        )
        info["n_all_tied"] = len(labels)
    graph = components(tuple(systems), edges)
    if graph.connected or method == "mle":  # the MLE refuses it (check_strongly_connected)
        return info
    message = (
        f"the systems fall into {len(graph.groups)} groups never compared with one another: "
        f"{graph.label()}. The data order the systems within a group only; across groups the "
        "prior alone orders them (it pulls every group to the same mean log-worth), so ranks "
        "and pairwise probabilities across groups are not supported by the data: rank each "
        "group on its own, or add comparisons between them"
    )
    if graph.isolated:
        message += (
            f". System(s) with no comparison at all: {preview(graph.isolated)} (their "
            "log-worth is the prior's mean, 0)"
        )
    warnings.warn(message, DataWarning, stacklevel=stacklevel or user_stacklevel())
    info["n_groups"] = len(graph.groups)
    info["groups"] = graph.label()
    return info


def caveat(fit: Any) -> str | None:
    """One sentence for outputs (report, CLI summary) when ``fit`` orders disconnected groups."""
    info = getattr(fit, "info", {}) or {}
    n = int(info.get("n_groups", 1) or 1)
    if n <= 1:
        return None
    return (
        f"the comparison graph has {n} groups never compared with one another "
        f"({info.get('groups', '')}): across groups the {fit.method} fit's order is the prior's, "
        "not the data's"
    )
