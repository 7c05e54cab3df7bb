r"""Ranking systems by ability: rank confidence sets, and the ranking beside other aggregations.

**Rank confidence sets** (Mogstad, Romano, Shaikh & Wilhelm, 2024) from the ability estimates
:math:`\hat\theta_s` and their standard errors :math:`\sigma_s`: system ``j`` is above ``k``
when :math:`(\hat\theta_j - \hat\theta_k) / \sqrt{\sigma_j^2 + \sigma_k^2} > c`, and

.. math:: r_j \in \bigl[1 + \#\{k \text{ significantly above } j\},\;
          n - \#\{k \text{ significantly below } j\}\bigr],

with ``c`` the ``1 − α`` quantile of :math:`\max |Z_j - Z_k| / \sqrt{\sigma_j^2 + \sigma_k^2}`
over the family of pairs (all pairs: simultaneous; the pairs of one system: marginal), the
:math:`Z_s \sim N(0, \sigma_s^2)` drawn independently (the parametric bootstrap of Mogstad et
al.'s R package csranks with a diagonal covariance). The abilities are treated as independent
given the item parameters: their covariance through the shared estimated items is ignored, which
is small when the items are many and the systems few (say so when it is not).
:func:`rankstats.significance.rank_sets.rank_confidence_sets` is the same construction on
expected scores with a bootstrap over blocks; abilities are not block means, hence this version.

**Comparison**: the ranks by ability beside the ranks by mean accuracy over the items each system
answered, Borda over the per-item rankings (``rs.aggregate(..., "borda")``: missing cells imputed
as the project's pairwise rule says) and Bradley–Terry fitted to the item-level wins (``i`` right
and ``j`` wrong on the same item; items both got right or both wrong carry no information and are
left out).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import rankdata

#: Bound of the number of (draw × pair) statistics held at once.
CHUNK = 20_000_000


def _critical_values(se: np.ndarray, alpha: float, simultaneous: bool, n_resamples, seed):
    """``c`` (scalar, simultaneous) or ``c_j`` per system (marginal)."""
    rng = np.random.default_rng(seed)
    n = len(se)
    scale = np.sqrt(se[:, None] ** 2 + se[None, :] ** 2)
    np.fill_diagonal(scale, np.inf)
    maxima = []
    per_chunk = max(1, CHUNK // (n * n))
    for start in range(0, n_resamples, per_chunk):
        z = rng.normal(size=(min(per_chunk, n_resamples - start), n)) * se
        t = np.abs(z[:, :, None] - z[:, None, :]) / scale
        maxima.append(t.max(axis=(1, 2)) if simultaneous else t.max(axis=2))
    return np.quantile(np.concatenate(maxima), 1 - alpha, axis=0)


def ability_rank_sets(
    fit,
    *,
    alpha: float = 0.05,
    simultaneous: bool = True,
    n_resamples: int = 2000,
    seed: int | None = 0,
) -> pd.DataFrame:
    """Systems best first: ``theta``, ``se``, ``rank`` (1 = best) and the confidence set
    ``rank_low``–``rank_high`` of each rank at level ``1 − alpha``.

    Examples
    --------
    >>> import rankstats as rs
    >>> from rankstats.irt.simulation import simulate_responses
    >>> sim = simulate_responses(5, 400, seed=0)
    >>> table = rs.irt.fit(sim.responses).ranking()
    >>> list(table.columns)
    ['system', 'theta', 'se', 'rank', 'rank_low', 'rank_high']
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), not {alpha}")
    table = fit.abilities[["system", "theta", "se"]]
    theta, se = table["theta"].to_numpy(), table["se"].to_numpy()
    if not (np.isfinite(theta).all() and np.isfinite(se).all()):
        bad = table["system"][~(np.isfinite(theta) & np.isfinite(se))].tolist()
        raise ValueError(
            f"abilities of {', '.join(map(str, bad[:5]))} are infinite or missing (ML on a "
            "system with every answer right or wrong, or none): fit with method='EAP' or 'MAP'"
        )
    c = _critical_values(se, alpha, simultaneous, n_resamples, seed)
    t = (theta[:, None] - theta[None, :]) / np.sqrt(se[:, None] ** 2 + se[None, :] ** 2 + 1e-300)
    # t[j, k] > c: j significantly above k; in the marginal set of j the pairs of j use c_j.
    above_j = t > (c if simultaneous else c[None, :])  # column j: who is above j
    below_j = t > (c if simultaneous else c[:, None])  # row j: whom j is above
    n = len(theta)
    out = table.copy()
    out["rank"] = rankdata(-theta, method="min").astype(int)
    out["rank_low"] = 1 + above_j.sum(axis=0)
    out["rank_high"] = n - below_j.sum(axis=1)
    return out.reset_index(drop=True)


def _bt_ranks(responses) -> np.ndarray:
    """Bradley–Terry log-worths from the item-level wins (core's Newton MLE; Firth's bias
    reduction when a system never loses or never wins, where the MLE does not exist)."""
    from rankstats.core.bradley_terry_likelihood import pairs_from_matrices
    from rankstats.core.bradley_terry_mle import MLEDoesNotExistError, fit_bt

    values, mask = responses.values, responses.mask
    right = np.where(mask > 0, values, 0.0)
    wrong = mask - right
    wins = right @ wrong.T
    counts = pairs_from_matrices(wins)
    try:
        params = fit_bt(counts, ties=False, systems=responses.systems).params
    except MLEDoesNotExistError:
        params = fit_bt(counts, ties=False, systems=responses.systems, bias_reduction=True).params
    return params[: len(responses.systems)]


def compare_rankings(fit) -> pd.DataFrame:
    """Ranks (1 = best, ties averaged) by ``ability``, ``mean`` accuracy, ``borda`` and
    ``bt`` for every system, best by ability first (binary models; graded: mean category and
    Borda only)."""
    from rankstats.aggregation.aggregators import aggregate
    from rankstats.core.scores import Scores

    responses = fit.responses
    long = responses.to_frame().stack().rename("score").rename_axis(["system", "instance"])
    long = long.reset_index().assign(task="responses")
    scores = Scores.from_long(long, instance="instance")
    borda = aggregate(scores, "borda").table.set_index("system")["score"]
    systems = list(responses.systems)
    mask = responses.mask
    with np.errstate(invalid="ignore"):
        mean = np.nansum(responses.values, axis=1) / mask.sum(axis=1)
    theta = pd.Series(fit.theta, index=systems)
    table = pd.DataFrame({"system": systems})
    table["ability"] = rankdata(-theta.to_numpy(), method="average")
    table["mean"] = rankdata(-np.nan_to_num(mean, nan=-np.inf), method="average")
    table["borda"] = rankdata(-borda.reindex(systems).to_numpy(), method="average")
    if fit.model != "graded":
        table["bt"] = rankdata(-_bt_ranks(responses), method="average")
    return table.sort_values("ability", kind="stable").reset_index(drop=True)
