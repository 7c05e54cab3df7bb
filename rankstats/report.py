"""Paper-ready output: one self-contained HTML file, LaTeX tables, figures, BibTeX, methods text.

``rs.report(scores, out="report/")`` ranks the systems with several aggregators, puts a Hoeffding
interval on every pairwise probability, and writes:

- ``report.html``: self-contained (figures embedded as data URIs, inline CSS, no JavaScript, no
  network access);
- ``ranking.tex`` (booktabs): each method's rank and score, the rank range implied by the
  significant pairwise differences, and a mark on systems significantly above the next one;
- ``ranking.csv``, ``pairs.csv``: every number of the tables, unrounded;
- ``significance_heatmap.png`` / ``.pdf``;
- ``references.bib`` and ``methods.txt``: what was computed, with citations.

The *rank range* of a system is ``[1 + a, N − b]``, where ``a`` (``b``) is the number of systems
significantly above (below) it: the ranks the system can take in an order that contradicts none of
the significant differences.
"""

from __future__ import annotations

import base64
import html
import io
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from rankstats.aggregate import aggregate
from rankstats.confidence import hoeffding, significance_marks
from rankstats.pairwise import pairwise
from rankstats.plotting import save_figure, significance_heatmap
from rankstats.rankings import Rankings
from rankstats.scores import Scores

METHOD_NAMES = {
    "borda": "one-level Borda with imputation (σ^l)",
    "borda2": "two-level Borda with imputation (σ^2l)",
    "mean": "mean of the available scores (σ^μ)",
    "median": "median of the available scores",
    "copeland": "Copeland (pairwise majority wins)",
}

BIBTEX = {
    "colombo2022": """@inproceedings{colombo2022,
  title = {What are the best systems? New perspectives on {NLP} benchmarking},
  author = {Colombo, Pierre and Noiry, Nathan and Irurozki, Ekhine and
            Cl{\\'e}men{\\c{c}}on, Stephan},
  booktitle = {Advances in Neural Information Processing Systems},
  volume = {35},
  year = {2022}
}""",
    "himmi2023": """@article{himmi2023,
  title = {Towards more robust {NLP} system evaluation: handling missing scores in benchmarks},
  author = {Himmi, Anas and Irurozki, Ekhine and Noiry, Nathan and Cl{\\'e}men{\\c{c}}on, Stephan
            and Colombo, Pierre},
  journal = {arXiv preprint arXiv:2305.10284},
  year = {2023}
}""",
    "hoeffding1963": """@article{hoeffding1963,
  title = {Probability inequalities for sums of bounded random variables},
  author = {Hoeffding, Wassily},
  journal = {Journal of the American Statistical Association},
  volume = {58},
  number = {301},
  pages = {13--30},
  year = {1963}
}""",
    "holm1979": """@article{holm1979,
  title = {A simple sequentially rejective multiple test procedure},
  author = {Holm, Sture},
  journal = {Scandinavian Journal of Statistics},
  volume = {6},
  number = {2},
  pages = {65--70},
  year = {1979}
}""",
    "plackett1975": """@article{plackett1975,
  title = {The analysis of permutations},
  author = {Plackett, Robin L.},
  journal = {Journal of the Royal Statistical Society, Series C},
  volume = {24},
  number = {2},
  pages = {193--202},
  year = {1975}
}""",
    "bradleyterry1952": """@article{bradleyterry1952,
  title = {Rank analysis of incomplete block designs: I. The method of paired comparisons},
  author = {Bradley, Ralph Allan and Terry, Milton E.},
  journal = {Biometrika},
  volume = {39},
  number = {3/4},
  pages = {324--345},
  year = {1952}
}""",
    "mallows1957": """@article{mallows1957,
  title = {Non-null ranking models. I},
  author = {Mallows, Colin L.},
  journal = {Biometrika},
  volume = {44},
  number = {1/2},
  pages = {114--130},
  year = {1957}
}""",
    "peyrard2021": """@inproceedings{peyrard2021,
  title = {Better than Average: Paired Evaluation of {NLP} Systems},
  author = {Peyrard, Maxime and Zhao, Wei and Eger, Steffen and West, Robert},
  booktitle = {Proceedings of the 59th Annual Meeting of the Association for Computational
               Linguistics and the 11th International Joint Conference on Natural Language
               Processing},
  year = {2021}
}""",
    "copeland1951": """@misc{copeland1951,
  title = {A reasonable social welfare function},
  author = {Copeland, Arthur H.},
  note = {Seminar on Applications of Mathematics to Social Sciences, University of Michigan},
  year = {1951}
}""",
}

