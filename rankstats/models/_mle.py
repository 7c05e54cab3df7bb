r"""Maximum likelihood (and MAP) for Plackett–Luce and Bradley–Terry in NumPy.

Both log-likelihoods are concave in the log-worths, so Newton–Raphson with a backtracking line
search converges in a handful of iterations; the Hessian it needs is also the observed information
that gives the standard errors.  (Hunter's (2004) MM algorithm and Maystre & Grossglauser's (2015)
iterative Luce spectral ranking converge linearly to the same maximum; here every Newton iteration
is a few vectorised passes over the padded rankings, so the exact Hessian costs little more.)

Identification: log-worths are defined up to a constant.  The optimisation fixes the last system
at 0; results are reported *centred* (sum to zero), with the covariance
``C Σ Cᵀ`` where ``Σ`` is the inverse observed information of the free parameters and
``C = I − 11ᵀ/N`` centres them.

A Gaussian penalty ``−‖θ‖² / (2 s²)`` on the centred log-worths (the density of
``ZeroSumNormal(s)``) and ``−λ² / (2 s_λ²)`` on the log tie parameter turn the MLE into the MAP of
the Bayesian models.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import networkx as nx
import numpy as np

from rankstats.errors import InvalidRankingsError, preview
from rankstats.models._data import PairCounts, PLData

_BLOCK = 2_000_000  # entries of the (rankings, K, K) temporaries per block


class MLEDoesNotExistError(InvalidRankingsError):
    """The likelihood has no maximum (the comparison graph is not strongly connected)."""


class ConvergenceError(RuntimeError):
    """Newton–Raphson did not converge."""


@dataclass(frozen=True)
class Optimum:
    """Result of :func:`newton`: parameters, log-objective, covariance of the centred parameters."""

    params: np.ndarray
    objective: float
    covariance: np.ndarray
    information: np.ndarray
    iterations: int


# ---------------------------------------------------------------------------- existence
def check_strongly_connected(systems: tuple[str, ...], beats: np.ndarray) -> None:
    """Raise :class:`MLEDoesNotExistError` unless the "beats" graph is strongly connected.

    ``beats[i, j] > 0`` when ``i`` was ranked above (or tied with) ``j`` at least once.  The MLE
    exists iff every system can be reached from every other along such edges (Hunter 2004,
    Assumption 1; Zermelo 1929).  The error names the groups that never lose to the rest and never
    win against the rest.
    """
    n = len(systems)
    graph = nx.DiGraph()
    graph.add_nodes_from(range(n))
    graph.add_edges_from(zip(*np.nonzero(beats > 0), strict=True))
    if n <= 1 or nx.is_strongly_connected(graph):
        return
    dag = nx.condensation(graph)
    components = sorted(dag.nodes, key=lambda c: -len(dag.nodes[c]["members"]))
    never_lose, never_win, isolated = [], [], []
    # The largest component is "the rest"; describe the others relative to it.
    for node in components[1:] if len(components) > 1 else components:
        members = sorted(systems[i] for i in dag.nodes[node]["members"])
        indeg, outdeg = dag.in_degree(node), dag.out_degree(node)
        label = "{" + preview(members) + "}" if len(members) > 1 else members[0]
        if indeg == 0 and outdeg == 0:
            isolated.append(label)
        elif indeg == 0:
            never_lose.append(label)
        elif outdeg == 0:
            never_win.append(label)
        else:
            never_lose.append(label + " (only beaten by some groups)")
    parts = []
    if never_win:
        parts.append("never beat (or tie) the others: " + "; ".join(never_win))
    if never_lose:
        parts.append("never lose to (or tie) the others: " + "; ".join(never_lose))
    if isolated:
        parts.append("never compared with the others: " + "; ".join(isolated))
    raise MLEDoesNotExistError(
        f"the maximum likelihood estimate does not exist: the comparison graph of {n} systems is "
        f"not strongly connected ({dag.number_of_nodes()} components). Systems that "
        + "; systems that ".join(parts)
        + ". Their worths would run off to ±infinity. Use method='map' or method='nuts', whose "
        "prior keeps the estimates finite, or add comparisons."
    )


# ---------------------------------------------------------------------------- driver
def newton(
    function: Callable[[np.ndarray, bool], tuple[float, np.ndarray | None, np.ndarray | None]],
    n_worths: int,
    n_extra: int = 0,
    tol: float = 1e-10,
    max_iter: int = 100,
) -> Optimum:
    """Maximise a concave ``function(params, derivatives) -> (value, gradient, hessian)``.

    ``params`` = ``n_worths`` log-worths (the last one is fixed at 0) followed by ``n_extra`` free
    parameters.  Newton steps with step halving until the objective does not decrease; stops when
    the largest step is below ``tol``.
    """
    size = n_worths + n_extra
    free = np.ones(size, dtype=bool)
    free[n_worths - 1] = False
    params = np.zeros(size)
    value, grad, hess = function(params, True)
    for iteration in range(1, max_iter + 1):
        g, h = grad[free], hess[np.ix_(free, free)]
        try:
            step = np.linalg.solve(-h, g)
        except np.linalg.LinAlgError as err:
            raise ConvergenceError(f"singular information matrix at iteration {iteration}") from err
        if not np.all(np.isfinite(step)):
            raise ConvergenceError(f"non-finite Newton step at iteration {iteration}")
        scale = 1.0
        while True:
            candidate = params.copy()
            candidate[free] += scale * step
            new_value = function(candidate, False)[0]
            if np.isfinite(new_value) and new_value >= value - 1e-12 * abs(value):
                break
            scale *= 0.5
            if scale < 1e-10:
                raise ConvergenceError(f"line search failed at iteration {iteration}")
        params = candidate
        value, grad, hess = function(params, True)
        if np.max(np.abs(scale * step)) < tol:
            break
    else:
        raise ConvergenceError(
            f"Newton–Raphson did not converge in {max_iter} iterations (last step "
            f"{np.max(np.abs(scale * step)):.2e})"
        )
    information = -hess
    cov_free = np.linalg.inv(information[np.ix_(free, free)])
    cov = np.zeros((size, size))
    cov[np.ix_(free, free)] = cov_free
    centre = np.eye(size)
    centre[:n_worths, :n_worths] -= 1.0 / n_worths
    params = centre @ params
    return Optimum(params, float(value), centre @ cov @ centre.T, information, iteration)


# ---------------------------------------------------------------------------- Plackett–Luce
def _pl_denominators(data: PLData, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """Worths ``a`` (L, K) at the positions and the Efron denominators ``x`` (L, K)."""
    shift = float(theta.max())
    worth = np.append(np.exp(theta - shift), 0.0)
    a = worth[data.index]
    rows, width = a.shape
    tail = np.zeros((rows, width + 1))
    tail[:, :width] = np.cumsum(a[:, ::-1], axis=1)[:, ::-1]
    r = np.arange(rows)[:, None]
    s = tail[r, data.group_start]
    e = tail[r, data.group_end]
    x = (1.0 - data.fraction) * s + data.fraction * e
    return a, x, shift


def pl_loglik(data: PLData, theta: np.ndarray) -> float:
    r"""Plackett–Luce log-likelihood with Efron's tie correction.

    .. math:: \ell(\theta) = \sum_{\text{choices}} \Big[\theta_{c} - \log\Big(\sum_{j \in R}
              e^{\theta_j} - \tfrac{k}{d} \sum_{j \in T} e^{\theta_j}\Big)\Big]

    for the ``k``-th (0-based) of the ``d`` members of tie group ``T`` with risk set ``R`` (the
    group and everything below it).  Without ties, ``d = 1`` and this is Plackett (1975).
    """
    _, x, shift = _pl_denominators(data, theta)
    theta_pad = np.append(theta, 0.0)
    chosen = theta_pad[data.index]
    safe = np.where(data.term, x, 1.0)
    with np.errstate(divide="ignore"):  # underflow in a line-search trial gives -inf: rejected
        return float(np.sum(np.where(data.term, chosen - shift - np.log(safe), 0.0)))


def pl_derivatives(data: PLData, theta: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """Log-likelihood, gradient and Hessian of :func:`pl_loglik` (blocks of rankings)."""
    n = data.n_systems
    a_all, x_all, shift = _pl_denominators(data, theta)
    theta_pad = np.append(theta, 0.0)
    rows, width = data.index.shape
    grad = np.bincount(data.index[data.term], minlength=n + 1).astype(np.float64)
    hess = np.zeros((n + 1) * (n + 1))
    expected = np.zeros(n + 1)
    loglik = 0.0
    block = max(1, _BLOCK // max(width * width, 1))
    for lo in range(0, rows, block):
        sl = slice(lo, lo + block)
        a, x, term = a_all[sl], x_all[sl], data.term[sl]
        gs, frac, idx = data.group_start[sl], data.fraction[sl], data.index[sl]
        inv = np.where(term, 1.0 / np.where(term, x, 1.0), 0.0)
        loglik += float(np.sum(np.where(term, theta_pad[idx] - shift + np.log(inv + ~term), 0.0)))
        # coefficient of position q in the denominator of choice t (Efron 1977)
        later = gs[:, None, :] > gs[:, :, None]
        same = gs[:, None, :] == gs[:, :, None]
        coef = later + same * (1.0 - frac)[:, :, None]
        v = coef * a[:, None, :] * inv[:, :, None]  # (l, t, q)
        expected += np.bincount(idx.ravel(), weights=v.sum(axis=1).ravel(), minlength=n + 1)
        outer = np.matmul(v.transpose(0, 2, 1), v)  # (l, q, r)
        flat = (idx[:, :, None] * (n + 1) + idx[:, None, :]).ravel()
        hess += np.bincount(flat, weights=outer.ravel(), minlength=(n + 1) * (n + 1))
    hess = hess.reshape(n + 1, n + 1)[:n, :n] - np.diag(expected[:n])
    return loglik, (grad - expected)[:n], hess


def pl_beats(data: PLData) -> np.ndarray:
    """``beats[i, j] > 0`` when ``i`` was in an earlier (or the same) group than ``j``."""
    n = data.n_systems
    idx, gs = data.index, data.group_start
    valid = idx < n
    ahead = (gs[:, :, None] <= gs[:, None, :]) & valid[:, :, None] & valid[:, None, :]
    ahead &= data.term[:, :, None] | (gs[:, :, None] == gs[:, None, :])
    flat = (idx[:, :, None] * (n + 1) + idx[:, None, :])[ahead]
    beats = np.bincount(flat, minlength=(n + 1) ** 2).reshape(n + 1, n + 1)[:n, :n]
    np.fill_diagonal(beats, 0)
    return beats


def pl_objective(
    data: PLData, prior_scale: float | None
) -> Callable[[np.ndarray, bool], tuple[float, np.ndarray | None, np.ndarray | None]]:
    """PL log-likelihood (``prior_scale=None``) or log-posterior, for :func:`newton`."""
    n = data.n_systems
    centre = np.eye(n) - 1.0 / n

    def function(theta: np.ndarray, derivatives: bool):
        if derivatives:
            value, grad, hess = pl_derivatives(data, theta)
        else:
            value, grad, hess = pl_loglik(data, theta), None, None
        if prior_scale is not None:
            c = theta - theta.mean()
            value -= 0.5 * float(c @ c) / prior_scale**2
            if derivatives:
                grad = grad - c / prior_scale**2
                hess = hess - centre / prior_scale**2
        return value, grad, hess

    return function


# ---------------------------------------------------------------------------- Bradley–Terry
def bt_terms(counts: PairCounts, params: np.ndarray, ties: bool):
    """Log-probabilities of win / loss / tie of every pair (Davidson 1970)."""
    theta = params[: counts.n_systems]
    ti, tj = theta[counts.item1], theta[counts.item2]
    if ties:
        tie = params[counts.n_systems] + 0.5 * (ti + tj)
        log_d = np.logaddexp(np.logaddexp(ti, tj), tie)
        return ti - log_d, tj - log_d, tie - log_d
    log_d = np.logaddexp(ti, tj)
    return ti - log_d, tj - log_d, None


def bt_loglik(counts: PairCounts, params: np.ndarray, ties: bool) -> float:
    r"""Bradley–Terry log-likelihood, with Davidson's (1970) ties when ``ties``.

    .. math:: P(i \succ j) = \frac{\pi_i}{\pi_i + \pi_j + \nu\sqrt{\pi_i\pi_j}}, \quad
              P(i \sim j) = \frac{\nu\sqrt{\pi_i\pi_j}}{\pi_i + \pi_j + \nu\sqrt{\pi_i\pi_j}}

    with ``π = exp(θ)`` and ``ν = exp(params[N])``; ``ν = 0`` without ties.
    """
    lw, ll_, lt = bt_terms(counts, params, ties)
    value = counts.wins1 @ lw + counts.wins2 @ ll_
    if ties:
        value += counts.ties @ lt
    return float(value)


def bt_derivatives(
    counts: PairCounts, params: np.ndarray, ties: bool
) -> tuple[float, np.ndarray, np.ndarray]:
    """Log-likelihood, gradient and Hessian: a multinomial logit per pair."""
    n = counts.n_systems
    size = n + int(ties)
    lw, ll_, lt = bt_terms(counts, params, ties)
    pa, pb = np.exp(lw), np.exp(ll_)
    pc = np.exp(lt) if ties else np.zeros_like(pa)
    w1, w2, t = counts.wins1, counts.wins2, counts.ties if ties else np.zeros_like(pa)
    m = w1 + w2 + t
    value = float(w1 @ lw + w2 @ ll_ + (t @ lt if ties else 0.0))
    i, j = counts.item1, counts.item2
    mi, mj = pa + 0.5 * pc, pb + 0.5 * pc
    grad = np.bincount(i, weights=w1 + 0.5 * t - m * mi, minlength=size)
    grad += np.bincount(j, weights=w2 + 0.5 * t - m * mj, minlength=size)
    # covariance of the feature vector: (i, i), (j, j), (i, j) and with the tie parameter
    cii = pa + 0.25 * pc - mi * mi
    cjj = pb + 0.25 * pc - mj * mj
    cij = 0.25 * pc - mi * mj
    rows = [i, j, i, j]
    cols = [i, j, j, i]
    vals = [cii, cjj, cij, cij]
    if ties:
        lam = np.full_like(i, n)
        cil = 0.5 * pc - mi * pc
        cjl = 0.5 * pc - mj * pc
        cll = pc - pc * pc
        rows += [i, lam, j, lam, lam]
        cols += [lam, i, lam, j, lam]
        vals += [cil, cil, cjl, cjl, cll]
        grad[n] = float(np.sum(t - m * pc))
    flat = np.concatenate([r * size + c for r, c in zip(rows, cols, strict=True)])
    weights = np.concatenate([m * v for v in vals])
    hess = -np.bincount(flat, weights=weights, minlength=size * size).reshape(size, size)
    return value, grad, hess


def bt_beats(counts: PairCounts) -> np.ndarray:
    """``beats[i, j] > 0`` when ``i`` beat or tied ``j`` at least once."""
    w, t = counts.matrices()
    return w + t


def bt_objective(
    counts: PairCounts, ties: bool, prior_scale: float | None, tie_prior_scale: float = 1.5
) -> Callable[[np.ndarray, bool], tuple[float, np.ndarray | None, np.ndarray | None]]:
    """Log-likelihood or log-posterior of the BT model (Davidson ties when ``ties``)."""
    n = counts.n_systems
    size = n + int(ties)
    centre = np.zeros((size, size))
    centre[:n, :n] = np.eye(n) - 1.0 / n

    def function(params: np.ndarray, derivatives: bool):
        if derivatives:
            value, grad, hess = bt_derivatives(counts, params, ties)
        else:
            value, grad, hess = bt_loglik(counts, params, ties), None, None
        if prior_scale is not None:
            c = np.zeros(size)
            c[:n] = params[:n] - params[:n].mean()
            value -= 0.5 * float(c @ c) / prior_scale**2
            if derivatives:
                grad = grad - c / prior_scale**2
                hess = hess - centre / prior_scale**2
            if ties:
                value -= 0.5 * params[n] ** 2 / tie_prior_scale**2
                if derivatives:
                    grad[n] -= params[n] / tie_prior_scale**2
                    hess[n, n] -= 1.0 / tie_prior_scale**2
        return value, grad, hess

    return function
