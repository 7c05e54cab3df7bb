"""The result of the EM fit of a Mallows mixture (:func:`rankstats.models.mallows_em`):
:class:`MallowsEMFit`."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

#: A start whose final ℓ is within this of the best one reached it (EM stops within 1e-4 of
#: its limit: :data:`rankstats.models.mallows.em.TOL`).
AT_BEST = 1e-2


@dataclass(frozen=True, eq=False)
class MallowsEMFit:
    r"""A maximum-likelihood mixture of Mallows models (EM; :mod:`rankstats.models.mallows.em`).

    Attributes
    ----------
    distance : str
    systems : tuple of str
    consensus : ndarray, shape (K, n)
        Each cluster's consensus as a rank vector (1 = best), clusters by decreasing weight.
    alpha : ndarray, shape (K,)
        Dispersions α (BayesMallows' scale: :math:`e^{-\alpha d / n}`); ``alpha_max`` means
        the cluster is, in effect, one ranking; 0 the uniform distribution.
    weight : ndarray, shape (K,)
        Cluster weights τ.
    responsibilities : ndarray, shape (N, K)
        Each ranking's posterior probability of each cluster at the estimate.
    rankers : pandas.Index
        The rankings' labels.
    log_likelihood : float
        ℓ at the estimate (exact: closed form or exact counts of the partition function).
    bic, icl : float
        Lower is better (module docstring of :mod:`rankstats.models.mallows.em`).
    n_parameters : int
        ``2K − 1`` (weights and dispersions; BIC adds :math:`2K \log n!` for the consensuses).
    trace : ndarray
        ℓ after every iteration of the best run (non-decreasing).
    start_log_likelihoods : ndarray
        The final ℓ of every start (how many reached the best tells how hard the surface is).
    converged : bool
    consensus_method : str
        ``"exhaustive"``, ``"assignment"`` (both exact), ``"kemeny heuristic"`` or
        ``"local search"``.
    partition_method : str
        How :math:`Z_n(\alpha)` was computed.
    alpha_max : float
        The largest dispersion allowed.
    """

    distance: str
    systems: tuple
    consensus: np.ndarray = field(repr=False)
    alpha: np.ndarray = field(repr=False)
    weight: np.ndarray = field(repr=False)
    responsibilities: np.ndarray = field(repr=False)
    rankers: pd.Index = field(repr=False)
    log_likelihood: float = 0.0
    bic: float = 0.0
    icl: float = 0.0
    n_parameters: int = 0
    trace: np.ndarray = field(default=None, repr=False)
    start_log_likelihoods: np.ndarray = field(default=None, repr=False)
    converged: bool = True
    consensus_method: str = "exhaustive"
    partition_method: str = "closed form"
    alpha_max: float = np.inf

    @property
    def n_clusters(self) -> int:
        return len(self.weight)

    @property
    def n_rankings(self) -> int:
        return len(self.responsibilities)

    @property
    def starts_at_best(self) -> int:
        """How many starts ended within :data:`AT_BEST` of the best log-likelihood."""
        return int(np.sum(self.start_log_likelihoods >= self.log_likelihood - AT_BEST))

    @property
    def iterations(self) -> int:
        return len(self.trace) - 1

    def consensus_orderings(self) -> list[list[str]]:
        """Each cluster's consensus as an ordering of the systems, best first."""
        return [[self.systems[i] for i in np.argsort(rho)] for rho in self.consensus]

    def clusters(self) -> pd.DataFrame:
        """One row per cluster: ``weight``, ``alpha``, ``rankings`` (those whose most probable
        cluster it is) and ``consensus`` (the ordering, ``a > b > …``)."""
        members = np.bincount(self.assignments()["cluster"] - 1, minlength=self.n_clusters)
        return pd.DataFrame(
            {
                "weight": self.weight,
                "alpha": self.alpha,
                "rankings": members,
                "consensus": [" > ".join(o) for o in self.consensus_orderings()],
            },
            index=pd.Index(range(1, self.n_clusters + 1), name="cluster"),
        )

    def assignments(self) -> pd.DataFrame:
        """Each ranking's probability of each cluster, its most probable cluster and that
        probability."""
        p = self.responsibilities
        table = pd.DataFrame(
            p,
            index=self.rankers,
            columns=[f"P(cluster {k + 1})" for k in range(self.n_clusters)],
        )
        table["cluster"] = np.argmax(p, axis=1) + 1
        table["probability"] = p.max(axis=1)
        return table

    def init(self) -> dict[str, np.ndarray]:
        """The estimate as a starting point of the Bayesian mixture sampler:
        ``rho`` ``(K, n)``, ``alpha``, ``weight`` ``(K,)`` and ``z`` (each ranking's most probable
        cluster, 0-based)."""
        return {
            "rho": self.consensus.copy(),
            "alpha": np.maximum(self.alpha, 1e-3),  # the sampler's α moves are log-normal
            "weight": self.weight.copy(),
            "z": np.argmax(self.responsibilities, axis=1),
        }

    def __repr__(self) -> str:
        lines = [
            f"MallowsEMFit({self.distance}, {self.n_clusters} clusters, {len(self.systems)} "
            f"systems, {self.n_rankings} rankings): log-likelihood {self.log_likelihood:.2f}, "
            f"BIC {self.bic:.2f}, ICL {self.icl:.2f}, {self.iterations} iterations"
            + ("" if self.converged else " (NOT CONVERGED)")
        ]
        for k, row in self.clusters().iterrows():
            lines.append(
                f"  cluster {k}: weight {row['weight']:.3f}, alpha {row['alpha']:.3f}, "
                f"{row['rankings']} rankings; consensus {row['consensus']}"
            )
        lines.append(
            f"  {self.starts_at_best} of {len(self.start_log_likelihoods)} starts reached the "
            f"best log-likelihood; consensus by {self.consensus_method}"
        )
        return "\n".join(lines)
