r"""Quasi-variances: one number per system that gives the standard error of every difference.

A fit's log-worths (or ratings) :math:`b_1, \dots, b_N` are identified only up to a constant, so
what a reader needs is the standard error of each *difference* :math:`b_i - b_j`; a table of
standard errors relative to one reference system (or of centred estimates) does not give it.
Quasi-variances (Ridout 1989; Firth & de Menezes 2004) are numbers :math:`q_1, \dots, q_N` with

.. math:: \operatorname{Var}(b_i - b_j) \approx q_i + q_j \qquad \text{for every pair } i < j,

so that intervals :math:`b_i \pm 1.96\sqrt{q_i}` ("comparison intervals") can be compared by
eye: two systems whose comparison intervals do not overlap differ at about the 5 % level.  They
are chosen, as in Firth & de Menezes (2004, §2.2) and the R package *qvcalc*, by least squares on
the log scale:

.. math:: \min_q \sum_{i<j} \big[\log(q_i + q_j) - \log v_{ij}\big]^2,
          \qquad v_{ij} = C_{ii} + C_{jj} - 2C_{ij},

from the covariance :math:`C` of the estimates (any parametrisation: centred, or one system
fixed at 0, gives the same :math:`v_{ij}`).  The accuracy of the approximation is reported as
the relative error of each pair's standard error,

.. math:: e_{ij} = \sqrt{(q_i + q_j) / v_{ij}} - 1,

and, over *all* contrasts :math:`c^\top b` (:math:`\sum c = 0`), the extremes of
:math:`\sqrt{c^\top Q c / c^\top C c} - 1` with :math:`Q = \mathrm{diag}(q)`: the square roots
of the extreme generalised eigenvalues of :math:`(Q, C)` on the contrasts (Firth & de Menezes
2004, §2.3), computed relative to the first system.  With three systems the approximation is
exact; a quasi-variance may then be negative (its quasi-standard error is NaN), which is valid
for contrasts but gives no comparison interval.  With two systems only :math:`q_1 + q_2` is
determined; the symmetric split :math:`q_1 = q_2 = v_{12}/2` is used (exact).

The minimisation is Newton's method (Gauss–Newton where the Hessian is not positive definite)
on the :math:`N \times N` matrices (no loop over pairs),
started from the linear least-squares fit of :math:`v_{ij} \approx q_i + q_j` (exact when the
covariance has the quasi-variance form), with step halving that keeps every :math:`q_i + q_j`
positive.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import linalg, stats

from rankstats._util.arguments import probability
from rankstats._util.renamed import renamed_parameters

_MAX_ITERATIONS = 200
_TOLERANCE = 1e-10


@dataclass(frozen=True, eq=False, repr=False)
class QuasiVariances:
    """Quasi-variances of a set of estimates (:func:`quasi_variances`).

    Attributes
    ----------
    table : pandas.DataFrame
        One row per system, in the input order: ``system``, ``estimate`` (NaN when not given),
        ``se`` (square root of the covariance's diagonal, in the parametrisation given),
        ``quasi_se`` (:math:`\\sqrt{q_i}`; NaN for a negative quasi-variance), ``quasi_var``.
    pairs : pandas.DataFrame
        One row per pair ``i < j`` (input order): ``system_a``, ``system_b``, ``se`` (the exact
        standard error of the difference), ``quasi_se`` (:math:`\\sqrt{q_i + q_j}`),
        ``relative_error`` (:math:`\\sqrt{(q_i + q_j)/v_{ij}} - 1`).
    worst_pair : tuple of float
        The most negative and the most positive ``relative_error`` over the pairs.
    worst_contrast : tuple of float
        The same over all contrasts (NaN when a quasi-variance is negative enough to make
        :math:`c^\\top Q c` negative for some contrast).
    iterations : int
        Newton iterations used (0 when the start was already optimal).
    """

    table: pd.DataFrame
    pairs: pd.DataFrame
    worst_pair: tuple[float, float]
    worst_contrast: tuple[float, float]
    iterations: int

    @property
    def quasi_se(self) -> pd.Series:
        """Quasi-standard errors indexed by system."""
        return self.table.set_index("system")["quasi_se"]

    @renamed_parameters(confidence="confidence_level")
    def comparison_intervals(self, confidence_level: float = 0.95) -> pd.DataFrame:
        """``system, estimate, low, high``: :math:`b_i \\pm z\\sqrt{q_i}` with
        :math:`z = \\Phi^{-1}((1 + \\text{confidence\\_level})/2)` (1.96 at 95 %).

        Two systems whose intervals do not overlap differ at about level ``1 − confidence_level``
        (exactly so when the approximation is exact and the two quasi-s.e. are equal).
        """
        confidence_level = probability("confidence_level", confidence_level)
        z = float(stats.norm.ppf(0.5 + confidence_level / 2))
        est, qse = self.table["estimate"], self.table["quasi_se"]
        return pd.DataFrame(
            {
                "system": self.table["system"],
                "estimate": est,
                "low": est - z * qse,
                "high": est + z * qse,
            }
        )

    def accuracy(self) -> str:
        """The approximation's worst relative errors in one sentence (percent, as qvcalc)."""
        lo, hi, clo, chi = (
            round(100 * e, 1) + 0.0 for e in (*self.worst_pair, *self.worst_contrast)
        )
        return (  # + 0.0 above: no "-0.0"
            f"worst relative errors of the standard errors from quasi-variances: pairs "
            f"{lo:+.1f} % / {hi:+.1f} %, all contrasts {clo:+.1f} % / {chi:+.1f} %"
        )

    def __repr__(self) -> str:
        return (
            f"QuasiVariances({len(self.table)} systems; {self.accuracy()})\n"
            f"{self.table.to_string(index=False)}"
        )


def quasi_variances(
    covariance: np.ndarray | pd.DataFrame,
    estimates: Sequence[float] | pd.Series | None = None,
    systems: Sequence[str] | None = None,
) -> QuasiVariances:
    """Quasi-variances of estimates with covariance ``covariance`` (Firth & de Menezes 2004).

    Parameters
    ----------
    covariance : (N, N) array or DataFrame
        Covariance of the estimates (centred, or with a reference system's row and column 0);
        a DataFrame's index names the systems.  At least two systems.
    estimates : sequence of float, optional
        The estimates themselves (for the table and the comparison intervals).
    systems : sequence of str, optional
        System names (default: the DataFrame's index, else ``"0"``, ``"1"``, …).

    Returns
    -------
    QuasiVariances

    Raises
    ------
    ValueError
        A covariance that is not square, symmetric and finite, or a difference whose variance
        is not positive (the pair is named).

    Examples
    --------
    >>> import numpy as np
    >>> qv = quasi_variances(np.diag([1.0, 2.0, 3.0]) + 0.5, systems=["a", "b", "c"])
    >>> qv.table["quasi_var"].round(6).tolist()
    [1.0, 2.0, 3.0]
    """
    cov, names = _checked_covariance(covariance, systems)
    n = len(names)
    est = _checked_estimates(estimates, names)
    diag = np.diag(cov)
    v = diag[:, None] + diag[None, :] - 2.0 * cov
    a, b = np.triu_indices(n, 1)
    bad = np.flatnonzero(~(v[a, b] > 0))
    if bad.size:
        k = bad[0]
        raise ValueError(
            f"the difference of systems {names[a[k]]!r} and {names[b[k]]!r} has variance "
            f"{v[a[k], b[k]]:.3g} ≤ 0: the covariance does not identify it, so no quasi-variances"
        )
    q, iterations = _fit(v)
    fitted = q[:, None] + q[None, :]
    rel = np.sqrt(fitted[a, b] / v[a, b]) - 1.0
    with np.errstate(invalid="ignore"):  # a negative quasi-variance has no quasi-s.e.
        qse = np.sqrt(q)
    table = pd.DataFrame(
        {
            "system": names,
            "estimate": est,
            "se": np.sqrt(np.maximum(diag, 0.0)),
            "quasi_se": qse,
            "quasi_var": q,
        }
    )
    pairs = pd.DataFrame(
        {
            "system_a": np.asarray(names, dtype=object)[a],
            "system_b": np.asarray(names, dtype=object)[b],
            "se": np.sqrt(v[a, b]),
            "quasi_se": np.sqrt(fitted[a, b]),
            "relative_error": rel,
        }
    )
    worst = (float(rel.min()), float(rel.max()))
    return QuasiVariances(table, pairs, worst, _contrast_errors(cov, q), iterations)


# ---------------------------------------------------------------------------- checks
def _checked_covariance(
    covariance: np.ndarray | pd.DataFrame, systems: Sequence[str] | None
) -> tuple[np.ndarray, list[str]]:
    if systems is None and isinstance(covariance, pd.DataFrame):
        systems = [str(s) for s in covariance.index]
    cov = np.asarray(covariance, dtype=np.float64)
    if cov.ndim != 2 or cov.shape[0] != cov.shape[1]:
        raise ValueError(f"covariance must be a square matrix, got shape {cov.shape}")
    n = cov.shape[0]
    if n < 2:
        raise ValueError(f"quasi-variances need at least 2 systems, got {n}")
    if not np.isfinite(cov).all():
        raise ValueError("covariance holds NaN or infinite values")
    scale = max(float(np.abs(cov).max()), np.finfo(float).tiny)
    if np.abs(cov - cov.T).max() > 1e-8 * scale:
        raise ValueError("covariance must be symmetric")
    names = [str(s) for s in systems] if systems is not None else [str(i) for i in range(n)]
    if len(names) != n:
        raise ValueError(f"{len(names)} system names for a {n} × {n} covariance")
    if len(set(names)) != n:
        raise ValueError("system names must be unique")
    return 0.5 * (cov + cov.T), names


def _checked_estimates(estimates, names: list[str]) -> np.ndarray:
    n = len(names)
    if estimates is None:
        return np.full(n, np.nan)
    if isinstance(estimates, pd.Series) and set(map(str, estimates.index)) == set(names):
        estimates = estimates.set_axis([str(s) for s in estimates.index]).loc[names]
    est = np.asarray(estimates, dtype=np.float64)
    if est.shape != (n,):
        raise ValueError(f"estimates must hold one number per system ({n}), got shape {est.shape}")
    return est


# ---------------------------------------------------------------------------- the fit
def _start(v: np.ndarray) -> np.ndarray:
    """Least squares of ``v_ij ≈ q_i + q_j``: with row sums ``s`` (off the diagonal),
    ``(N − 2) q + (Σq) 1 = s``; a constant when that start makes some ``q_i + q_j ≤ 0``."""
    n = len(v)
    off = ~np.eye(n, dtype=bool)
    s = np.where(off, v, 0.0).sum(axis=1)
    total = s.sum() / (2 * n - 2)
    q = (s - total) / (n - 2)
    if ((q[:, None] + q[None, :])[off] > 0).all():
        return q
    return np.full(n, 0.5 * float(np.median(v[off])))


def _fit(v: np.ndarray) -> tuple[np.ndarray, int]:
    """Newton / Gauss–Newton for ``min Σ_{i<j} [log(q_i + q_j) − log v_ij]²``."""
    n = len(v)
    if n == 2:
        return np.full(2, 0.5 * v[0, 1]), 0
    off = ~np.eye(n, dtype=bool)
    log_v = np.log(np.where(off, v, 1.0))

    def objective(q: np.ndarray) -> tuple[float, np.ndarray, np.ndarray] | None:
        m = q[:, None] + q[None, :]
        if not (m[off] > 0).all():
            return None
        r = np.where(off, np.log(np.where(off, m, 1.0)) - log_v, 0.0)
        return 0.25 * float((r * r).sum()), r, np.where(off, 1.0 / np.where(off, m, 1.0), 0.0)

    q = _start(v)
    current = objective(q)
    for iteration in range(_MAX_ITERATIONS):
        value, r, inv = current
        grad = (r * inv).sum(axis=1)  # ∂/∂q_k of ½ Σ_{i<j} r_ij²
        step = _newton_step(grad, inv, r)
        if np.abs(step).max() <= _TOLERANCE * max(np.abs(q).max(), 1e-300):
            return q, iteration
        t = 1.0
        while True:
            trial = objective(q + t * step)
            if trial is not None and trial[0] < value:
                break
            t *= 0.5
            if t < 1e-12:  # no decrease along the step: at the optimum (rounding)
                return q, iteration
        q, current = q + t * step, trial
    raise RuntimeError(
        f"quasi-variances: Newton's method did not converge in {_MAX_ITERATIONS} iterations"
    )


def _newton_step(grad: np.ndarray, inv: np.ndarray, r: np.ndarray) -> np.ndarray:
    """Newton's step when the Hessian is positive definite (quadratic convergence near the
    optimum, where Gauss–Newton is only linear for residuals that are not 0), else the
    Gauss–Newton step.  With ``w = 1/m²``: Gauss–Newton ``J'J = W + diag(W 1)``; the exact
    Hessian weighs each pair by ``1 − r_ij`` (``∂² log m / ∂q² = −1/m²``)."""
    w = inv * inv
    for weights in (w * (1.0 - r), w):
        hessian = weights + np.diag(weights.sum(axis=1))
        try:
            factor = linalg.cho_factor(hessian)
        except linalg.LinAlgError:
            continue
        return linalg.cho_solve(factor, -grad)
    return np.linalg.lstsq(hessian, -grad, rcond=None)[0]


def _contrast_errors(cov: np.ndarray, q: np.ndarray) -> tuple[float, float]:
    """Extreme relative errors over all contrasts: generalised eigenvalues of the quasi-variance
    and true covariances of the differences from the first system."""
    first = cov[0]
    reduced = (cov + first[0] - first[:, None] - first[None, :])[1:, 1:]
    quasi = np.diag(q[1:]) + q[0]
    try:
        values = linalg.eigh(quasi, reduced, eigvals_only=True)
    except linalg.LinAlgError:
        return float("nan"), float("nan")
    with np.errstate(invalid="ignore"):
        errors = np.sqrt(values[[0, -1]]) - 1.0
    return float(errors[0]), float(errors[1])
