r"""Synthetic benchmarks with a known true ranking, and the samplers behind them.

``gumbel`` follows Colombo et al. (2022, Sec. 4.1): the score of system :math:`n = 1..N` on every
(task, instance) is drawn i.i.d. from :math:`\mathrm{Gumbel}(\text{loc} = \varphi n,
\text{scale})`, so each instance ranking is Plackett–Luce with log-worths
:math:`\varphi n / \text{scale}` (Gumbel-max), and system ``N`` is the best.  Corruptions
(combinable, each recorded in ``parameters``):

- ``adversarial_tasks=k``: ``k`` tasks drawn with location :math:`-n` instead (the manipulation of
  Colombo et al. 2022, Fig. 2): they rank the systems in reverse, with a strong signal;
- ``rescale={task: λ}``: multiply a task's scores by λ (scaling robustness; affects the mean only);
- ``missing=η``, ``missing_pattern="cell"`` (each score independently) or ``"block"`` (a whole
  (system, task) removed, as in Himmi et al. 2023);
- ``outliers=(ρ, m)``: a share ρ of the scores moved by ``± m · scale`` (random sign);
- ``instance_types=(K, s)``: instances fall into ``K`` types and each (system, type) gets an offset
  drawn from :math:`N(0, s^2 \text{scale}^2)` (systems specialised on some kinds of inputs,
  after Peyrard et al. 2021, Sec. 4);
- ``round_to=d``: round scores to ``d`` decimals, creating ties.

``plackett_luce`` (Gumbel-max) and ``mallows`` (repeated insertion, Kendall distance) sample
rankings directly; both are vectorised over rankings.

Every argument of a generator is checked before any work (a ``ValueError`` naming the argument
and its valid range).  Outputs cannot be mistaken for complete data: ``to_csv`` / ``to_parquet``
write to a temporary name and rename, and :func:`gumbel_files` writes its parts into a temporary
directory that is renamed into place only after the last part, with ``rankstats-manifest.json``
listing the parts and their rows.
"""

from __future__ import annotations

import importlib
import json
import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from rankstats._util.atomic import (
    check_output_dir,
    check_output_file,
    checkpoint,
    output_dir,
    output_file,
)
from rankstats._util.progress import meter
from rankstats.core.rankings import Rankings
from rankstats.core.scores import Scores
from rankstats.errors import OutputError
from rankstats.io.sources import MANIFEST, PARQUET_SUFFIXES  # written last by gumbel_files

#: File name extensions :meth:`SimulatedScores.to_csv` and :meth:`~SimulatedScores.to_parquet`
#: write.
CSV_SUFFIXES = (".csv", ".csv.gz", ".tsv")


