"""The few differences between the two supported PyMC / ArviZ stacks, in one place.

========================  ==========================  ===========================
                          pymc 5 + arviz 0.x          pymc 6 + arviz 1.x
========================  ==========================  ===========================
ArviZ data                ``InferenceData``            ``xarray.DataTree``
``from_dict``             groups as keyword arguments  one ``{group: {var: array}}``
NetCDF I/O                ``InferenceData.to_netcdf``  ``DataTree.to_netcdf`` (h5netcdf)
default NUTS sampler      PyMC's                      nutpie when installed
adding a group            ``add_groups``               a child ``xarray.DataTree``
a step's random generator ``step.set_rng(rng)``        ``step.setup_chain(rng, …)``
PSIS-LOO result           ``elpd_loo, p_loo, loo_i``   ``elpd, p, elpd_i``
WAIC                      ``az.waic``                  none (rankstats computes it)
========================  ==========================  ===========================

ArviZ 0.2x writes a once-a-day stamp on import with a fixed temporary name, which fails when two
processes import it at once; :func:`rankstats._pymc.arviz_stamp.settle` writes it first, safely.

Everything else (``az.rhat``, ``az.ess``, ``az.mcse`` on an ``xarray.Dataset``; the group and
variable names) is common to both, and rankstats builds its own summary table from those, so the
output has the same columns on both stacks.  The sampler is always passed explicitly.

Two warnings of the PyMC stack are silenced while rankstats samples (:func:`quiet_pytensor`), on
both stacks, and only those two messages:

* PyTensor's "could not link to a BLAS installation … severely degraded" (pip installs: the
  OpenBLAS that the NumPy and SciPy wheels ship exports renamed symbols — ``scipy_dgemm_``, and
  ``scipy_dgemm_64_`` in NumPy's 64-bit-integer build — which PyTensor's C code, calling
  ``dgemm_``, cannot link to).  The Bradley–Terry graph and the Plackett–Luce ``rankings``
  layout contain no BLAS operation (element-wise operations, gathers and sums); the
  Plackett–Luce ``sets`` layout has one small matrix product (choice sets × systems), which
  PyTensor then computes with ``numpy.dot`` — NumPy's own OpenBLAS, so nothing is lost; the
  measured times of ``plackett_luce.pymc_model`` include it.
* Python 3.12's "This process is multi-threaded, use of fork() may lead to deadlocks" when PyMC
  starts its chain processes: the threads are the idle worker threads of NumPy's OpenBLAS, and
  PyMC's ``forkserver`` alternative makes a small fit about six times slower (3 s → 19 s of
  sampling for Plackett–Luce on ``salad``, 4 chains in 2 processes: each process re-imports PyMC
  and recompiles).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr

from rankstats._pymc import arviz_stamp

# Before ArviZ (and PyMC, which imports it) is first imported: ArviZ 0.2x's daily stamp races
# between processes that import it at the same moment (arviz_stamp.py).
arviz_stamp.settle()
with warnings.catch_warnings():
    # arviz 0.2x announces its 1.0 refactor with a FutureWarning at import time
    warnings.simplefilter("ignore", FutureWarning)
    import arviz as az

ARVIZ_MAJOR = int(az.__version__.split(".")[0])
DATATREE = ARVIZ_MAJOR >= 1

#: The start of PyTensor's warning when it finds no BLAS (``pytensor/link/c/cmodule.py``).
BLAS_WARNING = r"PyTensor could not link to a BLAS installation"
#: Python ≥ 3.12 (``os.fork`` in a process with threads, here PyMC's chain processes).
FORK_WARNING = r"This process \(pid=\d+\) is multi-threaded, use of fork\(\) may lead to deadlocks"


@contextmanager
def quiet_pytensor():
    """Silence exactly the two warnings of the module docstring (and nothing else) in the block."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=BLAS_WARNING, category=UserWarning)
        warnings.filterwarnings("ignore", message=FORK_WARNING, category=DeprecationWarning)
        yield


