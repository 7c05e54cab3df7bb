r"""Maximum-likelihood Mallows mixtures by EM (Murphy & Martin 2003), for every distance of
:mod:`rankstats.core.permutations.distances`.

The model: ``K`` clusters, cluster ``k`` a Mallows model with consensus :math:`\rho_k` and
dispersion :math:`\alpha_k` (BayesMallows' parametrisation), weight :math:`\tau_k`:

.. math::

    P(R) = \sum_{k=1}^K \tau_k\, \frac{e^{-\frac{\alpha_k}{n} d(R, \rho_k)}}{Z_n(\alpha_k)},
    \qquad \ell = \sum_j \log P(R_j).

EM (Dempster, Laird & Rubin 1977) alternates

- **E-step**: responsibilities :math:`r_{jk} = \tau_k P_k(R_j) / P(R_j)`;
- **M-step**: :math:`\tau_k = \sum_j r_{jk} / N`; for :math:`\alpha_k > 0` the expected
  complete-data log-likelihood of cluster ``k`` is
  :math:`-\frac{\alpha_k}{n}\sum_j r_{jk} d(R_j, \rho_k) - N\tau_k \log Z_n(\alpha_k)`, so
  :math:`\rho_k` minimises :math:`\sum_j r_{jk} d(R_j, \rho)` whatever :math:`\alpha_k`
  (:class:`~rankstats.models.mallows._em_consensus.ConsensusSearch`: exhaustive for small
  ``n``, else an assignment problem or a Kemeny-type heuristic) and then :math:`\alpha_k` solves
  the moment equation :math:`E_{\alpha}[d] = \bar d_k = \sum_j r_{jk} d(R_j, \rho_k) / \sum_j
  r_{jk}` (a 1-D root: :math:`E_\alpha[d]` decreases in α), with :math:`E_\alpha[d]` from
  :func:`~rankstats.core.permutations.partition.partition_function`. :math:`\bar d_k \ge E_0[d]`
  gives α = 0 (the uniform distribution); :math:`\bar d_k` below :math:`E_{\alpha_{\max}}[d]`
  gives :data:`ALPHA_MAX_PER_ITEM` × ``n`` (the cluster is, in effect, one ranking).

Each step can only raise ℓ while the consensus step is exact (exhaustive or assignment); the
heuristic steps keep the current consensus unless they find a better one, so ℓ never falls
either. The data are reduced to their distinct rankings and counts first (APA: 5,738 votes,
120 distinct rankings). Several starts (:func:`mallows_em`'s ``starts``) guard against local
maxima: each draws ``K`` distinct observed rankings as consensuses, k-means++ style (the first
with probability ∝ its count, each next ∝ count × distance to the nearest chosen), equal
weights, and the dispersion of the one-cluster fit.

**Model choice.** Schwarz's approximation of the log marginal likelihood, with each consensus
uniform over the ``n!`` rankings a priori: the continuous parameters (``K − 1`` weights, ``K``
dispersions) contribute :math:`\tfrac{\nu}{2}\log N`, :math:`\nu = 2K - 1`, and each discrete
consensus its prior mass :math:`1/n!` (its posterior concentrates on one ranking), so

.. math::

    \mathrm{BIC} = -2\ell + (2K - 1)\log N + 2K \log n!, \qquad
    \mathrm{ICL} = \mathrm{BIC} + 2\,\mathrm{EN},\quad
    \mathrm{EN} = -\sum_j \sum_k r_{jk} \log r_{jk}

(Biernacki, Celeux & Govaert 2000), both lower-is-better. Without the :math:`2K \log n!` term —
the consensuses left uncounted — BIC chose 3 clusters on 500 rankings simulated from 2 (6
items): the third cluster's free consensus bought 7 units of ℓ for a penalty of
:math:`2 \log 500 = 12.4`. (The label-switching term :math:`\log K!` is left out, as in the
usual BIC of mixtures.)

References
----------
Murphy, T. B. and Martin, D. (2003). Mixtures of distance-based models for ranking data.
*Computational Statistics & Data Analysis* 41, 645–655.

Biernacki, C., Celeux, G. and Govaert, G. (2000). Assessing a mixture model for clustering with
the integrated completed likelihood. *IEEE TPAMI* 22(7), 719–725.

Dempster, A. P., Laird, N. M. and Rubin, D. B. (1977). Maximum likelihood from incomplete data
via the EM algorithm. *JRSS B* 39(1), 1–38.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from rankstats._util.advice import AdviceWarning, Spelled
from rankstats._util.arguments import count, positive, random_seed
from rankstats.core.permutations.distances import check_distance
from rankstats.core.permutations.partition import PartitionFunction, partition_function
from rankstats.core.rankings import Rankings, tied_entries
from rankstats.errors import InvalidRankingsError
from rankstats.models.mallows._em_consensus import ConsensusSearch
from rankstats.models.mallows.em_result import AT_BEST, MallowsEMFit

#: Largest dispersion, per item: α / n = 10 leaves :math:`e^{-10}` ≈ 4.5e-5 of the consensus's
#: probability to each ranking one unit of Kendall distance away.
ALPHA_MAX_PER_ITEM = 10.0
#: EM stops when ℓ is within this of its Aitken-extrapolated limit (:func:`converged`): far
#: below the differences BIC or a likelihood-ratio test reads (units of ℓ); on APA a stricter
#: 1e-6 ran K = 4 to 2,000 iterations gaining 1e-7 per step.
TOL = 1e-4
#: Most EM iterations of one start.
MAX_ITER = 2000
#: Points of the table of :math:`E_\alpha[d]` that brackets the dispersion's root.
GRID_POINTS = 16385
#: Most regula falsi steps of the dispersion's root (Illinois: about 10 reach 1e-12).
ROOT_STEPS = 60
#: EM iterations without a change of consensus after which the weights and dispersions are
#: polished by quasi-Newton (:func:`_polish`).
STABLE = 3
#: Starts by default: a start costs about 0.05 s on APA (5 items, 120 distinct rankings), and
#: its likelihood has many local maxima — 2 of 300 starts reached the best 2-cluster Kendall
#: fit, 6 of 300 the best 4-cluster one (the same ℓ from another seed and from 1,000 starts).
STARTS = 100


@dataclass
class _State:
    """One start's current parameters (clusters in rows)."""

    rho: np.ndarray  # (K, n) rank vectors
    alpha: np.ndarray  # (K,)
    weight: np.ndarray  # (K,)


