"""The power section of :func:`rankstats.report` (``power=True``): what this benchmark can detect.

The report's own scores are the pilot: :func:`rankstats.calibrate` estimates a design that looks
like them (with its checks against the scores), and :meth:`~rankstats.Calibration.detectable`
finds, by simulation, the smallest step between neighbouring systems that a test detects with
the target power at the benchmark's size — "with N instances this benchmark detects differences
of at least X with power 0.8" (Card et al. 2020). :func:`options` checks the request before
anything is computed, :func:`run_power` computes it, :func:`write_power` writes the curve (CSV and
figure) and the calibration's checks, :func:`methods_sentence` gives the methods paragraph its
sentence and citations, and :func:`section` the values of the HTML section (the template escapes
them).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rankstats._util.renamed import translate
from rankstats._util.text import terminal, write_csv
from rankstats.core.rankings import Rankings
from rankstats.core.scores import Scores
from rankstats.planning.calibration import Calibration, Detectable, calibrate
from rankstats.planning.power_result import test_label
from rankstats.plotting.saving import save_figure
from rankstats.significance.zero_methods import zero_method_text

#: Keyword arguments a ``power={...}`` mapping may hold.
OPTIONS = ("test", "power", "n_replications", "seed")
#: Tests whose detectable difference the section can report (pair tests on scores).
TESTS = ("t", "wilcoxon", "sign", "hoeffding", "nemenyi", "conover")


@dataclass(frozen=True)
class PowerSection:
    """The calibration on the report's scores and the detectable difference it implies."""

    calibration: Calibration
    detectable: Detectable
    test: str

    @property
    def zero_method(self) -> str | None:
        """The simulated Wilcoxon test's treatment of zero differences (None for the others)."""
        return self.detectable.curve.results[0].zero_method


@dataclass(frozen=True)
class PowerFiles:
    """What :func:`write_power` wrote (paths inside the output directory)."""

    figures: tuple[Path, ...]
    curve: Path
    checks: Path


def options(power: bool | Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The section's settings (``None``: no section); unknown keys and bad values refused
    before anything is computed. ``test`` None: the paired t-test on scores, the exact McNemar
    test on binary outcomes (decided on the calibrated pilot).

    Examples
    --------
    >>> options(True)
    {'test': None, 'power': 0.8, 'n_replications': 1000, 'seed': 0}
    """
    if power is None or power is False:
        return None
    given = {} if power is True else dict(power)
    given = translate(given, {"replications": "n_replications"}, "report(power=...)")
    unknown = sorted(set(given) - set(OPTIONS))
    if unknown:
        raise ValueError(
            f"power= accepts {', '.join(OPTIONS)}; not {', '.join(map(repr, unknown))}"
        )
    out = {"test": None, "power": 0.8, "n_replications": 1000, "seed": 0, **given}
    if out["test"] is not None and out["test"] not in TESTS:
        raise ValueError(f"power test must be one of {', '.join(TESTS)}, not {out['test']!r}")
    target = out["power"]
    if not (isinstance(target, numbers.Real) and not isinstance(target, bool) and 0 < target < 1):
        raise ValueError(f"power must be a number in (0, 1), not {target!r}")
    reps = out["n_replications"]
    if isinstance(reps, bool) or not isinstance(reps, numbers.Integral) or reps < 2:
        raise ValueError(f"power n_replications must be an integer ≥ 2, not {reps!r}")
    return out


def run_power(
    scores: Scores | Rankings, opts: Mapping[str, Any], zero_method: str | None = None
) -> PowerSection:
    """Calibrate on ``scores`` and find the detectable step (scores only: a design needs them);
    ``zero_method``: the report's, for the Wilcoxon test (the other tests have no zeros to
    treat)."""
    if not isinstance(scores, Scores):
        raise ValueError(
            "the power section calibrates a design on scores; rankings without scores have no "
            "noise to calibrate (leave power= out)"
        )
    cal = calibrate(scores)
    # The paired t-test on scores, the exact McNemar test on binary outcomes (right / wrong).
    test = opts["test"] or ("mcnemar" if cal.kind == "binary" else "t")
    found = cal.detectable(
        test=test,
        power=float(opts["power"]),
        n_replications=int(opts["n_replications"]),
        seed=int(opts["seed"]),
        zero_method=zero_method if test == "wilcoxon" else None,
    )
    return PowerSection(cal, found, test)


def write_power(
    section_: PowerSection, directory: Path, written: Callable[[Path], None] = lambda path: None
) -> PowerFiles:
    """``power_curve.png/.pdf``, ``power_curve.csv`` and ``calibration_pairs.csv``."""
    figures = save_figure(section_.detectable.curve.plot(), directory / "power_curve")
    for path in figures:
        written(path)
    curve = directory / "power_curve.csv"
    write_csv(section_.detectable.curve.curve.reset_index(), curve)
    written(curve)
    checks = directory / "calibration_pairs.csv"
    write_csv(section_.calibration.pairs, checks)
    written(checks)
    return PowerFiles(tuple(figures), curve, checks)


def methods_sentence(section_: PowerSection) -> tuple[str, list[str]]:
    """The methods paragraph's sentence on the power, and its citation keys."""
    cal = section_.calibration
    d = cal.design
    sentence = section_.detectable.sentence().replace("Card et al. 2020", "[card2020]")
    zeros, keys = "", []
    if section_.zero_method is not None:  # the simulated Wilcoxon test's zero differences
        words, keys = zero_method_text(section_.zero_method)
        zeros = (
            f" The simulated Wilcoxon test: {words}"
            + "".join(f" [{k}]" for k in keys)
            + f" (scipy.stats.wilcoxon, zero_method={section_.zero_method!r})."
        )
    return (
        terminal(sentence)
        + f" The design was calibrated on the scores (normal scores with one location and scale "
        f"per system and a correlation of {d.correlation:.2f} between systems on an instance); "
        f"its pairwise win rates differ from the observed ones by at most "
        f"{cal.max_win_gap:.3f}." + zeros,
        ["card2020", *keys],
    )


def section(section_: PowerSection, files: PowerFiles, image: str) -> dict[str, Any]:
    """Values of the HTML section (plain text; the template escapes them)."""
    found = section_.detectable
    cal = section_.calibration
    return {
        "sentence": terminal(found.sentence()),
        "test": test_label(section_.test, section_.zero_method, prose=True),
        "reached": found.step is not None,
        "misfits": len(cal.misfits),
        "n_rates": len(cal.pairs),
        "max_gap": f"{cal.max_win_gap:.3f}",
        "image": image,
        "curve_file": files.curve.name,
        "checks_file": files.checks.name,
    }
