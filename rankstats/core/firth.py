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
penalty.  Every model of rankstats is a product of multinomial-logit choices (a stage
:math:`S` picks one of its alternatives with probabilities :math:`p = \operatorname{softmax}
(X_S\varphi)`, possibly with fixed offsets): a Bradley–Terry pair picks item1, item2 or a tie
(design rows :math:`e_i + f`, :math:`e_j`, :math:`e_\lambda + \tfrac12(e_i + e_j + f)`, with
:math:`f` the order effect's and the covariates' columns), a Plackett–Luce choice picks one of
what is left (Efron's tie weights are offsets), and covariates enter through the design map
:math:`\theta = A\varphi`.  Then :math:`I = \sum_S m_S X_S^\top(\operatorname{diag}p -
pp^\top)X_S` (``m_S`` the stage's count) and, differentiating :math:`p` (:math:`\partial p /
\partial\varphi_r = p \odot (x_r - p^\top x_r)`, :math:`x_r` the column ``r`` of :math:`X_S`),

.. math:: \operatorname{tr}\Big(B\,\frac{\partial I}{\partial\varphi_r}\Big)
          = \sum_S m_S\, x_{S,r}^\top\big[p \odot (g - p^\top g)\big], \qquad
          g = \operatorname{diag}(G_S) - 2 G_S p, \quad G_S = X_S B X_S^\top

for any symmetric :math:`B` (Firth 1993, §3; Kosmidis & Firth 2009 for multinomial and
Bradley–Terry models): with :math:`B = I^{-1}`, twice the penalty's gradient.  A model attaches
this *trace* to its objective (:func:`with_trace`: ``trace(params, B)``, the vector
:math:`\operatorname{tr}(B\,\partial I/\partial\varphi_r)` over ``r``; with free worths
:math:`G_S` is a gather of entries of :math:`B`), and a design map composes it
(:math:`\varphi \mapsto A\varphi`: :math:`A^\top \operatorname{trace}(A\varphi, ABA^\top)`).
An objective without one (none of the models' bias-reduced fits) is penalised through central
differences of its analytic Hessian (step :data:`STEP`: error :math:`O(10^{-8})` relative; two
Hessians per parameter and iteration), which the tests also use to check the traces.  The
Newton step of the penalised objective uses :math:`I` in place of :math:`-\nabla^2\ell^*` (the
modified-score Fisher scoring of Firth 1993 and ``brglm``), with a line search on
:math:`\ell^*`; the standard errors are from :math:`I^{-1}` at the penalised estimate, as
``brglm`` reports them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from scipy import linalg

from rankstats._util.advice import AdviceError

Objective = Callable[[np.ndarray, bool], tuple[float, np.ndarray | None, np.ndarray | None]]
#: ``trace(params, B)``: :math:`\operatorname{tr}(B\,\partial I/\partial\varphi_r)` for every
#: parameter ``r`` (module docstring), ``B`` symmetric, of the size of ``params``.
Trace = Callable[[np.ndarray, np.ndarray], np.ndarray]

#: What ``fit.info["bias_reduction"]`` says of a bias-reduced fit.
FIRTH = "Firth (1993): likelihood + ½ log det I (Jeffreys prior)"

#: Step of the central differences of the Hessian (parameters are log-worths, O(1)).
STEP = 1e-4
#: Newton steps of the penalised objective stop below this: the modified score by differences
#: is accurate to about 1e-10 (their rounding), below which the steps are noise.
TOL = 1e-8


def with_trace(function: Objective, trace: Trace) -> Objective:
    """``function`` with its exact trace attached (what :func:`firth_objective` uses instead of
    differences of the Hessian); returns ``function``."""
    function.information_trace = trace  # type: ignore[attr-defined]
    return function


def trace_of(function: Objective) -> Trace | None:
    """The trace :func:`with_trace` attached to ``function``, or None."""
    return getattr(function, "information_trace", None)


def choice_terms(
    gram: Sequence[Sequence[np.ndarray]], p: Sequence[np.ndarray], count: np.ndarray
) -> list[np.ndarray]:
    r""":math:`m\,p \odot (g - p^\top g)`, :math:`g = \operatorname{diag}(G) - 2Gp`, of every
    stage (module docstring), one array per alternative: ``gram[a][b]`` :math:`(G_S)_{ab}`
    and ``p[a]`` of every stage, ``count`` their :math:`m_S` (a few alternatives over many
    stages: one vectorised pass per entry).  Summed against the design rows they give the
    trace."""
    k = len(p)
    gp = [sum(gram[a][c] * p[c] for c in range(k)) for a in range(k)]
    g = [gram[a][a] - 2.0 * gp[a] for a in range(k)]
    mean = sum(p[a] * g[a] for a in range(k))
    return [count * p[a] * (g[a] - mean) for a in range(k)]


def firth_objective(function: Objective, free: np.ndarray) -> Objective:
    r"""``function`` (log-likelihood, gradient, Hessian of every parameter) penalised by
    :math:`\tfrac12\log\det I_{ff}`, :math:`I_{ff}` the information of the ``free`` parameters
    (a boolean mask: the last log-worth is fixed when the log-worths are free; the penalty does
    not depend on which one, the change of reference having determinant 1).

    Returns ``(ℓ*, U*, ∇²ℓ)``: the penalised value, Firth's modified score and the Hessian of
    ``ℓ`` itself (the Fisher-scoring step of the modified score).  A point where :math:`I_{ff}`
    is not positive definite has :math:`\ell^* = -\infty` (the line search steps back from it).
    The modified score is exact when ``function`` carries a trace (:func:`with_trace`), else
    from central differences of the Hessian.  The line search's last evaluation is kept: the
    derivatives at the accepted point reuse its Hessian and Cholesky factor.
    """
    free = np.asarray(free, dtype=bool)
    trace = trace_of(function)
    last: list = [b"", None]  # the last parameters (bytes) and (ℓ, ∇ℓ, ∇²ℓ, factor)

    def evaluate(params: np.ndarray):
        key = np.ascontiguousarray(params, dtype=np.float64).tobytes()
        if key != last[0]:
            value, grad, hess = function(params, True)
            last[:] = [key, (value, grad, hess, _cholesky(-hess[np.ix_(free, free)]))]
        return last[1]

    def penalised(params: np.ndarray, derivatives: bool):
        value, grad, hess, factor = evaluate(params)
        if factor is None:
            return -np.inf, None, None
        value = value + float(np.sum(np.log(np.diag(factor))))  # ½ log det I = Σ log diag L
        if not derivatives:
            return value, None, None
        inverse = np.zeros_like(hess)
        inverse[np.ix_(free, free)] = _inverse(factor)
        if trace is not None:
            adjustment = 0.5 * trace(params, inverse)
        else:
            adjustment = _differenced_trace(function, params, inverse, free)
        adjustment[~free] = 0.0
        return value, grad + adjustment, hess

    return penalised


def _cholesky(information: np.ndarray) -> np.ndarray | None:
    """The lower Cholesky factor of ``information``, None when it is not positive definite."""
    try:
        factor = linalg.cholesky(information, lower=True, check_finite=False)
    except (linalg.LinAlgError, ValueError):
        return None
    diagonal = np.diag(factor)
    return factor if np.all(np.isfinite(factor)) and np.all(diagonal > 0) else None


def _inverse(factor: np.ndarray) -> np.ndarray:
    """:math:`I^{-1}` from the lower Cholesky factor of :math:`I` (LAPACK ``potri``)."""
    inverse, info = linalg.lapack.dpotri(factor, lower=True)
    if info != 0:
        raise np.linalg.LinAlgError(f"dpotri failed ({info})")
    lower = np.tril(inverse)
    return lower + np.tril(lower, -1).T


def _differenced_trace(
    function: Objective, params: np.ndarray, inverse: np.ndarray, free: np.ndarray
) -> np.ndarray:
    r""":math:`\tfrac12\operatorname{tr}(I^{-1}\partial I/\partial\varphi_k)` of every free
    parameter, :math:`\partial I/\partial\varphi_k = -\partial H/\partial\varphi_k` by central
    differences of the Hessian (for objectives without a trace)."""
    adjustment = np.zeros_like(params)
    for k in np.flatnonzero(free):
        up, down = params.copy(), params.copy()
        up[k] += STEP
        down[k] -= STEP
        d_info = -(function(up, True)[2] - function(down, True)[2])
        adjustment[k] = 0.5 * float(np.sum(inverse * d_info.T)) / (2 * STEP)
    return adjustment


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
            bias_reduction=True,
            mle=("method", "mle"),
            method=("method", method),
        )
    if bias_reduction and random_effect:
        raise AdviceError(
            "{bias_reduction} is not available with {random_effect}: fit the fixed covariate "
            "model bias-reduced, or the random effect by maximum likelihood",
            bias_reduction=True,
            random_effect=True,
        )
