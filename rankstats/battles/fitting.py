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

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from rankstats._pymc.settings import NutsSettings
from rankstats._util.advice import AdviceError, AdviceWarning, Spelled, escape, keywords
from rankstats._util.arguments import count, flag, probability, random_seed
from rankstats._util.parallel import resolve_n_jobs
from rankstats._util.renamed import grouped_parameters, renamed_parameters
from rankstats._util.user_frame import user_stacklevel
from rankstats.battles.battle_fit import (  # noqa: F401 - the result's home, re-exported
    ELO_SCALE,
    ELO_START,
    METHODS,
    BattleFit,
)
from rankstats.battles.battle_options import EloScale, StyleControl
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
@grouped_parameters(
    elo=(EloScale, {"anchor": "anchor", "anchor_rating": "rating"}),
    posterior=(NutsSettings, ("sampler", "draws", "tune", "chains", "progress")),
    covariates=(StyleControl, ("standardize",)),
)
def fit_battles(
    battles: Battles,
    *,
    ties: bool | None = None,
    order_effect: bool | None = None,
    both_bad: str = "tie",
    n_resamples: int | None = None,
    posterior: bool | NutsSettings = False,
    confidence_level: float = 0.95,
    elo: EloScale | None = None,
    seed: int | None = 0,
    n_jobs: int | None = None,
    covariates: bool | StyleControl = True,
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
    posterior : bool or NutsSettings
        Also sample the posterior with NUTS (PyMC; compiles a model: tens of seconds); with
        covariates, over the battles one by one (slower for long logs).  ``True`` samples with
        the default :class:`~rankstats.NutsSettings` (draws, tuning steps, chains, sampler,
        progress bar); ``NutsSettings(...)`` with those (the sampler used is recorded in
        ``info``).
    confidence_level : float
        Coverage of every interval (default 0.95).
    elo : EloScale, optional
        The Elo scale of the ratings (:class:`~rankstats.EloScale`): its ``anchor`` model is
        fixed at its ``rating`` (a finite number); without an anchor, ratings are centred at
        ``rating`` (default: centred at 1000).
    seed : int, optional
        Seeds the bootstrap and the sampler: same seed, same numbers.
    n_jobs : int, optional
        Threads for the bootstrap (default and -1: all cores); the numbers do not depend on it.
    covariates : bool or StyleControl
        Style control: fit the battles' covariates (``read_battles(..., covariates=)``) with
        the ratings (:mod:`rankstats.battles.style_control`); the ratings without them are kept
        beside (``rating_unadjusted`` in :meth:`BattleFit.table`).  False ignores them;
        ``StyleControl(standardize=False)`` fits them as given instead of per standard
        deviation (:class:`~rankstats.StyleControl`).
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

    Notes
    -----
    The old keywords ``anchor``, ``anchor_rating`` (now ``elo``), ``sampler``, ``draws``,
    ``tune``, ``chains``, ``progress`` (now ``posterior``) and ``standardize`` (now
    ``covariates``) still work for one release, with a :class:`FutureWarning`.
    """
    elo, nuts, style = _options(battles, elo, posterior, covariates)
    n_resamples = _check_settings(
        n_resamples, bias_reduction, confidence_level, order_effect, ties, seed
    )
    n_jobs = resolve_n_jobs(n_jobs)
    counts = _counts(battles, ties, order_effect, both_bad, elo.anchor, style)
    clusters, cluster_codes, few_clusters = _bootstrap_clusters(
        battles, both_bad, n_resamples, style is not None
    )
    optimum, unadjusted = _estimate(counts, battles.models, bias_reduction)
    info = _info(battles, counts, optimum, both_bad, confidence_level, seed, n_resamples)
    if bias_reduction:
        info["bias_reduction"] = FIRTH
    if battles.cluster is not None:
        info["n_clusters"] = battles.n_clusters
    if counts.dropped:
        info["order_effect_dropped"] = str(counts.dropped)
    for warning in _design_warnings(battles, counts, n_resamples, few_clusters):
        _note(info, warning)
    boot = None
    if n_resamples:
        boot = _resample(counts, optimum, n_resamples, seed, n_jobs, clusters, cluster_codes, info)
    post = idata = None
    if nuts is not None:
        from rankstats.battles.bayes import sample_posterior

        names = battles.covariate_names if style is not None else ()
        post, problems, used, idata = sample_posterior(
            counts.fitted_exact,
            battles.models,
            counts.ties,
            counts.order_effect,
            seed,
            nuts,
            covariates=names,
        )
        info["sampler"] = used
        info["posterior_problems"] = problems
    if style is not None:
        info.update(_style_info(battles, counts, style))
    return BattleFit(
        tuple(battles.models),
        optimum.params,
        optimum.covariance,
        battles.battles_per_model(both_bad),
        counts.ties,
        counts.order_effect,
        confidence_level,
        elo.anchor,
        elo.rating,
        boot,
        post,
        info,
        covariate_names=battles.covariate_names if style is not None else (),
        unadjusted=unadjusted,
        idata=idata,
    )


def _options(
    battles: Battles,
    elo: EloScale | None,
    posterior: bool | NutsSettings,
    covariates: bool | StyleControl,
) -> tuple[EloScale, NutsSettings | None, StyleControl | None]:
    """The settings of the steps: the Elo scale, NUTS (None: no posterior), style control
    (None: the battles' covariates, if any, are not fitted)."""
    if not isinstance(battles, Battles):
        raise TypeError(
            f"battles must be a Battles log, not {type(battles).__name__}: read a file or a "
            "DataFrame with rs.read_battles"
        )
    elo = EloScale() if elo is None else elo
    if not isinstance(elo, EloScale):
        raise TypeError(f"elo must be an EloScale, not {type(elo).__name__}")
    nuts = _step("posterior", posterior, NutsSettings)
    style = _step("covariates", covariates, StyleControl)
    if elo.anchor is not None and elo.anchor not in battles.models:
        raise AdviceError(
            "{anchor} is not a model of the battles; models are "
            + escape(", ".join(map(repr, battles.models[:20]))),
            anchor=elo.anchor,
        )
    return elo, nuts, style if battles.rows is not None else None


def _step(name: str, value: object, settings: type):
    """A step switched on (``True``: default settings; settings: those) or off (None)."""
    if isinstance(value, settings):
        return value
    flag(name, value)
    return settings() if value else None


@dataclass(frozen=True)
class _Counts:
    """What is fitted: the counts per ordered pair (``pairs``, ties as read), those the
    likelihood sees (``fitted``: ties as half wins without the tie parameter, or the battles
    one by one with their covariates), and the model decided on them."""

    pairs: Pairs
    fitted: Pairs
    ties: bool
    order_effect: bool
    dropped: AdviceWarning | None  # why the order effect was left out
    style: tuple[Pairs, np.ndarray, np.ndarray] | None  # style_rows: rows, centre, scale

    @property
    def fitted_exact(self) -> Pairs:
        """The counts of the posterior, which halves ties itself: ``pairs`` or the rows."""
        return self.pairs if self.style is None else self.style[0]


def _counts(
    battles: Battles,
    ties: bool | None,
    order_effect: bool | None,
    both_bad: str,
    anchor: str | None,
    style: StyleControl | None,
) -> _Counts:
    pairs = battles.pairs(both_bad)
    if len(pairs.item1) == 0:
        raise AdviceBattlesError(
            escape(f"{battles.source}: no battles to fit")
            + (" once the both-bad battles are left out ({both_bad})" if battles.n_battles else ""),
            both_bad=("both_bad", "drop"),
        )
    if ties is None:
        ties = bool(pairs.ties.sum() > 0)
    order_effect, dropped = decide_order_effect(pairs, battles.models, order_effect)
    rows = None
    if style is not None:
        rows = style_rows(battles, both_bad, ties, style.standardize, order_effect)
    fitted = (pairs if ties else _half_wins(pairs)) if rows is None else rows[0]
    return _Counts(pairs, fitted, ties, order_effect, dropped, rows)


def _estimate(
    counts: _Counts, models: Sequence[str], bias_reduction: bool
) -> tuple[Any, np.ndarray | None]:
    """The (penalised) MLE, and with style control the log-worths fitted without covariates."""
    unadjusted = None
    if counts.style is not None:
        plain = counts.pairs if counts.ties else _half_wins(counts.pairs)
        found = _optimum(plain, counts.ties, models, counts.order_effect, bias_reduction)
        unadjusted = found.params[: len(models)]
    optimum = _optimum(counts.fitted, counts.ties, models, counts.order_effect, bias_reduction)
    return optimum, unadjusted


def _info(
    battles: Battles,
    counts: _Counts,
    optimum: Any,
    both_bad: str,
    confidence_level: float,
    seed: int | None,
    n_resamples: int,
) -> dict[str, Any]:
    """The fit's settings (``BattleFit.info``); the steps add their diagnostics."""
    return {
        "ties": "davidson" if counts.ties else "half",
        "order_effect": counts.order_effect,
        "both_bad": both_bad,
        "confidence": confidence_level,
        "seed": seed,
        "n_bootstrap": n_resamples,
        "bootstrap_unit": "battle" if battles.cluster is None else f"cluster ({battles.cluster})",
        "newton_iterations": optimum.iterations,
        "warnings": [],
    }


def _note(info: dict[str, Any], warning: str | AdviceWarning) -> None:
    """A warning the fit keeps (``info["warnings"]``) and gives."""
    info["warnings"].append(str(warning))
    warnings.warn(warning, DataWarning, stacklevel=user_stacklevel())


def _design_warnings(
    battles: Battles, counts: _Counts, n_resamples: int, few_clusters: AdviceWarning | None
) -> list[str | AdviceWarning]:
    """What the design leaves out or makes doubtful, in the order the fit gives it."""
    found: list[str | AdviceWarning] = [counts.dropped] if counts.dropped else []
    if battles.cluster is not None and not n_resamples:
        found.append(
            AdviceWarning(
                escape(f"the clusters ({battles.cluster}) are used by the bootstrap only, and ")
                + "{n_resamples}: the Fisher intervals treat every battle as independent and are "
                "too narrow when the battles of a cluster are correlated",
                n_resamples=0,
            )
        )
    return found + ([few_clusters] if few_clusters is not None else [])


def _resample(
    counts: _Counts,
    optimum: Any,
    n_resamples: int,
    seed: int | None,
    n_jobs: int,
    clusters: Any,
    cluster_codes: np.ndarray | None,
    info: dict[str, Any],
) -> np.ndarray:
    """The bootstrap distribution of the parameters (:mod:`rankstats.battles.bootstrap`, or
    with style control :func:`rankstats.battles.style_control.bootstrap_style`)."""
    if counts.style is not None:
        boot, failed, info["bootstrap_method"] = bootstrap_style(
            counts.style[0],
            optimum.params,
            optimum.information,
            n_resamples,
            counts.ties,
            counts.order_effect,
            seed=seed,
            clusters=cluster_codes,
            n_jobs=n_jobs,
        )
    else:
        boot, failed = bootstrap_battles(
            counts.pairs,
            optimum.params,
            optimum.information,
            n_resamples,
            counts.ties,
            counts.order_effect,
            seed=seed,
            n_jobs=n_jobs,
            clusters=clusters,
        )
    info["bootstrap_failed"] = failed
    if failed:
        _note(
            info,
            f"{failed} of {n_resamples} bootstrap replicates have no MLE (their comparison "
            "graph is not strongly connected, or the pairs they drew cannot identify the "
            "order effect); the bootstrap intervals use the others and are too narrow: "
            "collect more battles per model (or fit without the order effect)",
        )
    return boot


def _style_info(battles: Battles, counts: _Counts, style: StyleControl) -> dict[str, Any]:
    names = battles.covariate_names
    return {
        "covariate_centre": dict(zip(names, counts.style[1].tolist(), strict=True)),
        "covariate_scale": dict(zip(names, counts.style[2].tolist(), strict=True)),
        "standardized": bool(style.standardize),
    }


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
    n_resamples: int | None,
    bias_reduction: object,
    confidence_level: float,
    order_effect: bool | None,
    ties: bool | None,
    seed: object,
) -> int:
    """The settings checked; returns ``n_resamples`` (default 1000, 0 with bias reduction)."""
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
    if n_resamples is None:
        n_resamples = 0 if bias_reduction else 1000
    probability("confidence_level", confidence_level)
    count("n_resamples", n_resamples, 0)
    if order_effect not in (None, True, False):
        raise ValueError(f"order_effect must be None, True or False, not {order_effect!r}")
    if ties is not None:
        flag("ties", ties)
    random_seed("seed", seed)
    return n_resamples


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
