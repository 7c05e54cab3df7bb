r"""Posterior predictive checks of the rank models: :func:`ppc` (a fit) and :func:`ppc_draws`.

A posterior predictive check asks whether data simulated from the fitted model look like the
data it was fitted to (Gelman, Meng & Stern 1996; Gelman et al. 2013, *BDA3* ch. 6).  For ``S``
draws :math:`\theta^{(s)}` of the parameters, one replicated data set :math:`y^{rep,(s)}` is
simulated **with the observation pattern of the observed data**: the same number of rankings,
each ranking the same set of systems (a partial ranking stays partial; ``kind="top_k"``: the same
number of ranked systems, on top of all the others).  For every statistic :math:`T`,

.. math:: p = P(T(y^{rep}) > T(y)) + \tfrac12 P(T(y^{rep}) = T(y)), \qquad
          p_{\text{two-sided}} = 2 \min(p, 1 - p),

over the replications (the *mid-p* form: the statistics are discrete, and a statistic that the
model reproduces exactly — the same value in every replication — gets ``p = 1``, not ``0``).
A statistic is *missed* when ``p_two-sided < threshold`` (default 0.05).

Replication, per model:

* **Plackett–Luce**: each ranking by the Gumbel-max construction (Yellott 1977): the observed
  systems of the ranking sorted by :math:`\theta_i + G_i`, :math:`G_i` i.i.d. standard Gumbel —
  exactly the sequential choice with probabilities proportional to worth, and, by Luce's choice
  axiom, exactly the distribution of the sub-ranking.  ``kind="top_k"``: all systems are
  ranked, the top ``k`` kept.
* **Mallows (Kendall)**: complete rankings from :math:`(\sigma, \theta)` by repeated insertion
  (Doignon, Pekeč & Regenwetter 2004), then restricted to the observed systems of each ranking:
  the marginal of the partial ranking under the model with latent unranked items (the
  model :class:`~rankstats.models.Mallows` fits).
* **Bradley–Terry**: BT gives probabilities of *pairwise outcomes*, not a distribution over
  rankings.  Every pair compared in the data is replicated as independent comparisons (a win,
  a loss or, with Davidson's :math:`\nu`, a tie), as many as observed — the same independence
  the rank-broken BT likelihood assumes.  Statistics of whole rankings (top-1 frequencies,
  Kendall distances of rankings) are **not defined** for BT and are not reported.  (A ranking
  distribution such as :math:`P(\pi) \propto \prod_{i \succ_\pi j} p_{ij}` — Mallows' (1957)
  "Bradley–Terry–Mallows" model — has pairwise marginals different from the fitted
  :math:`p_{ij}`, so it would check a model that was not fitted.)

**Ties.**  Only Bradley–Terry with Davidson's parameter generates ties.  Plackett–Luce's Efron
treatment of ties is an approximation of the likelihood and Mallows treats a tie as a latent
order, neither a tie-*generating* mechanism: their replicated rankings are strict, the tie
frequency is reported as observed against 0 without a p-value, and a tie in the observed data
counts ½ in the pair and distance statistics (as in :func:`rankstats.pairwise`), the expected
value of an order that is unknown.

Statistics: ``top1`` — the share of rankings that rank each system first (a tie for first
shares the ranking); ``pairs`` — for each compared pair, the proportion of comparisons ``a``
wins (ties ½); ``kendall`` — the mean and the standard deviation over rankings of the Kendall
distance of each ranking to the fit's consensus ``fit.order`` (restricted to the ranking's
systems; ties ½); ``ties`` — the share of compared pairs that are tied.

This module drives the checks; the replications are made in :mod:`.ppc_replicate`, the
statistics computed in :mod:`.ppc_statistics`, the p-values and the result built in
:mod:`.ppc_result`, and its figures drawn in :mod:`.ppc_plots`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from rankstats._pymc.convergence import SAMPLED
from rankstats._util.advice import AdviceError
from rankstats._util.arguments import count, probability, random_seed
from rankstats._util.renamed import grouped_parameters, renamed_parameters
from rankstats.core.rankings import Rankings, default_level
from rankstats.core.scores import Scores
from rankstats.models._data import KINDS
from rankstats.models.pair_counts import comparison_counts, rank_breaking
from rankstats.models.ppc_replicate import bt_replicate, mallows_replicate, pl_replicate
from rankstats.models.ppc_result import (
    CheckSettings,
    PPCResult,
    build_result,
    pair_rows,
    statistic_row,
)
from rankstats.models.ppc_statistics import (
    DISTANCE_BINS,
    compact_keys,
    distance_histogram,
    ranking_statistics,
)

#: Replicated entries (draws × rankings × systems) simulated and summarised at once.
CELLS = 2_000_000
MODELS = ("pl", "bt", "mallows")

BT_UNDEFINED = (
    "Bradley–Terry defines probabilities of pairwise outcomes, not a distribution over "
    "rankings: statistics of whole rankings are not defined"
)
NO_TIES = {
    "pl": "Plackett–Luce has no tie mechanism (Efron's ties approximate the likelihood; they "
    "generate nothing): replicated rankings are strict, the observed tie frequency is shown "
    "against 0",
    "mallows": "the Mallows model has no tie mechanism (a tie is a latent order): replicated "
    "rankings are strict, the observed tie frequency is shown against 0",
    "bt": "Bradley–Terry was fitted without Davidson's tie parameter: replicated comparisons "
    "have no ties, the observed tie frequency is shown against 0",
}


# ---------------------------------------------------------------------------------- driver
def _rankings(data: Any, systems: Sequence[str]) -> Rankings:
    """``data`` as Rankings whose columns are ``systems`` (in that order)."""
    if isinstance(data, Scores):
        data = Rankings.from_scores(data, by=default_level(data))
    if not isinstance(data, Rankings):
        raise TypeError(
            f"posterior predictive checks of rankings take Rankings or Scores, not "
            f"{type(data).__name__}"
        )
    index = {s: i for i, s in enumerate(data.systems)}
    missing = [s for s in systems if s not in index]
    observed = ~np.isnan(data.ranks)
    extra = [s for s, i in index.items() if s not in set(systems) and observed[:, i].any()]
    if missing or extra:
        raise ValueError(
            "the data do not match the fit's systems: "
            + (f"missing {missing[:5]}" if missing else "")
            + ("; " if missing and extra else "")
            + (f"not in the fit {extra[:5]}" if extra else "")
            + ". Pass the data the model was fitted to."
        )
    cols = [index[s] for s in systems]
    return Rankings(data.ranks[:, cols], tuple(systems), data.rankers)


def _select(parameters: Mapping[str, np.ndarray], draws: int, rng: np.random.Generator):
    available = next(iter(parameters.values())).shape[0]
    order = rng.permutation(available)
    pick = order[:draws] if available >= draws else np.resize(order, draws)
    note = (
        f"only {available} distinct parameter draw(s) for {draws} replications: draws reused"
        if available < draws
        else None
    )
    return {k: np.asarray(v)[pick] for k, v in parameters.items()}, note


def _check_arguments(
    draws: int, threshold: float, ci_prob: float, kind: str, seed: object = None
) -> None:
    count("draws", draws, 1)
    probability("threshold", threshold)
    probability("ci_prob", ci_prob)
    random_seed("seed", seed)
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")


@dataclass(frozen=True)
class DrawSource:
    """Where the parameter draws of :func:`ppc_draws` come from, as its result records it.

    Parameters
    ----------
    method : str
        How they were obtained (a fit's method: ``"nuts"``, ``"map"``, ...; default
        ``"draws"``, given ones).
    approximation : str, optional
        The approximation they are (e.g. a normal approximation at the MAP), None for a
        posterior sample or given parameters.
    notes : sequence of str
        Remarks added to the result's notes.
    """

    method: str = "draws"
    approximation: str | None = None
    notes: tuple[str, ...] = ()


@renamed_parameters(prob="ci_prob")
@grouped_parameters(source=(DrawSource, ("method", "approximation", "notes")))
def ppc_draws(
    model: str,
    parameters: Mapping[str, np.ndarray],
    data: Any,
    systems: Sequence[str] | None = None,
    consensus: Sequence[str] | None = None,
    draws: int = 200,
    seed: int | None = 0,
    threshold: float = 0.05,
    ci_prob: float = 0.9,
    kind: str = "subset",
    source: DrawSource | None = None,
) -> PPCResult:
    """Posterior predictive check of given parameter draws (see the module docstring).

    :func:`ppc` calls this with a fit's draws; call it directly to check parameters of your own
    (true parameters of a simulation, a point estimate as one draw: a *plug-in* check that
    ignores the uncertainty of the estimate, so stricter than a posterior predictive check).

    Parameters
    ----------
    model : {"pl", "bt", "mallows"}
    parameters : mapping of str to ndarray
        Draws shaped ``(S, ...)`` as :meth:`Fit.draws` returns them: ``log_worth`` (S, N)
        [+ ``log_tie`` (S,)] for PL / BT, ``position`` (S, N) (1 = best) and ``theta`` (S,)
        for Mallows.  With fewer than ``draws`` draws they are reused in turn.
    data : Rankings or Scores (BT also a DataFrame of counts or a Pairwise)
        The observed data; their observation pattern is replicated.
    systems : sequence of str, optional
        The systems of the parameters' columns (default: those of ``data``).
    consensus : sequence of str, optional
        Reference ranking of the Kendall statistics (default: by the mean of the draws).
    draws : int
        Replicated data sets (≥ 1).
    seed : int or None
        Seeds ``numpy.random.default_rng``: which draws and the replications.
    threshold : float
        Missed when the two-sided p-value is below it.
    ci_prob : float
        Central interval of the replicated statistics.
    kind : {"subset", "top_k"}
        How the rankings were observed (as ``PlackettLuce(kind=...)``).
    source : DrawSource, optional
        Where the draws come from, recorded in the result (:func:`ppc` says the fit's method
        and its normal approximation); the old keywords ``method``, ``approximation`` and
        ``notes`` still work for one release, with a :class:`FutureWarning`.

    Returns
    -------
    PPCResult

    Examples
    --------
    Data from a Plackett–Luce model checked against its true worths:

    >>> import numpy as np, rankstats as rs
    >>> from rankstats.models.predictive_checks import ppc_draws
    >>> rk = rs.simulate.plackett_luce([4.0, 2.0, 1.0], size=100, seed=1)
    >>> res = ppc_draws("pl", {"log_worth": np.log([[4.0, 2.0, 1.0]])}, rk, draws=100)
    >>> res.summary()["checked"].tolist()
    [3, 3, 2, 0]
    """
    if model not in MODELS:
        raise ValueError(f"model must be one of {MODELS}, not {model!r}")
    _check_arguments(draws, threshold, ci_prob, kind, seed)
    source = DrawSource() if source is None else source
    settings = CheckSettings(
        model, source.method, int(draws), seed, threshold, ci_prob, source.approximation
    )
    rng = np.random.default_rng(seed)
    notes = list(source.notes)
    params, note = _select(parameters, int(draws), rng)
    if note:
        notes.append(note)
    if model == "bt":
        return _bt_check(settings, params, data, systems, consensus, kind, notes, rng)
    return _ranking_check(settings, params, data, systems, consensus, kind, notes, rng)


def _ranking_check(
    settings: CheckSettings,
    params: dict[str, np.ndarray],
    data: Any,
    systems: Sequence[str] | None,
    consensus: Sequence[str] | None,
    kind: str,
    notes: list[str],
    rng: np.random.Generator,
) -> PPCResult:
    """The check of Plackett–Luce or Mallows draws: replicated rankings, their statistics."""
    model = settings.model
    systems, ranks, observed = _observed_rankings(model, data, systems, kind, notes)
    n = len(systems)
    variable = "position" if model == "mallows" else "log_worth"
    if params[variable].shape[1] != n:
        raise ValueError(f"{variable} draws have {params[variable].shape[1]} columns, not {n}")
    if consensus is None:
        centre = params[variable].mean(axis=0)
        consensus = [systems[i] for i in np.argsort(centre if model == "mallows" else -centre)]
    index = {s: i for i, s in enumerate(systems)}
    consensus_pos = np.empty(n)
    consensus_pos[[index[s] for s in consensus]] = np.arange(n)
    obs = ranking_statistics(np.where(observed, ranks, np.inf)[None], consensus_pos, kind)
    k = observed.sum(axis=1)
    n_pairs = k * (k - 1) / 2 + (k * (n - k) if kind == "top_k" else 0)
    rep, hist = _replicated_statistics(model, params, observed, consensus_pos, kind, n_pairs, rng)
    rows, columns = _ranking_rows(list(consensus), index, obs, rep, len(ranks))
    if obs["ties"][0] > 0:
        notes.append(NO_TIES[model])
    d_obs = obs["distance"][0]
    return build_result(
        settings,
        systems=systems,
        consensus=tuple(consensus),
        n_rankings=len(ranks),
        rows=rows,
        columns=columns,
        notes=notes,
        no_ties=True,  # neither Plackett–Luce nor Mallows generates ties
        distances=(DISTANCE_BINS, distance_histogram((d_obs / n_pairs)[None])[0], hist),
    )


def _observed_rankings(model: str, data: Any, systems, kind: str, notes: list[str]):
    """``(systems, ranks, observed)`` of the rankings that order something (a note says how
    many were left out)."""
    if systems is None:
        if not isinstance(data, Rankings | Scores):
            raise TypeError(f"expected Rankings or Scores, not {type(data).__name__}")
        systems = (
            data.systems
            if isinstance(data, Rankings)
            else Rankings.from_scores(data, by=default_level(data)).systems
        )
    systems = tuple(str(s) for s in systems)
    rk = _rankings(data, systems)
    observed = ~np.isnan(rk.ranks)
    if model == "mallows" and kind != "subset":
        raise AdviceError(
            "the Mallows model treats unranked systems as latent: {kind}", kind="subset"
        )
    keep = observed.sum(axis=1) >= (2 if kind == "subset" else 1)
    if not keep.all():
        notes.append(
            f"{int((~keep).sum())} ranking(s) with nothing to order (fewer than two systems) "
            "left out, as in the fit"
        )
    if not keep.any():
        raise ValueError("no ranking orders two or more systems: nothing to check")
    return systems, rk.ranks[keep], observed[keep]


def _replicated_statistics(
    model: str,
    params: dict[str, np.ndarray],
    observed: np.ndarray,
    consensus_pos: np.ndarray,
    kind: str,
    n_pairs: np.ndarray,
    rng: np.random.Generator,
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """The statistics of the replicated data sets, :data:`CELLS` entries at a time: top-1,
    wins, compared and ties per replication, the mean and sd of the Kendall distances, and
    the histograms of the normalised distances."""
    n_rank, n = observed.shape
    draws = len(next(iter(params.values())))
    block = max(1, CELLS // (n_rank * n))
    reps: dict[str, list[np.ndarray]] = {
        k: [] for k in ("top1", "wins", "compared", "ties", "mean_d", "sd_d")
    }
    hist = []
    for lo in range(0, draws, block):
        part = {key: v[lo : lo + block] for key, v in params.items()}
        if model == "pl":
            keys = pl_replicate(part["log_worth"], observed, rng, kind)
        else:
            keys = mallows_replicate(part["position"], part["theta"], observed, rng)
        stats_ = ranking_statistics(compact_keys(keys), consensus_pos, kind, strict=True)
        for key in ("top1", "wins", "compared", "ties"):
            reps[key].append(stats_[key])
        d = stats_["distance"]
        reps["mean_d"].append(d.mean(axis=1))
        reps["sd_d"].append(d.std(axis=1))
        hist.append(distance_histogram(d / n_pairs))
    return {key: np.concatenate(v) for key, v in reps.items() if v}, np.concatenate(hist)


def _ranking_rows(order: list[str], index: dict[str, int], obs: dict, rep: dict, n_rank: int):
    """The statistics table's rows (observed values) and columns (replications)."""
    rows: list[dict[str, Any]] = []
    columns: list[np.ndarray] = []
    for s in order:
        i = index[s]
        rows.append(statistic_row("top1", f"first: {s}", s, None, obs["top1"][0, i] / n_rank))
        columns.append(rep["top1"][:, i] / n_rank)
    pair_rows(rows, columns, order, index, obs["wins"][0], obs["compared"][0], rep)
    d_obs = obs["distance"][0]
    rows.append(
        statistic_row("kendall", "mean Kendall distance to consensus", None, None, d_obs.mean())
    )
    columns.append(rep["mean_d"])
    rows.append(
        statistic_row("kendall", "sd of Kendall distance to consensus", None, None, d_obs.std())
    )
    columns.append(rep["sd_d"])
    tied = obs["ties"][0] / (obs["compared"][0].sum() / 2)
    rows.append(statistic_row("ties", "share of compared pairs tied", None, None, tied))
    columns.append(rep["ties"] / (rep["compared"].sum(axis=(1, 2)) / 2))
    return rows, columns


