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
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from rankstats.core.rankings import Rankings, default_level
from rankstats.core.scores import Scores
from rankstats.models._data import KINDS

#: Replicated entries (draws × rankings × systems) simulated and summarised at once.
CELLS = 2_000_000
#: Statistic groups, in the order of the table.
GROUPS = ("top1", "pairs", "kendall", "ties")
MODELS = ("pl", "bt", "mallows")
#: Bins of the per-ranking normalised Kendall distance (figure of the ``kendall`` group).
DISTANCE_BINS = np.linspace(0.0, 1.0, 11)

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


# ---------------------------------------------------------------------------------- result
@dataclass(frozen=True, eq=False, repr=False)
class PPCResult:
    """Posterior predictive check of a rank model (:func:`ppc`).

    Attributes
    ----------
    model, method : str
        The model (``"pl"``, ``"bt"``, ``"mallows"``) and how it was fitted.
    systems : tuple of str
    consensus : tuple of str
        Reference ranking of the Kendall statistics (the fit's ``order``), best first.
    n_rankings : int
        Rankings (PL, Mallows) or compared pairs (BT) in the observation pattern.
    draws : int
        Replicated data sets.
    seed : int or None
    threshold : float
        A statistic is missed when its two-sided p-value is below it.
    prob : float
        Probability of the central intervals of the replicated statistics.
    statistics : pandas.DataFrame
        One row per statistic: ``group`` (``top1``, ``pairs``, ``kendall``, ``ties``),
        ``statistic`` (readable name), ``system_a``, ``system_b``, ``observed``, ``mean``,
        ``low``, ``high`` (of the replications), ``p_value`` (two-sided mid-p; NaN when the
        model cannot produce the statistic), ``missed``.
    replicated : numpy.ndarray, shape (draws, len(statistics))
        The statistic of every replicated data set, columns in the rows' order.
    undefined : dict
        Statistic group → why the model does not define it (Bradley–Terry: ``top1``,
        ``kendall``).
    notes : tuple of str
        How the replications were made (normal approximation, reused draws, dropped rankings,
        no tie mechanism).
    approximation : str or None
        For ``mle`` / ``map`` fits: the draws are those of the normal approximation at the
        optimum, not of a posterior.
    distance_bins, observed_distances, replicated_distances : numpy.ndarray or None
        Histogram of the per-ranking Kendall distance (divided by the ranking's number of pairs):
        bin edges, observed counts ``(bins,)``, replicated counts ``(draws, bins)``.
    """

    model: str
    method: str
    systems: tuple[str, ...]
    consensus: tuple[str, ...]
    n_rankings: int
    draws: int
    seed: int | None
    threshold: float
    prob: float
    statistics: pd.DataFrame
    replicated: np.ndarray
    undefined: dict = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    approximation: str | None = None
    distance_bins: np.ndarray | None = None
    observed_distances: np.ndarray | None = None
    replicated_distances: np.ndarray | None = None

    def table(self, missed_only: bool = False) -> pd.DataFrame:
        """The statistics (a copy), optionally only those the model misses."""
        table = self.statistics.copy()
        return table[table["missed"]].reset_index(drop=True) if missed_only else table

    def missed(self) -> pd.DataFrame:
        """The statistics whose two-sided p-value is below :attr:`threshold`."""
        return self.table(missed_only=True)

    def summary(self) -> pd.DataFrame:
        """Per statistic group: how many statistics, how many missed, how many a correct model
        would miss by chance (``threshold × checked``; posterior predictive p-values are
        conservative, so usually fewer), and the missed ones by name."""
        rows = []
        for group in GROUPS:
            if group in self.undefined:
                rows.append(
                    {"group": group, "checked": 0, "missed": 0, "expected_by_chance": 0.0}
                    | {"which": "not defined for this model"}
                )
                continue
            part = self.statistics[self.statistics["group"] == group]
            checked = part[part["p_value"].notna()]
            if group == "ties" and checked.empty:
                observed = float(part["observed"].iloc[0]) if len(part) else 0.0
                rows.append(
                    {"group": group, "checked": 0, "missed": 0, "expected_by_chance": 0.0}
                    | {
                        "which": f"observed {observed:.1%} of compared pairs; the model "
                        "generates none (no tie mechanism)"
                    }
                )
                continue
            missed = part[part["missed"]]
            which = ", ".join(missed["statistic"].head(5))
            if len(missed) > 5:
                which += f", … {len(missed) - 5} more"
            rows.append(
                {
                    "group": group,
                    "checked": len(checked),
                    "missed": len(missed),
                    "expected_by_chance": round(self.threshold * len(checked), 2),
                    "which": which,
                }
            )
        return pd.DataFrame(rows).set_index("group")

    def plot(self, statistic: str):
        """The figure of one statistic group: ``"top1"``, ``"pairs"``, ``"kendall"``,
        ``"ties"`` (observed against the replicated intervals; missed ones in red)."""
        from rankstats.models import ppc_plots

        return ppc_plots.plot(self, statistic)

    def plots(self) -> dict[str, Any]:
        """Every figure the model defines, by statistic group."""
        return {g: self.plot(g) for g in GROUPS if g not in self.undefined}

    def __repr__(self) -> str:
        what = "rankings" if self.model != "bt" else "compared pairs"
        head = (
            f"PPCResult(model={self.model!r}, method={self.method!r}, {self.draws} replicated "
            f"data sets of {self.n_rankings} {what}, threshold {self.threshold:g})"
        )
        lines = [head]
        if self.approximation:
            lines.append(f"  draws: {self.approximation}")
        summary = self.summary()
        for group, row in summary.iterrows():
            if group in self.undefined:
                lines.append(f"  {group:<8} not defined: {self.undefined[group]}")
                continue
            if row["checked"] == 0:
                lines.append(f"  {group:<8} {row['which']}")
                continue
            text = f"  {group:<8} {row['missed']:>3} of {row['checked']:>3} missed"
            text += f" (≈{row['expected_by_chance']:g} by chance)"
            if row["which"]:
                text += f": {row['which']}"
            lines.append(text)
        lines.extend(f"  note: {n}" for n in self.notes)
        return "\n".join(lines)


