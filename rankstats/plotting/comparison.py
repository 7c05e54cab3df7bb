"""The wording of comparison intervals (Firth & de Menezes 2004) in every figure that draws
estimates ± z quasi-standard errors (the forest plot of a rank model, the interval plot of a
battle fit): a short legend entry, and the approximation's errors under the x axis."""

from __future__ import annotations

import math

from scipy import stats


def comparison_label(confidence: float) -> str:
    """``comparison, ±1.96 quasi-s.e.``: the legend entry, with the multiplier
    :math:`z = \\Phi^{-1}((1 + \\text{confidence})/2)`."""
    z = float(stats.norm.ppf(0.5 + confidence / 2))
    return f"comparison, ±{z:.2f} quasi-s.e."


def comparison_note(errors: tuple[float, float] | None) -> str:
    """``comparison intervals: pair s.e. errors -2.4 % / +3.7 %`` (how far to trust an
    overlap; empty without errors)."""
    if errors is None or any(math.isnan(e) for e in errors):
        return ""
    low, high = (round(100 * e, 1) + 0.0 for e in errors)  # + 0.0: no "-0.0"
    return f"comparison intervals: pair s.e. errors {low:+.1f} % / {high:+.1f} %"
