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
from rankstats._pymc.settings import SAMPLERS  # noqa: F401 - its home; imported from here too
from rankstats._util import progress as _progress

#: ``sampler="auto"`` runs nutpie on models of at least this many parameters.  nutpie compiles
#: the model with numba first and then takes cheaper NUTS steps than PyMC; the steps per draw grow
#: with the dimension, so it wins on the larger models only.  Measured (first fit in a fresh
#: process, 4 chains × 1000 draws after 1000 tuning steps, 2 cores at load 2.4–3.5, PyMC s /
#: nutpie s): superglue Bradley–Terry, 24 systems, 13.4 / 15.8; sushi Plackett–Luce, 10 items
#: and 5000 rankings, 23.4 / 22.2 and 21.0 / 21.4 (a tie); NASCAR Plackett–Luce, 83 drivers,
#: 26.4 / 21.4; glue Bradley–Terry, 105 systems, 59.7 / 51.6.  The bar lies between 24 (PyMC
#: 16 % faster) and 83 (nutpie 19 % faster).  With 2 chains on an idle machine PyMC's was the
#: faster on NASCAR too (docs/user-guide/models.md): the bar is set for the default 4 chains.
NUTPIE_FROM_PARAMETERS = 50


def nutpie_installed() -> bool:
    """nutpie imports and, on pymc 6, is as recent as PyMC requires."""
    try:
        import nutpie  # noqa: F401
    except ImportError:
        return False
    from pymc.sampling import mcmc

    recent = getattr(mcmc, "_nutpie_meets_min_version", None)  # pymc 6: nutpie >= 0.16.10
    return recent is None or recent()


def resolve_sampler(sampler: str, n_parameters: int | None = None) -> str:
    """The NUTS implementation to run.

    ``"auto"`` is PyMC's own NUTS, the faster on small models, unless nutpie is installed
    (:func:`nutpie_installed`) and the model has :data:`NUTPIE_FROM_PARAMETERS` parameters or
    more (``n_parameters``; unknown: PyMC's).  ``"pymc"`` and ``"nutpie"`` are returned as they
    are.  The choice depends on the model and the installation only, not on the machine.
    """
    if sampler != "auto":
        return sampler
    if n_parameters is None or n_parameters < NUTPIE_FROM_PARAMETERS:
        return "pymc"
    return "nutpie" if nutpie_installed() else "pymc"


def sample_nuts(
    model,
    sampler: str,
    *,
    draws: int,
    tune: int,
    chains: int,
    n_jobs: int | None,
    seed: int | None,
    progress: bool,
    target_accept: float,
    n_parameters: int | None = None,
    coords: dict | None = None,
):
    """Sample a PyMC model with NUTS, the one way every rank model does it: the sampler resolved
    and named explicitly (pymc 6 switches to nutpie silently otherwise), PyMC's log lines and
    bar under the rules of the one progress display, convergence checked by the caller (in its
    own terms). ``n_parameters``, the size of the model, decides ``sampler="auto"``
    (:func:`resolve_sampler`). ``coords`` name the output's coordinates (PyMC's sampler reads
    them; nutpie ignores them and reads the model's, which a shared model,
    :mod:`rankstats._pymc.shared`, sets to each fit's names). Returns ``(idata, sampler
    used)``."""
    sampler = resolve_sampler(sampler, n_parameters)
    n_jobs = n_jobs or min(chains, os.cpu_count() or 1)
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
            cores=n_jobs,
            random_seed=seed,
            nuts_sampler=sampler,
            # PyMC's own bar, drawn only on a terminal and when progress is not silenced.
            progressbar=_progress.show(progress),
            target_accept=target_accept,
            compute_convergence_checks=False,
            **({"idata_kwargs": {"coords": coords}} if coords else {}),
        )
    except KeyboardInterrupt:
        print("rankstats: sampling interrupted; no fit returned", file=sys.stderr)
        raise
    finally:
        log.setLevel(level)
    return idata, sampler
