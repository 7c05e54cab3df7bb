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
0); ``"auto"`` chooses by :func:`choose_parameterization`.

**The answer** is about the difference :math:`\delta_\text{new}` on a new task drawn from the
population, :math:`\delta_\text{new} \sim t(\nu, \delta_0, \sigma_0)`. For each posterior draw
:math:`\theta_a = P(\delta_\text{new} > r)`, :math:`\theta_b = P(\delta_\text{new} < -r)` and
:math:`\theta_\text{rope} = 1 - \theta_a - \theta_b` (Student-t CDFs).  **The reported
probabilities** (``result.probabilities``, ``p_a`` / ``p_rope`` / ``p_b``, the decision) are
those baycomp's ``HierarchicalTest.probs()`` publishes for this model: the posterior probability
of each region being the most probable one for the next task, i.e. the share of the posterior
draws in which its θ is the largest (baycomp's documented nbc vs j48 example, rope 1, gives
0.0795 / 0.0365 / 0.884; ``tests/test_bayes_hierarchical.py`` reproduces it within Monte Carlo
error).  The posterior means of the θ, the posterior *predictive* probabilities that
:math:`\delta_\text{new}` falls in each region (0.28 / 0.25 / 0.47 on the same data), are kept
in ``result.predictive``, labelled as such: they answer "where will the difference on one new
task fall?", while the headline answers "which region is most probable for new tasks?".

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

import logging
import math
import numbers
import os
import threading
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from scipy import stats

from rankstats._util import progress as _progress
from rankstats._util.advice import AdviceError, Spelled, escape
from rankstats._util.text import shorten, terminal
from rankstats.core.scores import Scores
from rankstats.errors import InvalidScoresError, preview
from rankstats.significance.bayesian_signed_rank import OUTCOMES, ThreeRegions, simplex_figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: The bounds of baycomp's ``HierarchicalTest.sample`` (and the paper's code).
ALPHA_BOUNDS = (1.0, 2.0)
BETA_BOUNDS = (0.01, 0.1)
UPPER_SIGMA = 1000.0
SAMPLERS = ("pymc", "nutpie", "numpyro", "blackjax")
MISSING = ("refuse", "drop")
RHAT_MAX = 1.01
ESS_MIN = 400
#: Half-width of the symmetric values given to a constant task when ``rope = 0`` (rescaled).
CONSTANT_JITTER = 0.1

#: The sampled variables (the R-hat / ESS check covers all of them).
FREE = ("delta0_std", "sigma0_std", "gamma_alpha", "gamma_beta", "nu_minus_one", "sigma_std")

# One PyMC model per number of tasks: pairs with the same q reuse it (its data are pm.Data).
_MODELS: dict[tuple[int, str], Any] = {}
PARAMETERIZATIONS = ("centered", "noncentered")
_LOCK = threading.Lock()


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
        ``task``, ``n_shared``: tasks left out with ``missing="drop"`` (fewer than 2 shared
        instances); empty otherwise.
    samples : numpy.ndarray
        ``(S, 3)`` posterior draws of :math:`(\theta_a, \theta_\text{rope}, \theta_b)`, the
        probabilities of the three regions for :math:`\delta_\text{new}` given each draw.
    probabilities : dict
        ``{"a", "rope", "b"}``: the published quantity (baycomp's ``probs()``, Corani et al.
        2017): the shares of the posterior draws in which each θ is the largest, i.e. the
        posterior probability that the region is the most probable one for a new task (the
        regions of the simplex figure). :attr:`decision` reads them.
    predictive : dict
        ``{"a", "rope", "b"}``: the posterior predictive probabilities that the difference on a
        new task falls in each region (the means of ``samples``).
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
    samples: np.ndarray
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

    def table(self, level: float = 0.95) -> pd.DataFrame:
        """One row per outcome: ``outcome`` (``a``, ``rope``, ``b``), ``system`` (None for the
        ROPE), ``region`` (of the difference ``a − b`` on a new task), ``probability`` (the
        published quantity: share of the draws where its θ is the largest), ``predictive``
        (posterior predictive probability of the region), the posterior ``theta_mean`` and its
        central ``level`` interval (``theta_low``, ``theta_high``)."""
        q = [(1 - level) / 2, (1 + level) / 2]
        low, high = np.quantile(self.samples, q, axis=0)
        r = f"{self.rope:g}"
        return pd.DataFrame(
            {
                "outcome": list(OUTCOMES),
                "system": pd.Series([self.a, None, self.b], dtype=object),
                "region": [f"δ_new > {r}", f"|δ_new| ≤ {r}", f"δ_new < −{r}"],
                "probability": [self.probabilities[k] for k in OUTCOMES],
                "predictive": [self.predictive[k] for k in OUTCOMES],
                "theta_mean": self.samples.mean(axis=0),
                "theta_low": low,
                "theta_high": high,
            }
        )

    def task_table(self, level: float = 0.95) -> pd.DataFrame:
        """One row per task: ``task``, ``n`` (instances), ``mean_difference`` (observed),
        the shrunk posterior ``delta_mean`` with its central ``level`` interval
        (``delta_low``, ``delta_high``), and ``sigma_mean`` (within-task standard deviation);
        then one row ``task = "(new task)"`` for :math:`\\delta_\\text{new}` and one
        ``"(population mean δ0)"``. Score units."""
        q = [(1 - level) / 2, (1 + level) / 2]
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


