r"""The Bradley–Terry model of paired comparisons, with Davidson's ties (Bradley & Terry 1952;
Zermelo 1929; Davidson 1970).

.. math::

    P(i \succ j) = \frac{\pi_i}{\pi_i + \pi_j + \nu\sqrt{\pi_i \pi_j}}, \qquad
    P(i \sim j) = \frac{\nu\sqrt{\pi_i \pi_j}}{\pi_i + \pi_j + \nu\sqrt{\pi_i \pi_j}},

with worths :math:`\pi_i = e^{\theta_i}` and tie parameter :math:`\nu \ge 0` (``ν = 0``: plain
Bradley–Terry, used when the data contain no ties).

Data:

* **Rankings** are broken into all their pairs (*full rank-breaking*): a ranking of ``k`` systems
  gives ``k(k − 1)/2`` comparisons (wins or ties).  This is a composite likelihood: consistent
  for the worths when the rankings follow Plackett–Luce (Azari Soufiani, Chen, Parkes & Xia 2013),
  but the pairs of one ranking are not independent, so standard errors and credible intervals are
  too narrow by a factor that grows with ``k``.  Prefer :class:`PlackettLuce` for rankings; use BT
  for genuinely paired data.
* **Instance-level Scores**: every (task, instance) ranks the systems it scored; each pair of
  systems scored on an instance is one comparison (equal scores are ties).
* **A table of paired counts** ``item1, item2, wins1, wins2[, ties]`` (a DataFrame).

``P(i ranked above j)`` reported by :meth:`Fit.pairwise` counts a tie as half:
:math:`P(i \succ j) + \tfrac12 P(i \sim j)`, the convention of the pairwise module.

**Prior** (``nuts`` / ``map``): ``θ ~ ZeroSumNormal(prior_scale)``;
``log ν ~ Normal(0, 1.5)`` (ν = 1: equal systems tie a third of the time).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from rankstats._pymc import compat as _compat
from rankstats._pymc.shared import shared_model
from rankstats.core import bradley_terry_mle as bt_mle
from rankstats.core.bradley_terry_mle import Pairs
from rankstats.core.rankings import Rankings
from rankstats.core.scores import Scores
from rankstats.models._base import RankModel
from rankstats.models._data import KINDS, as_rankings
from rankstats.models._fit import register_model
from rankstats.models.pair_counts import comparison_counts
from rankstats.models.worth_prior import Worths, log_worth

TIE_PRIOR_SCALE = 1.5
TIES = ("auto", "davidson", "ignore")


def davidson_pairs(draws: dict[str, np.ndarray], rows: np.ndarray) -> np.ndarray:
    r""":math:`P(a \succ b) + \tfrac12 P(a \sim b)` under Davidson's model (ties counted half)."""
    theta = draws["log_worth"]
    ta = theta[:, rows, None]
    tb = theta[:, None, :]
    if "log_tie" not in draws:
        with np.errstate(invalid="ignore"):  # ∞ − ∞: an unbounded own log-worth against itself
            return 1.0 / (1.0 + np.exp(tb - ta))
    tie = draws["log_tie"].reshape(-1, 1, 1) + 0.5 * (ta + tb)
    top = np.maximum(np.maximum(ta, tb), tie)
    ea, eb, et = np.exp(ta - top), np.exp(tb - top), np.exp(tie - top)
    return (ea + 0.5 * et) / (ea + eb + et)


register_model("bt", davidson_pairs, "log_worth", higher_is_better=True)