def _bt_counts(data: Any, systems: Sequence[str] | None, kind: str):
    """Observed pair counts ``(systems, item1, item2, wins1, ties)`` with ``systems`` order."""
    if isinstance(data, Rankings | Scores):
        if isinstance(data, Scores):
            data = Rankings.from_scores(data, by=default_level(data))
        systems = tuple(systems) if systems is not None else data.systems
        counts = rank_breaking(_rankings(data, systems), kind=kind)
    else:
        counts = comparison_counts(data, kind=kind)  # BradleyTerry(ties="davidson").counts
        systems = tuple(systems) if systems is not None else counts.systems
    systems = tuple(str(s) for s in systems)
    index = {s: i for i, s in enumerate(systems)}
    unknown = [s for s in counts.systems if s not in index]
    if unknown:
        raise ValueError(f"the data compare systems not in the fit: {unknown[:5]}")
    code = np.array([index[s] for s in counts.systems], dtype=np.int64)
    return systems, code[counts.item1], code[counts.item2], counts.wins1, counts.wins2, counts.ties


def _bt_check(
    settings: CheckSettings,
    params: dict[str, np.ndarray],
    data: Any,
    systems: Sequence[str] | None,
    consensus: Sequence[str] | None,
    kind: str,
    notes: list[str],
    rng: np.random.Generator,
) -> PPCResult:
    """The check of Bradley–Terry draws: every compared pair replicated."""
    draws = settings.draws
    systems, item1, item2, wins1, wins2, ties = _bt_counts(data, systems, kind)
    n = len(systems)
    if params["log_worth"].shape[1] != n:
        raise ValueError(f"log_worth draws have {params['log_worth'].shape[1]} columns, not {n}")
    total = wins1 + wins2 + ties
    log_tie = params.get("log_tie")
    rep_wins, rep_ties = bt_replicate(
        params["log_worth"], log_tie, item1, item2, total.astype(np.int64), rng
    )
    wins_obs = np.zeros((n, n))
    compared_obs = np.zeros((n, n))
    wins_obs[item1, item2] = wins1 + 0.5 * ties
    wins_obs[item2, item1] = wins2 + 0.5 * ties
    compared_obs[item1, item2] = compared_obs[item2, item1] = total
    rep_w = np.zeros((draws, n, n))
    rep_w[:, item1, item2] = rep_wins + 0.5 * rep_ties
    rep_w[:, item2, item1] = total - rep_wins - 0.5 * rep_ties
    rep = {"wins": rep_w, "compared": np.broadcast_to(compared_obs, (draws, n, n))}
    if consensus is None:
        centre = params["log_worth"].mean(axis=0)
        consensus = [systems[i] for i in np.argsort(-centre, kind="stable")]
    index = {s: i for i, s in enumerate(systems)}
    rows: list[dict[str, Any]] = []
    columns: list[np.ndarray] = []
    pair_rows(rows, columns, list(consensus), index, wins_obs, compared_obs, rep)
    rows.append(
        statistic_row("ties", "share of compared pairs tied", None, None, ties.sum() / total.sum())
    )
    columns.append(rep_ties.sum(axis=1) / total.sum())
    no_ties = log_tie is None
    if no_ties and ties.sum() > 0:
        notes.append(NO_TIES["bt"])
    notes.append(
        "each compared pair replicated as independent comparisons (the rank-broken BT "
        "likelihood's assumption); statistics of whole rankings are not defined for BT"
    )
    return build_result(
        settings,
        systems=systems,
        consensus=tuple(consensus),
        n_rankings=len(item1),
        rows=rows,
        columns=columns,
        notes=notes,
        undefined={"top1": BT_UNDEFINED, "kendall": BT_UNDEFINED},
        no_ties=no_ties,
    )


