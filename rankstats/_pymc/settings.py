"""The settings of a NUTS run as one options object (:class:`NutsSettings`): a function that
samples a posterior as one of its steps takes ``posterior=True`` or ``posterior=NutsSettings(...)``
instead of five sampler keywords.  Imports neither PyMC nor ArviZ.
"""

from __future__ import annotations

from dataclasses import dataclass

from rankstats._util.arguments import count, flag, probability

#: The NUTS implementations (:func:`rankstats._pymc.nuts.resolve_sampler`).
SAMPLERS = ("auto", "pymc", "nutpie")


@dataclass(frozen=True)
class NutsSettings:
    """How to sample a posterior with the No-U-Turn sampler (Hoffman & Gelman 2014).

    Parameters
    ----------
    draws, tune, chains : int
        Draws kept and tuning steps per chain, number of chains (PyMC's names).
    sampler : {"auto", "pymc", "nutpie"}
        NUTS implementation (:func:`rankstats._pymc.nuts.resolve_sampler`).
    progress : bool
        Show the sampler's progress bar (at a terminal).
    target_accept : float
        NUTS step-size adaptation target.

    Examples
    --------
    >>> NutsSettings(draws=500, chains=2)
    NutsSettings(draws=500, tune=1000, chains=2, sampler='auto', progress=True, target_accept=0.9)
    """

    draws: int = 1000
    tune: int = 1000
    chains: int = 4
    sampler: str = "auto"
    progress: bool = True
    target_accept: float = 0.9

    def __post_init__(self) -> None:
        count("draws", self.draws, 1)
        count("tune", self.tune, 0)
        count("chains", self.chains, 1)
        flag("progress", self.progress)
        probability("target_accept", self.target_accept)
        if self.sampler not in SAMPLERS:
            raise ValueError(f"sampler must be one of {SAMPLERS}, not {self.sampler!r}")