class BradleyTerry(RankModel):
    """Bradley–Terry model (Davidson ties), fitted by MLE, MAP or NUTS.

    Parameters
    ----------
    prior_scale : float
        σ of the ``ZeroSumNormal`` prior on the log-worths (``map`` and ``nuts``).
    ties : {"auto", "davidson", "ignore"}
        ``auto``: Davidson's tie parameter when the data contain ties, plain BT otherwise;
        ``davidson``: always estimate it; ``ignore``: drop tied comparisons.
    kind : {"subset", "top_k"}
        For Rankings: with ``top_k`` every ranked system also beats every unranked one.
    covariates : DataFrame, optional
        System covariates (one row per system, indexed by its name; numeric columns): the
        log-worths become :math:`x_i^\\top\\beta`, systems absent or with a missing value keep a
        log-worth of their own (:mod:`rankstats.models.system_covariates`); the coefficients
        ``beta: <name>`` in ``fit.parameters``.  ``mle`` or ``nuts``.
    random_effect : bool
        Add a system random effect :math:`u_i \\sim N(0, \\sigma^2)` to the log-worths (to
        :math:`x_i^\\top\\beta`, or alone): ``sigma`` in ``fit.parameters``; by a Laplace
        approximation (``mle``) or in the posterior (``nuts``,
        :mod:`rankstats.models.worth_prior`).

    Notes
    -----
    ``fit(data, ...)`` accepts :class:`~rankstats.Rankings`, :class:`~rankstats.Scores`,
    :class:`~rankstats.Pairwise` (its ``wins_observed``, ties counted as half a win each way) or
    a DataFrame with columns ``item1, item2, wins1, wins2[, ties]``.

    References
    ----------
    Bradley & Terry (1952) *Biometrika* 39, 324–345. Davidson (1970) *JASA* 65, 317–328.
    Hunter (2004) *Ann. Statist.* 32, 384–406. Azari Soufiani et al. (2013) *NeurIPS*.

    Examples
    --------
    >>> import pandas as pd, rankstats as rs
    >>> counts = pd.DataFrame({"item1": ["x", "x", "y"], "item2": ["y", "z", "z"],
    ...                        "wins1": [6, 8, 5], "wins2": [4, 2, 5]})
    >>> fit = rs.models.BradleyTerry().fit(counts, method="mle")
    >>> fit.order
    ['x', 'y', 'z']
    """

    name: ClassVar[str] = "bt"

    def __init__(
        self,
        prior_scale: float = 1.0,
        ties: str = "auto",
        kind: str = "subset",
        covariates: Any = None,
        random_effect: bool = False,
    ) -> None:
        self._set_covariates(covariates, random_effect)
        if not prior_scale > 0:
            raise ValueError(f"prior_scale must be positive, got {prior_scale}")
        if ties not in TIES:
            raise ValueError(f"ties must be one of {TIES}, not {ties!r}")
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
        self.prior_scale = float(prior_scale)
        self.ties = ties
        self.kind = kind

    def __repr__(self) -> str:
        return (
            f"BradleyTerry(prior_scale={self.prior_scale:g}, ties={self.ties!r}, "
            f"kind={self.kind!r}{self._covariate_repr()})"
        )

    def counts(self, data: Any) -> Pairs:
        """The paired-comparison counts the model is fitted to."""
        return comparison_counts(data, kind=self.kind, ignore_ties=self.ties == "ignore")

    _prepare = counts

    def _uses_ties(self, counts: Pairs) -> bool:
        return self.ties == "davidson" or (self.ties == "auto" and counts.has_ties)

    def _extra_names(self, prepared: Pairs) -> list[str]:
        return ["log_tie"] if self._uses_ties(prepared) else []

    def _info(self, prepared: Pairs) -> dict[str, Any]:
        return {
            "n_pairs": len(prepared.item1),
            "n_comparisons": float(
                prepared.wins1.sum() + prepared.wins2.sum() + prepared.ties.sum()
            ),
            "ties": "davidson" if self._uses_ties(prepared) else "none",
            "tie_prior_scale": TIE_PRIOR_SCALE,
            "kind": self.kind,
        }

    def _objective(self, prepared: Pairs, prior: bool):
        return bt_mle.bt_objective(
            prepared,
            self._uses_ties(prepared),
            self.prior_scale if prior else None,
            TIE_PRIOR_SCALE,
        )

    def _beats(self, prepared: Pairs) -> np.ndarray:
        return bt_mle.bt_beats(prepared)

    def _order_information(self, data: Any, prepared: Pairs) -> tuple[Any, float, np.ndarray]:
        rankings = as_rankings(data) if isinstance(data, Rankings | Scores) else None
        wins, ties = prepared.matrices()
        return rankings, float(wins.sum()), wins + ties

    def log_likelihood(
        self, data: Any, log_worth: np.ndarray, log_tie: float | None = None
    ) -> float:
        """Log-likelihood at the given parameters (NumPy; multinomial constants omitted)."""
        counts = self.counts(data)
        ties = log_tie is not None
        params = np.append(np.asarray(log_worth, np.float64), [log_tie] if ties else [])
        return bt_mle.bt_loglik(counts, params, ties)

    def _pymc_model(self, prepared: Pairs) -> Any:
        ties = self._uses_ties(prepared)
        worths = self._worths(prepared)
        key = ("bt", len(prepared.systems), float(self.prior_scale), ties, False, worths.structure)
        return shared_model(
            key,
            lambda data: build_model(
                prepared.systems, self.prior_scale, ties, False, data, worths=worths
            ),
            {**graph_data(prepared, ties), **worths.values},
            coords={"system": prepared.systems, **worths.coords},
        )


