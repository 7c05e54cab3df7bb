"""Names of simulated systems and tasks (``sys01 .. sysNN``, ``task01 ..``), zero-padded so that
they sort in generating order.
"""

from __future__ import annotations


def system_names(n: int) -> list[str]:
    """``sys01 .. sysNN``: system ``n`` has location ``φ n`` (``sysNN`` is best)."""
    width = max(2, len(str(n)))
    return [f"sys{i:0{width}d}" for i in range(1, n + 1)]


def task_names(n: int) -> list[str]:
    """``task01 .. taskNN``, in generating order."""
    width = max(2, len(str(n)))
    return [f"task{i:0{width}d}" for i in range(1, n + 1)]
