"""The paired instance-level section of :func:`rankstats.report` (one per chosen task / metric).

For each task: :func:`rankstats.paired` (sign / Wilcoxon / paired t / Mood tests with Holm
adjustment, bootstrap intervals, mean / median / Bradley–Terry / Elo / TrueSkill strengths and
their disagreement, after Peyrard et al. 2021), written as CSV files, a matrix figure and an HTML
section, plus one sentence of the methods paragraph.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from rankstats.paired import Paired, paired
from rankstats.plotting import save_figure
from rankstats.scores import Scores

TESTS = {"sign": "sign", "wilcoxon": "Wilcoxon signed-rank", "ttest": "paired t", "mood": "Mood"}

STRENGTHS = ("mean", "median", "bt", "elo", "trueskill")


@dataclass(frozen=True)
class PairedSection:
    html: str
    text: str
    files: tuple[Path, ...]
    results: dict[str, Paired]


def _slug(task: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", task).strip("_") or "task"


def _fmt(value: float, digits: int = 3) -> str:
    return "–" if value != value else f"{value:.{digits}f}"


def _counts(result: Paired) -> dict[str, int]:
    alpha = result.parameters["alpha"]
    return {t: int((result.pairs[f"{t}_p_holm"] < alpha).sum()) for t in TESTS}


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
    scores: Scores,
    tasks: Sequence[str],
    out: Path,
    confidence: float,
    seed: int,
    png_uri: Callable[[Path], str],
) -> PairedSection:
    """Run :func:`rankstats.paired` for every task and render the section.

    ``png_uri`` turns a PNG path into the inline data URI used by the report (self-contained
    HTML).
    """
    parts: list[str] = []
    sentences: list[str] = []
    files: list[Path] = []
    results: dict[str, Paired] = {}
    for task in tasks:
        result = paired(scores, task=task, confidence=confidence, seed=seed)
        results[task] = result
        slug = _slug(task)
        pairs_path = out / f"paired_{slug}_pairs.csv"
        strengths_path = out / f"paired_{slug}_strengths.csv"
        result.pairs.to_csv(pairs_path, index=False)
        result.strengths.to_csv(strengths_path, index=False)
        figures = save_figure(result.plot_matrix("sign"), out / f"paired_{slug}_matrix")
        files += [pairs_path, strengths_path, *figures]
        p = result.parameters
        counts = _counts(result)
        n_pairs = len(result.pairs)
        summary = ", ".join(f"{counts[t]} by the {name} test" for t, name in TESTS.items())
        sentences.append(
            f"On {task} ({p['n_instances']} instances), {n_pairs} pairs of systems were compared "
            f"on their paired scores [peyrard2021]: significant at α = {p['alpha']:g} "
            f"after Holm's correction {summary}; bootstrap intervals from {p['n_bootstrap']} "
            f"resamples (seed {p['seed']}); strengths by mean, median, Bradley–Terry, Elo "
            f"(K = {p['elo_k']:g}, {p['n_orders']} orders) and TrueSkill."
        )
        parts.append(
            f"<h3>{html.escape(task)}</h3>\n<p>{p['n_instances']} instances, {n_pairs} pairs; "
            f"significant after Holm at α = {p['alpha']:g}: "
            + html.escape(summary)
            + f". All tests, wins, ties and intervals: <code>{pairs_path.name}</code>.</p>\n"
            + _strength_table(result, png_uri(figures[0]))
        )
    body = (
        "<h2>Paired instance-level analysis</h2>\n<p>Systems evaluated on the same instances "
        "compared pair by pair (sign, Wilcoxon signed-rank, paired t and Mood tests, Holm-"
        "adjusted; the matrix shows P(row beats column) with ties counted ½, * where the sign "
        "test is significant).</p>\n" + "".join(parts)
    )
    return PairedSection(body, " ".join(sentences), tuple(files), results)
