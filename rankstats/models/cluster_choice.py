r"""How many clusters of assessors? Mallows mixtures with ``K = 1, 2, …`` compared by PSIS-LOO
(or WAIC), next to BayesMallows' elbow of the within-cluster distance — or, fast, maximum-likelihood
mixtures by EM (:func:`rankstats.models.mallows_em`) compared by BIC or ICL (``method="em"``).

Whichever the criterion, a best ``K`` at an end of the grid is no answer to "how many": the
criterion may still improve beyond it. :func:`choose_clusters` then says so in the result
(:attr:`ClusterChoice.at_edge`, its notes and ``repr``) and warns (:class:`EdgeOfGridWarning`).

Each ``K`` is fitted with the same sampler (:mod:`rankstats.models.mallows.mixture_fit`; ``K =
1`` is the one-cluster mixture, the plain Mallows model), and the fits are compared by
:func:`~rankstats.models.compare_fits` on each ranking's mixture likelihood
:math:`\log \sum_k \tau_k P(R_j \mid \rho_k, \alpha_k)` — the expected log predictive density
of a new assessor's ranking, the criterion of Vehtari, Gelman & Gabry (2017). The *elbow*
(Vitelli et al. 2018, Sec. 4.3; BayesMallows' ``plot_elbow``) is the posterior mean of the
within-cluster distance :math:`\sum_j d(R_j, \rho_{z_j})`: it always falls as ``K`` grows, and
the ``K`` after which it stops falling fast is its choice — a judgement by eye, which the LOO
table turns into a number with a standard error.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from rankstats._util.renamed import translate
from rankstats.core.preferences import AssessorPreferences
from rankstats.core.rankings import Rankings
from rankstats.core.scores import Scores


class EdgeOfGridWarning(UserWarning):
    """The best number of clusters is the largest (or, from ``K > 1``, the smallest) tried."""


@dataclass(frozen=True, eq=False)
class ClusterChoice:
    r"""Mixtures with several numbers of clusters, compared.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per ``K`` (index ``clusters``): ``elpd`` and its ``se`` (LOO or WAIC),
        ``elpd_diff`` and ``dse`` (to the best ``K``), ``p`` (effective number of parameters),
        ``within`` and ``within_sd`` (posterior mean and sd of the within-cluster distance, the
        elbow), ``converged`` (R-hat ≤ 1.01 and ESS ≥ 400). With ``method="em"``:
        ``log_likelihood``, ``bic``, ``icl`` (lower is better), ``p`` (parameters ``2K − 1``),
        ``within`` (the expected within-cluster distance :math:`\sum_j \sum_k r_{jk}
        d(R_j, \rho_k)`), ``starts_at_best`` (starts that reached the best ℓ) and
        ``converged`` (EM's stopping rule met).
    best : int or None
        The ``K`` of highest ``elpd`` among the fits that converged — an unconverged fit's elpd
        is not to be read (None for the elbow alone, whose choice is the reader's, and when no
        fit converged). With ``method="em"``: the ``K`` of lowest BIC (or ICL).
    fits : dict
        ``{K: fit}`` (a :class:`~rankstats.models.MallowsMixtureFit` each, or a
        :class:`~rankstats.models.MallowsEMFit`).
    ic : str
        ``"loo"``, ``"waic"``, ``"bic"``, ``"icl"`` or ``"elbow"``.
    notes : list of str
        The comparison's warnings (Pareto k, unconverged fits, the edge of the grid).
    at_edge : {"upper", "lower"} or None
        ``"upper"``: the best ``K`` is the largest tried — try more clusters; ``"lower"``: the
        smallest tried, which is above 1 — try fewer.
    method : str
        ``"mcmc"`` or ``"em"``.
    """

    table: pd.DataFrame
    best: int | None
    fits: dict = field(repr=False)
    ic: str = "loo"
    notes: list = field(default_factory=list)
    at_edge: str | None = None
    method: str = "mcmc"

    def __repr__(self) -> str:
        if self.method == "em":
            return self._em_repr()
        shown = self.table.copy()
        for c in ("elpd", "se", "elpd_diff", "dse", "p", "within", "within_sd"):
            shown[c] = [format(v, ".2f") for v in shown[c]]
        unconverged = [str(k) for k in self.table.index[~self.table["converged"]]]
        caveat = f", K = {', '.join(unconverged)} not converged" if unconverged else ""
        if self.ic == "elbow":
            head = "ClusterChoice(the elbow: `within`; no information criterion)"
        elif self.best is None:
            head = f"ClusterChoice({self.ic.upper()}: no fit converged; the elbow: `within`)"
        else:
            head = (
                f"ClusterChoice({self.ic.upper()}: best converged K = {self.best}{caveat}; "
                "the elbow: `within`)"
            )
        lines = [head, shown.to_string()]
        lines += [f"note: {n}" for n in self.notes]
        return "\n".join(lines)

    def _em_repr(self) -> str:
        shown = self.table.copy()
        for c in ("log_likelihood", "bic", "icl", "within"):
            shown[c] = [format(v, ".2f") for v in shown[c]]
        edge = {"upper": " (the largest K tried)", "lower": " (the smallest K tried)"}
        head = (
            f"ClusterChoice(EM, {self.ic.upper()}: best K = {self.best}"
            f"{edge.get(self.at_edge, '')}; lower is better)"
        )
        return "\n".join([head, shown.to_string()] + [f"note: {n}" for n in self.notes])

    def plot(self):
        """Two panels against ``K``: the elpd with ±1 se bars (higher is better), and the
        elbow — the posterior mean within-cluster distance with ±1 sd."""
        from matplotlib.figure import Figure

        k = self.table.index.to_numpy()
        fig = Figure(figsize=(8.0, 3.4))
        left, right = fig.subplots(1, 2)
        if self.method == "em":
            return self._em_plot(fig, left, right, k)
        left.errorbar(k, self.table["elpd"], yerr=self.table["se"], marker="o", capsize=3)
        if self.best is not None:
            left.axvline(self.best, color="0.7", linestyle="--", linewidth=1)
        left.set_xlabel("clusters K")
        left.set_ylabel(f"elpd ({self.ic.upper()})")
        left.set_title("predictive accuracy (higher is better)", fontsize=10)
        right.errorbar(k, self.table["within"], yerr=self.table["within_sd"], marker="o", capsize=3)
        right.set_xlabel("clusters K")
        right.set_ylabel("within-cluster distance")
        right.set_title("elbow", fontsize=10)
        for ax in (left, right):
            ax.set_xticks(k)
        fig.tight_layout()
        return fig

    def _em_plot(self, fig, left, right, k):
        for column in ("bic", "icl"):
            left.plot(k, self.table[column], marker="o", label=column.upper())
        if self.best is not None:
            left.axvline(self.best, color="0.7", linestyle="--", linewidth=1)
        left.legend()
        left.set_xlabel("clusters K")
        left.set_title("BIC and ICL (lower is better)", fontsize=10)
        right.plot(k, self.table["within"], marker="o")
        right.set_xlabel("clusters K")
        right.set_ylabel("expected within-cluster distance")
        right.set_title("elbow", fontsize=10)
        for ax in (left, right):
            ax.set_xticks(k)
        fig.tight_layout()
        return fig


#: :func:`choose_clusters`' default cap of each fit's automatic extension, in multiples of
#: ``draws``.
EXTEND = 4
#: What :func:`choose_clusters` passes to every fit.
FIT_OPTIONS = (
    "draws",
    "tune",
    "thin",
    "chains",
    "seed",
    "progress",
    "max_draws",
    "n_jobs",
    "leap",
    "em_start",
)
#: What :func:`choose_clusters` passes to every EM fit (``method="em"``).
EM_OPTIONS = ("starts", "seed", "max_iter", "tol")


def choose_clusters(
    data: Rankings | Scores | AssessorPreferences,
    clusters: Iterable[int] = range(1, 6),
    *,
    distance: str = "footrule",
    ic: str | None = "auto",
    prior: str = "bayesmallows",
    psi: float = 10.0,
    kind: str = "subset",
    method: str = "mcmc",
    **fit_options: Any,
) -> ClusterChoice:
    """Fit a Mallows mixture for every ``K`` in ``clusters`` and compare them.

    Parameters
    ----------
    data : Rankings, Scores or AssessorPreferences
        As :meth:`rankstats.models.Mallows.fit`. LOO / WAIC need each ranking's likelihood:
        complete rankings (their marginal for partial data where
        :mod:`rankstats.models.pointwise_likelihood` computes it); otherwise use the elbow
        alone (``ic=None``). ``method="em"``: complete rankings without ties (a
        :class:`~rankstats.Rankings` or a rank matrix).
    clusters : iterable of int
        The numbers of clusters (each ≥ 1, at most the number of rankings).
    distance, prior, psi, kind
        As :class:`rankstats.models.Mallows` (default: BayesMallows' footrule and priors;
        ``method="em"`` uses ``distance`` only).
    ic : {"auto", "loo", "waic", "bic", "icl", None}
        The criterion: ``"auto"`` is LOO for ``method="mcmc"`` and BIC for ``"em"``; ``None``:
        the elbow only (MCMC).
    method : {"mcmc", "em"}
        ``"mcmc"``: the Bayesian mixtures (:meth:`rankstats.models.Mallows.fit`);
        ``"em"``: maximum-likelihood mixtures by EM (:func:`rankstats.models.mallows_em`),
        seconds where the sampler takes minutes to hours.
    **fit_options
        Passed to every fit. MCMC: ``draws``, ``tune``, ``thin``, ``chains``, ``seed``,
        ``progress``, ``max_draws``, ``n_jobs``, ``leap``, and ``em_start`` (``True``: every
        chain starts at the EM estimate of its ``K`` and the draws are numbered as its
        clusters; complete rankings without ties); ``max_draws`` defaults to
        :data:`EXTEND` × ``draws`` here, not 20 ×: a mixture with more clusters than the data
        hold rarely converges (two clusters share a consensus, or one is empty), and would
        otherwise run to the cap; it is reported as not converged, in the table and the notes.
        EM: ``starts``, ``seed``, ``max_iter``, ``tol``.

    Returns
    -------
    ClusterChoice

    Warns
    -----
    EdgeOfGridWarning
        The best ``K`` is the largest of ``clusters`` (or the smallest, when it is above 1).
    """
    ks = sorted({int(k) for k in clusters})
    if not ks or ks[0] < 1:
        raise ValueError(f"clusters must be whole numbers ≥ 1, not {list(clusters)!r}")
    if method not in ("mcmc", "em"):
        raise ValueError(f"method must be 'mcmc' or 'em', not {method!r}")
    allowed = ("auto", "bic", "icl") if method == "em" else ("auto", "loo", "waic", None)
    if ic not in allowed:
        raise ValueError(f"with method={method!r}, ic must be one of {allowed}, not {ic!r}")
    if method == "em":
        unknown = set(fit_options) - set(EM_OPTIONS)
        if unknown:
            raise TypeError(f"unknown EM options {sorted(unknown)}; use {', '.join(EM_OPTIONS)}")
        choice = _em_choice(data, ks, distance, "bic" if ic == "auto" else ic, fit_options)
    else:
        choice = _mcmc_choice(
            data, ks, distance, "loo" if ic == "auto" else ic, prior, psi, kind, fit_options
        )
    return _mark_edge(choice, ks)


def _mcmc_choice(
    data, ks: list[int], distance: str, ic: str | None, prior, psi, kind, fit_options: dict
) -> ClusterChoice:
    """:func:`choose_clusters` by the Bayesian mixtures, compared by LOO / WAIC."""
    from rankstats.models.mallows.mixture_fit import fit_model_mixture
    from rankstats.models.mallows.model import Mallows
    from rankstats.models.model_comparison import compare_fits

    fit_options = translate(
        fit_options, {"cores": "n_jobs", "progressbar": "progress"}, "choose_clusters"
    )
    unknown = set(fit_options) - set(FIT_OPTIONS)
    if unknown:
        raise TypeError(f"unknown fit options {sorted(unknown)}; use {', '.join(FIT_OPTIONS)}")
    draws = fit_options.get("draws", 1000)
    fits = {}
    notes: list[str] = []
    for k in ks:
        # K = 1 too through the mixture sampler: the one-cluster mixture records `within`.
        model = Mallows(distance=distance, kind=kind, prior=prior, clusters=k, psi=psi)
        prepared = model._prepare(data)
        start = {}
        if fit_options.get("em_start", False):
            from rankstats.models.mallows.em import mallows_em

            start["start"] = mallows_em(
                prepared, k, distance=distance, seed=fit_options.get("seed", 0)
            )
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fits[k] = fit_model_mixture(
                model,
                prepared,
                **start,
                draws=draws,
                tune=fit_options.get("tune"),
                chains=fit_options.get("chains", 4),
                seed=fit_options.get("seed", 0),
                progress=fit_options.get("progress", True),
                max_draws=fit_options.get("max_draws", EXTEND * draws),
                n_jobs=fit_options.get("n_jobs"),
                thin=fit_options.get("thin"),
                leap=fit_options.get("leap", 1),
            )
        for w in caught:  # recorded in the notes, and still shown
            notes.append(f"K = {k}: {w.message}")
            warnings.warn(w.message, w.category, stacklevel=3)
    rows = {}
    for k, fit in fits.items():
        within = fit.draws()["within"]
        rows[k] = {
            "within": float(within.mean()),
            "within_sd": float(within.std(ddof=1)) if len(within) > 1 else 0.0,
            "converged": not fit.info["convergence_problems"],
        }
    table = pd.DataFrame.from_dict(rows, orient="index")
    best = None
    if ic is not None and len(fits) >= 2:
        comparison = compare_fits({f"K={k}": fit for k, fit in fits.items()}, ic=ic)
        ranked = comparison.table.rename(index=lambda name: int(name.split("=")[1]))
        for column in ("elpd", "se", "elpd_diff", "dse", "p"):
            table[column] = ranked[column].reindex(table.index)
        notes += list(comparison.notes)
        best = best_converged(ranked["elpd"], table["converged"])
    else:
        for column in ("elpd", "se", "elpd_diff", "dse", "p"):
            table[column] = np.nan
    table = table[["elpd", "se", "elpd_diff", "dse", "p", "within", "within_sd", "converged"]]
    table.index.name = "clusters"
    return ClusterChoice(table=table, best=best, fits=fits, ic=ic or "elbow", notes=notes)


def _em_choice(data, ks: list[int], distance: str, ic: str, options: dict) -> ClusterChoice:
    """:func:`choose_clusters` by EM, compared by BIC or ICL."""
    from rankstats.core.permutations.distances import rank_distance
    from rankstats.models.mallows.em import mallows_em

    if isinstance(data, Scores):
        data = Rankings.from_scores(data)
    fits, rows, notes = {}, {}, []
    for k in ks:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fit = mallows_em(data, k, distance=distance, **options)
        for w in caught:
            notes.append(f"K = {k}: {w.message}")
            warnings.warn(w.message, w.category, stacklevel=3)
        ranks = np.rint(data.ranks if isinstance(data, Rankings) else np.asarray(data))
        d = np.stack([rank_distance(ranks, rho, distance) for rho in fit.consensus], axis=1)
        fits[k] = fit
        rows[k] = {
            "log_likelihood": fit.log_likelihood,
            "bic": fit.bic,
            "icl": fit.icl,
            "p": fit.n_parameters,
            "within": float((fit.responsibilities * d).sum()),
            "starts_at_best": fit.starts_at_best,
            "converged": fit.converged,
        }
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "clusters"
    best = int(table[ic].idxmin())
    return ClusterChoice(table=table, best=best, fits=fits, ic=ic, notes=notes, method="em")


def _mark_edge(choice: ClusterChoice, ks: list[int]) -> ClusterChoice:
    """``choice`` with :attr:`ClusterChoice.at_edge` set, a note and an
    :class:`EdgeOfGridWarning` when its best ``K`` is an end of the grid."""
    from dataclasses import replace

    best = choice.best
    if best is None or len(ks) < 2:
        return choice
    edge = None
    if best == ks[-1]:
        edge = "upper"
        message = (
            f"the best number of clusters, K = {best}, is the largest tried: the criterion "
            f"may improve further; try clusters beyond {best}"
        )
    elif best == ks[0] and best > 1:
        edge = "lower"
        message = (
            f"the best number of clusters, K = {best}, is the smallest tried: try fewer "
            "clusters (from K = 1)"
        )
    if edge is None:
        return choice
    warnings.warn(message, EdgeOfGridWarning, stacklevel=3)
    return replace(choice, at_edge=edge, notes=[*choice.notes, message])


def best_converged(elpd: pd.Series, converged: pd.Series) -> int | None:
    """The ``K`` of highest ``elpd`` among the converged fits (both indexed by ``K``), or None
    when none converged."""
    usable = elpd[converged.reindex(elpd.index).fillna(False).astype(bool)]
    return None if usable.empty else int(usable.idxmax())