class _Problem:
    """The distinct rankings, their counts, the consensus search and the partition function."""

    def __init__(self, ranks: np.ndarray, distance: str, seed: int) -> None:
        unique, inverse, counts = np.unique(ranks, axis=0, return_inverse=True, return_counts=True)
        self.unique, self.inverse = unique, inverse.ravel()
        self.counts = counts.astype(np.float64)
        self.n_rankings, self.n = ranks.shape
        self.distance = distance
        self.search = ConsensusSearch(unique, distance, seed=seed)
        self.pf: PartitionFunction = partition_function(self.n, distance)
        top = ALPHA_MAX_PER_ITEM * self.n
        if self.pf.alpha_grid is not None:  # an estimate: no α beyond its grid
            top = min(top, float(self.pf.alpha_grid[-1]))
        self.alpha_max = top
        self.mean_uniform = float(self.pf.expected_distance(0.0))
        self.mean_top = float(self.pf.expected_distance(top))
        self.grid = np.linspace(0.0, top, GRID_POINTS)
        self.expected_table = np.asarray(self.pf.expected_distance(self.grid), dtype=np.float64)

    def dispersion(self, mean: np.ndarray) -> np.ndarray:
        r"""The α of :math:`E_\alpha[d] = ` ``mean`` for each cluster at once (module docstring:
        the clipped root), by the Illinois variant of regula falsi (Dowell & Jarratt 1971) in
        the bracket of a table of :math:`E_\alpha[d]` built once: one vectorised evaluation of
        :math:`E_\alpha[d]` per step for all clusters (a scalar root per cluster spent 60 % of
        an APA fit's time in the partition function's argument checks)."""
        mean = np.atleast_1d(np.asarray(mean, dtype=np.float64))
        out = np.where(mean >= self.mean_uniform, 0.0, self.alpha_max)
        inside = (mean < self.mean_uniform) & (mean > self.mean_top)
        if not inside.any():
            return out
        target = mean[inside]
        # the table decreases in α: the bracket [grid[i - 1], grid[i]] holds the root
        i = np.searchsorted(-self.expected_table, -target).clip(1, len(self.grid) - 1)
        lo, hi = self.grid[i - 1], self.grid[i]
        f_lo, f_hi = self.expected_table[i - 1] - target, self.expected_table[i] - target
        side = np.zeros(len(target), dtype=np.int64)  # +1: lo replaced last, −1: hi
        for _ in range(ROOT_STEPS):
            x = np.clip((lo * f_hi - hi * f_lo) / (f_hi - f_lo), lo, hi)
            fx = np.asarray(self.pf.expected_distance(x), dtype=np.float64) - target
            move_lo = np.sign(fx) == np.sign(f_lo)  # the root lies in [x, hi]
            # Illinois: the end kept a second time in a row has its value halved
            f_hi = np.where(move_lo & (side == 1), f_hi / 2, f_hi)
            f_lo = np.where(~move_lo & (side == -1), f_lo / 2, f_lo)
            lo, f_lo = np.where(move_lo, x, lo), np.where(move_lo, fx, f_lo)
            hi, f_hi = np.where(move_lo, hi, x), np.where(move_lo, f_hi, fx)
            side = np.where(move_lo, 1, -1)
            if np.all((np.abs(fx) <= 1e-10 * target) | (hi - lo <= 1e-10 * hi)):
                lo = hi = x
                break
        out[inside] = (lo + hi) / 2
        return out

    def log_components(self, state: _State) -> np.ndarray:
        r""":math:`\log \tau_k + \log P_k(R_u)` for every distinct ranking, ``(U, K)``."""
        d = self.search.distances(state.rho)
        log_z = np.asarray(self.pf.log_z(state.alpha), dtype=np.float64)
        with np.errstate(divide="ignore"):
            log_w = np.log(state.weight)
        return log_w - state.alpha / self.n * d - log_z


