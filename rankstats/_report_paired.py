"""The paired instance-level section of :func:`rankstats.report` (one per chosen task / metric).

For each task: :func:`rankstats.paired` (sign / Wilcoxon / paired t / Mood tests with Holm
adjustment, bootstrap intervals, mean / median / Bradley–Terry / Elo / TrueSkill strengths and
their disagreement, after Peyrard et al. 2021), written as CSV files, a matrix figure and an HTML
section, plus one sentence of the methods paragraph.

Computing (:func:`run_paired`, :func:`paired_text`) is separate from writing
(:func:`paired_section`), so the report computes everything before it opens its output directory.
File names come from :func:`rankstats._text.unique_slugs`: two tasks whose names map to the same
file name are refused (:func:`paired_slugs`) before anything is computed.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from rankstats._text import terminal, unique_slugs, write_csv
from rankstats.paired import Paired, paired
from rankstats.plotting import save_figure
from rankstats.scores import Scores

TESTS = {"sign": "sign", "wilcoxon": "Wilcoxon signed-rank", "ttest": "paired t", "mood": "Mood"}

STRENGTHS = ("mean", "median", "bt", "elo", "trueskill")


@dataclass(frozen=True)
class PairedSection:
    html: str
    files: tuple[Path, ...]


def paired_slugs(tasks: Sequence[str]) -> dict[str, str]:
    """``{task: file-name fragment}``; :class:`~rankstats.errors.OutputError` on a collision
    (``"a b"`` and ``"a_b"`` would write the same ``paired_a_b_*`` files)."""
    return unique_slugs(tasks, "paired task")


def run_paired(
    scores: Scores, tasks: Sequence[str], confidence: float, seed: int
) -> dict[str, Paired]:
    """:func:`rankstats.paired` of every task (same seed for each)."""
    return {task: paired(scores, task=task, confidence=confidence, seed=seed) for task in tasks}


def _fmt(value: float, digits: int = 3) -> str:
    return "–" if value != value else f"{value:.{digits}f}"


def _counts(result: Paired) -> dict[str, int]:
    alpha = result.parameters["alpha"]
    return {t: int((result.pairs[f"{t}_p_holm"] < alpha).sum()) for t in TESTS}


def _summary(result: Paired) -> str:
    counts = _counts(result)
    return ", ".join(f"{counts[t]} by the {name} test" for t, name in TESTS.items())


def paired_text(results: Mapping[str, Paired]) -> str:
    """The sentences of the methods paragraph, one per task (names as visible text)."""
    sentences = []
    for task, result in results.items():
        p = result.parameters
        sentences.append(
            f"On {terminal(task)} ({p['n_instances']} instances), {len(result.pairs)} pairs of "
            f"systems were compared on their paired scores [peyrard2021]: significant at "
            f"α = {p['alpha']:g} after Holm's correction {_summary(result)}; bootstrap intervals "
            f"from {p['n_bootstrap']} resamples (seed {p['seed']}); strengths by mean, median, "
            f"Bradley–Terry, Elo (K = {p['elo_k']:g}, {p['n_orders']} orders) and TrueSkill."
        )
    return " ".join(sentences)


def _strength_table(result: Paired, image: str) -> str:
    table = result.strengths.copy()
    key = "bt" if table["bt"].notna().all() else "mean"
    table = table.sort_values(key, ascending=False, kind="stable")
    head = "<tr><th class='name'>system</th>" + "".join(
        f"<th>{html.escape(c)}</th>" for c in STRENGTHS
    )
    rows = []
    for _, row in table.iterrows():
        cells = f"<td class='name'>{html.escape(str(row['system']))}</td>"
        cells += "".join(f"<td>{_fmt(row[c], 1 if c in ('elo',) else 3)}</td>" for c in STRENGTHS)
        rows.append(f"<tr>{cells}</tr>")
    agree = result.agreement
    pairs = "; ".join(
        f"{a}–{b}: τ = {tau:.2f}, same best {'yes' if top else 'no'}"
        for a, b, tau, top in zip(
            agree["a"], agree["b"], agree["kendall_tau"], agree["same_top1"], strict=True
        )
    )
    return (
        f"<table class='paired'>\n{head}\n" + "\n".join(rows) + "\n</table>\n"
        f"<p>Agreement of the strength rankings (Kendall τ_b): {html.escape(pairs)}.</p>\n"
        f"<img alt='paired comparison matrix' src='{image}'>\n"
    )


def paired_section(
    results: Mapping[str, Paired],
    directory: Path,
    png_uri: Callable[[Path], str],
    written: Callable[[Path], None] = lambda path: None,
) -> PairedSection:
    """Write the CSV files and figures of every task into ``directory`` and render the section.

    Parameters
    ----------
    results : mapping
        ``{task: Paired}`` from :func:`run_paired`.
    directory : Path
        Where the files go (the report's temporary output directory).
    png_uri : callable
        Turns a PNG path into the inline data URI used by the report (self-contained HTML).
    written : callable
        Called with each path right after it is written (the report records it and runs its
        interruption checkpoint).

    Returns
    -------
    PairedSection
        The HTML section and the written paths (inside ``directory``), in writing order.
    """
    slugs = paired_slugs(list(results))
    parts: list[str] = []
    files: list[Path] = []

    def record(path: Path) -> None:
        files.append(path)
        written(path)

    for task, result in results.items():
        slug = slugs[task]
        pairs_path = directory / f"paired_{slug}_pairs.csv"
        strengths_path = directory / f"paired_{slug}_strengths.csv"
        write_csv(result.pairs, pairs_path)
        record(pairs_path)
        write_csv(result.strengths, strengths_path)
        record(strengths_path)
        figures = save_figure(result.plot_matrix("sign"), directory / f"paired_{slug}_matrix")
        for path in figures:
            record(path)
        p = result.parameters
        parts.append(
            f"<h3>{html.escape(task)}</h3>\n<p>{p['n_instances']} instances, "
            f"{len(result.pairs)} pairs; significant after Holm at α = {p['alpha']:g}: "
            + html.escape(_summary(result))
            + f". All tests, wins, ties and intervals: <code>{html.escape(pairs_path.name)}</code>."
            "</p>\n" + _strength_table(result, png_uri(figures[0]))
        )
    body = (
        "<h2>Paired instance-level analysis</h2>\n<p>Systems evaluated on the same instances "
        "compared pair by pair (sign, Wilcoxon signed-rank, paired t and Mood tests, Holm-"
        "adjusted; the matrix shows P(row beats column) with ties counted ½, * where the sign "
        "test is significant).</p>\n" + "".join(parts)
    )
    return PairedSection(body, tuple(files))
