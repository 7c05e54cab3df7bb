"""Argument checks of the generators: each raises a ``ValueError`` naming the argument and its valid
range, before any work is done.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence

from rankstats._util.arguments import count as check_count
from rankstats._util.arguments import is_real


def require(condition: bool, message: str) -> None:
    """Raise ``ValueError(message)`` unless ``condition``."""
    if not condition:
        raise ValueError(message)


def check_generator(
    n_systems: object,
    n_tasks: object,
    n_instances: object,
    phi: object,
    scale: object,
    adversarial_tasks: object = 0,
    missing_rate: object = 0.0,
    missing_pattern: object = "cell",
    outliers: object = None,
    instance_types: object = None,
    round_to: object = None,
    rescale: Mapping | None = None,
) -> None:
    """Every argument of the Gumbel generators, before any work: ValueError naming it."""
    check_count("n_systems", n_systems, 2)
    check_count("n_tasks", n_tasks, 1)
    if n_instances is not None:
        check_count("n_instances", n_instances, 1)
    # φ ≤ 0 would make system 1 at least as good as system N: the recorded truth would be false.
    require(
        is_real(phi) and math.isfinite(phi) and phi > 0,
        f"phi must be finite and > 0, got {phi!r}",
    )
    require(
        is_real(scale) and math.isfinite(scale) and scale > 0,
        f"scale must be finite and > 0, got {scale!r}",
    )
    check_count("adversarial_tasks", adversarial_tasks, 0, n_tasks)
    require(
        is_real(missing_rate) and 0 <= missing_rate < 1,
        f"missing_rate must be a share in [0, 1), got {missing_rate!r}",
    )
    require(
        missing_pattern in ("cell", "block"),
        f"missing_pattern must be 'cell' or 'block', not {missing_pattern!r}",
    )
    if outliers is not None:
        ok = isinstance(outliers, Sequence) and len(outliers) == 2
        ok = ok and all(is_real(v) and math.isfinite(v) for v in outliers)
        ok = ok and 0 <= outliers[0] <= 1
        require(ok, f"outliers must be (share in [0, 1], finite magnitude), got {outliers!r}")
    if instance_types is not None:
        ok = isinstance(instance_types, Sequence) and len(instance_types) == 2
        ok = ok and isinstance(instance_types[0], numbers.Integral) and instance_types[0] >= 1
        ok = ok and is_real(instance_types[1]) and 0 <= instance_types[1] < math.inf
        require(ok, f"instance_types must be (K ≥ 1 types, spread ≥ 0), got {instance_types!r}")
    if round_to is not None:
        check_count("round_to", round_to, 0)
    for task, factor in (rescale or {}).items():
        require(
            is_real(factor) and math.isfinite(factor) and factor > 0,
            f"rescale factor of {task!r} must be finite and > 0, got {factor!r}",
        )
