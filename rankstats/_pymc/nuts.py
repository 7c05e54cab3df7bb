"""The one NUTS call of rankstats: the sampler named explicitly, PyMC's output under the progress
rules.

pymc 6 switches to nutpie silently when it is installed, so every fit passes ``nuts_sampler``;
the PyMC-stack differences are in :mod:`rankstats._pymc.compat`.
"""

from __future__ import annotations

import logging
import os
import sys

from rankstats._pymc import compat as _compat
from rankstats._util import progress as _progress

SAMPLERS = ("auto", "pymc", "nutpie")


def resolve_sampler(sampler: str) -> str:
    """The NUTS implementation to run: ``"auto"`` is nutpie when it imports (and, on pymc 6, is
    as recent as PyMC requires), else PyMC's own."""
    if sampler != "auto":
        return sampler
    try:
        import nutpie  # noqa: F401
    except ImportError:
        return "pymc"
    from pymc.sampling import mcmc

    recent = getattr(mcmc, "_nutpie_meets_min_version", None)  # pymc 6: nutpie >= 0.16.10
    return "nutpie" if recent is None or recent() else "pymc"


def sample_nuts(
    model,
    sampler: str,
    *,
    draws: int,
    tune: int,
    chains: int,
    cores: int | None,
    seed: int | None,
    progressbar: bool,
    target_accept: float,
):
    """Sample a PyMC model with NUTS, the one way every rank model does it: the sampler resolved
    and named explicitly (pymc 6 switches to nutpie silently otherwise), PyMC's log lines and
    bar under the rules of the one progress display, convergence checked by the caller (in its
    own terms). Returns ``(idata, sampler used)``."""
    sampler = resolve_sampler(sampler)
    cores = cores or min(chains, os.cpu_count() or 1)
    # --quiet / RANKSTATS_QUIET also silence PyMC's log lines ("Initializing NUTS…",
    # "Sampling … took", "Only 20 samples per chain…"): the caller's convergence check reports
    # every problem itself, in the caller's terms.
    log = logging.getLogger("pymc")
    level = log.level
    if _progress.quiet():
        log.setLevel(logging.ERROR)
    try:
        idata = _compat.sample(
            model,
            draws=draws,
            tune=tune,
            chains=chains,
            cores=cores,
            random_seed=seed,
            nuts_sampler=sampler,
            # PyMC's own bar, drawn only on a terminal and when progress is not silenced.
            progressbar=_progress.show(progressbar),
            target_accept=target_accept,
            compute_convergence_checks=False,
        )
    except KeyboardInterrupt:
        print("rankstats: sampling interrupted; no fit returned", file=sys.stderr)
        raise
    finally:
        log.setLevel(level)
    return idata, sampler
