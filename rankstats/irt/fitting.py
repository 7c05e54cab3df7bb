"""``rs.irt.fit``: an item response model fitted by marginal maximum likelihood (EM)."""

from __future__ import annotations

import contextlib
import warnings

import numpy as np
import pandas as pd

from rankstats._util.blas_threads import one_blas_thread
from rankstats.errors import DataWarning, preview
from rankstats.irt import abilities as _abilities
from rankstats.irt.estep import ResponseArrays, posterior
from rankstats.irt.estimation import run_em
from rankstats.irt.item_models import MODELS, NO_PRIOR, ItemPrior, mirt_grid
from rankstats.irt.item_tables import RUNAWAY_SLOPE
from rankstats.irt.responses import BINARY, GRADED, Responses, responses_from_wide
from rankstats.irt.result import IRTFit

#: Below this many cell × grid products a fit runs on one BLAS thread.
SMALL_PRODUCTS = 50_000_000


def _degenerate(responses: Responses) -> dict[str, str]:
    """Items that carry no information about ability: never answered, or every answer the
    same (everyone right, everyone wrong, one category)."""
    values, observed = responses.values, responses.mask.astype(bool)
    n = observed.sum(axis=0)
    low = np.where(observed, values, np.inf).min(axis=0)
    high = np.where(observed, values, -np.inf).max(axis=0)
    reasons = {}
    for i in np.flatnonzero((n == 0) | (low == high)):
        name = responses.items[i]
        if n[i] == 0:
            reasons[name] = "no system answered it"
        elif responses.binary or responses.n_categories[i] == 2:
            reasons[name] = "every system right" if high[i] == 1 else "every system wrong"
        else:
            reasons[name] = f"every system in category {int(high[i])}"
    return reasons


def _kept(responses: Responses, excluded: dict[str, str]) -> Responses:
    keep = np.array([name not in excluded for name in responses.items])
    if not keep.any():
        raise ValueError(
            "no item separates the systems (every item is answered the same by all): "
            f"{preview(excluded)}"
        )
    if len(responses.systems) < 2:
        raise ValueError("an item response model needs at least two systems")
    return Responses(
        responses.values[:, keep],
        responses.systems,
        tuple(np.asarray(responses.items, dtype=object)[keep]),
        responses.n_categories[keep],
    )


