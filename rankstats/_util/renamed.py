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

:func:`grouped_parameters` does the same for keywords that became the fields of an options
object (a frozen dataclass): ``f(x, missing_rate=0.2)`` is read as
``f(x, corruptions=Corruptions(missing_rate=0.2))``, with a :class:`FutureWarning`.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import warnings
from collections.abc import Callable, Collection, Sequence
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
    for old, new in renames.items():
        if new not in parameters or old in parameters:
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


def grouped_parameters(*, after: Sequence[str] = (), **groups: Any) -> Callable[[T], T]:
    """Accept for one release the keywords that are now fields of an options object.

    Parameters
    ----------
    **groups : dataclass type or instance
        Parameter name → the options class whose fields (and their old spellings, if the class
        is decorated with :func:`renamed_parameters`) were keywords of the function; an instance
        instead of the class gives the defaults of the fields not given.
    after : sequence of str
        The old keywords that could be given by position after the function's positional
        parameters, in their old order (read as keywords, with the same warning).

    Returns
    -------
    callable
        The decorator: the old keywords are gathered into the options object with a
        :class:`FutureWarning`; giving them together with the options object is a
        :class:`TypeError`.

    Examples
    --------
    >>> @dataclasses.dataclass(frozen=True)
    ... class Noise:
    ...     scale: float = 1.0
    ...     kind: str = "gumbel"
    >>> @grouped_parameters(noise=Noise)
    ... def draw(n, *, noise=None):
    ...     return n, noise
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     draw(3, scale=2.0)
    (3, Noise(scale=2.0, kind='gumbel'))
    >>> print(str(caught[0].message).split(";")[0])
    scale is now noise=Noise(scale=...) (in draw)
    """

    def decorate(function: T) -> T:
        parameters = inspect.signature(function).parameters  # type: ignore[arg-type]
        where = function.__qualname__  # type: ignore[attr-defined]
        fields = {}
        for group, options in groups.items():
            cls = options if isinstance(options, type) else type(options)
            names = {f.name for f in dataclasses.fields(cls)}
            names |= set(getattr(cls.__init__, RENAMES, {}))
            if group not in parameters or names & parameters.keys():
                raise TypeError(f"grouped_parameters: {where} must take {group}, not its fields")
            fields.update(dict.fromkeys(names, group))

        n_positional = sum(
            p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in parameters.values()
        )

        @functools.wraps(function)  # type: ignore[arg-type]
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            extra = args[n_positional:]
            if extra and len(extra) <= len(after):
                args = args[:n_positional]
                given = dict(zip(after, extra, strict=False))
                if twice := sorted(given.keys() & kwargs.keys()):
                    raise TypeError(f"{where}() got multiple values for {', '.join(twice)}")
                kwargs.update(given)
            loose: dict[str, dict[str, Any]] = {}
            for name in fields.keys() & kwargs.keys():
                loose.setdefault(fields[name], {})[name] = kwargs.pop(name)
            for group, values in loose.items():
                kwargs[group] = _gathered(group, groups[group], values, kwargs.get(group), where)
            return function(*args, **kwargs)  # type: ignore[operator]

        return wrapper  # type: ignore[return-value]

    return decorate


def _gathered(group: str, options: Any, values: dict[str, Any], given: Any, where: str) -> Any:
    """The options object of the loose keywords ``values`` (old spellings of its fields, if
    any, translated), with one warning naming the old keywords and the new spelling."""
    cls = options if isinstance(options, type) else type(options)
    if given is not None:
        raise TypeError(
            f"{where}() got {group} and {', '.join(sorted(values))}; give them inside {group}"
        )
    renames = getattr(cls.__init__, RENAMES, {})
    fields = {renames.get(name, name): value for name, value in values.items()}
    if len(fields) < len(values):
        raise TypeError(f"{where}() got a field of {group} under its old and new names")
    shown = ", ".join(f"{name}=..." for name in sorted(fields))
    warn_renamed(", ".join(sorted(values)), f"{group}={cls.__name__}({shown})", where)
    return cls(**fields) if isinstance(options, type) else dataclasses.replace(options, **fields)
