"""The user's frame for warnings: the ``stacklevel`` that points past rankstats' own frames."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def user_stacklevel() -> int:
    """``stacklevel`` of the first caller outside the rankstats package, for the function calling
    this: a warning points at the user's line whichever constructor, reader or analysis led to it.
    """
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level


# The package's folder, ending with a separator (``rankstats`` is not ``rankstats-out``).
_PACKAGE = str(Path(__file__).resolve().parents[1]) + os.sep
