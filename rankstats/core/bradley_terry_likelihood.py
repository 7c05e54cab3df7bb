r"""The Bradley–Terry likelihood (Davidson ties, an order effect, per-row covariates) and the
paired counts it is computed from: the one implementation behind every Bradley–Terry fit of
rankstats (:mod:`rankstats.core.bradley_terry_mle` for one fit, :mod:`rankstats.core.
bradley_terry_stack` for many, the battles of :mod:`rankstats.battles.fitting`).

Model (Bradley & Terry 1952; ties after Davidson 1970; order effect after Agresti 2002,
§10.6.1), for a row (a pair's counts, or one battle) with ``item1`` shown first:

.. math::

    t_1 = \theta_{item1} + \eta + \gamma^\top z, \quad t_2 = \theta_{item2}, \quad
    P(1) = \frac{e^{t_1}}{D}, \; P(2) = \frac{e^{t_2}}{D}, \;
    P(\text{tie}) = \frac{\nu e^{(t_1 + t_2)/2}}{D}

with :math:`z` the row's covariates (style control: the difference in answer length, in
formatting, ...; Chiang et al. 2024's arena leaderboards) and :math:`\gamma` their effects.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from rankstats.core.firth import choice_terms


@dataclass(frozen=True, eq=False, repr=False)
class Pairs:
    r"""Paired-comparison counts, one entry per compared pair ``item1 < item2`` (per *ordered*
    pair, ``item1`` shown first, with ``order=True`` in the functions below).

    The one type of pair counts: the MLE here, the battles and the Bradley–Terry model
    (``systems`` names the items; :meth:`named` builds counts from names).

    Attributes
    ----------
    n_systems : int
    item1, item2 : ndarray of int, shape (P,)
        System indices (``item1 < item2`` for unordered pairs).
    wins1, wins2, ties : ndarray of float, shape (P,)
        Times item1 beat item2, item2 beat item1, and ties.
    systems : tuple of str
        The names of the systems, in index order; empty for unnamed counts (the bootstrap
        makes thousands), whose :meth:`to_frame` then names them ``"0", "1", ...``.
    features : ndarray, shape (P, K), optional
        Covariates of each row (a battle, with style control) entering the log-worth of
        ``item1``: :math:`\theta_{item1} + \gamma^\top z` (:func:`feature_matrix`).
    """

    n_systems: int
    item1: np.ndarray
    item2: np.ndarray
    wins1: np.ndarray
    wins2: np.ndarray
    ties: np.ndarray
    systems: tuple[str, ...] = ()
    features: np.ndarray | None = None

    @classmethod
    def named(
        cls,
        systems: Sequence[str],
        item1: np.ndarray,
        item2: np.ndarray,
        wins1: np.ndarray,
        wins2: np.ndarray,
        ties: np.ndarray,
    ) -> Pairs:
        """Counts of the named ``systems`` (the argument order of ``PairCounts``)."""
        systems = tuple(systems)
        return cls(len(systems), item1, item2, wins1, wins2, ties, systems)

    @property
    def has_ties(self) -> bool:
        return bool(np.any(self.ties > 0))

    def to_frame(self) -> pd.DataFrame:
        """``item1, item2, wins1, wins2, ties`` with system names."""
        systems = self.systems or tuple(str(k) for k in range(self.n_systems))
        names = np.array(systems, dtype=object)
        return pd.DataFrame(
            {
                "item1": names[self.item1],
                "item2": names[self.item2],
                "wins1": self.wins1,
                "wins2": self.wins2,
                "ties": self.ties,
            }
        )

    def matrices(self) -> tuple[np.ndarray, np.ndarray]:
        """``(W, T)``: ``W[i, j]`` = wins of i over j, ``T`` = symmetric tie counts."""
        n = self.n_systems
        w = np.zeros((n, n))
        t = np.zeros((n, n))
        np.add.at(w, (self.item1, self.item2), self.wins1)
        np.add.at(w, (self.item2, self.item1), self.wins2)
        np.add.at(t, (self.item1, self.item2), self.ties)
        return w, t + t.T

    def __repr__(self) -> str:
        total = self.wins1.sum() + self.wins2.sum() + self.ties.sum()
        return (
            f"{type(self).__name__}({self.n_systems} systems, {len(self.item1)} pairs, "
            f"{total:g} comparisons, {self.ties.sum():g} ties)"
        )


def pairs_from_matrices(wins: np.ndarray, ties: np.ndarray | None = None) -> Pairs:
    """The compared pairs ``i < j`` of ``wins[i, j]`` (i beat j) and symmetric ``ties[i, j]``."""
    n = wins.shape[0]
    ties = np.zeros_like(wins) if ties is None else ties
    i, j = np.triu_indices(n, k=1)
    keep = (wins[i, j] + wins[j, i] + ties[i, j]) > 0
    i, j = i[keep], j[keep]
    return Pairs(n, i, j, wins[i, j], wins[j, i], ties[i, j])


# ---------------------------------------------------------------------------- Bradley–Terry
def feature_matrix(counts: Pairs, order: bool) -> np.ndarray | None:
    r"""The columns added to the log-worth of ``item1``: a column of ones for the order effect
    (``order``), then the rows' covariates (``counts.features``); None without either.

    Their coefficients follow the log-worths and the tie parameter in ``params``: the order
    effect :math:`\eta` is the coefficient of a constant covariate."""
    columns = []
    if order:
        columns.append(np.ones((len(counts.item1), 1)))
    if counts.features is not None:
        columns.append(np.asarray(counts.features, dtype=np.float64).reshape(len(counts.item1), -1))
    if not columns:
        return None
    return columns[0] if len(columns) == 1 else np.hstack(columns)


def n_params(counts: Pairs, ties: bool, order: bool) -> int:
    """Length of ``params``: log-worths, the tie parameter, the order effect, the covariates."""
    extra = (
        0 if counts.features is None else counts.features.reshape(len(counts.item1), -1).shape[1]
    )
    return counts.n_systems + int(ties) + int(order) + extra


def bt_terms(
    counts: Pairs,
    params: np.ndarray,
    ties: bool,
    order: bool = False,
    features: np.ndarray | None = None,
):
    r"""Log-probabilities of win / loss / tie of every pair (Davidson 1970).

    With ``order``, ``item1`` is the one shown first and its log advantage
    :math:`\eta = \log h` (Agresti 2002, §10.6.1: home advantage) is added to its log-worth;
    with covariates (``counts.features``), :math:`\gamma^\top z` too (style control).
    ``params`` may have leading axes (a stack of fits, :mod:`rankstats.core.bradley_terry_stack`),
    and the counts then the same leading axes; ``features`` is :func:`feature_matrix`, when the
    caller has it already.
    """
    n = counts.n_systems
    theta = params[..., :n]
    ti, tj = theta[..., counts.item1], theta[..., counts.item2]
    f = feature_matrix(counts, order) if features is None else features
    if f is not None:
        beta = params[..., n + int(ties) :]
        ti = ti + (f @ beta if beta.ndim == 1 else beta @ f.T)
    if ties:
        tie = params[..., n, None] + 0.5 * (ti + tj)
        log_d = np.logaddexp(np.logaddexp(ti, tj), tie)
        return ti - log_d, tj - log_d, tie - log_d
    # log P(1) = −softplus(t2 − t1), log P(2) = −softplus(t1 − t2), sharing log1p(e^−|d|):
    # vectorised, 5 times faster than np.logaddexp (a scalar loop), and neither log-probability
    # is the difference of two large numbers
    d = tj - ti
    tail = np.log1p(np.exp(-np.abs(d)))
    return -(np.maximum(d, 0.0) + tail), -(np.maximum(-d, 0.0) + tail), None


def bt_loglik(
    counts: Pairs,
    params: np.ndarray,
    ties: bool,
    order: bool = False,
    terms: tuple | None = None,
) -> float:
    r"""Bradley–Terry log-likelihood, with Davidson's (1970) ties when ``ties``.

    .. math:: P(i \succ j) = \frac{\pi_i}{\pi_i + \pi_j + \nu\sqrt{\pi_i\pi_j}}, \quad
              P(i \sim j) = \frac{\nu\sqrt{\pi_i\pi_j}}{\pi_i + \pi_j + \nu\sqrt{\pi_i\pi_j}}

    with ``π = exp(θ)`` and ``ν = exp(params[N])``; ``ν = 0`` without ties.  With ``order``
    (ordered pairs: ``item1`` shown first), :math:`\pi_i` becomes :math:`h\pi_i`, and with
    covariates :math:`\pi_i e^{\gamma^\top z}` (:func:`bt_terms`; ``terms``: its result at
    ``params``, when the caller has it already).
    """
    lw, ll_, lt = bt_terms(counts, params, ties, order) if terms is None else terms
    value = _inner(counts.wins1, lw) + _inner(counts.wins2, ll_)
    if ties:
        value += _inner(counts.ties, lt)
    return float(value) if np.ndim(value) == 0 else value


def _inner(counts: np.ndarray, values: np.ndarray) -> np.ndarray | float:
    """Sum over the pairs (the last axis) of counts × values; a dot product for one fit."""
    if np.ndim(counts) == 1 and np.ndim(values) == 1:
        return counts @ values
    return np.einsum("...p,...p->...", counts, values)


def _scatter(index: np.ndarray, weights: np.ndarray, length: int) -> np.ndarray:
    """``np.bincount(index, weights, length)`` along the last axis of ``weights`` (a stack of
    fits: one bincount over offset indices, the cells summed in the same order)."""
    if weights.ndim == 1:
        return np.bincount(index, weights=weights, minlength=length)
    rows = int(np.prod(weights.shape[:-1]))
    flat = (index + length * np.arange(rows)[:, None]).ravel()
    out = np.bincount(flat, weights=weights.reshape(rows, -1).ravel(), minlength=rows * length)
    return out.reshape(*weights.shape[:-1], length)


@dataclass(frozen=True)
class HessianIndex:
    """Where :func:`bt_derivatives` adds each term of the Hessian (:func:`hessian_index`).

    ``block``: flat cell ``row · N + column`` of the log-worth block for the terms (i, i),
    (j, j), (i, j), (j, i) of every pair; ``tie``: the row of the tie column for the terms of
    every pair (i, j, then the tie row; the column of the tie parameter is its row, the Hessian
    being symmetric term by term); ``features``: :func:`feature_matrix` (the order effect's
    column of ones and the covariates). With them, what does not change from one Newton step to
    the next: ``ties`` (the ties, or zeros without the tie parameter), ``total`` (battles of
    the pair), ``score1`` / ``score2`` (wins of item1 / item2 plus half the ties).
    """

    block: np.ndarray
    tie: np.ndarray | None
    features: np.ndarray | None
    ties: np.ndarray
    total: np.ndarray
    score1: np.ndarray
    score2: np.ndarray


def hessian_index(counts: Pairs, ties: bool, order: bool = False) -> HessianIndex:
    """Hessian cells of every term :func:`bt_derivatives` adds (:class:`HessianIndex`).

    It depends on the pairs only, not on the parameters: a fit computes it once
    (:func:`bt_objective`) instead of at every Newton step.  Each cell sums its terms one after
    the other in the order of the pairs (``np.bincount``), so the sums do not depend on how
    the cells are grouped into the bincounts.
    """
    n = counts.n_systems
    i = np.asarray(counts.item1, dtype=np.int64)
    j = np.asarray(counts.item2, dtype=np.int64)
    block = np.concatenate([i * (n + 1), j * (n + 1), i * n + j, j * n + i])
    tie = np.concatenate([i, j, np.full_like(i, n)]) if ties else None
    w1, w2 = counts.wins1, counts.wins2
    t = counts.ties if ties else np.zeros_like(w1, dtype=float)
    features = feature_matrix(counts, order)
    return HessianIndex(block, tie, features, t, w1 + w2 + t, w1 + 0.5 * t, w2 + 0.5 * t)


def bt_derivatives(
    counts: Pairs,
    params: np.ndarray,
    ties: bool,
    order: bool = False,
    index: HessianIndex | None = None,
    terms: tuple | None = None,
) -> tuple[float, np.ndarray, np.ndarray]:
    """Log-likelihood, gradient and Hessian: a multinomial logit per pair.

    The order effect and the covariates (the columns :math:`f` of :func:`feature_matrix`) enter
    like the log-worth of ``item1`` times :math:`f`, so their gradient is the residual of
    ``item1`` summed against :math:`f`, and their Hessian entries are those of ``item1``
    weighted by :math:`f` (with ``item1``, ``item2``, the tie parameter and each other).
    ``index`` is :func:`hessian_index` of the same arguments, and ``terms`` :func:`bt_terms` at
    ``params``, when the caller has them already.
    """
    n = counts.n_systems
    index = hessian_index(counts, ties, order) if index is None else index
    f = index.features
    size = n + int(ties) + (0 if f is None else f.shape[1])
    lw, ll_, lt = bt_terms(counts, params, ties, order, f) if terms is None else terms
    w1, w2, t, m = counts.wins1, counts.wins2, index.ties, index.total
    p = lw.shape[-1]
    lead = lw.shape[:-1]  # a stack of fits: leading axes (none for one fit)
    pa, pb = np.exp(lw), np.exp(ll_)
    pc = np.exp(lt) if ties else np.broadcast_to(t, lw.shape)  # zeros without ties
    value = _inner(w1, lw) + _inner(w2, ll_) + (_inner(t, lt) if ties else 0.0)
    i, j = counts.item1, counts.item2
    half, quarter = 0.5 * pc, 0.25 * pc
    mi, mj = pa + half, pb + half
    score = index.score1 - m * mi
    grad = _scatter(i, score, size)
    grad += _scatter(j, index.score2 - m * mj, size)
    # covariance of the feature vector, times the pair's count: (i, i), (j, j), (i, j), (j, i);
    # then with the tie parameter (i, λ), (j, λ), (λ, λ): written straight into the weights
    weights = np.empty((*lead, 4 * p))
    np.multiply(m, pa + quarter - mi * mi, out=weights[..., :p])
    np.multiply(m, pb + quarter - mj * mj, out=weights[..., p : 2 * p])
    np.multiply(m, quarter - mi * mj, out=weights[..., 2 * p : 3 * p])
    weights[..., 3 * p :] = weights[..., 2 * p : 3 * p]
    hess = np.zeros((*lead, size, size))
    hess[..., :n, :n] = _scatter(index.block, weights, n * n).reshape(*lead, n, n)
    if ties:
        tie = np.empty((*lead, len(index.tie)))
        np.multiply(m, half - mi * pc, out=tie[..., :p])
        np.multiply(m, half - mj * pc, out=tie[..., p : 2 * p])
        np.multiply(m, pc - pc * pc, out=tie[..., 2 * p : 3 * p])
        hess[..., :, n] = hess[..., n, :] = _scatter(index.tie, tie, size)
        grad[..., n] = np.sum(t - m * pc, axis=-1)
    if f is not None:
        k = n + int(ties)
        own, cross = weights[..., :p], weights[..., 2 * p : 3 * p]
        grad[..., k:] = score @ f
        hess[..., k:, k:] = np.einsum("...p,pa,pb->...ab", own, f, f)
        for c in range(f.shape[1]):  # a few columns: the order effect and the covariates
            column = _scatter(i, own * f[:, c], n) + _scatter(j, cross * f[:, c], n)
            hess[..., :n, k + c] = hess[..., k + c, :n] = column
        if ties:
            hess[..., n, k:] = hess[..., k:, n] = tie[..., :p] @ f
    value = float(value) if np.ndim(value) == 0 else value
    return value, grad, -hess


def bt_information_trace(
    counts: Pairs,
    params: np.ndarray,
    b: np.ndarray,
    ties: bool,
    order: bool = False,
    index: HessianIndex | None = None,
    terms: tuple | None = None,
) -> np.ndarray:
    r""":math:`\operatorname{tr}(B\,\partial I/\partial\varphi_r)` of every parameter ``r``,
    :math:`I = -\nabla^2\ell` (:func:`bt_derivatives`), for a symmetric ``b`` of the size of
    ``params`` (one fit): with :math:`B = I^{-1}`, twice the gradient of Firth's penalty
    :math:`\tfrac12\log\det I` (:mod:`rankstats.core.firth`).

    Each pair is a multinomial logit with ``m`` trials (its battles) over item1, item2 and a
    tie, linear predictors :math:`X_S\varphi` with rows :math:`e_i + f`, :math:`e_j` and
    :math:`e_\lambda + \tfrac12(e_i + e_j + f)` (:math:`f`: the order effect's and the
    covariates' columns, :func:`feature_matrix`; the tie's probability is 0 without ties), so
    the trace is :math:`\sum_S m_S X_S^\top[p \odot (g - p^\top g)]`, :math:`g =
    \operatorname{diag}(G) - 2Gp` (:func:`rankstats.core.firth.choice_terms`), and the 3 × 3
    matrix :math:`G = X_S B X_S^\top` of every pair is written out from the entries of ``b``
    at ``i``, ``j``, the tie parameter and the features (Kosmidis & Firth 2009).  ``index``
    and ``terms``: :func:`hessian_index` and :func:`bt_terms`, when the caller has them.
    """
    n = counts.n_systems
    index = hessian_index(counts, ties, order) if index is None else index
    lw, ll_, lt = bt_terms(counts, params, ties, order, index.features) if terms is None else terms
    p = (np.exp(lw), np.exp(ll_), np.exp(lt) if ties else np.zeros_like(lw))
    i, j = counts.item1, counts.item2
    bii, bij, bjj = b[i, i], b[i, j], b[j, j]
    # G's entries (rows e_i, e_j, ½(e_i + e_j) of the log-worths), then the other parameters
    g00, g11, g01 = bii, bjj, bij
    g22, g02, g12 = 0.25 * (bii + 2.0 * bij + bjj), 0.5 * (bii + bij), 0.5 * (bij + bjj)
    f, k = index.features, n + int(ties)
    if ties:  # the tie's row has e_λ: B_iλ, B_jλ, B_λλ
        g02 = g02 + b[i, n]
        g12 = g12 + b[j, n]
        g22 = g22 + b[i, n] + b[j, n] + b[n, n]
    if f is not None:  # win1's row has f, the tie's ½ f
        fi, fj = np.sum(b[i, k:] * f, axis=1), np.sum(b[j, k:] * f, axis=1)  # e_iᵀ B f, e_jᵀ B f
        ff = np.sum((f @ b[k:, k:]) * f, axis=1)  # fᵀ B f
        fl = f @ b[k:, n] if ties else 0.0  # fᵀ B e_λ
        g00 = g00 + 2.0 * fi + ff
        g01 = g01 + fj
        g02 = g02 + fi + 0.5 * fj + fl + 0.5 * ff
        g12 = g12 + 0.5 * fj
        g22 = g22 + 0.5 * (fi + fj) + fl + 0.25 * ff
    gram = ((g00, g01, g02), (g01, g11, g12), (g02, g12, g22))
    h = choice_terms(gram, p, index.total)  # m p ⊙ (g − pᵀg) of win1, win2, tie
    first, second = h[0] + 0.5 * h[2], h[1] + 0.5 * h[2]  # the rows' e_i and e_j
    out = np.zeros(len(params))
    out[:n] = np.bincount(i, weights=first, minlength=n)
    out[:n] += np.bincount(j, weights=second, minlength=n)
    if ties:
        out[n] = np.sum(h[2])
    if f is not None:
        out[k:] = first @ f
    return out


def row_scores(
    counts: Pairs, params: np.ndarray, ties: bool, order: bool = False
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """Each row's contribution to the gradient at ``params`` (one fit): ``(residual, tie,
    features)`` — the residual of ``item1`` (its log-worth's gradient; ``item2``'s is its
    negative; the order effect's and the covariates' are it times :func:`feature_matrix`), the
    tie parameter's (None without ties), and the feature matrix (None without). Summed over the
    rows they are :func:`bt_derivatives`' gradient."""
    index = hessian_index(counts, ties, order)
    lw, _, lt = bt_terms(counts, params, ties, order, index.features)
    pa = np.exp(lw)
    pc = np.exp(lt) if ties else np.zeros_like(pa)
    residual = index.score1 - index.total * (pa + 0.5 * pc)
    tie = index.ties - index.total * pc if ties else None
    return residual, tie, index.features