@dataclass(frozen=True, eq=False, repr=False)
class SimulatedScores(Scores):
    """:class:`~rankstats.Scores` generated with a known truth.

    Attributes
    ----------
    truth : tuple of str
        Systems best first (the generating order).
    parameters : dict
        Every generating parameter and corruption, for the record (and the JSON sidecar).
    """

    truth: tuple[str, ...] = ()
    parameters: dict = field(default_factory=dict)

    def _grouped(self) -> pd.DataFrame:
        # Rows of one (task, instance) together: what streaming readers (rs.scan_scores) need.
        if not self.has_instances:
            return self.data
        return self.data.sort_values(["task", "instance"], kind="stable")

    def _write(self, path: str | Path, kind: str) -> tuple[Path, Path]:
        """Data file and ``<stem>.truth.json`` sidecar, each to a temporary name, then renamed.

        Both are complete before either replaces an earlier file, so an interrupted run leaves
        the earlier pair (or nothing), never a new table beside an old truth.
        """
        path = check_output_file(path, CSV_SUFFIXES + PARQUET_SUFFIXES, option="path")
        name = path.name.lower()
        suffixes = CSV_SUFFIXES if kind == "csv" else PARQUET_SUFFIXES
        if not name.endswith(suffixes):
            other = "to_parquet" if kind == "csv" else "to_csv"
            raise OutputError(
                f"path {path}: to_{kind} writes {', '.join(suffixes)} files; use {other} for "
                f"{path.name!r}"
            )
        meta = path.with_name(path.name.split(".")[0] + ".truth.json")
        sidecar = json.dumps(
            {"truth": list(self.truth), "parameters": self.parameters}, indent=1, default=str
        )
        table = self._grouped()
        with output_file(meta) as tmp_meta, output_file(path) as tmp_data:
            if kind == "parquet":
                table.to_parquet(tmp_data, index=False)
            else:
                sep = "\t" if name.endswith(".tsv") else ","
                table.to_csv(tmp_data, index=False, sep=sep)
            tmp_meta.write_text(sidecar)
        return path, meta

    def to_csv(self, path: str | Path) -> tuple[Path, Path]:
        """Write the long table (``.csv``, ``.csv.gz`` or tab-separated ``.tsv``) and
        ``<name>.truth.json`` next to it, atomically.

        Raises
        ------
        OutputError
            ``path`` has another extension (``.parquet`` / ``.pq``: use :meth:`to_parquet`),
            is a directory or cannot be written.
        """
        return self._write(path, "csv")

    def to_parquet(self, path: str | Path) -> tuple[Path, Path]:
        """Write the long table (``.parquet`` or ``.pq``) and ``<name>.truth.json`` next to it,
        atomically.

        Raises
        ------
        OutputError
            ``path`` has another extension (``.csv``, ``.csv.gz``, ``.tsv``: use
            :meth:`to_csv`), is a directory or cannot be written.
        """
        return self._write(path, "parquet")

    def __repr__(self) -> str:
        base = super().__repr__()
        return f"Simulated{base[:-1]}; truth: {', '.join(self.truth[:3])}, ...)"


def system_names(n: int) -> list[str]:
    """``sys01 .. sysNN``: system ``n`` has location ``φ n`` (``sysNN`` is best)."""
    width = max(2, len(str(n)))
    return [f"sys{i:0{width}d}" for i in range(1, n + 1)]


def task_names(n: int) -> list[str]:
    width = max(2, len(str(n)))
    return [f"task{i:0{width}d}" for i in range(1, n + 1)]


def _check(condition: bool, message: str) -> None:
    if not condition:
        raise ValueError(message)


def check_count(name: str, value: object, minimum: int, maximum: int | None = None) -> None:
    """``value`` is an integer (not a bool) in ``[minimum, maximum]``."""
    ok = isinstance(value, numbers.Integral) and not isinstance(value, bool)
    ok = ok and value >= minimum and (maximum is None or value <= maximum)
    if not ok:
        bound = f"≥ {minimum}" if maximum is None else f"in [{minimum}, {maximum}]"
        raise ValueError(f"{name} must be an integer {bound}, got {value!r}")


