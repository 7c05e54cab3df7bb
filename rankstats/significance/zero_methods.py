r"""The one vocabulary of ``zero_method=``: what Wilcoxon's signed-rank test does with the pairs
whose difference is zero (``scipy.stats.wilcoxon``'s three methods), checked once.

With differences :math:`d_1, \dots, d_n`, ``n_0`` of them zero:

``"wilcox"`` (default; Wilcoxon, 1945)
    drop the zero differences and rank the ``n − n_0`` others: :math:`W^+` is the sum of the
    ranks of the positive differences among them. The default of ``scipy.stats.wilcoxon`` and of
    R's ``wilcox.test``, and what rankstats did before the option existed.
``"pratt"`` (Pratt, 1959)
    rank all ``n`` absolute differences, zeros included (they take the smallest ranks), then sum
    the ranks of the positive ones; the null mean and variance of :math:`W^+` drop the ranks
    ``1 … n_0`` of the zeros (Cureton, 1967). Pratt's point: a zero is evidence of no
    difference and pushes the other ranks up, so dropping it changes the ranks of the rest. The
    critical-difference diagrams of the ``hfawaz/cd-diagram`` repository use it.
``"zsplit"``
    rank all ``n`` absolute differences and give half of the zeros' ranks to each sign — close to
    Demšar's (2006, Sec. 3.1.3) rule of splitting the zeros' ranks evenly between the two sums.

Without zero differences the three agree. The p-value route (exact, permutation or normal
approximation) is scipy's ``method="auto"`` in every case, chosen pair by pair.

References
----------
Wilcoxon, F. (1945). Individual comparisons by ranking methods. *Biometrics Bulletin* 1(6),
80–83.

Pratt, J. W. (1959). Remarks on zeros and ties in the Wilcoxon signed rank procedures.
*Journal of the American Statistical Association* 54(287), 655–667.

Cureton, E. E. (1967). The normal approximation to the signed-rank sampling distribution when
zero differences are present. *Journal of the American Statistical Association* 62(319),
1068–1069.

Demšar, J. (2006). Statistical comparisons of classifiers over multiple data sets. *Journal of
Machine Learning Research* 7, 1–30.

Examples
--------
>>> check_zero_method("pratt")
'pratt'
>>> try:
...     check_zero_method("drop")
... except ValueError as error:
...     print(error)
zero_method must be one of 'wilcox', 'pratt', 'zsplit', not 'drop'
"""

from __future__ import annotations

from rankstats._util.advice import AdviceError, escape

#: scipy's treatments of zero differences, the default first.
ZERO_METHODS = ("wilcox", "pratt", "zsplit")
DEFAULT = "wilcox"

#: zero method → (how the methods paragraph of a report says it, citation keys).
_PROSE = {
    "wilcox": ("zero differences dropped, as Wilcoxon did", ["wilcoxon1945"]),
    "pratt": (
        "zero differences kept in the ranking and left out of both signed-rank sums, "
        "Pratt's method",
        ["pratt1959"],
    ),
    "zsplit": ("the ranks of zero differences split evenly between the two signed-rank sums", []),
}


#: zero method → the words of a figure title or table caption.
SHORT = {
    "wilcox": "with zero differences dropped",
    "pratt": "with zero differences ranked as Pratt (1959)",
    "zsplit": "with the ranks of zero differences split",
}


def check_zero_method(zero_method: object) -> str:
    """``zero_method`` checked against :data:`ZERO_METHODS` (before any computing).

    Raises
    ------
    AdviceError
        Any other value; the message names the parameter (``--zero-method`` on the command line).
    """
    if not isinstance(zero_method, str) or zero_method not in ZERO_METHODS:
        words = ", ".join(map(repr, ZERO_METHODS))
        raise AdviceError(
            "{zero_method} must be one of " + escape(f"{words}, not {zero_method!r}"),
            zero_method=None,
        )
    return zero_method


def zero_method_text(zero_method: str) -> tuple[str, list[str]]:
    """What a methods paragraph says about ``zero_method``, and the keys it cites.

    >>> zero_method_text("wilcox")[0]
    'zero differences dropped, as Wilcoxon did'
    """
    return _PROSE[check_zero_method(zero_method)]
