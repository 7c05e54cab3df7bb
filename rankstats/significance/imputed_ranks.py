r"""Friedman-type tests on imputed expected ranks: ``missing="imputed"``.

A block (a ranking) that evaluated ``k`` of the ``n`` systems is replaced, as everywhere in
rankstats, by a uniformly random complete ranking compatible with it
(:mod:`rankstats.core.pair_probabilities`). The *imputed expected rank* of system ``i`` in the block
is its expected rank in that random ranking,

.. math::  e_i = 1 + \sum_{j \ne i} P(j \succ i) =
           \begin{cases} m_i\,(n + 1) / (k + 1) & i \text{ observed, mid-rank } m_i
                         \text{ among the } k \text{ observed} \\
                         (n + 1) / 2 & i \text{ not evaluated,} \end{cases}

computed from the package's one implementation of the model: ``e = n − b`` with ``b`` the
per-ranking Borda count :func:`rankstats.core.pair_probabilities.ranking_borda`
(``tests/significance/test_imputed_ranks.py`` checks it against ``1 + Σ_j P(j ≻ i)`` of
:class:`~rankstats.core.pair_probabilities.Pairwise` and against exhaustive enumeration of the
compatible complete rankings).

**Omnibus test.** With :math:`c_b = e_b - (n + 1)/2` the centred imputed ranks of block ``b``
(zero for the systems it did not evaluate) and :math:`A = \sum_b c_b`, the exact null
covariance of :math:`c_b` under permutation of the observed systems' ranks within the block
(given which systems were evaluated and the tie pattern) is

.. math::  \operatorname{Cov}(c_b) = \frac{s_b^2}{k_b - 1}\Bigl(I_O - \frac{J_O}{k_b}\Bigr),
           \qquad s_b^2 = \sum_i c_{bi}^2,

on the observed systems ``O`` of the block, zero elsewhere (the covariance of a random
permutation of ``k_b`` numbers summing to zero).  The statistic :math:`T = A^\top \Sigma^+ A`,
:math:`\Sigma = \sum_b \operatorname{Cov}(c_b)`, is approximately :math:`\chi^2` with
``rank(Σ) = n − 1`` degrees of freedom when the design is connected (every two systems linked
by a chain of blocks that rank both; a disconnected design is refused, naming its components).
On complete blocks it is Friedman's tie-corrected statistic (``scipy.stats.friedmanchisquare``).
On a balanced incomplete block design (BIBD) it is Durbin's (1951) statistic, Conover's (1999,
Sec. 5.9) :math:`T_1` with his pooled tie correction, *exactly when every block has the same sum
of squared centred mid-ranks* :math:`s_b^2` (no ties at all, or the same tie sizes in every
block): then :math:`\Sigma \propto I - J/n`.  With ties in some blocks only they differ: ``T``
conditions on the ties of each block (each block's own permutation variance), :math:`T_1` pools
the ties of all blocks into one variance (Conover's ice-cream design with ties in two of seven
blocks: ``T = 12.68``, :math:`T_1 = 12.46`; ``tests/significance/test_imputed_ranks.py``).  It has
the form of Skillings and Mack's (1981) statistic, which weights the centred mid-ranks of a block by
:math:`\sqrt{12/(k_b + 1)}` where the imputation weights them by :math:`(n + 1)/(k_b + 1)`
(and which uses the covariance of untied ranks), so that the two agree exactly when every block
evaluates the same number of systems and nothing is tied.  The weights matter only between
blocks of different sizes: relative to Skillings and Mack, the imputation weights a block of
``k_b`` observed systems by :math:`(n + 1) / \sqrt{12 (k_b + 1)}`, more for smaller blocks
(their few observed systems spread over the whole range 1..n of expected ranks).

By the Cauchy–Schwarz inequality :math:`T \le D = \sum_b (k_b - 1)` (sum over the blocks of two
or more systems), and the F form of Iman and Davenport (1980) and of Durbin's test (Conover, 1999,
Sec. 5.9),

.. math::  F = \frac{T / d}{(D - T) / (D - d)}, \qquad d = \operatorname{rank}\Sigma,

on ``d`` and ``D − d`` degrees of freedom, is reported beside it (it is Iman–Davenport's
:math:`F_F` on complete blocks, Conover's :math:`T_2` on a BIBD under the same condition).

**Post-hoc.** :math:`z_{ij} = (A_i - A_j) / \sqrt{\Sigma_{ii} + \Sigma_{jj} - 2\Sigma_{ij}}`,
approximately standard normal under the null; the family of all pairs is controlled either by
Holm's step-down adjustment of the two-sided normal p-values (valid under any dependence), or
single-step by the distribution of :math:`\max_{i<j} |z_{ij}|` of the Gaussian vector
:math:`N(0, \Sigma)` (:func:`max_abs_z`): exactly the studentized range when
:math:`\Sigma \propto I - J/n` (complete blocks, balanced incomplete designs: the classical
Nemenyi test), otherwise by Monte Carlo with a fixed seed.

References
----------
Durbin, J. (1951). Incomplete blocks in ranking experiments. *British Journal of Statistical
Psychology* 4(2), 85–90.

Skillings, J. H. and Mack, G. A. (1981). On the use of a Friedman-type statistic in balanced and
unbalanced block designs. *Technometrics* 23(2), 171–177.

Conover, W. J. (1999). *Practical Nonparametric Statistics*, 3rd ed., Sec. 5.9. Wiley.

Himmi, A., Irurozki, E., Noiry, N., Clémençon, S. and Colombo, P. (2023). Towards more robust
NLP system evaluation: handling missing scores in benchmarks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse, stats
from scipy.sparse.csgraph import connected_components

from rankstats._util.blas_threads import one_blas_thread
from rankstats.core.pair_probabilities import ranking_borda
from rankstats.errors import preview
from rankstats.significance.block_variation import require_variation
from rankstats.significance.studentized_range import q_alpha, studentized_range_sf

#: Blocks per chunk of the covariance products (bounds the (chunk, n) temporaries).
_BLOCK_CELLS = 4_000_000
#: Default Monte Carlo draws of max |z| when it is not the studentized range.
DRAWS = 20_000
#: Normal variates per chunk of Monte Carlo draws (bounds memory: about 3 × 8 bytes each).
_DRAW_CELLS = 400_000


def imputed_expected_ranks(ranks: np.ndarray) -> np.ndarray:
    """Expected rank of every system in a uniformly random complete ranking compatible with each
    partial ranking: ``1 + Σ_j P(j ≻ i) = n − b`` with ``b`` the per-ranking Borda count
    (:func:`rankstats.core.pair_probabilities.ranking_borda`): ``m (n + 1) / (k + 1)`` for an
    observed system of mid-rank ``m`` among ``k`` observed, ``(n + 1) / 2`` for an unobserved one.

    Parameters
    ----------
    ranks : ndarray, shape (L, n)
        Mid-ranks among the observed systems of each row (1 = best); NaN = not evaluated.

    Examples
    --------
    >>> import numpy as np
    >>> imputed_expected_ranks(np.array([[1.0, 2.0, np.nan]]))  # e = m · 4 / 3, and 2
    array([[1.33333333, 2.66666667, 2.        ]])
    """
    ranks = np.asarray(ranks, dtype=np.float64)
    return ranks.shape[1] - ranking_borda(ranks)


def block_weights(centred: np.ndarray, observed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(w, k)``: ``w_b = s_b² / (k_b − 1)`` (0 below two observed systems) and ``k_b``, the
    scale and size of the permutation covariance of each block (the last axis: systems; any
    leading axes, e.g. simulated benchmarks × blocks)."""
    k = observed.sum(axis=-1).astype(np.float64)
    s2 = np.einsum("...j,...j->...", centred, centred)
    # Centred mid-ranks are multiples of ½ times (n + 1)/(k + 1) ≥ ½: a block with some spread
    # has s² ≥ ½; below 1e-8 it is one tie up to rounding and carries nothing.
    w = np.divide(s2, k - 1.0, out=np.zeros_like(s2), where=(k >= 2) & (s2 > 1e-8))
    return w, k