# --------------------------------------------------------------------------------- the data
def _pair_differences(
    scores: Scores, a: str, b: str, task: str | Sequence[str] | None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(task, instance, difference)`` on the instances where both were scored, and
    ``(task, n_shared)`` for every task considered (in the table's task order)."""
    if not isinstance(scores, Scores):
        raise TypeError(
            f"bayes_hierarchical needs a rankstats Scores table, not {type(scores).__name__}"
        )
    for name in (a, b):
        if not isinstance(name, str) or name not in scores.systems:
            raise ValueError(f"unknown system {name!r}; systems are: {preview(scores.systems)}")
    if a == b:
        raise ValueError(f"compare two different systems, not {a!r} with itself")
    if not scores.has_instances:
        raise ValueError(
            "the hierarchical test needs instance-level scores (several instances per task); "
            "this table has one score per system and task"
        )
    tasks = [task] if isinstance(task, str) else list(task) if task is not None else None
    for t in tasks or ():
        if t not in scores.tasks:
            raise ValueError(f"unknown task {t!r}; tasks are: {preview(scores.tasks)}")
    data = scores.data[scores.data["system"].isin([a, b])]
    if tasks is not None:
        data = data[data["task"].isin(tasks)]
    wide = data.pivot_table(
        index=["task", "instance"], columns="system", values="score", observed=True
    ).reindex(columns=[a, b])
    wide = wide.dropna()
    diff = (wide[a] - wide[b]).rename("difference").reset_index()
    diff["task"] = diff["task"].astype(object)
    order = tasks if tasks is not None else [*scores.tasks, *scores.skipped_tasks]
    counts = diff.groupby("task", sort=False)["difference"].size()
    shared = pd.DataFrame({"task": order, "n_shared": counts.reindex(order).fillna(0)})
    shared["n_shared"] = shared["n_shared"].astype(int)
    position = {t: k for k, t in enumerate(order)}
    diff = diff.sort_values("task", key=lambda s: s.map(position), kind="stable")
    return diff.reset_index(drop=True), shared


@dataclass(frozen=True)
class _Prepared:
    """The rescaled sufficient statistics of one pair and the prior bounds."""

    tasks: list[str]
    n: np.ndarray
    mean: np.ndarray  # rescaled task means
    ss: np.ndarray  # rescaled within-task sums of squares about the mean
    scale: float
    rope: float  # rescaled
    delta_bound: float
    sigma_upper: float
    sigma0_upper: float
    constant: list[str]


def _prepare(diff: pd.DataFrame, rope: float, seed: int | None) -> _Prepared:
    groups = [
        (t, g.to_numpy(np.float64)) for t, g in diff.groupby("task", sort=False)["difference"]
    ]
    sds = np.array([x.std() for _, x in groups])
    scale = float(sds.mean())
    if not (math.isfinite(scale) and scale > 0):
        raise ValueError(
            "the differences are constant within every task (zero within-task spread): the "
            "hierarchical model has nothing to estimate the within-task variance from"
        )
    r = rope / scale
    rng = np.random.default_rng(seed)
    xs, constant = [], []
    for (t, x), sd in zip(groups, sds, strict=True):
        x = x / scale
        if sd == 0:  # baycomp: symmetric values in ±rope (here around the constant)
            half = len(x) // 2
            u = rng.uniform(-(r or CONSTANT_JITTER), r or CONSTANT_JITTER, half)
            x = x.copy()
            x[:half] += u
            x[half : 2 * half] -= u
            constant.append(t)
        xs.append(x)
    means = np.array([x.mean() for x in xs])
    within = float(np.mean([x.std() for x in xs]))
    among = float(means.std())
    return _Prepared(
        tasks=[t for t, _ in groups],
        n=np.array([len(x) for x in xs], dtype=np.float64),
        mean=means,
        ss=np.array([((x - x.mean()) ** 2).sum() for x in xs]),
        scale=scale,
        rope=r,
        delta_bound=float(max(np.abs(x).max() for x in xs)),
        sigma_upper=UPPER_SIGMA * within,
        sigma0_upper=UPPER_SIGMA * (among if among > 0 else within),
        constant=constant,
    )


# -------------------------------------------------------------------------------- the model
def log_likelihood(pt: Any, n, mean, ss, delta, sigma, rho):
    """The compound-symmetry normal log-likelihood of each task (module docstring), for numpy
    (``pt = numpy``) or PyTensor tensors."""
    c = 1 + (n - 1) * rho
    quad = ss / (1 - rho) + n * (mean - delta) ** 2 / c
    logdet = (n - 1) * pt.log1p(-rho) + pt.log(c)
    return -0.5 * n * np.log(2 * np.pi) - n * pt.log(sigma) - 0.5 * logdet - 0.5 * quad / sigma**2


def build_model(q: int, parameterization: str = "centered") -> Any:
    """The PyMC model for ``q`` tasks (data in ``pm.Data``: one graph serves every pair).

    ``"centered"`` samples :math:`\\delta_i` (variable ``delta_std``) as the paper's Stan model;
    ``"noncentered"`` samples ``z`` with :math:`\\delta_i = \\delta_0 + \\sigma_0 z_i`."""
    from rankstats._pymc import compat as _compat

    pm, pt = _compat.pymc()
    zeros = np.zeros(q)
    with pm.Model(coords={"task": np.arange(q)}) as model:
        n = pm.Data("n_instances", zeros + 2)
        mean = pm.Data("task_mean", zeros)
        ss = pm.Data("within_ss", zeros + 1)
        rho = pm.Data("rho", 0.0)
        scale = pm.Data("scale", 1.0)
        bound = pm.Data("delta_bound", 1.0)
        sigma_upper = pm.Data("sigma_upper", UPPER_SIGMA)
        sigma0_upper = pm.Data("sigma0_upper", UPPER_SIGMA)

        delta0 = pm.Uniform("delta0_std", lower=-bound, upper=bound)
        sigma0 = pm.Uniform("sigma0_std", lower=0.0, upper=sigma0_upper)
        alpha = pm.Uniform("gamma_alpha", *ALPHA_BOUNDS)
        beta = pm.Uniform("gamma_beta", *BETA_BOUNDS)
        nu_minus_one = pm.Gamma("nu_minus_one", alpha=alpha, beta=beta)
        nu = pm.Deterministic("nu", nu_minus_one + 1)
        if parameterization == "centered":
            delta = pm.StudentT("delta_std", nu=nu, mu=delta0, sigma=sigma0, dims="task")
        else:
            z = pm.StudentT("z", nu=nu, mu=0.0, sigma=1.0, dims="task")
            delta = delta0 + sigma0 * z
        sigma = pm.Uniform("sigma_std", lower=0.0, upper=sigma_upper, dims="task")
        pm.Potential("likelihood", log_likelihood(pt, n, mean, ss, delta, sigma, rho).sum())
        pm.Deterministic("delta0", delta0 * scale)
        pm.Deterministic("sigma0", sigma0 * scale)
        pm.Deterministic("delta", delta * scale, dims="task")
        pm.Deterministic("sigma", sigma * scale, dims="task")
    return model


def _model(q: int, parameterization: str = "centered") -> Any:
    with _LOCK:
        if (q, parameterization) not in _MODELS:
            _MODELS[q, parameterization] = build_model(q, parameterization)
        return _MODELS[q, parameterization]


def choose_parameterization(prep: _Prepared, rho: float) -> str:
    """``"centered"`` when the data pin the task means down well compared with their spread
    (the median standard error of a task mean, :math:`\\sigma\\sqrt{(1 + (n-1)\\rho)/n}`, is
    below half the standard deviation of the task means), else ``"noncentered"`` (the usual
    rule for hierarchical models: the centred form has a funnel when the group-level spread
    is small against the noise, the non-centred one when it is large)."""
    sd = np.sqrt(prep.ss / prep.n)
    se = sd * np.sqrt((1 + (prep.n - 1) * rho) / prep.n)
    return "centered" if np.median(se) < 0.5 * float(prep.mean.std()) else "noncentered"


def _set_data(model: Any, prep: _Prepared, rho: float) -> None:
    from rankstats._pymc import compat as _compat

    pm, _ = _compat.pymc()
    with model:
        pm.set_data(
            {
                "n_instances": prep.n,
                "task_mean": prep.mean,
                "within_ss": prep.ss,
                "rho": float(rho),
                "scale": prep.scale,
                "delta_bound": prep.delta_bound,
                "sigma_upper": prep.sigma_upper,
                "sigma0_upper": prep.sigma0_upper,
            }
        )


def _initvals(prep: _Prepared, parameterization: str) -> dict[str, Any]:
    """A start inside the posterior's bulk (the defaults, midpoints of the uniform priors, put
    σ at 500 within-task standard deviations)."""
    sd = np.sqrt(prep.ss / prep.n)
    among = float(prep.mean.std()) or 0.1
    centre = float(np.clip(prep.mean.mean(), -0.9 * prep.delta_bound, 0.9 * prep.delta_bound))
    out = {
        "delta0_std": centre,
        "sigma0_std": min(among, 0.5 * prep.sigma0_upper),
        "sigma_std": np.clip(sd, 1e-3, 0.5 * prep.sigma_upper),
        "nu_minus_one": 10.0,
    }
    if parameterization == "centered":
        out["delta_std"] = prep.mean.copy()
    else:
        out["z"] = np.clip((prep.mean - centre) / among, -5, 5)
    return out


def _diagnose(idata: Any) -> dict:
    from rankstats._pymc import compat as _compat

    posterior = _compat.group(idata)
    free = [*FREE, "delta_std" if "delta_std" in posterior else "z"]
    diag = _compat.diagnostics(posterior[free])
    rhat = max(float(diag["r_hat"][v].max()) for v in free)
    ess = min(float(diag["ess_bulk"][v].min()) for v in free)
    divergences = 0
    if _compat.has_group(idata, "sample_stats"):
        sample_stats = _compat.group(idata, "sample_stats")
        if "diverging" in sample_stats:
            divergences = int(sample_stats["diverging"].sum())
    problems = []
    if not math.isfinite(rhat) or rhat > RHAT_MAX:
        problems.append(f"max R-hat = {rhat:.3f} > {RHAT_MAX}")
    if not math.isfinite(ess) or ess < ESS_MIN:
        problems.append(f"min bulk ESS = {ess:.0f} < {ESS_MIN}")
    if divergences:
        problems.append(f"{divergences} divergent transition(s)")
    return {
        "max_r_hat": rhat,
        "min_ess_bulk": ess,
        "divergences": divergences,
        "converged": not problems,
        "problems": problems,
    }


def thetas(delta0: np.ndarray, sigma0: np.ndarray, nu: np.ndarray, rope: float) -> np.ndarray:
    r"""``(S, 3)``: :math:`(P(\delta_\text{new} > r), P(|\delta_\text{new}| \le r),
    P(\delta_\text{new} < -r))` for :math:`\delta_\text{new} \sim t(\nu, \delta_0, \sigma_0)`,
    per draw (any consistent units)."""
    right = stats.t.sf(rope, nu, loc=delta0, scale=sigma0)
    left = stats.t.cdf(-rope, nu, loc=delta0, scale=sigma0)
    return np.column_stack([right, np.clip(1 - right - left, 0.0, 1.0), left])


def bayes_hierarchical(
    scores: Scores,
    a: str,
    b: str,
    rope: float = 0.01,
    *,
    rho: float = 0.0,
    task: str | Sequence[str] | None = None,
    draws: int = 2000,
    tune: int = 2000,
    chains: int = 4,
    cores: int | None = None,
    seed: int | None = 0,
    sampler: str = "pymc",
    target_accept: float = 0.95,
    parameterization: str = "auto",
    missing: str = "refuse",
    threshold: float = 0.95,
    progressbar: bool = False,
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
    draws, tune, chains, cores : int
        NUTS draws and tuning steps per chain, chains, and processes (default: PyMC's).
    seed : int
        Seed of the sampler, of the draws of :math:`\delta_\text{new}` and of the values given
        to constant tasks.
    sampler : {"pymc", "nutpie", "numpyro", "blackjax"}
        The NUTS implementation, always passed to ``pm.sample`` explicitly.
    target_accept : float
        NUTS target acceptance (0.95: hierarchical models have narrow regions).
    parameterization : {"auto", "centered", "noncentered"}
        ``"auto"`` (default): :func:`choose_parameterization`. ``"centered"`` samples
        :math:`\delta_i` directly (the paper's Stan model; best when every task has enough
        instances to pin its mean down), ``"noncentered"`` as :math:`\delta_0 + \sigma_0 z_i`
        (best when the tasks are alike and noisy, :math:`\sigma_0` near 0). The other one is
        the first remedy for divergent transitions.
    missing : {"refuse", "drop"}
        Tasks where the pair shares fewer than 2 instances are refused (all named) or dropped
        and listed in :attr:`BayesHierarchical.dropped`.
    threshold : float
        Posterior probability needed to claim an outcome.
    progressbar : bool
        Show PyMC's progress bar.

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
        ``missing="refuse"``), fewer than 2 tasks, ``rope < 0``, ``rho`` outside ``[0, 1)``.

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
    >>> res = bayes_hierarchical(scores, "a", "b", rope=0.01, rho=0.1)  # doctest: +SKIP
    >>> res.decision  # doctest: +SKIP
    'a'

    References
    ----------
    Corani, G., Benavoli, A., Demšar, J., Mangili, F. and Zaffalon, M. (2017). Statistical
    comparison of classifiers through Bayesian hierarchical modelling. *Machine Learning* 106,
    1817–1837.
    """
    if not (isinstance(rope, numbers.Real) and math.isfinite(rope) and rope >= 0):
        raise ValueError(f"rope must be a finite number ≥ 0, got {rope!r}")
    if not (isinstance(rho, numbers.Real) and 0 <= rho < 1):
        raise ValueError(f"rho (the correlation of the instances) must be in [0, 1), got {rho!r}")
    if sampler not in SAMPLERS:
        raise ValueError(f"sampler must be one of {SAMPLERS}, not {sampler!r}")
    if missing not in MISSING:
        raise ValueError(f"missing must be one of {MISSING}, not {missing!r}")
    if parameterization not in ("auto", *PARAMETERIZATIONS):
        raise ValueError(
            f"parameterization must be 'auto' or one of {PARAMETERIZATIONS}, not "
            f"{parameterization!r}"
        )
    for name, value in (("draws", draws), ("tune", tune), ("chains", chains)):
        if int(value) != value or value < (0 if name == "tune" else 1):
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    if not 0 < threshold <= 1:
        raise ValueError(f"threshold must be in (0, 1], got {threshold!r}")
    diff, shared = _pair_differences(scores, a, b, task)
    short = shared[shared["n_shared"] < 2]
    if len(short) and missing == "refuse":
        listed = preview(
            f"{t!r} ({k})" for t, k in zip(short["task"], short["n_shared"], strict=True)
        )
        raise AdviceError(
            f"{escape(repr(a))} and {escape(repr(b))} share fewer than 2 scored instances on "
            f"{len(short)} task(s): {escape(listed)}; pass {{missing}} to leave them out "
            "(listed in .dropped)",
            missing=Spelled("missing='drop'", "--missing complete-case"),
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
    prep = _prepare(diff, float(rope), seed)
    if parameterization == "auto":
        parameterization = choose_parameterization(prep, float(rho))
    model = _model(len(prep.tasks), parameterization)
    _set_data(model, prep, float(rho))

    from rankstats._pymc import compat as _compat

    kwargs: dict[str, Any] = {
        "draws": int(draws),
        "tune": int(tune),
        "chains": int(chains),
        "random_seed": seed,
        "target_accept": target_accept,
        "progressbar": _progress.show(progressbar),
        "nuts_sampler": sampler,
        "cores": int(cores or min(chains, os.cpu_count() or 1)),
        "idata_kwargs": {"coords": {"task": prep.tasks}},
        # PyMC's own checks only log; ours (below) warn and name the remedies
        "compute_convergence_checks": False,
    }
    if sampler == "pymc":
        kwargs["initvals"] = _initvals(prep, parameterization)
    # --quiet / RANKSTATS_QUIET also silence PyMC's log lines, as for the rank models
    log = logging.getLogger("pymc")
    level = log.level
    if _progress.quiet():
        log.setLevel(logging.ERROR)
    try:
        idata = _compat.sample(model, **kwargs)
    finally:
        log.setLevel(level)

    diagnostics = _diagnose(idata)
    if not diagnostics["converged"]:
        from rankstats._pymc.convergence import ConvergenceWarning

        other = PARAMETERIZATIONS[1 - PARAMETERIZATIONS.index(parameterization)]
        warnings.warn(
            f"the hierarchical model of {a!r} vs {b!r} did not converge reliably: "
            + "; ".join(diagnostics["problems"])
            + f". Do not report these numbers: raise draws= (now {int(draws)}) and tune= (now "
            f"{int(tune)}), target_accept= (now {target_accept:g}) or try parameterization="
            f"{other!r}, and inspect res.idata.",
            ConvergenceWarning,
            stacklevel=2,
        )

    posterior = _compat.group(idata)
    flat = {k: posterior[k].to_numpy().reshape(-1) for k in ("delta0_std", "sigma0_std", "nu")}
    samples = thetas(flat["delta0_std"], flat["sigma0_std"], flat["nu"], prep.rope)
    winners = np.bincount(np.argmax(samples, axis=1), minlength=3) / len(samples)
    rng = np.random.default_rng(None if seed is None else [seed, 1])
    delta_new = prep.scale * (flat["delta0_std"] + flat["sigma0_std"] * rng.standard_t(flat["nu"]))
    predictive = dict(zip(OUTCOMES, samples.mean(axis=0).tolist(), strict=True))
    return BayesHierarchical(
        a=a,
        b=b,
        rope=float(rope),
        rho=float(rho),
        differences=diff,
        dropped=short.reset_index(drop=True) if missing == "drop" else short.iloc[:0],
        samples=samples,
        probabilities=dict(zip(OUTCOMES, winners.tolist(), strict=True)),
        predictive=predictive,
        delta_new=delta_new,
        idata=idata,
        diagnostics=diagnostics,
        scale=prep.scale,
        threshold=float(threshold),
        parameters={
            "draws": int(draws),
            "tune": int(tune),
            "chains": int(chains),
            "seed": seed,
            "sampler": sampler,
            "target_accept": float(target_accept),
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
