"""Errors and warnings whose advice names an option, spelled for the reader: as a Python
argument (``missing='complete-case'``) in the library, as a flag (``--missing complete-case``)
on the command line.

A message is written once, as a template whose ``{name}`` fields are options: ``str(err)``
spells them as Python arguments, :meth:`Advice.cli` as flags. The command line never rewrites
a library message with ``str.replace``.

Examples
--------
>>> err = AdviceError("pass {missing} to drop them", missing="complete-case")
>>> str(err)
"pass missing='complete-case' to drop them"
>>> err.cli()
'pass --missing complete-case to drop them'
>>> str(AdviceError("raise {min_coverage}", min_coverage=None))
'raise min_coverage'
>>> AdviceError("or {other}", other=("missing", "imputed")).cli()
'or --missing imputed'
>>> AdviceError("pass {m}", m=Spelled("method='conover'", "--posthoc conover")).cli()
'pass --posthoc conover'
>>> AdviceError("pass {na_values}", na_values=["NA", "n/a"]).cli()
'pass --na-values NA n/a'
>>> err = AdviceError("fit with {bias_reduction} or {order_effect}", bias_reduction=True,
...                   order_effect=False)
>>> str(err)
'fit with bias_reduction=True or order_effect=False'
>>> err.cli()
'fit with --bias-reduction or --no-order-effect'

This is the one mechanism: the library raises the template, the command line prints
``err.cli()`` (:func:`rankstats.cli.main`); no module of :mod:`rankstats.cli` rewrites a message.
"""

from __future__ import annotations

import re
import shlex

from rankstats.errors import (
    DataWarning,
    InvalidRankingsError,
    InvalidScoresError,
    OutputError,
    ResourceError,
    UnreadableFileError,
)

#: Options whose flag is not ``--`` + the argument name with dashes.
FLAGS = {
    "simultaneous": "--marginal",
    # The library names these as the vocabulary replaced (docs/vocabulary.md): their flags.
    "n_boot": "--n-resamples",
    "bootstrap": "--n-resamples",
    "n_bootstrap": "--n-resamples",
    "confidence": "--confidence-level",
    "workers": "--n-jobs",
    "n_draws": "--draws",
    "adjust": "--correction",
    "level": "--by",
}


def python_spelling(name: str, value: object = None) -> str:
    """``name='value'`` (``name`` alone when ``value`` is None)."""
    return name if value is None else f"{name}={value!r}"


def cli_spelling(name: str, value: object = None) -> str:
    """``--name value`` (``--name`` alone when ``value`` is None or True, ``--no-name`` when it
    is False: a switch; a list as the words of a many-valued flag)."""
    flag = FLAGS.get(name, "--" + name.replace("_", "-"))
    if isinstance(value, bool):
        return flag if value else "--no-" + flag[2:]
    if isinstance(value, list):
        value = " ".join(map(shell_word, value))
    elif isinstance(value, str):
        value = shell_word(value)
    return flag if value is None else f"{flag} {value}"


def shell_word(name: object) -> str:
    r"""A value as one word of a shell command line, safe to paste as printed.

    Quoted by :func:`shlex.quote` when it holds a character the shell reads (a space, a quote,
    ``$``, a backtick, a glob or brace, ...), so that nothing in a name is run or expanded;
    written as bash's ``$'...'`` with escapes when it holds a character that cannot be shown (a
    newline, a terminal escape, a direction override), so that the message shows none of them.

    >>> shell_word("bert-base"), shell_word("a'$(id)"), shell_word("a\nb")
    ('bert-base', '\'a\'"\'"\'$(id)\'', "$'a\\nb'")
    """
    text = str(name)
    if not text.isprintable():
        return "$'" + "".join(_escaped(char) for char in text) + "'"
    if not text or re.search(r"[\s'\"$`\\;&|<>()*?#~!{}\[\]]", text):
        return shlex.quote(text)
    return text


