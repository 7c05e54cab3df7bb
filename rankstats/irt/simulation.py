"""Simulated item responses with known abilities and item parameters (for validation)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from rankstats.irt.item_models import MODELS, ItemParameters, category_probabilities
from rankstats.irt.responses import Responses


@dataclass(frozen=True, repr=False)
class SimulatedResponses:
    """``responses`` drawn from ``items`` at abilities ``theta`` (the truth)."""

    responses: Responses
    theta: np.ndarray
    items: ItemParameters

    def __repr__(self) -> str:
        return f"SimulatedResponses({self.responses!r})"


def simulate_responses(
    n_systems: int,
    n_items: int,
    model: str = "2pl",
    *,
    n_categories: int = 4,
    missing_rate: float = 0.0,
    seed: int | np.random.Generator | None = 0,
) -> SimulatedResponses:
    """Draw responses: θ ~ N(0, 1); slopes log-normal(0, 0.3) (1 for Rasch); intercepts
    N(0, 1) (graded: sorted N(0, 1.2) thresholds); guessing U(0.05, 0.3) for the 3PL; each cell
    missing with probability ``missing_rate``.

    >>> simulate_responses(50, 10, seed=1)
    SimulatedResponses(Responses(50 systems × 10 items, binary, 500 of 500 cells observed))
    """
    if model not in MODELS:
        raise ValueError(f"model must be one of {', '.join(MODELS)}, not {model!r}")
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=n_systems)
    slope = np.ones(n_items) if model == "rasch" else np.exp(rng.normal(0.0, 0.3, n_items))
    guessing = rng.uniform(0.05, 0.3, n_items) if model == "3pl" else np.zeros(n_items)
    if model == "graded":
        intercept = -np.sort(rng.normal(0.0, 1.2, (n_items, n_categories - 1)), axis=1)
        items = ItemParameters(slope, intercept, guessing)
        probs = np.moveaxis(category_probabilities(items, theta), 0, -1)  # I × S × K
        cumulative = np.cumsum(probs, axis=-1)
        u = rng.random((n_items, n_systems, 1))
        values = (u > cumulative[..., :-1]).sum(axis=-1).T.astype(np.float64)
    else:
        intercept = rng.normal(0.0, 1.0, (n_items, 1))
        items = ItemParameters(slope, intercept, guessing)
        p = guessing[None, :] + (1 - guessing[None, :]) * expit(
            theta[:, None] * slope[None, :] + intercept[:, 0][None, :]
        )
        values = (rng.random((n_systems, n_items)) < p).astype(np.float64)
    values[rng.random(values.shape) < missing_rate] = np.nan
    systems = tuple(f"s{k}" for k in range(n_systems))
    names = tuple(f"i{k}" for k in range(n_items))
    return SimulatedResponses(Responses(values, systems, names), theta, items)
