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

Everything is computed in NumPy from the posterior draws after sampling (never inside the PyMC
graph), vectorised over draws and units, from the un-collapsed rankings the fit was given, and
stored as the variable ``loglik`` of the ArviZ ``log_likelihood`` group (dims ``chain, draw,
<unit>``, the ranker labels as coordinates).  The group's attributes record the ``unit``, the
``model``, a ``data_hash`` of the units (so that :func:`~rankstats.models.compare_fits` refuses
fits of different data) and whether the values are a ``composite`` likelihood.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
import pandas as pd
from scipy import sparse

from rankstats._pymc import compat as _compat
from rankstats._util.advice import Advice, AdviceError, Spelled, escape
from rankstats.core.mallows_kendall import pair_probability
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
def _log_q_factorials(theta: np.ndarray, n: int) -> np.ndarray:
    """``F[j - 1, s] = log(1 − e^{−j θ_s}) − log(1 − e^{−θ_s})`` for ``j = 1 … n``: the terms of
    :math:`\\log Z_m(\\theta) = \\sum_{j \\le m} F_j` (the Kendall normalising constant)."""
    j = np.arange(1, n + 1, dtype=np.float64)[:, None]
    t = np.asarray(theta, dtype=np.float64)[None, :]
    return np.log(-np.expm1(-j * t)) - np.log(-np.expm1(-t))


def mallows_rankings(ranks: np.ndarray, position: np.ndarray, theta: np.ndarray) -> np.ndarray:
    r"""Mallows (Kendall) marginal log-likelihood of every observed ranking, ``(S, L)``.

    For a complete ranking :math:`y` with tie groups :math:`G` (the order inside a group is
    latent, every order possible) the sum over its compatible complete rankings is closed-form:

    .. math:: \log P(y \mid \sigma, \theta) = -\theta\, d_{\times}(y, \sigma) - \log Z_n(\theta)
              + \sum_{g \in G} \log Z_{|g|}(\theta),

    :math:`d_\times` counting the discordant pairs that ``y`` orders (tied pairs excluded): a tie
    group fills a block of consecutive positions, so its internal orders add the inversions of
    all :math:`|g|!` permutations, whose generating function is :math:`Z_{|g|}` (the
    q-factorial).  Without ties this is :math:`-\theta d(y, \sigma) - \log Z_n(\theta)`, the
    Mallows probability itself.

    A ranking of exactly two systems (paired comparisons as rankings) has the closed-form
    marginal :math:`P(a \succ b) = \frac{d+1}{1-q^{d+1}} - \frac{d}{1-q^d}` (``d`` the gap of
    the two in σ, :math:`q = e^{-\theta}`; 1 for a tie).  Other rankings with unranked systems
    are refused (:class:`PointwiseUnavailable`): their marginal sums over the interleavings of
    the unranked systems, which has no closed form for the Kendall distance in general (only in
    special cases, e.g. when the ranked systems are a top block of σ), and the conditional
    likelihood of the sampled completion would be the probability of a latent complete ranking,
    not of the data, and not on the scale of the other families' likelihoods.
    """
    observed = ~np.isnan(ranks)
    n_obs = observed.sum(axis=1)
    pairs = n_obs == 2
    bad = ~observed.all(axis=1) & ~pairs
    if bad.any():
        raise PointwiseUnavailable(
            escape(
                f"{int(bad.sum())} ranking(s) leave systems unranked and rank more than two: the "
                "Mallows (Kendall) marginal likelihood of such a sub-ranking (a sum over the "
                "positions of its unranked systems) has no closed form, and the likelihood of a "
                "sampled completion is not that of the data"
            )
        )
    partial = ~observed.all(axis=1)  # here: rankings of two of more than two systems
    if partial.any():
        out = np.empty((len(position), ranks.shape[0]))
        if not partial.all():
            out[:, ~partial] = mallows_rankings(ranks[~partial], position, theta)
        out[:, partial] = _mallows_pairs(ranks[partial], position, theta)
        return out
    n_rows, n = ranks.shape
    i, j = np.nonzero(~np.eye(n, dtype=bool))
    above = sparse.csr_matrix((ranks[:, i] < ranks[:, j]).astype(np.float64))  # y: i above j
    # c[l, m - 1] = number of tie groups of ranking l with at least m members
    size = (ranks[:, :, None] == ranks[:, None, :]).sum(axis=2)  # group size of each item
    at_least = (size[:, :, None] >= np.arange(1, n + 1)[None, None, :]) / size[:, :, None]
    groups = sparse.csr_matrix(at_least.sum(axis=1))  # (L, n)
    pos = np.asarray(position, dtype=np.float64)
    theta = np.asarray(theta, dtype=np.float64).ravel()
    out = np.empty((pos.shape[0], n_rows))
    for sl in _blocks(pos.shape[0], len(i) + n):
        p = pos[sl]
        below = (p[:, i] > p[:, j]).astype(np.float64)  # σ: i below j (discordant if y: above)
        distance = (above @ below.T).T  # (s, L)
        f = _log_q_factorials(theta[sl], n)  # (n, s)
        out[sl] = -theta[sl, None] * distance - f.sum(axis=0)[:, None] + (groups @ f).T
    return out


