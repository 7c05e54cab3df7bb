r"""Style control: battle covariates in the Bradley–Terry model of :func:`rankstats.fit_battles`.

A battle of ``a`` (shown first) against ``b`` with covariates :math:`z` (read by
``read_battles(..., covariates=)``: e.g. the normalised differences in answer length and
formatting) has the linear predictor

.. math:: \theta_a - \theta_b + \eta + \gamma^\top z

in the Davidson model of :mod:`rankstats.battles.fitting` (ties, order effect), so that the
ratings :math:`\theta` say how good a model is at equal style, and :math:`\gamma` what a
standard deviation of each covariate is worth (Li, Angelopoulos & Chiang 2024, "Does style
matter? Disentangling style and substance in Chatbot Arena", LMSYS blog; the leaderboards'
*style control*).  The counts no longer reduce to ordered pairs: the likelihood runs over the
battles one by one (:func:`rankstats.core.bradley_terry_likelihood.bt_derivatives` with per-row
features), O(battles × covariates²) per Newton step.

The covariates are scaled by default (divided by their standard deviation over the battles
fitted), so that :math:`\gamma` is per standard deviation.  They are not centred: a covariate of
differences is 0 when the two answers do not differ in style, and :math:`\theta` is the rating
at equal style (centring would move a constant into the order effect, or, without one, change
the model).

**Bootstrap** (:func:`bootstrap_style`): each replicate reweights the battles — multinomial
counts of the battles, or of the clusters (``read_battles(cluster=)``) spread to their
battles.  Small logs (replicates × battles ≤ :data:`REFIT_CELLS`) refit every replicate by
Newton steps from the MLE, many replicates at once (:func:`bootstrap_rows`,
:func:`rankstats.core.bradley_terry_stack.fit_bt_stack`; replicates without an MLE — the "beats"
graph of the battles they drew not strongly connected, or the order effect no longer identified
— are NaN and counted, as in :mod:`rankstats.battles.bootstrap`).  Larger logs take one Newton
step from the MLE with the MLE's information (:func:`one_step_bootstrap`: the one-step, or
score, bootstrap, :math:`x^* = \hat x + I(\hat x)^{-1} \sum_c w_c s_c(\hat x)` with
:math:`s_c` the score of cluster :math:`c` at the MLE; Kline & Santos 2012, Andrews 2002),
O(clusters × nonzero scores) per replicate instead of Newton iterations over every battle: a
first-order approximation of the refit, whose intervals agree with it to the bootstrap's own
Monte Carlo error in large logs (tested).  ``info["bootstrap_method"]`` says which was used.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse

from rankstats._util.advice import escape
from rankstats._util.parallel import cpu_count
from rankstats.battles.design import identified_stack
from rankstats.battles.log import Battles
from rankstats.battles.log_files import AdviceBattlesError, InvalidBattlesError
from rankstats.core.bradley_terry_likelihood import Pairs, row_scores
from rankstats.core.bradley_terry_stack import fit_bt_stack, strongly_connected_stack
from rankstats.core.collinearity import collinear_columns

#: Battle weights held at once by the refitting bootstrap (replicates × battles).
_BOOT_CELLS = 4_000_000
#: Replicates × battles up to which the bootstrap refits every replicate (beyond: one step).
REFIT_CELLS = 2_000_000


def style_rows(
    battles: Battles, both_bad: str, ties: bool, standardize: bool, order: bool = False
) -> tuple[Pairs, np.ndarray, np.ndarray]:
    """One row per battle with its (scaled) covariates: ``(rows, mean, scale)``; ``scale`` is
    each covariate's standard deviation (1 with ``standardize=False``), ``mean`` its mean (said
    in the fit's ``info``, not subtracted).

    Ties count half a win each way without the tie parameter (``ties=False``), as in the
    fit without covariates.  A covariate that does not vary over the battles is an error: its
    effect is not identified (it is the order effect, or nothing); so are collinear covariates
    (named; decided on rescaled columns, :mod:`rankstats.core.collinearity`), among themselves
    or, with the order effect (``order``), with its constant.
    """
    rows = battles.row_pairs(both_bad)
    z = rows.features
    centre = z.mean(axis=0)
    scale = z.std(axis=0)
    flat = [name for name, s in zip(battles.covariate_names, scale, strict=True) if not s > 0]
    if flat:
        raise InvalidBattlesError(
            f"{battles.source}: covariate(s) {', '.join(map(repr, flat))} take one value over "
            "the battles fitted: their effect is not identified (leave them out)"
        )
    names = list(battles.covariate_names)
    # With the order effect, the model shown first gets a constant: it is a column too.
    design = np.column_stack([np.ones(len(z)), z]) if order else z
    dependent = collinear_columns(design, ["the order effect", *names] if order else names)
    if dependent:
        listed = ", ".join(repr(name) for name in dependent if name in names)
        if "the order effect" in dependent:
            listed += " and the order effect"
        raise AdviceBattlesError(
            escape(
                f"{battles.source}: covariates {listed} are collinear over the battles fitted "
                "(one is a linear combination of the others): their effects are not identified; "
                "leave one of them out"
            )
            + (" (or {order_effect})" if "the order effect" in dependent else ""),
            order_effect=False,
        )
    if standardize:
        z = z / scale
    else:
        scale = np.ones_like(scale)
    half = 0.0 if ties else 0.5
    return (
        Pairs(
            rows.n_systems,
            rows.item1,
            rows.item2,
            rows.wins1 + half * rows.ties,
            rows.wins2 + half * rows.ties,
            rows.ties if ties else np.zeros_like(rows.ties),
            features=np.ascontiguousarray(z),
        ),
        centre,
        scale,
    )


def bootstrap_rows(
    rows: Pairs,
    params: np.ndarray,
    n_bootstrap: int,
    ties: bool,
    order: bool,
    seed: int | None = 0,
    clusters: np.ndarray | None = None,
) -> tuple[np.ndarray, int]:
    """Bootstrap replicates of the style-controlled MLE ``params`` (see the module docstring):
    ``(replicates (B, len(params)), replicates without an MLE)``.

    ``clusters``: each battle's cluster code (the rows of ``rows``), or None to resample
    battles.  Chunks of replicates have seeds of their own (``SeedSequence(seed).spawn``).
    """
    n = rows.n_systems
    count = len(rows.item1)
    groups = clusters if clusters is not None else np.arange(count)
    _, groups = np.unique(groups, return_inverse=True)
    n_groups = int(groups.max()) + 1
    # The battles' ordered pairs, for the existence check of each replicate.
    pair_key = rows.item1.astype(np.int64) * n + rows.item2
    keys, pair_of = np.unique(pair_key, return_inverse=True)
    to_pairs = sparse.csr_matrix(
        (np.ones(count), (np.arange(count), pair_of)), shape=(count, len(keys))
    )
    first, second = (keys // n).astype(np.int64), (keys % n).astype(np.int64)
    per_chunk = max(1, _BOOT_CELLS // max(count, 1))
    n_chunks = -(-n_bootstrap // per_chunk)
    children = np.random.SeedSequence(seed).spawn(n_chunks)
    out = np.full((n_bootstrap, len(params)), np.nan)
    failed = 0
    for c in range(n_chunks):
        size = min(per_chunk, n_bootstrap - c * per_chunk)
        rng = np.random.default_rng(children[c])
        # n_groups draws with replacement per replicate: their counts, spread to the battles.
        picks = rng.integers(0, n_groups, size=(size, n_groups))
        picks += (np.arange(size) * n_groups)[:, None]
        weights = np.bincount(picks.ravel(), minlength=size * n_groups).reshape(size, n_groups)
        w = weights[:, groups].astype(np.float64)  # (size, battles)
        stack = Pairs(
            n,
            rows.item1,
            rows.item2,
            w * rows.wins1,
            w * rows.wins2,
            w * rows.ties,
            features=rows.features,
        )
        # Counts per ordered pair of each replicate: one sparse product per kind of outcome.
        w1, w2, tt = (
            np.asarray(to_pairs.T @ v.T).T for v in (stack.wins1, stack.wins2, stack.ties)
        )
        exists = strongly_connected_stack(n, Pairs(n, first, second, w1, w2, tt))
        if order:
            exists &= identified_stack(n, (w1 + w2 + tt) > 0, first, second)
        keep = np.flatnonzero(exists)
        if len(keep):
            sub = Pairs(
                n,
                rows.item1,
                rows.item2,
                stack.wins1[keep],
                stack.wins2[keep],
                stack.ties[keep],
                features=rows.features,
            )
            fit = fit_bt_stack(sub, params, ties, order, tol=1e-8)
            block = out[c * per_chunk : c * per_chunk + size]
            block[keep] = fit.params
            failed += int((~fit.converged).sum())
        failed += int((~exists).sum())
    return out, failed


def bootstrap_style(
    rows: Pairs,
    params: np.ndarray,
    information: np.ndarray,
    n_bootstrap: int,
    ties: bool,
    order: bool,
    seed: int | None = 0,
    clusters: np.ndarray | None = None,
    n_jobs: int | None = None,
) -> tuple[np.ndarray, int, str]:
    """The bootstrap of a style-controlled fit: refits for small logs, one step beyond (module
    docstring); ``(replicates, replicates without an MLE, method)``."""
    if n_bootstrap * len(rows.item1) <= REFIT_CELLS:
        boot, failed = bootstrap_rows(rows, params, n_bootstrap, ties, order, seed, clusters)
        return boot, failed, "refit"
    boot = one_step_bootstrap(
        rows, params, information, n_bootstrap, ties, order, seed, clusters, n_jobs
    )
    return boot, 0, "one-step"


def cluster_scores(
    rows: Pairs, params: np.ndarray, ties: bool, order: bool, groups: np.ndarray, n_groups: int
) -> sparse.csr_matrix:
    """The score of each cluster at ``params``, ``(clusters, len(params))``: the sum of its
    battles' gradient contributions (:func:`rankstats.core.bradley_terry_likelihood.row_scores`)."""
    n = rows.n_systems
    residual, tie, features = row_scores(rows, params, ties, order)
    columns = [rows.item1, rows.item2]
    values = [residual, -residual]
    k = n
    if ties:
        columns.append(np.full(len(residual), n))
        values.append(tie)
        k += 1
    if features is not None:
        for c in range(features.shape[1]):
            columns.append(np.full(len(residual), k + c))
            values.append(residual * features[:, c])
    cells = np.concatenate(columns).astype(np.int64)
    group = np.tile(groups, len(columns))
    matrix = sparse.coo_matrix(
        (np.concatenate(values), (group, cells)), shape=(n_groups, len(params))
    ).tocsr()
    matrix.sum_duplicates()
    return matrix