def from_dict(
    posterior: dict[str, np.ndarray],
    coords: dict[str, list],
    dims: dict[str, list[str]],
    attrs: dict[str, Any],
) -> Any:
    """ArviZ data with one ``posterior`` group (arrays shaped ``(chain, draw, ...)``)."""
    if DATATREE:
        data = az.from_dict({"posterior": posterior}, coords=coords, dims=dims)
    else:
        data = az.from_dict(posterior=posterior, coords=coords, dims=dims)
    data["posterior"].attrs.update(attrs)
    return data


def group(data: Any, name: str = "posterior") -> xr.Dataset:
    """A group of InferenceData / DataTree as a plain ``xarray.Dataset``."""
    node = data[name]
    return node.to_dataset() if hasattr(node, "to_dataset") else node


def has_group(data: Any, name: str) -> bool:
    if DATATREE:
        return name in data.children
    return name in data.groups()


def add_group(data: Any, name: str, dataset: xr.Dataset) -> None:
    """Add (or replace) group ``name`` in place: ``InferenceData.add_groups`` on arviz 0.x (its
    ``__setitem__`` does not add groups), a child node ``xarray.DataTree(dataset)`` on 1.x."""
    if DATATREE:
        data[name] = xr.DataTree(dataset)
        return
    if name in data.groups():
        delattr(data, name)  # InferenceData.__delattr__ also forgets the group's name
    data.add_groups({name: dataset})


def set_attrs(data: Any, attrs: dict[str, Any], name: str = "posterior") -> None:
    """Add ``attrs`` to a group (kept by NetCDF round trips on both stacks)."""
    data[name].attrs.update(attrs)


def attrs(data: Any, name: str = "posterior") -> dict[str, Any]:
    return dict(data[name].attrs)


#: Every diagnostic :func:`diagnostics` computes, in its order.
DIAGNOSTICS = ("r_hat", "ess_bulk", "ess_tail", "mcse_mean")
#: The ones a convergence check reads (R-hat ≤ 1.01 and bulk ESS ≥ 400, in convergence.py).
CONVERGENCE_DIAGNOSTICS = ("r_hat", "ess_bulk")