def _e_step(problem: _Problem, state: _State) -> tuple[np.ndarray, float]:
    """Responsibilities ``(U, K)`` and the log-likelihood ℓ."""
    log_p = problem.log_components(state)
    top = log_p.max(axis=1)
    total = top + np.log(np.exp(log_p - top[:, None]).sum(axis=1))
    return np.exp(log_p - total[:, None]), float(problem.counts @ total)


def _m_step(problem: _Problem, state: _State, resp: np.ndarray) -> _State:
    """Weights, then each cluster's consensus, then its dispersion (module docstring)."""
    mass = problem.counts[:, None] * resp  # (U, K) expected counts
    size = mass.sum(axis=0)
    rho, alpha = state.rho.copy(), state.alpha.copy()
    live = size > 1e-12 * problem.n_rankings  # an empty cluster keeps its parameters
    mean = np.zeros(len(size))
    for k in np.flatnonzero(live):  # K small
        rho[k] = problem.search.best(mass[:, k], state.rho[k])
        mean[k] = problem.search.total(mass[:, k], rho[k]) / size[k]
    alpha[live] = problem.dispersion(mean[live])
    return _State(rho, alpha, size / size.sum())


def _seed_state(problem: _Problem, clusters: int, rng: np.random.Generator) -> _State:
    """k-means++ choice of ``clusters`` distinct observed rankings (module docstring)."""
    u = len(problem.unique)
    chosen = [int(rng.choice(u, p=problem.counts / problem.counts.sum()))]
    nearest = problem.search.distances(problem.unique[chosen]).ravel().astype(np.float64)
    for _ in range(1, clusters):
        score = problem.counts * nearest
        if score.sum() <= 0:  # fewer distinct rankings than clusters were asked: any other
            rest = np.setdiff1d(np.arange(u), chosen)
            pick = int(rng.choice(rest))
        else:
            pick = int(rng.choice(u, p=score / score.sum()))
        chosen.append(pick)
        d = problem.search.distances(problem.unique[[pick]]).ravel()
        nearest = np.minimum(nearest, d)
    rho = problem.unique[chosen].copy()
    mean = float(problem.counts @ nearest) / problem.n_rankings
    alpha = np.full(clusters, problem.dispersion(mean)[0])
    return _State(rho, alpha, np.full(clusters, 1.0 / clusters))


