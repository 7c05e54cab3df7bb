r"""The Gumbel benchmark generator: scores with a known true ranking.

``gumbel`` follows Colombo et al. (2022, Sec. 4.1): the score of system :math:`n = 1..N` on every
(task, instance) is drawn i.i.d. from :math:`\mathrm{Gumbel}(\text{loc} = \varphi n,
\text{scale})`, so each instance ranking is Plackett–Luce with log-worths
:math:`\varphi n / \text{scale}` (Gumbel-max), and system ``N`` is the best.  Corruptions
(combinable, each recorded in ``parameters``):

- ``adversarial_tasks=k``: ``k`` tasks drawn with location :math:`-n` instead (the manipulation of
  Colombo et al. 2022, Fig. 2): they rank the systems in reverse, with a strong signal;
- ``rescale={task: λ}``: multiply a task's scores by λ (scaling robustness; affects the mean only);
- ``missing_rate=η``, ``missing_pattern="cell"`` (each score independently) or ``"block"`` (a whole
  (system, task) removed, as in Himmi et al. 2023);
- ``outliers=(ρ, m)``: a share ρ of the scores moved by ``± m · scale`` (random sign);
- ``instance_types=(K, s)``: instances fall into ``K`` types and each (system, type) gets an offset
  drawn from :math:`N(0, s^2 \text{scale}^2)` (systems specialised on some kinds of inputs,
  after Peyrard et al. 2021, Sec. 4);
- ``round_to=d``: round scores to ``d`` decimals, creating ties.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from rankstats._util.arguments import random_seed
from rankstats._util.renamed import grouped_parameters, renamed_parameters
from rankstats.core.scores import Scores
from rankstats.simulate.argument_checks import check_count, check_generator, is_real, require
from rankstats.simulate.corruptions import (
    CORRUPTION_KEYWORDS,
    MODEL_KEYWORDS,
    Corruptions,
    ScoreModel,
)
from rankstats.simulate.labels import system_names, task_names
from rankstats.simulate.simulated_scores import SimulatedScores

#: Noise distributions of the scores around their locations.
NOISES = ("gumbel", "normal", "laplace")


@renamed_parameters(rng="seed")
@grouped_parameters(corruptions=(Corruptions, CORRUPTION_KEYWORDS))
def gumbel_cube(
    n_systems: int,
    n_tasks: int,
    n_instances: int | None = 1,
    phi: float = 0.5,
    scale: float = 1.0,
    seed: np.random.Generator | int | np.random.SeedSequence | None = None,
    *,
    corruptions: Corruptions | None = None,
    rescale_by_name: bool = False,
) -> np.ndarray:
    """Scores as an ``(N, T, K)`` array (NaN = removed); the engine of :func:`gumbel`.

    ``corruptions`` (:class:`~rankstats.simulate.corruptions.Corruptions`; its fields were
    keywords of this function, still accepted for one release with a FutureWarning): tasks
    ``0 .. adversarial_tasks − 1`` are the adversarial ones; ``rescale`` is keyed by task
    index, or by task name (``task01 ..``) with ``rescale_by_name`` (as :func:`gumbel` does).
    ``seed`` may be a seed or a ``Generator`` (``numpy.random.default_rng`` returns it unchanged),
    and ``n_instances=None`` means one score per (system, task).

    Raises
    ------
    ValueError
        An argument out of its range (named in the message), before anything is drawn.
    """
    cubes = gumbel_cubes(
        1,
        n_systems,
        n_tasks,
        n_instances,
        phi,
        scale,
        seed,
        corruptions=corruptions,
        rescale_by_name=rescale_by_name,
    )
    return cubes[0]


@grouped_parameters(
    corruptions=(Corruptions, CORRUPTION_KEYWORDS), model=(ScoreModel, MODEL_KEYWORDS)
)
def gumbel_cubes(
    replications: int,
    n_systems: int,
    n_tasks: int,
    n_instances: int | None = 1,
    phi: float = 0.5,
    scale: float = 1.0,
    seed: np.random.Generator | int | np.random.SeedSequence | None = None,
    *,
    corruptions: Corruptions | None = None,
    rescale_by_name: bool = False,
    model: ScoreModel | None = None,
) -> np.ndarray:
    r"""``replications`` independent score cubes at once, shape ``(R, N, T, K)``.

    The generator of :func:`gumbel_cube` with a leading replication axis, drawn in one call per
    kind of draw (no Python loop over replications): the power simulations
    (:mod:`rankstats.planning`) draw thousands of benchmarks this way. With ``replications=1`` the
    draws, in the same order from the same generator, are those of :func:`gumbel_cube`, which is
    this function's first cube.

    ``model`` (:class:`~rankstats.simulate.corruptions.ScoreModel`) replaces the honest
    locations :math:`\varphi n` (``locations``; ``phi`` is then not used) or the Gumbel noise:
    ``noise="normal"`` draws :math:`N(\text{loc}, \text{scale}^2)` (Thurstone's case V) with
    ``correlation`` ρ between the scores of any two systems on the same instance; ``binary``
    turns each score into an outcome, 1 when above 0 (system ``i`` is then right with
    probability :math:`\Phi(\mu_i / \text{scale})` under normal noise), before the other
    corruptions; ``system_scales`` multiplies each system's noise; ``noise="laplace"`` draws
    :math:`\text{loc} + \text{scale} \cdot s_i L` with :math:`L` standard Laplace (Card et
    al. 2020, Sec. 4); ``identical`` blocks give every system the first system's score;
    ``task_effects`` put each task on the units of a pilot's task (applied before rounding);
    ``rank_sampler`` replaces the scores by rankings of another model (Mallows) scored as
    ``−rank``, the missing scores then removed as for any other draw (the score corruptions do
    not apply). The fields of ``corruptions`` and ``model`` were keywords of this function,
    still accepted as keywords for one release with a FutureWarning.
    """
    c = corruptions or Corruptions()
    model = model or ScoreModel()
    check_count("replications", replications, 1)
    random_seed("seed", seed)
    check_generator(
        n_systems,
        n_tasks,
        n_instances,
        phi,
        scale,
        c.adversarial_tasks,
        c.missing_rate,
        c.missing_pattern,
        c.outliers,
        c.instance_types,
        c.round_to,
        c.rescale,
    )
    rng = np.random.default_rng(seed)
    n_instances = 1 if n_instances is None else n_instances
    rescale = _task_factors(c.rescale, n_tasks, rescale_by_name)
    loc = _locations(n_systems, n_tasks, phi, c.adversarial_tasks, model.locations)
    shape = (replications, n_systems, n_tasks, n_instances)
    if model.rank_sampler is not None:
        ranks = model.rank_sampler(replications * n_tasks * n_instances, rng)
        cube = (
            -np.asarray(ranks, dtype=np.float64)
            .reshape(replications, n_tasks, n_instances, n_systems)
            .transpose(0, 3, 1, 2)
        )
        return _remove_missing(cube, rng, c.missing_rate, c.missing_pattern)
    cube = _noisy(loc, scale, shape, model, rng)
    if model.identical:
        # Identical outputs: on these (task, instance) blocks every system scores as the first.
        same = rng.random((replications, 1, n_tasks, n_instances)) < model.identical
        cube = np.where(same, cube[:, :1], cube)
    if model.binary:
        cube = (cube > 0).astype(np.float64)
    cube = _corrupted(cube, rng, c, scale, rescale)
    if model.task_effects is not None:
        effects = np.asarray(model.task_effects, dtype=np.float64)
        pick = rng.integers(0, len(effects), size=(replications, 1, n_tasks, 1))
        cube = effects[pick, 0] + effects[pick, 1] * cube
    if c.round_to is not None:
        cube = np.round(cube, c.round_to)
    return _remove_missing(cube, rng, c.missing_rate, c.missing_pattern)


def _task_factors(rescale: Mapping | None, n_tasks: int, by_name: bool) -> dict[int, float]:
    """``rescale`` keyed by task index (from task names with ``by_name``), checked."""
    if by_name:
        tasks = task_names(n_tasks)
        unknown = [t for t in (rescale or {}) if t not in tasks]
        require(not unknown, f"rescale names unknown tasks {unknown}; tasks are {tasks[0]}..")
        rescale = {tasks.index(t): f for t, f in (rescale or {}).items()}
    bad = [t for t in (rescale or {}) if not 0 <= t < n_tasks]
    require(not bad, f"rescale task indices must be in [0, n_tasks), got {bad}")
    return dict(rescale or {})


def _locations(
    n_systems: int, n_tasks: int, phi: float, adversarial: int, locations: np.ndarray | None
) -> np.ndarray:
    r"""Locations ``(N, T, 1)``: :math:`\varphi n` or ``locations``, reversed (:math:`-n`) on the
    adversarial tasks."""
    n = np.arange(1, n_systems + 1, dtype=np.float64)
    honest = phi * n
    if locations is not None:
        honest = np.asarray(locations, dtype=np.float64)
        require(
            honest.shape == (n_systems,) and bool(np.all(np.isfinite(honest))),
            f"locations must be {n_systems} finite numbers, got shape {honest.shape}",
        )
    loc = np.broadcast_to(honest[:, None, None], (n_systems, n_tasks, 1)).copy()
    loc[:, :adversarial, 0] = -n[:, None]
    return loc


def _noisy(
    loc: np.ndarray,
    scale: float,
    shape: tuple[int, int, int, int],
    model: ScoreModel,
    rng: np.random.Generator,
) -> np.ndarray:
    """The scores: ``loc`` plus the model's noise (Gumbel, normal, possibly correlated or with
    each system's scale, or Laplace)."""
    noise, correlation, n_systems = model.noise, model.correlation, shape[1]
    require(noise in NOISES, f"noise must be one of {', '.join(NOISES)}, not {noise!r}")
    check_correlation(correlation, n_systems, noise)
    require(
        is_real(model.identical) and 0 <= model.identical < 1,
        f"identical must be a share in [0, 1), got {model.identical!r}",
    )
    system_scales = model.system_scales
    if system_scales is not None:
        system_scales = check_system_scales(system_scales, n_systems, noise)
    if noise == "laplace":
        spread = np.ones(n_systems) if system_scales is None else system_scales
        return loc + scale * spread[:, None, None] * rng.laplace(0.0, 1.0, size=shape)
    if correlation or system_scales is not None:
        mix = noise_mixing(n_systems, correlation, system_scales)
        z = rng.standard_normal(size=shape)
        # A matrix product per replication (BLAS), systems mixed within each (task, instance).
        return loc + scale * np.matmul(mix, z.reshape(shape[0], n_systems, -1)).reshape(shape)
    draw = rng.normal if noise == "normal" else rng.gumbel
    return draw(loc=loc, scale=scale, size=shape)


def _corrupted(
    cube: np.ndarray,
    rng: np.random.Generator,
    c: Corruptions,
    scale: float,
    rescale: dict[int, float],
) -> np.ndarray:
    """``cube`` with the instance types' offsets, the outliers and the task factors."""
    replications, n_systems, n_tasks, n_instances = cube.shape
    if c.instance_types is not None:
        n_types, spread = c.instance_types
        kind = rng.integers(0, n_types, size=(replications, n_tasks, n_instances))
        offset = rng.normal(0.0, spread * scale, size=(replications, n_systems, n_types))
        rep = np.arange(replications)[:, None, None, None]
        cube += offset[rep, np.arange(n_systems)[None, :, None, None], kind[:, None, :, :]]
    if c.outliers is not None:
        share, magnitude = c.outliers
        hit = rng.random(cube.shape) < share
        cube += hit * rng.choice([-1.0, 1.0], size=cube.shape) * magnitude * scale
    for task, factor in rescale.items():
        cube[:, :, task, :] *= factor
    return cube


def _remove_missing(
    cube: np.ndarray, rng: np.random.Generator, missing_rate: float, pattern: str
) -> np.ndarray:
    """Scores removed (NaN): each with probability ``missing_rate`` (``"cell"``), or whole (system,
    task) blocks (``"block"``)."""
    if missing_rate > 0:
        if pattern == "cell":
            cube[rng.random(cube.shape) < missing_rate] = np.nan
        else:
            cube[rng.random(cube.shape[:3]) < missing_rate, :] = np.nan
    return cube


def noise_mixing(
    n_systems: int, correlation: float, system_scales: np.ndarray | None = None
) -> np.ndarray:
    """``A`` with the normal noise of a block ``A z`` (``z`` standard normal): :math:`A A^\top`
    the equicorrelation matrix (ρ off the diagonal) with row ``i`` scaled by system ``i``'s
    ``system_scales``. An eigen square root: ρ = −1/(N−1) is singular, and Cholesky would refuse
    it. Also the covariance of the power simulations on sufficient statistics
    (:mod:`rankstats.planning.sufficient`)."""
    values, vectors = np.linalg.eigh(
        np.full((n_systems, n_systems), correlation) + (1 - correlation) * np.eye(n_systems)
    )
    mix = vectors * np.sqrt(np.clip(values, 0.0, None))
    if system_scales is not None:
        mix = np.asarray(system_scales, dtype=np.float64)[:, None] * mix  # row i: its own scale
    return mix


def check_system_scales(scales: object, n_systems: int, noise: str) -> np.ndarray:
    """Each system's noise multiple: ``n_systems`` numbers ≥ 0, not all 0, with normal or Laplace
    noise."""
    values = np.asarray(scales, dtype=np.float64).ravel()
    require(
        noise in ("normal", "laplace")
        and values.shape == (n_systems,)
        and bool(np.all(np.isfinite(values) & (values >= 0)))
        and bool(np.any(values > 0)),
        f"scales must be {n_systems} numbers ≥ 0 (one per system, not all 0), with normal or "
        "Laplace noise",
    )
    return values


def check_correlation(correlation: float, n_systems: int, noise: str) -> None:
    """``correlation`` is a number in ``[−1/(N−1), 1]``, and 0 unless the noise is normal."""
    require(
        is_real(correlation) and math.isfinite(correlation),
        f"correlation must be a number, got {correlation!r}",
    )
    low = -1.0 / (n_systems - 1)
    require(
        low - 1e-12 <= correlation <= 1,
        f"correlation must be in [{low:.3g}, 1] for {n_systems} systems (equicorrelated noise), "
        f"got {correlation!r}",
    )
    require(
        correlation == 0 or noise == "normal",
        "correlation applies to normal noise (noise='normal')",
    )


def cube_to_scores(
    cube: np.ndarray, systems: Sequence[str], tasks: Sequence[str], instances: bool
) -> pd.DataFrame:
    """The long table (system, task, [instance], score) of an ``(N, T, K)`` cube, NaN kept."""
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


@grouped_parameters(corruptions=(Corruptions, CORRUPTION_KEYWORDS))
def gumbel(
    n_systems: int = 20,
    n_tasks: int = 20,
    n_instances: int | None = None,
    phi: float = 0.5,
    scale: float = 1.0,
    seed: int | np.random.SeedSequence | None = 0,
    *,
    corruptions: Corruptions | None = None,
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
    corruptions : Corruptions, optional
        What is done to the honest scores (:class:`~rankstats.simulate.corruptions.Corruptions`:
        adversarial tasks, rescaled tasks, missing scores, outliers, instance types, rounding;
        ``rescale`` maps task names to factors). Its fields were keywords of this function
        (``gumbel(..., missing_rate=0.2)``), still accepted for one release with a
        FutureWarning.

    Returns
    -------
    SimulatedScores
        ``Scores`` with ``.truth`` (best first) and ``.parameters``.

    Raises
    ------
    ValueError
        An argument out of its range, named in the message: ``n_systems ≥ 2``, ``n_tasks ≥ 1``,
        ``n_instances ≥ 1``, finite ``phi > 0``, ``scale > 0``, ``adversarial_tasks`` in
        ``[0, n_tasks]``, ``missing_rate`` in ``[0, 1)``, ``round_to ≥ 0``, ...

    Examples
    --------
    >>> import rankstats as rs
    >>> sim = rs.simulate.gumbel(n_systems=5, n_tasks=3, n_instances=10, phi=2.0, seed=0)
    >>> sim.truth[0], rs.aggregate(sim, method="borda").order[0]
    ('sys05', 'sys05')
    >>> holes = rs.simulate.gumbel(5, 3, 10, seed=0, corruptions=rs.simulate.Corruptions(
    ...     missing_rate=0.2, round_to=1))
    >>> holes.parameters["missing_rate"]
    0.2
    """
    random_seed("seed", seed)
    c = corruptions or Corruptions()
    # Checked (before anything is drawn) in gumbel_cube, which also draws from the seed.
    cube = gumbel_cube(
        n_systems, n_tasks, n_instances, phi, scale, seed, corruptions=c, rescale_by_name=True
    )
    tasks = task_names(n_tasks)
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
        **dataclasses.asdict(c),
        "adversarial_tasks": tasks[: c.adversarial_tasks],
        "rescale": dict(c.rescale or {}),
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
