r"""The PyMC model of the Bayesian hierarchical comparison (Corani et al. 2017) and its sampling
checks.

The graph of :mod:`rankstats.significance.bayesian_hierarchical` (the model, the priors and the
closed-form compound-symmetry likelihood are written out there): the differences of ``q`` tasks
enter as sufficient statistics (instances :math:`n_i`, rescaled task means :math:`\bar x_i`,
within-task sums of squares :math:`W_i`) in ``pm.Data``, so one compiled graph per ``q`` and
parameterization (``"centered"`` :math:`\delta_i`, or ``"noncentered"``
:math:`\delta_i = \delta_0 + \sigma_0 z_i`) serves every pair: :func:`shared_model` keeps it
and puts a pair's :func:`data` in, :func:`initial_values` starts NUTS inside the bulk and
:func:`diagnose` checks R-hat, bulk ESS and divergences.  PyMC is imported when a model is built,
not with this module.

Corani, G., Benavoli, A., Demšar, J., Mangili, F. and Zaffalon, M. (2017). Statistical
comparison of classifiers through Bayesian hierarchical modelling. *Machine Learning* 106,
1817–1837.
"""

from __future__ import annotations

import logging
import math
import os
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from rankstats._util import progress as _progress
from rankstats._util.arguments import sampling
from rankstats._util.user_frame import user_stacklevel
from rankstats.significance.hierarchical_data import UPPER_SIGMA, Prepared

#: The NUTS implementations, always passed to ``pm.sample`` explicitly.
SAMPLERS = ("pymc", "nutpie", "numpyro", "blackjax")

#: The bounds of baycomp's ``HierarchicalTest.sample`` (and the paper's code).
ALPHA_BOUNDS = (1.0, 2.0)
BETA_BOUNDS = (0.01, 0.1)
#: The convergence check of :func:`diagnose`.
RHAT_MAX = 1.01
ESS_MIN = 400

#: The sampled variables (the R-hat / ESS check covers all of them).
FREE = ("delta0_std", "sigma0_std", "gamma_alpha", "gamma_beta", "nu_minus_one", "sigma_std")


PARAMETERIZATIONS = ("centered", "noncentered")


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


def shared_model(prep: Prepared, rho: float, parameterization: str = "centered") -> Any:
    """The model of :func:`build_model` for the pair's number of tasks, holding the pair's data
    (:func:`data`): built and compiled once per process, number of tasks and parameterization
    (:func:`rankstats._pymc.shared.shared_model`); later pairs put their data in.  Hold
    :data:`rankstats._pymc.shared.LOCK` from this call until the sampling ends."""
    from rankstats._pymc import shared

    q = len(prep.tasks)

    def build(values: dict[str, Any]) -> Any:
        from rankstats._pymc import compat as _compat

        pm, _ = _compat.pymc()
        model = build_model(q, parameterization)
        pm.set_data(values, model=model)
        return model

    return shared.shared_model(("hierarchical", q, parameterization), build, data(prep, rho))


def choose_parameterization(prep: Prepared, rho: float) -> str:
    """``"centered"`` when the data pin the task means down well compared with their spread
    (the median standard error of a task mean, :math:`\\sigma\\sqrt{(1 + (n-1)\\rho)/n}`, is
    below half the standard deviation of the task means), else ``"noncentered"`` (the usual
    rule for hierarchical models: the centred form has a funnel when the group-level spread
    is small against the noise, the non-centred one when it is large)."""
    sd = np.sqrt(prep.ss / prep.n)
    se = sd * np.sqrt((1 + (prep.n - 1) * rho) / prep.n)
    return "centered" if np.median(se) < 0.5 * float(prep.mean.std()) else "noncentered"


def data(prep: Prepared, rho: float) -> dict[str, Any]:
    """One pair's rescaled statistics and prior bounds, by the name of their ``pm.Data``."""
    return {
        "n_instances": prep.n,
        "task_mean": prep.mean,
        "within_ss": prep.ss,
        "rho": float(rho),
        "scale": prep.scale,
        "delta_bound": prep.delta_bound,
        "sigma_upper": prep.sigma_upper,
        "sigma0_upper": prep.sigma0_upper,
    }


