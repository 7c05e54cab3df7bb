r"""Maximum likelihood (and MAP) for Plackett–Luce in NumPy.

The log-likelihood is concave in the log-worths.  Its gradient (:func:`pl_gradient`) and
Hessian–vector products (:func:`pl_hessian_product`) cost O(L·K) for ``L`` rankings padded to
width ``K`` — prefix and tail sums along each ranking (:func:`_exposure`, :func:`_risk_sum`)
accumulated onto the systems with ``np.bincount`` — and the exact Hessian (:func:`pl_derivatives`)
O(L·K²), in closed form per ranking (it was O(L·K³) through the dense choice probabilities of
every choice, which only the trace of Firth's penalty still forms).  The objective says so
(:func:`pl_hessian_cost`), and :func:`rankstats.core.bradley_terry_mle.newton` then takes inexact
Newton steps by conjugate gradients on the products, preconditioned by the last exact Hessian
(:mod:`rankstats.core.newton_krylov`): a fit computes about three Hessians, the last one at the
optimum, whose inverse gives the standard errors.  (Hunter's (2004) MM algorithm and Maystre &
Grossglauser's (2015) iterative Luce spectral ranking converge linearly to the same maximum.)
Identification and the MAP penalty are as in
:mod:`rankstats.core.bradley_terry_mle`: the last system is fixed at 0 during the optimisation,
results are centred, and a Gaussian penalty ``−‖θ‖² / (2 s²)`` on the centred log-worths
(``ZeroSumNormal(s)``) gives the MAP.

The Bradley–Terry likelihood lives in :mod:`rankstats.core.bradley_terry_mle` (outside this package,
so that
:func:`rankstats.paired` uses it without importing the Bayesian stack).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable

import numpy as np

from rankstats.core.firth import with_trace
from rankstats.core.newton_krylov import GRADIENT, with_hessian_cost
from rankstats.models._data import PLData

_BLOCK = 2_000_000  # entries of the (rankings, K, K) temporaries per block
_HESSIAN_BLOCK = 250_000  # the same for the Hessian (cache-sized: faster than larger blocks)


# ---------------------------------------------------------------------------- Plackett–Luce
def _pl_denominators(data: PLData, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """Worths ``a`` (L, K) at the positions and the Efron denominators ``x`` (L, K)."""
    shift = float(theta.max())
    worth = np.append(np.exp(theta - shift), 0.0)
    a = worth[data.index]
    return a, _risk_sum(data, a), shift


def _risk_sum(data: PLData, w: np.ndarray) -> np.ndarray:
    r""":math:`\sum_q c_{tq} w_q` for every choice ``t`` (L, K): ``w`` summed over the risk set,
    Efron's :math:`1 - f_t` on the members of the choice's tie group.  Tail sums along each
    ranking: O(K) per ranking (meaningless at the entries that are not choices)."""
    tail = np.cumsum(w[:, ::-1], axis=1)[:, ::-1]
    if _untied(data):  # every choice its own group: the tail sum at the choice itself
        return tail
    rows = w.shape[0]
    tail = np.concatenate([tail, np.zeros((rows, 1))], axis=1)
    r = np.arange(rows)[:, None]
    f = data.fraction
    return (1.0 - f) * tail[r, data.group_start] + f * tail[r, data.group_end]


_UNTIED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _untied(data: PLData) -> bool:
    """Whether no choice is tied (only the final group of a ranking may be: it makes no choice),
    when the sums over tie groups are plain cumulative sums; computed once per data set."""
    if data not in _UNTIED:
        _UNTIED[data] = not np.any((data.group_end - data.group_start > 1) & data.term)
    return _UNTIED[data]


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
    (its Efron coefficient times the worth over the denominator; 0 for non-choices).  O(K²) per
    ranking: only the trace of Firth's penalty (:func:`pl_information_trace`) needs it."""
    # coefficient of position q in the denominator of choice t (Efron 1977)
    later = group_start[:, None, :] > group_start[:, :, None]
    same = group_start[:, None, :] == group_start[:, :, None]
    coef = later + same * (1.0 - fraction)[:, :, None]
    return coef * a[:, None, :] * inv[:, :, None]