def null_covariance(centred: np.ndarray, observed: np.ndarray) -> np.ndarray:
    r""":math:`\Sigma = \sum_b \frac{s_b^2}{k_b - 1}(I_{O_b} - J_{O_b} / k_b)`: the exact null
    covariance of the column sums of ``centred`` under independent permutations of the observed
    entries of each row.  One matrix product per chunk of blocks, no loop over blocks.

    Parameters
    ----------
    centred : ndarray, shape (..., L, n)
        Centred imputed ranks (0 where unobserved); each row sums to 0. Leading axes (simulated
        benchmarks, in the power simulations) give one ``Σ`` each.
    observed : ndarray of bool, shape (..., L, n)

    Returns
    -------
    ndarray, shape (..., n, n)
    """
    n_rows, n = centred.shape[-2:]
    sigma = np.zeros((*centred.shape[:-2], n, n))
    chunk = max(1, _BLOCK_CELLS // max(n * int(np.prod(centred.shape[:-2], dtype=np.int64)), 1))
    diagonal = np.arange(n)
    with one_blas_thread():  # thin products: threads only add synchronisation
        for start in range(0, n_rows, chunk):  # chunks of blocks: memory, not a loop over blocks
            rows = slice(start, start + chunk)
            obs = observed[..., rows, :].astype(np.float64)
            w, k = block_weights(centred[..., rows, :], observed[..., rows, :])
            scaled = obs * np.divide(w, k, out=np.zeros_like(w), where=k > 0)[..., None]
            sigma -= np.swapaxes(scaled, -1, -2) @ obs
            sigma[..., diagonal, diagonal] += (w[..., None, :] @ obs)[..., 0, :]
    return sigma


def imputed_arrays(expected: np.ndarray, observed: np.ndarray) -> dict[str, np.ndarray]:
    r"""The omnibus statistic on imputed expected ranks for one benchmark or a batch of them.

    ``expected`` and ``observed`` have shape ``(..., L, n)``; every output has the leading shape
    ``(...)``: ``rank_sums`` :math:`A` (``(..., n)``), ``covariance`` :math:`\Sigma`
    (``(..., n, n)``), ``connected`` (the design links every two systems: :math:`\Sigma`, a
    weighted graph Laplacian, has one zero eigenvalue), ``statistic``
    :math:`T = A^\top \Sigma^+ A` (NaN when not connected) and ``within``
    :math:`D = \sum_b (k_b - 1)`. The computation of :func:`imputed_rank_test` and of the power
    simulations (:mod:`rankstats.planning`).
    """
    n = expected.shape[-1]
    centred = np.where(observed, expected - (n + 1) / 2.0, 0.0)
    _, k = block_weights(centred, observed)
    sigma = null_covariance(centred, observed)
    a = centred.sum(axis=-2)
    values, vectors = np.linalg.eigh(sigma)  # ascending: the null space (constants) first
    connected = values[..., 1] > 1e-9 * np.maximum(values[..., -1], 1e-300)
    projected = np.einsum("...ij,...i->...j", vectors[..., :, 1:], a)
    with np.errstate(divide="ignore", invalid="ignore"):
        statistic = np.sum(projected**2 / values[..., 1:], axis=-1)
    return {
        "rank_sums": a,
        "covariance": sigma,
        "connected": connected,
        "statistic": np.where(connected, statistic, np.nan),
        "within": np.sum(np.maximum(k - 1.0, 0.0), axis=-1),
        "eigenvalues": values,
        "eigenvectors": vectors,
    }


def components(sigma: np.ndarray) -> list[np.ndarray]:
    """Connected components of the design: systems linked when an informative block (one with
    two or more observed systems not all tied) ranks both, i.e. when ``Σ_ij ≠ 0`` off the
    diagonal (its terms ``−w_b / k_b`` all have one sign: no cancellation). Sorted indices."""
    adjacency = sigma != 0.0
    np.fill_diagonal(adjacency, False)
    n_comp, label = connected_components(sparse.csr_matrix(adjacency), directed=False)
    return [np.flatnonzero(label == c) for c in range(n_comp)]


@dataclass(frozen=True, eq=False, repr=False)
class ImputedRankTest:
    """The omnibus test on imputed expected ranks (see the module docstring).

    Attributes
    ----------
    statistic : float
        ``T = Aᵀ Σ⁺ A``.
    df : int
        ``rank(Σ) = n − 1``.
    p_value : float
        ``P(χ²_df ≥ T)``.
    f_statistic, f_df, f_p_value
        ``F = (T / d) / ((D − T) / (D − d))`` on ``(d, D − d)`` degrees of freedom.
    rank_sums : ndarray, shape (n,)
        ``A``: the sums over blocks of the centred imputed ranks.
    covariance : ndarray, shape (n, n)
        ``Σ``.
    pinv : ndarray, shape (n, n)
        ``Σ⁺``.
    n_informative : int
        Blocks with two or more observed systems not all tied (the others add nothing).
    within_df : float
        ``D = Σ_b (k_b − 1)`` over the blocks of two or more systems (one tie included, as in
        Iman–Davenport's F).
    """

    statistic: float
    df: int
    p_value: float
    f_statistic: float
    f_df: tuple[int, int]
    f_p_value: float
    rank_sums: np.ndarray
    covariance: np.ndarray
    pinv: np.ndarray
    n_informative: int
    within_df: float

    def pair_variance(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """``Var(A_a − A_b) = Σ_aa + Σ_bb − 2 Σ_ab`` of the pairs ``(a[i], b[i])``."""
        s = self.covariance
        return s[a, a] + s[b, b] - 2.0 * s[a, b]


def imputed_rank_test(
    expected: np.ndarray, observed: np.ndarray, systems: tuple[str, ...]
) -> ImputedRankTest:
    """The omnibus test of "within each block, the observed systems are exchangeable" on the
    imputed expected ranks ``expected`` (``(L, n)``, no NaN) with the evaluated cells
    ``observed``.

    Raises
    ------
    ValueError
        A disconnected design (the message names the components).
    NoVariationError
        No block ranks two systems differently
        (:func:`rankstats.significance.block_variation.require_variation`).
    """
    n = expected.shape[1]
    centred = np.where(observed, expected - (n + 1) / 2.0, 0.0)
    w, _ = block_weights(centred, observed)
    informative = w > 0
    if not informative.any():  # the one decision on blocks without variation
        require_variation(np.where(observed, expected, np.nan))
    arrays = imputed_arrays(expected, observed)
    sigma = arrays["covariance"]
    parts = components(sigma)
    if len(parts) > 1:
        names = [preview([systems[i] for i in part], 4) for part in parts[:4]]
        more = f" and {len(parts) - 4} more" if len(parts) > 4 else ""
        raise ValueError(
            f"the design is disconnected: {len(parts)} groups of systems are never ranked "
            f"against each other in a block with some spread ({'; '.join(names)}{more}); their "
            "imputed ranks cannot be compared: test each group separately"
        )
    a = arrays["rank_sums"]
    values, vectors = arrays["eigenvalues"][1:], arrays["eigenvectors"][:, 1:]
    inv = (vectors / values) @ vectors.T
    d = n - 1
    statistic = float(arrays["statistic"])
    # Every block of two or more systems counts, tied or not, as in Iman–Davenport's F.
    within = float(arrays["within"])
    f, f_p = durbin_f(statistic, d, within)
    return ImputedRankTest(
        statistic=statistic,
        df=d,
        p_value=float(stats.chi2.sf(statistic, d)),
        f_statistic=f,
        f_df=(d, round(within) - d),
        f_p_value=f_p,
        rank_sums=a,
        covariance=sigma,
        pinv=inv,
        n_informative=int(informative.sum()),
        within_df=within,
    )


def durbin_f(statistic: float, df: int, within: float) -> tuple[float, float]:
    """``F = (T / d) / ((D − T) / (D − d))`` and its p-value on ``(d, D − d)`` degrees of
    freedom: Iman–Davenport's F on complete blocks, Conover's (1999) ``T₂`` for Durbin's test;
    ``inf`` (p = 0) when ``T = D`` (every block agrees), NaN when ``D ≤ d``."""
    denominator_df = within - df
    if denominator_df <= 0 or not np.isfinite(statistic):
        return float("nan"), float("nan")
    if within - statistic <= 1e-12 * max(1.0, within):
        return float("inf"), 0.0
    f = (statistic / df) / ((within - statistic) / denominator_df)
    return float(f), float(stats.f.sf(f, df, denominator_df))


def is_exchangeable(sigma: np.ndarray, rtol: float = 1e-9) -> bool:
    """Whether ``Σ ∝ I − J/n`` (complete blocks, balanced incomplete designs): then max ``|z|`` is
    the studentized range of ``n`` independent normals over √2."""
    n = sigma.shape[0]
    scale = np.trace(sigma) / (n - 1)
    target = scale * (np.eye(n) - 1.0 / n)
    return bool(np.max(np.abs(sigma - target)) <= rtol * max(scale, 1e-300))


@dataclass(frozen=True)
class MaxAbsZ:
    """The distribution of ``max_{i<j} |z_ij|`` of a Gaussian vector ``N(0, Σ)``.

    Attributes
    ----------
    method : str
        ``"studentized range"`` (exact) or ``"monte carlo"``.
    maxima : ndarray or None
        The sorted Monte Carlo draws of the maximum (``None`` when exact).
    n_systems : int
    seed : int or None
    """

    method: str
    maxima: np.ndarray | None
    n_systems: int
    seed: int | None = None

    def critical_value(self, alpha: float) -> float:
        """The ``1 − α`` quantile."""
        if self.maxima is None:
            return q_alpha(alpha, self.n_systems)
        return float(np.quantile(self.maxima, 1.0 - alpha))

    def sf(self, z: np.ndarray) -> np.ndarray:
        """``P(max |z| ≥ z)``: the single-step adjusted p-values (Monte Carlo:
        ``(1 + #{draws ≥ z}) / (draws + 1)``)."""
        z = np.abs(np.asarray(z, dtype=np.float64))
        if self.maxima is None:
            return studentized_range_sf(z * np.sqrt(2.0), self.n_systems)
        above = len(self.maxima) - np.searchsorted(self.maxima, z, side="left")
        return (1.0 + above) / (len(self.maxima) + 1.0)

    def describe(self) -> str:
        if self.maxima is None:
            return "max |z| = studentized range / √2 (exact: Σ ∝ I − J/n)"
        return f"max |z| by Monte Carlo ({len(self.maxima):,} draws, seed {self.seed})"


def max_abs_z(
    sigma: np.ndarray,
    method: str = "auto",
    draws: int | None = None,
    seed: int = 0,
) -> MaxAbsZ:
    r"""The null distribution of :math:`\max_{i<j} |Z_i - Z_j| / \sqrt{V_{ij}}` for
    :math:`Z \sim N(0, \Sigma)`, :math:`V_{ij} = \Sigma_{ii} + \Sigma_{jj} - 2 \Sigma_{ij}`.

    ``method="auto"`` uses the studentized range when :math:`\Sigma \propto I - J/n`
    (:func:`is_exchangeable`), Monte Carlo otherwise; ``"mc"`` forces Monte Carlo. The draws are
    ``Z = G R`` with ``R`` a square root of ``Σ`` (its eigen-decomposition) and ``G`` standard
    normal, in chunks of draws vectorised over all pairs; the same seed gives the same numbers.

    Examples
    --------
    >>> import numpy as np
    >>> sigma = np.eye(4) - 0.25
    >>> round(max_abs_z(sigma).critical_value(0.05), 3)  # Demšar's q_0.05 for k = 4
    2.569
    """
    if method not in ("auto", "mc"):
        raise ValueError(f"method must be 'auto' or 'mc', not {method!r}")
    n = sigma.shape[0]
    if method == "auto" and is_exchangeable(sigma):
        return MaxAbsZ("studentized range", None, n)
    draws = DRAWS if draws is None else int(draws)
    if draws < 100:
        raise ValueError(f"draws must be at least 100, not {draws}")
    values, vectors = np.linalg.eigh(sigma)
    root = vectors * np.sqrt(np.clip(values, 0.0, None))  # Σ = root rootᵀ
    d = np.diag(sigma)
    with np.errstate(divide="ignore"):
        inv_sd = 1.0 / np.sqrt(np.maximum(d[:, None] + d[None, :] - 2.0 * sigma, 0.0))
    rng = np.random.default_rng(seed)
    maxima = np.empty(draws)
    chunk = max(1, _DRAW_CELLS // max(n, 1))
    buffer = np.empty((n, min(chunk, draws)))
    for start in range(0, draws, chunk):  # chunks of draws (memory), each vectorised
        m = min(chunk, draws - start)
        with one_blas_thread():
            z = np.ascontiguousarray((rng.standard_normal((m, n)) @ root.T).T)  # (n, m)
        best = np.zeros(m)
        for i in range(n - 1):  # a loop over systems, vectorised over partners and draws
            diff = buffer[: n - 1 - i, :m]
            np.subtract(z[i + 1 :], z[i], out=diff)
            np.abs(diff, out=diff)
            diff *= inv_sd[i, i + 1 :, None]
            np.maximum(best, diff.max(axis=0), out=best)
        maxima[start : start + m] = best
    maxima.sort()
    return MaxAbsZ("monte carlo", maxima, n, seed)
