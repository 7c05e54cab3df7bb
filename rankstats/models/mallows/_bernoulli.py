r"""The Bernoulli error model of a Mallows fit to pairwise preferences (Crispino, Arjas, Vitelli,
Barrett & Frigessi 2019, *AoAS* 13(1); BayesMallows' ``error_model = "bernoulli"``): each stated
preference may be a mistake.

Assessor ``j`` has a latent complete ranking :math:`\tilde R_j`; each preference
:math:`a \succ b` they state agrees with it (:math:`\tilde R_{ja} < \tilde R_{jb}`) with
probability :math:`1 - \theta` and contradicts it with probability θ, independently:

.. math::

    P(\text{stated} \mid \tilde R_j, \theta) = \theta^{V_j} (1 - \theta)^{S_j - V_j},
    \qquad \theta \sim \text{Beta}(\kappa_1, \kappa_2) \text{ truncated to } [0, \tfrac12],

with :math:`S_j` the assessor's stated preferences and :math:`V_j` those that
:math:`\tilde R_j` contradicts (θ < ½: a stated preference is more often right than wrong;
BayesMallows' default κ₁ = κ₂ = 1). The stated preferences are read as they are — not closed
under transitivity, cycles allowed (``AssessorPreferences.from_table(..., cycles="keep")``).

One update (:meth:`BernoulliAugmentation.update`) proposes, for every assessor at once, to swap
the ranks of two items chosen uniformly (symmetric), accepted with probability
:math:`\min\{1, e^{-(\alpha/n)\,\Delta d}\,(\theta / (1-\theta))^{\Delta V}\}`; adjacent swaps
connect every ranking. θ is then drawn from its full conditional
(:meth:`BernoulliAugmentation.update_error`), Beta(κ₁ + V, κ₂ + S − V) truncated to [0, ½]
(V, S summed over assessors), by inverting its distribution function.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from rankstats.core.permutations.distances import row_distances

#: BayesMallows' default Beta(κ₁, κ₂) prior of the error probability θ.
KAPPA = (1.0, 1.0)
#: Beta draws tried before θ's truncated distribution is inverted (:meth:`update_error`).
TRIES = 20


class BernoulliAugmentation:
    """Latent complete rankings of assessors whose stated preferences may be mistaken.

    Parameters
    ----------
    stated : ndarray of bool, shape (N, n, n)
        ``stated[j, a, b]``: assessor ``j`` stated ``a ≻ b``.
    distance : str
    rng : numpy.random.Generator
    kappa : (float, float)
        The Beta prior of θ (truncated to [0, ½]).
    theta_start : float
        θ's starting value, in (0, ½).
    """

    def __init__(
        self,
        stated: np.ndarray,
        distance: str,
        rng: np.random.Generator,
        kappa: tuple[float, float] = KAPPA,
        theta_start: float = 0.1,
    ) -> None:
        if not (len(kappa) == 2 and kappa[0] > 0 and kappa[1] > 0):
            raise ValueError(f"kappa must be two numbers > 0, not {kappa!r}")
        if not 0 < theta_start < 0.5:
            raise ValueError(f"theta_start must be in (0, 0.5), not {theta_start!r}")
        self.stated = np.asarray(stated, dtype=bool)
        self.distance, self.rng, self.kappa = distance, rng, (float(kappa[0]), float(kappa[1]))
        m, n, _ = self.stated.shape
        self.total_stated = int(self.stated.sum())
        # A start: by the number of items each is stated to beat, ties at random.
        wins = self.stated.sum(axis=2) - self.stated.sum(axis=1) + rng.random((m, n)) * 0.5
        self.completions = np.argsort(np.argsort(-wins, axis=1), axis=1).astype(np.int64) + 1
        self.rows = np.arange(m)
        self.latent = np.ones((m, n), dtype=bool)
        self.active = True
        self.accepted = self.proposed = 0
        self.theta = float(theta_start)
        self.violations = int(violations(self.stated, self.completions).sum())
        self.moves = (np.empty(0, np.int64),) * 3

    def update(self, rho: np.ndarray, c: float | np.ndarray) -> int:
        """One swap proposal per assessor (in place); the change of the total distance to
        ``rho`` (one consensus ``(n,)``, or one per assessor ``(N, n)`` with ``c`` ``(N,)``)."""
        comp = self.completions
        m, n = comp.shape
        rng = self.rng
        if np.ndim(rho) == 2:
            rho = rho[self.rows]
        u = (rng.random(m) * n).astype(np.int64)
        v = (u + 1 + (rng.random(m) * (n - 1)).astype(np.int64)) % n
        index = np.arange(m)
        proposal = comp.copy()
        proposal[index, u], proposal[index, v] = comp[index, v], comp[index, u]
        before = row_distances(comp, rho, self.distance)
        after = row_distances(proposal, rho, self.distance)
        change = self._item_violations(proposal, u, v) - self._item_violations(comp, u, v)
        log_odds = np.log(self.theta) - np.log1p(-self.theta)
        accept = np.log(rng.random(m)) < -c * (after - before) + change * log_odds
        kept = index[accept]
        self.moves = (
            np.concatenate([u[kept], v[kept]]),
            np.concatenate([comp[kept, u[kept]], comp[kept, v[kept]]]),
            np.concatenate([comp[kept, v[kept]], comp[kept, u[kept]]]),
        )
        self.completions[accept] = proposal[accept]
        self.violations += int(change[accept].sum())
        self.proposed += m
        self.accepted += int(accept.sum())
        return int((after - before)[accept].sum())

    def _item_violations(self, ranks: np.ndarray, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Per row, the stated preferences involving item ``u`` or ``v`` that ``ranks``
        contradicts (the pair ``u, v`` counted once)."""
        index = np.arange(len(ranks))
        total = np.zeros(len(ranks), dtype=np.int64)
        for item in (u, v):
            rank = ranks[index, item][:, None]
            over = self.stated[index, item]  # item stated above these
            under = self.stated[index, :, item]  # these stated above item
            total += (over & (rank > ranks)).sum(axis=1)
            total += (under & (rank < ranks)).sum(axis=1)
        ru, rv = ranks[index, u], ranks[index, v]
        both = self.stated[index, u, v] & (ru > rv) | self.stated[index, v, u] & (rv > ru)
        return total - both.astype(np.int64)

    def update_error(self) -> float:
        """θ drawn from Beta(κ₁ + V, κ₂ + S − V) truncated to [0, ½]; returns it.

        By rejection — Beta draws until one falls below ½, exact and cheap while most stated
        preferences agree with the latent rankings — and after :data:`TRIES` failures by
        inverting the truncated distribution function."""
        a = self.kappa[0] + self.violations
        b = self.kappa[1] + self.total_stated - self.violations
        for _ in range(TRIES):
            theta = self.rng.beta(a, b)
            if theta < 0.5:
                break
        else:
            top = stats.beta.cdf(0.5, a, b)
            theta = float(stats.beta.ppf(self.rng.random() * top, a, b))
        # Far in the tail a draw can round to 0: keep θ inside (0, ½].
        self.theta = min(max(float(theta), 1e-300), 0.5)
        return self.theta


def violations(stated: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    """Per row, the stated preferences ``a ≻ b`` that the complete ranking contradicts
    (``rank_a > rank_b``)."""
    later = ranks[:, :, None] > ranks[:, None, :]
    return (stated & later).sum(axis=(1, 2))