def fit(
    data: Responses | pd.DataFrame,
    model: str = "2pl",
    *,
    method: str = "EAP",
    n_points: int = 61,
    limit: float = 6.0,
    tol: float = 1e-4,
    max_iter: int = 500,
    gtol: float = 1e-6,
    prior: ItemPrior | None = None,
    confidence_level: float = 0.95,
    max_se_parameters: int = 2000,
    ability_points: int = 121,
) -> IRTFit:
    r"""Fit an item response model by marginal maximum likelihood (Bock–Aitkin EM).

    Parameters
    ----------
    data : Responses or pandas.DataFrame
        :func:`~rankstats.irt.responses.responses_from_long` / ``_from_wide``, or a wide
        DataFrame (systems × items, NaN = not run: never counted as wrong).
    model : {"rasch", "2pl", "3pl", "graded"}
        Rasch / 1PL (one slope, reported as slope 1 and the latent standard deviation), 2PL,
        3PL (guessing), graded response (Samejima) for ordered categories 0, 1, ..., K − 1.
    method : {"EAP", "MAP", "ML"}
        The ability estimates (:mod:`rankstats.irt.abilities`).
    n_points, limit : int, float
        The quadrature grid: ``n_points`` equally spaced on ``[-limit, limit]`` (mirt's default
        61 and 6 for one factor).
    tol, max_iter : float, int
        EM stops when no parameter moves by more than ``tol`` (mirt's ``TOL`` and
        ``NCYCLES``); at ``max_iter`` it warns unless the polish below converges.
    gtol : float
        The polish after EM (L-BFGS on the marginal log-likelihood, exact gradient) stops when
        no component of the gradient per system exceeds ``gtol``
        (:mod:`rankstats.irt.estimation`).
    prior : ItemPrior, optional
        Priors of the item parameters (:class:`~rankstats.irt.item_models.ItemPrior`: slopes
        N(1, sd²), intercepts N(0, sd²), 3PL guessing Beta(α, β)), making the estimates Bayes
        modal (mirt's ``parprior``). None by default, as in mirt: maximum likelihood. With few
        systems and many items, a slope prior (``ItemPrior(slope_sd=0.5)``) keeps the items
        that separate the systems perfectly finite; the fit warns when a slope runs away.
    confidence_level : float
        Coverage of the ability intervals (θ ± z · SE).
    ability_points : int
        Points of the grid (on the same range) of the EAP abilities after the fit: mirt's
        ``fscores`` default of 121 for one factor.
    max_se_parameters : int
        Largest number of free item parameters for which the standard errors are computed
        (two E-steps each).

    Returns
    -------
    IRTFit

    Warns
    -----
    DataWarning
        Items every system answered the same way (or no system answered): left out of the
        fit and listed in ``IRTFit.flags``.
    NotConvergedWarning
        EM reached ``max_iter``.

    Examples
    --------
    >>> import numpy as np
    >>> import rankstats as rs
    >>> rng = np.random.default_rng(0)
    >>> theta, b = rng.normal(size=60), np.linspace(-1.5, 1.5, 12)
    >>> right = rng.random((60, 12)) < 1 / (1 + np.exp(-(theta[:, None] - b)))
    >>> fit = rs.irt.fit(right.astype(float), model="rasch")
    >>> fit.items.shape[0], fit.converged
    (12, True)
    """
    if model not in MODELS:
        raise ValueError(f"model must be one of {', '.join(MODELS)}, not {model!r}")
    if method not in _abilities.METHODS:
        raise ValueError(f"method must be one of {', '.join(_abilities.METHODS)}, not {method!r}")
    kind = GRADED if model == "graded" else BINARY
    responses = data if isinstance(data, Responses) else responses_from_wide(data, kind=kind)
    if model != "graded" and not responses.binary:
        raise ValueError(f"model {model!r} needs 0/1 responses; use model='graded'")
    excluded = _degenerate(responses)
    if excluded:
        warnings.warn(
            f"{len(excluded)} item(s) left out of the fit, every system answering them alike: "
            f"{preview(f'{k} ({v})' for k, v in excluded.items())}",
            DataWarning,
            stacklevel=2,
        )
    used = _kept(responses, excluded)
    quadrature = mirt_grid(n_points, limit)
    # Small fits are many tiny products and L-BFGS steps: BLAS threads only spin (10 times
    # slower on two busy cores); large E-steps keep the threads.
    small = used.values.size * n_points < SMALL_PRODUCTS
    with one_blas_thread() if small else contextlib.nullcontext():
        em = run_em(
            used,
            model,
            quadrature,
            tol=tol,
            max_iter=max_iter,
            gtol=gtol,
            prior=NO_PRIOR if prior is None else prior,
            max_se_parameters=max_se_parameters,
        )
    data_arrays = ResponseArrays.build(used, binary=model != "graded")
    ability_grid = mirt_grid(ability_points, limit)
    weights = posterior(data_arrays, em.items, ability_grid).weights
    theta, se = _abilities.eap(weights, ability_grid)
    if method != "EAP":
        theta, se = _abilities.modal(data_arrays, em.items, model, theta, prior=method == "MAP")
    runaway = np.abs(em.items.slope) > RUNAWAY_SLOPE
    if model != "rasch" and runaway.any():
        warnings.warn(
            f"{int(runaway.sum())} item slope(s) above {RUNAWAY_SLOPE:g} in absolute value "
            f"({preview(np.asarray(used.items, dtype=object)[runaway].tolist(), 4)}): these "
            "items separate the systems perfectly and their maximum likelihood estimates do not "
            "exist; pass prior=rs.irt.ItemPrior(slope_sd=0.5) (few systems, many items)",
            DataWarning,
            stacklevel=2,
        )
    return IRTFit(
        model=model,
        responses=used,
        all_responses=responses,
        excluded=excluded,
        em=em,
        quadrature=quadrature,
        method=method,
        theta=theta,
        theta_se=se,
        confidence_level=confidence_level,
    )