@dataclass
class _Run:
    state: _State
    resp: np.ndarray
    trace: list
    converged: bool


def _run_em(problem: _Problem, state: _State, max_iter: int, tol: float) -> _Run:
    """EM from ``state`` until :func:`converged` or ``max_iter`` iterations; once the
    consensuses have not moved for :data:`STABLE` iterations, the weights and dispersions jump
    to their maximum for those consensuses (:func:`_polish`), and EM goes on from there."""
    resp, ll = _e_step(problem, state)
    trace = [ll]
    stable = 0
    for _ in range(max_iter):
        new = _m_step(problem, state, resp)
        stable = stable + 1 if np.array_equal(new.rho, state.rho) else 0
        state = new
        resp, ll = _e_step(problem, state)
        if stable and stable % STABLE == 0:
            state, resp, ll = _polish(problem, state, resp, ll)
        trace.append(ll)
        if stable and converged(trace, tol):  # not while a consensus still moves
            return _Run(state, resp, trace, True)
    return _Run(state, resp, trace, False)


def _polish(problem: _Problem, state: _State, resp: np.ndarray, ll: float):
    r"""The weights and dispersions of highest ℓ for the current consensuses, by a truncated
    Newton method (TNC) on :math:`(\log \tau_k - \log \tau_K, \alpha_k)` with the exact gradient
    :math:`\partial \ell / \partial \alpha_k = \sum_u c_u r_{uk} (E_{\alpha_k}[d] -
    d_{uk}) / n` (as :math:`\partial \log Z / \partial \alpha = -E_\alpha[d] / n`) and
    :math:`\partial \ell / \partial \eta_k = \sum_u c_u (r_{uk} - \tau_k)`.

    Why: with the consensuses fixed EM converges linearly, and on APA at a rate near 1 (2,000
    iterations gaining 1e-5 each); the quasi-Newton step reaches the same maximum in tens of
    evaluations (TNC: SciPy's L-BFGS-B spent 10 ms per step in its Fortran core on a loaded
    machine, 98 % of the fit). Kept only if ℓ rises, so the trace stays non-decreasing."""
    from scipy.optimize import minimize

    k, n = len(state.weight), problem.n
    d = problem.search.distances(state.rho)
    counts = problem.counts

    def negative(x: np.ndarray) -> tuple[float, np.ndarray]:
        eta, alpha = np.append(x[: k - 1], 0.0), x[k - 1 :]
        log_w = eta - np.log(np.exp(eta - eta.max()).sum()) - eta.max()
        log_z = np.asarray(problem.pf.log_z(alpha), dtype=np.float64)
        log_p = log_w - alpha / n * d - log_z
        top = log_p.max(axis=1)
        total = top + np.log(np.exp(log_p - top[:, None]).sum(axis=1))
        r = np.exp(log_p - total[:, None]) * counts[:, None]
        expected = np.asarray(problem.pf.expected_distance(alpha), dtype=np.float64)
        grad_alpha = (r * (expected - d)).sum(axis=0) / n
        grad_eta = r.sum(axis=0) - counts.sum() * np.exp(log_w)
        return -float(counts @ total), -np.concatenate([grad_eta[: k - 1], grad_alpha])

    with np.errstate(divide="ignore"):
        log_w = np.log(np.maximum(state.weight, 1e-300))
    x0 = np.concatenate([log_w[: k - 1] - log_w[-1], state.alpha])
    bounds = [(-50.0, 50.0)] * (k - 1) + [(0.0, problem.alpha_max)] * k
    found = minimize(negative, x0, jac=True, method="TNC", bounds=bounds)
    if not -found.fun > ll:
        return state, resp, ll
    eta = np.append(found.x[: k - 1], 0.0)
    weight = np.exp(eta - eta.max())
    polished = _State(state.rho, found.x[k - 1 :].copy(), weight / weight.sum())
    new_resp, new_ll = _e_step(problem, polished)
    if new_ll <= ll:
        return state, resp, ll
    return polished, new_resp, new_ll