_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def latex_escape(text: str) -> str:
    """Escape the characters that LaTeX treats specially."""
    return "".join(_LATEX_SPECIAL.get(c, c) for c in str(text))


def _fmt(value: float, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "--"
    if float(value).is_integer():
        return f"{value:.0f}" if abs(value) < 1e15 else f"{value:.{digits}g}"
    return f"{value:.{digits}f}"


@dataclass(frozen=True, eq=False)
class Report:
    """What :func:`report` computed and where it wrote it.

    Attributes
    ----------
    out : Path
        Output directory.
    files : tuple of Path
        Every file written (``report.html`` first).
    ranking : pandas.DataFrame
        One row per system in the primary method's order: ``rank_<method>``, ``score_<method>`` for
        every method, ``rank_low``, ``rank_high`` (rank range), ``above_next`` (significantly above
        the next system).
    pairs : pandas.DataFrame
        The :func:`~rankstats.hoeffding` table in the primary order.
    methods_text : str
        The methods paragraph (also in ``methods.txt``).
    comparison : Comparison or None
        Rank models against the Hoeffding intervals (when ``models`` were given).
    fits : tuple
        The fitted rank models.
    paired : dict
        ``{task: Paired}`` of the paired instance-level analyses (when ``paired`` was given).
    """

    out: Path
    files: tuple[Path, ...]
    ranking: pd.DataFrame
    pairs: pd.DataFrame
    methods_text: str
    comparison: Any = None
    fits: tuple = field(default_factory=tuple)
    paired: dict = field(default_factory=dict)

    @property
    def html(self) -> Path:
        return self.files[0]

    def __repr__(self) -> str:
        return (
            f"Report({self.html}, {len(self.ranking)} systems, "
            f"{int(self.pairs['significant'].sum() // 2)} significant pairs, "
            f"{len(self.files)} files)"
        )


MODEL_NAMES = {"pl": "Plackett–Luce", "bt": "Bradley–Terry", "mallows": "Mallows (Kendall)"}


def _fit_models(models: Sequence[Any], rankings: Rankings, method: str, seed: int) -> list[Any]:
    from rankstats import models as zoo

    fits = []
    for model in models:
        if not isinstance(model, str):
            fits.append(model)
            continue
        key = model.lower()
        if key == "pl":
            fits.append(zoo.PlackettLuce().fit(rankings, method=method, seed=seed))
        elif key == "bt":
            fits.append(zoo.BradleyTerry().fit(rankings, method=method, seed=seed))
        elif key == "mallows":
            complete = not np.isnan(rankings.ranks).any() and not (rankings.ranks % 1).any()
            # The Mallows MAP is exact only for complete untied rankings; otherwise sample.
            mallows_method = "map" if method == "map" and complete else "mcmc"
            fits.append(
                zoo.Mallows().fit(rankings, method=mallows_method, seed=seed, progressbar=False)
            )
        else:
            raise ValueError(f"unknown model {model!r}; use 'pl', 'bt', 'mallows' or a fit")
    return fits


def _model_sentence(fit: Any) -> str:
    name = MODEL_NAMES.get(fit.model, fit.model)
    info = getattr(fit, "info", {})
    text = f"{name} fitted by {fit.method}"
    if "prior_scale" in info:
        text += f" (zero-sum normal prior on the log-worths, scale {info['prior_scale']})"
    if fit.model == "mallows" and fit.method != "map":
        from rankstats.models import _compat

        a = _compat.attrs(fit.idata)
        prior = (
            "α = nθ ~ Exponential(0.001)"
            if a.get("prior") == "bayesmallows"
            else f"θ ~ Gamma({a.get('shape')}, rate {a.get('rate')})"
        )
        text += f" (uniform prior on the consensus, {prior})"
    if fit.method in ("nuts", "mcmc"):
        summary = fit.summary()
        text += (
            f"; max R-hat {summary['r_hat'].max():.3f}, min bulk ESS "
            f"{summary['ess_bulk'].min():.0f}"
        )
    return text


def _ranking_table(
    scores: Scores, methods: Sequence[str], level: str, ci: pd.DataFrame, order: list[str]
) -> pd.DataFrame:
    table = pd.DataFrame({"system": order})
    for method in methods:
        res = aggregate(scores, method=method, level=level if method != "mean" else None)
        indexed = res.table.set_index("system")
        table[f"rank_{method}"] = indexed.loc[order, "rank"].to_numpy()
        table[f"score_{method}"] = indexed.loc[order, "score"].to_numpy()
    marks = significance_marks(ci, order)
    for column in ("rank_low", "rank_high", "above_next", "below_next"):
        table[column] = marks[column].to_numpy()
    return table


def _methods_paragraph(
    scores: Scores, methods: Sequence[str], level: str, n_rankings: int, ci: pd.DataFrame
) -> tuple[str, list[str]]:
    attrs = ci.attrs
    cites = ["himmi2023", "colombo2022", "hoeffding1963"]
    names = [METHOD_NAMES.get(m, m) for m in methods]
    if level == "instance":
        level_text = "each (task, instance) pair"
    elif scores.has_instances:
        level_text = "each task (instance scores averaged)"
    else:
        level_text = "each task"
    text = (
        f"We ranked {len(scores.systems)} systems on {len(scores.tasks)} tasks "
        f"({len(scores.data)} scores; {level_text} defines one partial ranking, "
        f"{n_rankings} rankings in all) with rankstats. Aggregators: {', '.join(names)}. "
        "A system without a score in a ranking was imputed as a uniformly random insertion "
        "into it, i.e. its pairwise probabilities are those of a uniformly random complete ranking "
        "compatible with the observed one [himmi2023]; the Borda score of a system is the expected "
        "number of systems it beats, summed over rankings [colombo2022]. For every pair of systems "
        f"we computed a Hoeffding interval [hoeffding1963] on the probability that one is ranked "
        f"above the other ({attrs['estimand']} estimand, {attrs['form']} half-width "
        f"sqrt(log(2/δ)/2z) where z is the number of rankings evaluating both), δ = "
        f"{attrs['delta']}"
    )
    if attrs["correction"] == "holm":
        cites.append("holm1979")
        text += (
            f", with Holm's step-down correction over the {attrs['n_pairs']} pairs [holm1979] "
            f"(intervals shown at the Bonferroni level δ/{attrs['n_pairs']})"
        )
    elif attrs["correction"] == "bonferroni":
        text += f", with a Bonferroni correction over the {attrs['n_pairs']} pairs"
    else:
        text += ", without multiplicity correction"
    n_sig = int(ci["significant"].sum() // 2)
    text += f". {n_sig} of the {attrs['n_pairs']} pairwise differences are significant."
    if "copeland" in methods:
        cites.append("copeland1951")
    if scores.skipped_tasks:
        text += (
            f" Tasks with fewer than two evaluated systems were set aside: "
            f"{', '.join(scores.skipped_tasks)}."
        )
    if scores.unevaluated_systems:
        text += f" Systems evaluated nowhere: {', '.join(scores.unevaluated_systems)}."
    return text, cites


def _model_columns(table: pd.DataFrame, methods: Sequence[str]) -> list[str]:
    """``rank_<model>`` columns added by fitted models (not aggregators, not the range)."""
    skip = {f"rank_{m}" for m in methods} | {"rank_low", "rank_high"}
    return [c for c in table.columns if c.startswith("rank_") and c not in skip]


def _latex_table(table: pd.DataFrame, methods: Sequence[str], caption: str) -> str:
    primary = methods[0]
    extra = _model_columns(table, methods)
    cols = "r l " + " ".join("r r" for _ in methods) + " r" * len(extra) + " c"
    header = ["Rank", "System"]
    for m in methods:
        header += [f"rank {latex_escape(m)}", f"score {latex_escape(m)}"]
    header += [f"rank {latex_escape(c[5:])}" for c in extra]
    header.append("rank range")
    lines = [
        r"\begin{table}[t]",
        r"\centering",
        r"\small",
        rf"\begin{{tabular}}{{{cols}}}",
        r"\toprule",
        " & ".join(header) + r" \\",
        r"\midrule",
    ]
    for _, row in table.iterrows():
        mark = r"$^{\dagger}$" if row["above_next"] else ""
        cells = [_fmt(row[f"rank_{primary}"]), latex_escape(row["system"]) + mark]
        for m in methods:
            cells += [_fmt(row[f"rank_{m}"]), _fmt(row[f"score_{m}"])]
        cells += [_fmt(row[c]) for c in extra]
        cells.append(f"{row['rank_low']}--{row['rank_high']}")
        lines.append(" & ".join(cells) + r" \\")
    lines += [
        r"\bottomrule",
        r"\end{tabular}",
        rf"\caption{{{caption}}}",
        r"\label{tab:rankstats-ranking}",
        r"\end{table}",
    ]
    return "\n".join(lines) + "\n"


def _comparison_html(comparison: Any) -> str:
    if comparison is None:
        return ""
    rows = "".join(
        f"<tr><td class='name'>{html.escape(MODEL_NAMES.get(r['method'], r['method']))}</td>"
        f"<td>{r['both_same']}</td><td>{r['hoeffding_only']}</td><td>{r['model_only']}</td>"
        f"<td>{r['neither']}</td><td>{r['conflicts']}</td></tr>"
        for _, r in comparison.agreement.iterrows()
    )
    return (
        "<h2>Rank models against Hoeffding</h2>\n<p>Pairs decided by the distribution-free "
        "Hoeffding intervals and by each model's credible intervals at the same level "
        f"({comparison.level:.4g}).</p>\n<table id='agreement'><tr><th class='name'>model</th>"
        "<th>same winner</th><th>Hoeffding only</th><th>model only</th><th>neither</th>"
        f"<th>conflicts</th></tr>{rows}</table>\n"
    )


def _png_data_uri(path: Path) -> str:
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode("ascii")


_CSS = """
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 2em auto;
       max-width: 1100px; color: #222; line-height: 1.45; padding: 0 1em; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 1.6em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; font-size: 0.9em; margin: 0.8em 0; }
th, td { padding: 0.25em 0.7em; text-align: right; }
th { border-bottom: 2px solid #444; } td.name, th.name { text-align: left; }
tr:nth-child(even) td { background: #f6f6f6; }
tr.sig td { font-weight: 600; }
.meta { color: #555; font-size: 0.9em; } img { max-width: 100%; height: auto; }
pre { background: #f6f6f6; padding: 0.8em; overflow-x: auto; font-size: 0.8em; }
"""


def _html_table(table: pd.DataFrame, methods: Sequence[str]) -> str:
    extra = _model_columns(table, methods)
    head = "<tr><th>rank</th><th class='name'>system</th>"
    for m in methods:
        head += f"<th>rank {html.escape(m)}</th><th>{html.escape(m)}</th>"
    head += "".join(f"<th>rank {html.escape(c[5:])}</th>" for c in extra)
    head += "<th>rank range</th><th>above next?</th></tr>"
    rows = []
    for _, row in table.iterrows():
        cls = " class='sig'" if row["above_next"] else ""
        cells = f"<td>{_fmt(row[f'rank_{methods[0]}'])}</td>"
        cells += f"<td class='name'>{html.escape(str(row['system']))}</td>"
        for m in methods:
            cells += f"<td>{_fmt(row[f'rank_{m}'])}</td><td>{_fmt(row[f'score_{m}'])}</td>"
        cells += "".join(f"<td>{_fmt(row[c])}</td>" for c in extra)
        cells += f"<td>{row['rank_low']}–{row['rank_high']}</td>"
        cells += f"<td>{'yes' if row['above_next'] else ''}</td>"
        rows.append(f"<tr{cls}>{cells}</tr>")
    return f"<table id='ranking'>\n{head}\n" + "\n".join(rows) + "\n</table>"


def report(
    scores: Scores,
    out: str | Path = "report",
    methods: Sequence[str] = ("borda", "borda2", "mean"),
    delta: float = 0.05,
    correction: str = "holm",
    estimand: str = "imputed",
    level: str | None = None,
    title: str | None = None,
    models: Sequence[Any] = (),
    model_method: str = "map",
    seed: int = 0,
    paired: Sequence[str] = (),
    confidence: float = 0.95,
) -> Report:
    """Write a paper-ready report of the ranking of ``scores``.

    Parameters
    ----------
    scores : Scores
        The benchmark.
    out : str or Path
        Output directory (created).
    methods : sequence of str
        Aggregators (see :func:`~rankstats.aggregate`); the first one orders the tables and is
        the one whose pairwise differences are tested.
    delta, correction, estimand
        Passed to :func:`~rankstats.hoeffding`.
    level : {"task", "instance"}, optional
        Rankings per task or per (task, instance) (default: instance when available).
    title : str, optional
        Report title (default: the data set name).
    models : sequence of str or fitted models
        Rank models to report next to the aggregators: names (``"pl"``, ``"bt"``, ``"mallows"``),
        fitted with ``model_method`` on the same rankings, or already fitted models. Their order
        joins the ranking table and their pairwise decisions are compared with the Hoeffding
        intervals (:func:`rankstats.compare`); the methods paragraph states prior, method and
        (for MCMC) the convergence diagnostics.
    model_method : str
        Fitting method for models given by name (``"map"`` by default, fast; ``"nuts"`` for
        Plackett–Luce / Bradley–Terry posteriors, ``"mcmc"`` for Mallows).
    seed : int
        Seed of the model fits and of the paired bootstrap.
    paired : sequence of str
        Tasks (metrics) of instance-level scores to analyse pair by pair with
        :func:`rankstats.paired` (sign / Wilcoxon / paired t / Mood tests, Holm-adjusted,
        bootstrap intervals, mean / median / Bradley–Terry / Elo / TrueSkill strengths): a section
        of the HTML page, ``paired_<task>_pairs.csv``, ``paired_<task>_strengths.csv``, a matrix
        figure and a sentence of the methods paragraph per task.
    confidence : float
        Level of the paired tests and bootstrap intervals (α = 1 − confidence).

    Returns
    -------
    Report

    Examples
    --------
    >>> import tempfile, rankstats as rs
    >>> rep = rs.report(rs.load_dataset("xtreme_missing"), out=tempfile.mkdtemp())
    >>> rep.html.name, rep.ranking["system"].iloc[0]
    ('report.html', 'Turing ULR v5 Alexander v-team Microsoft')
    """
    if not methods:
        raise ValueError("give at least one aggregation method")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    level = level or ("instance" if scores.has_instances else "task")
    name = title or scores.name or "benchmark"

    primary = aggregate(scores, method=methods[0], level=level)
    order = primary.order
    rankings = Rankings.from_scores(scores, by=level)
    pw = pairwise(rankings)
    ci = hoeffding(pw, delta=delta, correction=correction, estimand=estimand, order=order)
    table = _ranking_table(scores, methods, level, ci, order)
    text, cites = _methods_paragraph(scores, methods, level, pw.n_rankings, ci)
    fits = _fit_models(models, rankings, model_method, seed)
    comparison = None
    if fits:
        from rankstats.compare import compare

        for fit in fits:
            rank = {s: i + 1.0 for i, s in enumerate(fit.order)}
            table[f"rank_{fit.model}"] = table["system"].map(rank).to_numpy()
        comparison = compare(
            pw, fits, delta=delta, correction=correction, estimand=estimand, order=order
        )
        agree = comparison.agreement
        text += " Rank models: " + "; ".join(_model_sentence(f) for f in fits) + ". "
        text += " ".join(
            f"{MODEL_NAMES.get(r['method'], r['method'])}: {r['both_same']} pairs significant "
            f"under both with the same winner, {r['conflicts']} conflicts, "
            f"{r['hoeffding_only']} significant under Hoeffding only and {r['model_only']} "
            f"under the model only (credible intervals at level {comparison.level:.4g})."
            for _, r in agree.iterrows()
        )
        cites += [
            c
            for c in ("plackett1975", "bradleyterry1952", "mallows1957")
            if (c == "plackett1975" and any(f.model == "pl" for f in fits))
            or (c == "bradleyterry1952" and any(f.model == "bt" for f in fits))
            or (c == "mallows1957" and any(f.model == "mallows" for f in fits))
        ]

    section = None
    if paired:
        from rankstats._report_paired import paired_section

        if not scores.has_instances:
            raise ValueError("paired= needs instance-level scores (an instance column)")
        unknown = [t for t in paired if t not in scores.tasks]
        if unknown:
            raise ValueError(f"paired= names unknown task(s) {unknown}; tasks: {scores.tasks}")
        section = paired_section(scores, list(paired), out, confidence, seed, _png_data_uri)
        text += " " + section.text
        cites.append("peyrard2021")
        if "holm1979" not in cites:
            cites.append("holm1979")

    files: list[Path] = [out / "report.html"]
    table.to_csv(out / "ranking.csv", index=False)
    ci.to_csv(out / "pairs.csv", index=False)
    files += [out / "ranking.csv", out / "pairs.csv"]
    caption = (
        f"Ranking of {latex_escape(name)} by {latex_escape(methods[0])}. Rank range: ranks "
        f"compatible with the significant pairwise differences (Hoeffding, "
        f"$\\delta = {delta}$, {latex_escape(correction)}); $^{{\\dagger}}$: significantly "
        f"above the next system."
    )
    (out / "ranking.tex").write_text(_latex_table(table, methods, caption))
    files.append(out / "ranking.tex")
    (out / "references.bib").write_text("\n\n".join(BIBTEX[c] for c in cites) + "\n")
    (out / "methods.txt").write_text(text + "\n")
    files += [out / "references.bib", out / "methods.txt"]
    figures = save_figure(
        significance_heatmap(ci, title=f"{name}: P(row above column), {methods[0]} order"),
        out / "significance_heatmap",
    )
    files += figures

    n_sig = int(ci["significant"].sum() // 2)
    never = ", ".join(scores.unevaluated_systems) or "none"
    skipped = ", ".join(scores.skipped_tasks) or "none"
    buffer = io.StringIO()
    buffer.write(
        f"<!DOCTYPE html>\n<html lang='en'>\n<head>\n<meta charset='utf-8'>\n"
        f"<title>rankstats report: {html.escape(name)}</title>\n<style>{_CSS}</style>\n"
        f"</head>\n<body>\n<h1>Ranking report: {html.escape(name)}</h1>\n"
        f"<p class='meta'>{len(scores.systems)} systems, {len(scores.tasks)} tasks, "
        f"{len(scores.data)} scores, {level}-level rankings ({pw.n_rankings}); "
        f"systems evaluated nowhere: {html.escape(never)}; tasks set aside: "
        f"{html.escape(skipped)}.</p>\n"
        f"<h2>Ranking</h2>\n<p>Ordered by {html.escape(METHOD_NAMES.get(methods[0], methods[0]))}"
        f". <em>Rank range</em>: the ranks a system can take without contradicting a "
        f"significant pairwise difference; bold rows are significantly above the next system. "
        f"{n_sig} of {ci.attrs['n_pairs']} pairs differ significantly (δ = {delta}, "
        f"{html.escape(correction)}).</p>\n"
        + _html_table(table, methods)
        + "\n<h2>Pairwise significance</h2>\n<p>Signed distance of each Hoeffding interval "
        "from ½ (red: the row system is significantly above the column system; blue: below; "
        "white: not significant).</p>\n"
        f"<img id='heatmap' alt='pairwise significance heatmap' "
        f"src='{_png_data_uri(figures[0])}'>\n"
        + _comparison_html(comparison)
        + (section.html if section is not None else "")
        + f"<h2>Methods</h2>\n<p>{html.escape(text)}</p>\n<h2>References (BibTeX)</h2>\n"
        f"<pre>{html.escape(chr(10).join(BIBTEX[c] for c in cites))}</pre>\n"
        "<p class='meta'>Generated by rankstats. Every number is in ranking.csv and pairs.csv; "
        "the LaTeX table is ranking.tex.</p>\n</body>\n</html>\n"
    )
    files[0].write_text(buffer.getvalue(), encoding="utf-8")
    if section is not None:
        files += section.files
    return Report(
        out=out,
        files=tuple(files),
        ranking=table,
        pairs=ci,
        methods_text=text,
        comparison=comparison,
        fits=tuple(fits),
        paired=section.results if section is not None else {},
    )
