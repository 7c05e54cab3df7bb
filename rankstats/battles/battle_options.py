"""The options objects of :func:`rankstats.fit_battles`: the Elo scale the ratings are printed
on (:class:`EloScale`) and the settings of style control (:class:`StyleControl`).  The
posterior's sampler settings are :class:`rankstats.NutsSettings`."""

from __future__ import annotations

import math
from dataclasses import dataclass

from rankstats._util.advice import AdviceError, Spelled, escape
from rankstats._util.arguments import flag
from rankstats.battles.battle_fit import ELO_START


@dataclass(frozen=True)
class EloScale:
    r"""The Elo scale of the ratings, :math:`R_i = 400\log_{10}(e)\,\theta_i + c`.

    Parameters
    ----------
    anchor : str, optional
        The model whose rating is fixed at ``rating``; without, the ratings are centred at
        ``rating``.
    rating : float
        A finite number (default 1000).

    Examples
    --------
    >>> EloScale(anchor="gpt-4", rating=1200)
    EloScale(anchor='gpt-4', rating=1200)
    """

    anchor: str | None = None
    rating: float = ELO_START

    def __post_init__(self) -> None:
        if not (isinstance(self.rating, (int, float)) and math.isfinite(self.rating)):
            raise AdviceError(
                "{rating} must be a finite number, not " + escape(repr(self.rating)),
                rating=Spelled("the rating of EloScale", "--rating"),
            )


@dataclass(frozen=True)
class StyleControl:
    """How the battles' covariates are fitted (:mod:`rankstats.battles.style_control`).

    Parameters
    ----------
    standardize : bool
        Covariates divided by their standard deviation (their effects per standard deviation;
        not centred, so that the ratings are at equal style); False fits them as given.

    Examples
    --------
    >>> StyleControl(standardize=False)
    StyleControl(standardize=False)
    """

    standardize: bool = True

    def __post_init__(self) -> None:
        flag("standardize", self.standardize)
