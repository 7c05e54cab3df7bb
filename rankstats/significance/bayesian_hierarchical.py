r"""The Bayesian hierarchical comparison of two systems across tasks (Corani et al. 2017).

Corani, Benavoli, Demšar, Mangili and Zaffalon (2017) compare two systems ``a`` and ``b`` that
were evaluated on several instances (folds, runs, observations) of each of ``q`` tasks (the
paper's data sets). With :math:`x_{ij}` the difference ``a − b`` on instance ``j`` of task ``i``
(higher = better: lower-is-better tasks were negated by :class:`~rankstats.Scores`), the model is

.. math::

   \mathbf{x}_i &\sim \mathrm{MVN}\big(\delta_i \mathbf{1}_{n_i},\ \Sigma_i\big), \qquad
   \Sigma_i = \sigma_i^2\,\big((1-\rho) I_{n_i} + \rho\, J_{n_i}\big)
   \qquad (i = 1, \dots, q) \\
   \delta_i &\sim t(\nu, \delta_0, \sigma_0), \qquad
   \sigma_i \sim \mathrm{U}(0, \bar\sigma), \\
   \delta_0 &\sim \mathrm{U}(-m, m), \qquad \sigma_0 \sim \mathrm{U}(0, \bar\sigma_0), \qquad
   \nu - 1 \sim \mathrm{Gamma}(\alpha, \beta)\ (\text{shape, rate}), \\
   \alpha &\sim \mathrm{U}(1, 2), \qquad \beta \sim \mathrm{U}(0.01, 0.1),

``J`` the all-ones matrix and :math:`\rho \in [0, 1)` the correlation of two instances of one
task (0 for independent instances; :math:`1/k` for the folds of k-fold cross-validation,
Nadeau and Bengio 2003). :math:`\delta_i` is the mean difference on task ``i``, shrunk towards
the others; :math:`\delta_0, \sigma_0, \nu` describe the population of tasks.

**Rescaling** (as the paper's code and baycomp's ``HierarchicalTest``): the differences and the
ROPE are divided by :math:`s = \frac1q \sum_i \mathrm{sd}(\mathbf{x}_i)` (the mean within-task
standard deviation, ``ddof=0``), so that the bounds of the uniform priors are on one scale:
:math:`m = \max_{ij} |x_{ij}|/s`, :math:`\bar\sigma = 1000\, \frac1q\sum_i \mathrm{sd}
(\mathbf{x}_i/s) = 1000` and :math:`\bar\sigma_0 = 1000\, \mathrm{sd}_i(\bar x_i/s)`, the
spread of the task means (``ddof=0``; the within-task bound when the task means are all equal).
A task whose differences are all equal (:math:`\mathrm{sd} = 0`, e.g. two systems with identical
predictions) would put :math:`\sigma_i` on its lower bound 0: as in baycomp its differences are
replaced by its constant plus symmetric values ``±u`` (``u`` uniform on the rescaled ROPE, or on
±0.1 with ``rope=0``; seeded by ``seed``), which keeps its mean (baycomp also moves the mean to
0); such tasks are listed in ``result.parameters["constant_tasks"]``. Results are reported in
score units (:math:`\delta` times ``s``).

**The likelihood** uses the closed forms of the compound-symmetry matrix: with :math:`n = n_i`,
:math:`\bar x_i` the task mean and :math:`W_i = \sum_j (x_{ij} - \bar x_i)^2`,

.. math::

   \log p(\mathbf{x}_i \mid \delta_i, \sigma_i) = -\tfrac n2 \log 2\pi - n \log \sigma_i
   - \tfrac12\big[(n-1)\log(1-\rho) + \log(1 + (n-1)\rho)\big]
   - \frac{1}{2\sigma_i^2}\Big[\frac{W_i}{1-\rho} + \frac{n (\bar x_i - \delta_i)^2}
   {1 + (n-1)\rho}\Big],

so tasks may have different numbers of instances and the compiled graph depends only on ``q``.
:math:`\delta_i` is sampled directly (``parameterization="centered"``, as the paper's Stan
model) or as :math:`\delta_i = \delta_0 + \sigma_0 z_i` with :math:`z_i \sim t(\nu, 0, 1)`
(``"noncentered"``: the same distribution, better NUTS geometry when :math:`\sigma_0` is near
0); ``"auto"`` chooses by
:func:`~rankstats.significance.hierarchical_model.choose_parameterization`.

**The answer** is about the difference :math:`\delta_\text{new}` on a new task drawn from the
population, :math:`\delta_\text{new} \sim t(\nu, \delta_0, \sigma_0)`. For each posterior draw
:math:`\theta_a = P(\delta_\text{new} > r)`, :math:`\theta_b = P(\delta_\text{new} < -r)` and
:math:`\theta_\text{rope} = 1 - \theta_a - \theta_b` (Student-t CDFs).  **The reported
probabilities** (``result.probabilities``, ``p_a`` / ``p_rope`` / ``p_b``, the decision) are
those baycomp's ``HierarchicalTest.probs()`` publishes for this model: the posterior probability
of each region being the most probable one for the next task, i.e. the share of the posterior
draws in which its θ is the largest (baycomp's documented nbc vs j48 example, rope 1, gives
0.0795 / 0.0365 / 0.884; ``tests/significance/test_bayes_hierarchical.py`` reproduces it within
Monte Carlo error).  The posterior means of the θ, the posterior *predictive* probabilities that
:math:`\delta_\text{new}` falls in each region (0.28 / 0.25 / 0.47 on the same data), are kept
in ``result.predictive``, labelled as such: they answer "where will the difference on one new
task fall?", while the headline answers "which region is most probable for new tasks?".

This module holds the test and its result; the differences and their rescaling are
:mod:`rankstats.significance.hierarchical_data`, the PyMC graph and its convergence checks
:mod:`rankstats.significance.hierarchical_model`, the three-region answer (shared with the
signed-rank test) :mod:`rankstats.significance.three_regions` and the figure
:mod:`rankstats.significance.simplex_plot`.

References
----------
Corani, G., Benavoli, A., Demšar, J., Mangili, F. and Zaffalon, M. (2017). Statistical
comparison of classifiers through Bayesian hierarchical modelling. *Machine Learning* 106,
1817–1837.

Benavoli, A., Corani, G., Demšar, J. and Zaffalon, M. (2017). Time for a change: a tutorial for
comparing multiple classifiers through Bayesian analysis. *Journal of Machine Learning Research*
18(77), 1–36 (Section 5).

Nadeau, C. and Bengio, Y. (2003). Inference for the generalization error. *Machine Learning* 52,
239–281.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from scipy import stats

from rankstats._pymc.settings import NutsSettings
from rankstats._util.advice import AdviceError, escape
from rankstats._util.arguments import probability
from rankstats._util.parallel import resolve_n_jobs
from rankstats._util.renamed import grouped_parameters, renamed_parameters
from rankstats._util.text import shorten, terminal
from rankstats.core.scores import Scores
from rankstats.errors import InvalidScoresError, preview
from rankstats.significance.hierarchical_data import pair_differences, prepare
from rankstats.significance.hierarchical_model import (
    ALPHA_BOUNDS,
    BETA_BOUNDS,
    PARAMETERIZATIONS,
    NutsRun,
    choose_parameterization,
    diagnose,
)
from rankstats.significance.missing_words import COMPLETE, check_missing
from rankstats.significance.simplex_plot import simplex_figure
from rankstats.significance.three_regions import (
    OUTCOMES,
    ThreeRegions,
    check_rope,
    check_threshold,
    region_shares,
)

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: The treatments of a task where the pair shares fewer than 2 instances (the one vocabulary of
#: :mod:`rankstats.significance.missing_words`; scores are never imputed).
MISSING = COMPLETE


@renamed_parameters(samples="draws")
@dataclass(frozen=True, eq=False, repr=False)
class BayesHierarchical(ThreeRegions):
    r"""Result of :func:`bayes_hierarchical`.

    Attributes
    ----------
    a, b : str
        The two systems; differences are ``a − b`` (higher = better).
    rope : float
        Half-width ``r`` of the region of practical equivalence, in score units.
    rho : float
        Correlation :math:`\rho` of two instances of one task.
    differences : pandas.DataFrame
        ``task``, ``instance``, ``difference``: the data used (instances where both were scored).
    dropped : pandas.DataFrame
        ``task``, ``n_shared``: tasks left out with ``missing="complete-case"`` (fewer than 2 shared
        instances); empty otherwise.
    draws : numpy.ndarray
        ``(S, 3)`` posterior draws of :math:`(\theta_a, \theta_\text{rope}, \theta_b)`, the
        probabilities of the three regions for :math:`\delta_\text{new}` given each draw.
    probabilities : dict
        ``{"a", "rope", "b"}``: the published quantity (baycomp's ``probs()``, Corani et al.
        2017): the shares of the posterior draws in which each θ is the largest, i.e. the
        posterior probability that the region is the most probable one for a new task (the
        regions of the simplex figure). :attr:`decision` reads them.
    predictive : dict
        ``{"a", "rope", "b"}``: the posterior predictive probabilities that the difference on a
        new task falls in each region (the means of ``draws``).
    delta_new : numpy.ndarray
        ``S`` draws of :math:`\delta_\text{new} \sim t(\nu, \delta_0, \sigma_0)`, score units.
    idata : arviz.InferenceData or xarray.DataTree
        The PyMC sample; ``delta0``, ``sigma0``, ``delta`` and ``sigma`` (dimension ``task``)
        are in score units, the ``*_std`` variables in rescaled units.
    diagnostics : dict
        ``max_r_hat``, ``min_ess_bulk``, ``divergences``, ``converged`` and ``problems``
        (sentences; empty when converged).
    scale : float
        The rescaling constant ``s`` (mean within-task standard deviation).
    threshold : float
        Posterior probability needed for :attr:`decision` / :attr:`claim`.
    parameters : dict
        Every setting: draws, tune, chains, seed, sampler, target_accept, missing, bounds.
    """

    a: str
    b: str
    rope: float
    rho: float
    differences: pd.DataFrame
    dropped: pd.DataFrame
    draws: np.ndarray
    probabilities: dict
    predictive: dict
    delta_new: np.ndarray
    idata: Any
    diagnostics: dict
    scale: float
    threshold: float
    parameters: dict = field(default_factory=dict)

    @property
    def shares(self) -> dict:
        """:attr:`probabilities` (the shares of the draws in which each θ is the largest)."""
        return self.probabilities

    @property
    def tasks(self) -> list[str]:
        """The tasks used, in model order."""
        return list(pd.unique(self.differences["task"]))

    @property
    def n_tasks(self) -> int:
        return len(self.tasks)

    @property
    def n(self) -> int:
        """Number of differences (instances over all tasks) used."""
        return len(self.differences)

    @property
    def converged(self) -> bool:
        """Whether R-hat ≤ 1.01, bulk ESS ≥ 400 and no divergent transition."""
        return bool(self.diagnostics["converged"])

    def _posterior(self, name: str) -> np.ndarray:
        from rankstats._pymc import compat as _compat

        values = _compat.group(self.idata)[name].to_numpy()
        return values.reshape(-1, *values.shape[2:])

    @renamed_parameters(level="ci_prob")
    def table(self, ci_prob: float = 0.95) -> pd.DataFrame:
        """One row per outcome: ``outcome`` (``a``, ``rope``, ``b``), ``system`` (None for the
        ROPE), ``region`` (of the difference ``a − b`` on a new task), ``probability`` (the
        published quantity: share of the draws where its θ is the largest), ``predictive``
        (posterior predictive probability of the region), the posterior ``theta_mean`` and its
        central ``ci_prob`` interval (``theta_low``, ``theta_high``)."""
        probability("ci_prob", ci_prob)
        q = [(1 - ci_prob) / 2, (1 + ci_prob) / 2]
        low, high = np.quantile(self.draws, q, axis=0)
        r = f"{self.rope:g}"
        return pd.DataFrame(
            {
                "outcome": list(OUTCOMES),
                "system": pd.Series([self.a, None, self.b], dtype=object),
                "region": [f"δ_new > {r}", f"|δ_new| ≤ {r}", f"δ_new < −{r}"],
                "probability": [self.probabilities[k] for k in OUTCOMES],
                "predictive": [self.predictive[k] for k in OUTCOMES],
                "theta_mean": self.draws.mean(axis=0),
                "theta_low": low,
                "theta_high": high,
            }
        )

    @renamed_parameters(level="ci_prob")
    def task_table(self, ci_prob: float = 0.95) -> pd.DataFrame:
        """One row per task: ``task``, ``n`` (instances), ``mean_difference`` (observed),
        the shrunk posterior ``delta_mean`` with its central ``ci_prob`` interval
        (``delta_low``, ``delta_high``), and ``sigma_mean`` (within-task standard deviation);
        then one row ``task = "(new task)"`` for :math:`\\delta_\\text{new}` and one
        ``"(population mean δ0)"``. Score units."""
        probability("ci_prob", ci_prob)
        q = [(1 - ci_prob) / 2, (1 + ci_prob) / 2]
        delta = self._posterior("delta")
        sigma = self._posterior("sigma")
        grouped = self.differences.groupby("task", sort=False, observed=True)["difference"]
        low, high = np.quantile(delta, q, axis=0)
        rows = pd.DataFrame(
            {
                "task": self.tasks,
                "n": grouped.size().reindex(self.tasks).to_numpy(),
                "mean_difference": grouped.mean().reindex(self.tasks).to_numpy(),
                "delta_mean": delta.mean(axis=0),
                "delta_low": low,
                "delta_high": high,
                "sigma_mean": sigma.mean(axis=0),
            }
        )
        extra = []
        for name, draws in (
            ("(new task)", self.delta_new),
            ("(population mean δ0)", self._posterior("delta0")),
        ):
            lo, hi = np.quantile(draws, q)
            extra.append(
                {
                    "task": name,
                    "n": np.nan,
                    "mean_difference": np.nan,
                    "delta_mean": float(np.mean(draws)),
                    "delta_low": lo,
                    "delta_high": hi,
                    "sigma_mean": np.nan,
                }
            )
        return pd.concat([rows, pd.DataFrame(extra)], ignore_index=True)

    def plot(self) -> Figure:
        """The posterior draws of :math:`(\\theta_a, \\theta_\\text{rope}, \\theta_b)` in the
        simplex, as :meth:`BayesSignedRank.plot
        <rankstats.significance.bayesian_signed_rank.BayesSignedRank. plot>`; the vertices show
        :attr:`probabilities` (the shares of the draws in each region)."""
        s = self.predictive
        return simplex_figure(
            self,
            title=f"Bayesian hierarchical test, {self.n_tasks} tasks, {self.n} instances "
            f"(ρ = {self.rho:g})",
            note=f"P = share of the posterior draws in the region (baycomp); posterior "
            f"predictive for a new task: {s['a']:.3f}, {s['rope']:.3f}, {s['b']:.3f}",
        )

    def __repr__(self) -> str:
        p, d, q = self.probabilities, self.diagnostics, self.predictive
        a, b = terminal(shorten(self.a, 40)), terminal(shorten(self.b, 40))
        dropped = f", {len(self.dropped)} task(s) dropped" if len(self.dropped) else ""
        delta0 = self._posterior("delta0")
        lo, hi = np.quantile(delta0, [0.025, 0.975])
        par = self.parameters
        if d["converged"]:
            verdict = "converged"
        else:
            verdict = "NOT CONVERGED (" + "; ".join(d["problems"]) + ")"
        return "\n".join(
            [
                f"BayesHierarchical({a} vs {b}: {self.n_tasks} tasks, {self.n} instances"
                f"{dropped}, rho = {self.rho:g}, rope ±{self.rope:g}, {par['chains']} chains × "
                f"{par['draws']} draws)",
                f"  P({a} better) = {p['a']:.4f}   P(rope) = {p['rope']:.4f}   "
                f"P({b} better) = {p['b']:.4f}  (posterior probability of the most probable "
                "region for a new task, as baycomp)",
                f"  posterior predictive for the difference on one new task: {q['a']:.4f} / "
                f"{q['rope']:.4f} / {q['b']:.4f}",
                f"  mean difference across tasks δ0 = {float(np.mean(delta0)):.4g} "
                f"[{lo:.4g}, {hi:.4g}] (95 %)",
                f"  convergence: {verdict}: max R-hat = {d['max_r_hat']:.3f}, min bulk ESS = "
                f"{d['min_ess_bulk']:.0f}, {d['divergences']} divergences",
                f"  {self.claim}",
            ]
        )


def thetas(delta0: np.ndarray, sigma0: np.ndarray, nu: np.ndarray, rope: float) -> np.ndarray:
    r"""``(S, 3)``: :math:`(P(\delta_\text{new} > r), P(|\delta_\text{new}| \le r),
    P(\delta_\text{new} < -r))` for :math:`\delta_\text{new} \sim t(\nu, \delta_0, \sigma_0)`,
    per draw (any consistent units)."""
    right = stats.t.sf(rope, nu, loc=delta0, scale=sigma0)
    left = stats.t.cdf(-rope, nu, loc=delta0, scale=sigma0)
    return np.column_stack([right, np.clip(1 - right - left, 0.0, 1.0), left])


#: The NUTS run of :func:`bayes_hierarchical` by default: a hierarchical model has narrow
#: regions (target acceptance 0.95), and PyMC's own sampler, always passed explicitly.
HIERARCHICAL_NUTS = NutsSettings(
    draws=2000, tune=2000, chains=4, sampler="pymc", progress=False, target_accept=0.95
)
#: The keywords of :func:`bayes_hierarchical` that are now fields of its ``nuts`` (old → field).
NUTS_KEYWORDS = {
    **{name: name for name in ("draws", "tune", "chains", "sampler", "target_accept")},
    "progress": "progress",
    "progressbar": "progress",
}


@renamed_parameters(cores="n_jobs")
@grouped_parameters(nuts=(NutsSettings, NUTS_KEYWORDS))
def bayes_hierarchical(
    scores: Scores,
    a: str,
    b: str,
    rope: float = 0.01,
    *,
    rho: float = 0.0,
    task: str | Sequence[str] | None = None,
    nuts: NutsSettings = HIERARCHICAL_NUTS,
    n_jobs: int | None = None,
    seed: int | None = 0,
    parameterization: str = "auto",
    missing: str = "error",
    threshold: float = 0.95,
) -> BayesHierarchical:
    r"""Bayesian hierarchical comparison of ``a`` and ``b`` across tasks (Corani et al. 2017).

    The differences ``a − b`` on the instances of each task are modelled as correlated normal
    around a task mean :math:`\delta_i`, and the :math:`\delta_i` as Student-t around the
    population mean :math:`\delta_0` (see :mod:`rankstats.significance.bayesian_hierarchical` for
    the model, the priors and the rescaling):

    .. math::

       \mathbf{x}_i \sim \mathrm{MVN}(\delta_i \mathbf 1, \sigma_i^2((1-\rho)I + \rho J)),
       \quad \delta_i \sim t(\nu, \delta_0, \sigma_0),

    sampled with NUTS in PyMC. For each posterior draw, θ = the probabilities that the
    difference on a new task, :math:`\delta_\text{new} \sim t(\nu, \delta_0, \sigma_0)`, is
    above ``rope`` (``a`` better), within ``±rope``, or below ``−rope`` (``b`` better); the
    answer (:attr:`~BayesHierarchical.probabilities`) is the share of the draws in which each
    region has the largest θ, the quantity baycomp and Corani et al. (2017) report; the
    posterior means of θ are in :attr:`~BayesHierarchical.predictive`.

    Parameters
    ----------
    scores : Scores
        Instance-level scores (several instances per task); lower-is-better tasks are already
        negated by Scores. Only instances where both systems were scored are used.
    a, b : str
        The two systems.
    rope : float
        Half-width ``r ≥ 0`` of the region of practical equivalence, in score units (one value
        for every task: the tasks must share a scale).
    rho : float
        Correlation of two instances of one task, in ``[0, 1)``: 0 for independent instances,
        ``1 / k`` for the folds of k-fold cross-validation (Nadeau and Bengio 2003).
    task : str or list of str, optional
        The tasks used (default: all).
    nuts : NutsSettings
        The NUTS run (:class:`~rankstats.NutsSettings`; default :data:`HIERARCHICAL_NUTS`:
        2000 draws after 2000 tuning steps on 4 chains, target acceptance 0.95 since
        hierarchical models have narrow regions, PyMC's sampler, no progress bar): ``draws``,
        ``tune``, ``chains``, ``sampler`` (``"pymc"``, ``"nutpie"``, ``"numpyro"`` or
        ``"blackjax"``, always passed to ``pm.sample`` explicitly), ``target_accept``,
        ``progress``. These were keywords of this function, still accepted for one release
        with a FutureWarning.
    n_jobs : int, optional
        Processes of the chains (default: one per chain, up to the cores; ``-1``: all cores).
    seed : int
        Seed of the sampler, of the draws of :math:`\delta_\text{new}` and of the values given
        to constant tasks.
    parameterization : {"auto", "centered", "noncentered"}
        ``"auto"`` (default):
        :func:`~rankstats.significance.hierarchical_model.choose_parameterization`.
        ``"centered"`` samples :math:`\delta_i` directly (the paper's Stan model; best when
        every task has enough instances to pin its mean down), ``"noncentered"`` as
        :math:`\delta_0 + \sigma_0 z_i` (best when the tasks are alike and noisy,
        :math:`\sigma_0` near 0). The other one is the first remedy for divergent transitions.
    missing : {"error", "complete-case"}
        Tasks where the pair shares fewer than 2 instances are refused (default; all named) or
        dropped and listed in :attr:`BayesHierarchical.dropped` (the one vocabulary of
        :mod:`rankstats.significance.missing_words`; scores are never imputed, so ``"imputed"``
        is refused).
    threshold : float
        Posterior probability needed to claim an outcome.

    Returns
    -------
    BayesHierarchical
        ``.probabilities``, ``.predictive``, ``.task_table()`` (shrunk :math:`\delta_i`),
        ``.table()``, ``.plot()``, ``.idata``, ``.diagnostics``. A
        :class:`~rankstats._pymc.convergence.ConvergenceWarning` naming ``draws``/``tune`` is issued
        when R-hat > 1.01, bulk ESS < 400 or a transition diverged.

    Raises
    ------
    ValueError
        Unknown system or task, a task with fewer than 2 shared instances (with
        ``missing="error"``), fewer than 2 tasks, ``rope < 0``, ``rho`` outside ``[0, 1)``.

    Examples
    --------
    >>> import numpy as np, pandas as pd, rankstats as rs
    >>> rng = np.random.default_rng(0)
    >>> rows = [("a", f"t{i}", j, 0.80 + 0.02 * i + rng.normal(0, 0.01)) for i in range(6)
    ...         for j in range(10)]
    >>> rows += [("b", t, j, s - 0.03 + rng.normal(0, 0.01)) for _, t, j, s in rows]
    >>> frame = pd.DataFrame(rows, columns=["system", "task", "instance", "score"])
    >>> scores = rs.Scores.from_long(frame, instance="instance")
    >>> from rankstats.significance.bayesian_hierarchical import bayes_hierarchical
    >>> quick = rs.NutsSettings(draws=1000, tune=1000, sampler="pymc", progress=False)
    >>> res = bayes_hierarchical(scores, "a", "b", rope=0.01, rho=0.1, nuts=quick)  # doctest: +SKIP
    >>> res.decision  # doctest: +SKIP
    'a'

    References
    ----------
    Corani, G., Benavoli, A., Demšar, J., Mangili, F. and Zaffalon, M. (2017). Statistical
    comparison of classifiers through Bayesian hierarchical modelling. *Machine Learning* 106,
    1817–1837.
    """
    n = nuts
    run = NutsRun(
        n.draws, n.tune, n.chains, resolve_n_jobs(n_jobs), seed, n.sampler, n.target_accept
    )
    check_rope(rope)
    if not (isinstance(rho, numbers.Real) and 0 <= rho < 1):
        raise ValueError(f"rho (the correlation of the instances) must be in [0, 1), got {rho!r}")
    missing = check_missing(
        missing, MISSING, what="the hierarchical test (it reads the scores, never imputed)"
    )
    if parameterization not in ("auto", *PARAMETERIZATIONS):
        raise ValueError(
            f"parameterization must be 'auto' or one of {PARAMETERIZATIONS}, not "
            f"{parameterization!r}"
        )
    check_threshold(threshold)
    diff, short = _usable_differences(scores, a, b, task, missing)
    prep = prepare(diff, float(rope), seed)
    if parameterization == "auto":
        parameterization = choose_parameterization(prep, float(rho))
    idata = run.sample(prep, float(rho), parameterization, nuts.progress)
    diagnostics = diagnose(idata)
    if not diagnostics["converged"]:
        run.warn(f"the hierarchical model of {a!r} vs {b!r}", diagnostics, parameterization)
    from rankstats._pymc import compat as _compat

    posterior = _compat.group(idata)
    flat = {k: posterior[k].to_numpy().reshape(-1) for k in ("delta0_std", "sigma0_std", "nu")}
    sample = thetas(flat["delta0_std"], flat["sigma0_std"], flat["nu"], prep.rope)
    rng = np.random.default_rng(None if seed is None else [seed, 1])
    delta_new = prep.scale * (flat["delta0_std"] + flat["sigma0_std"] * rng.standard_t(flat["nu"]))
    return BayesHierarchical(
        a=a,
        b=b,
        rope=float(rope),
        rho=float(rho),
        differences=diff,
        dropped=short.reset_index(drop=True) if missing == "complete-case" else short.iloc[:0],
        draws=sample,
        probabilities=region_shares(sample),
        predictive=dict(zip(OUTCOMES, sample.mean(axis=0).tolist(), strict=True)),
        delta_new=delta_new,
        idata=idata,
        diagnostics=diagnostics,
        scale=prep.scale,
        threshold=float(threshold),
        parameters={
            **run.parameters(),
            "parameterization": parameterization,
            "missing": missing,
            "threshold": float(threshold),
            "delta0_bound": prep.delta_bound * prep.scale,
            "sigma_upper": prep.sigma_upper * prep.scale,
            "sigma0_upper": prep.sigma0_upper * prep.scale,
            "alpha_bounds": ALPHA_BOUNDS,
            "beta_bounds": BETA_BOUNDS,
            "constant_tasks": prep.constant,
        },
    )


def _usable_differences(
    scores: Scores, a: str, b: str, task: str | Sequence[str] | None, missing: str
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The differences ``a − b`` on the tasks where the pair shares 2 or more instances, and the
    other tasks (refused with ``missing="error"``, all named)."""
    diff, shared = pair_differences(scores, a, b, task)
    short = shared[shared["n_shared"] < 2]
    if len(short) and missing == "error":
        listed = preview(
            f"{t!r} ({k})" for t, k in zip(short["task"], short["n_shared"], strict=True)
        )
        raise AdviceError(
            f"{escape(repr(a))} and {escape(repr(b))} share fewer than 2 scored instances on "
            f"{len(short)} task(s): {escape(listed)}; pass {{missing}} to leave them out "
            "(listed in .dropped)",
            missing="complete-case",
        )
    diff = diff[~diff["task"].isin(short["task"])].reset_index(drop=True)
    n_tasks = diff["task"].nunique()
    if n_tasks < 2:
        raise ValueError(
            f"the hierarchical test needs at least 2 tasks where {a!r} and {b!r} share 2 or more "
            f"instances; found {n_tasks}"
        )
    if not np.isfinite(diff["difference"]).all():
        raise InvalidScoresError(f"infinite score of {a!r} or {b!r}")
    return diff, short