def one_step_bootstrap(
    rows: Pairs,
    params: np.ndarray,
    information: np.ndarray,
    n_bootstrap: int,
    ties: bool,
    order: bool,
    seed: int | None = 0,
    clusters: np.ndarray | None = None,
    n_jobs: int | None = None,
) -> np.ndarray:
    """One-step (score) bootstrap replicates ``(n_bootstrap, len(params))`` of the MLE
    ``params`` (centred log-worths), ``information`` its observed information (the layout of
    :func:`rankstats.core.bradley_terry_mle.fit_bt`, the last log-worth fixed).

    Replicate ``r`` draws the clusters with replacement from a counter-based generator
    (splitmix64 of the seed, the replicate's number and the draw's), so the numbers depend on
    neither the chunking nor the threads, and are those of the NumPy fallback without numba.
    """
    n = rows.n_systems
    size = len(params)
    groups = clusters if clusters is not None else np.arange(len(rows.item1))
    _, groups = np.unique(groups, return_inverse=True)
    n_groups = int(groups.max()) + 1
    scores = cluster_scores(rows, params, ties, order, groups, n_groups)
    free = np.ones(size, dtype=bool)
    free[n - 1] = False
    step = np.zeros((size, size))
    step[np.ix_(free, free)] = np.linalg.inv(information[np.ix_(free, free)])
    key = np.uint64(np.random.SeedSequence(seed).generate_state(1, dtype=np.uint64)[0])
    totals = _score_totals(scores, key, n_bootstrap, n_jobs)
    replicates = params + totals @ step.T
    replicates[:, :n] -= replicates[:, :n].mean(axis=1, keepdims=True)
    return replicates


