"""One PyMC model and one compiled log-density per model structure and process.

``pm.sample`` compiles the model's log-density and gradient (``model.logp_dlogp_function``)
twice on every call on both stacks (once to check the jittered starting points, once for the
NUTS step): PyTensor's graph rewriting costs 1-2 s for a Plackett-Luce or Bradley-Terry model
and about 8 s for the hierarchical model of the Bayesian comparison, every time, although the
C code itself is cached on disk.  A K-fold comparison refits the same model K times, a report
fits the same families again, a test suite hundreds of times.

Here a model is built once per *structure* (what its graph holds as constants: the family, the
number of parameters, prior scales, the options that add or remove terms) and its data enter as
``pm.Data``: a later fit of the same structure puts its data in with ``pm.set_data`` and samples
the same model (:func:`shared_model`).  :func:`compile_once` makes the model keep the functions
``logp_dlogp_function`` compiled, keyed by the arguments that change the graph; the data are
shared variables read by the compiled function at every call, so the function of the first fit
computes the second fit's density exactly as a new compilation would (the same graph, the same
rewrites): the draws are identical, bit for bit (tests/models/test_shared_graphs.py).

At most :data:`MAX_MODELS` structures are kept, the least recently used evicted first: a
simulation over many numbers of systems would otherwise hold every compiled model it ever built
(a few MB each).  An evicted structure is built and compiled again when it returns.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

#: The lock a caller holds from :func:`shared_model` until its sampling is done: two threads
#: must not put different data into one model at the same time.
LOCK = threading.RLock()
#: How many model structures one process keeps (least recently used evicted first).
MAX_MODELS = 16
_MODELS: OrderedDict[tuple, Any] = OrderedDict()


def compile_once(model: Any) -> Any:
    """Make ``model.logp_dlogp_function`` compile once per distinct set of arguments.

    The key is what changes the compiled graph: the names of the gradient variables (``None``
    meaning every continuous free variable, as PyMC reads it), ``tempered`` and the remaining
    keyword arguments (``ravel_inputs``, ``dtype``, compile options); ``initial_point`` only
    sets the values of variables outside the gradient, re-applied to the cached function as
    PyMC does on each call.  Returns ``model``.
    """
    if getattr(model, "_rankstats_compiled", None) is not None:
        return model
    compile_ = model.logp_dlogp_function  # the class's method, bound before it is shadowed
    cache: dict[tuple, Any] = {}

    def logp_dlogp_function(grad_vars=None, tempered=False, initial_point=None, **kwargs):
        wrt = model.continuous_value_vars if grad_vars is None else grad_vars
        key = (
            tuple(getattr(v, "name", str(v)) for v in wrt),
            bool(tempered),
            tuple(sorted((name, repr(value)) for name, value in kwargs.items())),
        )
        function = cache.get(key)
        if function is None:
            function = compile_(grad_vars, tempered=tempered, initial_point=initial_point, **kwargs)
            cache[key] = function
        elif initial_point is not None and function._extra_vars:
            function.set_extra_values(initial_point)
        return function

    model.logp_dlogp_function = logp_dlogp_function
    model._rankstats_compiled = cache
    return model


def shared_model(
    key: tuple,
    build: Callable[[Mapping[str, np.ndarray]], Any],
    data: Mapping[str, np.ndarray],
    coords: Mapping[str, Sequence[Any]] | None = None,
) -> Any:
    """The model of structure ``key`` holding ``data``: built by ``build(data)`` on the first
    call in this process (and made to compile once, :func:`compile_once`), given ``data`` with
    ``pm.set_data`` on later calls.

    ``data`` must name every ``pm.Data`` of the model: a value left over from an earlier fit
    would silently enter this one, so a missing or unknown name raises.  ``coords``: the
    coordinate values of this fit (the system names), put into the model on later calls, as
    the key fixes their number only: the draws are labelled from the model's coordinates
    wherever PyMC reads them (nutpie ignores ``idata_kwargs``).  Hold :data:`LOCK` from this
    call until the sampling ends.
    """
    from rankstats._pymc import compat as _compat

    model = _MODELS.get(key)
    if model is None:
        model = compile_once(build(data))
        _MODELS[key] = model
        while len(_MODELS) > MAX_MODELS:
            _MODELS.popitem(last=False)
        return model
    _MODELS.move_to_end(key)
    pm, _ = _compat.pymc()
    names = {var.name for var in model.data_vars}
    if names != set(data):
        raise ValueError(
            f"the data of a shared model must name each of its pm.Data once: the model has "
            f"{sorted(names)}, the fit gives {sorted(data)}"
        )
    pm.set_data(dict(data), model=model)
    for dim, values in (coords or {}).items():
        values = tuple(values)
        if len(values) != len(model.coords[dim]):
            raise ValueError(
                f"the shared model of {key} has {len(model.coords[dim])} {dim!r} coordinates, "
                f"the fit gives {len(values)}"
            )
        model.coords[dim] = values  # Model.coords is the model's own dict
    return model


def clear() -> None:
    """Forget every shared model (the next fit of each structure builds and compiles again)."""
    with LOCK:
        _MODELS.clear()
