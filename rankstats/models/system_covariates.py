r"""System covariates in Bradley–Terry: log-worths as a linear function of the systems' covariates.

A system ``i`` with covariates :math:`x_i` (a row of the user's table) has the log-worth

.. math:: \theta_i = x_i^\top \beta,

and a system without (absent from the table, or with a missing value) keeps a log-worth of its
own, as BradleyTerry2's ``BTm`` does for players with missing covariates (Turner & Firth 2012,
§ "Missing values").  So :math:`\theta = A\varphi` with
:math:`\varphi = (\beta, \theta_{\text{own}})` and a fixed matrix :math:`A`
(:class:`CovariateMap`), and the Bradley–Terry likelihood
(:mod:`rankstats.core.bradley_terry_likelihood`) is maximised over :math:`\varphi` (and
Davidson's tie parameter): gradient :math:`A^\top g_\theta`, Hessian :math:`A^\top H_\theta A`
by the chain rule (:func:`fit_with_covariates`), standard errors from the observed information.

**Identification.**  The likelihood depends on differences of log-worths only, so a shift
:math:`\theta \to \theta + c` must not be reachable through :math:`\varphi`: the covariates of the
systems that have them must not span the constant (no intercept column, no dummies adding up to
one) and must be linearly independent.  Both are checked before fitting, on columns rescaled to a
common size (:mod:`rankstats.core.collinearity`: FLOP counts of 1e18 next to 0/1 columns are
not "dependent"), and the message names the collinear columns.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from rankstats.core.bradley_terry_mle import firth_newton, newton
from rankstats.core.collinearity import collinear_columns, equilibrated
from rankstats.core.firth import trace_of, with_trace
from rankstats.core.keys import first_rows_of, refuse_whitespace_variants
from rankstats.core.newton_krylov import GRADIENT, hessian_cost, with_hessian_cost
from rankstats.errors import InvalidScoresError


@dataclass(frozen=True, eq=False)
class CovariateMap:
    """How the log-worths follow from the parameters: :math:`\\theta = A\\varphi`.

    Attributes
    ----------
    systems : tuple of str
    names : tuple of str
        The covariates (the coefficients :math:`\\beta`, first in :math:`\\varphi`).
    own : tuple of str
        The systems without covariates, each with a log-worth of its own (after :math:`\\beta`).
    matrix : ndarray, shape (N, K + len(own))
        :math:`A`.
    """

    systems: tuple[str, ...]
    names: tuple[str, ...]
    own: tuple[str, ...]
    matrix: np.ndarray

    @property
    def covered(self) -> np.ndarray:
        """Whether each system has covariates (no log-worth of its own), a boolean mask."""
        return ~self.matrix[:, len(self.names) :].any(axis=1)

    @property
    def means(self) -> np.ndarray:
        """The mean covariates of the systems that have them, :math:`\\bar x`."""
        return self.matrix[self.covered, : len(self.names)].mean(axis=0)

    @property
    def parameter_names(self) -> list[str]:
        return [f"beta: {name}" for name in self.names] + [f"own: {s}" for s in self.own]


def covariate_map(systems: Sequence[str], covariates: pd.DataFrame) -> CovariateMap:
    """The :class:`CovariateMap` of ``covariates`` (one row per system, indexed by its name; numeric
    columns) for ``systems``; errors name the offending system or column."""
    if not isinstance(covariates, pd.DataFrame):
        raise TypeError(f"covariates must be a DataFrame indexed by system, not {type(covariates)}")
    systems = tuple(str(s) for s in systems)
    index = [str(s) for s in covariates.index]
    keys = pd.Series(index, dtype=object)
    refuse_whitespace_variants(  # "gpt-4" and "gpt-4 ": two keys printed alike
        "system", keys, first_rows_of(keys, lambda rows: [f"covariates row {r}" for r in rows])
    )
    unknown = sorted(set(index) - set(systems))
    if unknown:
        raise InvalidScoresError(
            f"covariates name system(s) {', '.join(map(repr, unknown[:5]))} that the data do "
            f"not have; its systems: {', '.join(map(repr, systems[:8]))}"
        )
    if len(set(index)) != len(index):
        twice = sorted({s for s in index if index.count(s) > 1})
        raise InvalidScoresError(f"covariates have several rows for {', '.join(map(repr, twice))}")
    names = tuple(str(c) for c in covariates.columns)
    if not names:
        raise InvalidScoresError("covariates have no column")
    values = np.full((len(systems), len(names)), np.nan)
    rows = [systems.index(s) for s in index]
    for k, column in enumerate(covariates.columns):
        raw = covariates[column]
        if pd.api.types.is_bool_dtype(raw) or not pd.api.types.is_numeric_dtype(raw):
            raise InvalidScoresError(
                f"covariate column {str(column)!r} is not numeric (code categories as 0/1 "
                "columns, one fewer than the categories)"
            )
        column_values = raw.to_numpy(dtype=np.float64, na_value=np.nan)
        if np.isinf(column_values).any():
            where = index[int(np.flatnonzero(np.isinf(column_values))[0])]
            raise InvalidScoresError(f"covariate {str(column)!r} is infinite for {where!r}")
        values[rows, k] = column_values
    covered = ~np.isnan(values).any(axis=1)
    x = values[covered]
    dependent = collinear_columns(x, names)  # scale-free: FLOP counts next to 0/1 columns
    if dependent:
        raise InvalidScoresError(
            f"the covariates {', '.join(map(repr, dependent))} are collinear (linearly "
            f"dependent) over the {int(covered.sum())} systems that have them: their effects "
            "are not identified; leave one of them out"
        )
    scaled = equilibrated(x)
    spans = np.linalg.lstsq(scaled, np.ones(len(x)), rcond=None)
    if len(x) and np.allclose(scaled @ spans[0], 1.0, atol=1e-9):
        raise InvalidScoresError(
            "the covariates span a constant (an intercept column, or dummies that add up to "
            "one): Bradley–Terry log-worths are defined up to a constant, so that combination "
            "is not identified; leave out the intercept, or one dummy"
        )
    own = tuple(s for s, c in zip(systems, covered, strict=True) if not c)
    matrix = np.zeros((len(systems), len(names) + len(own)))
    matrix[covered, : len(names)] = x
    for k, s in enumerate(own):
        matrix[systems.index(s), len(names) + k] = 1.0
    return CovariateMap(systems, names, own, matrix)


def free_map(systems: Sequence[str]) -> CovariateMap:
    """The map of a model without covariates whose every log-worth is a random effect (the
    log-worths are :math:`u_i \\sim N(0, \\sigma^2)`): no coefficient, no own log-worth."""
    systems = tuple(str(s) for s in systems)
    return CovariateMap(systems, (), (), np.zeros((len(systems), 0)))


@dataclass(frozen=True, eq=False)
class CovariateOptimum:
    """The MLE over :math:`\\varphi` (and the model's other parameters, e.g. log ν): ``params``
    :math:`(\\varphi, \\text{extra})`, its ``covariance`` (inverse observed information), the
    log-likelihood, and the log-worths :math:`\\theta = A\\varphi` with their covariance
    :math:`A\\Sigma A^\\top`.  With a random effect (:func:`fit_random_effect`), ``sigma`` is
    its MLE and ``sigma_se`` the standard error, ``log_worth`` the conditional modes
    :math:`A\\hat\\varphi + \\hat u` and ``objective`` the Laplace log marginal likelihood."""

    params: np.ndarray
    covariance: np.ndarray
    objective: float
    log_worth: np.ndarray
    worth_covariance: np.ndarray
    sigma: float | None = None
    sigma_se: float | None = None
    #: Every estimated parameter ψ (with the random effects u, before the model's other
    #: parameters), its covariance, and the map of the log-worths θ = M ψ[:M.shape[1]]: the
    #: joint normal (Laplace) draws of a fit (:mod:`rankstats.models.covariate_fit`).
    full_params: np.ndarray | None = None
    full_covariance: np.ndarray | None = None
    full_map: np.ndarray | None = None
    #: The log-worths' constant part (±PINNED for unbounded own log-worths): θ = M ψ + offset.
    full_offset: np.ndarray | None = None


Objective = Callable[[np.ndarray, bool], tuple[float, Any, Any]]


def fit_with_covariates(
    function: Objective, cmap: CovariateMap, n_extra: int, bias_reduction: bool = False
) -> CovariateOptimum:
    """The MLE of a rank model whose log-likelihood ``function(params, derivatives)`` takes the
    ``N`` log-worths followed by ``n_extra`` other parameters (a model's ``_objective``), with
    the log-worths :math:`A\\varphi` (module docstring): gradient :math:`J^\\top g`, Hessian
    :math:`J^\\top H J` with :math:`J = \\operatorname{diag}(A, I)`.  ``bias_reduction``:
    Firth's estimate, the likelihood penalised by :math:`\\tfrac12\\log\\det(J^\\top I J)`
    (:func:`rankstats.core.bradley_terry_mle.firth_newton`)."""
    a = cmap.matrix
    n, p = a.shape
    jacobian = np.zeros((n + n_extra, p + n_extra))
    jacobian[:n, :p] = a
    jacobian[n:, p:] = np.eye(n_extra)
    fitter = firth_newton if bias_reduction else newton
    optimum = fitter(_through(function, jacobian), 0, p + n_extra)
    phi = optimum.params
    log_worth = a @ phi[:p]
    worth_covariance = a @ optimum.covariance[:p, :p] @ a.T
    return CovariateOptimum(
        phi,
        optimum.covariance,
        optimum.objective,
        log_worth,
        worth_covariance,
        full_params=phi,
        full_covariance=optimum.covariance,
        full_map=a,
    )


def _through(
    function: Objective,
    jacobian: np.ndarray,
    penalty: np.ndarray | None = None,
    offset: np.ndarray | None = None,
):
    """``function`` of ``jacobian @ params + offset`` (minus ``½ paramsᵀ diag(penalty)
    params``), with the trace of Firth's penalty of ``function`` composed through the map
    (:mod:`rankstats.core.firth`), when it has one.  When ``function`` has Hessian–vector
    products (:mod:`rankstats.core.newton_krylov`) and its Hessian costs more of them than the
    map has columns (a few covariates), :math:`J^\top H J` is :math:`J^\top` times the products
    of the columns of :math:`J`: linear in the data, where the Hessian of the Plackett–Luce
    log-worths is O(L·K²)."""
    offset = np.zeros(jacobian.shape[0]) if offset is None else offset
    columns = jacobian.shape[1]
    by_products = hessian_cost(function) > columns  # a few coefficients: JᵀHJ from HJ

    def composed(params: np.ndarray, derivatives: bool | str):
        exact = derivatives is True and by_products
        value, grad, hess = function(jacobian @ params + offset, GRADIENT if exact else derivatives)
        if penalty is not None:
            value = value - 0.5 * float(penalty @ params**2)
        if grad is None:
            return value, None, None
        grad = jacobian.T @ grad  # linear in the data: the gradient of the log-worths, mapped
        if penalty is not None:
            grad = grad - penalty * params
        if exact:  # JᵀHJ from the products of J's columns
            hess = jacobian.T @ np.column_stack([hess(column) for column in jacobian.T])
            hess = 0.5 * (hess + hess.T) - (0.0 if penalty is None else np.diag(penalty))
        elif callable(hess):  # a Hessian–vector product (GRADIENT: rankstats.core.newton_krylov)
            hess = _product_through(hess, jacobian, penalty)
        elif hess is not None:
            hess = jacobian.T @ hess @ jacobian
            if penalty is not None:
                hess = hess - np.diag(penalty)
        return value, grad, hess

    if hessian_cost(function):
        with_hessian_cost(composed, min(hessian_cost(function), columns))
    inner = trace_of(function)
    if inner is None:
        return composed

    def trace(params: np.ndarray, b: np.ndarray) -> np.ndarray:
        # I_ψ = Jᵀ I_θ J (+ the constant penalty): tr(B ∂I_ψ/∂ψ_r) = Σ_s J_sr tr(JBJᵀ ∂I_θ/∂θ_s)
        return jacobian.T @ inner(jacobian @ params + offset, jacobian @ b @ jacobian.T)

    return with_trace(composed, trace)


def _product_through(
    product: Callable[[np.ndarray], np.ndarray], jacobian: np.ndarray, penalty: np.ndarray | None
) -> Callable[[np.ndarray], np.ndarray]:
    """``u ↦ Jᵀ H J u`` (minus ``penalty · u``) from ``product`` = ``v ↦ H v``: O(data)."""

    def composed(u: np.ndarray) -> np.ndarray:
        out = jacobian.T @ product(jacobian @ u)
        return out if penalty is None else out - penalty * u

    return composed


SIGMA_BOUNDS = (1e-4, 20.0)
#: The log-worth given to a system of its own that never loses (minus: never wins) in a fit
#: with a random effect: its comparisons then have probability 1 to within double precision
#: (:math:`e^{-50} \approx 2\times10^{-22}`), which is the limit of the fit as it goes to infinity.
PINNED = 50.0


@dataclass(frozen=True, eq=False)
class RandomDesign:
    r"""The parameters of a fit with a random effect, :math:`\psi = (\varphi_{\text{kept}}, u,
    \text{extra})`, and the model's parameters :math:`J\psi + c` (the ``N`` log-worths, then
    the extras).  The columns of :math:`\varphi` in ``pinned`` (systems of their own that never
    lose, +1, or never win, −1) are not estimated: :math:`c` holds ±:data:`PINNED` for them."""

    jacobian: np.ndarray
    offset: np.ndarray
    kept: np.ndarray
    pinned: dict[int, int]
    n_random: int

    @property
    def n_fixed(self) -> int:
        return len(self.kept)

    @property
    def random(self) -> slice:
        return slice(self.n_fixed, self.n_fixed + self.n_random)


def unbounded_own(cmap: CovariateMap, beats: np.ndarray | None) -> dict[int, int]:
    """The systems of their own (no covariates, so no random effect) whose log-worth is
    infinite: +1 for one that never loses, −1 for one that never wins (``beats[i, j] > 0``: i
    beat or tied j), after setting aside those found before (their comparisons tell nothing
    more in the limit); keyed by the column of :math:`\\varphi`."""
    if beats is None or not cmap.own:
        return {}
    edges = np.asarray(beats) > 0
    np.fill_diagonal(edges, False)
    own = ~cmap.covered
    active = np.ones(len(own), dtype=bool)
    found: dict[int, int] = {}
    while True:
        live = edges & active[:, None] & active[None, :]
        wins, losses = live.any(axis=1), live.any(axis=0)
        new = np.flatnonzero(own & active & (wins != losses))
        if not len(new):
            return found
        for i in new:
            column = int(np.flatnonzero(cmap.matrix[i, len(cmap.names) :])[0]) + len(cmap.names)
            found[column] = 1 if wins[i] else -1
        active[new] = False


def random_design(cmap: CovariateMap, n_extra: int, beats: np.ndarray | None) -> RandomDesign:
    """The :class:`RandomDesign` of ``cmap`` with a random effect for each system with
    covariates, the unbounded own log-worths (:func:`unbounded_own`) pinned."""
    a = cmap.matrix
    n, p = a.shape
    pinned = unbounded_own(cmap, beats)
    kept = np.array([k for k in range(p) if k not in pinned], dtype=int)
    covered = np.flatnonzero(cmap.covered)
    q = len(covered)
    f = len(kept)
    jacobian = np.zeros((n + n_extra, f + q + n_extra))
    jacobian[:n, :f] = a[:, kept]
    jacobian[covered, f + np.arange(q)] = 1.0
    jacobian[n:, f + q :] = np.eye(n_extra)
    offset = np.zeros(n + n_extra)
    for column, sign in pinned.items():
        offset[:n] += sign * PINNED * a[:, column]
    return RandomDesign(jacobian, offset, kept, pinned, q)


def mode(
    function: Objective, design: RandomDesign, sigma: float, start: np.ndarray | None = None
) -> Any:
    r"""The joint mode of :math:`h(\psi) = \ell(J\psi + c) - u^\top u / 2\sigma^2` by Newton's
    method from ``start`` (the mode at a nearby σ: a warm start), with ``information``
    :math:`-\nabla^2 h`."""
    size = design.jacobian.shape[1]
    penalty = np.zeros(size)
    penalty[design.random] = sigma**-2.0
    start = np.zeros(size) if start is None else start
    through = _through(function, design.jacobian, penalty, design.offset)

    def shifted(delta: np.ndarray, derivatives: bool):
        return through(start + delta, derivatives)

    found = newton(shifted, 0, size)
    return replace(found, params=start + found.params)


def random_optimum(
    design: RandomDesign,
    cmap: CovariateMap,
    found: Any,
    objective: float,
    sigma: float,
    sigma_se: float | None,
) -> CovariateOptimum:
    """The :class:`CovariateOptimum` of a fit with a random effect at the mode ``found``
    (params ψ, covariance the inverse of :math:`-\\nabla^2 h`); pinned own log-worths are ±∞
    with a NaN standard error."""
    n, p = cmap.matrix.shape
    f, q = design.n_fixed, design.n_random
    params, covariance = found.params, found.covariance
    log_worth = (design.jacobian @ params + design.offset)[:n]
    for column, sign in design.pinned.items():
        log_worth[cmap.matrix[:, column] > 0] = sign * np.inf
    theta_j = design.jacobian[:n, : f + q]
    keep = np.r_[np.arange(f), np.arange(f + q, len(params))]
    phi = np.full(p + len(params) - f - q, np.nan)
    phi_cov = np.full((len(phi), len(phi)), np.nan)
    index = np.r_[design.kept, np.arange(p, len(phi))]
    phi[index] = params[keep]
    phi_cov[np.ix_(index, index)] = covariance[np.ix_(keep, keep)]
    for column, sign in design.pinned.items():
        phi[column] = sign * np.inf
    return CovariateOptimum(
        phi,
        phi_cov,
        float(objective),
        log_worth,
        theta_j @ covariance[: f + q, : f + q] @ theta_j.T,
        sigma,
        sigma_se,
        params,
        covariance,
        theta_j,
        design.offset[:n],
    )


def fit_random_effect(
    function: Objective, cmap: CovariateMap, n_extra: int, beats: np.ndarray | None = None
) -> CovariateOptimum:
    r"""Maximum (Laplace) likelihood of :math:`\theta = A\varphi + u`, :math:`u_i \sim N(0,
    \sigma^2)` for the systems with covariates (a system with a log-worth of its own needs none).

    For a given :math:`\sigma` the joint mode of
    :math:`h(\varphi, u) = \ell(A\varphi + u) - u^\top u / 2\sigma^2` is found by Newton's
    method (:func:`fit_with_covariates`' chain rule), and the marginal likelihood of
    :math:`(\varphi, \sigma)` is approximated by Laplace's method,

    .. math:: \log L(\sigma) \approx h(\hat\varphi, \hat u)
              - \tfrac12 \log\det(I + \sigma^2 K_{uu}), \qquad
              K_{uu} = -\partial^2 \ell / \partial u\, \partial u^\top,

    maximised over :math:`\log\sigma` (bounded, :data:`SIGMA_BOUNDS`).  The fixed effects are
    taken at the joint mode rather than maximising the marginal, as lme4's ``nAGQ = 0`` does
    (Bates et al. 2015); standard errors of :math:`\varphi` from the inverse of
    :math:`-\nabla^2 h`, of :math:`\sigma` from the curvature of :math:`\log L` in
    :math:`\log\sigma`.  When the maximum is at the lower bound, :math:`\hat\sigma = 0` (no
    detectable variation beyond the covariates; no standard error) and the fit is the
    fixed-effect one.  A system of its own that never loses (never wins) has log-worth
    :math:`+\infty` (:math:`-\infty`): :func:`unbounded_own`, given the ``beats`` matrix.
    Penalised quasi-likelihood, the other estimator, is
    :func:`rankstats.models.random_effect_pql.fit_pql`.
    """
    from scipy.optimize import minimize_scalar

    design = random_design(cmap, n_extra, beats)
    q, random = design.n_random, design.random
    cache: dict[float, tuple[float, Any]] = {}
    last: list[np.ndarray] = []

    def profile(log_sigma: float) -> float:
        if log_sigma not in cache:
            optimum = mode(function, design, float(np.exp(log_sigma)), last[-1] if last else None)
            last.append(optimum.params)
            info_uu = optimum.information[random, random] - np.exp(-2.0 * log_sigma) * np.eye(q)
            _, logdet = np.linalg.slogdet(np.eye(q) + np.exp(2.0 * log_sigma) * info_uu)
            cache[log_sigma] = (optimum.objective - 0.5 * logdet, optimum)
        return -cache[log_sigma][0]

    low, high = np.log(SIGMA_BOUNDS)
    found = minimize_scalar(profile, bounds=(low, high), method="bounded", options={"xatol": 1e-5})
    log_sigma = float(found.x)
    if log_sigma - low <= 1e-2 and not design.pinned:  # σ̂ = 0: the fixed-effect fit
        fixed = fit_with_covariates(function, cmap, n_extra)
        return replace(fixed, sigma=0.0)
    value, optimum = cache[log_sigma]
    sigma_se = None
    if high - log_sigma > 1e-2 and log_sigma - low > 1e-2:
        step = 1e-3
        curvature = (profile(log_sigma + step) - 2 * -value + profile(log_sigma - step)) / step**2
        if curvature > 0:
            sigma_se = float(np.exp(log_sigma) / np.sqrt(curvature))
    sigma = float(np.exp(log_sigma)) if log_sigma - low > 1e-2 else 0.0
    return random_optimum(design, cmap, optimum, value, sigma, sigma_se)
