r"""The M-step of Bock–Aitkin EM: item parameters from the expected counts, all items at once.

Given the expected counts :math:`r_{ikq}` (responses in category ``k`` of item ``i`` at point
:math:`\theta_q`) of the E-step, the expected complete-data log-likelihood separates over items,

.. math:: Q(\xi) = \sum_i \sum_q \sum_k r_{ikq} \log P_{ik}(\theta_q; \xi_i),

(binary items: :math:`r_{iq}\log P + (n_{iq} - r_{iq})\log(1 - P)`).  It is maximised

- for the **2PL** by Newton's method on every item at once (a 2 × 2 system per item; Q is
  concave in (a, d)),
- for the **Rasch** model by Newton's method on the shared slope and the intercepts (an arrow
  shaped Hessian, solved through its Schur complement),
- for the **3PL** and the **graded** model by L-BFGS-B on the stacked items with the analytic
  gradient (graded thresholds through :math:`d_k = d_{k-1} - e^{\eta_k}`, so that they stay
  ordered).

The gradient of :math:`Q` at the current parameters is, by Fisher's identity, the gradient of the
marginal log-likelihood (Louis, 1982): :func:`gradient` serves the M-step and the standard errors.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit

from rankstats.irt.item_models import (
    NO_PRIOR,
    ItemParameters,
    category_probabilities,
)

TINY = 1e-300
#: Bounds of slopes, intercepts and logit(g) in the quasi-Newton M-steps: a parameter that
#: reaches one is reported as not converged (separation, an item nobody answers differently).
BOUND = 30.0


def _binary_terms(r, n, theta, items):
    """Per item and point: ``dQ/dz`` (through the logistic part) and ``dQ/dc`` (logit g)."""
    s = expit(items.slope[:, None] * theta[None, :] + items.intercept[:, :1])
    g = items.guessing[:, None]
    p = np.clip(g + (1.0 - g) * s, TINY, 1.0 - 1e-16)
    dq_dp = r / p - (n - r) / (1.0 - p)
    value = np.sum(r * np.log(p) + (n - r) * np.log1p(-p))
    return value, dq_dp * (1.0 - g) * s * (1.0 - s), dq_dp * g * (1.0 - g) * (1.0 - s)


def _graded_terms(r, theta, items):
    """Value of Q and ``dQ/dz_k`` per item, threshold and point of the graded model."""
    probs = category_probabilities(items, theta)  # K × I × Q
    ratio = np.where(r > 0, r / np.clip(probs, TINY, None), 0.0)
    value = np.sum(np.where(r > 0, r * np.log(np.clip(probs, TINY, None)), 0.0))
    z = items.slope[:, None, None] * theta[None, None, :] + items.intercept[:, :, None]
    star = np.where(np.isnan(z), 0.0, expit(np.nan_to_num(z)))
    # P_k = P*_k − P*_{k+1}: raising threshold k's P*_k raises category k, lowers category k − 1.
    dz = star * (1.0 - star) * (np.moveaxis(ratio[1:], 0, 1) - np.moveaxis(ratio[:-1], 0, 1))
    return value, dz


def gradient(model, r, n, theta, items, prior=NO_PRIOR) -> tuple[float, np.ndarray]:
    """``(Q + log prior, gradient)`` at ``items`` in the layout of :meth:`ItemParameters.vector`."""
    value, grad = _likelihood_gradient(model, r, n, theta, items, prior)
    return value + prior.log_density(model, items), grad + _prior_gradient(model, items, prior)


def _prior_gradient(model, items, prior) -> np.ndarray:
    """Gradient of the slope and intercept priors (the guessing prior is in the 3PL terms)."""
    n = len(items.slope)
    grad_a = np.zeros(n)
    if prior.slope_sd is not None and model != "rasch":
        grad_a = -(items.slope - 1.0) / prior.slope_sd**2
    grad_d = np.zeros(items.intercept.shape)
    if prior.intercept_sd is not None:
        grad_d = -np.nan_to_num(items.intercept) / prior.intercept_sd**2
    if model == "rasch":
        return np.concatenate([[0.0], grad_d[:, 0]])
    if model == "2pl":
        return np.column_stack([grad_a, grad_d[:, 0]]).ravel()
    if model == "3pl":
        return np.column_stack([grad_a, grad_d[:, 0], np.zeros(n)]).ravel()
    return np.concatenate([grad_a, grad_d[~np.isnan(items.intercept)]])


def _likelihood_gradient(model, r, n, theta, items, prior) -> tuple[float, np.ndarray]:
    if model == "graded":
        value, dz = _graded_terms(r, theta, items)
        grad_a = np.einsum("ikq,q->i", dz, theta)
        grad_d = dz.sum(axis=2)
        return value, np.concatenate([grad_a, grad_d[~np.isnan(items.intercept)]])
    value, dz, dc = _binary_terms(r[0], n, theta, items)
    grad_a, grad_d = dz @ theta, dz.sum(axis=1)
    if model == "rasch":
        return value, np.concatenate([[grad_a.sum()], grad_d])
    if model == "2pl":
        return value, np.column_stack([grad_a, grad_d]).ravel()
    grad_c = dc.sum(axis=1)
    if prior.guessing is not None:
        g, (alpha, beta) = items.guessing, prior.guessing
        grad_c = grad_c + (alpha - 1) * (1 - g) - (beta - 1) * g
    return value, np.column_stack([grad_a, grad_d, grad_c]).ravel()


def _newton_terms(r, n, theta, slope, intercept):
    s = expit(slope[:, None] * theta[None, :] + intercept[:, None])
    resid = r - n * s
    w = n * s * (1.0 - s)
    return resid, w


def _precisions(model, prior) -> tuple[float, float]:
    """Prior precisions of slope and intercept (0: no prior)."""
    pa = 0.0 if prior.slope_sd is None or model == "rasch" else prior.slope_sd**-2
    pd_ = 0.0 if prior.intercept_sd is None else prior.intercept_sd**-2
    return pa, pd_


def newton_2pl(r, n, theta, items, prior=NO_PRIOR, steps=25, tol=1e-10) -> ItemParameters:
    """Maximise Q (+ log prior) of the 2PL: Newton on every item's (a, d) at once, the step
    halved while the objective falls."""
    # A separating item (no finite maximum) drives its slope far out: the products overflow
    # there harmlessly (the step is halved, the item flagged as a runaway slope).
    with np.errstate(over="ignore", invalid="ignore"):
        return _newton_2pl(r, n, theta, items, prior, steps, tol)


def _newton_2pl(r, n, theta, items, prior, steps, tol) -> ItemParameters:
    a, d = items.slope.copy(), items.intercept[:, 0].copy()
    pa, pd_ = _precisions("2pl", prior)
    for _ in range(steps):
        resid, w = _newton_terms(r[0], n, theta, a, d)
        ga, gd = resid @ theta - pa * (a - 1.0), resid.sum(axis=1) - pd_ * d
        haa, had, hdd = w @ theta**2 + pa, w @ theta, w.sum(axis=1) + pd_
        det = np.clip(haa * hdd - had**2, 1e-300, None)
        # Newton step (−H)^{-1} g for the 2 × 2 negative Hessian [[haa, had], [had, hdd]].
        step_a = (hdd * ga - had * gd) / det
        step_d = (haa * gd - had * ga) / det
        a_new, d_new = a + step_a, d + step_d
        a, d = _halve(r[0], n, theta, (a, d), (a_new, d_new), (pa, pd_))
        if max(np.abs(step_a).max(initial=0), np.abs(step_d).max(initial=0)) < tol:
            break
    return ItemParameters(a, d[:, None], items.guessing)


def _item_q(r, n, theta, a, d, precisions=(0.0, 0.0)):
    z = a[:, None] * theta[None, :] + d[:, None]
    penalty = 0.5 * (precisions[0] * (a - 1.0) ** 2 + precisions[1] * d**2)
    return np.sum(r * z - n * np.logaddexp(0.0, z), axis=1) - penalty


def _halve(r, n, theta, old, new, precisions, tries=30):
    """Per item, the Newton step halved until Q does not fall (it rarely has to be)."""
    a0, d0 = old
    a, d = (np.broadcast_to(x, a0.shape).copy() for x in new)
    q0 = _item_q(r, n, theta, a0, d0, precisions)
    for _ in range(tries):
        worse = _item_q(r, n, theta, a, d, precisions) < q0 - 1e-12 * np.abs(q0)
        if not worse.any():
            break
        a[worse] = 0.5 * (a[worse] + a0[worse])
        d[worse] = 0.5 * (d[worse] + d0[worse])
    return a, d


def newton_rasch(r, n, theta, items, prior=NO_PRIOR, steps=25, tol=1e-10) -> ItemParameters:
    """Maximise Q of the Rasch model (one slope, I intercepts): Newton with the arrow Hessian
    solved by its Schur complement, O(I) per step."""
    a, d = float(items.slope[0]), items.intercept[:, 0].copy()
    _, pd_ = _precisions("rasch", prior)
    for _ in range(steps):
        resid, w = _newton_terms(r[0], n, theta, np.full(len(d), a), d)
        ga, gd = float((resid @ theta).sum()), resid.sum(axis=1) - pd_ * d
        haa, had, hdd = float((w @ theta**2).sum()), w @ theta, w.sum(axis=1) + pd_
        schur = haa - np.sum(had**2 / hdd)
        step_a = (ga - np.sum(had * gd / hdd)) / schur
        step_d = (gd - had * step_a) / hdd
        q0 = _item_q(r[0], n, theta, np.full(len(d), a), d, (0.0, pd_)).sum()
        for _ in range(30):
            q1 = _item_q(r[0], n, theta, np.full(len(d), a + step_a), d + step_d, (0.0, pd_))
            q1 = q1.sum()
            if q1 >= q0 - 1e-12 * abs(q0):
                break
            step_a, step_d = 0.5 * step_a, 0.5 * step_d
        a, d = a + step_a, d + step_d
        if max(abs(step_a), np.abs(step_d).max(initial=0)) < tol:
            break
    return ItemParameters(np.full(len(d), a), d[:, None], items.guessing)


def _graded_internal(items: ItemParameters) -> np.ndarray:
    """``[a, d_1, η_2, ...]`` per item (η_k = log(d_{k−1} − d_k)), padded thresholds 0."""
    d = items.intercept
    gaps = np.log(np.clip(d[:, :-1] - d[:, 1:], 1e-8, None))
    return np.column_stack([items.slope, d[:, 0], np.nan_to_num(gaps, nan=0.0)])


def _graded_from_internal(x: np.ndarray, template: ItemParameters) -> ItemParameters:
    steps = np.exp(x[:, 2:])
    d = np.column_stack([x[:, 1], x[:, 1:2] - np.cumsum(steps, axis=1)])
    d[np.isnan(template.intercept)] = np.nan
    return ItemParameters(x[:, 0].copy(), d, template.guessing)


def to_internal(model: str, items: ItemParameters) -> np.ndarray:
    """The unconstrained vector the quasi-Newton steps move (graded: ordered thresholds)."""
    return _graded_internal(items).ravel() if model == "graded" else items.vector(model)


def from_internal(model: str, x: np.ndarray, template: ItemParameters) -> ItemParameters:
    """The inverse of :func:`to_internal` (shapes from ``template``)."""
    if model == "graded":
        return _graded_from_internal(x.reshape(len(template.slope), -1), template)
    return template.from_vector(model, x)


def chain(model: str, x: np.ndarray, grad: np.ndarray, template: ItemParameters) -> np.ndarray:
    """A gradient in the layout of ``ItemParameters.vector`` carried to :func:`to_internal`."""
    if model != "graded":
        return grad
    n_items, used = len(template.slope), ~np.isnan(template.intercept)
    grad_d = np.zeros(template.intercept.shape)
    grad_d[used] = grad[n_items:]
    steps = np.exp(x.reshape(n_items, -1)[:, 2:])
    # d_k = d_1 − Σ_{j≤k} e^{η_j}: ∂/∂d_1 = Σ_k ∂/∂d_k, ∂/∂η_k = −e^{η_k} Σ_{j≥k} ∂/∂d_j.
    tail = np.cumsum(grad_d[:, ::-1], axis=1)[:, ::-1]
    g = np.column_stack([grad[:n_items], grad_d.sum(axis=1), -steps * tail[:, 1:]])
    g[:, 2:][~used[:, 1:]] = 0.0
    return g.ravel()


def maximise(objective, x0: np.ndarray, max_iter: int, gtol: float = 1e-5, ftol: float = 2.2e-9):
    """L-BFGS-B on ``objective(x) -> (value, gradient)`` (maximised) within ±:data:`BOUND`;
    returns the optimum, whether it sits on a bound, and whether L-BFGS-B converged."""

    def negative(x):
        value, grad = objective(x)
        return -value, -grad

    result = minimize(
        negative,
        x0,
        jac=True,
        method="L-BFGS-B",
        bounds=[(-BOUND, BOUND)] * len(x0),
        options={"maxiter": max_iter, "gtol": gtol, "ftol": ftol},
    )
    return result.x, bool(np.any(np.abs(result.x) >= BOUND - 1e-6)), bool(result.success)


def lbfgs_step(
    model, r, n, theta, items, prior=NO_PRIOR, max_iter=10
) -> tuple[ItemParameters, bool]:
    """Maximise Q of the 3PL or graded model by L-BFGS-B on all items stacked; returns the
    parameters and whether any of them sits on :data:`BOUND`."""

    def objective(x):
        value, grad = gradient(model, r, n, theta, from_internal(model, x, items), prior)
        return value, chain(model, x, grad, items)

    x, at_bound, _ = maximise(objective, to_internal(model, items), max_iter)
    return from_internal(model, x, items), at_bound
