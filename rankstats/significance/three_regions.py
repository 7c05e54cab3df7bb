r"""The three-region answer of a Bayesian comparison of two systems with a ROPE.

Both Bayesian tests, the signed-rank test
(:mod:`rankstats.significance.bayesian_signed_rank`, Benavoli et al. 2017, Section 4) and the
hierarchical model across tasks (:mod:`rankstats.significance.bayesian_hierarchical`, Corani et
al. 2017), end in posterior draws of :math:`(\theta_a, \theta_\text{rope}, \theta_b)`: the
probabilities that the difference ``a − b`` lies right of, inside or left of the region of
practical equivalence :math:`[-r, r]`. The reported probabilities ``{"a", "rope", "b"}`` are the
shares of the draws in which each θ is the largest; an outcome is claimed when its probability
reaches the threshold (e.g. 0.95), and :func:`claim_text` says what may be claimed otherwise
(``a`` not practically worse than ``b`` when :math:`P(a) + P(\text{rope})` reaches it).

References
----------
Benavoli, A., Corani, G., Demšar, J. and Zaffalon, M. (2017). Time for a change: a tutorial for
comparing multiple classifiers through Bayesian analysis. *Journal of Machine Learning Research*
18(77), 1–36.

Corani, G., Benavoli, A., Demšar, J., Mangili, F. and Zaffalon, M. (2017). Statistical
comparison of classifiers through Bayesian hierarchical modelling. *Machine Learning* 106,
1817–1837.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from rankstats._util.text import shorten, terminal

#: The three regions: ``a`` practically better, practically equivalent, ``b`` better.
OUTCOMES = ("a", "rope", "b")


def check_rope(rope: object) -> None:
    """Refuse a ROPE half-width that is not a finite number ``≥ 0`` (ValueError)."""
    if not (isinstance(rope, numbers.Real) and math.isfinite(rope) and rope >= 0):
        raise ValueError(f"rope must be a finite number ≥ 0, got {rope!r}")


def check_threshold(threshold: float) -> None:
    """Refuse a claim threshold outside ``(0, 1]`` (ValueError)."""
    if not 0 < threshold <= 1:
        raise ValueError(f"threshold must be in (0, 1], got {threshold!r}")


def region_shares(samples: np.ndarray) -> dict[str, float]:
    r"""``{"a", "rope", "b"}``: the share of the ``(S, 3)`` posterior draws of
    :math:`(\theta_a, \theta_\text{rope}, \theta_b)` in which each θ is the largest (baycomp's
    ``probs()``; a tie goes to the first of ``a``, ``rope``, ``b``)."""
    winners = np.bincount(np.argmax(samples, axis=1), minlength=3) / len(samples)
    return dict(zip(OUTCOMES, winners.tolist(), strict=True))


def decide(probabilities: dict, threshold: float) -> str | None:
    """``"a"``, ``"rope"`` or ``"b"`` when its probability reaches ``threshold``, else None."""
    best = max(OUTCOMES, key=probabilities.__getitem__)
    return best if probabilities[best] >= threshold else None


def claim_text(a: str, b: str, rope: float, probabilities: dict, threshold: float) -> str:
    """What the probabilities ``{"a", "rope", "b"}`` support at ``threshold``, in one sentence
    (shared by the signed-rank and the hierarchical test)."""
    p, t, r = probabilities, threshold, f"±{rope:g}"
    a, b = terminal(shorten(a, 40)), terminal(shorten(b, 40))
    names = {"a": a, "b": b}
    decision = decide(p, t)
    if decision in ("a", "b"):
        win, lose = decision, "b" if decision == "a" else "a"
        return (
            f"{names[win]} is practically better than {names[lose]} (by more than "
            f"{rope:g}): P = {p[win]:.3f} ≥ {t:g}"
        )
    if decision == "rope":
        return f"{a} and {b} are practically equivalent (within {r}): P = {p['rope']:.3f} ≥ {t:g}"
    for win, lose in (("a", "b"), ("b", "a")):
        if p[win] + p["rope"] >= t:
            return (
                f"no decision at {t:g}; {names[lose]} is not practically better than "
                f"{names[win]}: P({names[win]} better or equivalent) = "
                f"{p[win] + p['rope']:.3f} ≥ {t:g}"
            )
    return (
        f"no decision at {t:g}: P({a} better) = {p['a']:.3f}, P(rope) = {p['rope']:.3f}, "
        f"P({b} better) = {p['b']:.3f}"
    )


class ThreeRegions:
    """The decision read from a posterior over the three regions ``a`` better / ROPE / ``b``
    better: shared by :class:`~rankstats.significance.bayesian_signed_rank.BayesSignedRank` and
    :class:`~rankstats.significance.bayesian_hierarchical.BayesHierarchical`, whose
    ``probabilities``, ``threshold``, ``a``, ``b`` and ``rope`` attributes it reads."""

    a: str
    b: str
    rope: float
    probabilities: dict
    threshold: float

    @property
    def p_a(self) -> float:
        """``probabilities["a"]``: posterior probability that ``a`` is practically better."""
        return self.probabilities["a"]

    @property
    def p_rope(self) -> float:
        """``probabilities["rope"]``: posterior probability of practical equivalence."""
        return self.probabilities["rope"]

    @property
    def p_b(self) -> float:
        """``probabilities["b"]``: posterior probability that ``b`` is practically better."""
        return self.probabilities["b"]

    @property
    def decision(self) -> str | None:
        """``"a"``, ``"rope"`` or ``"b"`` when its probability reaches :attr:`threshold`, else
        ``None``."""
        return decide(self.probabilities, self.threshold)

    @property
    def claim(self) -> str:
        """What can be claimed at :attr:`threshold`, in one sentence."""
        return claim_text(self.a, self.b, self.rope, self.probabilities, self.threshold)