def converged(trace: list, tol: float) -> bool:
    r"""Aitken's stopping rule (Böhning et al. 1994; McNicholas et al. 2010): with the rate
    :math:`c_t = (\ell_t - \ell_{t-1}) / (\ell_{t-1} - \ell_{t-2})`, the limit of a linearly
    converging EM is about :math:`\ell_\infty = \ell_{t-1} + (\ell_t - \ell_{t-1}) / (1 - c_t)`;
    stop when :math:`\ell_\infty - \ell_t < ` ``tol``. (A rise below ``tol`` alone stops a slow
    EM — rate near 1 — far from its limit: on APA a rise of 1e-6 per step still had 1e-4 to go.)"""
    if len(trace) < 3:
        return False
    step, before = trace[-1] - trace[-2], trace[-2] - trace[-3]
    if step <= 1e-13 * abs(trace[-1]):  # no rise left to the precision of the sum
        return True
    if before <= 0:
        return False
    rate = step / before
    if rate >= 1:
        return False
    return step * rate / (1 - rate) < tol


def _check_ranks(data) -> tuple[np.ndarray, tuple[str, ...], pd.Index]:
    """Complete rankings without ties as an int64 ``(N, n)`` matrix, the systems and rankers."""
    if isinstance(data, Rankings):
        ranks, systems, rankers = data.ranks, tuple(data.systems), data.rankers
    elif isinstance(data, pd.DataFrame):
        ranks, systems, rankers = (
            data.to_numpy(np.float64),
            tuple(map(str, data.columns)),
            data.index,
        )
    else:
        ranks = np.asarray(data, dtype=np.float64)
        if ranks.ndim != 2:
            raise InvalidRankingsError(
                f"rankings must be an (N, n) rank matrix, not {ranks.ndim}-d"
            )
        systems = tuple(f"item {i + 1}" for i in range(ranks.shape[1]))
        rankers = pd.RangeIndex(len(ranks), name="ranking")
    if ranks.ndim != 2 or ranks.shape[1] < 2 or len(ranks) < 1:
        raise InvalidRankingsError("need at least one ranking of at least 2 systems")
    n = ranks.shape[1]
    missing = np.flatnonzero(np.isnan(ranks).any(axis=1))
    tied = np.flatnonzero(tied_entries(ranks).any(axis=1))
    valid = np.sort(np.nan_to_num(ranks, nan=0.0), axis=1) == np.arange(1, n + 1)
    bad = np.flatnonzero(~valid.all(axis=1))
    for rows, what in ((missing, "a missing rank"), (tied, "tied ranks"), (bad, "ranks not 1 … n")):
        if len(rows):
            raise InvalidRankingsError(
                f"the EM fit needs complete rankings without ties: ranking {rankers[rows[0]]!r} "
                f"(row {int(rows[0])}) has {what}; {len(rows)} such rankings. Use the Bayesian "
                "sampler (Mallows(clusters=K).fit) for partial or tied rankings"
            )
    return ranks.astype(np.int64), systems, rankers


