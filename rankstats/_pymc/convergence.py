"""The convergence rules of every NUTS fit: R-hat ≤ 1.01, bulk ESS ≥ 400, no divergence.

The thresholds follow Vehtari et al. (2021, *Rank-normalization, folding, and localization: an
improved R-hat*); a fit that fails them emits one :class:`ConvergenceWarning` naming every
problem and what to do, and the outputs say so too.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from rankstats._pymc import compat as _compat
from rankstats._util.advice import Advice, Spelled, escape
from rankstats._util.user_frame import user_stacklevel

# Methods whose idata holds a posterior sample (point estimates are posterior means).
SAMPLED = ("nuts", "mcmc")


RHAT_MAX = 1.01


ESS_MIN = 400


class ConvergenceWarning(UserWarning):
    """MCMC diagnostics say the posterior sample cannot be trusted as it is."""


def flat_draws(posterior: Any, name: str) -> np.ndarray:
    values = posterior[name].to_numpy()
    return values.reshape(-1, *values.shape[2:])


def check_convergence(idata: Any, variables: Sequence[str]) -> list[str]:
    """Problems found by R-hat (> 1.01), bulk ESS (< 400) and divergences, as sentences."""
    posterior = _compat.group(idata)[list(variables)]
    diag = _compat.diagnostics(posterior, which=_compat.CONVERGENCE_DIAGNOSTICS)
    problems = []
    rhat = max(float(diag["r_hat"][v].max()) for v in variables)
    ess = min(float(diag["ess_bulk"][v].min()) for v in variables)
    if not np.isfinite(rhat) or rhat > RHAT_MAX:
        problems.append(f"max R-hat = {rhat:.3f} > {RHAT_MAX}")
    if not np.isfinite(ess) or ess < ESS_MIN:
        problems.append(f"min bulk ESS = {ess:.0f} < {ESS_MIN}")
    if _compat.has_group(idata, "sample_stats"):
        stats_ = _compat.group(idata, "sample_stats")
        if "diverging" in stats_:
            n_div = int(stats_["diverging"].sum())
            if n_div:
                problems.append(f"{n_div} divergent transition(s)")
    return problems


PL_BT_HINT = (
    "run longer chains ({draws}, {tune}), more chains, or a stronger prior (smaller "
    "{prior_scale}) if systems are never beaten / never win"
)


class AdviceConvergenceWarning(Advice, ConvergenceWarning):
    """A :class:`ConvergenceWarning` whose advice names options (:mod:`rankstats._util.advice`:
    ``draws=`` in Python, ``--draws`` on the command line)."""


def warn_convergence(
    problems: list[str],
    stacklevel: int | None = None,
    hint: str = PL_BT_HINT,
    inspect: str | Spelled = "fit.summary() and arviz trace plots",
    **options: object,
) -> None:
    """Warn when ``problems``; ``hint`` is a template whose fields are options named alone
    (``{draws}``) or given in ``options``; ``inspect``: where to look (Spelled when it differs
    on the command line); ``stacklevel`` None: the user's line (the first frame outside
    rankstats)."""
    if problems:
        fields = {k: None for k in ("draws", "tune", "max_draws", "prior_scale", "chains")}
        fields = {k: v for k, v in fields.items() if "{" + k + "}" in hint}
        warnings.warn(
            AdviceConvergenceWarning(
                escape("MCMC did not converge reliably: " + "; ".join(problems))
                + ". Do not report these numbers as they are: "
                + hint
                + "; inspect {inspect}.",
                inspect=inspect if isinstance(inspect, Spelled) else Spelled(inspect, inspect),
                **{**fields, **options},
            ),
            stacklevel=stacklevel or user_stacklevel(),
        )