# ---------------------------------------------------------------------------------- samplers
def pl_replicate(
    log_worth: np.ndarray,
    observed: np.ndarray,
    rng: np.random.Generator,
    kind: str = "subset",
) -> np.ndarray:
    """Replicated Plackett–Luce rankings with the observation pattern ``observed``.

    Parameters
    ----------
    log_worth : ndarray, shape (S, N)
    observed : ndarray of bool, shape (L, N)
        Which systems each ranking ranks.
    kind : {"subset", "top_k"}
        ``subset``: each ranking orders its observed systems (Gumbel-max on them, exact by the
        choice axiom); ``top_k``: a ranking of all systems, of which the best ``k`` (the number
        observed) are kept.

    Returns
    -------
    ndarray, shape (S, L, N)
        Sort keys (smaller = better; ``inf`` = not ranked).
    """
    s, (n_rank, n) = log_worth.shape[0], observed.shape
    utility = log_worth[:, None, :] + rng.gumbel(size=(s, n_rank, n))
    if kind == "subset":
        return np.where(observed, -utility, np.inf)
    rank = np.argsort(np.argsort(-utility, axis=2), axis=2).astype(np.float64)
    k = observed.sum(axis=1)
    return np.where(rank < k[:, None], rank, np.inf)


def mallows_complete(
    position: np.ndarray, theta: np.ndarray, size: int, rng: np.random.Generator
) -> np.ndarray:
    r"""Complete Mallows (Kendall) rankings by repeated insertion, ``size`` per draw.

    The ``j``-th item of :math:`\sigma` (``j = 0..n-1``) is inserted among the ``j`` placed
    before it with ``V_j`` of them ending below it, :math:`P(V_j = v) \propto e^{-\theta v}`,
    ``v = 0..j`` (inverse transform of the truncated geometric); the Kendall distance to σ is
    :math:`\sum_j V_j`, which gives exactly :math:`P(\pi) \propto e^{-\theta d(\pi, \sigma)}`.

    Parameters
    ----------
    position : ndarray, shape (S, N)
        Position of each system in σ (1 = best; only the order matters).
    theta : ndarray, shape (S,)
    size : int

    Returns
    -------
    ndarray of int, shape (S, size, N)
        Position of each system in each ranking (0 = best; int16 when ``N < 32768``).
    """
    s, n = position.shape
    theta = np.asarray(theta, dtype=np.float64).reshape(s, 1, 1)
    j = np.arange(n, dtype=np.float64)
    u = rng.random((s, size, n))
    small = theta < 1e-10
    t = np.where(small, 1.0, theta)
    # P(V ≤ v) = (1 - q^(v+1)) / (1 - q^(j+1)), q = e^{-θ}: smallest v with CDF ≥ u.
    x = -np.log1p(u * np.expm1(-(j + 1) * t)) / t
    v = np.where(small, np.floor(u * (j + 1)), np.ceil(x) - 1)
    small_int = np.int16 if n < 2**15 else np.int64
    v = np.clip(v, 0, j).astype(small_int)
    slot_pos = np.zeros((s, size, n), dtype=small_int)  # by σ position
    for step in range(1, n):
        slot = step - v[:, :, step]
        before = slot_pos[:, :, :step]
        before += before >= slot[:, :, None]
        slot_pos[:, :, step] = slot
    sigma = np.argsort(position, axis=1, kind="stable")  # (S, N): system at σ position k
    out = np.empty_like(slot_pos)
    np.put_along_axis(out, np.broadcast_to(sigma[:, None, :], out.shape), slot_pos, axis=2)
    return out


