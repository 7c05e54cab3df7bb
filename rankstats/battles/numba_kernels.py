"""numba kernel of the battle bootstrap (optional: ``pip install "rankstats[fast]"``).

Poisson variates by inversion with a guide table (:class:`rankstats.battles.fitting.PoissonTable`):
the same deterministic function of the same uniforms as the NumPy fallback, so the bootstrap
gives identical numbers with and without numba.  Compiled once and cached on disk; ``nogil``, so
the bootstrap's threads run it in parallel.
"""

from __future__ import annotations

import numba
import numpy as np

_OPTIONS = {"cache": True, "nogil": True, "fastmath": False, "error_model": "numpy"}


@numba.njit(
    "void(float64[:, ::1], int64[::1], int64[::1], float64[::1], int64[::1], int64[:, ::1])",
    **_OPTIONS,
)
def invert(u, cell_offset, cell_length, cdf, guide, out):  # pragma: no cover - compiled
    """``out[b, k] = min{x : F_k(x) >= u[b, k]}`` with the guide table of cell ``k``."""
    size, cells = u.shape
    for b in range(size):
        for k in range(cells):
            value = u[b, k]
            offset = cell_offset[k]
            length = cell_length[k]
            x = guide[offset + np.int64(value * length)]
            while x < length - 1 and cdf[offset + x] < value:
                x += 1
            out[b, k] = x


@numba.njit(
    "void(float64[:, ::1], int64[::1], int64[::1], float64[:, ::1], float64[:, ::1], "
    "float64[:, ::1], float64[::1], float64[::1], boolean, boolean, float64[:, ::1])",
    **_OPTIONS,
)
def gradient(theta, item1, item2, a, m, t, eta, log_nu, ties, order, grad):  # pragma: no cover
    """Gradient of the battle log-likelihood for every replicate (columns), fused over pairs.

    ``theta`` (N, B); ``a = wins1 + ties / 2``, ``m = wins1 + wins2 + ties`` and ``t`` (P, B);
    ``grad`` (N + ties + order, B) is overwritten: log-worths, then log ν, then η.
    """
    n, size = theta.shape
    grad[:] = 0.0
    lam_row = n
    eta_row = n + (1 if ties else 0)
    nu = np.exp(log_nu)
    for p in range(item1.shape[0]):
        i = item1[p]
        j = item2[p]
        for b in range(size):
            z = theta[i, b] - theta[j, b]
            if order:
                z += eta[b]
            s = np.exp(0.5 * z)
            r = s * s
            if ties:
                c = nu[b] * s
                d = r + 1.0 + c
                q = c / d
                mi = r / d + 0.5 * q
                grad[lam_row, b] += t[p, b] - m[p, b] * q
            else:
                mi = r / (r + 1.0)
            residual = a[p, b] - m[p, b] * mi
            grad[i, b] += residual
            grad[j, b] -= residual
            if order:
                grad[eta_row, b] += residual


@numba.njit("uint64(uint64)", **_OPTIONS)
def _mix(x):  # pragma: no cover - compiled
    """splitmix64's finaliser (Steele, Lea & Flood 2014): a counter → 64 random bits."""
    x = x + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@numba.njit(
    "void(uint64, int64, int64[::1], int64[::1], float64[::1], float64[:, ::1], int64[::1])",
    **_OPTIONS,
)
def score_sums(key, first, indptr, indices, data, out, counts):  # pragma: no cover - compiled
    """``out[r] = Σ_c w_rc S_c``: replicate ``first + r`` draws its clusters with replacement
    (draw ``k`` is cluster ``⌊mix(key + (first + r)·C + k) / 2³²⌋ · C / 2³²``), ``S`` the
    per-cluster scores in CSR form (``indptr``, ``indices``, ``data``); ``counts`` is work space
    of length C.  The draws depend on the replicate's number only, not on the chunking."""
    n_clusters = indptr.shape[0] - 1
    size = out.shape[0]
    c64 = np.uint64(n_clusters)
    for r in range(size):
        counts[:] = 0
        base = key + np.uint64(first + r) * c64
        for k in range(n_clusters):
            bits = _mix(base + np.uint64(k))
            counts[np.int64(((bits >> np.uint64(32)) * c64) >> np.uint64(32))] += 1
        row = out[r]
        row[:] = 0.0
        for c in range(n_clusters):
            w = counts[c]
            if w:
                for j in range(indptr[c], indptr[c + 1]):
                    row[indices[j]] += w * data[j]
