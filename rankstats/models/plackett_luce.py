r"""The Plackett–Luce model for sub-rankings and top-k rankings (Luce 1959; Plackett 1975).

Each system ``i`` has a worth :math:`\alpha_i = e^{\theta_i}`.  A ranking is built best first by
repeatedly choosing among the systems not yet placed with probability proportional to worth:

.. math:: P(i_1 \succ i_2 \succ \dots \succ i_k) = \prod_{s=1}^{k-1}
          \frac{\alpha_{i_s}}{\sum_{j \in R_s} \alpha_j}, \qquad R_s = \{i_s, \dots\}.

*Sub-rankings* (``kind="subset"``) order only the systems a ranker evaluated; by Luce's choice
axiom their probability is the same product over the evaluated systems, so unevaluated systems
carry no information (exactly — no imputation).  *Top-k rankings* (``kind="top_k"``) rank the
best ``k`` of all ``N`` systems: the risk sets then also contain every unranked system.

**Ties** follow Efron's (1977) approximation, the standard treatment of tied event times in the
Cox partial likelihood (which has exactly the Plackett–Luce form): the ``k``-th (0-based) of the
``d`` members of a tie group ``T`` contributes
:math:`\alpha_{i_k} / (\sum_{R} \alpha - \tfrac{k}{d} \sum_{T} \alpha)`.  It is exact without
ties, symmetric in the members of a tie, handles ties of any size in closed form (leaderboards
tie dozens of systems at once), and approximates the likelihood averaged over the orderings of
the tie.  A final tie group (the bottom of a sub-ranking) is certain and contributes nothing.
(Turner et al.'s PlackettLuce R package uses the Davidson–Luce tie model instead, with one
parameter per tie order; with 50-way ties that model is not identifiable.)

**Prior** (``nuts`` / ``map``): :math:`\theta \sim \text{ZeroSumNormal}(\sigma)`, i.e. centred
log-worths with marginal scale :math:`\sigma\sqrt{1 - 1/N}`; ``prior_scale = σ = 1`` says two
systems rarely differ by more than ~3 in log-worth (P(i above j) beyond 0.95).  The MLE ignores
the prior.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from rankstats.models import _compat, _mle
from rankstats.models._base import RankModel
from rankstats.models._data import KINDS, PLData, pl_data
from rankstats.models._fit import logistic_pairs, register_model
from rankstats.rankings import Rankings, default_level
from rankstats.scores import Scores

register_model("pl", logistic_pairs, "log_worth", higher_is_better=True)


def as_rankings(data: Rankings | Scores) -> Rankings:
    """Rankings of Scores: per (task, instance) when the table has instances, else per task."""
    if isinstance(data, Rankings):
        return data
    if isinstance(data, Scores):
        return Rankings.from_scores(data, by=default_level(data))
    raise TypeError(f"expected Rankings or Scores, not {type(data).__name__}")


class PlackettLuce(RankModel):
    """Plackett–Luce model of partial rankings, fitted by MLE, MAP or NUTS.

    Parameters
    ----------
    prior_scale : float
        σ of the ``ZeroSumNormal`` prior on the log-worths (``map`` and ``nuts``).
    kind : {"subset", "top_k"}
        Whether a ranking orders only the systems it evaluated (``subset``) or is the top of a
        ranking of all systems (``top_k``: ranked systems beat every unranked one).

    Notes
    -----
    ``fit(data, ...)`` accepts :class:`~rankstats.Rankings` or :class:`~rankstats.Scores`
    (ranked per (task, instance) when the table has instances, else per task).  ``P(i ranked
    above j)`` under Plackett–Luce is :math:`\\alpha_i / (\\alpha_i + \\alpha_j)` for any ranking
    containing both, which :meth:`Fit.pairwise` reports.

    References
    ----------
    Luce (1959) *Individual Choice Behavior*. Plackett (1975) *Appl. Statist.* 24, 193–202.
    Hunter (2004) *Ann. Statist.* 32, 384–406 (MM; existence condition). Maystre & Grossglauser
    (2015) *NeurIPS* (I-LSR). Efron (1977) *JASA* 72, 557–565 (ties). Turner, van Etten, Firth &
    Kosmidis (2020) *Comput. Statist.* 35, 1027–1057 (PlackettLuce R package).

    Examples
    --------
    Two systems, ``a`` first in 3 of 4 rankings: the MLE of ``θ_a − θ_b`` is ``log 3`` with
    standard error ``sqrt(1/3 + 1/1)`` (a binomial logit):

    >>> import rankstats as rs
    >>> rk = rs.Rankings.from_orderings([["a", "b"]] * 3 + [["b", "a"]])
    >>> fit = rs.models.PlackettLuce().fit(rk, method="mle")
    >>> fit.order
    ['a', 'b']
    >>> fit.relative_to("b").round(4)
       estimate      se
    a    1.0986  1.1547
    b    0.0000  0.0000
    """

    name: ClassVar[str] = "pl"

    def __init__(self, prior_scale: float = 1.0, kind: str = "subset") -> None:
        if not prior_scale > 0:
            raise ValueError(f"prior_scale must be positive, got {prior_scale}")
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
        self.prior_scale = float(prior_scale)
        self.kind = kind

    def __repr__(self) -> str:
        return f"PlackettLuce(prior_scale={self.prior_scale:g}, kind={self.kind!r})"

    def _prepare(self, data: Any) -> PLData:
        if isinstance(data, PLData):
            return data
        return pl_data(as_rankings(data), kind=self.kind)

    def _info(self, prepared: PLData) -> dict[str, Any]:
        return {
            "kind": prepared.kind,
            "n_rankings": prepared.shape[0],
            "n_choices": int(prepared.term.sum()),
            "ties": "efron",
        }

    def _objective(self, prepared: PLData, prior: bool):
        return _mle.pl_objective(prepared, self.prior_scale if prior else None)

    def _beats(self, prepared: PLData) -> np.ndarray:
        return _mle.pl_beats(prepared)

    def log_likelihood(self, data: Any, log_worth: np.ndarray) -> float:
        """Log-likelihood of ``data`` at the given log-worths (NumPy; any additive constant)."""
        return _mle.pl_loglik(self._prepare(data), np.asarray(log_worth, dtype=np.float64))

    def _pymc_model(self, prepared: PLData) -> Any:
        return pymc_model(prepared, self.prior_scale)


def pymc_model(data: PLData, prior_scale: float) -> Any:
    """The PyMC model: ZeroSumNormal log-worths and the vectorised PL log-likelihood.

    The rankings enter as ``pm.Data`` (padded index, group bounds, Efron fractions, choice mask)
    so one compiled graph serves any data set of the same padded shape (``pm.set_data``).
    """
    pm, pt = _compat.pymc()

    n = data.n_systems
    with pm.Model(coords={"system": list(data.systems)}) as model:
        index = pm.Data("index", data.index)
        start = pm.Data("group_start", data.group_start)
        end = pm.Data("group_end", data.group_end)
        fraction = pm.Data("fraction", data.fraction)
        term = pm.Data("term", data.term.astype(np.float64))
        theta = pm.ZeroSumNormal("log_worth", sigma=prior_scale, dims="system")
        padded = pt.concatenate([theta, pt.zeros(1)])
        a = pt.exp(padded)[index] * pt.lt(index, n)
        tail = pt.concatenate(
            [pt.cumsum(a[:, ::-1], axis=1)[:, ::-1], pt.zeros((a.shape[0], 1))], axis=1
        )
        rows = pt.arange(a.shape[0])[:, None]
        x = (1.0 - fraction) * tail[rows, start] + fraction * tail[rows, end]
        chosen = pt.gt(term, 0)
        loglik = pt.sum(pt.switch(chosen, padded[index] - pt.log(pt.switch(chosen, x, 1.0)), 0.0))
        pm.Potential("loglik", loglik)
    return model
