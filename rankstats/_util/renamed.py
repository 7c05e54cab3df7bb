"""The one mechanism for renamed parameters and attributes (docs/vocabulary.md): an old spelling
keeps working for one release, with a :class:`FutureWarning` naming the new one.

:func:`renamed_parameters` decorates a function, a method or a class (its constructor): an old
keyword is translated to the new one with a warning, and giving both is a :class:`TypeError`
naming both. The signature (``inspect.signature``, ``help``) and the docstring show only the
new names. On a dataclass, each renamed field also keeps its old name as a read-only
attribute that warns (:func:`renamed_attribute`); other renamed attributes are declared with
:func:`renamed_attribute` in the class body.

Examples
--------
>>> import warnings
>>> @renamed_parameters(cores="n_jobs")
... def fit(data, n_jobs=1):
...     return n_jobs
>>> import inspect
>>> inspect.signature(fit)
<Signature (data, n_jobs=1)>
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     fit([], cores=2)
2
>>> print(caught[0].message)
cores is now n_jobs (in fit); the old spelling will be removed in the next release
>>> fit([], cores=2, n_jobs=2)
Traceback (most recent call last):
...
TypeError: fit() got both n_jobs and its old spelling cores; give only n_jobs
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import warnings
from collections.abc import Callable, Collection
from typing import Any, TypeVar

from rankstats._util.user_frame import user_stacklevel

T = TypeVar("T")

#: The attribute on a decorated callable with its renames (old → new), for the tests.
RENAMES = "__renamed_parameters__"


def warn_renamed(old: str, new: str, where: str) -> None:
    """The one :class:`FutureWarning` of an old spelling: ``old`` is now ``new`` (in ``where``)."""
    warnings.warn(
        f"{old} is now {new} (in {where}); the old spelling will be removed in the next release",
        FutureWarning,
        stacklevel=user_stacklevel(),
    )


def translate(
    kwargs: dict[str, Any],
    renames: dict[str, str],
    where: str,
    positional: Collection[str] = (),
) -> dict[str, Any]:
    """``kwargs`` with every old keyword of ``renames`` (old → new) spelled the new way.

    ``positional`` names the parameters already given by position.

    Raises
    ------
    TypeError
        Both the old and the new spelling of one parameter given.
    """
    if not renames.keys() & kwargs.keys():
        return kwargs
    kwargs = dict(kwargs)
    for old, new in renames.items():
        if old not in kwargs:
            continue
        if new in kwargs or new in positional:
            raise TypeError(f"{where}() got both {new} and its old spelling {old}; give only {new}")
        warn_renamed(old, new, where)
        kwargs[new] = kwargs.pop(old)
    return kwargs


def _check(function: Callable[..., Any], renames: dict[str, str]) -> None:
    """A rename must name a parameter that exists under its new name only (caught at import)."""
    parameters = inspect.signature(function).parameters
    grouped = getattr(function, GROUPS, set())  # old keywords an options object now holds
    for old, new in renames.items():
        if (new not in parameters and new not in grouped) or old in parameters:
            raise TypeError(
                f"renamed_parameters: {function.__qualname__} must take {new} and not {old}"
            )


def _wrap(function: Callable[..., T], renames: dict[str, str], where: str) -> Callable[..., T]:
    _check(function, renames)
    renames = {**getattr(function, RENAMES, {}), **renames}
    order = [
        p.name
        for p in inspect.signature(function).parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]

    @functools.wraps(function)  # __wrapped__: inspect.signature shows the new names only
    def wrapper(*args: Any, **kwargs: Any) -> T:
        return function(*args, **translate(kwargs, renames, where, order[: len(args)]))

    setattr(wrapper, RENAMES, renames)
    return wrapper


class renamed_attribute:  # lower case: it is used like ``property``
    """A read-only attribute under an old name that warns and returns the new one.

    >>> class Result:
    ...     n_resamples = 100
    ...     n_boot = renamed_attribute("n_resamples")
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     Result().n_boot
    100
    """

    def __init__(self, new: str) -> None:
        self.new = new
        self.old = ""
        self.owner = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.old, self.owner = name, owner.__name__

    def __get__(self, instance: object, owner: type | None = None) -> Any:
        if instance is None:
            return self
        warn_renamed(self.old, self.new, self.owner)
        return getattr(instance, self.new)


def renamed_parameters(**renames: str) -> Callable[[T], T]:
    """Accept the old keyword spellings ``old=new`` of a function, method or class for one release.

    Parameters
    ----------
    **renames : str
        Old name → new name. The decorated callable must take every new name and no old one.

    Returns
    -------
    callable
        The decorator. On a class it wraps ``__init__`` (put it above ``@dataclass``) and, for
        each renamed dataclass field, adds the old name as a :class:`renamed_attribute`.
    """

    def decorate(obj: T) -> T:
        if isinstance(obj, type):
            obj.__init__ = _wrap(obj.__init__, renames, obj.__name__)  # type: ignore[misc]
            fields = (
                [f.name for f in dataclasses.fields(obj)] if dataclasses.is_dataclass(obj) else []
            )
            for old, new in renames.items():
                if new in fields and old not in vars(obj):
                    attribute = renamed_attribute(new)
                    attribute.__set_name__(obj, old)
                    setattr(obj, old, attribute)
            return obj
        return _wrap(obj, renames, obj.__qualname__)  # type: ignore[arg-type,return-value]

    return decorate


#: The attribute on a callable decorated by :func:`grouped_parameters`: its groups.
GROUPS = "__grouped_parameters__"


def grouped_parameters(
    **groups: tuple[type, Collection[str] | dict[str, str]],
) -> Callable[[T], T]:
    """Accept the old keywords that an options object now holds, for one release.

    ``target=(Options, old)``: the old keywords ``old`` (a list of field names of the frozen
    dataclass ``Options``, or a mapping old keyword → field) are now given as
    ``target=Options(...)``.  An old keyword warns (:class:`FutureWarning`) and is folded into
    ``target``: into ``Options()`` when ``target`` is left at its default or is ``True`` (a step
    switched on with its default settings), nowhere when ``target`` is ``False`` (the step is
    off: the old keyword was ignored then too).  An old keyword beside an explicit
    ``Options(...)`` is a :class:`TypeError`.

    >>> import dataclasses, warnings
    >>> @dataclasses.dataclass(frozen=True)
    ... class Chains:
    ...     draws: int = 1000
    ...     chains: int = 4
    >>> @grouped_parameters(posterior=(Chains, ["draws", "chains"]))
    ... def fit(data, posterior=False):
    ...     return posterior
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     fit([], posterior=True, draws=10)
    Chains(draws=10, chains=4)
    >>> print(str(caught[0].message).split(";")[0])
    draws is now posterior=Chains(draws=...) (in fit)
    """

    def decorate(function: T) -> T:
        where = function.__qualname__  # type: ignore[attr-defined]
        parameters = inspect.signature(function).parameters  # type: ignore[arg-type]
        spec = {
            target: (cls, dict(old) if isinstance(old, dict) else {name: name for name in old})
            for target, (cls, old) in groups.items()
        }
        for target, (cls, old) in spec.items():
            fields = {f.name for f in dataclasses.fields(cls)}
            if (
                target not in parameters
                or not set(old.values()) <= fields
                or old.keys() & set(parameters)
            ):
                raise TypeError(f"grouped_parameters: {where} must take {target}, not {set(old)}")

        @functools.wraps(function)  # type: ignore[arg-type]
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            for target, (cls, old) in spec.items():
                names = [name for name in old if name in kwargs]
                if not names:
                    continue
                for name in names:
                    warn_renamed(name, f"{target}={cls.__name__}({old[name]}=...)", where)
                given = {old[name]: kwargs.pop(name) for name in names}
                value = kwargs.get(target, parameters[target].default)
                if isinstance(value, cls) and target in kwargs:
                    raise TypeError(
                        f"{where}() got {target}={cls.__name__}(...) and the old keywords "
                        f"{', '.join(names)}; give only {target}"
                    )
                if value is not False:
                    base = value if isinstance(value, cls) else cls()
                    kwargs[target] = dataclasses.replace(base, **given)
            return function(*args, **kwargs)  # type: ignore[operator]

        setattr(wrapper, GROUPS, {name for _, old in spec.values() for name in old})
        return wrapper  # type: ignore[return-value]

    return decorate