def _is_real(value: object) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def check_generator(
    n_systems: object,
    n_tasks: object,
    n_instances: object,
    phi: object,
    scale: object,
    adversarial_tasks: object = 0,
    missing: object = 0.0,
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
    _check(
        _is_real(phi) and math.isfinite(phi) and phi > 0,
        f"phi must be finite and > 0, got {phi!r}",
    )
    _check(
        _is_real(scale) and math.isfinite(scale) and scale > 0,
        f"scale must be finite and > 0, got {scale!r}",
    )
    check_count("adversarial_tasks", adversarial_tasks, 0, n_tasks)
    _check(
        _is_real(missing) and 0 <= missing < 1,
        f"missing must be a share in [0, 1), got {missing!r}",
    )
    _check(
        missing_pattern in ("cell", "block"),
        f"missing_pattern must be 'cell' or 'block', not {missing_pattern!r}",
    )
    if outliers is not None:
        ok = isinstance(outliers, Sequence) and len(outliers) == 2
        ok = ok and all(_is_real(v) and math.isfinite(v) for v in outliers)
        ok = ok and 0 <= outliers[0] <= 1
        _check(ok, f"outliers must be (share in [0, 1], finite magnitude), got {outliers!r}")
    if instance_types is not None:
        ok = isinstance(instance_types, Sequence) and len(instance_types) == 2
        ok = ok and isinstance(instance_types[0], numbers.Integral) and instance_types[0] >= 1
        ok = ok and _is_real(instance_types[1]) and 0 <= instance_types[1] < math.inf
        _check(ok, f"instance_types must be (K ≥ 1 types, spread ≥ 0), got {instance_types!r}")
    if round_to is not None:
        check_count("round_to", round_to, 0)
    for task, factor in (rescale or {}).items():
        _check(
            _is_real(factor) and math.isfinite(factor) and factor > 0,
            f"rescale factor of {task!r} must be finite and > 0, got {factor!r}",
        )


def gumbel_cube(
    n_systems: int,
    n_tasks: int,
    n_instances: int = 1,
    phi: float = 0.5,
    scale: float = 1.0,
    rng: np.random.Generator | None = None,
    adversarial_tasks: int = 0,
    rescale: Mapping[int, float] | None = None,
    missing: float = 0.0,
    missing_pattern: str = "cell",
    outliers: tuple[float, float] | None = None,
    instance_types: tuple[int, float] | None = None,
    round_to: int | None = None,
) -> np.ndarray:
    """Scores as an ``(N, T, K)`` array (NaN = removed); the engine of :func:`gumbel`.

    Tasks ``0 .. adversarial_tasks − 1`` are the adversarial ones; ``rescale`` is keyed by task
    index.

    Raises
    ------
    ValueError
        An argument out of its range (named in the message), before anything is drawn.
    """
    check_generator(
        n_systems,
        n_tasks,
        n_instances,
        phi,
        scale,
        adversarial_tasks,
        missing,
        missing_pattern,
        outliers,
        instance_types,
        round_to,
        rescale,
    )
    bad = [t for t in (rescale or {}) if not 0 <= t < n_tasks]
    _check(not bad, f"rescale task indices must be in [0, n_tasks), got {bad}")
    rng = rng if rng is not None else np.random.default_rng()
    n = np.arange(1, n_systems + 1, dtype=np.float64)
    loc = np.broadcast_to((phi * n)[:, None, None], (n_systems, n_tasks, 1)).copy()
    loc[:, :adversarial_tasks, 0] = -n[:, None]
    cube = rng.gumbel(loc=loc, scale=scale, size=(n_systems, n_tasks, n_instances))
    if instance_types is not None:
        n_types, spread = instance_types
        kind = rng.integers(0, n_types, size=(n_tasks, n_instances))
        offset = rng.normal(0.0, spread * scale, size=(n_systems, n_types))
        cube += offset[:, kind]
    if outliers is not None:
        share, magnitude = outliers
        hit = rng.random(cube.shape) < share
        cube += hit * rng.choice([-1.0, 1.0], size=cube.shape) * magnitude * scale
    for task, factor in (rescale or {}).items():
        cube[:, task, :] *= factor
    if round_to is not None:
        cube = np.round(cube, round_to)
    if missing > 0:
        if missing_pattern == "cell":
            cube[rng.random(cube.shape) < missing] = np.nan
        else:
            cube[rng.random((n_systems, n_tasks)) < missing, :] = np.nan
    return cube


def cube_to_scores(
    cube: np.ndarray, systems: Sequence[str], tasks: Sequence[str], instances: bool
) -> pd.DataFrame:
    n_sys, n_tasks, n_inst = cube.shape
    s, t, k = np.meshgrid(np.arange(n_sys), np.arange(n_tasks), np.arange(n_inst), indexing="ij")
    frame = pd.DataFrame(
        {
            "system": pd.Categorical.from_codes(s.ravel(), categories=list(systems)),
            "task": pd.Categorical.from_codes(t.ravel(), categories=list(tasks)),
            "score": cube.ravel(),
        }
    )
    if instances:
        frame.insert(2, "instance", k.ravel())
    return frame


def gumbel(
    n_systems: int = 20,
    n_tasks: int = 20,
    n_instances: int | None = None,
    phi: float = 0.5,
    scale: float = 1.0,
    seed: int | np.random.SeedSequence | None = 0,
    adversarial_tasks: int = 0,
    rescale: Mapping[str, float] | None = None,
    missing: float = 0.0,
    missing_pattern: str = "cell",
    outliers: tuple[float, float] | None = None,
    instance_types: tuple[int, float] | None = None,
    round_to: int | None = None,
) -> SimulatedScores:
    r"""A synthetic benchmark with known truth (Colombo et al. 2022, Sec. 4.1).

    Parameters
    ----------
    n_systems, n_tasks : int
        Systems ``sys01 .. sysNN`` (``sysNN`` best) and tasks ``task01 ..``.
    n_instances : int, optional
        Instances per task; ``None`` gives task-level scores (one draw per system and task).
    phi : float
        Location step: system ``n`` has location ``φ n``; larger = easier to rank.
    scale : float
        Gumbel scale; instance rankings are Plackett–Luce with log-worths ``φ n / scale``.
    seed : int or SeedSequence
        Same seed, same benchmark.
    adversarial_tasks, rescale, missing, missing_pattern, outliers, instance_types, round_to
        Corruptions, see the module docstring. ``rescale`` maps task names to factors.

    Returns
    -------
    SimulatedScores
        ``Scores`` with ``.truth`` (best first) and ``.parameters``.

    Raises
    ------
    ValueError
        An argument out of its range, named in the message: ``n_systems ≥ 2``, ``n_tasks ≥ 1``,
        ``n_instances ≥ 1``, finite ``phi > 0``, ``scale > 0``, ``adversarial_tasks`` in
        ``[0, n_tasks]``, ``missing`` in ``[0, 1)``, ``round_to ≥ 0``, ...

    Examples
    --------
    >>> import rankstats as rs
    >>> sim = rs.simulate.gumbel(n_systems=5, n_tasks=3, n_instances=10, phi=2.0, seed=0)
    >>> sim.truth[0], rs.aggregate(sim, method="borda").order[0]
    ('sys05', 'sys05')
    """
    check_generator(
        n_systems,
        n_tasks,
        n_instances,
        phi,
        scale,
        adversarial_tasks,
        missing,
        missing_pattern,
        outliers,
        instance_types,
        round_to,
        rescale,
    )
    rng = np.random.default_rng(seed)
    tasks = task_names(n_tasks)
    unknown = [t for t in (rescale or {}) if t not in tasks]
    _check(not unknown, f"rescale names unknown tasks {unknown}; tasks are {tasks[0]}..")
    cube = gumbel_cube(
        n_systems,
        n_tasks,
        n_instances or 1,
        phi,
        scale,
        rng,
        adversarial_tasks,
        {tasks.index(t): f for t, f in (rescale or {}).items()},
        missing,
        missing_pattern,
        outliers,
        instance_types,
        round_to,
    )
    systems = system_names(n_systems)
    frame = cube_to_scores(cube, systems, tasks, n_instances is not None)
    base = Scores.from_long(
        frame, instance="instance" if n_instances is not None else None, name="gumbel"
    )
    parameters = {
        "generator": "gumbel",
        "n_systems": n_systems,
        "n_tasks": n_tasks,
        "n_instances": n_instances,
        "phi": phi,
        "scale": scale,
        "seed": seed if isinstance(seed, int | None) else str(seed),
        "adversarial_tasks": tasks[:adversarial_tasks],
        "rescale": dict(rescale or {}),
        "missing": missing,
        "missing_pattern": missing_pattern,
        "outliers": outliers,
        "instance_types": instance_types,
        "round_to": round_to,
    }
    return SimulatedScores(
        data=base.data,
        systems=base.systems,
        tasks=base.tasks,
        higher_is_better=base.higher_is_better,
        skipped_tasks=base.skipped_tasks,
        skipped_instances=base.skipped_instances,
        name="gumbel",
        truth=tuple(reversed(systems)),
        parameters=parameters,
    )


def plackett_luce(
    worths: Sequence[float] | pd.Series,
    size: int,
    seed: int | None = 0,
    log: bool = False,
) -> Rankings:
    r"""Complete Plackett–Luce rankings by the Gumbel-max construction.

    Ranking by :math:`\log w_i + G_i` with i.i.d. standard Gumbel :math:`G_i` gives exactly the
    Plackett–Luce distribution (Yellott 1977): the first choice is :math:`i` with probability
    :math:`w_i / \sum_j w_j`, and so on down the ranking.

    Parameters
    ----------
    worths : sequence or Series
        Positive worths (or log-worths with ``log=True``); a Series supplies the system names.
    size : int
        Number of rankings.
    seed : int

    Examples
    --------
    >>> import rankstats as rs
    >>> rk = rs.simulate.plackett_luce({"a": 3.0, "b": 1.0}.values(), size=4, seed=1)
    >>> rk.ranks.shape
    (4, 2)
    """
    names = list(worths.index) if isinstance(worths, pd.Series) else None
    values = np.asarray(list(worths), dtype=np.float64)
    if not log:
        _check(bool((values > 0).all()), "worths must be positive (or pass log=True)")
        values = np.log(values)
    bad = np.flatnonzero(np.isnan(values) | (values == np.inf))
    _check(not len(bad), f"worths must be finite; offending item index(es): {bad.tolist()}")
    check_count("size", size, 1)
    rng = np.random.default_rng(seed)
    keys = values + rng.gumbel(size=(size, len(values)))
    ranks = np.empty_like(keys)
    np.put_along_axis(ranks, np.argsort(-keys, axis=1), np.arange(1.0, len(values) + 1), axis=1)
    systems = tuple(str(s) for s in names) if names else tuple(system_names(len(values)))
    return Rankings(ranks, systems, pd.RangeIndex(size))


def mallows_expected_distance(n: int, theta: float) -> float:
    r""":math:`E[d] = \sum_{j=1}^{n} \left(\frac{q}{1-q} - \frac{j q^j}{1-q^j}\right)`,
    :math:`q = e^{-\theta}`: expected Kendall distance to the centre (Fligner & Verducci 1986)."""
    _check(theta > 0, "theta must be > 0")
    q = np.exp(-theta)
    j = np.arange(1, n + 1)
    return float(np.sum(q / (1 - q) - j * q**j / (1 - q**j)))


def mallows(
    n: int,
    theta: float,
    size: int,
    center: Sequence[str] | None = None,
    seed: int | None = 0,
) -> Rankings:
    r"""Complete rankings from the Mallows model with Kendall distance, by repeated insertion.

    :math:`P(\pi) \propto e^{-\theta d(\pi, \sigma)}`. Item ``j`` of the centre (``j = 1..n``)
    is inserted among the ``j − 1`` before it with ``V_j`` of them ending up *after* it,
    :math:`P(V_j = v) \propto q^v`, :math:`q = e^{-\theta}`, :math:`v = 0..j-1`; the distance is
    :math:`\sum_j V_j` (Doignon et al. 2004; Lu & Boutilier 2014). The insertion codes are drawn
    for all rankings at once by inverse transform; the loop runs over the ``n`` insertion steps,
    vectorised across rankings.

    Parameters
    ----------
    n : int
        Number of items.
    theta : float
        Dispersion θ > 0 (``θ → 0``: uniform; large θ: concentrated on the centre).
    size : int
        Number of rankings.
    center : sequence of str, optional
        The centre σ, best first (default ``sys01 .. sysNN``... in that order).
    seed : int

    Examples
    --------
    >>> import rankstats as rs
    >>> rs.simulate.mallows(4, theta=50.0, size=2, center=list("abcd")).orderings()
    [['a', 'b', 'c', 'd'], ['a', 'b', 'c', 'd']]
    """
    check_count("n", n, 1)
    check_count("size", size, 1)
    _check(
        _is_real(theta) and math.isfinite(theta) and theta > 0,
        f"theta must be finite and > 0 (use a uniform sampler for θ = 0), got {theta!r}",
    )
    items = list(center) if center is not None else system_names(n)
    _check(len(items) == n, "center must list n items")
    rng = np.random.default_rng(seed)
    q = np.exp(-theta)
    j = np.arange(1, n + 1)
    u = rng.random((size, n))
    # Inverse CDF of the truncated geometric on 0..j-1: P(V ≤ v) = (1 - q^(v+1)) / (1 - q^j).
    v = np.floor(np.log1p(-u * (1 - q**j)) / np.log(q)).astype(np.int64)
    v = np.clip(v, 0, j - 1)
    position = np.zeros((size, n), dtype=np.int64)
    for step in range(1, n):
        slot = step - v[:, step]  # v of the earlier items end up after the new one
        before = position[:, :step]
        before += before >= slot[:, None]
        position[:, step] = slot
    return Rankings(position + 1.0, tuple(str(s) for s in items), pd.RangeIndex(size))


# The experiments live in rankstats.simulate.robustness_experiments, which imports this module
# (generators ← experiments, never the reverse). They stay documented as rs.simulate.<name>: the
# module __getattr__ below (PEP 562) imports them on first use, so loading the generators imports no
# experiment code.
_EXPERIMENTS = {
    "agreement": "rankstats.core.metrics",
    "perturb": "rankstats.simulate.robustness_experiments",
    "perturbation": "rankstats.simulate.robustness_experiments",
    "robustness": "rankstats.simulate.robustness_experiments",
}


if TYPE_CHECKING:  # for type checkers and linters only; nothing is imported at run time
    from rankstats.core.metrics import agreement
    from rankstats.simulate.robustness_experiments import perturb, perturbation, robustness


def __getattr__(name: str):
    if name in _EXPERIMENTS:
        return getattr(importlib.import_module(_EXPERIMENTS[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "SimulatedScores",
    "agreement",
    "gumbel",
    "gumbel_cube",
    "mallows",
    "mallows_expected_distance",
    "perturb",
    "perturbation",
    "plackett_luce",
    "robustness",
]


def gumbel_files(
    directory: str | Path,
    n_systems: int = 20,
    n_tasks: int = 20,
    n_instances: int = 330_000,
    partitions: int = 40,
    phi: float = 0.5,
    scale: float = 1.0,
    seed: int = 0,
    missing: float = 0.0,
    missing_pattern: str = "block",
    round_to: int | None = None,
    fmt: str = "parquet",
    progress: bool = False,
) -> tuple[list[Path], Path]:
    r"""Write a Gumbel benchmark too large for memory as partitioned files, one part at a time.

    The same generative model as :func:`gumbel` (score of system :math:`n` on every (task,
    instance) ~ Gumbel(φ n, scale), ``sysNN`` best), written as ``partitions`` files
    ``part-00000.parquet ...`` that each hold a contiguous range of the (task, instance) pairs,
    rows grouped by (task, instance) — what :func:`rankstats.scan_scores` streams. Memory is that
    of one part. Missing scores are left out of the files (no NaN rows):
    ``missing_pattern="block"`` removes whole (system, task) blocks, the same in every part, as in
    the missing-scores benchmark of Himmi et al. (2023); ``"cell"`` removes single scores.

    The parts are drawn from ``SeedSequence(seed).spawn(partitions)``, so a file is reproducible
    on its own; the numbers differ from :func:`gumbel` with the same seed (a different stream).

    The output is never half-written: the parts, ``truth.json`` and, last,
    ``rankstats-manifest.json`` (``{"complete": true, "files": [...], "rows": total rows,
    "generator": {parameters}}``) are written into a temporary directory beside ``directory``
    (``.<name>.partial-*``), which replaces ``directory`` as a whole only when everything is
    written.  An interrupted or failing run (Ctrl-C, a full disk) leaves ``directory`` as it was
    (absent, or the previous complete run) and no temporary directory.

    Parameters
    ----------
    directory : path
        A new or empty directory, or one an earlier rankstats run wrote (it is replaced); a
        non-empty directory rankstats did not write is refused before anything is generated.
    n_systems, n_tasks, n_instances : int
        ``20 × 20 × 330,000`` ≈ 132 million scores by default (the size of the benchmark of
        Himmi et al. 2023).
    partitions : int
        Number of files (each ≈ n_systems · n_tasks · n_instances / partitions rows), in
        ``[1, n_tasks · n_instances]``.
    phi, scale, seed, missing, missing_pattern, round_to
        As in :func:`gumbel`.
    fmt : {"parquet", "csv"}
    progress : bool
        A progress bar of the files written, with an ETA, on stderr when it is a terminal
        (:mod:`rankstats._util.progress`: nothing off a terminal or with ``RANKSTATS_QUIET=1``).

    Returns
    -------
    (list of Path, Path)
        The data files and the ``truth.json`` sidecar, in ``directory``.

    Raises
    ------
    ValueError
        An argument out of its range (named in the message), before anything is written.
    OutputError
        ``directory`` cannot be (re)placed: an existing file, a foreign non-empty directory, no
        permission.

    Examples
    --------
    >>> import tempfile, rankstats as rs
    >>> files, truth = rs.simulate.gumbel_files(tempfile.mkdtemp(), 5, 3, 100, partitions=4,
    ...                                          missing=0.2, seed=1)
    >>> len(files), rs.aggregate(rs.scan_scores(files), "borda").order[0]
    (4, 'sys05')
    """
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    check_generator(
        n_systems,
        n_tasks,
        n_instances,
        phi,
        scale,
        missing=missing,
        missing_pattern=missing_pattern,
        round_to=round_to,
    )
    check_count("partitions", partitions, 1, n_tasks * n_instances)
    _check(fmt in ("parquet", "csv"), f"fmt must be 'parquet' or 'csv', not {fmt!r}")
    directory = check_output_dir(directory, option="directory")
    systems, tasks = system_names(n_systems), task_names(n_tasks)
    parameters = {
        "generator": "gumbel_files",
        "n_systems": n_systems,
        "n_tasks": n_tasks,
        "n_instances": n_instances,
        "partitions": partitions,
        "phi": phi,
        "scale": scale,
        "seed": seed,
        "missing": missing,
        "missing_pattern": missing_pattern,
        "round_to": round_to,
        "format": fmt,
    }
    seeds = np.random.SeedSequence(seed).spawn(partitions + 1)
    blocks = np.zeros((n_systems, n_tasks), dtype=bool)
    if missing_pattern == "block" and missing > 0:
        blocks = np.random.default_rng(seeds[-1]).random((n_systems, n_tasks)) < missing
    loc = phi * np.arange(1, n_systems + 1, dtype=np.float64)
    system_dict = pa.array(systems, pa.string())
    task_dict = pa.array(tasks, pa.string())
    bounds = np.linspace(0, n_tasks * n_instances, partitions + 1).round().astype(np.int64)
    names: list[str] = []
    rows = 0
    with (
        output_dir(directory) as tmp,
        meter("simulate", total=partitions, unit="files", enabled=progress) as shown,
    ):
        for p in range(partitions):
            rng = np.random.default_rng(seeds[p])
            pair = np.arange(bounds[p], bounds[p + 1])  # flattened (task, instance) index
            task, instance = np.divmod(pair, n_instances)
            # Rows: (task, instance) major, system minor — grouped by instance.
            score = rng.gumbel(loc=loc, scale=scale, size=(len(pair), n_systems))
            if round_to is not None:
                score = np.round(score, round_to)
            keep = ~blocks[:, task].T
            if missing_pattern == "cell" and missing > 0:
                keep &= rng.random(keep.shape) >= missing
            row_pair, row_system = np.nonzero(keep)
            table = pa.table(
                {
                    "system": pa.DictionaryArray.from_arrays(
                        pa.array(row_system.astype(np.int16)), system_dict
                    ),
                    "task": pa.DictionaryArray.from_arrays(
                        pa.array(task[row_pair].astype(np.int16)), task_dict
                    ),
                    "instance": pa.array(instance[row_pair].astype(np.int32)),
                    "score": pa.array(score[row_pair, row_system]),
                }
            )
            name = f"part-{p:05d}.{fmt}"
            if fmt == "parquet":
                pq.write_table(table, tmp / name)
            else:
                pacsv.write_csv(table, tmp / name)
            names.append(name)
            rows += table.num_rows
            checkpoint("simulate-part")
            shown.advance()
        missing_blocks = [[systems[s], tasks[t]] for s, t in zip(*np.nonzero(blocks), strict=True)]
        (tmp / "truth.json").write_text(
            json.dumps(
                {
                    "truth": list(reversed(systems)),
                    "parameters": parameters,
                    "missing_blocks": missing_blocks,
                },
                indent=1,
            )
        )
        # Last: its presence says every part above is complete.
        manifest = {"complete": True, "files": names, "rows": rows, "generator": parameters}
        (tmp / MANIFEST).write_text(json.dumps(manifest, indent=1))
    return [directory / name for name in names], directory / "truth.json"
