r"""Pointwise log-likelihood of a sampled fit: one value per posterior draw and per unit of data.

The *unit* is what is exchangeable in the data, the thing PSIS-LOO leaves out:

``"ranking"``
    Plackett–Luce: :math:`\log P(\text{ranking} \mid \theta)`, ties by Efron's fractions exactly as
    in the fitted likelihood (:func:`rankstats.models._mle.pl_loglik`).  Bradley–Terry fitted to
    rankings: the sum of the log-probabilities of the pairs that the ranking contributes by
    rank-breaking (a *composite* likelihood: not a probability distribution over rankings; see
    :func:`bt_rankings`).  Mallows: the marginal likelihood of the observed ranking
    (:func:`mallows_rankings`).
``"comparison"``
    Bradley–Terry fitted to paired counts: one row of the count table (all the comparisons of one
    pair of systems).
``"assessor"``
    Mallows fitted to pairwise preferences: the marginal likelihood of one assessor's stated
    preferences (every complete ranking that respects them).

Everything is computed in NumPy from the posterior draws after sampling (never inside the PyMC
graph), vectorised over draws and units, from the un-collapsed rankings the fit was given, and
stored as the variable ``loglik`` of the ArviZ ``log_likelihood`` group (dims ``chain, draw,
<unit>``, the ranker labels as coordinates).  The group's attributes record the ``unit``, the
``model``, a ``data_hash`` of the units (so that :func:`~rankstats.models.compare_fits` refuses
fits of different data), whether the values are a ``composite`` likelihood, and for Mallows
whether they are exact or importance-sampling estimates with their Monte Carlo errors
(:func:`estimate_attrs`).
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
import pandas as pd
from scipy import sparse

from rankstats._pymc import compat as _compat
from rankstats._util.advice import Advice, AdviceError, Spelled, escape
from rankstats.core.permutations import marginal
from rankstats.core.preferences import AssessorPreferences
from rankstats.core.rankings import Rankings
from rankstats.core.scores import Scores
from rankstats.models._data import as_rankings, pl_layout

VARIABLE = "loglik"
GROUP = "log_likelihood"
#: Attribute of the posterior group saying why a sampled fit has no pointwise log-likelihood.
UNAVAILABLE = "pointwise_unavailable"
_CELLS = 4_000_000  # draws × entries per block


class PointwiseUnavailable(Advice, ValueError):
    """The pointwise log-likelihood of this fit cannot be computed (the reason is the message, a
    template whose options are spelled for the reader: :mod:`rankstats._util.advice`)."""


# ---------------------------------------------------------------------------- units and hashes
def informative(ranks: np.ndarray, kind: str = "subset") -> np.ndarray:
    """Rankings that contain a choice: the rule of :func:`rankstats.models._data.pl_data`."""
    n = ranks.shape[1]
    n_obs = (~np.isnan(ranks)).sum(axis=1)
    if kind == "subset":
        return n_obs >= 2
    return (n_obs >= 1) & (n_obs < n) | (n_obs >= 2)


def labels(index: pd.Index) -> list[str]:
    """String labels of the units (a MultiIndex joined by ``/``), made unique by ``#k``."""
    if isinstance(index, pd.MultiIndex):
        names = ["/".join(str(p) for p in row) for row in index]
    else:
        names = [str(x) for x in index]
    if len(set(names)) == len(names):
        return names
    seen: dict[str, int] = {}
    out = []
    for name in names:
        k = seen.get(name, 0)
        seen[name] = k + 1
        out.append(name if k == 0 else f"{name}#{k}")
    return out


def data_hash(systems: tuple[str, ...], units: list[str], *arrays: np.ndarray) -> str:
    """A short SHA-256 of the systems, the unit labels and the data arrays (NaN-safe)."""
    h = hashlib.sha256()
    h.update("\x1f".join(systems).encode())
    h.update(b"\x1e")
    h.update("\x1f".join(units).encode())
    for a in arrays:
        a = np.asarray(a, dtype=np.float64)
        h.update(np.where(np.isnan(a), -1.0, a).tobytes())
    return h.hexdigest()[:16]