def mallows_em(
    data,
    clusters: int = 2,
    *,
    distance: str = "kendall",
    starts: int = STARTS,
    seed: int = 0,
    max_iter: int = MAX_ITER,
    tol: float = TOL,
) -> MallowsEMFit:
    r"""Maximum-likelihood mixture of ``clusters`` Mallows models by EM (module docstring).

    Parameters
    ----------
    data : Rankings, pandas.DataFrame or array-like
        Complete rankings without ties: a :class:`~rankstats.Rankings`, a rank matrix (rows =
        rankings, columns = systems, 1 = best) as a DataFrame or an array.
    clusters : int
        ``K ≥ 1``.
    distance : {"kendall", "cayley", "hamming", "footrule", "spearman", "ulam"}
    starts : int
        EM runs from different seeded starts; the one of highest ℓ is kept.
    seed : int
        Seed of the starts (the same seed, the same fit).
    max_iter, tol
        Each run stops when ℓ is within ``tol`` of its limit by Aitken's extrapolation
        (:func:`converged`), or after ``max_iter`` iterations.

    Returns
    -------
    MallowsEMFit
        Clusters numbered by decreasing weight.

    Warns
    -----
    UserWarning
        The best run did not converge within ``max_iter``; or only one start reached the
        highest log-likelihood (more starts may find a higher one).

    Examples
    --------
    >>> import numpy as np
    >>> ranks = np.array([[1, 2, 3, 4]] * 30 + [[4, 3, 2, 1]] * 10 + [[1, 3, 2, 4]] * 5)
    >>> fit = mallows_em(ranks, 2, distance="kendall", starts=3)
    >>> fit.consensus_orderings()[0], round(float(fit.weight[1]), 2)
    (['item 1', 'item 2', 'item 3', 'item 4'], 0.22)
    """
    check_distance(distance)
    count("clusters", clusters)
    count("starts", starts)
    random_seed("seed", seed)
    count("max_iter", max_iter)
    positive("tol", tol)
    ranks, systems, rankers = _check_ranks(data)
    if clusters > len(ranks):
        raise ValueError(f"clusters ({clusters}) exceeds the number of rankings ({len(ranks)})")
    problem = _Problem(ranks, distance, seed)
    runs = []
    for stream in np.random.SeedSequence(seed).spawn(starts):
        state = _seed_state(problem, int(clusters), np.random.default_rng(stream))
        runs.append(_run_em(problem, state, max_iter, tol))
    best = max(runs, key=lambda run: run.trace[-1])
    at_best = sum(run.trace[-1] >= best.trace[-1] - AT_BEST for run in runs)
    if starts > 1 and at_best == 1:
        warnings.warn(
            AdviceWarning(
                f"only one of {starts} EM starts reached the highest log-likelihood: the "
                "likelihood has many local maxima here, and more starts may find a higher one; "
                "raise {starts}",
                starts=Spelled("starts", "--starts"),
            ),
            stacklevel=2,
        )
    if not best.converged:
        warnings.warn(
            f"the EM run of highest log-likelihood did not converge in {max_iter} iterations "
            f"(last rise {best.trace[-1] - best.trace[-2]:.3g}); raise max_iter",
            UserWarning,
            stacklevel=2,
        )
    return _result(problem, best, runs, systems, rankers)


def _result(problem: _Problem, best: _Run, runs: list, systems, rankers) -> MallowsEMFit:
    """The :class:`MallowsEMFit` of the best run, clusters by decreasing weight."""
    order = np.argsort(-best.state.weight, kind="stable")
    resp = best.resp[:, order][problem.inverse]  # back to one row per ranking
    k, n_rankings = len(order), problem.n_rankings
    ll = best.trace[-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        entropy = -float(np.nansum(np.where(resp > 0, resp * np.log(resp), 0.0)))
    n_parameters = 2 * k - 1
    bic = -2.0 * ll + n_parameters * np.log(n_rankings) + 2 * k * math.lgamma(problem.n + 1)
    final = np.array([run.trace[-1] for run in runs])
    return MallowsEMFit(
        distance=problem.distance,
        systems=tuple(systems),
        consensus=best.state.rho[order],
        alpha=best.state.alpha[order],
        weight=best.state.weight[order],
        responsibilities=resp,
        rankers=pd.Index(rankers),
        log_likelihood=ll,
        bic=float(bic),
        icl=float(bic + 2.0 * entropy),
        n_parameters=n_parameters,
        trace=np.asarray(best.trace),
        start_log_likelihoods=final,
        converged=best.converged,
        consensus_method=problem.search.method,
        partition_method=problem.pf.method,
        alpha_max=problem.alpha_max,
    )
