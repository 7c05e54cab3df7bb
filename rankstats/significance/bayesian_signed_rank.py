r"""The Bayesian signed-rank test with a region of practical equivalence (ROPE).

Benavoli, Corani, Demšar and Zaffalon (2017, JMLR 18(77), Section 4) compare two systems ``a`` and
``b`` from their paired differences :math:`z_k = x_{a,k} - x_{b,k}` on ``n`` blocks (tasks, or
the instances of one task), higher = better. The unknown distribution of the differences gets a
Dirichlet-process posterior whose base measure is a pseudo-observation :math:`z_0 = 0` of
strength ``s`` (``prior``): a posterior draw is the discrete distribution with weights

.. math::  (w_0, w_1, \dots, w_n) \sim \mathrm{Dirichlet}(s, 1, \dots, 1)

on :math:`(z_0, z_1, \dots, z_n)`. For each draw, the probabilities that the average of two
independent differences (a Walsh average, the quantity behind Wilcoxon's statistic) lies right of,
inside and left of the ROPE :math:`[-r, r]` are

.. math::
   \theta_a = \sum_{i,j} w_i w_j\, [z_i + z_j > 2r], \quad
   \theta_b = \sum_{i,j} w_i w_j\, [z_i + z_j < -2r], \quad
   \theta_\text{rope} = 1 - \theta_a - \theta_b,

``i`` and ``j`` over ``0 .. n`` including ``i = j`` (as the paper and baycomp). The reported
probabilities are the shares of the posterior draws in which :math:`\theta_a`,
:math:`\theta_\text{rope}` or :math:`\theta_b` is the largest (baycomp's ``probs()``), each with its
Monte Carlo standard error :math:`\sqrt{p(1-p)/S}`.

**Computation.** With the ``n + 1`` values sorted, ``{j : z_i + z_j > 2r}`` is a suffix of the
sorted order for every ``i``, so :math:`\theta_a = 1 - \sum_i w_i\, C_{k_i}` with ``C`` the
cumulative sums of the sorted weights and :math:`k_i` found once by ``searchsorted``: ``O(n)`` per
draw instead of the ``O(n²)`` of the matrix form :math:`w^\top M w` (equal sums; the tests check
it against that form and against ``baycomp``), in blocks of draws that bound the memory. A sum
within ``1e-9`` (relative to the largest ``|z|`` and ``2r``) of ``±2r`` counts as on the boundary,
which belongs to the ROPE (the paper's closed interval): ``0.30 − 0.29`` against ``rope=0.01`` is
not decided by rounding. (baycomp gives a sum exactly on the boundary half to the ROPE and half
outside; the two agree whenever no sum is on the boundary.)

The three-region answer (the shares, the decision, the claim) is
:mod:`rankstats.significance.three_regions` and the figure
:mod:`rankstats.significance.simplex_plot`, both shared with the hierarchical test.

References
----------
Benavoli, A., Corani, G., Demšar, J. and Zaffalon, M. (2017). Time for a change: a tutorial for
comparing multiple classifiers through Bayesian analysis. *Journal of Machine Learning Research*
18(77), 1–36.

Benavoli, A., Corani, G., Mangili, F., Zaffalon, M. and Ruggeri, F. (2014). A Bayesian Wilcoxon
signed-rank test based on the Dirichlet process. *ICML 2014*, PMLR 32(2), 1026–1034.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from rankstats._util.advice import AdviceScoresError, escape
from rankstats._util.arguments import count, probability, random_seed
from rankstats._util.renamed import renamed_parameters
from rankstats._util.text import shorten, terminal
from rankstats.core.rankings import check_level, default_level
from rankstats.core.scores import Scores
from rankstats.core.task_choice import only_task
from rankstats.errors import InvalidScoresError, preview
from rankstats.significance.missing_words import COMPLETE, check_missing
from rankstats.significance.simplex_plot import simplex_figure
from rankstats.significance.three_regions import (
    OUTCOMES,
    ThreeRegions,
    check_rope,
    check_threshold,
    region_shares,
)

if TYPE_CHECKING:  # matplotlib loads with the first figure, not with the test
    from matplotlib.figure import Figure

#: baycomp's default strength of the pseudo-observation z0 = 0 (``SignedRankTest.sample``).
DEFAULT_PRIOR = 0.5
#: The treatments of a block missing a score of ``a`` or ``b`` (the one vocabulary of
#: :mod:`rankstats.significance.missing_words`; scores are never imputed).
MISSING = COMPLETE
_NOT_IMPUTED = "the Bayesian signed-rank test (it reads the scores, which are never imputed)"
_CELLS = 1 << 21  # weights per block of draws (draws × (n + 1)); ~4 arrays of 16 MB
_BOUNDARY = 1e-9  # relative tolerance of "on the ROPE's boundary"


@renamed_parameters(samples="draws")
@dataclass(frozen=True, eq=False, repr=False)
class BayesSignedRank(ThreeRegions):
    r"""Result of :func:`bayes_signed_rank`.

    Attributes
    ----------
    a, b : str
        The two systems; differences are ``a − b`` (higher = better, every task oriented).
    rope : float
        Half-width ``r`` of the region of practical equivalence ``[−r, r]``.
    prior : float
        Strength ``s`` of the pseudo-observation :math:`z_0 = 0`.
    differences : pandas.Series
        The ``n`` differences used, indexed by block (``task``, or ``task, instance``).
    dropped : pandas.DataFrame
        The blocks left out with ``missing="complete-case"``: block keys and ``missing``
        (``"a"``, ``"b"``, ``"both"``, or ``"a or b"`` for a task or instance that Scores set
        aside because fewer than two systems were evaluated on it); empty otherwise.
    draws : numpy.ndarray
        ``(draws, 3)`` posterior draws of :math:`(\theta_a, \theta_\text{rope}, \theta_b)`.
    probabilities : dict
        ``{"a": P(a better), "rope": P(rope), "b": P(b better)}``: the shares of draws in which
        each θ is the largest (as baycomp reports them).
    threshold : float
        Posterior probability needed for a claim (:attr:`decision`, :attr:`claim`).
    parameters : dict
        Every setting: by, task(s), draws, seed, threshold, missing.
    """

    a: str
    b: str
    rope: float
    prior: float
    differences: pd.Series
    dropped: pd.DataFrame
    draws: np.ndarray
    probabilities: dict
    threshold: float
    parameters: dict = field(default_factory=dict)

    @property
    def n(self) -> int:
        """Number of blocks (paired differences) used."""
        return len(self.differences)

    @renamed_parameters(level="ci_prob")
    def table(self, ci_prob: float = 0.95) -> pd.DataFrame:
        """One row per outcome: ``outcome`` (``a``, ``rope``, ``b``), ``system`` (the name of ``a``
        or ``b``; None for the ROPE), ``region`` (of the difference ``a − b``),
        ``probability`` (share of draws where its θ is the largest) and its Monte Carlo
        ``mc_se``, the posterior ``theta_mean`` and the central ``ci_prob`` interval of θ
        (``theta_low``, ``theta_high``)."""
        probability("ci_prob", ci_prob)
        q = [(1 - ci_prob) / 2, (1 + ci_prob) / 2]
        low, high = np.quantile(self.draws, q, axis=0)
        r = f"{self.rope:g}"
        probs = np.array([self.probabilities[k] for k in OUTCOMES])
        return pd.DataFrame(
            {
                "outcome": list(OUTCOMES),
                "system": [self.a, None, self.b],
                "region": [f"a − b > {r}", f"|a − b| ≤ {r}", f"a − b < −{r}"],
                "probability": probs,
                "mc_se": np.sqrt(probs * (1 - probs) / len(self.draws)),
                "theta_mean": self.draws.mean(axis=0),
                "theta_low": low,
                "theta_high": high,
            }
        )

    def plot(self) -> Figure:
        """The posterior draws of :math:`(\\theta_a, \\theta_\\text{rope}, \\theta_b)` in the
        simplex (Benavoli et al. 2017, Fig. 6; baycomp's ``plot_simplex``): bottom left ``a``
        better, bottom right ``b`` better, top the ROPE; the lines from the centre split the
        triangle into the regions where each θ is the largest, whose posterior probabilities
        label the vertices."""
        return simplex_figure(self)

    def __repr__(self) -> str:
        p = self.probabilities
        a, b = terminal(shorten(self.a, 40)), terminal(shorten(self.b, 40))
        where = self.parameters.get("by", "")
        dropped = f", {len(self.dropped)} dropped (complete case)" if len(self.dropped) else ""
        return "\n".join(
            [
                f"BayesSignedRank({a} vs {b}: {self.n} {where} blocks{dropped}, rope ±"
                f"{self.rope:g}, prior s = {self.prior:g}, {len(self.draws)} draws)",
                f"  P({a} better) = {p['a']:.4f}   P(rope) = {p['rope']:.4f}   "
                f"P({b} better) = {p['b']:.4f}",
                f"  {self.claim}",
            ]
        )


# --------------------------------------------------------------------------------- the data
def _from_scores(
    scores: Scores, a: str, b: str, by: str | None, task: str | Sequence[str] | None
) -> tuple[pd.DataFrame, str, object]:
    """``(block keys + score_a, score_b, level, task)`` of two systems of a Scores (oriented:
    lower-is-better tasks were negated by Scores)."""
    for name in (a, b):
        if name not in scores.systems:
            raise KeyError(f"unknown system {name!r}; systems are: {preview(scores.systems)}")
    if a == b:
        raise ValueError(f"compare two different systems, not {a!r} with itself")
    by = default_level(scores, by)
    tasks = [task] if isinstance(task, str) else list(task) if task is not None else None
    for t in tasks or ():
        if t not in scores.tasks:
            raise InvalidScoresError(f"unknown task {t!r}; tasks are: {preview(scores.tasks)}")
    if by == "instance":
        if not scores.has_instances:
            raise InvalidScoresError(
                "by='instance' needs instance-level scores; this table has one score per "
                "system and task (use by='task')"
            )
        if tasks is None:
            tasks = [
                only_task(
                    scores.tasks,
                    "choose the task (metric) with task=...: the ROPE is in the units of one "
                    "metric, and this table has {n}: {tasks}",
                )
            ]
        data = scores.data[scores.data["task"].isin(tasks)]
        wide = data.pivot_table(
            index=["task", "instance"], columns="system", values="score", observed=True
        )
        wide = wide.reindex(columns=[a, b])
        shown = tasks[0] if len(tasks) == 1 else tuple(tasks)
        skipped = scores.skipped_instances
        aside = skipped[skipped["task"].isin(tasks)][["task", "instance"]]
    else:
        wide = scores.to_wide().T.reindex(columns=[a, b])
        if tasks is not None:
            wide = wide.loc[tasks]
        wide.index.name = "task"
        shown = None if tasks is None else tasks[0] if len(tasks) == 1 else tuple(tasks)
        aside = pd.DataFrame({"task": list(scores.skipped_tasks) if tasks is None else []})
    frame = wide.set_axis(["score_a", "score_b"], axis=1).reset_index()
    frame["task"] = frame["task"].astype(object)
    if len(aside):
        # Blocks Scores set aside (fewer than two systems evaluated): a or b lacks a score there
        # too, so they are missing blocks, not blocks that never existed.
        aside = aside.astype({"task": object}).assign(score_a=np.nan, score_b=np.nan, aside=True)
        frame = pd.concat([frame.assign(aside=False), aside], ignore_index=True)
    return frame, by, shown


def _from_arrays(x: object, y: object) -> pd.DataFrame:
    xa = np.asarray(x, dtype=np.float64)
    xb = np.asarray(y, dtype=np.float64)
    if xa.ndim != 1 or xa.shape != xb.shape:
        raise ValueError(
            f"paired scores must be two 1-D arrays of the same length, got shapes {xa.shape} "
            f"and {xb.shape}"
        )
    index = x.index if isinstance(x, pd.Series) else pd.RangeIndex(len(xa), name="block")
    frame = pd.DataFrame({"score_a": xa, "score_b": xb}, index=index)
    if frame.index.nlevels == 1 and frame.index.name in (None, "score_a", "score_b"):
        frame.index.name = "block"
    return frame.reset_index()


def _differences(frame: pd.DataFrame, missing: str) -> tuple[pd.Series, pd.DataFrame, list[str]]:
    aside = frame.pop("aside").to_numpy(bool) if "aside" in frame else np.zeros(len(frame), bool)
    keys = [c for c in frame.columns if c not in ("score_a", "score_b")]
    xa, xb = frame["score_a"].to_numpy(), frame["score_b"].to_numpy()
    for values, side in ((xa, "a"), (xb, "b")):
        if np.isinf(values).any():
            raise InvalidScoresError(f"infinite score of {side} (use NaN for 'not evaluated')")
    lost_a, lost_b = np.isnan(xa), np.isnan(xb)
    lost = lost_a | lost_b
    dropped = frame.loc[lost, keys].copy()
    label = np.where(lost_a & lost_b, "both", np.where(lost_a, "a", "b")).astype(object)
    label[aside] = "a or b"  # set aside by Scores: which one was evaluated is not kept
    dropped["missing"] = label[lost]
    if lost.any() and missing == "error":
        first = dropped.iloc[0]
        where = ", ".join(
            f"{k}={first[k].item() if isinstance(first[k], np.generic) else first[k]!r}"
            for k in keys
        )
        raise AdviceScoresError(
            f"{int(lost.sum())} block(s) lack a score of one of the two systems, the first "
            f"{escape(where)} (missing: {first['missing']}); pass {{missing}} to drop them "
            "(recorded in .dropped)",
            missing="complete-case",
        )
    kept = frame.loc[~lost]
    index = pd.MultiIndex.from_frame(kept[keys]) if len(keys) > 1 else pd.Index(kept[keys[0]])
    diff = pd.Series(xa[~lost] - xb[~lost], index=index, name="difference")
    return diff, dropped.reset_index(drop=True), keys


# ------------------------------------------------------------------------------ the posterior
def _boundaries(z: np.ndarray, rope: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sort order of ``(0, z_1, .., z_n)`` and, per sorted value ``v_i``, the first sorted
    position right of the ROPE (``v_i + v_j > 2r``) and the end of the positions left of it
    (``v_i + v_j < −2r``), with the boundary tolerance."""
    order, right, left = _row_boundaries(np.asarray(z, dtype=np.float64)[None, :], rope)
    return order[0], right[0], left[0]


def _row_boundaries(z: np.ndarray, rope: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_boundaries` of every row of ``z`` (``(B, n)``) at once: ``(B, n + 1)`` each.

    One ``searchsorted`` over all rows: row ``b`` is shifted by ``b · span`` (``span`` larger
    than any row's range plus ``4r``), so that the rows stay apart in one sorted array."""
    rows, n = z.shape
    values = np.concatenate([np.zeros((rows, 1)), z], axis=1)
    order = np.argsort(values, axis=1, kind="stable")
    values = np.take_along_axis(values, order, axis=1)
    scale = np.maximum(np.abs(values).max(axis=1), 2 * rope)
    tol = _BOUNDARY * np.maximum(scale, np.finfo(float).tiny)
    span = 4.0 * (float(scale.max()) + 2 * rope + 1.0)
    offset = (np.arange(rows) * span)[:, None]
    flat = (values + offset).ravel()
    right = np.searchsorted(flat, (2 * rope + tol[:, None] - values + offset).ravel(), "right")
    left = np.searchsorted(flat, (-2 * rope - tol[:, None] - values + offset).ravel(), "left")
    base = (np.arange(rows) * (n + 1))[:, None]
    return order, right.reshape(rows, n + 1) - base, left.reshape(rows, n + 1) - base


def thetas(z: np.ndarray, weights: np.ndarray, rope: float) -> np.ndarray:
    r""":math:`(\theta_a, \theta_\text{rope}, \theta_b)` of each row of ``weights``.

    Parameters
    ----------
    z : numpy.ndarray
        The ``n`` differences ``a − b``.
    weights : numpy.ndarray
        ``(draws, n + 1)`` weights of :math:`(z_0 = 0, z_1, \dots, z_n)`, rows summing to 1.
    rope : float
        Half-width ``r`` of the ROPE.

    Returns
    -------
    numpy.ndarray
        ``(draws, 3)``: :math:`\sum_{i,j} w_i w_j [z_i + z_j > 2r]`, the rest, and
        :math:`\sum_{i,j} w_i w_j [z_i + z_j < -2r]`, in ``O(draws × n)``.
    """
    order, right, left = _boundaries(z, rope)
    w = np.asarray(weights, dtype=np.float64)[:, order]
    return _thetas(w[None], right[None], left[None])[0]


def _thetas(w: np.ndarray, right: np.ndarray, left: np.ndarray) -> np.ndarray:
    # Pair (i, j) is right of the ROPE when j ≥ right[i] in sorted order, left when j < left[i]:
    # θ_a = Σ_i w_i (1 − C[right_i]), θ_b = Σ_i w_i C[left_i], C the cumulative sums. Rows of
    # weights (B, draws, m) with their own boundaries (B, m); the cumulative sums are laid out
    # (B, m + 1, draws) so that gathering C[right_i] for every draw copies whole rows.
    rows, k, m = w.shape
    wt = np.ascontiguousarray(w.transpose(0, 2, 1))
    cum = np.zeros((rows, m + 1, k))
    np.cumsum(wt, axis=1, out=cum[:, 1:])
    total = cum[:, -1]
    flat = cum.reshape(rows * (m + 1), k)
    base = (np.arange(rows) * (m + 1))[:, None]
    at_right = flat[(base + right).ravel()].reshape(rows, m, k)
    at_left = flat[(base + left).ravel()].reshape(rows, m, k)
    out = np.empty((rows, k, 3))
    out[..., 0] = total * total - np.einsum("bjk,bjk->bk", wt, at_right)
    out[..., 2] = np.einsum("bjk,bjk->bk", wt, at_left)
    out[..., 1] = total * total - out[..., 0] - out[..., 2]
    return np.clip(out, 0.0, 1.0, out=out)


def posterior_samples(
    z: np.ndarray, rope: float, prior: float = DEFAULT_PRIOR, samples: int = 50_000, seed=0
) -> np.ndarray:
    r"""``(samples, 3)`` posterior draws of :math:`(\theta_a, \theta_\text{rope}, \theta_b)` for
    the differences ``z`` (see :mod:`rankstats.significance.bayesian_signed_rank`).

    The weights of :math:`(z_0 = 0, z_1, \dots, z_n)` are Dirichlet(s, 1, .., 1), drawn as
    normalised Gamma variates from ``numpy.random.default_rng(seed)`` in blocks of draws that
    bound the memory; each block costs ``O(draws × n)`` (:func:`thetas`).
    """
    z = np.asarray(z, dtype=np.float64)
    rng = np.random.default_rng(seed)
    return posterior_sample_rows(z[None, :], rope, prior, samples, rng)[0]


def posterior_sample_rows(
    z: np.ndarray,
    rope: float,
    prior: float,
    samples: int,
    rng: np.random.Generator,
) -> np.ndarray:
    r"""Posterior draws ``(B, samples, 3)`` for each row of differences ``z`` (``(B, n)``; NaN =
    a block the pair does not share, given weight 0 — complete-case, as ``missing=
    "complete-case"``): the computation of :func:`posterior_samples`, for many comparisons at
    once (the power simulations, :mod:`rankstats.planning`). One row draws exactly what
    :func:`posterior_samples` draws from the same generator."""
    z = np.asarray(z, dtype=np.float64)
    rows, n = z.shape
    present = ~np.isnan(z)
    order, right, left = _row_boundaries(np.where(present, z, 0.0), rope)
    alpha = np.concatenate([np.full((rows, 1), float(prior)), present.astype(np.float64)], axis=1)
    alpha = np.take_along_axis(alpha, order, axis=1)  # drawn directly in sorted order
    m = n + 1
    out = np.empty((rows, samples, 3))
    step = max(1, _CELLS // (m * rows))
    for lo in range(0, samples, step):
        k = min(step, samples - lo)
        w = rng.standard_gamma(alpha[:, None, :], size=(rows, k, m))
        w /= w.sum(axis=2, keepdims=True)
        out[:, lo : lo + k] = _thetas(w, right, left)
    return out


def region_share_rows(samples: np.ndarray) -> np.ndarray:
    """``(B, 3)``: for each row of posterior draws ``(B, S, 3)``, the shares of the draws in which
    ``a``, the ROPE or ``b`` is the largest (:func:`~rankstats.significance.three_regions.
    region_shares` of every row; a tie to the first)."""
    winners = np.argmax(samples, axis=2)
    return np.stack([(winners == c).mean(axis=1) for c in range(3)], axis=1)


@renamed_parameters(level="by", samples="draws")
def bayes_signed_rank(
    scores: Scores | pd.DataFrame | pd.Series | np.ndarray | Sequence[float],
    a: object = None,
    b: object = None,
    rope: float = 0.01,
    *,
    by: str | None = None,
    task: str | Sequence[str] | None = None,
    prior: float = DEFAULT_PRIOR,
    draws: int = 50_000,
    seed: int | None = 0,
    missing: str = "error",
    threshold: float = 0.95,
    names: tuple[str, str] | None = None,
) -> BayesSignedRank:
    r"""Bayesian signed-rank test of ``a`` against ``b`` with a ROPE (Benavoli et al. 2017).

    Parameters
    ----------
    scores : Scores, DataFrame, array or Series
        - :class:`~rankstats.Scores` with ``a`` and ``b`` system names: one block per task
          (``by="task"``, task-level scores: the mean over instances for an instance table)
          or per instance of one task (``by="instance"``, the default for an instance table;
          choose the task with ``task=``). Lower-is-better tasks are already negated by Scores.
        - a DataFrame with one row per block and one column per system (as :func:`rankstats.
          paired`), ``a`` and ``b`` column names; higher = better.
        - two arrays of paired scores, ``bayes_signed_rank(x_a, x_b)``; higher = better.
        - one array or Series of differences ``a − b`` (a Series' index names the blocks).
    a, b : str or array
        The systems (or, for paired arrays, ``b`` is left out: ``bayes_signed_rank(x_a, x_b)``).
    rope : float
        Half-width ``r ≥ 0`` of the region of practical equivalence, in score units: differences
        within ``[−r, r]`` are practically equivalent. With ``r = 0`` the ROPE holds only exact
        ties (the test without a ROPE).
    by : {"task", "instance"}, optional
        Blocks of a Scores (default: :func:`rankstats.core.rankings.default_level`).
    task : str or list of str, optional
        The task (metric) at instance level (required when the table has several), or the tasks
        kept at task level (default: all).
    prior : float
        Strength ``s > 0`` of the pseudo-observation :math:`z_0 = 0` (baycomp's default, 0.5;
        Benavoli et al. 2017 use 0.5 and 1).
    draws : int
        Posterior draws (Monte Carlo error of a probability ≤ ``0.5 / √draws``).
    seed : int
        Seed of ``numpy.random.default_rng``.
    missing : {"error", "complete-case"}
        A block where ``a`` or ``b`` has no score is refused (default; the message names the
        first), or dropped and recorded in :attr:`BayesSignedRank.dropped` (the one vocabulary
        of :mod:`rankstats.significance.missing_words`; scores are never imputed, so
        ``"imputed"`` is refused).
    threshold : float
        Posterior probability needed to claim an outcome.
    names : (str, str), optional
        Names of ``a`` and ``b`` for arrays and differences (default ``("a", "b")``).

    Returns
    -------
    BayesSignedRank
        ``.probabilities`` (``a``, ``rope``, ``b``), ``.draws``, ``.claim``, ``.table()``,
        ``.plot()``.

    Examples
    --------
    >>> import numpy as np
    >>> from rankstats.significance.bayesian_signed_rank import bayes_signed_rank
    >>> diffs = np.linspace(0.02, 0.05, 20)  # a beats b by more than the ROPE everywhere
    >>> res = bayes_signed_rank(diffs, rope=0.01, draws=2000)
    >>> res.decision, round(res.p_a, 2)
    ('a', 1.0)
    """
    check_level(by)
    count("draws", draws, 1)
    random_seed("seed", seed)
    missing = check_missing(missing, MISSING, what=_NOT_IMPUTED)
    check_rope(rope)
    if not (math.isfinite(prior) and prior > 0):
        raise ValueError(f"prior (the pseudo-observation's strength) must be > 0, got {prior!r}")
    check_threshold(threshold)
    shown_task: object = None
    if isinstance(scores, Scores):
        if not (isinstance(a, str) and isinstance(b, str)):
            raise TypeError("with Scores, name the two systems: bayes_signed_rank(scores, a, b)")
        frame, by, shown_task = _from_scores(scores, a, b, by, task)
        name_a, name_b = a, b
    else:
        if by is not None or task is not None:
            raise ValueError("by= and task= choose the blocks of a Scores table")
        if isinstance(scores, pd.DataFrame):
            for name in (a, b):
                if name not in scores.columns:
                    raise KeyError(f"no column {name!r}; columns are {preview(scores.columns)}")
            cols = scores[[a, b]].apply(pd.to_numeric, errors="coerce")
            if (cols.isna() & scores[[a, b]].notna()).to_numpy().any():
                raise InvalidScoresError(f"non-numeric scores in column {a!r} or {b!r}")
            frame = _from_arrays(cols.iloc[:, 0], cols.iloc[:, 1])
            name_a, name_b = str(a), str(b)
        elif a is not None and not isinstance(a, str):
            frame = _from_arrays(scores, a)
            name_a, name_b = names or ("a", "b")
        else:
            diff = scores if isinstance(scores, pd.Series) else np.asarray(scores, np.float64)
            frame = _from_arrays(diff, np.zeros(len(diff)))
            name_a, name_b = names or (a or "a", b or "b")
        by = "paired"
    diff, dropped, _ = _differences(frame, missing)
    if len(diff) == 0:
        raise InvalidScoresError(f"no block has scores of both {name_a!r} and {name_b!r}")
    sample = posterior_samples(diff.to_numpy(), float(rope), float(prior), int(draws), seed)
    return BayesSignedRank(
        a=str(name_a),
        b=str(name_b),
        rope=float(rope),
        prior=float(prior),
        differences=diff,
        dropped=dropped,
        draws=sample,
        probabilities=region_shares(sample),
        threshold=float(threshold),
        parameters={
            "by": by,
            "task": shown_task,
            "draws": int(draws),
            "seed": seed,
            "missing": missing,
            "threshold": float(threshold),
            "boundary_tolerance": _BOUNDARY,
        },
    )
