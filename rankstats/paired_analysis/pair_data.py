"""The pairs of systems of a paired analysis (:func:`rankstats.paired`): their differences on
the instances both were evaluated on, and the bootstrap of the instances shared by every pair."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from rankstats.errors import InvalidScoresError

_BLOCK = 4_000_000  # bootstrap cells (resamples × instances × pairs) per block


@dataclass(frozen=True, eq=False)
class PairData:
    """The pairs ``a < b`` of an ``(instances, systems)`` score matrix: ``d = x_a − x_b``
    ``(instances, pairs)`` and ``a``, ``b`` NaN unless both were evaluated (``mask``)."""

    x: np.ndarray
    ia: np.ndarray
    ib: np.ndarray
    a: np.ndarray
    b: np.ndarray
    d: np.ndarray
    mask: np.ndarray

    @classmethod
    def of(cls, x: np.ndarray, systems: list[str], task: str) -> PairData:
        """The pairs, or an error naming a system without scores or pairs never compared."""
        n_sys = x.shape[1]
        if n_sys < 2:
            raise InvalidScoresError("paired analysis needs at least two systems")
        never = [s for s, c in zip(systems, (~np.isnan(x)).sum(axis=0), strict=True) if c == 0]
        if never:
            raise InvalidScoresError(
                f"system(s) with no score on task {task!r}: {', '.join(never)}"
            )
        ia, ib = np.triu_indices(n_sys, 1)
        a, b = x[:, ia], x[:, ib]
        d = a - b
        mask = ~np.isnan(d)
        lonely = np.flatnonzero(mask.sum(axis=0) == 0)
        if len(lonely):
            raise InvalidScoresError(
                f"pair(s) never evaluated on a common instance: "
                f"{', '.join(f'{systems[ia[k]]}/{systems[ib[k]]}' for k in lonely[:5])}"
            )
        a, b = np.where(mask, a, np.nan), np.where(mask, b, np.nan)
        return cls(x, ia, ib, a, b, d, mask)

    def bootstrap(
        self, n_resamples: int, seed: int | None, confidence_level: float
    ) -> dict[str, np.ndarray]:
        """Percentile intervals of the mean and median differences and of P(a beats b), from
        multinomial counts of the instances shared by every pair (the pairing kept)."""
        d, mask = self.d, self.mask
        n_inst = len(d)
        rng = np.random.default_rng(seed)
        counts = rng.multinomial(n_inst, np.full(n_inst, 1.0 / n_inst), size=n_resamples).astype(
            float
        )
        with np.errstate(invalid="ignore", divide="ignore"):
            boot_n = counts @ mask.astype(float)
            boot_mean = (counts @ np.where(mask, d, 0.0)) / boot_n
            score = np.where(mask, (d > 0) + 0.5 * (d == 0), 0.0)
            boot_share = (counts @ score) / boot_n
        boot_median = _bootstrap_median_diff(self.x, self.ia, self.ib, mask, counts)
        q = [(1 - confidence_level) / 2, (1 + confidence_level) / 2]
        columns = {}
        for name, values in (
            ("mean_diff", boot_mean),
            ("p_a_beats_b", boot_share),
            ("median_diff", boot_median),
        ):
            columns[f"{name}_low"], columns[f"{name}_high"] = _quantiles(values, q)
        return columns


def _quantiles(values: np.ndarray, q: list[float]) -> np.ndarray:
    """Column quantiles (linear interpolation) ignoring NaN (resamples where a pair had no
    common instance); ``np.nanquantile`` only where needed, since it loops over columns."""
    out = np.full((len(q), values.shape[1]), np.nan)
    gaps = np.isnan(values).any(axis=0)
    out[:, ~gaps] = np.quantile(values[:, ~gaps], q, axis=0)
    if gaps.any():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN column: NaN interval
            out[:, gaps] = np.nanquantile(values[:, gaps], q, axis=0)
    return out


def _bootstrap_median_diff(
    x: np.ndarray,
    ia: np.ndarray,
    ib: np.ndarray,
    mask: np.ndarray,
    counts: np.ndarray,
) -> np.ndarray:
    """Difference of medians per bootstrap resample and pair, on each pair's common instances."""
    n_boot, n_inst = counts.shape
    # Expand the multinomial counts into resampled instance indices (same resamples as the means).
    idx = np.repeat(np.tile(np.arange(n_inst), n_boot), counts.astype(np.int64).ravel())
    idx = idx.reshape(n_boot, n_inst)
    if mask.all():
        med = np.median(x[idx], axis=1)  # (boot, systems)
        return med[:, ia] - med[:, ib]
    out = np.empty((n_boot, len(ia)))
    block = max(1, _BLOCK // max(n_boot * n_inst, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for lo in range(0, len(ia), block):
            sl = slice(lo, lo + block)
            keep = mask[:, sl][idx]  # (boot, inst, pairs)
            xa = np.where(keep, x[:, ia[sl]][idx], np.nan)
            xb = np.where(keep, x[:, ib[sl]][idx], np.nan)
            out[:, sl] = np.nanmedian(xa, axis=1) - np.nanmedian(xb, axis=1)
    return out