def _score_totals(
    scores: sparse.csr_matrix, key: np.uint64, n_bootstrap: int, n_jobs: int | None
) -> np.ndarray:
    """``Σ_c w_rc S_c`` of every replicate (numba kernel when installed, else NumPy)."""
    indptr = scores.indptr.astype(np.int64)
    indices = scores.indices.astype(np.int64)
    data = scores.data.astype(np.float64)
    out = np.zeros((n_bootstrap, scores.shape[1]))
    try:
        from rankstats.battles.numba_kernels import score_sums
    except ImportError:
        score_sums = None
    chunk = max(1, -(-n_bootstrap // max(1, (n_jobs or cpu_count()))))
    starts = list(range(0, n_bootstrap, chunk))

    def run(first: int) -> None:
        block = out[first : first + chunk]
        if score_sums is not None:
            counts = np.zeros(scores.shape[0], dtype=np.int64)
            score_sums(key, first, indptr, indices, data, block, counts)
        else:
            _score_sums_numpy(key, first, scores, block)

    if len(starts) > 1:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(len(starts)) as pool:
            list(pool.map(run, starts))
    else:
        run(0)
    return out


def _score_sums_numpy(
    key: np.uint64, first: int, scores: sparse.csr_matrix, out: np.ndarray
) -> None:
    """The NumPy form of :func:`rankstats.battles.numba_kernels.score_sums` (same draws)."""
    n_clusters = scores.shape[0]
    c64 = np.uint64(n_clusters)
    draws = np.arange(n_clusters, dtype=np.uint64)
    transposed = scores.T.tocsr()
    with np.errstate(over="ignore"):
        for r in range(out.shape[0]):
            x = key + np.uint64(first + r) * c64 + draws
            x = x + np.uint64(0x9E3779B97F4A7C15)
            x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
            x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
            x = x ^ (x >> np.uint64(31))
            picked = ((x >> np.uint64(32)) * c64) >> np.uint64(32)
            counts = np.bincount(picked.astype(np.int64), minlength=n_clusters)
            out[r] = transposed @ counts
