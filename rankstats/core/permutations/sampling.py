r"""Rankings drawn from the Mallows model with any distance of
:mod:`rankstats.core.permutations.distances`, in BayesMallows' parametrisation
:math:`P(r \mid \rho, \alpha) \propto e^{-\alpha\, d(r, \rho) / n}`.

Every distance is right-invariant, so a draw is :math:`r = \pi \circ \rho` with π drawn around
the identity: ``r[item] = π[ρ[item] − 1]``. π is drawn

- **exactly** for Kendall's distance at any ``n``, by repeated insertion (:func:`insertion_ranks`;
  Doignon et al. 2004), and for every distance up to :data:`ENUMERATED` items, by the inverse
  CDF over all ``n!`` permutations;
- **by Metropolis–Hastings** otherwise: ``size`` independent chains started at the identity,
  all advanced at once, each step proposing to swap the items at two adjacent ranks (a
  symmetric proposal) and accepting with :math:`\min(1, e^{-\alpha \Delta d / n})`; after
  ``steps`` steps (default :func:`default_steps`) each chain's state is one draw, as BayesMallows'
  ``sample_mallows`` does with its burn-in. Adjacent swaps connect all permutations, so the
  chains converge to the model; the tests compare their draws with the exact distribution.

Doignon, J.-P., Pekeč, A. and Regenwetter, M. (2004). The repeated insertion model for rankings.
*Psychometrika* 69(1), 33–54.
"""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np

from rankstats.core.permutations.distances import check_distance, row_distances

#: Up to this many items every distance is sampled exactly, from all ``n!`` permutations.
ENUMERATED = 8


def insertion_ranks(n: int, theta: float, size: int, rng: np.random.Generator) -> np.ndarray:
    r"""``(size, n)`` 0-based ranks of the consensus positions ``0 … n − 1`` under the Mallows
    model with Kendall distance and dispersion θ, by repeated insertion.

    Item ``j`` of the centre is inserted among the ``j − 1`` before it with ``V_j`` of them ending
    up after it, :math:`P(V_j = v) \propto q^v`, :math:`q = e^{-\theta}`, ``v = 0 … j − 1``; the
    distance is :math:`\sum_j V_j`. The codes are drawn for all rankings at once by inverse
    transform (one ``rng.random((size, n))``); the loop runs over the ``n`` insertion steps.
    """
    q = np.exp(-theta)
    j = np.arange(1, n + 1)
    u = rng.random((size, n))
    # Inverse CDF of the truncated geometric on 0..j-1: P(V ≤ v) = (1 - q^(v+1)) / (1 - q^j).
    v = np.floor(np.log1p(-u * (1 - q**j)) / np.log(q)).astype(np.int64)
    v = np.clip(v, 0, j - 1)
    position = np.zeros((size, n), dtype=np.int64)
    for step in range(1, n):
        slot = step - v[:, step]  # v of the earlier items end up after the new one
        before = position[:, :step]
        before += before >= slot[:, None]
        position[:, step] = slot
    return position


def default_steps(n: int) -> int:
    """Metropolis steps per draw: ``20 n²`` (at least 1,000) adjacent-swap proposals."""
    return max(1_000, 20 * n * n)


def sample_mallows(
    rho: np.ndarray,
    alpha: float,
    distance: str,
    size: int,
    rng: np.random.Generator,
    *,
    method: str = "auto",
    steps: int | None = None,
) -> np.ndarray:
    """``size`` rank vectors drawn from the Mallows model around ``rho`` (a rank vector).

    Parameters
    ----------
    rho : array-like, shape (n,)
        The consensus ranks (a permutation of ``1 … n``).
    alpha : float
        Scale α ≥ 0 (0: uniform).
    distance : str
    size : int
    rng : numpy.random.Generator
    method : {"auto", "exact", "metropolis"}
        ``"auto"``: exact where :func:`sample_mallows` can (module docstring), else Metropolis.
    steps : int, optional
        Metropolis steps per draw (default :func:`default_steps`).

    Returns
    -------
    ndarray of int64, shape (size, n)
    """
    check_distance(distance)
    rho = np.asarray(rho, dtype=np.int64)
    n = len(rho)
    if sorted(rho.tolist()) != list(range(1, n + 1)):
        raise ValueError(f"rho must be a permutation of 1 … {n}, not {rho.tolist()}")
    if not (math.isfinite(alpha) and alpha >= 0):
        raise ValueError(f"alpha must be finite and ≥ 0, not {alpha!r}")
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 1:
        raise ValueError(f"size must be a whole number ≥ 1, not {size!r}")
    if steps is not None and (not isinstance(steps, (int, np.integer)) or steps < 1):
        raise ValueError(f"steps must be a whole number ≥ 1, not {steps!r}")
    if method not in ("auto", "exact", "metropolis"):
        raise ValueError(f"method must be 'auto', 'exact' or 'metropolis', not {method!r}")
    exact = distance == "kendall" or n <= ENUMERATED
    if method == "exact" and not exact:
        raise ValueError(
            f"no exact sampler of the {distance} model for {n} items here (exact: Kendall, or "
            f"at most {ENUMERATED} items); use method='metropolis'"
        )
    if method != "metropolis" and exact:
        if distance == "kendall" and alpha > 0:
            pi = insertion_ranks(n, alpha / n, size, rng) + 1
        else:
            pi = _enumerated(n, alpha, distance, size, rng)
    else:
        pi = metropolis_draws(n, alpha, distance, size, rng, steps or default_steps(n))
    return pi[:, rho - 1]


