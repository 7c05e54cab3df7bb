"""The result of a Mallows mixture fit: :class:`MallowsMixtureFit` — each cluster as a
:class:`~rankstats.models.MallowsFit`, the weights, each assessor's cluster, the population's
pairwise and top-k probabilities — and its round trip through NetCDF."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass

import numpy as np
import pandas as pd

from rankstats._pymc import compat as _compat
from rankstats._util.advice import AdviceError, escape
from rankstats._util.arguments import probability
from rankstats._util.renamed import renamed_parameters
from rankstats.core.permutations.kendall import pair_probability
from rankstats.core.permutations.pair_tables import pair_table, rank_table
from rankstats.models._fit import Fit, register_model
from rankstats.models.mallows.fit import (
    MallowsFit,
    check_top_k,
    persisted_attributes,
    table_on_posterior,
    top_k_frame,
)

#: The ArviZ group holding each assessor's posterior cluster probabilities.
ASSIGNMENT_GROUP = "cluster_assignment"


@dataclass(frozen=True, eq=False, repr=False)
class MallowsMixtureFit(Fit):
    r"""A fitted mixture of Mallows models.

    ``clusters[k]`` is cluster ``k + 1`` as a :class:`~rankstats.models.MallowsFit` (its
    consensus, dispersion, pairwise probabilities, rank posterior and heat map, top-k
    predictions); :meth:`weights` and :meth:`assignments` the cluster weights and each
    assessor's cluster; :meth:`pairwise` and :meth:`top_k` the *population* — a new assessor,
    whose cluster is unknown: :math:`P(a \succ b) = \sum_k \tau_k P_k(a \succ b)` per draw.
    ``worth`` (``order``) is the posterior mean of :math:`\sum_k \tau_k \rho_{k,i}`, the
    expected consensus position of each system in a random assessor's cluster. Clusters are
    numbered by the pivot of the relabelling (:mod:`rankstats.models.mallows._mixture`).
    """

    @property
    def n_clusters(self) -> int:
        return int(self.info["clusters"])

    @property
    def distance(self) -> str:
        return str(self.info.get("distance", "kendall"))

    @functools.cached_property
    def clusters(self) -> tuple[MallowsFit, ...]:
        """Each cluster as a :class:`MallowsFit` (its own draws of α and ρ)."""
        posterior = _compat.group(self.idata)
        alpha = posterior["alpha"].to_numpy()
        position = posterior["position"].to_numpy()
        n = len(self.systems)
        out = []
        for k in range(self.n_clusters):
            variables = {"alpha": alpha[:, :, k], "position": position[:, :, k]}
            if self.distance == "kendall":
                variables["theta"] = alpha[:, :, k] / n
            idata = _compat.from_dict(
                variables,
                coords={"system": list(self.systems)},
                dims={"position": ["system"]},
                attrs={
                    "rankstats_model": "mallows",
                    "rankstats_method": "mcmc",
                    "distance": self.distance,
                    "cluster": k + 1,
                },
            )
            flat = position[:, :, k].reshape(-1, n)
            theta = float(alpha[:, :, k].mean()) / n
            consensus = list(self.info["consensus"][k])
            _compat.set_attrs(
                idata,
                {
                    **persisted_attributes(theta, consensus, int(self.info["n_rankings"]), []),
                    "point_position": flat.mean(axis=0),
                    "param_alpha": float(alpha[:, :, k].mean()),
                    "info_distance": self.distance,
                },
            )
            out.append(
                MallowsFit(
                    model="mallows",
                    method="mcmc",
                    systems=self.systems,
                    idata=idata,
                    worth=pd.Series(flat.mean(axis=0), index=list(self.systems), name="position"),
                    parameters={"alpha": float(alpha[:, :, k].mean()), "theta": theta},
                    info={
                        "distance": self.distance,
                        "consensus": consensus,
                        "cluster": k + 1,
                        "n_rankings": self.info["n_rankings"],
                        "convergence_problems": self.info["convergence_problems"],
                    },
                )
            )
        return tuple(out)

    @renamed_parameters(prob="ci_prob")
    def weights(self, ci_prob: float = 0.95) -> pd.DataFrame:
        """Posterior mean and equal-tailed interval of every cluster's weight τ_k, and the
        number of assessors whose most probable cluster it is."""
        probability("ci_prob", ci_prob)
        w = self.draws()["weight"]
        low, high = np.quantile(w, [(1 - ci_prob) / 2, (1 + ci_prob) / 2], axis=0)
        members = np.bincount(np.argmax(self._probabilities(), axis=1), minlength=self.n_clusters)
        return pd.DataFrame(
            {"weight": w.mean(axis=0), "low": low, "high": high, "assessors": members},
            index=pd.Index(range(1, self.n_clusters + 1), name="cluster"),
        )

    def _probabilities(self) -> np.ndarray:
        return _compat.group(self.idata, ASSIGNMENT_GROUP)["probability"].to_numpy()

    def assignments(self) -> pd.DataFrame:
        """Each assessor's posterior probability of each cluster (share of the kept draws that
        put it there, after relabelling), its most probable cluster and that probability."""
        group = _compat.group(self.idata, ASSIGNMENT_GROUP)
        p = group["probability"].to_numpy()
        table = pd.DataFrame(
            p,
            index=pd.Index(group["assessor"].to_numpy().astype(str), name="assessor"),
            columns=[f"P(cluster {k + 1})" for k in range(self.n_clusters)],
        )
        table["cluster"] = np.argmax(p, axis=1) + 1
        table["probability"] = p.max(axis=1)
        return table

    def _pair_function(self):
        return self._mixture_pairs

    def _mixture_pairs(self, draws: dict[str, np.ndarray], rows: np.ndarray) -> np.ndarray:
        r""":math:`\sum_k \tau_k P_k(\text{row} \succ \text{column})` per draw."""
        position, alpha, weight = draws["position"], draws["alpha"], draws["weight"]
        n = position.shape[2]
        out = np.zeros((len(position), len(rows), n))
        for k in range(self.n_clusters):
            pos = position[:, k]
            if self.distance == "kendall":
                gap = pos[:, None, :] - pos[:, rows, None]
                p = pair_probability(
                    np.maximum(np.abs(gap), 1), (alpha[:, k] / n).reshape(-1, 1, 1)
                )
                p = np.where(gap > 0, p, np.where(gap < 0, 1 - p, 0.5))
            else:
                rank = np.rint(pos).astype(np.intp) - 1
                p = self._pair_table.at(alpha[:, k], rank[:, rows][:, :, None], rank[:, None, :])
            out += weight[:, k, None, None] * p
        return out

    def point(self) -> dict[str, np.ndarray]:
        draws = self.draws()
        return {name: value.mean(axis=0, keepdims=True) for name, value in draws.items()}

    @functools.cached_property
    def _pair_table(self):
        alpha = self.draws()["alpha"].ravel()
        return table_on_posterior(pair_table, alpha, len(self.systems), self.distance)

    @functools.cached_property
    def _rank_table(self):
        alpha = self.draws()["alpha"]
        return table_on_posterior(rank_table, alpha, len(self.systems), self.distance)

    @renamed_parameters(prob="ci_prob")
    def top_k(self, k: int, ci_prob: float = 0.95) -> pd.DataFrame:
        """Posterior predictive probability that a *new assessor* (cluster unknown) puts each
        system in the top ``k``: :math:`\\sum_k \\tau_k \\sum_{r \\le k} M_{\\alpha_k}[\\rho_{k,i},
        r]` per draw, with an equal-tailed interval; rows in :attr:`order`. For a member of
        cluster ``c``: ``fit.clusters[c - 1].top_k(k)``."""
        n = len(self.systems)
        check_top_k(k, n, ci_prob)
        draws = self.draws()
        table = self._rank_table
        per_draw = np.zeros((len(draws["alpha"]), n))
        for c in range(self.n_clusters):
            rank = np.rint(draws["position"][:, c]).astype(np.intp) - 1
            m = table.at(draws["alpha"][:, c], rank[:, :, None], np.arange(n)[None, None])
            per_draw += draws["weight"][:, c, None] * m[:, :, :k].sum(axis=2)
        return top_k_frame(self, per_draw, k, ci_prob, table)

    # A new assessor's ranking: per draw Σ_k τ_k P_k, by the one cluster's code (K = 1 there)
    _predictive_posterior = MallowsFit._predictive_posterior
    predictive_probability = MallowsFit.predictive_probability
    predictive_rankings = MallowsFit.predictive_rankings
    predictive_distribution = MallowsFit.predictive_distribution

    def _one_consensus(self, what: str, method: str):
        raise AdviceError(
            escape(
                f"a mixture has one consensus per cluster: no single {what}; use "
                f"fit.clusters[k].{method}() for cluster k + 1"
            )
        )

    def rank_distribution(self) -> pd.DataFrame:
        self._one_consensus("rank distribution", "rank_distribution")

    @renamed_parameters(prob="ci_prob")
    def rank_posterior(self, ci_prob: float = 0.95):
        self._one_consensus("rank posterior", "rank_posterior")

    def ppc(self, *args, **kwargs):
        raise AdviceError("posterior predictive checks of a mixture are not implemented")

    def __repr__(self) -> str:
        k = self.n_clusters
        lines = [
            f"MallowsMixtureFit({self.distance}, {k} clusters, {len(self.systems)} systems, "
            f"{self.info['n_rankings']} assessors)"
        ]
        weights = self.weights()
        for c in range(k):
            top = ", ".join(self.info["consensus"][c][:5])
            more = " …" if len(self.systems) > 5 else ""
            lines.append(
                f"  cluster {c + 1}: weight {weights['weight'].iloc[c]:.3f}, "
                f"alpha {self.parameters[f'alpha[{c + 1}]']:.3f}, "
                f"{int(weights['assessors'].iloc[c])} assessors; consensus {top}{more}"
            )
        if self.info.get("convergence_problems"):
            lines.append("  NOT CONVERGED: " + "; ".join(self.info["convergence_problems"]))
        return "\n".join(lines)


def _rebuild(fit: Fit) -> MallowsMixtureFit:
    """The :class:`MallowsMixtureFit` of a generic :class:`Fit` read back from NetCDF."""
    info = dict(fit.info)
    for key in ("consensus", "convergence_problems"):
        if isinstance(info.get(key), str):
            info[key] = json.loads(info[key])
    info["clusters"] = int(info["clusters"])
    return MallowsMixtureFit(
        model=fit.model,
        method=fit.method,
        systems=fit.systems,
        idata=fit.idata,
        worth=fit.worth.rename("position"),
        parameters=fit.parameters,
        info=info,
    )


def _pairs_need_the_fit(draws: dict[str, np.ndarray], rows: np.ndarray) -> np.ndarray:
    """Registered for the model's name only: a mixture's pairs need its distance's tables,
    which :meth:`MallowsMixtureFit._mixture_pairs` holds."""
    raise TypeError("the pairs of a Mallows mixture come from MallowsMixtureFit.pairwise()")


register_model(
    "mallows_mixture",
    _pairs_need_the_fit,
    variable="position",
    higher_is_better=False,
    rebuild=_rebuild,
)
