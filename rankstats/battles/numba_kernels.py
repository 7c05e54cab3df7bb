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
