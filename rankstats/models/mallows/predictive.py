r"""The posterior predictive distribution of the complete ranking of a *new* assessor under a
Mallows model or a mixture of them, for every distance of
:mod:`rankstats.core.permutations.distances`.

.. math::

    p(r \mid \text{data}) = \frac1S \sum_{s=1}^{S} \sum_{k=1}^{K} \tau_k^{(s)}
        \frac{\exp\{-\alpha_k^{(s)}\, d(r, \rho_k^{(s)}) / n\}}{Z_n(\alpha_k^{(s)})}

over the ``S`` posterior draws (one cluster: ``K = 1``, τ = 1; the Gibbs sampler's Kendall fits
have α = nθ), with :math:`Z_n` from :func:`rankstats.core.permutations.partition.partition_function`
(exact: closed form or exact counts, except footrule beyond 165 and Spearman beyond 14 items,
where it is an importance-sampling estimate whose standard error is recorded). This is the
predictive distribution of Vitelli et al. (2018, Sec. 2.3), as BayesMallows computes it.

Everything is vectorised over draws and rankings: the distances are computed once per distinct
consensus of the posterior and per ranking (blocks of rankings bound the memory), then gathered
for every draw. Each probability's Monte Carlo standard error is ArviZ's MCSE of the mean of the
per-draw values (from their effective sample size across chains; Vehtari et al. 2021).

References
----------
Vitelli, V., Sørensen, Ø., Crispino, M., Frigessi, A. and Arjas, E. (2018). Probabilistic
preference learning with the Mallows rank model. *JMLR* 18(158), 1–49.

Sørensen, Ø., Crispino, M., Liu, Q. and Vitelli, V. (2020). BayesMallows: an R package for the
Bayesian Mallows model. *The R Journal* 12(1), 324–342.

Vehtari, A., Gelman, A., Simpson, D., Carpenter, B. and Bürkner, P.-C. (2021). Rank-normalization,
folding, and localization: an improved R-hat. *Bayesian Analysis* 16(2), 667–718.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
import xarray as xr

from rankstats._pymc import compat as _compat
from rankstats._util.arguments import count, random_seed
from rankstats.core.permutations import sampling as mallows_sampling
from rankstats.core.permutations.distances import check_distance, row_distances
from rankstats.core.permutations.partition import partition_function

#: Elements (draws × clusters × rankings) gathered at once: bounds the memory of a block.
BLOCK = 1 << 22
#: Rankings drawn by :func:`predictive_distribution` beyond :data:`ENUMERATED` systems.
TABLE_DRAWS = 4_000
#: Up to this many systems :func:`predictive_distribution` scores all ``n!`` rankings.
ENUMERATED = mallows_sampling.ENUMERATED


@dataclass(frozen=True)
class PredictivePosterior:
    """The posterior draws a prediction needs, shaped for a mixture (``K = 1``: one cluster).

    Attributes
    ----------
    systems : tuple of str
    rho : ndarray of int64, shape (S, K, n)
        Each draw's consensus ranks (1 = best) per cluster, columns in ``systems``.
    alpha : ndarray, shape (S, K)
        Scale α per draw and cluster (α = nθ for the Gibbs sampler's θ).
    weight : ndarray, shape (S, K)
        τ per draw (rows sum to 1).
    distance : str
    chains : int
        The draws are ``chains`` chains one after the other (for the MCSE).
    """

    systems: tuple[str, ...]
    rho: np.ndarray
    alpha: np.ndarray
    weight: np.ndarray
    distance: str
    chains: int = 1

    @classmethod
    def from_arrays(
        cls,
        systems: tuple[str, ...] | list[str],
        rho: np.ndarray,
        alpha: np.ndarray,
        distance: str,
        weight: np.ndarray | None = None,
        chains: int = 1,
    ) -> PredictivePosterior:
        """One cluster (``rho`` ``(S, n)``, ``alpha`` ``(S,)``) or a mixture (``(S, K, n)``,
        ``(S, K)`` and ``weight`` ``(S, K)``); ``rho`` may hold float ranks (rounded)."""
        check_distance(distance)
        rho = np.rint(np.asarray(rho, dtype=np.float64)).astype(np.int64)
        alpha = np.asarray(alpha, dtype=np.float64)
        if rho.ndim == 2:
            rho, alpha = rho[:, None, :], alpha.reshape(-1, 1)
        if weight is None:
            weight = np.ones(alpha.shape)
        weight = np.asarray(weight, dtype=np.float64)
        if alpha.shape != rho.shape[:2] or weight.shape != alpha.shape:
            raise ValueError(
                f"rho {rho.shape}, alpha {alpha.shape} and weight {weight.shape} do not match"
            )
        if rho.shape[2] != len(systems):
            raise ValueError(f"rho ranks {rho.shape[2]} systems, not {len(systems)}")
        bad = np.flatnonzero(
            (np.sort(rho, axis=2) != np.arange(1, rho.shape[2] + 1)).any(axis=(1, 2))
        )
        if len(bad):  # e.g. posterior mean positions: not a consensus ranking
            raise ValueError(f"rho of draw {bad[0]} is not a permutation of 1 … {rho.shape[2]}")
        if not chains >= 1 or len(rho) % chains:
            chains = 1  # draws that do not split into chains: one chain for the MCSE
        return cls(tuple(systems), rho, alpha, weight, distance, int(chains))

    @classmethod
    def from_draws(
        cls, systems: tuple[str, ...], draws: dict[str, np.ndarray], distance: str, idata: object
    ) -> PredictivePosterior:
        """From a fit's :meth:`~rankstats.models.Fit.draws`: a mixture's ``position``
        ``(S, K, n)``, ``alpha`` and ``weight``; one cluster's ``position`` and ``alpha``, or
        the Gibbs sampler's ``theta`` (α = nθ). ``idata`` gives the number of chains."""
        alpha = draws["alpha"] if "alpha" in draws else draws["theta"] * len(systems)
        chains = _compat.group(idata).sizes.get("chain", 1) if idata is not None else 1
        return cls.from_arrays(
            systems, draws["position"], alpha, distance, draws.get("weight"), chains
        )

    @property
    def n(self) -> int:
        return self.rho.shape[2]


# --------------------------------------------------------------------------- probabilities
def _blocks(ranks: np.ndarray, post: PredictivePosterior) -> Iterator[tuple[slice, np.ndarray]]:
    """``(columns, values)`` with ``values[s, j]`` the predictive probability of ranking ``j``
    given draw ``s`` (summed over the clusters), block by block of rankings."""
    size, clusters, n = post.rho.shape
    unique, inverse = np.unique(post.rho.reshape(-1, n), axis=0, return_inverse=True)
    inverse = inverse.reshape(size, clusters)
    log_z = partition_function(n, post.distance).log_z(post.alpha.ravel()).reshape(size, clusters)
    with np.errstate(divide="ignore"):  # τ = 0: that cluster adds nothing
        log_norm = np.log(post.weight) - log_z
    scale = post.alpha / n
    step = max(1, BLOCK // max(size * clusters, len(unique)))
    for start in range(0, len(ranks), step):
        block = ranks[start : start + step]
        # d(r_j, ρ_u) for every distinct consensus u: distances depend on ρ, not on the draw
        d = row_distances(
            np.tile(block, (len(unique), 1)), np.repeat(unique, len(block), axis=0), post.distance
        ).reshape(len(unique), len(block))
        values = np.exp(log_norm[:, :, None] - scale[:, :, None] * d[inverse]).sum(axis=1)
        yield slice(start, start + len(block)), values


def draw_probabilities(ranks: np.ndarray, post: PredictivePosterior) -> np.ndarray:
    r"""``(S, m)``: :math:`\sum_k \tau_k^{(s)} P(r_j \mid \rho_k^{(s)}, \alpha_k^{(s)})` for
    every draw ``s`` and complete rank vector ``ranks[j]`` (1 = best, columns in
    ``post.systems``); the predictive probability is its mean over the draws."""
    ranks = np.asarray(ranks, dtype=np.int64).reshape(-1, post.n)
    out = np.empty((len(post.rho), len(ranks)))
    for columns, values in _blocks(ranks, post):
        out[:, columns] = values
    return out


def _mean_and_sums(ranks: np.ndarray, post: PredictivePosterior) -> tuple[np.ndarray, np.ndarray]:
    """The predictive probability of every ranking (mean over the draws) and each draw's sum
    over the rankings, without holding the ``(S, m)`` matrix (``m`` up to 8! = 40,320)."""
    mean = np.empty(len(ranks))
    sums = np.zeros(len(post.rho))
    for columns, values in _blocks(ranks, post):
        mean[columns] = values.mean(axis=0)
        sums += values.sum(axis=1)
    return mean, sums


def monte_carlo_se(values: np.ndarray, chains: int = 1) -> np.ndarray:
    """ArviZ's Monte Carlo standard error of the mean of each column of ``values`` ``(S, m)``,
    the ``S`` draws being ``chains`` chains one after the other (0 for a constant column)."""
    size, m = values.shape
    if size < 8:  # too few draws for ArviZ's autocorrelation estimate: independent draws
        return values.std(axis=0, ddof=1) / np.sqrt(size) if size > 1 else np.zeros(m)
    data = xr.Dataset(
        {"p": (("chain", "draw", "ranking"), values.reshape(chains, size // chains, m))}
    )
    se = _compat.diagnostics(data, which=("mcse_mean",))["mcse_mean"]["p"].to_numpy()
    return np.where(np.ptp(values, axis=0) > 0, se, 0.0)


def parse_rankings(rankings: object, systems: tuple[str, ...]) -> tuple[np.ndarray, pd.Index]:
    """Complete rankings as ``(m, n)`` int64 ranks (columns in ``systems``) and their labels.

    ``rankings``: a DataFrame of ranks (rows = rankings, columns = systems, 1 = best), a dict
    system → rank (one ranking), one order (a list of systems, best first) or a list of them.
    A ``ValueError`` names the first offender: an unknown or missing system, a system named
    twice, a missing rank, ranks that are not ``1 … n`` (ties or gaps).
    """
    n = len(systems)
    if isinstance(rankings, Mapping):
        rankings = pd.DataFrame([dict(rankings)])
    if isinstance(rankings, pd.DataFrame):
        columns = [str(c) for c in rankings.columns]
        _check_names(columns, systems, "the rankings")
        values = rankings.set_axis(columns, axis=1)[list(systems)].to_numpy(dtype=np.float64)
        index = rankings.index
        for row, label in zip(values, index, strict=True):
            if np.isnan(row).any():
                missing = [s for s, v in zip(systems, row, strict=True) if np.isnan(v)]
                raise ValueError(
                    f"ranking {label!r} is incomplete: no rank for {', '.join(missing)}"
                )
            if sorted(row.tolist()) != list(range(1, n + 1)):
                raise ValueError(
                    f"ranking {label!r} has ranks {row.tolist()}, not a permutation of 1 … {n}"
                )
        return values.astype(np.int64), index
    if isinstance(rankings, (str, bytes)) or not hasattr(rankings, "__iter__"):
        raise ValueError(
            f"rankings must be a DataFrame of ranks, a dict system → rank or a list of orders, "
            f"not {type(rankings).__name__}"
        )
    orders = list(rankings)
    if orders and all(isinstance(s, str) for s in orders):
        orders = [orders]  # one order
    ranks = np.empty((len(orders), n), dtype=np.int64)
    position = {s: i for i, s in enumerate(systems)}
    for j, order in enumerate(orders):
        if isinstance(order, str) or not hasattr(order, "__iter__"):
            raise ValueError(f"order {j} is not a list of systems: {order!r}")
        order = [str(s) for s in order]
        _check_names(order, systems, f"order {j}")
        ranks[j, [position[s] for s in order]] = np.arange(1, n + 1)
    return ranks, pd.RangeIndex(len(orders))


def _check_names(names: list[str], systems: tuple[str, ...], what: str) -> None:
    known, given = set(systems), set(names)
    unknown = [s for s in names if s not in known]
    if unknown:
        raise ValueError(
            f"{what} name(s) unknown system(s) {', '.join(map(repr, unknown))}; the fit's "
            f"systems: {', '.join(systems)}"
        )
    twice = sorted({s for s in names if names.count(s) > 1})
    if twice:
        raise ValueError(f"{what} name(s) {', '.join(map(repr, twice))} more than once")
    missing = [s for s in systems if s not in given]
    if missing:
        raise ValueError(
            f"{what} lack(s) system(s) {', '.join(map(repr, missing))}: give a complete ranking"
        )


def order_labels(ranks: np.ndarray, systems: tuple[str, ...]) -> list[str]:
    """Each rank vector as its order, ``"A > B > C"`` (best first)."""
    names = np.asarray(systems, dtype=object)[np.argsort(ranks, axis=1)]
    return [" > ".join(row) for row in names]


def _table(
    ranks: np.ndarray, post: PredictivePosterior, index: pd.Index, values: np.ndarray
) -> pd.DataFrame:
    out = pd.DataFrame(
        {
            "ranking": order_labels(ranks, post.systems),
            "probability": values.mean(axis=0),
            "se": monte_carlo_se(values, post.chains),
        },
        index=index,
    )
    pf = partition_function(post.n, post.distance)
    out.attrs.update(
        {
            "distance": post.distance,
            "draws": len(post.rho),
            "se": "ArviZ MCSE of the mean over the posterior draws",
            "log_z": pf.method,
            "log_z_se": float(np.max(pf.standard_error(post.alpha.ravel()), initial=0.0)),
        }
    )
    return out


def predictive_probability(post: PredictivePosterior, rankings: object) -> pd.DataFrame:
    r"""The posterior predictive probability of each complete ranking ``rankings`` (see
    :func:`parse_rankings`) for a new assessor, with its Monte Carlo standard error.

    .. math::

        p(r \mid \text{data}) = \frac1S \sum_s \sum_k \tau_k^{(s)}
            e^{-\alpha_k^{(s)} d(r, \rho_k^{(s)})/n} / Z_n(\alpha_k^{(s)})

    (Vitelli et al. 2018, JMLR 18(158); BayesMallows).

    Returns
    -------
    pandas.DataFrame
        Rows as given: ``ranking`` (the order, ``"A > B > C"``), ``probability``, ``se``
        (ArviZ's MCSE of the mean of the per-draw values); ``attrs`` name the distance, the
        number of draws and how :math:`Z_n` was computed (``log_z``, and its standard error
        ``log_z_se``, 0 when exact).

    Examples
    --------
    Two draws of a Kendall model on three systems (ρ = a > b > c with α = 3, then b > a > c
    with α = 6; as two independent draws, the s.e. is their s.d. / √2):

    >>> import numpy as np
    >>> post = PredictivePosterior.from_arrays(
    ...     ("a", "b", "c"), np.array([[1, 2, 3], [2, 1, 3]]), np.array([3.0, 6.0]), "kendall"
    ... )
    >>> predictive_probability(post, [["a", "b", "c"], ["c", "b", "a"]]).round(4)
         ranking  probability      se
    0  a > b > c       0.2948  0.1915
    1  c > b > a       0.0191  0.0051
    """
    ranks, index = parse_rankings(rankings, post.systems)
    return _table(ranks, post, index, draw_probabilities(ranks, post))


# --------------------------------------------------------------------------- new rankings
def sample_rankings(
    post: PredictivePosterior,
    size: int,
    rng: np.random.Generator,
    method: str = "auto",
    steps: int | None = None,
) -> np.ndarray:
    r"""``(size, n)`` rank vectors from the posterior predictive distribution.

    Every posterior draw is used ⌊size/S⌋ or ⌈size/S⌉ times (which ones, at random); a draw of a
    mixture picks its cluster with probabilities τ^{(s)}; the ranking is drawn from
    Mallows(ρ, α) as :func:`rankstats.core.permutations.sampling.sample_mallows` does — around the
    identity, then relabelled by ρ (every distance is right-invariant) — but with each row at
    its own α: exactly by repeated insertion for Kendall, exactly over the distance classes of
    all ``n!`` rankings up to 8 systems, else by ``steps`` Metropolis swaps per ranking
    (``method="metropolis"`` forces them).
    """
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 1:
        raise ValueError(f"size must be a whole number ≥ 1, not {size!r}")
    if method not in ("auto", "metropolis"):
        raise ValueError(f"method must be 'auto' or 'metropolis', not {method!r}")
    total, clusters, n = post.rho.shape
    pick = np.resize(rng.permutation(total), size)
    cluster = np.zeros(size, dtype=np.intp)
    if clusters > 1:
        cumulative = np.cumsum(post.weight[pick], axis=1)
        u = rng.random(size) * cumulative[:, -1]
        cluster = np.minimum((u[:, None] >= cumulative).sum(axis=1), clusters - 1)
    rho, alpha = post.rho[pick, cluster], post.alpha[pick, cluster]
    if method == "metropolis":
        pi = mallows_sampling.metropolis_draws(
            n, alpha, post.distance, size, rng, steps or mallows_sampling.default_steps(n)
        )
    elif post.distance == "kendall":
        # insertion_ranks broadcasts a column of θ: one θ per ranking
        theta = np.maximum(alpha / n, 1e-12)[:, None]
        pi = mallows_sampling.insertion_ranks(n, theta, size, rng) + 1
    elif n <= ENUMERATED:
        pi = _enumerated(n, alpha, post.distance, rng)
    else:
        pi = mallows_sampling.metropolis_draws(
            n, alpha, post.distance, size, rng, steps or mallows_sampling.default_steps(n)
        )
    return np.take_along_axis(pi, rho - 1, axis=1)


def _enumerated(n: int, alpha: np.ndarray, distance: str, rng: np.random.Generator) -> np.ndarray:
    r"""One ranking around the identity per α, exactly: its distance class by inverse CDF (the
    classes' probabilities :math:`N_n(d) e^{-\alpha d/n}`), then a uniform member of it."""
    perms = mallows_sampling.all_permutations(n)
    d = row_distances(perms, np.arange(1, n + 1), distance)
    by_distance = np.argsort(d, kind="stable")
    values, first, counts = np.unique(d[by_distance], return_index=True, return_counts=True)
    log_w = np.log(counts)[None, :] - alpha[:, None] / n * (values - values[0])[None, :]
    cumulative = np.cumsum(np.exp(log_w - log_w.max(axis=1, keepdims=True)), axis=1)
    u = rng.random(len(alpha)) * cumulative[:, -1]
    cls = np.minimum((u[:, None] >= cumulative).sum(axis=1), len(values) - 1)
    member = np.minimum((rng.random(len(alpha)) * counts[cls]).astype(np.intp), counts[cls] - 1)
    return perms[by_distance[first[cls] + member]]


def predictive_rankings(
    post: PredictivePosterior, size: int = 1000, seed: int | None = 0, method: str = "auto"
) -> pd.DataFrame:
    """:func:`sample_rankings` as a DataFrame of ranks (columns = systems, 1 = best); the same
    seed gives the same rankings."""
    count("size", size, 1)
    random_seed("seed", seed)
    ranks = sample_rankings(post, size, np.random.default_rng(seed), method)
    out = pd.DataFrame(ranks, columns=list(post.systems))
    exact = method == "auto" and (post.distance == "kendall" or post.n <= ENUMERATED)
    out.attrs.update({"distance": post.distance, "sampler": "exact" if exact else "metropolis"})
    return out


# --------------------------------------------------------------------------- the table
def predictive_distribution(
    post: PredictivePosterior, top: int = 20, draws: int = TABLE_DRAWS, seed: int | None = 0
) -> pd.DataFrame:
    r"""The ``top`` most probable rankings of a new assessor with their posterior predictive
    probability (formula of :func:`predictive_probability`) and its standard error.

    **Exact** up to :data:`ENUMERATED` (8) systems: all ``n!`` rankings are scored and the
    ``top`` highest listed; ``attrs["total"]`` is their summed probability, 1 up to float
    error, checked per draw (a ``RuntimeError`` otherwise: :math:`Z_n` is exact there).
    Beyond, the list is **searched**: the candidates are ``draws`` rankings drawn by
    :func:`sample_rankings` and every consensus of the posterior draws (each cluster's mode),
    every distinct one is scored by the formula, and the ``top`` most probable of them are
    listed (``frequency``: their share of the drawn rankings). Their probabilities are those
    of the formula, with the Monte Carlo error of the posterior draws, but a probable ranking
    that is neither drawn nor a consensus is missing: the list is the most probable *found*.

    Returns
    -------
    pandas.DataFrame
        ``ranking`` (``"A > B > C"``), ``probability``, ``se``, [``frequency``], then the rank
        of each system; most probable first. ``attrs["method"]``: ``"exact"`` or ``"search"``.
    """
    count("top", top, 1)
    count("draws", draws, 1)
    random_seed("seed", seed)
    if isinstance(top, bool) or not isinstance(top, (int, np.integer)) or top < 1:
        raise ValueError(f"top must be a whole number ≥ 1, not {top!r}")
    n = post.n
    if n <= ENUMERATED:
        ranks = mallows_sampling.all_permutations(n)
        mean, per_draw = _mean_and_sums(ranks, post)
        worst = float(np.max(np.abs(per_draw - 1.0)))
        if worst > 1e-9 * math.factorial(n):
            raise RuntimeError(f"a draw's {math.factorial(n)} probabilities sum to 1 ± {worst:g}")
        frequency = None
    else:
        drawn = sample_rankings(post, draws, np.random.default_rng(seed))
        candidates = np.vstack([drawn, post.rho.reshape(-1, n)])
        ranks, inverse = np.unique(candidates, axis=0, return_inverse=True)
        frequency = np.bincount(inverse.ravel()[:draws], minlength=len(ranks)) / draws
        mean, _ = _mean_and_sums(ranks, post)
    best = np.argsort(-mean, kind="stable")[:top]
    chosen = ranks[best]
    table = _table(chosen, post, pd.RangeIndex(len(best)), draw_probabilities(chosen, post))
    if frequency is not None:
        table["frequency"] = frequency[best]
    attrs = dict(table.attrs)  # pd.concat keeps no attrs that differ between its inputs
    table = pd.concat([table, pd.DataFrame(chosen, columns=list(post.systems))], axis=1)
    # total: the summed probability of every ranking scored (exact: all n!, so 1)
    attrs.update(
        {
            "method": "exact" if frequency is None else "search",
            "total": float(mean.sum()),
            "candidates": len(ranks),
        }
    )
    if frequency is not None:
        attrs["rankings_drawn"] = draws
    table.attrs = attrs
    return table