def _escaped(char: str) -> str:
    """One character inside bash's ``$'...'``."""
    named = {"\\": "\\\\", "'": "\\'", "\n": "\\n", "\t": "\\t", "\r": "\\r"}
    if char in named:
        return named[char]
    if char.isprintable():
        return char
    code = ord(char)
    if code < 0x80:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


class Spelled:
    """An option whose two spellings differ beyond the rule (``method='conover'`` of
    :func:`~rankstats.significance.posthoc_tests.posthoc` is ``--posthoc conover`` on the command
    line)."""

    def __init__(self, python: str, cli: str):
        self.python, self.cli = python, cli


def keywords(*names: str) -> dict[str, Spelled]:
    """Options named as keyword arguments to pass (``model_a=`` in Python, ``--model-a`` on the
    command line), for a template's ``{name}`` fields.

    >>> AdviceError("name them with {a_b}", **keywords("a_b")).cli()
    'name them with --a-b'
    >>> str(AdviceError("name them with {a_b}", **keywords("a_b")))
    'name them with a_b='
    """
    return {name: Spelled(f"{name}=", cli_spelling(name)) for name in names}


def escape(text: object) -> str:
    """Text (a user's name) safe inside a template: braces doubled."""
    return str(text).replace("{", "{{").replace("}", "}}")


class Advice:
    """A message template with options (mixed into an exception or a warning, before it:
    ``class X(Advice, ValueError)``)."""

    template: str
    options: dict

    def __init__(self, template: str, **options: object):
        super().__init__(self._init(template, options))

    def __reduce__(self):  # pickled (worker processes) with its template, not its text
        return _rebuild, (type(self), self.template, self.options)

    def _init(self, template: str, options: dict) -> str:
        self.template = template
        self.options = options
        return self.spell(python_spelling)

    def spell(self, how) -> str:
        """The template with every option spelled by ``how(name, value)``; an option given as
        ``(name, value)`` is spelled under that name (two values of one argument)."""

        def one(key: str, value: object) -> str:
            if isinstance(value, Spelled):
                return value.cli if how is cli_spelling else value.python
            return how(*value) if isinstance(value, tuple) else how(key, value)

        return self.template.format(**{k: one(k, v) for k, v in self.options.items()})

    def cli(self) -> str:
        """The message with every option spelled as a command-line flag."""
        return self.spell(cli_spelling)


def _rebuild(cls: type, template: str, options: dict) -> Advice:
    return cls(template, **options)


class AdviceError(Advice, ValueError):
    """A ``ValueError`` whose remedy names options (see :mod:`rankstats._util.advice`)."""


class AdviceScoresError(Advice, InvalidScoresError):
    """An :class:`~rankstats.errors.InvalidScoresError` whose remedy names options."""


class AdviceRankingsError(Advice, InvalidRankingsError):
    """An :class:`~rankstats.errors.InvalidRankingsError` whose remedy names options."""


class AdviceFileError(Advice, UnreadableFileError):
    """An :class:`~rankstats.errors.UnreadableFileError` whose remedy names options."""


class AdviceResourceError(Advice, ResourceError):
    """A :class:`~rankstats.errors.ResourceError` whose remedy names options."""


class AdviceOutputError(Advice, OutputError):
    """An :class:`~rankstats.errors.OutputError` that names the output's option
    (``out='report'`` in Python, ``--out report`` on the command line)."""


class AdviceWarning(Advice, DataWarning):
    """A :class:`~rankstats.errors.DataWarning` whose advice names options."""


class AdviceText(Advice):
    """Advice that is shown, neither raised nor warned (the remedy of a data-check finding, a
    hint in a report): ``str()`` spells its options as Python arguments, :meth:`cli` as flags.

    >>> hint = AdviceText("rank per instance ({by})", by="instance")
    >>> str(hint), hint.cli()
    ("rank per instance (by='instance')", 'rank per instance (--by instance)')
    """

    def __init__(self, template: str, **options: object):
        self.text = self._init(template, options)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.text!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AdviceText):
            return NotImplemented
        return (self.text, self.cli()) == (other.text, other.cli())

    def __hash__(self) -> int:
        return hash((self.text, self.cli()))
