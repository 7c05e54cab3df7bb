r"""Many Bradley–Terry fits at once: a stack of count tables on the same pairs, one Newton solve.

A power simulation fits thousands of battle logs drawn from one design: the same ordered pairs,
different counts.  :func:`fit_bt_stack` fits them together — the log-likelihood, gradient and
Hessian of every log come from :func:`rankstats.core.bradley_terry_mle.bt_derivatives` (the one
implementation, here with a leading axis of fits), the Newton steps from
:func:`numpy.linalg.solve` on the stack of information matrices, and each fit has its own
step-halving line search and its own stopping rule, as
:func:`rankstats.core.bradley_terry_mle.newton` for one fit.  The results are those of
:func:`~rankstats.core.bradley_terry_mle.fit_bt` on each table (centred log-worths, the
covariance ``C Σ Cᵀ`` of the centred parameters), to the tolerance of the stopping rule.

Whether each MLE exists is decided first, as ``fit_bt`` decides it (Hunter 2004, Assumption 1:
the "beats or ties" graph is strongly connected), for the whole stack at once
(:func:`strongly_connected_stack`): by Boolean matrix squaring of the reachability matrices,
:math:`\lceil \log_2 N \rceil` batched products.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rankstats.core.bradley_terry_likelihood import Pairs, bt_derivatives, bt_loglik, n_params


@dataclass(frozen=True, eq=False)
class StackOptimum:
    """Result of :func:`fit_bt_stack` for ``R`` count tables.

    Attributes
    ----------
    params : ndarray, shape (R, size)
        Centred log-worths, then :math:`\\log\\nu` (ties), then :math:`\\eta` (order), as
        :attr:`rankstats.core.bradley_terry_mle.Optimum.params`; NaN where ``converged`` is False.
    covariance : ndarray, shape (R, size, size)
        Inverse observed information of the centred parameters (NaN where not converged).
    converged : ndarray of bool, shape (R,)
    """

    params: np.ndarray
    covariance: np.ndarray
    converged: np.ndarray


def _rows(pairs: Pairs, rows: np.ndarray) -> Pairs:
    return Pairs(
        pairs.n_systems,
        pairs.item1,
        pairs.item2,
        pairs.wins1[rows],
        pairs.wins2[rows],
        pairs.ties[rows],
        features=pairs.features,
    )


def fit_bt_stack(
    pairs: Pairs,
    start: np.ndarray,
    ties: bool,
    order: bool = False,
    tol: float = 1e-9,
    max_iter: int = 100,
) -> StackOptimum:
    """Bradley–Terry MLEs of a stack of count tables (``pairs.wins1`` etc. of shape (R, P)).

    Parameters
    ----------
    pairs : Pairs
        The pairs (``item1``, ``item2``: shape (P,)) and a stack of counts, shape (R, P).
    start : ndarray, shape (size,) or (R, size)
        Starting values (e.g. the true parameters of a simulation), in the layout of
        :func:`rankstats.core.bradley_terry_mle.fit_bt`.
    ties, order : bool
        Davidson's tie parameter; the order effect of ``item1`` (as ``fit_bt``).
    tol, max_iter
        A fit stops when its largest step is below ``tol``; one that has not stopped after
        ``max_iter`` steps, or whose line search fails, is reported as not converged.

    The caller checks that each MLE exists (:func:`strongly_connected_stack`).
    """
    n = pairs.n_systems
    count = pairs.wins1.shape[0]
    size = n_params(pairs, ties, order)
    free = np.ones(size, dtype=bool)
    free[n - 1] = False
    x = np.array(np.broadcast_to(start, (count, size)), dtype=np.float64)
    x[:, :n] -= x[:, [n - 1]]  # the last log-worth is the fixed one, as in newton()
    converged = np.zeros(count, dtype=bool)
    hess = np.full((count, size, size), np.nan)
    active = np.arange(count)
    value, grad, h = bt_derivatives(pairs, x, ties, order)
    hess[:] = h
    for _ in range(max_iter):
        if not len(active):
            break
        sub = _rows(pairs, active)
        g, hf = grad[active][:, free], hess[active][:, free][:, :, free]
        step = _solve(-hf, g)
        ok = np.all(np.isfinite(step), axis=1)
        accepted, moved = _line_search(sub, x[active], value[active], step, free, ties, order)
        ok &= np.isfinite(moved)
        x[active[ok]] = accepted[ok]
        done_now = ok & (moved < tol)
        failed = active[~ok]
        x[failed] = np.nan
        active = active[ok]
        value_a, grad_a, hess_a = bt_derivatives(_rows(pairs, active), x[active], ties, order)
        value[active], grad[active], hess[active] = value_a, grad_a, hess_a
        converged[active[done_now[ok]]] = True
        active = active[~done_now[ok]]
    x[active] = np.nan  # out of iterations
    information = -hess[:, free][:, :, free]
    cov = np.full((count, size, size), np.nan)
    good = np.flatnonzero(converged)
    cov_free = np.full((len(good), free.sum(), free.sum()), np.nan)
    if len(good):
        cov_free = np.linalg.inv(information[good])
    block = np.zeros((len(good), size, size))
    block[:, free[:, None] & free[None, :]] = cov_free.reshape(len(good), -1)
    centre = np.eye(size)
    centre[:n, :n] -= 1.0 / n
    cov[good] = centre @ block @ centre.T
    params = x @ centre.T
    params[~converged] = np.nan
    return StackOptimum(params, cov, converged)


def _solve(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """Newton steps of a stack; NaN for a singular information matrix (that fit fails)."""
    try:
        return np.linalg.solve(matrix, vector[..., None])[..., 0]
    except np.linalg.LinAlgError:
        out = np.full(vector.shape, np.nan)
        for k in range(len(vector)):  # rare: a singular matrix in the stack
            try:
                out[k] = np.linalg.solve(matrix[k], vector[k])
            except np.linalg.LinAlgError:
                pass
        return out


def _line_search(
    pairs: Pairs,
    x: np.ndarray,
    value: np.ndarray,
    step: np.ndarray,
    free: np.ndarray,
    ties: bool,
    order: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """Step halving per fit until the log-likelihood does not decrease (as ``newton``):
    the new parameters and the largest step taken (NaN where the search failed)."""
    scale = np.ones(len(x))
    accepted = x.copy()
    moved = np.full(len(x), np.nan)
    todo = np.all(np.isfinite(step), axis=1)
    safe = np.where(np.isfinite(step), step, 0.0)
    while todo.any():
        candidate = x.copy()
        candidate[:, free] += scale[:, None] * safe
        new_value = bt_loglik(pairs, candidate, ties, order)
        good = todo & np.isfinite(new_value) & (new_value >= value - 1e-12 * np.abs(value))
        accepted[good] = candidate[good]
        moved[good] = np.max(np.abs(scale[good, None] * safe[good]), axis=1)
        todo &= ~good
        scale = np.where(todo, 0.5 * scale, scale)
        todo &= scale >= 1e-10
    return accepted, moved


def strongly_connected_stack(n: int, pairs: Pairs) -> np.ndarray:
    """``(R,)`` bool: the "beats or ties" graph of each count table is strongly connected (its
    MLE exists; :func:`rankstats.core.bradley_terry_mle.check_strongly_connected`).

    ``i`` reaches ``j`` in one step when ``i`` beat or tied ``j`` at least once; the reachability
    matrix ``(R, N, N)`` is squared :math:`\\lceil \\log_2 N \\rceil` times.
    """
    count = pairs.wins1.shape[0]
    first = (pairs.wins1 + pairs.ties) > 0
    second = (pairs.wins2 + pairs.ties) > 0
    rows = np.arange(count)[:, None]
    cells = np.zeros((count, n * n), dtype=np.int64)
    np.add.at(cells, (rows, pairs.item1 * n + pairs.item2), first.astype(np.int64))
    np.add.at(cells, (rows, pairs.item2 * n + pairs.item1), second.astype(np.int64))
    reach = (cells.reshape(count, n, n) > 0) | np.eye(n, dtype=bool)
    for _ in range(max(1, int(np.ceil(np.log2(max(n, 2)))))):
        as_float = reach.astype(np.float32)
        reach = (as_float @ as_float) > 0
    return reach.all(axis=(1, 2))