# ---------------------------------------------------------------------------------- fits
@renamed_parameters(prob="ci_prob")
def ppc(
    fit: Any,
    data: Any,
    draws: int = 200,
    seed: int | None = 0,
    threshold: float = 0.05,
    ci_prob: float = 0.9,
    kind: str | None = None,
) -> PPCResult:
    """Posterior predictive check of a fitted rank model against the data it was fitted to.

    ``draws`` parameter draws of the fit (``nuts`` / ``mcmc``: the posterior sample;
    ``mle`` / ``map``: the normal-approximation draws the fit holds, which the result says)
    each give one replicated data set with the observed data's pattern; see
    :mod:`rankstats.models.predictive_checks` for how each model replicates, the statistics and the
    p-values. A Mallows ``map`` fit (one point, no uncertainty) is refused: fit with
    ``method="mcmc"``.

    Parameters
    ----------
    fit : Fit
        A Plackett–Luce, Bradley–Terry or Mallows fit.
    data : Rankings or Scores (BT also a DataFrame of counts or a Pairwise)
        The data the model was fitted to (a fit does not keep its data).
    draws : int
        Replicated data sets (default 200); a random subset of the fit's draws, seeded.
    seed : int or None
        Seeds the choice of draws and the replications (``numpy.random.default_rng``).
    threshold : float
        A statistic is missed when its two-sided p-value is below it (default 0.05).
    ci_prob : float
        Central interval of the replicated statistics (default 0.9).
    kind : {"subset", "top_k"}, optional
        How the rankings were observed (default: the fit's ``kind``, else ``"subset"``).

    Returns
    -------
    PPCResult
        ``.table()``, ``.missed()``, ``.summary()``, ``.plot(statistic)``, ``.plots()``.

    Examples
    --------
    >>> import rankstats as rs
    >>> from rankstats.models.predictive_checks import ppc
    >>> rk = rs.load_rankings("salad")
    >>> fit = rs.models.PlackettLuce().fit(rk, method="map")
    >>> res = ppc(fit, rk, draws=100, seed=0)
    >>> res.approximation.startswith("normal approximation")
    True
    >>> res.summary()["checked"].tolist()
    [4, 6, 2, 0]
    """
    if fit.model not in MODELS:
        raise ValueError(f"no posterior predictive check for model {fit.model!r}")
    _check_arguments(draws, threshold, ci_prob, kind or "subset", seed)
    distance = fit.info.get("distance", "kendall") if fit.model == "mallows" else None
    if distance not in (None, "kendall"):
        raise ValueError(
            "posterior predictive checks of a Mallows fit replicate rankings with the Kendall "
            f"distance's exact sampler; this fit uses the {distance} distance, for which they "
            "are not available yet"
        )
    parameters = fit.draws()
    available = next(iter(parameters.values())).shape[0]
    if fit.model == "mallows" and (fit.method not in SAMPLED or available < 2):
        raise AdviceError(
            "this Mallows fit ({method}) holds a single point estimate (the Kemeny consensus and "
            "the ML dispersion), not a posterior: a check against it would ignore the "
            "uncertainty of σ and θ. Fit with {mcmc} (or call "
            "rankstats.models.predictive_checks.ppc_draws with fit.point() for a plug-in check).",
            method=("method", fit.method),
            mcmc=("method", "mcmc"),
        )
    approximation = None
    if fit.method not in SAMPLED:
        fit_seed = fit.info.get("seed")
        approximation = (
            f"normal approximation at the {fit.method.upper()} ({available} draws from "
            "N(θ̂, I(θ̂)⁻¹)"
            + (f", seed {fit_seed})" if fit_seed is not None else ")")
            + ", not a posterior sample"
        )
    if kind is None:
        kind = str(fit.info.get("kind", "subset"))
    return ppc_draws(
        fit.model,
        parameters,
        data,
        systems=fit.systems,
        consensus=fit.order,
        draws=draws,
        seed=seed,
        threshold=threshold,
        ci_prob=ci_prob,
        kind=kind,
        source=DrawSource(fit.method, approximation),
    )
