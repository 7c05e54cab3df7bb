r"""The options objects of the Gumbel generators (:mod:`rankstats.simulate.gumbel_benchmark`):
what is done to honest scores (:class:`Corruptions`) and the score model behind them
(:class:`ScoreModel`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Corruptions:
    r"""What is done to the honest scores of a simulated benchmark (combinable; each is recorded
    in :attr:`SimulatedScores.parameters`).

    Parameters
    ----------
    adversarial_tasks : int
        The first ``k`` tasks are drawn with location :math:`-n` instead of :math:`\varphi n`:
        they rank the systems in reverse, with a strong signal (Colombo et al. 2022, Fig. 2).
    rescale : mapping, optional
        Task → factor its scores are multiplied by (scaling robustness; affects the mean only):
        task names (``task01 ..``) for :func:`~rankstats.simulate.gumbel`, task indices for
        :func:`~rankstats.simulate.gumbel_cube`.
    missing_rate : float
        Share of scores removed, in ``[0, 1)``.
    missing_pattern : {"cell", "block"}
        Each score independently, or a whole (system, task) block (Himmi et al. 2023).
    outliers : (float, float), optional
        ``(ρ, m)``: a share ρ of the scores moved by ``± m · scale`` (random sign).
    instance_types : (int, float), optional
        ``(K, s)``: instances fall into ``K`` types, each (system, type) offset by a draw of
        :math:`N(0, s^2\,\text{scale}^2)` (systems specialised on some inputs; Peyrard et al.
        2021, Sec. 4).
    round_to : int, optional
        Scores rounded to this many decimals, creating ties.
    """

    adversarial_tasks: int = 0
    rescale: Mapping | None = None
    missing_rate: float = 0.0
    missing_pattern: str = "cell"
    outliers: tuple[float, float] | None = None
    instance_types: tuple[int, float] | None = None
    round_to: int | None = None


@dataclass(frozen=True, eq=False)
class ScoreModel:
    r"""The score model of :func:`~rankstats.simulate.gumbel_benchmark.gumbel_cubes` beyond
    Gumbel noise around :math:`\varphi n` (the designs of :mod:`rankstats.planning`).

    Parameters
    ----------
    locations : ndarray, optional
        One location per system, replacing :math:`\varphi n` (a Plackett–Luce model with
        log-worths λ is ``locations = λ`` with ``scale = 1``).
    noise : {"gumbel", "normal", "laplace"}
        Gumbel, normal (Thurstone's case V) or Laplace scores (heavy-tailed, as sentence-level
        metric differences; Card et al. 2020, Sec. 4).
    correlation : float
        Normal noise: the correlation ρ of any two systems' scores on the same instance
        (equicorrelated, :math:`\rho \ge -1/(N-1)`; the instance's difficulty they share).
    binary : bool
        Each score becomes an outcome, 1 when above 0, before the corruptions.
    system_scales : ndarray, optional
        Normal or Laplace noise: each system's noise as a multiple of ``scale`` (0: a reference
        scored without noise).
    identical : float
        Share of (task, instance) blocks on which every system gets the first system's score.
    task_effects : ndarray, optional
        ``(M, 2)`` offsets and scales of ``M`` tasks; each simulated task takes the units of one,
        drawn per task and replication: ``offset + scale · score`` (before rounding).
    rank_sampler : callable, optional
        ``rank_sampler(m, rng)``: ``m`` complete rankings ``(m, N)`` (1 = best) of another model
        (Mallows), scored as ``−rank``; of the corruptions only missing scores then apply.
    """

    locations: np.ndarray | None = None
    noise: str = "gumbel"
    correlation: float = 0.0
    binary: bool = False
    system_scales: np.ndarray | None = None
    identical: float = 0.0
    task_effects: np.ndarray | None = None
    rank_sampler: Callable[[int, np.random.Generator], np.ndarray] | None = None


#: The keywords of the generators that are now fields of :class:`Corruptions` (old → field;
#: ``missing`` was renamed ``missing_rate`` before), for
#: :func:`rankstats._util.renamed.grouped_parameters`.
CORRUPTION_KEYWORDS = {
    "missing": "missing_rate",
    **{name: name for name in Corruptions.__dataclass_fields__},
}
#: The keywords of :func:`~rankstats.simulate.gumbel_benchmark.gumbel_cubes` that are now
#: fields of :class:`ScoreModel`.
MODEL_KEYWORDS = tuple(ScoreModel.__dataclass_fields__)
