r"""K-fold cross-validation of rank models: the expected log predictive density by refitting.

PSIS-LOO (:func:`~rankstats.models.compare_fits`) approximates leave-one-out cross-validation
from one posterior sample; it fails when a held-out ranking changes the posterior too much
(Pareto :math:`\hat k > 0.7`) and needs posterior draws.  K-fold cross-validation (Vehtari,
Gelman & Gabry 2017, sec. 4) refits the model ``K`` times instead: the rankings are split at
random (seeded) into ``K`` folds of nearly equal size, the model is fitted to all folds but
one, and every ranking :math:`y_i` of the held-out fold is scored by its predictive density
under that fit:

.. math:: \widehat{\text{elpd}}_{\text{kfold}} = \sum_{i=1}^{n} \log p(y_i \mid y_{-k(i)}),
          \qquad \log p(y_i \mid y_{-k(i)}) \approx \log \frac1S \sum_{s=1}^{S}
          p(y_i \mid \theta^{(s)}_{-k(i)}),

the log-mean-exp over the ``S`` posterior draws of the refit (``nuts``; ``mcmc`` for Mallows),
with standard error :math:`\sqrt{n \operatorname{Var}_i \widehat{\text{elpd}}_i}`.  For point
fits (``mle``, ``map``) the held-out ranking is scored at the refitted optimum,
:math:`\log p(y_i \mid \hat\theta_{-k(i)})` — a *plug-in* estimate that ignores the
uncertainty of :math:`\hat\theta` (labelled so in :attr:`KFoldResult.estimate`).  With
``K = n`` this is leave-one-out cross-validation by refitting, which PSIS-LOO approximates.

The unit is a ranking and the per-ranking likelihood is the one of
:mod:`rankstats.models.pointwise_likelihood`: Plackett–Luce (Efron's ties), Bradley–Terry's
composite likelihood of rankings (the sum over the ranking's pairs: biased low against proper
likelihoods, and noted), Mallows' marginal likelihood of the held-out ranking — every data
pattern, every distance, a mixture's summed over its clusters
(:func:`rankstats.core.permutations.marginal.marginal_likelihood`: closed form or enumeration where
they apply, else an importance-sampling estimate, noted with its largest standard error).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from rankstats._pymc.convergence import SAMPLED, ConvergenceWarning
from rankstats._util.arguments import count, random_seed
from rankstats.core.rankings import Rankings
from rankstats.errors import InvalidRankingsError, preview
from rankstats.models import pointwise_likelihood as pointwise
from rankstats.models._data import as_rankings
from rankstats.models._fit import Fit

#: What each estimate is.
ESTIMATES = {
    "posterior": "log-mean-exp of the held-out likelihood over the refit's posterior draws",
    "plug-in": "held-out log-likelihood at the refitted optimum (plug-in: ignores the "
    "uncertainty of the estimate)",
}


@dataclass(frozen=True, eq=False, repr=False)
class KFoldResult:
    """K-fold cross-validation of one model (:func:`kfold`).

    Attributes
    ----------
    model : str
        ``"pl"``, ``"bt"`` or ``"mallows"``.
    method : str
        The fitting method of every refit.
    elpd : float
        :math:`\\sum_i \\log p(y_i \\mid y_{-k(i)})` (``elpd_kfold``).
    se : float
        :math:`\\sqrt{n \\operatorname{Var}_i \\text{elpd}_i}`.
    elpd_i : pandas.Series
        Per held-out ranking (index: the ranking labels).
    folds : pandas.Series
        Fold (0 … K − 1) of every ranking.
    k : int
    estimate : str
        ``"posterior"`` (log-mean-exp over draws) or ``"plug-in"`` (point fits).
    composite : bool
        Bradley–Terry's composite likelihood of rankings of more than two systems.
    notes : tuple of str
    """

    model: str
    method: str
    elpd: float
    se: float
    elpd_i: pd.Series
    folds: pd.Series
    k: int
    estimate: str
    composite: bool = False
    notes: tuple[str, ...] = ()

    @property
    def n_units(self) -> int:
        return len(self.elpd_i)

    def __repr__(self) -> str:
        lines = [
            f"KFoldResult(model={self.model!r}, method={self.method!r}, K={self.k}, "
            f"{self.n_units} rankings)",
            f"  elpd_kfold = {self.elpd:.2f} (se {self.se:.2f}); {ESTIMATES[self.estimate]}",
        ]
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)


def fold_ids(n: int, k: int, seed: int | None) -> np.ndarray:
    """Random folds of nearly equal size: a seeded permutation of ``0 … n − 1`` dealt in turn
    to the ``k`` folds (the same for every model of the same ``n``, ``k`` and ``seed``)."""
    if not 2 <= k <= n:
        raise ValueError(f"k must be between 2 and the number of rankings ({n}), got {k}")
    order = np.random.default_rng(seed).permutation(n)
    folds = np.empty(n, dtype=np.int64)
    folds[order] = np.arange(n) % k
    return folds


def _model_of(fit: Fit) -> Any:
    """A model object that refits like ``fit`` (its family and settings)."""
    from rankstats import models

    info = fit.info
    if fit.model == "pl":
        return models.PlackettLuce(info.get("prior_scale", 1.0), kind=info.get("kind", "subset"))
    if fit.model == "bt":
        ties = "davidson" if info.get("ties") == "davidson" else "ignore"
        return models.BradleyTerry(
            info.get("prior_scale", 1.0), ties=ties, kind=info.get("kind", "subset")
        )
    if fit.model in ("mallows", "mallows_mixture"):
        prior = info.get("prior", "gamma")
        shape, rate = info.get("shape", 1.0), info.get("rate", 0.1)
        if "alpha_prior" in info:  # Metropolis–Hastings: α = nθ's prior, back to θ's
            shape = info["alpha_prior"]["shape"]
            rate = info["alpha_prior"]["rate"] * len(fit.systems)
        extra = {}
        if fit.model == "mallows_mixture":
            extra = {"clusters": int(info["clusters"]), "psi": float(info["psi"])}
        return models.Mallows(
            prior=prior,
            shape=shape,
            rate=rate,
            distance=info.get("distance", "kendall"),
            kind=info.get("kind", "subset"),
            **extra,
        )
    raise ValueError(f"no K-fold cross-validation for model {fit.model!r}")


def _settings(fit: Fit) -> dict[str, Any]:
    """The sampler settings of a sampled fit, for its refits."""
    if fit.method not in SAMPLED:
        return {"seed": fit.info.get("seed", 0)}
    keys = ("draws", "tune", "chains", "seed")
    out = {key: fit.info[key] for key in keys if key in fit.info}
    if fit.model not in ("mallows", "mallows_mixture"):
        for key in ("sampler", "target_accept"):
            if key in fit.info:
                out[key] = fit.info[key]
    elif fit.info.get("sampler") == "metropolis":
        out.update({key: fit.info[key] for key in ("sampler", "thin", "leap") if key in fit.info})
    return out


def _subset(rk: Rankings, keep: np.ndarray) -> Rankings:
    return Rankings(
        rk.ranks[keep],
        rk.systems,
        rk.rankers[keep],
        None if rk.groups is None else rk.groups[keep],
        rk.group_names,
    )


def _heldout(
    model: str, kind: str, ranks: np.ndarray, fit: Fit, plug_in: bool
) -> tuple[np.ndarray, float]:
    """``(S, L)`` log-likelihood of the held-out rankings at every draw (or the optimum), and
    the largest Monte Carlo standard error among them (0 when every value is exact)."""
    values = fit.point() if plug_in else fit.draws()
    if model == "pl":
        return pointwise.pl_rankings(ranks, kind, values["log_worth"]), 0.0
    if model == "bt":
        tie = values.get("log_tie")
        return pointwise.bt_rankings(ranks, kind, values["log_worth"], tie), 0.0
    from rankstats.core.permutations.marginal import marginal_likelihood
    from rankstats.models.mallows.mixture_fit import mixture_marginal

    n = ranks.shape[1]
    distance = fit.info.get("distance", "kendall")
    alpha = values["alpha"] if "alpha" in values else values["theta"] * n
    if fit.model == "mallows_mixture":
        rho = np.rint(values["position"]).astype(np.int64)
        found = mixture_marginal(ranks, alpha, values["weight"], rho, distance, kind)
    else:  # the positions of a sampled or Kemeny consensus: whole numbers
        rho = np.rint(values["position"]).astype(np.int64)
        found = marginal_likelihood(ranks, rho, alpha, distance, kind=kind)
    se = float(found.standard_error.max()) if found.estimated.any() else 0.0
    return found.log_likelihood, se


def _log_mean_exp(values: np.ndarray) -> np.ndarray:
    top = values.max(axis=0)
    safe = np.where(np.isfinite(top), top, 0.0)
    return safe + np.log(np.mean(np.exp(values - safe), axis=0))


def kfold(
    fit_or_model: Any,
    data: Any,
    k: int = 10,
    seed: int | None = 0,
    method: str | None = None,
    folds: np.ndarray | None = None,
    **fit_options: Any,
) -> KFoldResult:
    r"""K-fold cross-validation (elpd by refitting) of a rank model on ``data``.

    Parameters
    ----------
    fit_or_model : Fit or model
        A fitted model (refitted with its family, prior, reading of partial rankings, method
        and sampler settings) or a model object (``PlackettLuce()``, ``BradleyTerry()``,
        ``Mallows()``; then ``method`` is required).
    data : Rankings or Scores
        The rankings the model is (or would be) fitted to; one unit = one ranking.
    k : int
        Number of folds (``2 ≤ k ≤ n``; ``k = n``: leave-one-out by refitting).
    seed : int or None
        Seeds the random split into folds.
    method : str, optional
        Fitting method of the refits (default: the fit's).
    folds : array of int, optional
        Explicit fold of every ranking (e.g. one fold per task), instead of a random split.
    **fit_options
        Passed to every refit (e.g. ``draws=``, ``tune=``, ``chains=``).

    Returns
    -------
    KFoldResult
        ``elpd``, ``se``, ``elpd_i`` (per ranking), ``folds``, ``estimate`` (``"posterior"``:
        log-mean-exp over the refit's draws; ``"plug-in"``: at the refitted optimum).

    Raises
    ------
    InvalidRankingsError
        A fold holds every ranking of a system (the refit has no data on it; use fewer folds),
        or a Mallows held-out sub-ranking of more than two systems (no closed-form likelihood).

    References
    ----------
    Vehtari, Gelman & Gabry (2017), *Practical Bayesian model evaluation using leave-one-out
    cross-validation and WAIC*, Statistics and Computing 27, 1413–1432, sec. 4.

    Examples
    --------
    >>> import rankstats as rs
    >>> rk = rs.load_rankings("salad")
    >>> cv = rs.models.kfold(rs.models.PlackettLuce(), rk, k=4, seed=0, method="map")
    >>> cv.estimate, cv.n_units
    ('plug-in', 32)
    """
    count("k", k, 2)
    random_seed("seed", seed)
    model, method, options = _refit_settings(fit_or_model, method, fit_options)
    if not isinstance(data, Rankings):
        data = as_rankings(data)
    name = getattr(model, "name", "mallows")
    kind = getattr(model, "kind", "subset")
    keep = pointwise.informative(data.ranks, kind)
    rk = _subset(data, keep) if not keep.all() else data
    n = rk.n_rankings
    folds, k = _fold_ids(folds, keep, n, k, seed)
    plug_in = method not in SAMPLED
    observed = ~np.isnan(rk.ranks)
    elpd_i = np.empty(n)
    disconnected = unconverged = 0
    largest_se = 0.0
    for fold in range(k):
        test = folds == fold
        refit, converged = _refit(model, rk, test, fold, k, method, options)
        disconnected += int(refit.info.get("n_groups", 1) or 1) > 1
        unconverged += not converged
        values, se = _heldout(name, kind, rk.ranks[test], refit, plug_in)
        largest_se = max(largest_se, se)
        elpd_i[test] = values[0] if plug_in else _log_mean_exp(values)
    notes = _notes(k, disconnected, unconverged, largest_se, int((~keep).sum()))
    composite = name == "bt" and (observed.sum(axis=1).max() > 2 or kind == "top_k")
    labels = pointwise.labels(rk.rankers)
    return KFoldResult(
        model=name,
        method=method,
        elpd=float(elpd_i.sum()),
        se=float(np.sqrt(n * np.var(elpd_i))),
        elpd_i=pd.Series(elpd_i, index=labels, name="elpd_kfold"),
        folds=pd.Series(folds, index=labels, name="fold"),
        k=k,
        estimate="plug-in" if plug_in else "posterior",
        composite=bool(composite),
        notes=tuple(notes),
    )


def _refit_settings(fit_or_model: Any, method: str | None, fit_options: dict) -> tuple:
    """``(model, method, options)`` of the refits: a fit's own, overridden by the caller's."""
    if method is not None and not isinstance(method, str):
        raise TypeError(f"method must be a method name ('map', 'nuts', ...), not {method!r}")
    if isinstance(fit_or_model, Fit):
        options = {**_settings(fit_or_model), **fit_options}
        return _model_of(fit_or_model), method or fit_or_model.method, options
    if method is None:
        raise ValueError("give the fitting method of the refits (method='map', 'nuts', ...)")
    return fit_or_model, method, dict(fit_options)


def _fold_ids(
    folds: np.ndarray | None, keep: np.ndarray, n: int, k: int, seed: int | None
) -> tuple[np.ndarray, int]:
    """The fold (0, …, k − 1) of each kept ranking, random or given, and the number of folds."""
    if folds is None:
        return fold_ids(n, k, seed), k
    folds = np.asarray(folds)[keep] if len(folds) == len(keep) else np.asarray(folds)
    if len(folds) != n:
        raise ValueError(f"folds must give one fold per ranking ({n}), got {len(folds)}")
    folds = pd.factorize(folds, sort=True)[0]
    return folds, int(folds.max()) + 1


def _refit(
    model: Any, rk: Rankings, test: np.ndarray, fold: int, k: int, method: str, options: dict
) -> tuple[Any, bool]:
    """The model refitted without the ``test`` rankings, and whether it converged."""
    observed = ~np.isnan(rk.ranks)
    lost = observed[test].any(axis=0) & ~observed[~test].any(axis=0)
    if lost.any():
        names = [rk.systems[i] for i in np.flatnonzero(lost)]
        raise InvalidRankingsError(
            f"fold {fold + 1} of {k} holds every ranking of system(s) {preview(names)}: "
            "refitted without it, the model has no data on them; use fewer folds"
        )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            refit = model.fit(_subset(rk, ~test), method=method, progress=False, **options)
        except InvalidRankingsError as err:  # e.g. no MLE without this fold
            raise type(err)(f"refitted without fold {fold + 1} of {k}: {err}") from None
    return refit, not any(issubclass(w.category, ConvergenceWarning) for w in caught)


def _notes(k: int, disconnected: int, unconverged: int, largest_se: float, left_out: int):
    """What makes the estimate less than it looks, said in the result."""
    notes = []
    if disconnected:
        notes.append(
            f"{disconnected} of the {k} refits had systems in groups never compared with one "
            "another: their held-out rankings across groups are predicted by the prior alone"
        )
    if unconverged:
        notes.append(
            f"{unconverged} of the {k} refits did not converge (R-hat, ESS or divergences): "
            "their held-out terms are not reliable; refit with longer chains"
        )
    if largest_se > 0:
        notes.append(
            "some held-out Mallows likelihoods are importance-sampling estimates of a sum over "
            f"compatible rankings (largest Monte Carlo standard error {largest_se:.3g} per "
            "value): the elpd is an estimate of an estimate, biased low by about half the "
            "variance"
        )
    if left_out:
        notes.append(
            f"{left_out} ranking(s) of fewer than two systems carry no choice and were left out"
        )
    return notes
