r"""Bradley–Terry ratings of pairwise battles with an order effect, and three kinds of interval.

Model (Bradley & Terry 1952; ties after Davidson 1970; the order effect is Agresti's (2002,
§10.6.1) home-advantage model).  Model ``a`` shown first against ``b`` shown second, worths
:math:`\pi = e^{\theta}`, order advantage :math:`h = e^{\eta}`, tie parameter
:math:`\nu = e^{\lambda}`:

.. math::

    P(a \succ b) = \frac{h\pi_a}{D}, \quad P(b \succ a) = \frac{\pi_b}{D}, \quad
    P(a \sim b) = \frac{\nu\sqrt{h\pi_a\pi_b}}{D}, \quad
    D = h\pi_a + \pi_b + \nu\sqrt{h\pi_a\pi_b}.

Without ties (``ties=False``) a tie counts as half a win for each side and :math:`\nu = 0`; without
the order effect :math:`h = 1`.  The log-worths are centred (:math:`\sum\theta = 0`).  The MLE is
:func:`rankstats.core.bradley_terry_mle.fit_bt` (``order=True``: the one Bradley–Terry likelihood of
rankstats) on the counts per ordered pair (:class:`rankstats.battles.log.Battles`), so a fit costs
O(pairs).

Intervals, side by side in :meth:`BattleFit.table`:

- **fisher** — Wald intervals :math:`\hat\theta \pm z\,\mathrm{se}` from the observed information
  at the MLE (the inverse Hessian of :func:`rankstats.core.bradley_terry_mle.newton`).
- **bootstrap** — percentile intervals of the nonparametric bootstrap over battles, or over
  clusters of battles (questions judged several times: ``read_battles(..., cluster=)``)
  (:mod:`rankstats.battles.bootstrap`).  Resampling battles with replacement is a multinomial
  draw on the table of (ordered pair, outcome) cells, so each replicate draws that table and
  refits by Newton iterations warm-started at the MLE with the information matrix of the MLE
  (a chord method), 50 replicates at a time, O(pairs) per replicate however many battles there
  are; seeded chunks make the numbers independent of the number of threads.
- **posterior** — equal-tailed credible intervals of the Bayesian model (ZeroSumNormal log-worths,
  Normal log order effect and log tie parameter; NUTS in PyMC, :mod:`rankstats.battles.bayes`).

**Style control**: battles read with covariates (``read_battles(..., covariates=)``) are fitted
one by one with :math:`\gamma^\top z` added to the log-odds of the model shown first
(:mod:`rankstats.battles.style_control`); the ratings are then adjusted for the covariates, the
unadjusted ones are kept beside, and the bootstrap reweights battles (or clusters) and refits
them, or, for large logs, takes one Newton step from the MLE; the posterior adds
:math:`\gamma \sim N(0, 1.5^2)` per (scaled) covariate.

The order effect is estimated only when the design identifies it
(:mod:`rankstats.battles.design`: decided from which ordered pairs were played, never from the
counts).  A star design — every battle against one baseline, as arena-hard-auto's — does not:
by default (``order_effect=None``) it is then left out with a :class:`DataWarning`.

Ratings are printed on the **Elo scale** as LMSYS's Chatbot Arena does: :math:`R_i = 400
\log_{10}(e)\,\theta_i + c`, so that a difference of 400 points is odds of 10 : 1; ``c`` centres
the ratings at ``anchor_rating`` (1000), or puts the ``anchor`` model at ``anchor_rating``.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from rankstats._util.advice import AdviceError, AdviceWarning, Spelled, escape, keywords
from rankstats._util.arguments import count, flag, probability, sampling
from rankstats._util.parallel import resolve_n_jobs
from rankstats._util.renamed import renamed_parameters
from rankstats._util.user_frame import user_stacklevel
from rankstats.battles.battle_fit import (  # noqa: F401 - the result's home, re-exported
    ELO_SCALE,
    ELO_START,
    METHODS,
    BattleFit,
)
from rankstats.battles.bootstrap import (  # noqa: F401 - re-exported (API reference, tests)
    PoissonTable,
    bootstrap_battles,
    resample_cells,
)
from rankstats.battles.design import decide_order_effect
from rankstats.battles.log import Battles
from rankstats.battles.log_files import AdviceBattlesError
from rankstats.battles.style_control import bootstrap_style, style_rows
from rankstats.core.bradley_terry_mle import ConvergenceError, MLEDoesNotExistError, Pairs, fit_bt
from rankstats.core.firth import FIRTH
from rankstats.errors import DataWarning

BATTLES_HINT = Spelled(
    "Fit with bias_reduction=True (Firth's penalised likelihood: finite ratings and standard "
    "errors), add battles that connect these models, or fit the connected part only (the "
    "posterior, posterior=True, stays finite thanks to its prior).",
    "Fit with --bias-reduction (Firth's penalised likelihood: finite ratings and standard "
    "errors), add battles that connect these models, or fit the connected part only (the "
    "posterior, --posterior, stays finite thanks to its prior).",
)


# ---------------------------------------------------------------------------- fitting
@renamed_parameters(bootstrap="n_resamples", confidence="confidence_level", progressbar="progress")
def fit_battles(
    battles: Battles,
    *,
    ties: bool | None = None,
    order_effect: bool | None = None,
    both_bad: str = "tie",
    n_resamples: int | None = None,
    posterior: bool = False,
    confidence_level: float = 0.95,
    anchor: str | None = None,
    anchor_rating: float = ELO_START,
    seed: int | None = 0,
    n_jobs: int | None = None,
    sampler: str = "auto",
    draws: int = 1000,
    tune: int = 1000,
    chains: int = 4,
    progress: bool = True,
    covariates: bool = True,
    standardize: bool = True,
    bias_reduction: bool = False,
) -> BattleFit:
    """Fit Bradley–Terry with an order effect to battles, with Fisher, bootstrap and posterior
    intervals (see the module docstring for the model and the methods).

    Parameters
    ----------
    battles : Battles
        From :func:`rankstats.battles.log.read_battles`.  Read with ``cluster=`` (e.g. the question
        id), the bootstrap resamples clusters instead of battles.
    ties : bool, optional
        Davidson's tie parameter (default: when the battles hold ties); ``False`` counts a tie as
        half a win for each side (LMSYS's convention).
    order_effect : bool, optional
        Estimate the advantage :math:`h` of the model shown first.  ``None`` (default): when the
        design identifies it (:func:`rankstats.battles.design.order_design`); otherwise (e.g. a
        star design, every battle against one baseline) it is left out with a
        :class:`DataWarning`.  ``True`` refuses a design that does not identify it; ``False``
        never estimates it.
    both_bad : {"tie", "drop"}
        Count "both bad" battles as ties (default) or leave them out.
    n_resamples : int, optional
        Bootstrap resamples (0: none; default 1000, none with ``bias_reduction``).
    posterior : bool
        Also sample the posterior with NUTS (PyMC; compiles a model: tens of seconds); with
        covariates, over the battles one by one (slower for long logs).
    confidence_level : float
        Coverage of every interval (default 0.95).
    anchor, anchor_rating : str, float
        Elo scale: ``anchor`` is fixed at ``anchor_rating`` (a finite number); without,
        ratings are centred at ``anchor_rating`` (default 1000).
    seed : int, optional
        Seeds the bootstrap and the sampler: same seed, same numbers.
    n_jobs : int, optional
        Threads for the bootstrap (default and -1: all cores); the numbers do not depend on it.
    sampler, draws, tune, chains, progress
        NUTS settings (``sampler``: ``"auto"``, ``"pymc"`` or ``"nutpie"``, recorded in
        ``info``).
    covariates : bool
        Style control: fit the battles' covariates (``read_battles(..., covariates=)``) with
        the ratings (:mod:`rankstats.battles.style_control`); the ratings without them are kept
        beside (``rating_unadjusted`` in :meth:`BattleFit.table`).  False ignores them.
    standardize : bool
        Covariates divided by their standard deviation (their effects per standard deviation;
        not centred, so that the ratings are at equal style); False fits them as given.
    bias_reduction : bool
        Firth's (1993) bias-reduced estimate (:mod:`rankstats.core.firth`): the likelihood
        penalised by Jeffreys' prior, finite when a model never wins or never loses; the
        Fisher intervals from the inverse information at the estimate.  Not with the bootstrap
        (whose replicates would need it too).

    Raises
    ------
    InvalidBattlesError
        No battles (left), or ``order_effect=True`` on a design that cannot identify it.
    MLEDoesNotExistError
        The comparison graph is not strongly connected (the message names the groups).
    """
    if not isinstance(battles, Battles):
        raise TypeError(
            f"battles must be a Battles log, not {type(battles).__name__}: read a file or a "
            "DataFrame with rs.read_battles"
        )
    _check_bias_reduction(bias_reduction, n_resamples)
    if n_resamples is None:
        n_resamples = 0 if bias_reduction else 1000
    _check_settings(confidence_level, n_resamples, anchor_rating, order_effect)
    if ties is not None:
        flag("ties", ties)
    n_jobs = resolve_n_jobs(n_jobs)
    sampling(draws, tune, chains, seed)
    pairs = battles.pairs(both_bad)
    if len(pairs.item1) == 0:
        raise AdviceBattlesError(
            escape(f"{battles.source}: no battles to fit")
            + (" once the both-bad battles are left out ({both_bad})" if battles.n_battles else ""),
            both_bad=("both_bad", "drop"),
        )
    if ties is None:
        ties = bool(pairs.ties.sum() > 0)
    fit_pairs = pairs if ties else _half_wins(pairs)
    models = battles.models
    if anchor is not None and anchor not in models:
        raise AdviceError(
            "{anchor} is not a model of the battles; models are "
            + escape(", ".join(map(repr, models[:20]))),
            anchor=anchor,
        )
    order_effect, dropped = decide_order_effect(pairs, models, order_effect)
    styled = bool(covariates) and battles.rows is not None
    clusters, cluster_codes, few_clusters = _bootstrap_clusters(
        battles, both_bad, n_resamples, styled
    )
    unadjusted, style = None, None
    if styled:
        style = style_rows(battles, both_bad, ties, standardize, order_effect)
        unadjusted = _optimum(fit_pairs, ties, models, order_effect, bias_reduction).params[
            : len(models)
        ]
    optimum = _optimum(
        fit_pairs if style is None else style[0], ties, models, order_effect, bias_reduction
    )
    info: dict[str, Any] = {
        "ties": "davidson" if ties else "half",
        "order_effect": order_effect,
        "both_bad": both_bad,
        "confidence": confidence_level,
        "seed": seed,
        "n_bootstrap": n_resamples,
        "bootstrap_unit": "battle" if battles.cluster is None else f"cluster ({battles.cluster})",
        "newton_iterations": optimum.iterations,
        "warnings": [],
    }
    if bias_reduction:
        info["bias_reduction"] = FIRTH
    if battles.cluster is not None:
        info["n_clusters"] = battles.n_clusters

    def note(warning: str | AdviceWarning) -> None:  # a warning the fit keeps (info["warnings"])
        info["warnings"].append(str(warning))
        warnings.warn(warning, DataWarning, stacklevel=user_stacklevel())

    if dropped:
        info["order_effect_dropped"] = str(dropped)
        note(dropped)
    if battles.cluster is not None and not n_resamples:
        note(
            AdviceWarning(
                escape(f"the clusters ({battles.cluster}) are used by the bootstrap only, and ")
                + "{n_resamples}: the Fisher intervals treat every battle as independent and are "
                "too narrow when the battles of a cluster are correlated",
                n_resamples=0,
            )
        )
    if few_clusters is not None:
        note(few_clusters)
    boot = None
    if n_resamples and style is not None:
        boot, failed, method = bootstrap_style(
            style[0],
            optimum.params,
            optimum.information,
            n_resamples,
            ties,
            order_effect,
            seed,
            cluster_codes,
            n_jobs,
        )
        info["bootstrap_method"] = method
    elif n_resamples:
        boot, failed = bootstrap_battles(
            pairs,
            optimum.params,
            optimum.information,
            n_resamples,
            ties,
            order_effect,
            seed,
            n_jobs,
            clusters=clusters,
        )
    if boot is not None:
        info["bootstrap_failed"] = failed
        if failed:
            note(
                f"{failed} of {n_resamples} bootstrap replicates have no MLE (their comparison "
                "graph is not strongly connected, or the pairs they drew cannot identify the "
                "order effect); the bootstrap intervals use the others and are too narrow: "
                "collect more battles per model (or fit without the order effect)"
            )
    post = idata = None
    if posterior:
        from rankstats.battles.bayes import sample_posterior

        post, problems, used, idata = sample_posterior(
            pairs if style is None else style[0],
            models,
            ties,
            order_effect,
            seed,
            sampler,
            draws,
            tune,
            chains,
            progress,
            covariates=battles.covariate_names if style is not None else (),
        )
        info["sampler"] = used
        info["posterior_problems"] = problems
    per_model = battles.battles_per_model(both_bad)
    if style is not None:
        info["covariate_centre"] = dict(
            zip(battles.covariate_names, style[1].tolist(), strict=True)
        )
        info["covariate_scale"] = dict(zip(battles.covariate_names, style[2].tolist(), strict=True))
        info["standardized"] = bool(standardize)
    return BattleFit(
        tuple(models),
        optimum.params,
        optimum.covariance,
        per_model,
        ties,
        order_effect,
        confidence_level,
        anchor,
        anchor_rating,
        boot,
        post,
        info,
        covariate_names=battles.covariate_names if style is not None else (),
        unadjusted=unadjusted,
        idata=idata,
    )


def _optimum(
    pairs: Pairs, ties: bool, models: Sequence[str], order: bool, bias_reduction: bool = False
):
    """:func:`fit_bt` of the battles, its failure to converge said as the user's problem."""
    try:
        return fit_bt(
            pairs,
            ties=ties,
            systems=models,
            hint=BATTLES_HINT,
            order=order,
            bias_reduction=bias_reduction,
        )
    except ConvergenceError as err:
        covariates = pairs.features is not None
        raise MLEDoesNotExistError(
            escape(f"the Bradley–Terry MLE of the battles could not be found ({err})")
            + ": a parameter runs off to infinity (e.g. no ties, only ties, or the model shown "
            "first always wins"
            + (", or a covariate that separates wins from losses" if covariates else "")
            + "); fit with {ties} or {order_effect}",
            ties=Spelled("ties=False", "--ties half"),
            order_effect=False,
        ) from None


def _bootstrap_clusters(battles: Battles, both_bad: str, n_resamples: int, styled: bool):
    """What the bootstrap resamples over clusters: the (clusters × cells) counts, or with style
    control each fitted battle's cluster code; and the warning on their number (refused below
    2 by :func:`check_cluster_count`)."""
    if not n_resamples or battles.cluster is None:
        return None, None, None
    if styled:
        codes = battles.rows.cluster[battles.rows.kept(both_bad)]
        return None, codes, check_cluster_count(np.unique(codes).size, battles.cluster)
    cells = battles.cluster_cells(both_bad)
    count = int((cells.getnnz(axis=1) > 0).sum())
    return cells, None, check_cluster_count(count, battles.cluster)


#: Fewer clusters than this: the cluster bootstrap warns that its intervals are too narrow.
FEW_CLUSTERS = 20


def check_cluster_count(count: int, column: str) -> AdviceWarning | None:
    """Refuse a bootstrap over fewer than 2 clusters; the warning to give below
    :data:`FEW_CLUSTERS`, else None.

    One cluster makes every replicate the data itself (zero-width intervals, a fully separated
    ``rank_ub``).  With few clusters the resampled sums take few distinct values and the
    cluster bootstrap's intervals are too narrow (Cameron, Gelbach & Miller 2008, the pairs
    cluster bootstrap with 5-30 clusters; Cameron & Miller 2015, §VI).
    """
    where = escape(f"the bootstrap over clusters ({column}) ")
    if count < 2:
        raise AdviceBattlesError(
            where
            + f"needs at least 2 clusters; the battles that are fitted form {count}, so every "
            "replicate would be the data itself: read the battles without {cluster} to "
            "resample battles",
            **keywords("cluster"),
        )
    if count < FEW_CLUSTERS:
        return AdviceWarning(
            where + f"has only {count} clusters (fewer than {FEW_CLUSTERS}): its intervals are too "
            "narrow with few clusters; collect more clusters, or read the battles without "
            "{cluster} if their battles are independent",
            **keywords("cluster"),
        )
    return None


def _check_settings(
    confidence_level: float, n_resamples: int, anchor_rating: float, order_effect: bool | None
) -> None:
    probability("confidence_level", confidence_level)
    count("n_resamples", n_resamples, 0)
    if not (isinstance(anchor_rating, (int, float)) and math.isfinite(anchor_rating)):
        raise AdviceError(
            "{anchor_rating} must be a finite number, not " + escape(repr(anchor_rating)),
            anchor_rating=Spelled("anchor_rating", "--rating"),
        )
    if order_effect not in (None, True, False):
        raise ValueError(f"order_effect must be None, True or False, not {order_effect!r}")


def _check_bias_reduction(bias_reduction: object, n_resamples: int) -> None:
    if not isinstance(bias_reduction, bool | np.bool_):
        raise TypeError(f"bias_reduction must be True or False, not {bias_reduction!r}")
    if bias_reduction and n_resamples:
        raise AdviceError(
            "{bias_reduction} is not available with the bootstrap ({n_resamples}): its replicates "
            "are maximum-likelihood fits; use the Fisher intervals of the bias-reduced fit, "
            "or the posterior",
            bias_reduction=True,
            n_resamples=n_resamples,
        )


def _half_wins(pairs: Pairs) -> Pairs:
    """Ties as half a win each way (``ties=False``)."""
    half = 0.5 * pairs.ties
    return Pairs(
        pairs.n_systems,
        pairs.item1,
        pairs.item2,
        pairs.wins1 + half,
        pairs.wins2 + half,
        np.zeros_like(half),
    )


def elo(
    log_worth: Sequence[float] | np.ndarray, anchor: int | None = None, rating: float = ELO_START
):
    """Elo-scale ratings :math:`400\\log_{10}(e)(\\theta - \\theta_{anchor}) + \\text{rating}`
    (``anchor=None``: centred, the mean rating is ``rating``)."""
    theta = np.asarray(log_worth, dtype=float)
    base = theta.mean() if anchor is None else theta[anchor]
    return ELO_SCALE * (theta - base) + rating