@functools.lru_cache(maxsize=16)
def all_permutations(n: int) -> np.ndarray:
    """Every permutation of ``1 … n`` as rows, in lexicographic order (cached, read-only)."""
    out = np.array(list(itertools.permutations(range(1, n + 1))), dtype=np.int64)
    out.setflags(write=False)
    return out


def _enumerated(
    n: int, alpha: float, distance: str, size: int, rng: np.random.Generator
) -> np.ndarray:
    perms = all_permutations(n)
    d = row_distances(perms, np.arange(1, n + 1), distance).astype(np.float64)
    weight = np.exp(-alpha / n * (d - d.min()))
    cumulative = np.cumsum(weight)
    pick = np.searchsorted(cumulative, rng.random(size) * cumulative[-1], side="right")
    return perms[np.minimum(pick, len(perms) - 1)].copy()


def metropolis_draws(
    n: int,
    alpha: float | np.ndarray,
    distance: str,
    size: int,
    rng: np.random.Generator,
    steps: int,
) -> np.ndarray:
    """``size`` chains of adjacent swaps around the identity, advanced together, each at the
    dispersion ``alpha`` — one for all, or one per chain ``(size,)`` (a posterior predictive
    draw per posterior draw: :mod:`rankstats.models.mallows.predictive`). Returns each chain's
    state after ``steps`` steps, ``(size, n)`` ranks.

    For the footrule, Spearman and Hamming distances a swap changes only the two items' terms of
    the distance, so its change is computed from them (O(1) per chain and step); for the others
    the proposal's distance is computed whole. Both give the same integers, so the same chains.
    """
    identity = np.arange(1, n + 1)
    state = np.broadcast_to(identity, (size, n)).copy()  # state[c, item] = its rank
    # items_at[c, r]: the item at rank r + 1 of chain c (the inverse of state)
    items_at = np.broadcast_to(np.arange(n), (size, n)).copy()
    current = row_distances(state, identity, distance)
    rows = np.arange(size)
    c = alpha / n
    local = _SWAP_TERM.get(distance)
    for _ in range(steps):  # a Markov chain per row: the steps run one after the other
        rank = rng.integers(0, n - 1, size=size)  # swap the items at ranks rank + 1, rank + 2
        a, b = items_at[rows, rank], items_at[rows, rank + 1]
        if local is not None:
            # a moves from rank + 1 to rank + 2, b the other way; their own ranks are a + 1, b + 1
            change = local(rank + 1 - a) + local(rank - b) - local(rank - a) - local(rank + 1 - b)
            accept = np.log(rng.random(size)) < -c * change
            moved = rows[accept]
            state[moved, a[accept]] += 1
            state[moved, b[accept]] -= 1
        else:
            proposal = state.copy()
            proposal[rows, a] += 1
            proposal[rows, b] -= 1
            new = row_distances(proposal, identity, distance)
            accept = np.log(rng.random(size)) < -c * (new - current)
            state[accept] = proposal[accept]
            current = np.where(accept, new, current)
            moved = rows[accept]
        items_at[moved, rank[accept]], items_at[moved, rank[accept] + 1] = (
            b[accept],
            a[accept],
        )
    return state


#: The term of one item in the distances that are sums over items, as a function of the gap
#: between its rank and its reference rank.
_SWAP_TERM = {
    "footrule": np.abs,
    "spearman": np.square,
    "hamming": lambda gap: (gap != 0).astype(np.int64),
}
