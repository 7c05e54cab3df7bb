"""Replicated data of the posterior predictive checks, one data set per parameter draw, with the
observation pattern of the observed data (:mod:`.predictive_checks`).

* Plackett–Luce: the Gumbel-max construction (Yellott 1977), the observed systems of each
  ranking sorted by :math:`\theta_i + G_i` with i.i.d. standard Gumbel :math:`G_i`.
* Mallows (Kendall): complete rankings by repeated insertion (Doignon, Pekeč & Regenwetter
  2004), restricted to each ranking's systems.
* Bradley–Terry (Davidson ties): binomial counts of independent comparisons of every compared
  pair.
"""

from __future__ import annotations

import numpy as np


def pl_replicate(
    log_worth: np.ndarray,
    observed: np.ndarray,
    rng: np.random.Generator,
    kind: str = "subset",
) -> np.ndarray:
    """Replicated Plackett–Luce rankings with the observation pattern ``observed``.

    Parameters
    ----------
    log_worth : ndarray, shape (S, N)
    observed : ndarray of bool, shape (L, N)
        Which systems each ranking ranks.
    kind : {"subset", "top_k"}
        ``subset``: each ranking orders its observed systems (Gumbel-max on them, exact by the
        choice axiom); ``top_k``: a ranking of all systems, of which the best ``k`` (the number
        observed) are kept.

    Returns
    -------
    ndarray, shape (S, L, N)
        Sort keys (smaller = better; ``inf`` = not ranked).
    """
    s, (n_rank, n) = log_worth.shape[0], observed.shape
    utility = log_worth[:, None, :] + rng.gumbel(size=(s, n_rank, n))
    if kind == "subset":
        return np.where(observed, -utility, np.inf)
    rank = np.argsort(np.argsort(-utility, axis=2), axis=2).astype(np.float64)
    k = observed.sum(axis=1)
    return np.where(rank < k[:, None], rank, np.inf)


def mallows_complete(
    position: np.ndarray, theta: np.ndarray, size: int, rng: np.random.Generator
) -> np.ndarray:
    r"""Complete Mallows (Kendall) rankings by repeated insertion, ``size`` per draw.

    The ``j``-th item of :math:`\sigma` (``j = 0..n-1``) is inserted among the ``j`` placed
    before it with ``V_j`` of them ending below it, :math:`P(V_j = v) \propto e^{-\theta v}`,
    ``v = 0..j`` (inverse transform of the truncated geometric); the Kendall distance to σ is
    :math:`\sum_j V_j`, which gives exactly :math:`P(\pi) \propto e^{-\theta d(\pi, \sigma)}`.

    Parameters
    ----------
    position : ndarray, shape (S, N)
        Position of each system in σ (1 = best; only the order matters).
    theta : ndarray, shape (S,)
    size : int

    Returns
    -------
    ndarray of int, shape (S, size, N)
        Position of each system in each ranking (0 = best; int16 when ``N < 32768``).
    """
    s, n = position.shape
    theta = np.asarray(theta, dtype=np.float64).reshape(s, 1, 1)
    j = np.arange(n, dtype=np.float64)
    u = rng.random((s, size, n))
    small = theta < 1e-10
    t = np.where(small, 1.0, theta)
    # P(V ≤ v) = (1 - q^(v+1)) / (1 - q^(j+1)), q = e^{-θ}: smallest v with CDF ≥ u.
    x = -np.log1p(u * np.expm1(-(j + 1) * t)) / t
    v = np.where(small, np.floor(u * (j + 1)), np.ceil(x) - 1)
    small_int = np.int16 if n < 2**15 else np.int64
    v = np.clip(v, 0, j).astype(small_int)
    slot_pos = np.zeros((s, size, n), dtype=small_int)  # by σ position
    for step in range(1, n):
        slot = step - v[:, :, step]
        before = slot_pos[:, :, :step]
        before += before >= slot[:, :, None]
        slot_pos[:, :, step] = slot
    sigma = np.argsort(position, axis=1, kind="stable")  # (S, N): system at σ position k
    out = np.empty_like(slot_pos)
    np.put_along_axis(out, np.broadcast_to(sigma[:, None, :], out.shape), slot_pos, axis=2)
    return out


def mallows_replicate(
    position: np.ndarray, theta: np.ndarray, observed: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """Replicated Mallows rankings: complete rankings restricted to each ranking's systems.

    Returns sort keys ``(S, L, N)`` (smaller = better; ``inf`` = not ranked).
    """
    complete = mallows_complete(position, theta, observed.shape[0], rng)
    return np.where(observed, complete.astype(np.float64), np.inf)


def bt_replicate(
    log_worth: np.ndarray,
    log_tie: np.ndarray | None,
    item1: np.ndarray,
    item2: np.ndarray,
    n: np.ndarray,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
    """Replicated Bradley–Terry (Davidson) comparisons: ``n[p]`` independent comparisons of
    each pair ``(item1[p], item2[p])``.

    Returns
    -------
    wins1, ties : ndarray of int, shape (S, P)
    """
    ta, tb = log_worth[:, item1], log_worth[:, item2]
    if log_tie is None:
        p_tie = np.zeros_like(ta)
        p_win = 1.0 / (1.0 + np.exp(tb - ta))
    else:
        tie = np.asarray(log_tie).reshape(-1, 1) + 0.5 * (ta + tb)
        top = np.maximum(np.maximum(ta, tb), tie)
        ea, eb, et = np.exp(ta - top), np.exp(tb - top), np.exp(tie - top)
        p_tie = et / (ea + eb + et)
        p_win = ea / (ea + eb)  # given no tie
    n = np.broadcast_to(n.astype(np.int64), ta.shape)
    ties = rng.binomial(n, p_tie)
    wins = rng.binomial(n - ties, p_win)
    return wins, ties
