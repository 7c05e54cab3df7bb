"""The one vocabulary of ``missing=``, the treatment of incomplete blocks, in every test and model
of :mod:`rankstats.significance` (and ``--missing`` on the command line):

``"error"`` (default)
    refuse incomplete blocks, naming the first;
``"complete-case"``
    drop the incomplete blocks (and the systems evaluated nowhere) and say what was dropped;
``"imputed"``
    keep every block, with imputed expected ranks (the rank tests only: a function that cannot
    impute refuses it, naming the words it takes).

:func:`check_missing` validates the argument once, at the top of each public function, before
any computation. The spellings of earlier releases (``"refuse"``, ``"drop"``) are accepted with a
:class:`FutureWarning` naming the new word, for one release.

Examples
--------
>>> check_missing("complete-case")
'complete-case'
>>> check_missing("imputed", allowed=("error", "complete-case"), what="the Bayesian tests")
Traceback (most recent call last):
...
rankstats._util.advice.AdviceError: missing='imputed' is not available for the Bayesian tests; \
use missing='error' or missing='complete-case'
"""

from __future__ import annotations

import warnings

from rankstats._util.advice import AdviceError, escape
from rankstats._util.user_frame import user_stacklevel

#: Every treatment of incomplete blocks, in the order documented.
WORDS = ("error", "complete-case", "imputed")
#: The treatments of functions that need complete blocks (of scores, or of pairs).
COMPLETE = ("error", "complete-case")
#: Old spellings, accepted for one release with a FutureWarning: old → new.
OLD_WORDS = {"refuse": "error", "drop": "complete-case"}


def check_missing(
    missing: object,
    allowed: tuple[str, ...] = WORDS,
    what: str = "",
    min_coverage: float = 0.0,
) -> str:
    """``missing`` in the one vocabulary (an old spelling translated, with a FutureWarning).

    Parameters
    ----------
    missing : str
        The argument as given.
    allowed : tuple of str
        The words the caller takes (a subset of :data:`WORDS`).
    what : str
        What cannot take a word of :data:`WORDS` outside ``allowed`` (``"the parametric
        tests"``), for the message.
    min_coverage : float
        Refused above 0 with ``missing="error"`` (it drops systems, and nothing is dropped then).

    Raises
    ------
    AdviceError
        An unknown word (the allowed ones listed), a word the caller cannot take, or
        ``min_coverage`` without a treatment that drops systems.
    """
    if isinstance(missing, str) and missing in OLD_WORDS:
        new = OLD_WORDS[missing]
        warnings.warn(
            f"missing={missing!r} is now spelled missing={new!r} (the old word is accepted "
            "until the next release)",
            FutureWarning,
            stacklevel=user_stacklevel(),
        )
        missing = new
    if missing not in WORDS or (missing not in allowed and not what):
        words = ", ".join(map(repr, allowed))
        raise AdviceError(escape(f"missing must be one of {words}, not {missing!r}"))
    if missing not in allowed:
        others = " or ".join("{" + w.replace("-", "_") + "}" for w in allowed)
        raise AdviceError(
            "{given} is not available for " + what + "; use " + others,
            given=("missing", missing),
            **{w.replace("-", "_"): ("missing", w) for w in allowed},
        )
    if min_coverage and missing == "error":
        dropping = " or ".join("{" + w.replace("-", "_") + "}" for w in allowed if w != "error")
        raise AdviceError(
            "{min_coverage} applies with " + dropping + " (it drops the rarely evaluated "
            "systems first; {error} drops nothing)",
            min_coverage=None,
            error=("missing", "error"),
            **{w.replace("-", "_"): ("missing", w) for w in allowed if w != "error"},
        )
    return str(missing)
