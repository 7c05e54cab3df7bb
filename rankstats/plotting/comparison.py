"""The legend of comparison intervals (Firth & de Menezes 2004): one wording for every figure
that draws estimates ± z quasi-standard errors (the forest plot of a rank model, the interval
plot of a battle fit)."""

from __future__ import annotations

import math

from scipy import stats


def comparison_label(confidence: float, errors: tuple[float, float] | None = None) -> str:
    """``comparison interval, ±1.96 quasi-s.e. (pair errors -2.4 % / +3.7 %)``: what the
    intervals are, their multiplier :math:`z = \\Phi^{-1}((1 + \\text{confidence})/2)` and, when
    given, the worst relative errors of the pairs' standard errors (how far to trust an
    overlap)."""
    z = float(stats.norm.ppf(0.5 + confidence / 2))
    label = f"comparison interval, ±{z:.2f} quasi-s.e."
    if errors is not None and not any(math.isnan(e) for e in errors):
        label += f" (pair errors {100 * errors[0]:+.1f} % / {100 * errors[1]:+.1f} %)"
    return label