def _first_order(data: PLData, theta: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """Log-likelihood, ``a`` (L, K) worths at the positions and ``1 / x`` of every choice (0 at
    the other entries): what every derivative below starts from."""
    a, x, shift = _pl_denominators(data, theta)
    term = data.term
    chosen = np.append(theta, 0.0)[data.index[term]]
    with np.errstate(divide="ignore"):  # underflow in a line-search trial gives -inf: rejected
        value = float(chosen.sum() - shift * len(chosen) - np.log(x[term]).sum())
        inv = np.where(term, 1.0 / np.where(term, x, 1.0), 0.0)
    return value, a, inv


def _exposure(data: PLData, w: np.ndarray, within: np.ndarray) -> np.ndarray:
    r""":math:`\sum_t c_{tq} w_t` at every position ``q`` (``within`` = :math:`(1 - f_t) w_t`),
    ``w`` zero at the entries that are not choices: ``w`` summed over the choices of the earlier
    tie groups plus ``within`` over the choices of ``q``'s own group, :math:`c_{tq}` being
    Efron's coefficient of ``q`` in the denominator of choice ``t`` (1 below its tie group,
    :math:`1 - f_t` in it, 0 above).  Prefix sums along each ranking: O(K) per ranking."""
    if _untied(data):  # the choices up to q's (in the final group: all of them)
        return np.cumsum(w, axis=1)
    rows, width = w.shape
    r = np.arange(rows)[:, None]
    prefix = np.zeros((rows, width + 1))
    np.cumsum(w, axis=1, out=prefix[:, 1:])
    out = prefix[r, data.group_start]
    np.cumsum(within, axis=1, out=prefix[:, 1:])
    out += prefix[r, data.group_end] - prefix[r, data.group_start]
    return out


def _group_sum(data: PLData, w: np.ndarray) -> np.ndarray:
    """``w`` summed over the tie group of every position (prefix sums along each ranking)."""
    rows, width = w.shape
    r = np.arange(rows)[:, None]
    prefix = np.zeros((rows, width + 1))
    np.cumsum(w, axis=1, out=prefix[:, 1:])
    return prefix[r, data.group_end] - prefix[r, data.group_start]


def pl_gradient(data: PLData, theta: np.ndarray) -> tuple[float, np.ndarray]:
    r"""Log-likelihood and gradient of :func:`pl_loglik` in O(L·K).

    .. math:: \partial\ell/\partial\theta_i = \#\{\text{choices of } i\}
              - \sum_{(l, q):\, i_{lq} = i} a_{lq} \sum_t c_{tq} / x_t

    (:func:`_exposure`; Hunter's (2004) MM update divides the first term by the second's
    :math:`\sum a_{lq} \sum_t c_{tq}/x_t`), accumulated over the positions with ``np.bincount``.
    """
    value, a, inv = _first_order(data, theta)
    return value, _gradient(data, a, inv)[0]


def _gradient(data: PLData, a: np.ndarray, inv: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The gradient and the expected number of choices of every system."""
    n = data.n_systems
    at_position = a * _exposure(data, inv, (1.0 - data.fraction) * inv)
    expected = np.bincount(data.index.ravel(), weights=at_position.ravel(), minlength=n + 1)[:n]
    return np.bincount(data.index[data.term], minlength=n + 1)[:n] - expected, expected


def pl_hessian_product(data: PLData, theta: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    r"""``u ↦ ∇²ℓ(θ) u`` of :func:`pl_loglik` in O(L·K) per product.

    With :math:`v_{tq} = c_{tq} a_q / x_t` (:func:`pl_derivatives`),
    :math:`(\nabla^2\ell\, u) = \sum_t v_t (v_t^\top u) - \operatorname{diag}(\sum_t v_t) u`
    over the positions: :math:`v_t^\top u = \sum_q c_{tq} a_q u_q / x_t` is a sum over the
    risk set (:func:`_risk_sum`) and :math:`\sum_t v_{tq} (v_t^\top u)` an :func:`_exposure`,
    then ``np.bincount`` onto the systems.
    """
    n = data.n_systems
    _, a, inv = _first_order(data, theta)
    keep = 1.0 - data.fraction
    expected = a * _exposure(data, inv, keep * inv)
    flat = data.index.ravel()

    def product(u: np.ndarray) -> np.ndarray:
        at = np.append(u, 0.0)[data.index]
        s = inv * _risk_sum(data, a * at)
        back = a * _exposure(data, inv * s, keep * inv * s) - expected * at
        return np.bincount(flat, weights=back.ravel(), minlength=n + 1)[:n]

    return product


def pl_derivatives(data: PLData, theta: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    r"""Log-likelihood, gradient and Hessian of :func:`pl_loglik`.

    Choice ``t`` picks position ``q`` with probability :math:`v_{tq} = c_{tq} a_q / x_t`, so
    :math:`\nabla^2\ell = \sum_t (v_t v_t^\top - \operatorname{diag} v_t)` and, per ranking,

    .. math:: \sum_t v_{tq} v_{tr} = a_q a_r \Big[\min(E_q, E_r)
              - [g_q = g_r] \sum_{t \in g_q} f_t (1 - f_t) / x_t^2\Big],
              \qquad E_q = \sum_t c_{tq} / x_t^2

    (:func:`_exposure` of :math:`1/x^2`, non-decreasing along the ranking; :math:`g_q` the tie
    group of ``q``, Efron's :math:`f_t = k/d`): O(K) prefix sums and one O(K²) outer
    expression per ranking, added into the N × N matrix with ``np.bincount``, in blocks of
    rankings.  (The dense :math:`v` would cost O(K³) per ranking.)
    """
    n = data.n_systems
    value, a_all, inv = _first_order(data, theta)
    grad, expected = _gradient(data, a_all, inv)
    square = inv * inv
    e_all = _exposure(data, square, (1.0 - data.fraction) * square)
    ties = not _untied(data)
    tied = _group_sum(data, data.fraction * (1.0 - data.fraction) * square) if ties else None
    rows, width = data.index.shape
    hess = np.zeros((n + 1) * (n + 1))
    # blocks of at least 2 (N + 1)² entries: each bincount returns (N + 1)² cells
    entries = max(_HESSIAN_BLOCK, 2 * (n + 1) ** 2)
    block = max(1, entries // max(width * width, 1))
    for lo in range(0, rows, block):
        sl = slice(lo, lo + block)
        a, e, idx = a_all[sl], e_all[sl], data.index[sl]
        outer = np.minimum(e[:, :, None], e[:, None, :])
        if tied is not None:
            gs = data.group_start[sl]
            outer -= (gs[:, :, None] == gs[:, None, :]) * tied[sl][:, :, None]
        outer *= a[:, :, None]
        outer *= a[:, None, :]
        flat = idx[:, :, None] * (n + 1) + idx[:, None, :]
        hess += np.bincount(flat.ravel(), weights=outer.ravel(), minlength=(n + 1) * (n + 1))
    # Σ_t diag(v_t): the expected number of choices of every system
    return value, grad, hess.reshape(n + 1, n + 1)[:n, :n] - np.diag(expected)


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
    parameter-instability tests measure (Zeileis & Hornik 2007); O(L·K) prefix sums
    (:func:`_exposure`).
    """
    n = data.n_systems
    _, a, inv = _first_order(data, theta)
    at_position = a * _exposure(data, inv, (1.0 - data.fraction) * inv)  # as in _gradient
    rows = data.index.shape[0]
    slot = np.arange(rows)[:, None] * (n + 1) + data.index  # (ranking, system) cell of an entry
    cells = rows * (n + 1)
    scores = np.bincount(slot[data.term], minlength=cells) - np.bincount(
        slot.ravel(), weights=at_position.ravel(), minlength=cells
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

    def function(theta: np.ndarray, derivatives: bool | str):
        if derivatives == GRADIENT:  # the Hessian as a product (rankstats.core.newton_krylov)
            (value, grad), hess = pl_gradient(data, theta), pl_hessian_product(data, theta)
        elif derivatives:
            value, grad, hess = pl_derivatives(data, theta)
        else:
            value, grad, hess = pl_loglik(data, theta), None, None
        if prior_scale is not None:
            c = theta - theta.mean()
            value -= 0.5 * float(c @ c) / prior_scale**2
            if grad is not None:
                grad = grad - c / prior_scale**2
            if callable(hess):
                hess = _with_prior(hess, prior_scale)
            elif hess is not None:
                hess = hess - centre / prior_scale**2
        return value, grad, hess

    def trace(theta: np.ndarray, b: np.ndarray) -> np.ndarray:
        return pl_information_trace(data, theta, b)  # the prior's Hessian is constant

    return with_hessian_cost(with_trace(function, trace), pl_hessian_cost(data))


def _with_prior(product: Callable, prior_scale: float) -> Callable[[np.ndarray], np.ndarray]:
    """The product of the log-posterior's Hessian: the prior's is minus the centring over s²."""
    return lambda u: product(u) - (u - u.mean()) / prior_scale**2


def pl_hessian_cost(data: PLData) -> float:
    """What :func:`pl_derivatives` and the factorisation of its ``N × N`` Hessian cost, in
    products of :func:`pl_hessian_product` (measured): O(L·K²) and O(N³) against O(L·K), for
    the padded width ``K``."""
    rows, width = data.shape
    return 3.0 + width / 7.0 + data.n_systems**3 / (3000.0 * rows * width)
