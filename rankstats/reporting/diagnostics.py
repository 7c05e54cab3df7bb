"""Convergence diagnostics of the rank models a report fits: judged once, quoted everywhere.

The verdict (:class:`Convergence`) is computed by :func:`convergence` when the report is computed;
the methods paragraph, the HTML warning box and the "(not converged)" column headings all quote
it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from rankstats._util.method_names import fit_key, model_name


@dataclass(frozen=True)
class Convergence:
    """Whether one fitted model can be reported as it is: judged once, quoted everywhere.

    Attributes
    ----------
    model, method : str
        The fit's key (:func:`~rankstats._util.method_names.fit_key`: ``"pl"``, ``"bt"``,
        ``"mallows"``, ``"mallows_footrule"`` …) and fitting method.
    sampled : bool
        The fit is an MCMC sample (``nuts`` / ``mcmc``); R-hat, ESS and divergences apply.
    max_r_hat, min_ess_bulk : float or None
        Largest rank-normalised split R-hat and smallest bulk ESS over the parameters that vary
        across draws (None for optimum fits).
    divergences : int
        Divergent transitions (NUTS).
    problems : tuple of str
        One sentence per problem: R-hat > 1.01, bulk ESS < 400, divergences, a single chain
        (R-hat undefined), an interrupted sampler, a Kemeny consensus not proved optimal.
    """

    model: str
    method: str
    sampled: bool
    max_r_hat: float | None = None
    min_ess_bulk: float | None = None
    divergences: int = 0
    problems: tuple[str, ...] = ()

    @property
    def converged(self) -> bool:
        """No problem found."""
        return not self.problems

    @property
    def name(self) -> str:
        """``"Mallows (Kendall) model fitted by mcmc"``: how the outputs name the fit."""
        return f"{model_name(self.model)} model fitted by {self.method}"

    def suggested_draws(self, draws: int) -> int:
        r"""The draws per chain to rerun with, from the ``draws`` that gave :attr:`min_ess_bulk`.

        The bulk ESS grows about in proportion to the number of draws, so
        :math:`d' = d \cdot \max(2,\ 1.2 \cdot 400 / \mathrm{ESS}_{\min})` reaches the
        400 of the convergence rule with a 20 % margin (and at least doubles the chains), rounded
        up to a multiple of 500; :math:`4d` when the ESS is unknown or 0.

        >>> Convergence("pl", "nuts", True, min_ess_bulk=150.0).suggested_draws(1000)
        3500
        """
        from rankstats._pymc.convergence import ESS_MIN

        ess = self.min_ess_bulk
        factor = max(2.0, 1.2 * ESS_MIN / ess) if ess is not None and ess > 0 else 4.0
        return int(math.ceil(draws * factor / 500) * 500)


def convergence(fit: Any) -> Convergence:
    """The convergence verdict of a fitted rank model (the one place it is derived).

    MCMC fits (``nuts``, ``mcmc``): from :meth:`Fit.summary` — R-hat above 1.01 or bulk ESS
    below 400 on any parameter that varies across draws (a Mallows consensus position equal in
    every draw is certain, its R-hat undefined), plus divergent transitions in
    ``sample_stats``, a single chain (R-hat cannot be computed) and an interrupted sampler.
    Optimum fits (``mle`` / ``map``): Newton–Raphson raises when it does not converge, so only a
    Mallows consensus that the Kemeny search did not prove optimal is a problem.

    Parameters
    ----------
    fit : Fit
        A fitted :class:`~rankstats.models.PlackettLuce`, :class:`~rankstats.models.BradleyTerry`
        or :class:`~rankstats.models.Mallows` model.

    Returns
    -------
    Convergence
    """
    from rankstats._pymc import compat as _compat
    from rankstats._pymc.convergence import ESS_MIN, RHAT_MAX, SAMPLED

    info = getattr(fit, "info", {}) or {}
    problems: list[str] = []
    if info.get("kemeny_optimal") is False:
        problems.append("the Kemeny consensus was not proved optimal (time limit reached)")
    if fit.method not in SAMPLED:
        return Convergence(fit_key(fit), fit.method, False, problems=tuple(problems))
    summary = fit.summary()
    varying = summary["sd"].fillna(0.0) > 0
    r_hat = summary.loc[varying, "r_hat"].to_numpy(dtype=float)
    ess = summary.loc[varying, "ess_bulk"].to_numpy(dtype=float)
    max_r_hat = float(np.max(r_hat)) if len(r_hat) else None
    min_ess = float(np.min(ess)) if len(ess) else None
    posterior = _compat.group(fit.idata)
    n_chains = int(posterior.sizes.get("chain", 1))
    if n_chains < 2:
        problems.append("a single chain: R-hat cannot be computed")
    elif len(r_hat) and (not np.isfinite(r_hat).all() or max_r_hat > RHAT_MAX):
        problems.append(f"max R-hat = {max_r_hat:.3f} > {RHAT_MAX}")
    if len(ess) and (not np.isfinite(ess).all() or min_ess < ESS_MIN):
        problems.append(f"min bulk ESS = {min_ess:.0f} < {ESS_MIN}")
    divergences = 0
    if _compat.has_group(fit.idata, "sample_stats"):
        stats_ = _compat.group(fit.idata, "sample_stats")
        if "diverging" in stats_:
            divergences = int(stats_["diverging"].sum())
    if divergences:
        problems.append(f"{divergences} divergent transition(s)")
    if info.get("interrupted"):
        problems.append("sampling was interrupted (only the chains finished so far are used)")
    return Convergence(
        fit_key(fit), fit.method, True, max_r_hat, min_ess, divergences, tuple(problems)
    )
