r"""Compare fitted rank models by their expected predictive accuracy: PSIS-LOO and WAIC.

:func:`compare_fits` estimates, for every fit, the expected log pointwise predictive density of
a new unit of data (``elpd``; a new *ranking*, or a new pair-count row for Bradley–Terry fitted
to paired counts) from the pointwise log-likelihood stored in the fit's ArviZ
``log_likelihood`` group (:mod:`rankstats.models.pointwise_likelihood`):

* ``ic="loo"`` — Pareto-smoothed importance-sampling leave-one-out cross-validation (Vehtari,
  Gelman & Gabry 2017; Vehtari et al. 2024), ArviZ's ``loo`` on both stacks (``arviz.loo`` of
  arviz 0.x, ``arviz_stats.loo`` re-exported by arviz 1.x).  Its Pareto :math:`\hat k`
  diagnostic flags units whose importance weights are too heavy-tailed for the estimate to be
  trusted (:math:`\hat k > 0.7`);
* ``ic="waic"`` — Watanabe's (2010) widely applicable information criterion, computed here
  (arviz 1.x dropped it in favour of PSIS-LOO) with the formulas of arviz 0.x's ``waic``:
  :math:`\text{elpd}_i = \log \overline{p(y_i \mid \theta)} - \operatorname{Var}\log p(y_i \mid
  \theta)`.

The comparison table (differences to the best fit with the standard error of the pointwise
differences, stacking weights of Yao et al. 2018) is built here from the pointwise values, with
the formulas of arviz 0.x's ``compare``, so that it is the same on both stacks.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy.optimize import Bounds, LinearConstraint, minimize

from rankstats._pymc import compat as _compat
from rankstats._pymc.convergence import SAMPLED
from rankstats._util.advice import Advice, AdviceError, Spelled, escape
from rankstats._util.arguments import count, random_seed
from rankstats.models import pointwise_likelihood as pointwise
from rankstats.models._fit import Fit

ICS = ("loo", "waic")
#: Pareto k above which a PSIS-LOO term is unreliable (Vehtari et al. 2024).
PARETO_K_MAX = 0.7


class LOOWarning(UserWarning):
    """The model comparison has a caveat: unreliable PSIS-LOO terms or a composite likelihood."""


class AdviceLOOWarning(Advice, LOOWarning):
    """A :class:`LOOWarning` whose advice names options (:mod:`rankstats._util.advice`)."""


def _issue(notes: list, stacklevel: int, described: tuple = ()) -> tuple[str, ...]:
    """Warn each caveat of ``notes`` (texts, or :class:`AdviceLOOWarning`) but those in
    ``described`` (K-fold's notes of what each estimate is: no warnings); their texts, for the
    result."""
    for note in notes:
        if not any(note is d for d in described):
            warning = note if isinstance(note, Warning) else LOOWarning(note)
            warnings.warn(warning, stacklevel=stacklevel + 1)
    return tuple(str(note) for note in notes)


@dataclass(frozen=True, eq=False, repr=False)
class ModelComparison:
    """The result of :func:`compare_fits`.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per fit, best first (index ``fit``, the names given): ``rank`` (0 = best),
        ``model``, ``elpd`` (estimated expected log predictive density of a new unit, summed
        over the units), ``se``, ``p`` (effective number of parameters, ``p_loo`` / ``p_waic``),
        ``elpd_diff`` (best − this), ``dse`` (standard error of that difference, from the
        pointwise differences), ``weight`` (stacking), ``pareto_k_high`` (units with Pareto
        k > 0.7; ``loo`` only, else ``<NA>``) and ``warning`` (ArviZ's flag).
    ic : str
        ``"loo"``, ``"waic"`` or ``"kfold"``.
    unit : str
        ``"ranking"`` or ``"comparison"``.
    n_units : int
    pointwise : pandas.DataFrame
        The pointwise elpd, units × fits.
    pareto_k : pandas.DataFrame or None
        Pareto k, units × fits (``loo``); 0 for a unit whose log-likelihood is the same at
        every draw (its leave-one-out term is exact; the Pareto fit would return inf).
    notes : tuple of str
        Caveats (also issued as :class:`LOOWarning`; for ``kfold`` also what the estimate
        is: posterior log-mean-exp or plug-in).
    kfold : dict
        ``{fit: KFoldResult}`` for ``ic="kfold"`` (folds, per-ranking values).
    """

    table: pd.DataFrame
    ic: str
    unit: str
    n_units: int
    pointwise: pd.DataFrame
    pareto_k: pd.DataFrame | None
    notes: tuple[str, ...] = ()
    kfold: dict = field(default_factory=dict)

    @property
    def best(self) -> str:
        """Name of the fit with the highest estimated elpd."""
        return str(self.table.index[0])

    def __repr__(self) -> str:
        t = self.table
        head = (
            f"ModelComparison(ic={self.ic!r}, {len(t)} fits, {self.n_units} {self.unit}s; "
            f"elpd = expected log predictive density of a new {self.unit})"
        )
        cols = ["rank", "model", "elpd", "se", "p", "elpd_diff", "dse", "weight"]
        if self.ic == "loo":
            cols.append("pareto_k_high")
        if self.ic == "kfold":  # no effective number of parameters
            cols.remove("p")
        shown = t[cols].copy()
        for c, spec in {"elpd": ".2f", "se": ".2f", "elpd_diff": ".2f"}.items():
            shown[c] = [format(v, spec) for v in shown[c]]
        if "p" in shown:
            shown["p"] = [format(v, ".2f") for v in shown["p"]]
        shown["dse"] = [format(v, ".2f") for v in shown["dse"]]
        shown["weight"] = [format(v, ".3f") for v in shown["weight"]]
        lines = [head, shown.to_string()]
        lines += [f"note: {n}" for n in self.notes]
        return "\n".join(lines)


def _ll(fit: Fit) -> tuple[np.ndarray, dict]:
    data = _compat.group(fit.idata, pointwise.GROUP)
    return data[pointwise.VARIABLE].to_numpy(), dict(data.attrs)


def _check(fits: Mapping[str, Fit]) -> dict[str, dict]:
    """The log_likelihood attributes of every fit, after refusing what cannot be compared."""
    if not isinstance(fits, Mapping) or len(fits) < 2:
        raise ValueError("compare_fits needs a dict of at least two fits, {name: fit}")
    attrs: dict[str, dict] = {}
    for name, fit in fits.items():
        if not isinstance(fit, Fit):
            raise TypeError(f"fit {name!r} is a {type(fit).__name__}, not a rankstats Fit")
        if fit.method not in SAMPLED or not _compat.has_group(fit.idata, pointwise.GROUP):
            reason = pointwise.missing_advice(fit)
            raise AdviceError(
                escape(f"cannot compare fit {name!r}: ") + reason.template, **reason.options
            )
        attrs[name] = dict(_compat.group(fit.idata, pointwise.GROUP).attrs)
    units = {name: a.get("unit") for name, a in attrs.items()}
    if len(set(units.values())) > 1:
        parts = "; ".join(
            f"{', '.join(n for n in units if units[n] == u)} per {u}"
            for u in dict.fromkeys(units.values())
        )
        raise ValueError(
            f"the fits predict different units ({parts}): an elpd per ranking and one per "
            "pair-count row are not comparable; fit every model to the same rankings"
        )
    hashes = {name: a.get("data_hash") for name, a in attrs.items()}
    if len(set(hashes.values())) > 1:
        groups = {}
        for name, h in hashes.items():
            fit = fits[name]
            n_units = _compat.group(fit.idata, pointwise.GROUP).sizes[units[name]]
            groups.setdefault(h, []).append(
                f"{name} ({n_units} {units[name]}s of {len(fit.systems)} systems)"
            )
        raise ValueError(
            "the fits were fitted to different data: "
            + " vs ".join(", ".join(g) for g in groups.values())
            + "; LOO / WAIC compare models of the same data only (same rankings, same systems)"
        )
    kinds = {name: a.get("kind") for name, a in attrs.items()}
    if len(set(kinds.values())) > 1:
        raise ValueError(
            "the fits read the partial rankings differently ("
            + ", ".join(f"{n}: {k}" for n, k in kinds.items())
            + "): a top-k list and a sub-ranking are different events, their likelihoods are "
            "not comparable; use the same kind for every model"
        )
    return attrs


def _reff(fit: Fit) -> float:
    """Relative efficiency of the draws (arviz 0.x's default: mean ESS of the posterior's
    variables over the number of draws), ignoring variables without an ESS (constant)."""
    posterior = _compat.group(fit.idata)
    n = posterior.sizes["chain"] * posterior.sizes["draw"]
    if posterior.sizes["chain"] == 1:
        return 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ess = _compat.diagnostics(posterior, which=("ess_bulk",))["ess_bulk"]
    values = np.concatenate([np.ravel(ess[v].to_numpy()) for v in ess.data_vars])
    values = values[np.isfinite(values)]
    return float(values.mean() / n) if len(values) else 1.0


def _waic(values: np.ndarray) -> dict:
    """WAIC of a ``(chain, draw, U)`` array, as arviz 0.x's ``az.waic`` (log scale)."""
    flat = values.reshape(-1, values.shape[-1])
    s = flat.shape[0]
    top = flat.max(axis=0)
    lppd = top + np.log(np.exp(flat - top).sum(axis=0)) - np.log(s)
    var = flat.var(axis=0)
    elpd_i = lppd - var
    return {
        "elpd": float(elpd_i.sum()),
        "se": float(np.sqrt(len(elpd_i) * np.var(elpd_i))),
        "p": float(var.sum()),
        "elpd_i": elpd_i,
        "pareto_k": None,
        "warning": bool(np.any(var > 0.4)),
    }


def _stacking(elpd_i: np.ndarray) -> np.ndarray:
    """Stacking weights (Yao et al. 2018), by the optimisation of arviz 0.x's ``compare``."""
    cols = elpd_i.shape[1]
    exp_i = np.exp(elpd_i - elpd_i.max(axis=1, keepdims=True))

    def score(w):
        return -np.sum(np.log(exp_i @ w))

    def gradient(w):
        return -np.sum(exp_i / (exp_i @ w)[:, None], axis=0)

    result = minimize(
        fun=score,
        x0=np.full(cols, 1.0 / cols),
        jac=gradient,
        bounds=Bounds(lb=np.zeros(cols), ub=np.ones(cols)),
        constraints=LinearConstraint(np.ones(cols), lb=1.0, ub=1.0),
    )
    weights = np.clip(result["x"], 0.0, 1.0)
    return weights / weights.sum()


def _loo(fit: Fit, values: np.ndarray, unit: str) -> dict:
    """PSIS-LOO of one fit (:func:`rankstats._pymc.compat.loo`), with the units whose
    log-likelihood is the same at every draw set aside.

    Such a unit (a ranking with every system tied: probability 1 under Mallows and Efron's
    Plackett–Luce) does not inform the posterior: its leave-one-out term is that constant,
    exactly, and its importance weights are all equal.  ArviZ cannot fit a Pareto tail to equal
    weights (arviz 0.x returns k = inf, flagging an exact term as unreliable; arviz 1.x raises
    "All tail values are the same"), so those units get ``elpd_i`` = the constant, k = 0 and
    no contribution to ``p``.
    """
    flat = values.reshape(-1, values.shape[-1])
    constant = np.all(flat == flat[:1], axis=0)
    if not constant.any():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # ArviZ's k warnings: one warning in compare_fits
            return _compat.loo(fit.idata, pointwise.VARIABLE, _reff(fit))
    n = flat.shape[1]
    elpd_i = flat[0].astype(np.float64).copy()
    pareto_k = np.zeros(n)
    p = 0.0
    if not constant.all():
        keep = np.flatnonzero(~constant)
        ll = _compat.group(fit.idata, pointwise.GROUP).isel({unit: keep})
        posterior = _compat.group(fit.idata)
        if _compat.DATATREE:
            import xarray as xr

            data = xr.DataTree.from_dict({"posterior": posterior, pointwise.GROUP: ll})
        else:
            data = _compat.az.InferenceData(posterior=posterior, log_likelihood=ll)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            part = _compat.loo(data, pointwise.VARIABLE, _reff(fit))
        elpd_i[keep] = part["elpd_i"]
        pareto_k[keep] = part["pareto_k"]
        p = part["p"]
    return {
        "elpd": float(elpd_i.sum()),
        "se": float(np.sqrt(n * np.var(elpd_i))),
        "p": float(p),
        "elpd_i": elpd_i,
        "pareto_k": pareto_k,
        "warning": bool(np.any(pareto_k > PARETO_K_MAX)),
    }


def compare_fits(
    fits: Mapping[str, Fit],
    ic: str = "loo",
    data: Any = None,
    k: int = 10,
    seed: int | None = 0,
) -> ModelComparison:
    r"""Compare fits of the same data by PSIS-LOO (default), WAIC or K-fold cross-validation.

    Parameters
    ----------
    fits : dict of str to Fit
        At least two fits with posterior draws (``method="nuts"`` for Plackett–Luce /
        Bradley–Terry, ``"mcmc"`` for Mallows) and the pointwise log-likelihood they store
        (every such fit made by this version of rankstats; the model-zoo files were saved
        without it).
    ic : {"loo", "waic", "kfold"}
        ``kfold``: K-fold cross-validation by refitting every fit ``k`` times on ``data``
        (:func:`rankstats.models.kfold`; the same seeded folds for every fit).  Where PSIS-LOO
        is refused or unreliable (Pareto k > 0.7), and for MAP / MLE fits (a *plug-in*
        estimate at the refitted optimum, labelled in the notes).
    data : Rankings or Scores
        ``kfold`` only: the rankings the fits were fitted to.
    k, seed : int
        ``kfold`` only: number of folds and the seed of the split.

    Returns
    -------
    ModelComparison
        ``.table`` (one row per fit, best first), ``.best``, ``.pointwise``, ``.pareto_k``.

    Raises
    ------
    ValueError
        A MAP / MLE fit (no posterior draws), a fit without a pointwise log-likelihood (say why:
        a zoo fit, a fit made by an older rankstats), fits whose units differ
        (per ranking vs per pair-count row), fits of different data (other rankings, other
        systems) or reading partial rankings differently (``kind``).

    Warns
    -----
    LOOWarning
        One warning naming the fits and the number of units with Pareto k > 0.7 (their
        PSIS-LOO terms are unreliable: K-fold cross-validation or moment matching would be
        needed), one when Bradley–Terry's composite likelihood of rankings of more than two
        systems is compared with a proper likelihood (its elpd is biased low), and one per fit
        whose pointwise log-likelihood is an importance-sampling estimate (a Mallows fit of
        sub-rankings: its Monte Carlo errors and the bias they give the elpd).

    Notes
    -----
    The unit is what is exchangeable: a ranking (Plackett–Luce; Mallows; Bradley–Terry fitted
    to rankings, whose per-ranking value is the sum over the ranking's pairs) or a pair-count row
    (Bradley–Terry fitted to paired counts).  Mallows contributes the marginal likelihood of
    each observed ranking (see :func:`rankstats.models.pointwise_likelihood.mallows_rankings`):
    exact for complete rankings, ties, top-k lists and small sub-rankings, an
    importance-sampling estimate for larger sub-rankings (the notes say how noisy).

    Examples
    --------
    >>> import rankstats as rs  # doctest: +SKIP
    >>> rk = rs.load_rankings("sushi")  # doctest: +SKIP
    >>> fits = {"pl": rs.models.PlackettLuce().fit(rk, sampler="pymc"),
    ...         "mallows": rs.models.Mallows().fit(rk)}  # doctest: +SKIP
    >>> rs.models.compare_fits(fits).table  # doctest: +SKIP
    """
    count("k", k, 2)
    random_seed("seed", seed)
    if ic not in (*ICS, "kfold"):
        raise ValueError(f"ic must be one of {(*ICS, 'kfold')}, not {ic!r}")
    if ic == "kfold":
        return _compare_kfold(fits, data, k, seed)
    if data is not None:
        raise AdviceError(
            "data is a K-fold option ({kfold}): LOO / WAIC use the fits alone",
            kfold=Spelled("ic='kfold'", "--kfold K"),
        )
    attrs = _check(fits)
    names = list(fits)
    first = _compat.group(fits[names[0]].idata, pointwise.GROUP)
    unit = str(attrs[names[0]]["unit"])
    units = [str(u) for u in first[unit].values]
    composite = [n for n in names if int(attrs[n].get("composite", 0))]
    notes = _composite_note(names, composite) + _estimate_notes(names, attrs, unit)
    results = {}
    for name in names:
        values, _ = _ll(fits[name])
        if ic == "waic":
            results[name] = _waic(values)
            continue
        results[name] = _loo(fits[name], values, unit)
    table, order, elpd_i = _table(fits, results)
    if ic == "loo":
        high = {n: int(table.loc[n, "pareto_k_high"]) for n in order}
        bad = {n: c for n, c in high.items() if c}
        if bad:
            notes.append(
                AdviceLOOWarning(
                    escape(
                        f"Pareto k > {PARETO_K_MAX} for "
                        + ", ".join(f"{c} {unit}(s) of {n}" for n, c in bad.items())
                        + ": the PSIS-LOO estimate of those fits is unreliable (one held-out "
                        f"{unit} changes the posterior too much); "
                    )
                    + "{remedy}",
                    remedy=Spelled(
                        "check with K-fold cross-validation (ic='kfold'), or longer chains",
                        "rerun with more --draws, or compare by K-fold cross-validation "
                        "(--kfold 10); the WAIC (--ic waic) fails in the same cases",
                    ),
                )
            )
    texts = _issue(notes, stacklevel=2)
    pareto = (
        pd.DataFrame({n: results[n]["pareto_k"] for n in order}, index=units)
        if ic == "loo"
        else None
    )
    return ModelComparison(
        table=table,
        ic=ic,
        unit=unit,
        n_units=len(units),
        pointwise=pd.DataFrame(elpd_i, index=units, columns=order),
        pareto_k=pareto,
        notes=texts,
    )


def _composite_note(names: list[str], composite: list[str]) -> list:
    if not composite or len(composite) == len(names):
        return []
    return [
        AdviceLOOWarning(
            escape(
                f"{', '.join(composite)}: Bradley–Terry's per-ranking log-likelihood of rankings "
                "of more than two systems is a composite (the sum over the ranking's pairs), not "
                "the log-probability of the ranking; it is biased low against the proper "
                f"likelihoods of {', '.join(n for n in names if n not in composite)}"
            )
            + "{remedy}",
            remedy=Spelled(
                "",
                " (compare bt with pl on --paired data, or read the bt row with that in mind)",
            ),
        )
    ]


def _estimate_notes(names: list[str], attrs: dict[str, dict], unit: str) -> list[str]:
    """The caveat of a fit whose pointwise log-likelihood is an importance-sampling estimate
    (a Mallows fit of sub-rankings; the group's attributes of
    :func:`~rankstats.models.pointwise_likelihood.estimate_attrs`), with its size: the values
    are noisy, the log of an unbiased estimate is biased down by half its variance, and
    PSIS-LOO / WAIC, which run on the values, inherit both — their elpd is low by about the sum
    over the units of the mean squared standard error (the noise enters LOO's weights 1/p̂ and
    WAIC's variance term)."""
    notes = []
    for name in names:
        a = attrs[name]
        if a.get("estimate") != "importance sampling":
            continue
        notes.append(
            f"{name}: the pointwise log-likelihood of {int(a['is_units'])} {unit}(s) is an "
            f"importance-sampling estimate ({int(a['is_samples'])} rankings per draw; Monte "
            f"Carlo s.e. up to {float(a['is_se_max']):.2g}, mean {float(a['is_se_mean']):.2g}): "
            "the log of an unbiased estimate is biased down by about half its variance, and "
            "PSIS-LOO / WAIC run on the noisy values, so the elpd is low by about "
            f"{float(a['is_bias']):.2g} (the sum over the {unit}s of the mean squared s.e.) and "
            "the Pareto k carry the noise too; more samples shrink both "
            "(pointwise_likelihood.add_to_fit)"
        )
    return notes


def _table(fits: Mapping[str, Fit], results: dict) -> tuple[pd.DataFrame, list, np.ndarray]:
    """The comparison table (best first), the order and the pointwise elpd (units × fits)."""
    order = sorted(results, key=lambda n: -results[n]["elpd"])
    elpd_i = np.column_stack([results[n]["elpd_i"] for n in order])
    weights = _stacking(elpd_i)
    best = elpd_i[:, 0]
    rows = []
    for k, name in enumerate(order):
        r = results[name]
        diff = best - elpd_i[:, k]
        rows.append(
            {
                "fit": name,
                "rank": k,
                "model": _model_label(fits[name]),
                "elpd": r["elpd"],
                "se": r["se"],
                "p": r["p"],
                "elpd_diff": float(diff.sum()),
                "dse": float(np.sqrt(len(diff) * np.var(diff))),
                "weight": float(weights[k]),
                "pareto_k_high": (
                    pd.NA if r["pareto_k"] is None else int(np.sum(r["pareto_k"] > PARETO_K_MAX))
                ),
                "warning": bool(r["warning"]),
            }
        )
    table = pd.DataFrame(rows).set_index("fit")
    table["pareto_k_high"] = table["pareto_k_high"].astype("Int64")
    return table, order, elpd_i


def _compare_kfold(fits: Mapping[str, Fit], data: Any, k: int, seed: int | None) -> ModelComparison:
    """``compare_fits(..., ic="kfold")``: :func:`rankstats.models.kfold` of every fit on the
    same seeded folds; ``p`` is NaN (no effective number of parameters without the full-data
    lpd), ``pareto_k_high`` NA."""
    from rankstats.models.cross_validation import ESTIMATES, kfold

    if not isinstance(fits, Mapping) or len(fits) < 2:
        raise ValueError("compare_fits needs a dict of at least two fits, {name: fit}")
    for name, fit in fits.items():
        if not isinstance(fit, Fit):
            raise TypeError(f"fit {name!r} is a {type(fit).__name__}, not a rankstats Fit")
    if data is None:
        raise ValueError(
            "ic='kfold' refits every model: give the rankings they were fitted to (data=)"
        )
    kinds = {n: f.info.get("kind", "subset") for n, f in fits.items() if f.model != "mallows"}
    if len(set(kinds.values())) > 1:
        raise ValueError(
            "the fits read the partial rankings differently ("
            + ", ".join(f"{n}: {kd}" for n, kd in kinds.items())
            + "): their likelihoods are not comparable; use the same kind for every model"
        )
    names = list(fits)
    cv = {n: kfold(fit, data, k=k, seed=seed) for n, fit in fits.items()}
    units = list(cv[names[0]].elpd_i.index)
    if any(list(c.elpd_i.index) != units for c in cv.values()):
        raise ValueError("the fits' held-out rankings differ: K-fold compares fits of one data set")
    results = {
        n: {
            "elpd": c.elpd,
            "se": c.se,
            "p": np.nan,
            "elpd_i": c.elpd_i.to_numpy(),
            "pareto_k": None,
            "warning": bool(c.notes),
        }
        for n, c in cv.items()
    }
    notes = _composite_note(names, [n for n in names if cv[n].composite])
    estimates = {n: c.estimate for n, c in cv.items()}
    described = []
    for estimate in dict.fromkeys(estimates.values()):
        which = [n for n in names if estimates[n] == estimate]
        described.append(
            f"K-fold ({cv[names[0]].k} folds, seed {seed}) of {', '.join(which)}: "
            + ESTIMATES[estimate]
        )
    notes += described
    if len(set(estimates.values())) > 1:
        notes.append(
            "plug-in and posterior estimates are compared: the plug-in ones ignore the "
            "uncertainty of the estimate (optimistic for a single ranking, pessimistic when "
            "the optimum is extreme)"
        )
    for n, c in cv.items():
        notes += [f"{n}: {note}" for note in c.notes]
    table, order, elpd_i = _table(fits, results)
    texts = _issue(notes, stacklevel=3, described=tuple(described))
    return ModelComparison(
        table=table,
        ic="kfold",
        unit="ranking",
        n_units=len(units),
        pointwise=pd.DataFrame(elpd_i, index=units, columns=order),
        pareto_k=None,
        notes=texts,
        kfold=cv,
    )


def _model_label(fit: Any) -> str:
    """The family, with the distance of a Mallows model that is not Kendall's and a mixture's
    clusters: ``mallows (footrule)``, ``mallows (footrule), 3 clusters``."""
    from rankstats._util.method_names import fit_key

    parts = fit_key(fit).split("_")
    if parts[0] != "mallows" or len(parts) == 1:
        return fit.model
    label = f"mallows ({parts[1]})"
    return label if len(parts) == 2 else f"{label}, {parts[2][: -len('clusters')]} clusters"