def _blocks(n_draws: int, width: int):
    step = max(1, _CELLS // max(width, 1))
    for lo in range(0, n_draws, step):
        yield slice(lo, min(lo + step, n_draws))


# ---------------------------------------------------------------------------- Plackett–Luce
def pl_rankings(ranks: np.ndarray, kind: str, log_worth: np.ndarray) -> np.ndarray:
    r"""Plackett–Luce log-probability of every ranking at every draw, shape ``(S, L)``.

    ``ranks`` (L, N) with NaN = unranked, ``log_worth`` (S, N).  Efron's tie correction as in
    :func:`rankstats.models._mle.pl_loglik`: the ``k``-th of the ``d`` members of a tie group
    contributes :math:`\theta_c - \log(\sum_R e^{\theta} - \tfrac{k}{d}\sum_T e^{\theta})`.
    The row sums at a draw equal the model's total log-likelihood there.
    """
    index, gs, ge, fraction, term = pl_layout(ranks, kind)
    rows, width = index.shape
    theta = np.asarray(log_worth, dtype=np.float64)
    out = np.empty((theta.shape[0], rows))
    r = np.arange(rows)[:, None]
    for sl in _blocks(theta.shape[0], rows * width * 3):
        t = theta[sl]
        shift = t.max(axis=1, keepdims=True)
        padded = np.concatenate([t - shift, np.full((len(t), 1), -np.inf)], axis=1)
        a = np.exp(padded)[:, index]  # (s, L, K)
        tail = np.zeros((len(t), rows, width + 1))
        tail[:, :, :width] = np.cumsum(a[:, :, ::-1], axis=2)[:, :, ::-1]
        x = (1.0 - fraction) * tail[:, r, gs] + fraction * tail[:, r, ge]
        chosen = np.where(term, padded[:, index], 0.0)
        with np.errstate(divide="ignore"):
            out[sl] = np.sum(np.where(term, chosen - np.log(np.where(term, x, 1.0)), 0.0), axis=2)
    return out


# ---------------------------------------------------------------------------- Bradley–Terry
def _bt_pair_terms(
    log_worth: np.ndarray, log_tie: np.ndarray | None, i: np.ndarray, j: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """``log P(i ≻ j)``, ``log P(j ≻ i)`` and ``log P(i ∼ j)`` (Davidson), each ``(S, P)``."""
    ti, tj = log_worth[:, i], log_worth[:, j]
    if log_tie is None:
        log_d = np.logaddexp(ti, tj)
        return ti - log_d, tj - log_d, None
    tie = log_tie.reshape(-1, 1) + 0.5 * (ti + tj)
    log_d = np.logaddexp(np.logaddexp(ti, tj), tie)
    return ti - log_d, tj - log_d, tie - log_d


def bt_counts(counts: Any, log_worth: np.ndarray, log_tie: np.ndarray | None) -> np.ndarray:
    """Bradley–Terry log-likelihood of every row of a count table (unit ``"comparison"``),
    ``(S, P)``: ``wins1 log P(i ≻ j) + wins2 log P(j ≻ i) [+ ties log P(i ∼ j)]``."""
    theta = np.asarray(log_worth, dtype=np.float64)
    out = np.empty((theta.shape[0], len(counts.item1)))
    for sl in _blocks(theta.shape[0], 4 * len(counts.item1)):
        tie = None if log_tie is None else log_tie[sl]
        lw, ll, lt = _bt_pair_terms(theta[sl], tie, counts.item1, counts.item2)
        value = counts.wins1 * lw + counts.wins2 * ll
        if lt is not None:
            value = value + counts.ties * lt
        out[sl] = value
    return out


def bt_rankings(
    ranks: np.ndarray, kind: str, log_worth: np.ndarray, log_tie: np.ndarray | None
) -> np.ndarray:
    r"""Bradley–Terry log-likelihood of every ranking, ``(S, L)``: the sum over the pairs the
    ranking contributes by full rank-breaking (:func:`rankstats.models.pair_counts.rank_breaking`:
    wins, ties when ``log_tie`` is given, and with ``kind="top_k"`` every ranked system beating
    every unranked one).

    A *composite* likelihood: the pairs of one ranking are not independent outcomes, and
    :math:`\prod_{\text{pairs}} P` summed over all orderings of ``k > 2`` systems is below 1 (it
    also gives mass to intransitive outcomes).  Per ranking it is therefore lower than a proper
    probability of that ranking, by the log-probability that independent BT pair outcomes are
    transitive.
    """
    n = ranks.shape[1]
    observed = ~np.isnan(ranks)
    key = np.where(observed, ranks, np.inf) if kind == "top_k" else ranks
    i, j = np.triu_indices(n, k=1)
    ki, kj = key[:, i], key[:, j]
    win_i = ki < kj
    win_j = kj < ki
    tie = ki == kj
    if kind == "top_k":
        tie &= observed[:, i] | observed[:, j]
    if log_tie is None:
        tie = np.zeros_like(tie)
    p = len(i)
    design = sparse.csr_matrix(np.hstack([win_i, win_j, tie]).astype(np.float64))  # (L, 3P)
    theta = np.asarray(log_worth, dtype=np.float64)
    out = np.empty((theta.shape[0], ranks.shape[0]))
    for sl in _blocks(theta.shape[0], 3 * p):
        t = None if log_tie is None else log_tie[sl]
        lw, ll, lt = _bt_pair_terms(theta[sl], t, i, j)
        terms = np.hstack([lw, ll, np.zeros_like(lw) if lt is None else lt])  # (s, 3P)
        out[sl] = (design @ terms.T).T
    return out


# ---------------------------------------------------------------------------- Mallows
def mallows_rankings(
    ranks: np.ndarray,
    position: np.ndarray,
    theta: np.ndarray,
    kind: str = "subset",
    *,
    samples: int | None = None,
    seed: int | None = 0,
) -> np.ndarray:
    r"""Mallows (Kendall) marginal log-likelihood of every observed ranking, ``(S, L)``: the
    sum of the probabilities of its compatible complete rankings
    (:func:`rankstats.core.permutations.marginal.kendall_marginal`).

    Closed form for complete rankings with ties (the orders inside a tie group sum to a
    q-factorial),

    .. math:: \log P(y \mid \sigma, \theta) = -\theta\, d_{\times}(y, \sigma) - \log Z_n(\theta)
              + \sum_{g \in G} \log Z_{|g|}(\theta),

    for top-k lists (``kind="top_k"``: the unranked systems are one more tie group, at the
    bottom) and for rankings of two systems, :math:`P(a \succ b) = \frac{d+1}{1-q^{d+1}} -
    \frac{d}{1-q^d}` (``d`` their gap in σ, :math:`q = e^{-\theta}`). Other sub-rankings:
    summed over their compatible rankings when there are at most
    :data:`~rankstats.core.permutations.marginal.EXACT_MAX`, else estimated by importance sampling
    (``samples`` rankings per draw and ranking, by default as many as fit in a budget for the
    whole fit: :func:`~rankstats.core.permutations.marginal.default_samples`; seeded by ``seed``;
    the estimate's standard error is in
    :func:`~rankstats.core.permutations.marginal.kendall_marginal`'s result). Not the
    likelihood of a sampled latent completion: that would be the probability of a complete
    ranking, not of the data, and not on the scale of the other families' likelihoods.
    """
    found = marginal.kendall_marginal(ranks, position, theta, kind=kind, samples=samples, seed=seed)
    return found.log_likelihood


# ---------------------------------------------------------------------------- storage
def attach(
    idata: Any,
    values: np.ndarray,
    unit: str,
    unit_labels: list[str],
    attrs: dict[str, Any],
) -> None:
    """Add the ``log_likelihood`` group (``values`` flat ``(S, U)``, reshaped like the
    posterior's ``(chain, draw)``)."""
    import xarray as xr

    posterior = _compat.group(idata)
    chains, draws = posterior.sizes["chain"], posterior.sizes["draw"]
    data = xr.Dataset(
        {VARIABLE: (("chain", "draw", unit), values.reshape(chains, draws, -1))},
        coords={
            "chain": posterior["chain"].values,
            "draw": posterior["draw"].values,
            unit: np.asarray(unit_labels, dtype=object).astype(str),
        },
        attrs={"unit": unit, **attrs},
    )
    _compat.add_group(idata, GROUP, data)


def add_to_nuts_fit(model: Any, data: Any, prepared: Any, fit: Any) -> None:
    """Compute and attach the pointwise log-likelihood of a PL / BT NUTS fit (in place).

    When it cannot be computed (a prepared array without rankers, say) the posterior records
    why in the attribute :data:`UNAVAILABLE`, which :func:`compare_fits` reports.
    """
    try:
        values, unit, names, attrs = _nuts_values(model, data, prepared, fit.draws())
    except PointwiseUnavailable as err:
        _compat.set_attrs(fit.idata, {UNAVAILABLE: str(err)})
        return
    attach(fit.idata, values, unit, names, {"model": model.name, **attrs})


def _rankings_of(data: Any) -> Any:
    if isinstance(data, Rankings | Scores):
        return as_rankings(data)
    return None


def _ranking_attrs(rk: Any, keep: np.ndarray, kind: str) -> tuple[list[str], dict[str, Any]]:
    ranks = rk.ranks[keep]
    names = labels(rk.rankers[keep])
    partial = bool(np.isnan(ranks).any())
    return names, {
        "data_hash": data_hash(tuple(rk.systems), names, ranks),
        "kind": kind if partial else "complete",
        "n_systems_max": int((~np.isnan(ranks)).sum(axis=1).max()),
    }


def _nuts_values(model: Any, data: Any, prepared: Any, draws: dict[str, np.ndarray]):
    theta = draws["log_worth"]
    rk = _rankings_of(data)
    if model.name == "pl":
        if rk is None:
            raise PointwiseUnavailable(
                "fitted to prepared arrays, not Rankings / Scores: no rankings to evaluate one "
                "by one"
            )
        keep = informative(rk.ranks, model.kind)
        names, attrs = _ranking_attrs(rk, keep, model.kind)
        values = pl_rankings(rk.ranks[keep], model.kind, theta)
        return values, "ranking", names, {**attrs, "composite": 0}
    log_tie = draws.get("log_tie")
    if rk is not None:
        keep = informative(rk.ranks, model.kind)
        names, attrs = _ranking_attrs(rk, keep, model.kind)
        values = bt_rankings(rk.ranks[keep], model.kind, theta, log_tie)
        composite = int(attrs["n_systems_max"] > 2 or model.kind == "top_k")
        return values, "ranking", names, {**attrs, "composite": composite}
    counts = prepared
    sys_ = np.array(counts.systems, dtype=object)
    names = labels(
        pd.Index(
            [f"{a} vs {b}" for a, b in zip(sys_[counts.item1], sys_[counts.item2], strict=True)]
        )
    )
    values = bt_counts(counts, theta, log_tie)
    attrs = {
        "data_hash": data_hash(
            tuple(counts.systems), names, counts.wins1, counts.wins2, counts.ties
        ),
        "kind": "pairs",
        "composite": 0,
    }
    return values, "comparison", names, attrs


def add_to_mallows_fit(
    rk: Any, idata: Any, *, samples: int | None = None, seed: int | None = 0
) -> None:
    """Compute and attach the pointwise (marginal) log-likelihood of a Kendall Mallows MCMC
    fit (θ and σ's positions in the posterior; its ``kind`` in the posterior attributes,
    default ``"subset"``): :func:`mallows_rankings`."""
    posterior = _compat.group(idata)
    position = posterior["position"].to_numpy().reshape(-1, rk.n_systems)
    theta = posterior["theta"].to_numpy().ravel()
    kind = str(_compat.attrs(idata).get("kind", "subset"))
    _attach_rankings(
        rk,
        idata,
        lambda: marginal.kendall_marginal(
            rk.ranks, position, theta, kind=kind, samples=samples, seed=seed
        ),
        {"likelihood": "marginal"},
        kind=kind,
    )


def _attach_rankings(
    rk: Any, idata: Any, values_of, extra: dict[str, Any], kind: str = "subset"
) -> None:
    """Attach ``values_of()`` (``(S, L)``, one column per ranking, or a
    :class:`~rankstats.core.permutations.marginal.MarginalLikelihood`, whose Monte Carlo errors are
    recorded: :func:`estimate_attrs`) as the ``log_likelihood`` group of a Mallows fit, or
    record why it is unavailable."""
    try:
        values = values_of()
    except PointwiseUnavailable as err:
        _compat.set_attrs(idata, {UNAVAILABLE: str(err)})
        return
    found = {}
    if isinstance(values, marginal.MarginalLikelihood):
        values, found = values.log_likelihood, estimate_attrs(values)
    names, attrs = _ranking_attrs(rk, np.ones(rk.n_rankings, dtype=bool), kind)
    attach(
        idata,
        values,
        "ranking",
        names,
        {"model": "mallows", **attrs, "composite": 0, **extra, **found},
    )


def estimate_attrs(found: Any) -> dict[str, Any]:
    r"""The attributes that say whether a Mallows pointwise log-likelihood is exact or an
    importance-sampling estimate, and how good: ``estimate`` (``"exact"`` or ``"importance
    sampling"``) and for an estimate ``is_units`` (units estimated), ``is_samples`` (rankings
    per draw and unit), ``is_se_max`` / ``is_se_mean`` (Monte Carlo standard errors of the
    values), ``is_bias`` (:math:`\sum_i \overline{se_i^2}`: how far PSIS-LOO's and WAIC's elpd
    fall below their value on the exact likelihood, to first order) and ``is_ess_min`` /
    ``is_ess_median`` (effective sample sizes of the weights)."""
    estimated = found.estimated
    if not estimated.any():
        return {"estimate": "exact"}
    se = found.standard_error[:, estimated]
    ess = found.ess[:, estimated]
    return {
        "estimate": "importance sampling",
        "is_units": int(estimated.sum()),
        "is_samples": int(found.samples),
        "is_se_max": float(se.max()),
        "is_se_mean": float(se.mean()),
        "is_bias": float((se**2).mean(axis=0).sum()),
        "is_ess_min": float(ess.min()),
        "is_ess_median": float(np.median(ess)),
    }


def distance_rankings(
    ranks: np.ndarray,
    rho: np.ndarray,
    alpha: np.ndarray,
    distance: str,
    kind: str = "subset",
    *,
    samples: int | None = None,
    seed: int | None = 0,
) -> np.ndarray:
    r"""Mallows marginal log-likelihood of every observed ranking under ``distance``, ``(S, L)``,
    for draws ``rho`` ``(S, n)`` (rank vectors) and ``alpha`` ``(S,)``: for a complete ranking
    without ties :math:`-\alpha\, d(y, \rho)/n - \log Z_n(\alpha)` (BayesMallows'
    parametrisation), else the sum over its compatible complete rankings — enumerated, or
    estimated by importance sampling
    (:func:`rankstats.core.permutations.marginal.marginal_likelihood`).
    """
    found = marginal.marginal_likelihood(
        ranks, rho, alpha, distance, kind=kind, samples=samples, seed=seed
    )
    return found.log_likelihood


def tied_rows(ranks: np.ndarray) -> np.ndarray:
    """Whether each ranking has two systems with the same rank."""
    ordered = np.sort(ranks, axis=1)
    return (np.diff(ordered, axis=1) == 0).any(axis=1)


def add_to_distance_fit(
    data: Any,
    idata: Any,
    distance: str,
    *,
    samples: int | None = None,
    seed: int | None = 0,
) -> None:
    """:func:`add_to_mallows_fit` for a fit by Metropolis–Hastings with any distance: the
    Kendall model's marginal likelihood (θ = α/n) for Kendall rankings,
    :func:`~rankstats.core.permutations.marginal.marginal_likelihood` for the others and for each
    assessor's preferences (unit ``"assessor"``)."""
    if distance == "kendall" and isinstance(data, Rankings):
        add_to_mallows_fit(data, idata, samples=samples, seed=seed)
        return
    if getattr(data, "cyclic", ()):
        _compat.set_attrs(
            idata,
            {
                UNAVAILABLE: f"{len(data.cyclic)} assessor(s) state preferences with a cycle: "
                "their likelihood is that of the model of errors, not computed"
            },
        )
        return
    posterior = _compat.group(idata)
    n = len(data.systems)
    rho = np.rint(posterior["position"].to_numpy().reshape(-1, n)).astype(np.int64)
    alpha = posterior["alpha"].to_numpy().ravel()
    kind = str(_compat.attrs(idata).get("kind", "subset"))
    observations = data if isinstance(data, AssessorPreferences) else data.ranks
    found = marginal.marginal_likelihood(
        observations, rho, alpha, distance, kind=kind, samples=samples, seed=seed
    )
    if isinstance(data, Rankings):
        _attach_rankings(data, idata, lambda: found, {"distance": distance}, kind=kind)
        return
    attach_preferences(data, idata, found, {"distance": distance})


def attach_preferences(
    data: AssessorPreferences, idata: Any, found: Any, extra: dict[str, Any]
) -> None:
    """Attach the marginal likelihood ``found`` of each assessor's preferences (a
    :class:`~rankstats.core.permutations.marginal.MarginalLikelihood`) as the ``log_likelihood``
    group, unit ``"assessor"``, with its Monte Carlo errors (:func:`estimate_attrs`)."""
    names = labels(pd.Index(data.assessors))
    attrs = {
        "data_hash": data_hash(tuple(data.systems), names, data.above.reshape(len(names), -1)),
        "kind": "preferences",
    }
    attach(
        idata,
        found.log_likelihood,
        "assessor",
        names,
        {"model": "mallows", **attrs, "composite": 0, **extra, **estimate_attrs(found)},
    )


def add_to_fit(fit: Any, data: Any, *, samples: int, seed: int | None = 0) -> None:
    """Recompute the pointwise log-likelihood of a Mallows MCMC ``fit`` of ``data`` (in place),
    e.g. with more importance-sampling ``samples`` than the fit used (see the group's
    ``is_se_max``); the group is replaced."""
    if fit.model != "mallows" or not _compat.has_group(fit.idata, "posterior"):
        raise ValueError("add_to_fit recomputes the pointwise likelihood of a Mallows MCMC fit")
    if isinstance(data, Scores):
        data = as_rankings(data)
    distance = str(fit.info.get("distance", "kendall"))
    if "alpha" in _compat.group(fit.idata):
        add_to_distance_fit(data, fit.idata, distance, samples=samples, seed=seed)
    else:
        add_to_mallows_fit(data, fit.idata, samples=samples, seed=seed)


def pointwise(fit: Any) -> Any:
    """The ``log_likelihood`` group of a fit as an ``xarray.DataArray`` (chain, draw, unit)."""
    if not _compat.has_group(fit.idata, GROUP):
        reason = missing_advice(fit)
        raise PointwiseUnavailable(reason.template, **reason.options)
    return _compat.group(fit.idata, GROUP)[VARIABLE]


def missing_reason(fit: Any) -> str:
    """Why ``fit`` holds no pointwise log-likelihood, as a sentence ending in what to do."""
    return str(missing_advice(fit))


def missing_advice(fit: Any) -> AdviceError:
    """:func:`missing_reason` as an error whose advice names options (``method='nuts'``,
    ``--method nuts`` on the command line: :mod:`rankstats._util.advice`)."""
    from rankstats._pymc.convergence import SAMPLED

    refit = ("method", "mcmc" if fit.model == "mallows" else "nuts")
    if fit.method not in SAMPLED:
        return AdviceError(
            "{method} holds an optimum and its normal approximation, not posterior draws: no "
            "LOO / WAIC; refit with {refit}, or compare by K-fold cross-validation ({kfold})",
            method=("method", fit.method),
            refit=refit,
            kfold=Spelled("compare_fits(..., ic='kfold', data=...)", "--kfold K"),
        )
    reason = _compat.attrs(fit.idata).get(UNAVAILABLE)
    if reason:
        return AdviceError(escape(f"no pointwise log-likelihood: {reason}"))
    return AdviceError(
        "no pointwise log-likelihood (the fit was saved without one, e.g. a model-zoo fit or a "
        "fit made by an older rankstats): refit it with {refit}",
        refit=refit,
    )
