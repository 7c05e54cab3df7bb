r"""Maximum likelihood (and MAP) for Plackett–Luce in NumPy.

The log-likelihood is concave in the log-worths; it is maximised by the Newton–Raphson driver
shared with Bradley–Terry (:func:`rankstats.core.bradley_terry_mle.newton`), whose Hessian is also
the observed information that gives the standard errors.  (Hunter's (2004) MM algorithm and Maystre
& Grossglauser's (2015) iterative Luce spectral ranking converge linearly to the same maximum; here
every Newton iteration is a few vectorised passes over the padded rankings, so the exact Hessian
costs little more.)  Identification and the MAP penalty are as in
:mod:`rankstats.core.bradley_terry_mle`: the last system is fixed at 0 during the optimisation,
results are centred, and a Gaussian penalty ``−‖θ‖² / (2 s²)`` on the centred log-worths
(``ZeroSumNormal(s)``) gives the MAP.

The Bradley–Terry likelihood lives in :mod:`rankstats.core.bradley_terry_mle` (outside this package,
so that
:func:`rankstats.paired` uses it without importing the Bayesian stack).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from rankstats.core.firth import with_trace
from rankstats.models._data import PLData

_BLOCK = 2_000_000  # entries of the (rankings, K, K) temporaries per block


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


def _choice_weights(
    a: np.ndarray, inv: np.ndarray, group_start: np.ndarray, fraction: np.ndarray
) -> np.ndarray:
    """``v[l, t, q]``: the probability that choice ``t`` of ranking ``l`` picks position ``q``
    (its Efron coefficient times the worth over the denominator; 0 for non-choices)."""
    # coefficient of position q in the denominator of choice t (Efron 1977)
    later = group_start[:, None, :] > group_start[:, :, None]
    same = group_start[:, None, :] == group_start[:, :, None]
    coef = later + same * (1.0 - fraction)[:, :, None]
    return coef * a[:, None, :] * inv[:, :, None]


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
        v = _choice_weights(a, inv, gs, frac)
        expected += np.bincount(idx.ravel(), weights=v.sum(axis=1).ravel(), minlength=n + 1)
        outer = np.matmul(v.transpose(0, 2, 1), v)  # (l, q, r)
        flat = (idx[:, :, None] * (n + 1) + idx[:, None, :]).ravel()
        hess += np.bincount(flat, weights=outer.ravel(), minlength=(n + 1) * (n + 1))
    hess = hess.reshape(n + 1, n + 1)[:n, :n] - np.diag(expected[:n])
    return loglik, (grad - expected)[:n], hess


def pl_information_trace(data: PLData, theta: np.ndarray, b: np.ndarray) -> np.ndarray:
    r""":math:`\operatorname{tr}(B\,\partial I/\partial\theta_s)` for every system ``s``,
    :math:`I = -\nabla^2\ell` of :func:`pl_derivatives`, ``b`` symmetric (N × N): with
    :math:`B = I^{-1}`, twice the gradient of Firth's penalty (:mod:`rankstats.core.firth`).

    Choice ``t`` of a ranking is a multinomial logit over the positions ``q`` with
    probabilities :math:`v_{tq}` (Efron's weights are offsets, :func:`_choice_weights`) and
    design rows :math:`e_{i_q}`, so :math:`G = X B X^\top` is ``b`` among the ranking's
    systems and the trace is :math:`\sum_t\sum_q e_{i_q} v_{tq}(g_{tq} - \sum_r v_{tr}g_{tr})`,
    :math:`g_{tq} = B_{i_q i_q} - 2(Gv_t)_q`.  :math:`(Gv_t)_q = \sum_r B_{i_q i_r} v_{tr}`
    is a tail sum over the positions (the risk set from the choice's tie group on, Efron's
    coefficient within it), as the denominators of :func:`_pl_denominators`: O(K²) per
    ranking, in blocks of rankings.
    """
    n = data.n_systems
    a_all, x_all, _ = _pl_denominators(data, theta)
    padded = np.zeros((n + 1, n + 1))  # the padding slot N: no row, no column
    padded[:n, :n] = b
    diagonal = np.diag(padded)
    rows, width = data.index.shape
    out = np.zeros(n + 1)
    block = max(1, _BLOCK // max(width * width, 1))
    for lo in range(0, rows, block):
        sl = slice(lo, lo + block)
        a, term, idx = a_all[sl], data.term[sl], data.index[sl]
        gs, ge, frac = data.group_start[sl], data.group_end[sl], data.fraction[sl]
        inv = np.where(term, 1.0 / np.where(term, x_all[sl], 1.0), 0.0)
        v = _choice_weights(a, inv, gs, frac)  # (l, t, q)
        # tail[l, s, q] = Σ_{r ≥ s} B[i_q, i_r] a_r: the weighted sums over each risk set
        weighted = padded[idx[:, :, None], idx[:, None, :]] * a[:, None, :]
        tail = np.zeros((len(idx), width + 1, width))
        tail[:, :width] = np.cumsum(weighted[:, :, ::-1], axis=2)[:, :, ::-1].transpose(0, 2, 1)
        r = np.arange(len(idx))[:, None]
        efron = frac[:, :, None]  # tail[gs]: the tie group and below; tail[ge]: below it
        gv = inv[:, :, None] * ((1.0 - efron) * tail[r, gs] + efron * tail[r, ge])  # (G v_t)_q
        g = diagonal[idx][:, None, :] - 2.0 * gv
        h = v * (g - np.sum(v * g, axis=2, keepdims=True))
        out += np.bincount(idx.ravel(), weights=h.sum(axis=1).ravel(), minlength=n + 1)
    return out[:n]


def pl_ranking_scores(data: PLData, theta: np.ndarray) -> np.ndarray:
    r"""Score contribution of every ranking: :math:`\psi_r(\theta) = \partial \log
    P(\text{ranking } r \mid \theta) / \partial \theta`, shape ``(L, N)``.

    .. math:: \psi_{ri} = \sum_{\text{choices } t \text{ of } r} \Big[\mathbb 1(c_t = i)
              - \frac{m_{ti}\, e^{\theta_i}}{\sum_j m_{tj}\, e^{\theta_j}}\Big]

    with Efron's weights :math:`m_{tj}` (1 below the tie group of choice ``t``, ``1 − k/d`` in
    it, 0 elsewhere), exactly as in :func:`pl_loglik`; the rows sum to the gradient of
    :func:`pl_derivatives`.  Each row sums to zero over the systems (the likelihood depends on
    differences of log-worths only).  These are the contributions whose fluctuation the
    parameter-instability tests measure (Zeileis & Hornik 2007); vectorised over blocks of
    rankings.
    """
    n = data.n_systems
    a_all, x_all, _ = _pl_denominators(data, theta)
    rows, width = data.index.shape
    slot = np.arange(rows)[:, None] * (n + 1) + data.index  # (ranking, system) cell of an entry
    scores = np.bincount(slot[data.term], minlength=rows * (n + 1)).astype(np.float64)
    block = max(1, _BLOCK // max(width * width, 1))
    for lo in range(0, rows, block):
        sl = slice(lo, lo + block)
        term = data.term[sl]
        inv = np.where(term, 1.0 / np.where(term, x_all[sl], 1.0), 0.0)
        v = _choice_weights(a_all[sl], inv, data.group_start[sl], data.fraction[sl])
        cells = (min(lo + block, rows) - lo) * (n + 1)  # this block's (ranking, system) cells
        scores[lo * (n + 1) : lo * (n + 1) + cells] -= np.bincount(
            (slot[sl] - lo * (n + 1)).ravel(), weights=v.sum(axis=1).ravel(), minlength=cells
        )
    return scores.reshape(rows, n + 1)[:, :n]


def pl_beats(data: PLData) -> np.ndarray:
    """``beats[i, j] > 0`` when ``i`` was chosen with ``j`` in the risk set: ``i`` in an
    earlier group than ``j``, or in the same tie group above the last place (Efron's terms).

    The last group of a ranking makes no choice: its members are not compared with one another
    (a ranking that ties all its systems compares none), so they get no edge.
    """
    n = data.n_systems
    rows, width = data.index.shape
    beats = np.zeros((n + 1) ** 2, dtype=np.int64)
    block = max(1, _BLOCK // max(width * width, 1))  # rankings per block: bounded temporaries
    for lo in range(0, rows, block):
        sl = slice(lo, lo + block)
        idx, gs, term = data.index[sl], data.group_start[sl], data.term[sl]
        valid = idx < n
        ahead = (gs[:, :, None] <= gs[:, None, :]) & valid[:, :, None] & valid[:, None, :]
        ahead &= term[:, :, None]
        flat = (idx[:, :, None] * (n + 1) + idx[:, None, :])[ahead]
        beats += np.bincount(flat, minlength=(n + 1) ** 2)
    beats = beats.reshape(n + 1, n + 1)[:n, :n]
    np.fill_diagonal(beats, 0)
    return beats


def pl_objective(
    data: PLData, prior_scale: float | None
) -> Callable[[np.ndarray, bool], tuple[float, np.ndarray | None, np.ndarray | None]]:
    """PL log-likelihood (``prior_scale=None``) or log-posterior, for :func:`newton`, with the
    exact trace of Firth's penalty attached (:func:`pl_information_trace`)."""
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

    def trace(theta: np.ndarray, b: np.ndarray) -> np.ndarray:
        return pl_information_trace(data, theta, b)  # the prior's Hessian is constant

    return with_trace(function, trace)