def pymc_model(
    counts: Pairs,
    prior_scale: float,
    ties: bool,
    order: bool = False,
    covariates: Sequence[str] = (),
) -> Any:
    r"""The PyMC model: ZeroSumNormal log-worths, Normal log tie parameter, pair likelihood.

    With ``order``, pairs are ordered (``item1`` shown first) and ``item1`` gets the log
    advantage ``log_order`` ~ Normal(0, TIE_PRIOR_SCALE), added to its log-worth in every
    probability (:func:`rankstats.core.bradley_terry_mle.bt_terms`; used by
    :mod:`rankstats.battles.bayes`).  With ``covariates`` (the names of the columns of
    ``counts.features``, one row per battle: style control), ``item1`` also gets
    :math:`\gamma^\top z`, ``style`` ~ Normal(0, TIE_PRIOR_SCALE) per covariate.
    """
    values = graph_data(counts, ties)
    return build_model(counts.systems, prior_scale, ties, order, values, tuple(covariates))


def graph_data(counts: Pairs, ties: bool) -> dict[str, np.ndarray]:
    """The values of the ``pm.Data`` of :func:`pymc_model`."""
    values = {
        "item1": counts.item1,
        "item2": counts.item2,
        "wins1": counts.wins1,
        "wins2": counts.wins2,
    }
    if ties:
        values["ties"] = counts.ties
    if counts.features is not None:
        values["features"] = np.asarray(counts.features, dtype=np.float64)
    return values


def build_model(
    systems: Any,
    prior_scale: float,
    ties: bool,
    order: bool,
    values: dict[str, np.ndarray],
    covariates: tuple[str, ...] = (),
    worths: Worths | None = None,
) -> Any:
    """The model of :func:`pymc_model` holding ``values`` (:func:`graph_data`); another data set
    with the same systems count, ``ties``, ``order`` and covariates enters with
    ``pm.set_data``.  ``covariates`` are the battle covariates; ``worths`` the log-worths, free
    or from system covariates (:mod:`rankstats.models.worth_prior`)."""
    pm, pt = _compat.pymc()
    worths = worths or Worths.free()
    coords = {"system": list(systems), **worths.coords}
    if covariates:
        coords["covariate"] = list(covariates)  # battle covariates: never with system ones
    with pm.Model(coords=coords) as model:
        i = pm.Data("item1", values["item1"])
        j = pm.Data("item2", values["item2"])
        w1 = pm.Data("wins1", values["wins1"])
        w2 = pm.Data("wins2", values["wins2"])
        theta = log_worth(prior_scale, worths)
        ti, tj = theta[i], theta[j]
        if order:
            ti = ti + pm.Normal("log_order", 0.0, TIE_PRIOR_SCALE)
        if covariates:
            z = pm.Data("features", values["features"])
            gamma = pm.Normal("style", 0.0, TIE_PRIOR_SCALE, dims="covariate")
            ti = ti + pt.dot(z, gamma)
        if ties:
            t = pm.Data("ties", values["ties"])
            log_tie = pm.Normal("log_tie", 0.0, TIE_PRIOR_SCALE)
            tie = log_tie + 0.5 * (ti + tj)
            log_d = pt.logsumexp(pt.stack([ti, tj, tie]), axis=0)
            loglik = pt.sum(w1 * (ti - log_d) + w2 * (tj - log_d) + t * (tie - log_d))
        else:
            log_d = pt.logaddexp(ti, tj)
            loglik = pt.sum(w1 * (ti - log_d) + w2 * (tj - log_d))
        pm.Potential("loglik", loglik)
    return model