def diagnostics(posterior: xr.Dataset, which: Sequence[str] = DIAGNOSTICS) -> dict[str, xr.Dataset]:
    """Rank-normalised split R-hat, bulk and tail ESS and MCSE of the mean (Vehtari et al. 2021).

    ``which``: the ones computed (a subset of :data:`DIAGNOSTICS`); each is a pass over every
    draw of every variable, and a convergence check needs only :data:`CONVERGENCE_DIAGNOSTICS`.
    """
    methods = {
        "r_hat": lambda: az.rhat(posterior),
        "ess_bulk": lambda: az.ess(posterior, method="bulk"),
        "ess_tail": lambda: az.ess(posterior, method="tail"),
        "mcse_mean": lambda: az.mcse(posterior, method="mean"),
    }
    unknown = [name for name in which if name not in methods]
    if unknown:
        raise ValueError(f"unknown diagnostic(s) {unknown}; known: {DIAGNOSTICS}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return {name: methods[name]() for name in which}


def loo(data: Any, var_name: str, reff: float) -> dict[str, Any]:
    """PSIS-LOO of the ``log_likelihood`` variable ``var_name``: ``elpd``, ``se``, ``p``,
    pointwise ``elpd_i`` and ``pareto_k`` (arrays over the units) and ArviZ's ``warning``.

    ``arviz.loo`` on both stacks (arviz 1.x re-exports ``arviz_stats.loo``); the result's
    fields are named ``elpd_loo`` / ``p_loo`` / ``loo_i`` on 0.x, ``elpd`` / ``p`` / ``elpd_i``
    on 1.x.
    """
    result = az.loo(data, pointwise=True, var_name=var_name, reff=reff)
    if DATATREE:
        elpd, p, elpd_i = result.elpd, result.p, result.elpd_i
    else:
        elpd, p, elpd_i = result["elpd_loo"], result["p_loo"], result["loo_i"]
    return {
        "elpd": float(elpd),
        "se": float(result["se"] if not DATATREE else result.se),
        "p": float(p),
        "elpd_i": np.asarray(elpd_i, dtype=np.float64).ravel(),
        "pareto_k": np.asarray(result["pareto_k"] if not DATATREE else result.pareto_k).ravel(),
        "warning": bool(result["warning"] if not DATATREE else result.warning),
    }


def thin(data: Any, every: int) -> Any:
    """Keep every ``every``-th draw of the posterior (and of ``sample_stats``' divergences and the
    pointwise ``log_likelihood``) and the groups of :data:`KEPT_WHOLE`; drop the other groups."""
    posterior = group(data).isel(draw=slice(None, None, every))
    keep = {"posterior": posterior}
    if has_group(data, "log_likelihood"):
        keep["log_likelihood"] = group(data, "log_likelihood").isel(draw=slice(None, None, every))
    if has_group(data, "sample_stats"):
        keep["sample_stats"] = group(data, "sample_stats")[["diverging"]].isel(
            draw=slice(None, None, every)
        )
    out = xr.DataTree.from_dict(keep) if DATATREE else az.InferenceData(**keep)
    for name in KEPT_WHOLE:  # per-unit summaries without draws (a mixture's assignments)
        if has_group(data, name):
            add_group(out, name, group(data, name))
    return out


#: Groups :func:`thin` keeps as they are: they hold no draws.
KEPT_WHOLE = ("cluster_assignment",)


def to_netcdf(data: Any, path: str | Path) -> Path:
    """Write ArviZ data to NetCDF (h5netcdf engine on both stacks, zlib-compressed).

    Written to a temporary file renamed into place: an interrupted write leaves no broken fit.
    """
    from rankstats._util.atomic import output_file

    path = Path(path)
    with output_file(path) as tmp:
        if DATATREE:
            encoding = {
                f"/{name}": {v: {"zlib": True, "complevel": 6} for v in node.data_vars}
                for name, node in data.children.items()
            }
            data.to_netcdf(tmp, engine="h5netcdf", encoding=encoding)
        else:
            data.to_netcdf(str(tmp), compress=True, engine="h5netcdf")
    return path


def from_netcdf(path: str | Path) -> Any:
    """Read ArviZ data written by :func:`to_netcdf` (either stack)."""
    if DATATREE:
        return xr.open_datatree(path, engine="h5netcdf").load()
    data = az.from_netcdf(str(path), engine="h5netcdf")
    for name in data.groups():
        data[name].load()
    return data


def pymc() -> tuple[Any, Any]:
    """``(pymc, pytensor.tensor)``, imported with :func:`quiet_pytensor` (a PyTensor version that
    searches for a BLAS at import time warns there, not in ``pm.sample``)."""
    with quiet_pytensor():
        import pymc as pm
        import pytensor.tensor as pt
    return pm, pt


def sample(model: Any, **kwargs: Any) -> Any:
    """``pm.sample`` with the NUTS sampler named explicitly (pymc 6 would pick nutpie itself),
    without PyTensor's BLAS warning and Python 3.12's fork warning (:func:`quiet_pytensor`)."""
    pm, _ = pymc()
    kwargs.setdefault("nuts_sampler", "pymc")
    with quiet_pytensor(), model:
        return pm.sample(**kwargs)


def run_chain(
    step: Any, start: dict[str, np.ndarray], *, tune: int, draws: int, seed: int
) -> list[dict[str, np.ndarray]]:
    """One chain of an already compiled step method, without ``pm.sample``: the ``draws`` points
    after ``tune`` tuning steps (values of the model's value variables).

    The loop of PyMC's ``_iter_sample`` (adaptation reset, tuning stopped at ``tune``) without
    its per-call work: ``pm.sample`` compiles the initial-point function, the trace's point
    function and re-assigns step methods on every call (about 0.8 s for a three-system model,
    longer than its 300 NUTS steps), which a simulation-based calibration pays per simulation.
    """
    rng = np.random.default_rng(seed)
    if hasattr(step, "setup_chain"):  # pymc 6
        step.setup_chain(rng, tune, draws)
    else:
        step.set_rng(rng)
    step.tune = bool(tune)
    step.reset_tuning()
    step.iter_count = 0
    point, kept = start, []
    for i in range(tune + draws):
        if i == tune:
            step.stop_tuning()
        point, _ = step.step(point)
        if i >= tune:
            kept.append(point)
    return kept
