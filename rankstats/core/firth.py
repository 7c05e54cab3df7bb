r"""Firth's (1993) bias-reduced estimate: the likelihood penalised by Jeffreys' prior.

For a log-likelihood :math:`\ell(\varphi)` with information :math:`I(\varphi) =
-\nabla^2\ell(\varphi)`, the bias-reduced estimate maximises

.. math:: \ell^*(\varphi) = \ell(\varphi) + \tfrac12 \log\det I(\varphi),

whose score is Firth's modified score

.. math:: U^*_k(\varphi) = U_k(\varphi)
          + \tfrac12 \operatorname{tr}\!\Big(I(\varphi)^{-1}
          \frac{\partial I(\varphi)}{\partial \varphi_k}\Big).

It removes the :math:`O(1/n)` bias of the MLE, and it is finite when the MLE is not: a system
that never loses (separation) has :math:`\ell` increasing towards :math:`+\infty` but
:math:`\log\det I \to -\infty` faster (Firth 1993; Heinze & Schemper 2002).  For a GLM with the
canonical link — Bradley–Terry is a logistic regression on :math:`x_i - x_j`, Davidson's ties and
an order effect keep the model log-linear — :math:`-\nabla^2\ell` *is* the Fisher information
(it does not depend on the outcomes), the penalty is Jeffreys' prior and the estimate is
``brglm``'s (Kosmidis & Firth 2009), which BradleyTerry2 calls with ``BTm(..., br = TRUE)``.
For Plackett–Luce the information is that of each choice given its choice set (the negated
Hessian of the likelihood of the sequence of choices), as Heinze & Schemper (2001) penalise the
Cox partial likelihood.

The models supply :math:`\ell`, its gradient and Hessian (the objective functions that
:func:`rankstats.core.bradley_terry_mle.newton` maximises); :func:`firth_objective` adds the
penalty.  :math:`\partial I / \partial\varphi_k` comes from central differences of the analytic
Hessian (step :data:`STEP`: error :math:`O(10^{-8})` relative, far below the standard errors), so
every model, with or without covariates, is penalised by the same code.  The Newton step of the
penalised objective uses :math:`I` in place of :math:`-\nabla^2\ell^*` (the modified-score
Fisher scoring of Firth 1993 and ``brglm``), with a line search on :math:`\ell^*`; the standard
errors are from :math:`I^{-1}` at the penalised estimate, as ``brglm`` reports them.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from rankstats._util.advice import AdviceError, Spelled

Objective = Callable[[np.ndarray, bool], tuple[float, np.ndarray | None, np.ndarray | None]]

#: What ``fit.info["bias_reduction"]`` says of a bias-reduced fit.
FIRTH = "Firth (1993): likelihood + ½ log det I (Jeffreys prior)"

#: Step of the central differences of the Hessian (parameters are log-worths, O(1)).
STEP = 1e-4
#: Newton steps of the penalised objective stop below this: the modified score is accurate to
#: about 1e-10 (the differences' rounding), below which the steps are noise.
TOL = 1e-8


def firth_objective(function: Objective, free: np.ndarray) -> Objective:
    r"""``function`` (log-likelihood, gradient, Hessian of every parameter) penalised by
    :math:`\tfrac12\log\det I_{ff}`, :math:`I_{ff}` the information of the ``free`` parameters
    (a boolean mask: the last log-worth is fixed when the log-worths are free; the penalty does
    not depend on which one, the change of reference having determinant 1).

    Returns ``(ℓ*, U*, ∇²ℓ)``: the penalised value, Firth's modified score and the Hessian of
    ``ℓ`` itself (the Fisher-scoring step of the modified score).  A point where :math:`I_{ff}`
    is singular has :math:`\ell^* = -\infty` (the line search steps back from it).
    """
    free = np.asarray(free, dtype=bool)
    index = np.flatnonzero(free)

    def penalised(params: np.ndarray, derivatives: bool):
        value, grad, hess = function(params, True)
        sign, logdet = np.linalg.slogdet(-hess[np.ix_(free, free)])
        if sign <= 0 or not np.isfinite(logdet):
            return -np.inf, None, None
        value = value + 0.5 * logdet
        if not derivatives:
            return value, None, None
        inverse = np.linalg.inv(-hess[np.ix_(free, free)])
        adjustment = np.zeros_like(params)
        for k in index:  # ½ tr(I⁻¹ ∂I/∂φ_k), ∂I/∂φ_k = −∂H/∂φ_k by central differences
            up, down = params.copy(), params.copy()
            up[k] += STEP
            down[k] -= STEP
            d_info = -(function(up, True)[2] - function(down, True)[2])[np.ix_(free, free)]
            adjustment[k] = 0.5 * float(np.sum(inverse * d_info.T)) / (2 * STEP)
        return value, grad + adjustment, hess

    return penalised


def free_mask(n_worths: int, size: int) -> np.ndarray:
    """The parameters :func:`rankstats.core.bradley_terry_mle.newton` moves: all but the last
    log-worth (``n_worths=0``: all, a parametrisation identified already)."""
    free = np.ones(size, dtype=bool)
    if n_worths:
        free[n_worths - 1] = False
    return free


def check_bias_reduction(bias_reduction: object, method: str, random_effect: bool = False) -> None:
    """The one check of ``bias_reduction=`` (a bool; only with ``method="mle"``, without a random
    effect): raised before any fitting."""
    if not isinstance(bias_reduction, bool | np.bool_):
        raise TypeError(f"bias_reduction must be True or False, not {bias_reduction!r}")
    if bias_reduction and method != "mle":
        raise AdviceError(
            "{bias_reduction} penalises the likelihood: it goes with {mle}, not {method} "
            "(whose prior already keeps the estimates finite)",
            bias_reduction=Spelled("bias_reduction=True", "--bias-reduction"),
            mle=Spelled("method='mle'", "--method mle"),
            method=Spelled(f"method={method!r}", f"--method {method}"),
        )
    if bias_reduction and random_effect:
        raise AdviceError(
            "{bias_reduction} is not available with {random_effect}: fit the fixed covariate "
            "model bias-reduced, or the random effect by maximum likelihood",
            bias_reduction=Spelled("bias_reduction=True", "--bias-reduction"),
            random_effect=Spelled("random_effect=True", "--random-effect"),
        )
