"""The paired instance-level analyses of :func:`rankstats.report` (one per chosen task / metric).

For each task: :func:`rankstats.paired` (sign / Wilcoxon / paired t / Mood tests with Holm
adjustment, bootstrap intervals, mean / median / Bradley–Terry / Elo / TrueSkill strengths and
their disagreement, after Peyrard et al. 2021). :func:`run_paired` computes them with the rest of
the report (:mod:`~rankstats.reporting.report_data`); :func:`write_paired` writes their CSV files
and matrix figures; the methods sentence is in :mod:`~rankstats.reporting.methods` and the HTML
section in the page template. File names come from :func:`rankstats._util.text.unique_slugs`: two
tasks whose names map to the same file name are refused (:func:`paired_slugs`) before anything is
computed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from rankstats._util.text import unique_slugs, write_csv
from rankstats.core.scores import Scores
from rankstats.paired_analysis.paired_tests import Paired, paired
from rankstats.plotting.saving import save_figure

#: The paired tests, by column prefix, with their names in prose.
TESTS = {"sign": "sign", "wilcoxon": "Wilcoxon signed-rank", "ttest": "paired t", "mood": "Mood"}

#: The strength columns of :attr:`Paired.strengths`, in the order the tables show them.
STRENGTHS = ("mean", "median", "bt", "elo", "trueskill")


@dataclass(frozen=True)
class PairedFiles:
    """The files :func:`write_paired` wrote for one task (paths inside the output directory)."""

    pairs: Path
    strengths: Path
    figures: tuple[Path, ...]


def paired_slugs(tasks: Sequence[str]) -> dict[str, str]:
    """``{task: file-name fragment}``; :class:`~rankstats.errors.OutputError` on a collision
    (``"a b"`` and ``"a_b"`` would write the same ``paired_a_b_*`` files)."""
    return unique_slugs(tasks, "paired task")


def run_paired(
    scores: Scores,
    tasks: Sequence[str],
    confidence_level: float,
    seed: int,
    zero_method: str | None = None,
) -> dict[str, Paired]:
    """:func:`rankstats.paired` of every task (same seed and Wilcoxon ``zero_method`` for each;
    None: the default)."""
    zeros = {} if zero_method is None else {"zero_method": zero_method}
    return {
        task: paired(scores, task=task, confidence_level=confidence_level, seed=seed, **zeros)
        for task in tasks
    }


def summary(result: Paired) -> str:
    """``"3 by the sign test, 4 by the Wilcoxon signed-rank test, ..."``: Holm-significant
    pairs per test, at the analysis' α."""
    alpha = result.parameters["alpha"]
    counts = {t: int((result.pairs[f"{t}_p_holm"] < alpha).sum()) for t in TESTS}
    return ", ".join(f"{counts[t]} by the {name} test" for t, name in TESTS.items())


def write_paired(
    results: Mapping[str, Paired],
    directory: Path,
    written: Callable[[Path], None] = lambda path: None,
) -> dict[str, PairedFiles]:
    """Write the CSV files and the matrix figure of every task into ``directory``.

    Parameters
    ----------
    results : mapping
        ``{task: Paired}`` from :func:`run_paired`.
    directory : Path
        Where the files go (the report's temporary output directory).
    written : callable
        Called with each path right after it is written (the report records it and runs its
        interruption checkpoint).

    Returns
    -------
    dict
        ``{task: PairedFiles}``.
    """
    slugs = paired_slugs(list(results))
    files = {}
    for task, result in results.items():
        prefix = f"paired_{slugs[task]}"
        pairs, strengths = directory / f"{prefix}_pairs.csv", directory / f"{prefix}_strengths.csv"
        write_csv(result.pairs, pairs)
        written(pairs)
        write_csv(result.strengths, strengths)
        written(strengths)
        figures = save_figure(result.plot_matrix("sign"), directory / f"{prefix}_matrix")
        for path in figures:
            written(path)
        files[task] = PairedFiles(pairs, strengths, tuple(figures))
    return files