def mallows_replicate(
    position: np.ndarray, theta: np.ndarray, observed: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """Replicated Mallows rankings: complete rankings restricted to each ranking's systems.

    Returns sort keys ``(S, L, N)`` (smaller = better; ``inf`` = not ranked).
    """
    complete = mallows_complete(position, theta, observed.shape[0], rng)
    return np.where(observed, complete.astype(np.float64), np.inf)


def bt_replicate(
    log_worth: np.ndarray,
    log_tie: np.ndarray | None,
    item1: np.ndarray,
    item2: np.ndarray,
    n: np.ndarray,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
    """Replicated Bradley–Terry (Davidson) comparisons: ``n[p]`` independent comparisons of
    each pair ``(item1[p], item2[p])``.

    Returns
    -------
    wins1, ties : ndarray of int, shape (S, P)
    """
    ta, tb = log_worth[:, item1], log_worth[:, item2]
    if log_tie is None:
        p_tie = np.zeros_like(ta)
        p_win = 1.0 / (1.0 + np.exp(tb - ta))
    else:
        tie = np.asarray(log_tie).reshape(-1, 1) + 0.5 * (ta + tb)
        top = np.maximum(np.maximum(ta, tb), tie)
        ea, eb, et = np.exp(ta - top), np.exp(tb - top), np.exp(tie - top)
        p_tie = et / (ea + eb + et)
        p_win = ea / (ea + eb)  # given no tie
    n = np.broadcast_to(n.astype(np.int64), ta.shape)
    ties = rng.binomial(n, p_tie)
    wins = rng.binomial(n - ties, p_win)
    return wins, ties


# ---------------------------------------------------------------------------------- statistics
def ranking_statistics(
    keys: np.ndarray, consensus_pos: np.ndarray, kind: str = "subset", strict: bool = False
) -> dict[str, np.ndarray]:
    """Statistics of rankings given as sort keys ``(S, L, N)`` (smaller = better, inf = not
    ranked; equal finite keys = a tie).

    A pair is compared in a ranking when both systems are ranked (``top_k``: at least one).
    Returns ``top1`` (S, N) — rankings with each system first (a tie for first shares the
    ranking), ``wins`` (S, N, N) — ``a`` above ``b`` plus ½ per tie, ``compared`` (S, N, N),
    ``ties`` (S,) — tied pairs, ``distance`` (S, L) — Kendall distance of each ranking to the
    ranking with positions ``consensus_pos`` (ties ½).  ``strict=True`` promises that no two
    ranked systems of a ranking share a key (replicated rankings), and skips looking for ties.
    A loop over systems, vectorised over draws and rankings.
    """
    s, n_rank, n = keys.shape
    finite = np.isfinite(keys)
    best = np.where(finite, keys, np.inf).min(axis=2, keepdims=True)
    first = finite & (keys == best)
    top1 = (first / np.maximum(first.sum(axis=2, keepdims=True), 1)).sum(axis=1)
    wins = np.empty((s, n, n))
    compared = np.empty((s, n, n))
    ties = np.zeros(s)
    distance = np.zeros((s, n_rank))
    for j in range(n):
        kj, fj = keys[:, :, j : j + 1], finite[:, :, j : j + 1]
        both = (finite & fj) if kind == "subset" else (finite | fj)
        both[:, :, j] = False
        above = (keys < kj) & both
        compared[:, :, j] = both.sum(axis=1)
        better = consensus_pos < consensus_pos[j]  # i above j in the consensus
        if strict:
            wins[:, :, j] = above.sum(axis=1)
            below = both & ~above  # i below j (no ties)
            distance += below[:, :, better].sum(axis=2)
            continue
        tie = (keys == kj) & finite & fj
        tie[:, :, j] = False
        wins[:, :, j] = above.sum(axis=1) + 0.5 * tie.sum(axis=1)
        ties += tie[:, :, :j].sum(axis=(1, 2))
        below = (keys[:, :, better] > kj) & both[:, :, better]
        distance += below.sum(axis=2) + 0.5 * tie[:, :, better].sum(axis=2)
    return {"top1": top1, "wins": wins, "compared": compared, "ties": ties, "distance": distance}


def p_values(observed: np.ndarray, replicated: np.ndarray) -> np.ndarray:
    """Two-sided mid-p posterior predictive p-values, ``2 min(p, 1 − p)`` with
    ``p = P(T_rep > T_obs) + ½ P(T_rep = T_obs)``; NaN replications are ignored."""
    observed = np.asarray(observed, dtype=np.float64)
    tol = 1e-9 * np.maximum(1.0, np.abs(observed))
    valid = ~np.isnan(replicated)
    diff = replicated - observed
    greater = ((diff > tol) & valid).sum(axis=0)
    equal = ((np.abs(diff) <= tol) & valid).sum(axis=0)
    count = valid.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = (greater + 0.5 * equal) / count
    return np.where(count > 0, 2 * np.minimum(p, 1 - p), np.nan)


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


def _summarise(values: np.ndarray, prob: float) -> tuple[np.ndarray, ...]:
    q = [(1 - prob) / 2, (1 + prob) / 2]
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN column: never compared
        mean = np.nanmean(values, axis=0)
        low, high = np.nanquantile(values, q, axis=0)
    return mean, low, high


def _check_arguments(draws: int, threshold: float, prob: float, kind: str) -> None:
    if isinstance(draws, bool) or not isinstance(draws, int | np.integer) or draws < 1:
        raise ValueError(f"draws must be an integer ≥ 1, got {draws!r}")
    if not 0 < threshold < 1:
        raise ValueError(f"threshold must be in (0, 1), got {threshold}")
    if not 0 < prob < 1:
        raise ValueError(f"prob must be in (0, 1), got {prob}")
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")


def ppc_draws(
    model: str,
    parameters: Mapping[str, np.ndarray],
    data: Any,
    systems: Sequence[str] | None = None,
    consensus: Sequence[str] | None = None,
    draws: int = 200,
    seed: int | None = 0,
    threshold: float = 0.05,
    prob: float = 0.9,
    kind: str = "subset",
    method: str = "draws",
    approximation: str | None = None,
    notes: Sequence[str] = (),
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
    prob : float
        Central interval of the replicated statistics.
    kind : {"subset", "top_k"}
        How the rankings were observed (as ``PlackettLuce(kind=...)``).

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
    _check_arguments(draws, threshold, prob, kind)
    rng = np.random.default_rng(seed)
    notes = list(notes)
    params, note = _select(parameters, int(draws), rng)
    if note:
        notes.append(note)
    if model == "bt":
        return _bt_check(
            params,
            data,
            systems,
            consensus,
            int(draws),
            seed,
            threshold,
            prob,
            kind,
            method,
            approximation,
            notes,
            rng,
        )
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
    n = len(systems)
    observed = ~np.isnan(rk.ranks)
    if model == "mallows" and kind != "subset":
        raise ValueError("the Mallows model treats unranked systems as latent: kind='subset'")
    keep = observed.sum(axis=1) >= (2 if kind == "subset" else 1)
    if not keep.all():
        notes.append(
            f"{int((~keep).sum())} ranking(s) with nothing to order (fewer than two systems) "
            "left out, as in the fit"
        )
    ranks, observed = rk.ranks[keep], observed[keep]
    if not len(ranks):
        raise ValueError("no ranking orders two or more systems: nothing to check")
    variable = "position" if model == "mallows" else "log_worth"
    if params[variable].shape[1] != n:
        raise ValueError(f"{variable} draws have {params[variable].shape[1]} columns, not {n}")
    if consensus is None:
        centre = params[variable].mean(axis=0)
        consensus = [systems[i] for i in np.argsort(centre if model == "mallows" else -centre)]
    index = {s: i for i, s in enumerate(systems)}
    consensus_pos = np.empty(n)
    consensus_pos[[index[s] for s in consensus]] = np.arange(n)
    obs_keys = np.where(observed, ranks, np.inf)[None]
    obs = ranking_statistics(obs_keys, consensus_pos, kind)
    n_rank = len(ranks)
    block = max(1, CELLS // (n_rank * n))
    reps: dict[str, list[np.ndarray]] = {k: [] for k in ("top1", "wins", "compared", "ties")}
    k = observed.sum(axis=1)
    n_pairs = k * (k - 1) / 2 + (k * (n - k) if kind == "top_k" else 0)
    mean_d, sd_d, hist = [], [], []
    for lo in range(0, draws, block):
        part = {key: v[lo : lo + block] for key, v in params.items()}
        if model == "pl":
            keys = pl_replicate(part["log_worth"], observed, rng, kind)
        else:
            keys = mallows_replicate(part["position"], part["theta"], observed, rng)
        stats_ = ranking_statistics(_compact(keys), consensus_pos, kind, strict=True)
        for key in ("top1", "wins", "compared", "ties"):
            reps[key].append(stats_[key])
        d = stats_["distance"]
        mean_d.append(d.mean(axis=1))
        sd_d.append(d.std(axis=1))
        hist.append(_histogram(d / n_pairs))
    rep = {key: np.concatenate(v) for key, v in reps.items() if v}
    rep_mean_d, rep_sd_d = np.concatenate(mean_d), np.concatenate(sd_d)
    d_obs = obs["distance"][0]

    rows: list[dict[str, Any]] = []
    columns: list[np.ndarray] = []
    order = list(consensus)
    for s in order:
        i = index[s]
        rows.append(_row("top1", f"first: {s}", s, None, obs["top1"][0, i] / n_rank))
        columns.append(rep["top1"][:, i] / n_rank)
    _pair_rows(rows, columns, order, index, obs["wins"][0], obs["compared"][0], rep)
    rows.append(_row("kendall", "mean Kendall distance to consensus", None, None, d_obs.mean()))
    columns.append(rep_mean_d)
    rows.append(_row("kendall", "sd of Kendall distance to consensus", None, None, d_obs.std()))
    columns.append(rep_sd_d)
    tied = obs["ties"][0] / (obs["compared"][0].sum() / 2)
    rows.append(_row("ties", "share of compared pairs tied", None, None, tied))
    columns.append(rep["ties"] / (rep["compared"].sum(axis=(1, 2)) / 2))
    no_ties = True  # neither Plackett–Luce nor Mallows generates ties
    if obs["ties"][0] > 0:
        notes.append(NO_TIES[model])
    return _result(
        model,
        method,
        systems,
        tuple(consensus),
        n_rank,
        int(draws),
        seed,
        threshold,
        prob,
        rows,
        columns,
        {},
        notes,
        approximation,
        no_ties,
        (DISTANCE_BINS, _histogram((d_obs / n_pairs)[None])[0], np.concatenate(hist)),
    )


def _compact(keys: np.ndarray) -> np.ndarray:
    """Strict sort keys as exact float32 ranks (0 = best; ``inf`` kept): the same order, half
    the memory traffic of float64 in :func:`ranking_statistics`."""
    ranks = np.empty(keys.shape, dtype=np.float32)
    n = keys.shape[2]
    np.put_along_axis(
        ranks, np.argsort(keys, axis=2), np.arange(n, dtype=np.float32)[None, None, :], axis=2
    )
    return np.where(np.isfinite(keys), ranks, np.float32(np.inf))


def _histogram(values: np.ndarray) -> np.ndarray:
    """Counts of ``values`` (S, L) in :data:`DISTANCE_BINS` (the last bin includes 1)."""
    nb = len(DISTANCE_BINS) - 1
    b = np.clip(np.floor(values * nb).astype(np.int64), 0, nb - 1)
    out = np.zeros((values.shape[0], nb))
    np.add.at(out, (np.repeat(np.arange(values.shape[0]), values.shape[1]), b.ravel()), 1.0)
    return out


def _row(group: str, name: str, a: str | None, b: str | None, value: float) -> dict[str, Any]:
    return {"group": group, "statistic": name, "system_a": a, "system_b": b, "observed": value}


def _pair_rows(rows, columns, order, index, wins_obs, compared_obs, rep) -> None:
    """One row per pair compared in the data, ``a`` before ``b`` in ``order``."""
    n = len(order)
    pos = np.array([index[s] for s in order])
    ia, ib = np.triu_indices(n, k=1)  # positions in ``order``: ia before ib
    keep = compared_obs[pos[ia], pos[ib]] > 0
    ia, ib = ia[keep], ib[keep]
    a, b = pos[ia], pos[ib]
    names = np.array(order, dtype=object)
    with np.errstate(invalid="ignore", divide="ignore"):
        values = rep["wins"][:, a, b] / np.where(
            rep["compared"][:, a, b] > 0, rep["compared"][:, a, b], np.nan
        )
    observed = wins_obs[a, b] / compared_obs[a, b]
    for k in range(len(a)):
        sa, sb = names[ia[k]], names[ib[k]]
        rows.append(_row("pairs", f"{sa} ≻ {sb}", sa, sb, observed[k]))
        columns.append(values[:, k])


def _result(
    model,
    method,
    systems,
    consensus,
    n_rank,
    draws,
    seed,
    threshold,
    prob,
    rows,
    columns,
    undefined,
    notes,
    approximation,
    no_ties,
    distances,
) -> PPCResult:
    table = pd.DataFrame(rows)
    replicated = np.column_stack(columns) if columns else np.empty((draws, 0))
    mean, low, high = _summarise(replicated, prob)
    p = p_values(table["observed"].to_numpy(np.float64), replicated)
    is_ties = (table["group"] == "ties").to_numpy()
    if no_ties:
        p = np.where(is_ties, np.nan, p)
    table["mean"], table["low"], table["high"] = mean, low, high
    table["p_value"] = p
    table["missed"] = np.nan_to_num(p, nan=1.0) < threshold
    bins, obs_hist, rep_hist = distances if distances is not None else (None, None, None)
    return PPCResult(
        model=model,
        method=method,
        systems=tuple(systems),
        consensus=tuple(consensus),
        n_rankings=n_rank,
        draws=draws,
        seed=seed,
        threshold=threshold,
        prob=prob,
        statistics=table,
        replicated=replicated,
        undefined=dict(undefined),
        notes=tuple(dict.fromkeys(notes)),
        approximation=approximation,
        distance_bins=bins,
        observed_distances=obs_hist,
        replicated_distances=rep_hist,
    )


def _bt_counts(data: Any, systems: Sequence[str] | None, kind: str):
    """Observed pair counts ``(systems, item1, item2, wins1, ties)`` with ``systems`` order."""
    from rankstats.models._data import rank_breaking
    from rankstats.models.bradley_terry import BradleyTerry

    if isinstance(data, Rankings | Scores):
        if isinstance(data, Scores):
            data = Rankings.from_scores(data, by=default_level(data))
        systems = tuple(systems) if systems is not None else data.systems
        counts = rank_breaking(_rankings(data, systems), kind=kind)
    else:
        counts = BradleyTerry(ties="davidson", kind=kind).counts(data)
        systems = tuple(systems) if systems is not None else counts.systems
    systems = tuple(str(s) for s in systems)
    index = {s: i for i, s in enumerate(systems)}
    unknown = [s for s in counts.systems if s not in index]
    if unknown:
        raise ValueError(f"the data compare systems not in the fit: {unknown[:5]}")
    code = np.array([index[s] for s in counts.systems], dtype=np.int64)
    return systems, code[counts.item1], code[counts.item2], counts.wins1, counts.wins2, counts.ties


def _bt_check(
    params, data, systems, consensus, draws, seed, threshold, prob, kind, method, approx, notes, rng
) -> PPCResult:
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
    _pair_rows(rows, columns, list(consensus), index, wins_obs, compared_obs, rep)
    rows.append(_row("ties", "share of compared pairs tied", None, None, ties.sum() / total.sum()))
    columns.append(rep_ties.sum(axis=1) / total.sum())
    no_ties = log_tie is None
    if no_ties and ties.sum() > 0:
        notes.append(NO_TIES["bt"])
    notes.append(
        "each compared pair replicated as independent comparisons (the rank-broken BT "
        "likelihood's assumption); statistics of whole rankings are not defined for BT"
    )
    return _result(
        "bt",
        method,
        systems,
        tuple(consensus),
        len(item1),
        int(draws),
        seed,
        threshold,
        prob,
        rows,
        columns,
        {"top1": BT_UNDEFINED, "kendall": BT_UNDEFINED},
        notes,
        approx,
        no_ties,
        None,
    )


# ---------------------------------------------------------------------------------- fits
def ppc(
    fit: Any,
    data: Any,
    draws: int = 200,
    seed: int | None = 0,
    threshold: float = 0.05,
    prob: float = 0.9,
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
    prob : float
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
    from rankstats._pymc.convergence import SAMPLED

    if fit.model not in MODELS:
        raise ValueError(f"no posterior predictive check for model {fit.model!r}")
    _check_arguments(draws, threshold, prob, kind or "subset")
    parameters = fit.draws()
    available = next(iter(parameters.values())).shape[0]
    if fit.model == "mallows" and (fit.method not in SAMPLED or available < 2):
        raise ValueError(
            f"this Mallows fit (method={fit.method!r}) holds a single point estimate (the Kemeny "
            "consensus and the ML dispersion), not a posterior: a check against it would ignore "
            "the uncertainty of σ and θ. Fit with method='mcmc' (or call "
            "rankstats.models.predictive_checks.ppc_draws with fit.point() for a plug-in check)."
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
        prob=prob,
        kind=kind,
        method=fit.method,
        approximation=approximation,
    )
