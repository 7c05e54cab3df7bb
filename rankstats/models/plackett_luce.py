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

from rankstats._pymc import compat as _compat
from rankstats._pymc.shared import shared_model
from rankstats.core.rankings import Rankings
from rankstats.core.scores import Scores
from rankstats.models import _mle
from rankstats.models._base import RankModel
from rankstats.models._data import (
    KINDS,
    SETS_PER_RANKING_ENTRY,
    PLData,
    as_rankings,
    choice_sets,
    pl_data,
)
from rankstats.models._fit import logistic_pairs, register_model
from rankstats.models.worth_prior import Worths, log_worth

register_model("pl", logistic_pairs, "log_worth", higher_is_better=True)


class PlackettLuce(RankModel):
    """Plackett–Luce model of partial rankings, fitted by MLE, MAP or NUTS.

    Parameters
    ----------
    prior_scale : float
        σ of the ``ZeroSumNormal`` prior on the log-worths (``map`` and ``nuts``).
    kind : {"subset", "top_k"}
        Whether a ranking orders only the systems it evaluated (``subset``) or is the top of a
        ranking of all systems (``top_k``: ranked systems beat every unranked one).
    covariates : DataFrame, optional
        System covariates (one row per system, indexed by its name; numeric columns): the
        log-worths become :math:`x_i^\\top\\beta` (PlackettLuce's ``pladmm``), systems absent
        or with a missing value keep a log-worth of their own
        (:mod:`rankstats.models.system_covariates`); the coefficients ``beta: <name>`` in
        ``fit.parameters``.  ``mle`` or ``nuts``.
    random_effect : bool
        Add a system random effect :math:`u_i \\sim N(0, \\sigma^2)` to the log-worths:
        ``sigma`` in ``fit.parameters``; by a Laplace approximation (``mle``) or in the
        posterior (``nuts``, :mod:`rankstats.models.worth_prior`).

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

    def __init__(
        self,
        prior_scale: float = 1.0,
        kind: str = "subset",
        covariates: Any = None,
        random_effect: bool = False,
    ) -> None:
        self._set_covariates(covariates, random_effect)
        if not prior_scale > 0:
            raise ValueError(f"prior_scale must be positive, got {prior_scale}")
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
        self.prior_scale = float(prior_scale)
        self.kind = kind

    def __repr__(self) -> str:
        return (
            f"PlackettLuce(prior_scale={self.prior_scale:g}, kind={self.kind!r}"
            f"{self._covariate_repr()})"
        )

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

    def _order_information(self, data: Any, prepared: PLData) -> tuple[Any, float, np.ndarray]:
        rankings = as_rankings(data) if isinstance(data, Rankings | Scores) else None
        return rankings, float(prepared.term.sum()), _mle.pl_beats(prepared)

    def log_likelihood(self, data: Any, log_worth: np.ndarray) -> float:
        """Log-likelihood of ``data`` at the given log-worths (NumPy; any additive constant)."""
        return _mle.pl_loglik(self._prepare(data), np.asarray(log_worth, dtype=np.float64))

    def _pymc_model(self, prepared: PLData) -> Any:
        structure, values = graph_data(prepared)
        worths = self._worths(prepared)
        key = ("pl", prepared.n_systems, float(self.prior_scale), structure, worths.structure)
        return shared_model(
            key,
            lambda data: build_model(prepared.systems, self.prior_scale, structure, data, worths),
            {**values, **worths.values},
            coords={"system": prepared.systems, **worths.coords},
        )


LAYOUTS = ("auto", "sets", "rankings")


def pymc_model(data: PLData, prior_scale: float, layout: str = "auto") -> Any:
    r"""The PyMC model: ZeroSumNormal log-worths and the vectorised PL log-likelihood.

    Both layouts compute the same function as :func:`rankstats.models._mle.pl_loglik` (Efron's
    ties included), shifted by :math:`m = \max_j \theta_j` inside the logarithms for stability.
    The chosen systems enter only through their counts :math:`w` (a linear term).

    ``layout="sets"``: the sufficient statistics (:func:`~rankstats.models._data.choice_sets`):
    with ``M`` the ``(U, N)`` weights of the distinct choice sets and ``c`` the number of choices
    made from each,

    .. math:: \ell(\theta) = w^\top \theta - \sum_u c_u \Big[\log \sum_j M_{uj}
              e^{\theta_j - m} + m\Big],

    one matrix–vector product (``M`` is stored transposed, ``(N, U)`` C-contiguous, so that both
    the product and its gradient read it contiguously).  Its cost is proportional to the number
    of *distinct* sets: the 45,000 choices of sushi are 962 sets of 10.

    ``layout="rankings"``: the padded rankings of :class:`PLData` (one row per ranking): worths
    gathered in ranking order, reverse cumulative sums give every risk set of a ranking at once,
    and the Efron denominators are gathered at the tie-group bounds of each choice.  Its cost is
    proportional to the padded size ``L × K``: best when choice sets rarely repeat (NASCAR: 1,511
    distinct sets of up to 43 of 87 drivers in 1,512 choices).

    ``"auto"`` takes ``sets`` when ``U × N ≤`` :data:`SETS_PER_RANKING_ENTRY` ``× L × K``.  The
    statistics enter as ``pm.Data`` so one compiled graph serves another data set of the same
    layout (``pm.set_data``): ``sets``: ``weights_t``, ``set_count``, ``chosen``; ``rankings``
    (same padded width ``K``): ``index`` (flattened), ``choice_start``, ``choice_end``,
    ``choice_fraction``, ``chosen``.
    """
    structure, values = graph_data(data, layout)
    return build_model(data.systems, prior_scale, structure, values)


def graph_data(data: PLData, layout: str = "auto") -> tuple[tuple, dict[str, np.ndarray]]:
    """What the graph of :func:`pymc_model` holds as constants, ``(layout, padded width)``, and
    the values of its ``pm.Data`` (layout ``"auto"`` resolved as :func:`pymc_model` says)."""
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {LAYOUTS}, not {layout!r}")
    n = data.n_systems
    chosen = np.bincount(data.index[data.term], minlength=n + 1)[:n].astype(np.float64)
    sets = None
    if layout == "auto":
        sets = choice_sets(data, max_entries=SETS_PER_RANKING_ENTRY * data.index.size)
        layout = "rankings" if sets is None else "sets"
    elif layout == "sets":
        sets = choice_sets(data)
    if layout == "sets":
        values = {
            "chosen": chosen,
            "weights_t": np.ascontiguousarray(sets.weights.T),
            "set_count": sets.count,
        }
        return ("sets", 0), values
    width = data.shape[1]
    r, p = np.nonzero(data.term)
    stride = width + 1
    values = {
        "chosen": chosen,
        "index": data.index.ravel(),
        "choice_start": r * stride + data.group_start[r, p],
        "choice_end": r * stride + data.group_end[r, p],
        "choice_fraction": data.fraction[r, p],
    }
    return ("rankings", width), values


def build_model(
    systems: Any,
    prior_scale: float,
    structure: tuple,
    values: dict[str, np.ndarray],
    worths: Worths | None = None,
) -> Any:
    """The model of :func:`pymc_model` from :func:`graph_data`'s output (``systems`` name the
    coordinates; another data set of the same structure enters with ``pm.set_data``); the
    log-worths free or from system covariates (:mod:`rankstats.models.worth_prior`)."""
    pm, pt = _compat.pymc()
    layout, width = structure
    worths = worths or Worths.free()
    with pm.Model(coords={"system": list(systems), **worths.coords}) as model:
        chosen = pm.Data("chosen", values["chosen"])
        theta = log_worth(prior_scale, worths)
        shift = pt.max(theta)
        worth = pt.exp(theta - shift)
        if layout == "sets":
            weights_t = pm.Data("weights_t", values["weights_t"])
            count = pm.Data("set_count", values["set_count"])
            log_total = pt.dot(count, pt.log(pt.dot(worth, weights_t)))
            n_choices = pt.sum(count)
        else:
            index = pm.Data("index", values["index"])
            start = pm.Data("choice_start", values["choice_start"])
            end = pm.Data("choice_end", values["choice_end"])
            fraction = pm.Data("choice_fraction", values["choice_fraction"])
            a = pt.concatenate([worth, pt.zeros(1)])[index].reshape((-1, width))
            tail = pt.cumsum(a[:, ::-1], axis=1)[:, ::-1]
            tail = pt.concatenate([tail, pt.zeros((a.shape[0], 1))], axis=1).ravel()
            x = (1.0 - fraction) * tail[start] + fraction * tail[end]
            log_total = pt.sum(pt.log(x))
            n_choices = fraction.shape[0]
        loglik = pt.dot(chosen, theta) - log_total - n_choices * shift
        pm.Potential("loglik", loglik)
    return model
