"""The model zoo: reference fits of the bundled benchmarks, stored as ArviZ NetCDF files.

The fits are package data (``models/`` at the top of the repository, 1.8 MB, provenance in its
``README.md``): they are installed with the package, from a wheel as from a source checkout.
``rankstats fit --dataset glue --model pl --save DIR`` writes ``DIR/glue_pl.nc``;
``rs.models.load("glue", "pl")`` reads the installed one back as a
:class:`~rankstats.models.Fit`.  Files keep a thinned posterior (``keep`` draws per chain) so that
they stay small; the diagnostics recorded in their attributes were computed on the full sample.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

from rankstats._pymc import compat as _compat
from rankstats.models._fit import Fit

ENV = "RANKSTATS_MODELS"


#: The fits installed with the package: the repository's top-level ``models/``, installed as the
#: package ``rankstats.zoo_fits`` (a build-time mapping, ``[tool.setuptools] package-dir``).
BUNDLED = Path(str(resources.files("rankstats.zoo_fits")))


def default_directory() -> Path:
    """``$RANKSTATS_MODELS``, else the fits installed with the package (``models/``, installed as
    ``rankstats.zoo_fits``)."""
    if os.environ.get(ENV):
        return Path(os.environ[ENV])
    return BUNDLED


def path_for(dataset: str, model: str, directory: str | Path | None = None) -> Path:
    return Path(directory or default_directory()) / f"{dataset}_{model}.nc"


def zoo_name(fit: Fit) -> str:
    """The model part of a stored fit's file name
    (:func:`~rankstats._util.method_names.fit_key`: ``pl``, ``bt``, ``mallows`` for Kendall,
    else ``mallows_<distance>`` and ``mallows_<distance>_<K>clusters``), so that fits of one data
    set with different distances or numbers of clusters do not overwrite each other."""
    from rankstats._util.method_names import fit_key

    return fit_key(fit)


def save(fit: Fit, dataset: str, directory: str | Path | None = None, keep: int = 100) -> Path:
    """Write ``fit`` as ``<directory>/<dataset>_<model>.nc`` (``<model>``: :func:`zoo_name`),
    thinned to ``keep`` draws per chain.

    Diagnostics (R-hat, bulk ESS, divergences) are recorded in the attributes first, on the full
    sample.
    """
    import json

    import numpy as np

    from rankstats._pymc.convergence import SAMPLED, check_convergence

    idata = fit.idata
    if fit.method in SAMPLED:
        from rankstats._pymc.compat import diagnostics, group

        variables = [fit.variable] + [n for n in group(idata).data_vars if n != fit.variable]
        diag = diagnostics(group(idata)[variables])
        if fit.method == "nuts":
            problems = check_convergence(idata, variables)
        else:  # Mallows: positions that never change have no R-hat (they are certain)
            problems = list(fit.info.get("convergence_problems", []))
        _compat.set_attrs(
            idata,
            {
                "info_max_r_hat": max(
                    float(np.nanmax(diag["r_hat"][v].to_numpy())) for v in variables
                ),
                "info_min_ess_bulk": min(
                    float(np.nanmin(diag["ess_bulk"][v].to_numpy())) for v in variables
                ),
                "info_problems": "; ".join(problems),
                "info_dataset": dataset,
            },
        )
        if fit.model in ("mallows", "mallows_mixture"):
            _compat.set_attrs(idata, {"info_convergence_problems": json.dumps(problems)})
    else:
        _compat.set_attrs(idata, {"info_dataset": dataset})
    n_draws = _compat.group(idata).sizes["draw"]
    every = max(1, n_draws // keep)
    thinned = _compat.thin(idata, every)
    _compat.set_attrs(thinned, {**_compat.attrs(idata), "info_thinned_every": every})
    return _compat.to_netcdf(thinned, path_for(dataset, zoo_name(fit), directory))


def load(dataset: str, model: str, directory: str | Path | None = None) -> Fit:
    """Load a stored reference fit (``<dataset>_<model>.nc``, installed with the package).

    Parameters
    ----------
    dataset : str
        A bundled data set (``glue``, ``superglue``, ``xtreme``, ``tac08``).
    model : str
        ``"pl"``, ``"bt"``, ``"mallows"`` (Kendall), ``"mallows_<distance>"``, or a mixture's
        ``"mallows_<distance>_<K>clusters"`` (:func:`zoo_name`).
    directory : path, optional
        Default: ``$RANKSTATS_MODELS``, else the fits installed with the package.
    """
    path = path_for(dataset, model, directory)
    if not path.exists():
        stored = ", ".join(sorted(p.stem for p in path.parent.glob("*.nc"))) or "none"
        raise FileNotFoundError(
            f"no stored fit {path} (stored there: {stored}); create it by fitting the model "
            f"to rs.load_dataset({dataset!r}) and saving the fit with "
            f"rs.models.save(fit, {dataset!r}, DIR), then load it with "
            f"rs.models.load({dataset!r}, {model!r}, DIR)"
        )
    return Fit.from_idata(_compat.from_netcdf(path))
