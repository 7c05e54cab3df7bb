r"""The log-worths of a PyMC rank model: free, or a function of system covariates with a random
effect.

Without covariates (``Worths.free``) the log-worths are ``ZeroSumNormal(prior_scale)``, as
:class:`~rankstats.models.PlackettLuce` and :class:`~rankstats.models.BradleyTerry` always had.
With a :class:`~rankstats.models.system_covariates.CovariateMap` :math:`A` (systems × (K
covariates + the systems with a log-worth of their own)) and optionally a random effect,

.. math::

    \theta = A\varphi + m \odot \sigma z, \qquad
    \beta_k \sim N(0, s_0^2 / \mathrm{sd}_k^2), \quad
    \theta_{\text{own}} \sim N(0, s_0^2), \quad
    \sigma \sim \text{HalfNormal}(s_0), \quad z_i \sim N(0, 1),

or, centred, :math:`\theta_i \sim N(x_i^\top\beta, \sigma^2)` sampled itself for the systems
with covariates (hierarchical centring, Gelfand, Sahu & Carlin 1995: β then enters through the
prior of θ only, which keeps it from trading off against :math:`u`), with
:math:`s_0` the ``prior_scale``, :math:`\mathrm{sd}_k` the standard deviation of covariate
``k`` over the systems that have it (so the prior on the log-worth change per standard
deviation of a covariate is the prior on a log-worth difference), and :math:`m` the indicator
of the systems with covariates (a system with a log-worth of its own needs no random effect:
:math:`u` and its own log-worth would be one sum).  **Parametrisation** (Betancourt & Girolami
2015): with few comparisons per system the centred form has a funnel, which the non-centred
form avoids; with many, the non-centred form couples :math:`\sigma` and :math:`z` and mixes
slowly (on GLUE, 105 systems × 14 task rankings: bulk ESS 360 non-centred, converged centred).
:func:`informative` decides from the data: centred when the median Fisher information of a
log-worth at :math:`\theta = 0` is at least :math:`1/s_0^2` (the likelihood then says more
about a system than the prior); ``fit.info["parametrization"]`` records the choice.  Covariate
columns are centred over the systems that have them inside the graph (the likelihood depends on
differences of log-worths only, so β is unchanged and the own log-worths' prior is centred on
the average system with covariates).

The reported ``log_worth`` is the deterministic :math:`\theta - \bar\theta`, centred like the
``ZeroSumNormal`` of the free model, so that every function of a fit's draws (pairwise
probabilities, rank distributions, the pointwise log-likelihood) reads the same variable.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from rankstats._pymc import compat as _compat
from rankstats.models.system_covariates import CovariateMap


@dataclass(frozen=True, eq=False)
class Worths:
    """How a PyMC rank model's log-worths are built: ``structure`` (what the compiled graph holds
    as constants: ``("free",)`` or ``("covariates", K, n_own, random)``), the ``values`` of its
    ``pm.Data`` and the coordinates of its variables."""

    structure: tuple
    values: dict[str, np.ndarray]
    coords: dict[str, list[str]]
    cmap: CovariateMap | None = None

    @classmethod
    def free(cls) -> Worths:
        return cls(("free",), {}, {})

    @classmethod
    def from_map(cls, cmap: CovariateMap, random: bool, centred: bool = False) -> Worths:
        a = cmap.matrix
        k = len(cmap.names)
        covered = cmap.covered
        design = a.copy()
        scale = np.ones(k)
        if k:
            x = design[covered, :k]
            design[covered, :k] = x - x.mean(axis=0)
            scale = x.std(axis=0)
        values = {"design": design, "random_mask": covered.astype(np.float64)}
        if k:
            values["beta_sd"] = 1.0 / scale
        coords = {"covariate": list(cmap.names), "own_system": list(cmap.own)}
        structure = ("covariates", k, len(cmap.own), bool(random), bool(random and centred))
        return cls(structure, values, coords, cmap)

    def info(self) -> dict[str, Any]:
        """What a fit records of its log-worths (``fit.info``)."""
        if self.cmap is None:
            return {}
        k = len(self.cmap.names)
        means = self.cmap.means if k else []
        return {
            "covariates": list(self.cmap.names),
            **({"covariate_means": [float(v) for v in means]} if k else {}),
            "own_log_worth": list(self.cmap.own),
            "random_effect": bool(self.structure[3]),
            **(
                {"parametrization": "centred" if self.structure[4] else "non-centred"}
                if self.structure[3]
                else {}
            ),
        }

    @property
    def variables(self) -> list[str]:
        """The sampled variables besides the log-worths (checked for convergence)."""
        if self.structure[0] == "free":
            return []
        _, k, n_own, random, _ = self.structure
        return ["beta"] * bool(k) + ["own"] * bool(n_own) + ["sigma"] * bool(random)

    def parameters(self, posterior: Any) -> dict[str, float]:
        """Posterior means and standard deviations of β (``beta: <name>``), the own log-worths
        (``own: <system>``) and σ, named as the maximum-likelihood fit names them."""
        out: dict[str, float] = {}
        if self.cmap is None:
            return out
        for variable, labels, prefix in (
            ("beta", self.cmap.names, "beta: "),
            ("own", self.cmap.own, "own: "),
        ):
            if variable not in self.variables:
                continue
            values = posterior[variable].to_numpy().reshape(-1, len(labels))
            for k, label in enumerate(labels):
                out[f"{prefix}{label}"] = float(values[:, k].mean())
                out[f"{prefix}{label}_se"] = float(values[:, k].std(ddof=1))
        if "sigma" in self.variables:
            values = posterior["sigma"].to_numpy().ravel()
            out["sigma"] = float(values.mean())
            out["sigma_se"] = float(values.std(ddof=1))
        return out


def log_worth(prior_scale: float, worths: Worths) -> Any:
    """Inside a ``pm.Model`` context: the ``log_worth`` variable of the module docstring (with
    coordinates ``system`` and, with covariates, ``covariate`` / ``own_system`` declared by the
    caller)."""
    pm, pt = _compat.pymc()
    if worths.structure[0] == "free":
        return pm.ZeroSumNormal("log_worth", sigma=prior_scale, dims="system")
    _, k, n_own, random, centred = worths.structure
    values = worths.values
    design = pm.Data("design", values["design"])
    parts = []
    if k:
        beta_sd = pm.Data("beta_sd", values["beta_sd"])
        parts.append(pm.Normal("beta", 0.0, prior_scale * beta_sd, dims="covariate"))
    if n_own:
        parts.append(pm.Normal("own", 0.0, prior_scale, dims="own_system"))
    mask = pm.Data("random_mask", values["random_mask"])
    theta = pt.dot(design, pt.concatenate(parts)) if parts else pt.zeros(design.shape[0])
    if random:
        sigma = pm.HalfNormal("sigma", prior_scale)
        if centred:  # hierarchical centring: θ_i ~ N(x_iᵀβ, σ²) itself is sampled
            effect = pm.Normal("effect", mask * theta, sigma, dims="system")
            theta = mask * effect + (1.0 - mask) * theta
        else:
            theta = theta + mask * sigma * pm.Normal("effect_z", 0.0, 1.0, dims="system")
    return pm.Deterministic("log_worth", theta - pt.mean(theta), dims="system")


def informative(function: Any, n_systems: int, n_extra: int, prior_scale: float) -> bool:
    """Whether the data say more about a log-worth than the prior: the median diagonal of the
    Fisher information :math:`-\\nabla^2\\ell` at :math:`\\theta = 0` (``function`` a model's
    ``_objective``) is at least :math:`1/s_0^2` (module docstring, *Parametrisation*)."""
    hessian = function(np.zeros(n_systems + n_extra), True)[2]
    return bool(np.median(-np.diag(hessian)[:n_systems]) >= 1.0 / prior_scale**2)
