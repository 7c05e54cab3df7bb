r"""Newton's method for objectives whose Hessian costs much more than their gradient.

The Plackett–Luce log-likelihood of ``L`` rankings of ``K`` systems has a gradient and
Hessian–vector products in O(L·K) but a Hessian in O(L·K²) (:mod:`rankstats.models._mle`).
:func:`krylov_newton` takes inexact Newton steps (Dembo, Eisenstat & Steihaug 1982): each solves
:math:`-\nabla^2\ell\, s = \nabla\ell` by conjugate gradients on Hessian–vector products
(Hestenes & Stiefel 1952), preconditioned by the Cholesky factor of the last exact Hessian
(Nocedal & Wright 2006, §7.1), to a relative residual :math:`\min(0.1, \|\nabla\ell\|_\infty)`
(quadratic convergence, Dembo et al. 1982).  When the conjugate gradients need more products
than a new Hessian costs (the objective says how much, :func:`with_hessian_cost`), the Hessian
is recomputed at the current point.  So a fit computes a handful of Hessians (one at the start,
one at the optimum for the standard errors, a few in between when the curvature changes much),
the rest is linear in the data.  Steps longer than :data:`MAX_STEP` are shortened (a trust
region), and a line search keeps the objective from decreasing, as in
:func:`rankstats.core.bradley_terry_mle.newton`.

An objective takes part by answering ``function(params, GRADIENT)`` with ``(value, gradient,
product)``, ``product(u)`` being the Hessian times ``u``; ``derivatives=True`` and ``False`` mean
what they mean to :func:`rankstats.core.bradley_terry_mle.newton`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy import linalg

from rankstats.core.firth import Objective

#: ``derivatives`` asking an objective for its value, gradient and Hessian–vector product.
GRADIENT = "gradient"
#: The longest step: far from the optimum a Newton step of the Plackett–Luce likelihood can
#: overshoot by tens of log-worth units (a system that wins nearly every choice), into a region
#: where the worths underflow and the Hessian is singular to working precision.
MAX_STEP = 2.0


def with_hessian_cost(function: Objective, cost: float) -> Objective:
    """Say that ``function`` answers ``derivatives=GRADIENT`` and that its Hessian (and the
    factorisation of it) costs about ``cost`` Hessian–vector products: :func:`newton
    <rankstats.core.bradley_terry_mle.newton>` then runs :func:`krylov_newton`.  Returns
    ``function``."""
    function.hessian_cost = float(cost)  # type: ignore[attr-defined]
    return function


def hessian_cost(function: Objective) -> float:
    """The cost :func:`with_hessian_cost` attached to ``function`` (0: exact Newton steps)."""
    return float(getattr(function, "hessian_cost", 0.0))


def krylov_newton(
    function: Objective,
    free: np.ndarray,
    tol: float,
    max_iter: int,
    slack: float,
    error: type[Exception],
) -> tuple[np.ndarray, float, np.ndarray, int]:
    """Maximise ``function`` over the ``free`` parameters from 0 (module docstring); stops when
    the largest step is below ``tol``.  Returns the parameters, the value and the exact Hessian
    there, and the number of steps; raises ``error`` as ``newton`` does."""
    cost = hessian_cost(function)
    params = np.zeros(len(free))
    value, grad, hess = function(params, True)
    factor, product, hessians = None, None, 0
    for iteration in range(1, max_iter * (2 + int(cost)) + 1):
        g = grad[free]
        step = None
        if hess is None:  # conjugate gradients on the products, the old Hessian preconditioning
            step = _conjugate_gradients(product, free, g, factor, int(cost) + 1)
        if step is None:  # a new Hessian pays for itself
            if hess is None:
                value, grad, hess = function(params, True)
            hessians += 1
            if hessians > max_iter:
                break
            factor = _factor(-hess[np.ix_(free, free)], iteration, error)
            step = linalg.cho_solve(factor, g, check_finite=False)
        if not np.all(np.isfinite(step)):
            raise error(f"non-finite Newton step at iteration {iteration}")
        step *= min(1.0, MAX_STEP / max(float(np.max(np.abs(step))), 1e-300))
        params, scale = halving_line_search(
            function, params, free, step, value, slack, iteration, error
        )
        value, grad, product = function(params, GRADIENT)
        hess = None
        if np.max(np.abs(scale * step)) < tol:
            value, grad, hess = function(params, True)
            return params, value, hess, iteration
    raise error(
        f"Newton–Raphson did not converge in {max_iter} iterations (last step "
        f"{np.max(np.abs(scale * step)):.2e})"
    )


def halving_line_search(
    function: Objective,
    params: np.ndarray,
    free: np.ndarray,
    step: np.ndarray,
    value: float,
    slack: float,
    iteration: int,
    error: type[Exception],
) -> tuple[np.ndarray, float]:
    """Halve ``step`` (over the ``free`` parameters) until the objective at ``params + scale *
    step`` is finite and not below ``value`` by more than ``slack * |value|``.  Returns the new
    parameters and the ``scale`` taken; raises ``error`` below a scale of 1e-10."""
    scale = 1.0
    while True:
        candidate = params.copy()
        candidate[free] += scale * step
        new_value = function(candidate, False)[0]
        if np.isfinite(new_value) and new_value >= value - slack * abs(value):
            return candidate, scale
        scale *= 0.5
        if scale < 1e-10:
            raise error(f"line search failed at iteration {iteration}")


def _factor(information: np.ndarray, iteration: int, error: type[Exception]) -> tuple:
    try:
        factor = linalg.cho_factor(information, lower=True, check_finite=False)
    except (linalg.LinAlgError, ValueError) as err:
        raise error(f"singular information matrix at iteration {iteration}") from err
    if not np.all(np.isfinite(factor[0])):
        raise error(f"singular information matrix at iteration {iteration}")
    return factor


def _conjugate_gradients(
    product: Callable[[np.ndarray], np.ndarray],
    free: np.ndarray,
    g: np.ndarray,
    factor: tuple,
    limit: int,
) -> np.ndarray | None:
    r"""Solve :math:`-H s = g` (``product(u)`` = :math:`Hu` over every parameter, ``u`` zero at
    the fixed ones) by preconditioned conjugate gradients to a relative residual
    :math:`\min(0.1, \|g\|_\infty)`; None when ``limit`` products do not get there."""
    target = min(0.1, float(np.max(np.abs(g)))) * float(np.linalg.norm(g))
    full = np.zeros(len(free))
    s = np.zeros_like(g)
    r = g.copy()
    z = linalg.cho_solve(factor, r, check_finite=False)
    p = z.copy()
    rz = float(r @ z)
    for _ in range(limit):
        full[free] = p
        ap = -product(full)[free]
        curvature = float(p @ ap)
        if not curvature > 0:  # not positive definite along p: let a new Hessian decide
            return None
        alpha = rz / curvature
        s += alpha * p
        r -= alpha * ap
        if np.linalg.norm(r) <= target:
            return s
        z = linalg.cho_solve(factor, r, check_finite=False)
        rz, previous = float(r @ z), rz
        p = z + (rz / previous) * p
    return None
