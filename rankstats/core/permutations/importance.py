r"""The importance-sampling estimate of the Mallows normalising constant (footrule, Spearman)
beyond the exact sizes of :mod:`rankstats.core.permutations.partition`: the pseudo-likelihood
proposal of Vitelli et al. (2018, Sec. 4.1) — the items in a random order, each given one of
the ranks left with probability :math:`\propto e^{-\alpha |r - \rho_i|^p / n}` (``p`` = 2 for
Spearman, 1 otherwise) — at each α of a grid, with weights
:math:`w = e^{-\alpha d(\sigma)/n} / q(\sigma)`:

- :math:`\hat Z = \max(\bar w, 1)`: the mean of the weights (unbiased), raised to 1 where it
  falls below — the consensus alone contributes 1 to :math:`Z`, so this never moves the
  estimate away from the truth, and :math:`\log \hat Z \ge 0` as :math:`\log Z` (uniform
  weights at α = 0: :math:`\hat Z = n!` exactly);
- :math:`\log Z` estimated by :math:`\log \hat Z + \hat s^2 / 2` with
  :math:`\hat s = \mathrm{sd}(w) / (\sqrt N \hat Z)`, the delta-method standard error of
  :math:`\log \hat Z` (the second-order correction of
  :math:`E[\log \bar w] \approx \log Z - s^2/2`): the standard error stated is that of the
  value returned;
- :math:`E_\alpha[d] = \sum_k w_k d_k / \sum_k w_k` (the same weights).

Vitelli, V., Sørensen, Ø., Crispino, M., Frigessi, A. and Arjas, E. (2018). Probabilistic
preference learning with the Mallows rank model. *JMLR* 18(158), 1–49.
"""

from __future__ import annotations

import math

import numpy as np

from rankstats.core.permutations.distances import rank_distance


def importance_sampling(
    n: int, distance: str, grid: np.ndarray, draws: int, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The estimate of :math:`\\log Z` (bias-corrected), its standard error and ``E[d]`` at
    each α of ``grid`` (module docstring)."""
    rng = np.random.default_rng(seed)
    power = 2 if distance == "spearman" else 1
    identity = np.arange(1, n + 1)
    log_z = np.empty(len(grid))
    se = np.empty(len(grid))
    expected = np.empty(len(grid))
    for g, alpha in enumerate(grid):  # one proposal per α of the grid
        ranks, log_q = _pseudo_likelihood_draws(n, alpha / n, power, draws, rng)
        dist = rank_distance(ranks, identity, distance).astype(np.float64)
        log_w = -alpha / n * dist - log_q
        top = log_w.max()
        w = np.exp(log_w - top)
        mean = w.mean()
        z = max(top + math.log(mean), 0.0)  # log max(mean, 1): Z ≥ 1 (module docstring)
        se[g] = w.std(ddof=1) / (math.exp(z - top) * math.sqrt(draws))
        log_z[g] = z + 0.5 * se[g] ** 2
        expected[g] = float((w * dist).sum() / w.sum())
    return log_z, se, expected


def _pseudo_likelihood_draws(
    n: int, c: float, power: int, draws: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """``draws`` rankings from the proposal and their log-probabilities: the items in a random
    order, each given a rank left with probability ∝ ``exp(−c |r − i|^power)`` (Gumbel-max,
    all draws at once, ``n`` steps)."""
    order = rng.permuted(np.broadcast_to(np.arange(n), (draws, n)), axis=1)
    taken = np.zeros((draws, n), dtype=bool)
    ranks = np.empty((draws, n), dtype=np.int64)
    log_q = np.zeros(draws)
    positions = np.arange(n)
    rows = np.arange(draws)
    for step in range(n):
        item = order[:, step]
        logits = -c * np.abs(positions[None, :] - item[:, None]).astype(np.float64) ** power
        logits[taken] = -np.inf
        top = logits.max(axis=1, keepdims=True)
        log_norm = top[:, 0] + np.log(np.exp(logits - top).sum(axis=1))
        choice = np.argmax(logits + rng.gumbel(size=(draws, n)), axis=1)
        log_q += logits[rows, choice] - log_norm
        taken[rows, choice] = True
        ranks[rows, item] = choice + 1
    return ranks, log_q