def initial_values(prep: Prepared, parameterization: str) -> dict[str, Any]:
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


def diagnose(idata: Any) -> dict:
    """``max_r_hat``, ``min_ess_bulk`` and ``divergences`` over every sampled variable, whether
    they pass (R-hat ≤ :data:`RHAT_MAX`, bulk ESS ≥ :data:`ESS_MIN`, no divergence), and the
    ``problems`` in sentences."""
    from rankstats._pymc import compat as _compat

    posterior = _compat.group(idata)
    free = [*FREE, "delta_std" if "delta_std" in posterior else "z"]
    diag = _compat.diagnostics(posterior[free], which=_compat.CONVERGENCE_DIAGNOSTICS)
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


@dataclass(frozen=True)
class NutsRun:
    """The NUTS run of :func:`~rankstats.significance.bayesian_hierarchical.bayes_hierarchical`
    (checked when made)."""

    draws: int
    tune: int
    chains: int
    n_jobs: int | None
    seed: int | None
    sampler: str
    target_accept: float

    def __post_init__(self) -> None:
        sampling(self.draws, self.tune, self.chains, self.seed)
        if self.sampler not in SAMPLERS:
            raise ValueError(f"sampler must be one of {SAMPLERS}, not {self.sampler!r}")

    def sample(self, prep: Prepared, rho: float, parameterization: str, progress: bool) -> Any:
        """The posterior draws (ArviZ data) of the shared model of ``prep``."""
        from rankstats._pymc import compat as _compat
        from rankstats._pymc import shared

        _compat.pymc()  # imported before its logger's level is read: the import sets it
        kwargs: dict[str, Any] = {
            "draws": int(self.draws),
            "tune": int(self.tune),
            "chains": int(self.chains),
            "random_seed": self.seed,
            "target_accept": self.target_accept,
            "progressbar": _progress.show(progress),
            "nuts_sampler": self.sampler,
            "cores": int(self.n_jobs or min(self.chains, os.cpu_count() or 1)),
            "idata_kwargs": {"coords": {"task": prep.tasks}},
            # PyMC's own checks only log; ours (in bayes_hierarchical) warn and name the remedies
            "compute_convergence_checks": False,
        }
        if self.sampler == "pymc":
            kwargs["initvals"] = initial_values(prep, parameterization)
        # --quiet / RANKSTATS_QUIET also silence PyMC's log lines, as for the rank models
        log = logging.getLogger("pymc")
        level = log.level
        if _progress.quiet():
            log.setLevel(logging.ERROR)
        try:
            with shared.LOCK:  # another thread must not put its pair into the model meanwhile
                model = shared_model(prep, rho, parameterization)
                return _compat.sample(model, **kwargs)
        finally:
            log.setLevel(level)

    def warn(self, what: str, diagnostics: dict[str, Any], parameterization: str) -> None:
        """The loud warning of a run that did not converge, with its remedies."""
        from rankstats._pymc.convergence import ConvergenceWarning

        other = PARAMETERIZATIONS[1 - PARAMETERIZATIONS.index(parameterization)]
        warnings.warn(
            f"{what} did not converge reliably: "
            + "; ".join(diagnostics["problems"])
            + f". Do not report these numbers: raise draws= (now {int(self.draws)}) and tune= "
            f"(now {int(self.tune)}), target_accept= (now {self.target_accept:g}) or try "
            f"parameterization={other!r}, and inspect res.idata.",
            ConvergenceWarning,
            stacklevel=user_stacklevel(),
        )

    def parameters(self) -> dict[str, Any]:
        """The run as recorded in the result's ``parameters``."""
        return {
            "draws": int(self.draws),
            "tune": int(self.tune),
            "chains": int(self.chains),
            "seed": self.seed,
            "sampler": self.sampler,
            "target_accept": float(self.target_accept),
        }