def beats_edges(counts: Pairs) -> tuple[np.ndarray, np.ndarray]:
    """The edges ``(i, j)`` of :func:`bt_beats` (``i`` beat or tied ``j``), distinct and sorted
    as ``np.nonzero(bt_beats(counts) > 0)`` gives them, without the N × N matrix."""
    n = counts.n_systems
    first = counts.wins1 + counts.ties > 0
    second = counts.wins2 + counts.ties > 0
    i = np.asarray(counts.item1, dtype=np.int64)
    j = np.asarray(counts.item2, dtype=np.int64)
    keys = np.concatenate([i[first] * n + j[first], j[second] * n + i[second]])
    if n * n <= max(4 * len(keys), 1 << 20):
        keys = np.flatnonzero(np.bincount(keys, minlength=n * n))
    else:
        keys = np.unique(keys)
    return keys // n, keys % n


def bt_beats(counts: Pairs) -> np.ndarray:
    """``beats[i, j] > 0`` when ``i`` beat or tied ``j`` at least once."""
    n = counts.n_systems
    beats = np.zeros((n, n))
    np.add.at(beats, (counts.item1, counts.item2), counts.wins1 + counts.ties)
    np.add.at(beats, (counts.item2, counts.item1), counts.wins2 + counts.ties)
    return beats
