"""The settings of the Bayesian mixture sampler (:func:`rankstats.models.mallows.mixture_fit.
fit_mixture`): its prior, moves and start (:class:`MixtureSampler`), and how its chains run
(:class:`MixtureRun`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from rankstats.models.mallows.em_result import MallowsEMFit
from rankstats.models.mallows.metropolis_fit import DRAWS, THIN, TUNE


@dataclass(frozen=True)
class MixtureSampler:
    """The prior and the moves of the mixture sampler (:class:`MixtureChain`'s arguments), and
    an optional start.

    ``start``: a :class:`~rankstats.models.MallowsEMFit` of the same rankings and number of
    clusters: every chain starts from its consensuses, dispersions and weights with each
    assessor's cluster drawn from its EM responsibilities, and the draws are relabelled to its
    numbering (the pivot: each draw's consensuses matched to the EM consensuses by the
    Hungarian method on the footrule distance, :func:`~rankstats.models.mallows._mixture.
    pivot_permutation`)."""

    kind: str
    alpha_shape: float
    alpha_rate: float
    psi: float
    prior: dict = field(default_factory=dict)
    leap: int = 1
    rho_proposal: str = "leap_and_shift"
    alpha_sd: float = 0.1
    start: MallowsEMFit | None = None


@dataclass(frozen=True)
class MixtureRun:
    """How long and how the chains of :func:`fit_mixture` run (as
    :meth:`rankstats.models.Mallows.fit`'s arguments of the same names)."""

    draws: int = DRAWS
    tune: int = TUNE
    thin: int = THIN
    chains: int = 4
    seed: int | None = 0
    progress: bool = True
    max_draws: int | None = None
    n_jobs: int | None = None
    on_extend: Callable[[int, int, list[str]], None] | None = None
