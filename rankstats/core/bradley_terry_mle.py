r"""Bradley–Terry maximum likelihood in NumPy (Davidson ties), and its Newton–Raphson driver.

The one implementation of the Bradley–Terry MLE:
:func:`rankstats.paired_analysis.ratings.bradley_terry` (paired wins, a draw half a win each way)
and :func:`rankstats.paired` (``bt_ties="davidson"``) call
:func:`fit_bt`; :class:`rankstats.models.BradleyTerry` (``method="mle"`` / ``"map"``) maximises
the same :func:`bt_objective` with the same :func:`newton` and existence check, through the
fitting driver it shares with Plackett–Luce.  This module imports neither PyMC nor ArviZ, so
``import rankstats`` and :func:`rankstats.paired` stay light.

Model (Bradley & Terry 1952; Zermelo 1929; ties after Davidson 1970), with worths
:math:`\pi_i = e^{\theta_i}` and tie parameter :math:`\nu = e^{\lambda}` (``ν = 0``: plain BT):

.. math::

    P(i \succ j) = \frac{\pi_i}{\pi_i + \pi_j + \nu\sqrt{\pi_i\pi_j}}, \qquad
    P(i \sim j) = \frac{\nu\sqrt{\pi_i\pi_j}}{\pi_i + \pi_j + \nu\sqrt{\pi_i\pi_j}}.

With an order effect (``order=True``; Agresti 2002, §10.6.1, "home advantage"), pairs are
ordered, ``i`` shown first, and :math:`\pi_i` becomes :math:`h\pi_i` with :math:`h = e^{\eta}`
in both formulas: :math:`P(i \succ j \mid i \text{ first}) = h\pi_i / (h\pi_i + \pi_j +
\nu\sqrt{h\pi_i\pi_j})` (:mod:`rankstats.battles.fitting` fits arena battles this way).

The log-likelihood is concave in :math:`(\theta, \lambda)`, so Newton–Raphson with a
backtracking line search (:func:`newton`) converges in a handful of iterations; the Hessian it
needs is also the observed information that gives the standard errors.  (Hunter's (2004) MM
algorithm converges linearly to the same maximum.)  The MLE exists iff the comparison graph is
strongly connected (:func:`check_strongly_connected`, by
:func:`scipy.sparse.csgraph.connected_components`; Hunter 2004, Assumption 1).

Identification: log-worths are defined up to a constant.  The optimisation fixes the last system
at 0; results are reported *centred* (sum to zero), with the covariance ``C Σ Cᵀ`` where ``Σ`` is
the inverse observed information of the free parameters and ``C = I − 11ᵀ/N`` centres them.  A
Gaussian penalty ``−‖θ‖² / (2 s²)`` on the centred log-worths (the density of
``ZeroSumNormal(s)``) and ``−λ² / (2 s_λ²)`` on the log tie parameter turn the MLE into the MAP
of the Bayesian model.  The Plackett–Luce likelihood (:mod:`rankstats.models._mle`) uses the same
driver.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import sparse
from scipy.sparse import csgraph

from rankstats._util.advice import Advice, Spelled, escape
from rankstats._util.blas_threads import one_blas_thread
from rankstats.errors import InvalidRankingsError, preview

#: What to do instead, in Python and on the command line (``rankstats fit --method``).
MAP_HINT = Spelled(
    "Use method='map' or method='nuts', whose prior keeps the estimates finite, or add "
    "comparisons.",
    "Use --method map or --method nuts, whose prior keeps the estimates finite, or add "
    "comparisons.",
)


class MLEDoesNotExistError(Advice, InvalidRankingsError):
    """The likelihood has no maximum (the comparison graph is not strongly connected); a message
    template whose options are spelled for the reader (:mod:`rankstats._util.advice`)."""


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
def check_strongly_connected(
    systems: Sequence[str], beats: np.ndarray, hint: str | Spelled = MAP_HINT
) -> None:
    """Raise :class:`MLEDoesNotExistError` unless the "beats" graph is strongly connected.

    ``beats[i, j] > 0`` when ``i`` was ranked above (or tied with) ``j`` at least once.  The MLE
    exists iff every system can be reached from every other along such edges (Hunter 2004,
    Assumption 1; Zermelo 1929).  The error names the groups that never lose to the rest and never
    win against the rest, and ends with ``hint`` (what to do instead).
    """
    src, dst = np.nonzero(np.asarray(beats) > 0)
    _check_edges(systems, src, dst, hint)


def _check_edges(
    systems: Sequence[str], src: np.ndarray, dst: np.ndarray, hint: str | Spelled
) -> None:
    """:func:`check_strongly_connected` of the edges ``src[k] → dst[k]`` (distinct, sorted by
    source then target, as ``np.nonzero`` of the "beats" matrix gives them)."""
    n = len(systems)
    if n <= 1:
        return
    graph = sparse.csr_matrix((np.ones(len(src), dtype=np.int8), (src, dst)), shape=(n, n))
    count, labels = csgraph.connected_components(graph, directed=True, connection="strong")
    if count == 1:
        return
    # The condensation: one node per strongly connected component, edges between components.
    cross = labels[src] != labels[dst]
    edges = np.unique(labels[src[cross]].astype(np.int64) * count + labels[dst[cross]])
    out_degree = np.bincount(edges // count, minlength=count)
    in_degree = np.bincount(edges % count, minlength=count)
    sizes = np.bincount(labels, minlength=count)
    first = np.full(count, n, dtype=np.int64)
    np.minimum.at(first, labels, np.arange(n))
    components = sorted(range(count), key=lambda c: (-sizes[c], first[c]))
    never_lose, never_win, isolated = [], [], []
    # The largest component is "the rest"; describe the others relative to it.
    for node in components[1:]:
        members = sorted(systems[i] for i in np.flatnonzero(labels == node))
        indeg, outdeg = in_degree[node], out_degree[node]
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
        escape(
            f"the MLE does not exist (the likelihood has no maximum): the comparison graph of {n} "
            f"systems is not strongly connected ({count} components). Systems that "
            + "; systems that ".join(parts)
            + ". Their worths would run off to ±infinity. "
        )
        + "{hint}",
        hint=hint if isinstance(hint, Spelled) else Spelled(hint, hint),
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


# ---------------------------------------------------------------------------- paired counts
@dataclass(frozen=True, eq=False, repr=False)
class Pairs:
    """Paired-comparison counts, one entry per compared pair ``item1 < item2`` (per *ordered*
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
    """

    n_systems: int
    item1: np.ndarray
    item2: np.ndarray
    wins1: np.ndarray
    wins2: np.ndarray
    ties: np.ndarray
    systems: tuple[str, ...] = ()

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
def bt_terms(counts: Pairs, params: np.ndarray, ties: bool, order: bool = False):
    r"""Log-probabilities of win / loss / tie of every pair (Davidson 1970).

    With ``order``, ``item1`` is the one shown first and ``params[-1]`` its log advantage
    :math:`\eta = \log h` (Agresti 2002, §10.6.1: home advantage), added to its log-worth.
    ``params`` may have leading axes (a stack of fits, :mod:`rankstats.core.bradley_terry_stack`),
    and the counts then the same leading axes.
    """
    theta = params[..., : counts.n_systems]
    ti, tj = theta[..., counts.item1], theta[..., counts.item2]
    if order:
        ti = ti + params[..., counts.n_systems + int(ties), None]
    if ties:
        tie = params[..., counts.n_systems, None] + 0.5 * (ti + tj)
        log_d = np.logaddexp(np.logaddexp(ti, tj), tie)
        return ti - log_d, tj - log_d, tie - log_d
    log_d = np.logaddexp(ti, tj)
    return ti - log_d, tj - log_d, None


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
    (ordered pairs: ``item1`` shown first), :math:`\pi_i` becomes :math:`h\pi_i` with
    ``h = exp(params[-1])`` (:func:`bt_terms`; ``terms``: its result at ``params``, when the
    caller has it already).
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
    (j, j), (i, j), (j, i) of every pair; ``tie`` / ``order``: the row of the tie / order
    column for the terms of every pair (i, j, then the tie / order rows).  The column of the
    tie parameter is its row (the Hessian is symmetric term by term), and so is the order's.
    With them, what does not change from one Newton step to the next: ``ties`` (the ties, or
    zeros without the tie parameter), ``total`` (battles of the pair), ``score1`` / ``score2``
    (wins of item1 / item2 plus half the ties).
    """

    block: np.ndarray
    tie: np.ndarray | None
    order: np.ndarray | None
    ties: np.ndarray
    total: np.ndarray
    score1: np.ndarray
    score2: np.ndarray


def hessian_index(counts: Pairs, ties: bool, order: bool = False) -> HessianIndex:
    """Hessian cells of every term :func:`bt_derivatives` adds (:class:`HessianIndex`).

    It depends on the pairs only, not on the parameters: a fit computes it once
    (:func:`bt_objective`) instead of at every Newton step.  Each cell sums its terms one after
    the other in the order of the pairs (``np.bincount``), so the sums do not depend on how
    the cells are grouped into the three bincounts.
    """
    n = counts.n_systems
    size = n + int(ties) + int(order)
    i = np.asarray(counts.item1, dtype=np.int64)
    j = np.asarray(counts.item2, dtype=np.int64)
    block = np.concatenate([i * (n + 1), j * (n + 1), i * n + j, j * n + i])
    lam, eta = np.full_like(i, n), np.full_like(i, size - 1)
    tie = np.concatenate([i, j, lam] + ([eta] if order else [])) if ties else None
    ordered = np.concatenate([i, j, eta] + ([lam] if ties else [])) if order else None
    w1, w2 = counts.wins1, counts.wins2
    t = counts.ties if ties else np.zeros_like(w1, dtype=float)
    return HessianIndex(block, tie, ordered, t, w1 + w2 + t, w1 + 0.5 * t, w2 + 0.5 * t)


def bt_derivatives(
    counts: Pairs,
    params: np.ndarray,
    ties: bool,
    order: bool = False,
    index: HessianIndex | None = None,
    terms: tuple | None = None,
) -> tuple[float, np.ndarray, np.ndarray]:
    """Log-likelihood, gradient and Hessian: a multinomial logit per pair.

    The order parameter (``order``) enters exactly like the log-worth of ``item1``, so its
    gradient and Hessian entries are those of ``item1`` summed over the pairs.  ``index`` is
    :func:`hessian_index` of the same arguments, and ``terms`` :func:`bt_terms` at ``params``,
    when the caller has them already.
    """
    n = counts.n_systems
    size = n + int(ties) + int(order)
    lw, ll_, lt = bt_terms(counts, params, ties, order) if terms is None else terms
    index = hessian_index(counts, ties, order) if index is None else index
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
        if order:
            tie[..., 3 * p :] = tie[..., :p]
        hess[..., :, n] = hess[..., n, :] = _scatter(index.tie, tie, size)
        grad[..., n] = np.sum(t - m * pc, axis=-1)
    if order:
        grad[..., size - 1] = np.sum(score, axis=-1)
        shown = np.empty((*lead, len(index.order)))
        shown[..., :p], shown[..., p : 2 * p] = weights[..., :p], weights[..., 2 * p : 3 * p]
        shown[..., 2 * p : 3 * p] = weights[..., :p]
        if ties:
            shown[..., 3 * p :] = tie[..., :p]
        hess[..., :, -1] = hess[..., -1, :] = _scatter(index.order, shown, size)
    value = float(value) if np.ndim(value) == 0 else value
    return value, grad, -hess


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


def bt_objective(
    counts: Pairs,
    ties: bool,
    prior_scale: float | None,
    tie_prior_scale: float = 1.5,
    order: bool = False,
) -> Callable[[np.ndarray, bool], tuple[float, np.ndarray | None, np.ndarray | None]]:
    """Log-likelihood or log-posterior of the BT model (Davidson ties when ``ties``, an order
    effect for ``item1`` when ``order``; the MAP puts ``N(0, tie_prior_scale²)`` on both).

    :func:`newton` asks for the derivatives at the parameters whose value it has just accepted:
    the log-probabilities (:func:`bt_terms`) of the last parameters are kept for that call."""
    n = counts.n_systems
    size = n + int(ties) + int(order)
    centre = np.zeros((size, size))
    centre[:n, :n] = np.eye(n) - 1.0 / n
    index = hessian_index(counts, ties, order)
    last: list = [b"", None]  # the last parameters (bytes) and their bt_terms

    def function(params: np.ndarray, derivatives: bool):
        key = np.ascontiguousarray(params, dtype=np.float64).tobytes()
        if key != last[0]:
            last[:] = [key, bt_terms(counts, params, ties, order)]
        terms = last[1]
        if derivatives:
            value, grad, hess = bt_derivatives(counts, params, ties, order, index, terms)
        else:
            value, grad, hess = bt_loglik(counts, params, ties, order, terms), None, None
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
            if order:
                value -= 0.5 * params[-1] ** 2 / tie_prior_scale**2
                if derivatives:
                    grad[-1] -= params[-1] / tie_prior_scale**2
                    hess[-1, -1] -= 1.0 / tie_prior_scale**2
        return value, grad, hess

    return function


def fit_bt(
    counts: Pairs,
    ties: bool,
    prior_scale: float | None = None,
    tie_prior_scale: float = 1.5,
    systems: Sequence[str] | None = None,
    hint: str | Spelled = MAP_HINT,
    tol: float = 1e-10,
    max_iter: int = 100,
    order: bool = False,
) -> Optimum:
    r"""Bradley–Terry MLE (``prior_scale=None``) or MAP by Newton–Raphson.

    Parameters
    ----------
    counts : Pairs
        Paired counts (:class:`Pairs`).
    ties : bool
        Estimate Davidson's tie parameter (``params[N]`` = :math:`\log\nu`); else ties are
        ignored (count them as half wins in ``wins1`` / ``wins2`` instead).
    prior_scale, tie_prior_scale : float, optional
        Gaussian penalties of the MAP (see the module docstring); None = maximum likelihood.
    systems : sequence of str, optional
        Names used in the error when the MLE does not exist (default: ``0, 1, ...``).
    hint : str
        Advice ending that error.
    tol, max_iter : float, int
        Newton–Raphson stops when the largest step is below ``tol``.
    order : bool
        Pairs are ordered (``item1`` shown first, ``i > j`` allowed) and ``item1`` has the log
        advantage :math:`\eta = \log h` (the last parameter): :math:`\pi_i` becomes
        :math:`h\pi_i` in every probability (Agresti 2002, §10.6.1).

    Returns
    -------
    Optimum
        ``params`` (centred log-worths, then :math:`\log\nu`, then :math:`\eta`),
        ``objective``, ``covariance``.

    Raises
    ------
    MLEDoesNotExistError
        Maximum likelihood on a comparison graph that is not strongly connected.
    ConvergenceError
        Newton–Raphson did not converge.
    """
    n = counts.n_systems
    if prior_scale is None:
        names = [str(s) for s in (systems if systems is not None else range(n))]
        _check_edges(names, *beats_edges(counts), hint)
    objective = bt_objective(counts, ties, prior_scale, tie_prior_scale, order)
    # A few hundred parameters: one BLAS thread solves faster than several, and on a busy
    # machine many times faster (20,000 battles of 200 models: 0.24 s against 3.3 s).
    with one_blas_thread():
        return newton(objective, n, int(ties) + int(order), tol=tol, max_iter=max_iter)