def _mallows_pairs(ranks: np.ndarray, position: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Rankings of exactly two systems: the Mallows marginal ``P(a above b)`` is closed-form
    (:func:`rankstats.core.mallows_kendall.pair_probability`), 1 for a tie (either order)."""

    observed = ~np.isnan(ranks)
    order = np.argsort(~observed, axis=1, kind="stable")[:, :2]  # the two ranked systems
    a, b = order[:, 0], order[:, 1]
    rows = np.arange(len(ranks))
    ra, rb = ranks[rows, a], ranks[rows, b]
    first = np.where(ra <= rb, a, b)  # the one ranked above (either, when tied)
    second = np.where(ra <= rb, b, a)
    tied = ra == rb
    pos = np.asarray(position, dtype=np.float64)
    theta = np.asarray(theta, dtype=np.float64).reshape(-1, 1)
    gap = pos[:, second] - pos[:, first]  # > 0: σ agrees with the ranking
    p = pair_probability(np.maximum(np.abs(gap), 1), theta)
    value = np.log(np.where(gap > 0, p, 1.0 - p))
    return np.where(tied[None, :], 0.0, value)


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


def add_to_mallows_fit(rk: Any, idata: Any) -> None:
    """Compute and attach the pointwise (marginal) log-likelihood of a Mallows MCMC fit, or
    record in the posterior attributes why it is unavailable (rankings with unranked systems)."""
    posterior = _compat.group(idata)
    position = posterior["position"].to_numpy().reshape(-1, rk.n_systems)
    theta = posterior["theta"].to_numpy().ravel()
    _attach_rankings(
        rk, idata, lambda: mallows_rankings(rk.ranks, position, theta), {"likelihood": "marginal"}
    )


def _attach_rankings(rk: Any, idata: Any, values_of, extra: dict[str, Any]) -> None:
    """Attach ``values_of()`` (``(S, L)``, one column per ranking) as the ``log_likelihood``
    group of a Mallows fit, or record why it is unavailable."""
    try:
        values = values_of()
    except PointwiseUnavailable as err:
        _compat.set_attrs(idata, {UNAVAILABLE: str(err)})
        return
    names, attrs = _ranking_attrs(rk, np.ones(rk.n_rankings, dtype=bool), "subset")
    attach(idata, values, "ranking", names, {"model": "mallows", **attrs, "composite": 0, **extra})


def distance_rankings(
    ranks: np.ndarray, rho: np.ndarray, alpha: np.ndarray, distance: str
) -> np.ndarray:
    r"""Mallows log-likelihood of every observed complete ranking under ``distance``, ``(S, L)``:
    :math:`-\alpha\, d(y, \rho)/n - \log Z_n(\alpha)` (BayesMallows' parametrisation), for
    draws ``rho`` ``(S, n)`` (rank vectors) and ``alpha`` ``(S,)``.

    Rankings with unranked or tied systems are refused (:class:`PointwiseUnavailable`): their
    marginal likelihood sums over their compatible complete rankings, which is not computed for
    distances other than Kendall's (whose tie groups have a closed form), and the likelihood of a
    sampled completion is not that of the data. The distances are computed once per distinct
    consensus among the draws.
    """
    from rankstats.core.mallows_partition import partition_function
    from rankstats.core.permutation_distances import row_distances

    if np.isnan(ranks).any() or tied_rows(ranks).any():
        raise PointwiseUnavailable(
            escape(
                f"rankings with unranked or tied systems: their Mallows ({distance}) marginal "
                "likelihood is a sum over their compatible complete rankings, computed in "
                "closed form for the Kendall distance only, and the likelihood of a sampled "
                "completion is not that of the data"
            )
        )
    observed = ranks.astype(np.int64)
    n_rankings, n = observed.shape
    unique, inverse = np.unique(rho, axis=0, return_inverse=True)
    d = np.empty((len(unique), n_rankings))
    step = max(1, 2_000_000 // (n_rankings * n))  # consensuses per block: ~16 MB of pairs
    for lo in range(0, len(unique), step):
        block = unique[lo : lo + step]
        pairs = np.repeat(block, n_rankings, axis=0)
        d[lo : lo + len(block)] = row_distances(
            np.tile(observed, (len(block), 1)), pairs, distance
        ).reshape(len(block), n_rankings)
    log_z = partition_function(n, distance).log_z(alpha)
    return -(alpha / n)[:, None] * d[inverse.ravel()] - np.asarray(log_z)[:, None]


def tied_rows(ranks: np.ndarray) -> np.ndarray:
    """Whether each ranking has two systems with the same rank."""
    ordered = np.sort(ranks, axis=1)
    return (np.diff(ordered, axis=1) == 0).any(axis=1)


def add_to_distance_fit(data: Any, idata: Any, distance: str) -> None:
    """:func:`add_to_mallows_fit` for a fit by Metropolis–Hastings with any distance: the
    Kendall model's marginal likelihood (θ = α/n) for Kendall, :func:`distance_rankings` for
    the others; preferences get the reason why none is computed."""
    if distance == "kendall" and isinstance(data, Rankings):
        add_to_mallows_fit(data, idata)
        return
    if not isinstance(data, Rankings):
        _compat.set_attrs(
            idata,
            {
                UNAVAILABLE: "fitted to pairwise preferences: the likelihood of an assessor's "
                "preferences is a sum over every ranking that respects them, not computed"
            },
        )
        return
    posterior = _compat.group(idata)
    rho = np.rint(posterior["position"].to_numpy().reshape(-1, data.n_systems)).astype(np.int64)
    alpha = posterior["alpha"].to_numpy().ravel()
    _attach_rankings(
        data,
        idata,
        lambda: distance_rankings(data.ranks, rho, alpha, distance),
        {"distance": distance},
    )


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
