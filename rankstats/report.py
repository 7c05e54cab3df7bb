"""Paper-ready output: one self-contained HTML file, LaTeX tables, figures, BibTeX, methods text.

``rs.report(scores, out="report/")`` ranks the systems with several aggregators, puts a Hoeffding
interval on every pairwise probability, and writes:

- ``report.html``: self-contained (figures embedded as data URIs, inline CSS, no JavaScript, no
  network access);
- ``ranking.tex`` (booktabs): each method's rank and score, the rank range implied by the
  significant pairwise differences, a † on systems significantly above the next one and a ‡ where
  the next system is significantly above (the order contradicts the pairwise test there);
- ``ranking.csv``, ``pairs.csv``: every number of the tables, unrounded;
- ``significance_heatmap.png`` / ``.pdf``;
- ``references.bib`` and ``methods.txt``: what was computed, with citations, every
  transformation of the data and every convergence problem of a fitted model.

The *rank range* of a system is ``[1 + a, N − b]``, where ``a`` (``b``) is the number of systems
significantly above (below) it: the ranks the system can take in an order that contradicts none of
the significant differences.

**Outputs are atomic.** ``out`` is validated before anything is computed; every file is written
into a temporary directory beside it, which replaces ``out`` as a whole once the last file is
written. An interrupted or failing run leaves the previous report (or nothing); a rerun never
leaves a stale file of an earlier run.

**Names are data.** System and task names are escaped for each output: HTML (``html.escape``),
LaTeX (:func:`rankstats._text.latex_escape`), matplotlib (``$`` escaped: never mathtext), CSV
(text cells starting with ``= + - @`` get a leading ``'``), prose (control and bidirectional
characters shown as ``\\uXXXX``) and file names (:func:`rankstats._text.unique_slugs`).
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

from rankstats._atomic import check_output_dir, checkpoint, output_dir
from rankstats._text import latex_escape, mpl_text, terminal, write_csv
from rankstats.aggregate import aggregate
from rankstats.confidence import hoeffding, significance_marks
from rankstats.errors import preview
from rankstats.pairwise import pairwise
from rankstats.plotting import save_figure, significance_heatmap
from rankstats.rankings import Rankings
from rankstats.scores import Scores

# ``latex_escape`` is re-exported: ``from rankstats.report import latex_escape`` keeps working.
__all__ = ["Convergence", "Report", "convergence", "latex_escape", "report"]

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


def _fmt(value: float, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "--"
    if float(value).is_integer():
        return f"{value:.0f}" if abs(value) < 1e15 else f"{value:.{digits}g}"
    return f"{value:.{digits}f}"


def _names(names: Sequence[object], limit: int = 20) -> str:
    """Names for running text: control / bidi characters visible, long lists cut with a count."""
    return preview([terminal(n) for n in names], limit)


@dataclass(frozen=True, eq=False)
class Report:
    """What :func:`report` computed and where it wrote it.

    Attributes
    ----------
    out : Path
        Output directory.
    files : tuple of Path
        Every file written (``report.html`` first), under its final name in ``out``.
    ranking : pandas.DataFrame
        One row per system in the primary method's order: ``rank_<method>``, ``score_<method>`` for
        every method, ``rank_low``, ``rank_high`` (rank range), ``above_next`` (significantly above
        the next system, which it beats), ``below_next`` (the next system is significantly above
        this one: the order contradicts the test) — all from
        :func:`~rankstats.confidence.significance_marks`.
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
    transformations : tuple of str
        Every transformation the data went through, one sentence each (also in the methods
        paragraph and the HTML page).
    convergence : tuple of Convergence
        The convergence verdict of each fit, in the order of ``fits``.
    """

    out: Path
    files: tuple[Path, ...]
    ranking: pd.DataFrame
    pairs: pd.DataFrame
    methods_text: str
    comparison: Any = None
    fits: tuple = field(default_factory=tuple)
    paired: dict = field(default_factory=dict)
    transformations: tuple[str, ...] = ()
    convergence: tuple[Convergence, ...] = ()

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


# ---------------------------------------------------------------------------- convergence
@dataclass(frozen=True)
class Convergence:
    """Whether one fitted model can be reported as it is: judged once, quoted everywhere.

    Attributes
    ----------
    model, method : str
        The fit's model (``"pl"``, ``"bt"``, ``"mallows"``) and fitting method.
    sampled : bool
        The fit is an MCMC sample (``nuts`` / ``mcmc``); R-hat, ESS and divergences apply.
    max_r_hat, min_ess_bulk : float or None
        Largest rank-normalised split R-hat and smallest bulk ESS over the parameters that vary
        across draws (None for optimum fits).
    divergences : int
        Divergent transitions (NUTS).
    problems : tuple of str
        One sentence per problem: R-hat > 1.01, bulk ESS < 400, divergences, a single chain
        (R-hat undefined), an interrupted sampler, a Kemeny consensus not proved optimal.
    """

    model: str
    method: str
    sampled: bool
    max_r_hat: float | None = None
    min_ess_bulk: float | None = None
    divergences: int = 0
    problems: tuple[str, ...] = ()

    @property
    def converged(self) -> bool:
        """No problem found."""
        return not self.problems

    @property
    def name(self) -> str:
        """``"Mallows (Kendall) model fitted by mcmc"``: how the outputs name the fit."""
        return f"{MODEL_NAMES.get(self.model, self.model)} model fitted by {self.method}"


def convergence(fit: Any) -> Convergence:
    """The convergence verdict of a fitted rank model (the one place it is derived).

    MCMC fits (``nuts``, ``mcmc``): from :meth:`Fit.summary` — R-hat above 1.01 or bulk ESS
    below 400 on any parameter that varies across draws (a Mallows consensus position equal in
    every draw is certain, its R-hat undefined), plus divergent transitions in
    ``sample_stats``, a single chain (R-hat cannot be computed) and an interrupted sampler.
    Optimum fits (``mle`` / ``map``): Newton–Raphson raises when it does not converge, so only a
    Mallows consensus that the Kemeny search did not prove optimal is a problem.

    Parameters
    ----------
    fit : Fit
        A fitted :class:`~rankstats.models.PlackettLuce`, :class:`~rankstats.models.BradleyTerry`
        or :class:`~rankstats.models.Mallows` model.

    Returns
    -------
    Convergence
    """
    from rankstats.models import _compat
    from rankstats.models._fit import ESS_MIN, RHAT_MAX, SAMPLED

    info = getattr(fit, "info", {}) or {}
    problems: list[str] = []
    if info.get("kemeny_optimal") is False:
        problems.append("the Kemeny consensus was not proved optimal (time limit reached)")
    if fit.method not in SAMPLED:
        return Convergence(fit.model, fit.method, False, problems=tuple(problems))
    summary = fit.summary()
    varying = summary["sd"].fillna(0.0) > 0
    r_hat = summary.loc[varying, "r_hat"].to_numpy(dtype=float)
    ess = summary.loc[varying, "ess_bulk"].to_numpy(dtype=float)
    max_r_hat = float(np.max(r_hat)) if len(r_hat) else None
    min_ess = float(np.min(ess)) if len(ess) else None
    posterior = _compat.group(fit.idata)
    n_chains = int(posterior.sizes.get("chain", 1))
    if n_chains < 2:
        problems.append("a single chain: R-hat cannot be computed")
    elif len(r_hat) and (not np.isfinite(r_hat).all() or max_r_hat > RHAT_MAX):
        problems.append(f"max R-hat = {max_r_hat:.3f} > {RHAT_MAX}")
    if len(ess) and (not np.isfinite(ess).all() or min_ess < ESS_MIN):
        problems.append(f"min bulk ESS = {min_ess:.0f} < {ESS_MIN}")
    divergences = 0
    if _compat.has_group(fit.idata, "sample_stats"):
        stats_ = _compat.group(fit.idata, "sample_stats")
        if "diverging" in stats_:
            divergences = int(stats_["diverging"].sum())
    if divergences:
        problems.append(f"{divergences} divergent transition(s)")
    if info.get("interrupted"):
        problems.append("sampling was interrupted (only the chains finished so far are used)")
    return Convergence(
        fit.model, fit.method, True, max_r_hat, min_ess, divergences, tuple(problems)
    )


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


def _check_models(models: Sequence[Any]) -> None:
    """Refuse an unknown model name before anything is computed."""
    for model in models:
        if isinstance(model, str) and model.lower() not in MODEL_NAMES:
            raise ValueError(f"unknown model {model!r}; use 'pl', 'bt', 'mallows' or a fit")


def _model_sentence(fit: Any, verdict: Convergence) -> str:
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
    if verdict.sampled:
        diagnostics = []
        if verdict.max_r_hat is not None:
            diagnostics.append(f"max R-hat {verdict.max_r_hat:.3f}")
        if verdict.min_ess_bulk is not None:
            diagnostics.append(f"min bulk ESS {verdict.min_ess_bulk:.0f}")
        if verdict.divergences:
            diagnostics.append(f"{verdict.divergences} divergent transitions")
        if diagnostics:
            text += "; " + ", ".join(diagnostics)
    return text


def _convergence_warning(verdict: Convergence) -> str:
    """The sentence the methods paragraph and the HTML warning box both print."""
    return (
        f"Warning: the {verdict.name} did not converge ({'; '.join(verdict.problems)}); "
        "its order, its ranks and its pairwise decisions are not reliable and must not be "
        "reported as they are (run longer or more chains and check the diagnostics)."
    )


# ---------------------------------------------------------------------------- data
def _transformations(scores: Scores, level: str) -> list[str]:
    """Every transformation the data went through, one sentence each, from ``scores`` alone.

    Directions (negated tasks), averaging of instances, missing cells (task level: the
    ``systems × tasks`` cells without a score; instance level: per (task, instance) ranking),
    set-aside tasks and instance rankings, and systems evaluated nowhere.
    """
    out: list[str] = []
    n_systems = len(scores.systems)
    lower = [t for t in scores.tasks if not scores.higher_is_better.get(t, True)]
    if lower:
        out.append(
            f"{len(lower)} lower-is-better task(s) were negated so that higher is better: "
            f"{_names(lower)}."
        )
    else:
        out.append("Every task is higher-is-better; no score was negated.")
    data = scores.data
    if level == "task":
        cells = n_systems * len(scores.tasks)
        if scores.has_instances:
            per_cell = data.groupby(["system", "task"], observed=True).size()
            present = len(per_cell)
            per_task = data.groupby("task", observed=True)["instance"].nunique()
            tasks_of_cells = per_cell.index.get_level_values("task")
            partial = int((per_cell.to_numpy() < per_task.reindex(tasks_of_cells).to_numpy()).sum())
            out.append(
                "Instance scores were averaged per (system, task) over the instances the system "
                f"was evaluated on; {partial} of these means use fewer instances than their task "
                "has."
            )
        else:
            present = len(data)
        missing = cells - present
        if missing:
            out.append(
                f"{missing} of the {cells} (system, task) cells ({missing / cells:.1%}) have no "
                "score (never filled with a number: imputed in the rankings, see Methods)."
            )
        else:
            out.append(f"No score is missing: all {cells} (system, task) cells are present.")
    else:
        per_ranking = data.groupby(["task", "instance"], observed=True).size()
        n_rankings = len(per_ranking)
        absent = n_systems - per_ranking.to_numpy()
        missing = int(absent.sum())
        incomplete = int((absent > 0).sum())
        if missing:
            out.append(
                f"{incomplete} of the {n_rankings} (task, instance) rankings lack at least one of "
                f"the {n_systems} systems ({missing} missing (system, ranking) cells in all, up "
                f"to {int(absent.max())} systems missing in one ranking; never filled with a "
                "number: imputed in the rankings, see Methods)."
            )
        else:
            out.append(
                f"No score is missing: every one of the {n_rankings} (task, instance) rankings "
                f"ranks all {n_systems} systems."
            )
    if scores.skipped_tasks:
        out.append(
            f"{len(scores.skipped_tasks)} task(s) with fewer than two evaluated systems were set "
            f"aside: {_names(scores.skipped_tasks)}."
        )
    n_skipped = len(scores.skipped_instances)
    if n_skipped:
        out.append(
            f"{n_skipped} (task, instance) ranking(s) with fewer than two evaluated systems were "
            "set aside."
        )
    never = scores.unevaluated_systems
    if never:
        out.append(
            f"{len(never)} system(s) evaluated nowhere were kept and ranked on imputation alone "
            f"(every pairwise probability ½): {_names(never)}."
        )
    return out


# ---------------------------------------------------------------------------- tables
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
    scores: Scores,
    methods: Sequence[str],
    level: str,
    n_rankings: int,
    ci: pd.DataFrame,
    transformations: Sequence[str],
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
        f"{n_rankings} rankings in all) with rankstats. Data: {' '.join(transformations)} "
        f"Aggregators: {', '.join(names)}. "
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
    return text, cites


def _model_columns(table: pd.DataFrame, methods: Sequence[str]) -> list[str]:
    """``rank_<model>`` columns added by fitted models (not aggregators, not the range)."""
    skip = {f"rank_{m}" for m in methods} | {"rank_low", "rank_high"}
    return [c for c in table.columns if c.startswith("rank_") and c not in skip]


def _latex_table(
    table: pd.DataFrame, methods: Sequence[str], caption: str, unconverged: set[str]
) -> str:
    primary = methods[0]
    extra = _model_columns(table, methods)
    cols = "r l " + " ".join("r r" for _ in methods) + " r" * len(extra) + " c"
    header = ["Rank", "System"]
    for m in methods:
        header += [f"rank {latex_escape(m)}", f"score {latex_escape(m)}"]
    header += [
        f"rank {latex_escape(c[5:])}" + (" (not converged)" if c[5:] in unconverged else "")
        for c in extra
    ]
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
        mark += r"$^{\ddagger}$" if row["below_next"] else ""
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
tr.contra td { color: #a40000; }
.warning { border: 2px solid #c77700; background: #fff4e0; padding: 0.6em 1em; margin: 1em 0; }
.meta { color: #555; font-size: 0.9em; } img { max-width: 100%; height: auto; }
pre { background: #f6f6f6; padding: 0.8em; overflow-x: auto; font-size: 0.8em; }
"""


def _next_mark(row: pd.Series) -> str:
    if row["above_next"]:
        return "† yes"
    if row["below_next"]:
        return "‡ no: the next system is significantly above"
    return ""


def _html_table(table: pd.DataFrame, methods: Sequence[str], unconverged: set[str]) -> str:
    extra = _model_columns(table, methods)
    head = "<tr><th>rank</th><th class='name'>system</th>"
    for m in methods:
        head += f"<th>rank {html.escape(m)}</th><th>{html.escape(m)}</th>"
    head += "".join(
        f"<th>rank {html.escape(c[5:])}"
        + (" (not converged)" if c[5:] in unconverged else "")
        + "</th>"
        for c in extra
    )
    head += "<th>rank range</th><th>above next?</th></tr>"
    rows = []
    for _, row in table.iterrows():
        cls = (
            " class='sig'"
            if row["above_next"]
            else (" class='contra'" if row["below_next"] else "")
        )
        cells = f"<td>{_fmt(row[f'rank_{methods[0]}'])}</td>"
        cells += f"<td class='name'>{html.escape(str(row['system']))}</td>"
        for m in methods:
            cells += f"<td>{_fmt(row[f'rank_{m}'])}</td><td>{_fmt(row[f'score_{m}'])}</td>"
        cells += "".join(f"<td>{_fmt(row[c])}</td>" for c in extra)
        cells += f"<td>{row['rank_low']}–{row['rank_high']}</td>"
        cells += f"<td class='next'>{_next_mark(row)}</td>"
        rows.append(f"<tr{cls}>{cells}</tr>")
    return f"<table id='ranking'>\n{head}\n" + "\n".join(rows) + "\n</table>"


def _contradiction_sentence(method: str) -> str:
    return (
        f"the next system is significantly above this one: the {method} order contradicts the "
        "pairwise test here"
    )


class _Written:
    """Files written into the temporary directory, recorded under their final names.

    Each call is one finished file: it is recorded and the ``report-file`` checkpoint (the
    interruption hook of the atomicity tests) runs.
    """

    def __init__(self, tmp: Path, final: Path) -> None:
        self.tmp, self.final = tmp, final
        self.files: list[Path] = []

    def __call__(self, path: Path) -> None:
        self.files.append(self.final / path.relative_to(self.tmp))
        checkpoint("report-file")


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

    ``out`` is checked before anything is computed, and the files are written into a temporary
    directory that replaces ``out`` as a whole when the last one is written: an interrupted or
    failing run leaves the previous report (or nothing), and a rerun replaces the whole set.

    Parameters
    ----------
    scores : Scores
        The benchmark.
    out : str or Path
        Output directory: new, empty, or a directory an earlier rankstats run wrote (it carries
        a ``.rankstats-output`` marker); any other non-empty directory or an existing file is
        refused with :class:`~rankstats.errors.OutputError`.
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
        (for MCMC) the convergence diagnostics, and every fit that did not converge
        (:func:`convergence`) gets a warning in the methods paragraph and in the HTML page.
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
        figure and a sentence of the methods paragraph per task. Two tasks whose file names
        would collide (``"a b"`` and ``"a_b"``) are refused before anything is computed.
    confidence : float
        Level of the paired tests and bootstrap intervals (α = 1 − confidence).

    Returns
    -------
    Report

    Raises
    ------
    OutputError
        ``out`` cannot be (re)placed, or two ``paired`` tasks map to the same file name.

    Examples
    --------
    >>> import tempfile, rankstats as rs
    >>> rep = rs.report(rs.load_dataset("xtreme_missing"), out=tempfile.mkdtemp())
    >>> rep.html.name, rep.ranking["system"].iloc[0]
    ('report.html', 'Turing ULR v5 Alexander v-team Microsoft')
    """
    if not methods:
        raise ValueError("give at least one aggregation method")
    # Everything that can be refused is refused before any computing or model fitting.
    out = check_output_dir(out, option="out=")
    _check_models(models)
    if paired:
        from rankstats._report_paired import paired_slugs

        if not scores.has_instances:
            raise ValueError("paired= needs instance-level scores (an instance column)")
        unknown = [t for t in paired if t not in scores.tasks]
        if unknown:
            raise ValueError(f"paired= names unknown task(s) {unknown}; tasks: {scores.tasks}")
        paired_slugs(list(paired))
    level = level or ("instance" if scores.has_instances else "task")
    name = title or scores.name or "benchmark"

    primary = aggregate(scores, method=methods[0], level=level)
    order = primary.order
    rankings = Rankings.from_scores(scores, by=level)
    pw = pairwise(rankings)
    ci = hoeffding(pw, delta=delta, correction=correction, estimand=estimand, order=order)
    table = _ranking_table(scores, methods, level, ci, order)
    transformations = _transformations(scores, level)
    text, cites = _methods_paragraph(scores, methods, level, pw.n_rankings, ci, transformations)
    fits = _fit_models(models, rankings, model_method, seed)
    verdicts = [convergence(fit) for fit in fits]
    unconverged = {v.model for v in verdicts if not v.converged}
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
        text += (
            " Rank models: "
            + "; ".join(_model_sentence(f, v) for f, v in zip(fits, verdicts, strict=True))
            + ". "
        )
        text += " ".join(
            f"{MODEL_NAMES.get(r['method'], r['method'])}: {r['both_same']} pairs significant "
            f"under both with the same winner, {r['conflicts']} conflicts, "
            f"{r['hoeffding_only']} significant under Hoeffding only and {r['model_only']} "
            f"under the model only (credible intervals at level {comparison.level:.4g})."
            for _, r in agree.iterrows()
        )
        for verdict in verdicts:
            if not verdict.converged:
                text += " " + _convergence_warning(verdict)
        cites += [
            c
            for c in ("plackett1975", "bradleyterry1952", "mallows1957")
            if (c == "plackett1975" and any(f.model == "pl" for f in fits))
            or (c == "bradleyterry1952" and any(f.model == "bt" for f in fits))
            or (c == "mallows1957" and any(f.model == "mallows" for f in fits))
        ]

    paired_results: dict = {}
    if paired:
        from rankstats._report_paired import paired_text, run_paired

        paired_results = run_paired(scores, list(paired), confidence, seed)
        text += " " + paired_text(paired_results)
        cites.append("peyrard2021")
        if "holm1979" not in cites:
            cites.append("holm1979")

    method_name = METHOD_NAMES.get(methods[0], methods[0])
    contradicted = bool(table["below_next"].any())
    caption = (
        f"Ranking of {latex_escape(name)} by {latex_escape(methods[0])}. Rank range: ranks "
        f"compatible with the significant pairwise differences (Hoeffding, "
        f"$\\delta = {delta}$, {latex_escape(correction)}); $^{{\\dagger}}$: significantly "
        f"above the next system."
    )
    if contradicted:
        caption += f" $^{{\\ddagger}}$: {latex_escape(_contradiction_sentence(methods[0]))}."
    if unconverged:
        caption += (
            " Columns marked (not converged): the model fit did not converge; its ranks are "
            "not reliable."
        )
    n_sig = int(ci["significant"].sum() // 2)
    n_circled = int((ci["significant"] & (ci["distance"] == 0)).sum() // 2)

    with output_dir(out) as tmp:
        written = _Written(tmp, out)
        write_csv(table, tmp / "ranking.csv")
        written(tmp / "ranking.csv")
        write_csv(ci, tmp / "pairs.csv")
        written(tmp / "pairs.csv")
        (tmp / "ranking.tex").write_text(
            _latex_table(table, methods, caption, unconverged), encoding="utf-8"
        )
        written(tmp / "ranking.tex")
        (tmp / "references.bib").write_text(
            "\n\n".join(BIBTEX[c] for c in cites) + "\n", encoding="utf-8"
        )
        written(tmp / "references.bib")
        (tmp / "methods.txt").write_text(text + "\n", encoding="utf-8")
        written(tmp / "methods.txt")
        figures = save_figure(
            significance_heatmap(
                ci, title=f"{mpl_text(name)}: P(row above column), {mpl_text(methods[0])} order"
            ),
            tmp / "significance_heatmap",
        )
        for path in figures:
            written(path)
        section = None
        if paired_results:
            from rankstats._report_paired import paired_section

            section = paired_section(paired_results, tmp, _png_data_uri, written)

        page = _html_page(
            scores=scores,
            name=name,
            level=level,
            n_rankings=pw.n_rankings,
            methods=methods,
            method_name=method_name,
            table=table,
            ci=ci,
            delta=delta,
            correction=correction,
            n_sig=n_sig,
            n_circled=n_circled,
            heatmap=_png_data_uri(figures[0]),
            comparison=comparison,
            section_html=section.html if section is not None else "",
            transformations=transformations,
            verdicts=verdicts,
            unconverged=unconverged,
            text=text,
            cites=cites,
        )
        (tmp / "report.html").write_text(page, encoding="utf-8")
        written(tmp / "report.html")
        files = [out / "report.html", *(p for p in written.files if p.name != "report.html")]
    return Report(
        out=out,
        files=tuple(files),
        ranking=table,
        pairs=ci,
        methods_text=text,
        comparison=comparison,
        fits=tuple(fits),
        paired=paired_results,
        transformations=tuple(transformations),
        convergence=tuple(verdicts),
    )


def _html_page(
    *,
    scores: Scores,
    name: str,
    level: str,
    n_rankings: int,
    methods: Sequence[str],
    method_name: str,
    table: pd.DataFrame,
    ci: pd.DataFrame,
    delta: float,
    correction: str,
    n_sig: int,
    n_circled: int,
    heatmap: str,
    comparison: Any,
    section_html: str,
    transformations: Sequence[str],
    verdicts: Sequence[Convergence],
    unconverged: set[str],
    text: str,
    cites: Sequence[str],
) -> str:
    """The self-contained HTML page (every name escaped; prose names with visible controls)."""
    title = html.escape(terminal(name))
    never = _names(scores.unevaluated_systems) or "none"
    skipped = _names(scores.skipped_tasks) or "none"
    warnings_html = "".join(
        f"<div class='warning' role='alert' id='convergence-{html.escape(v.model)}'>"
        f"<strong>{html.escape(_convergence_warning(v))}</strong></div>\n"
        for v in verdicts
        if not v.converged
    )
    data_items = "".join(f"<li>{html.escape(t)}</li>" for t in transformations)
    marks = "bold rows (†) are significantly above the next system, which they beat"
    if table["below_next"].any():
        marks += (
            f"; red rows (‡): {html.escape(_contradiction_sentence(method_name))} (the "
            "order is the aggregator's, the test is pairwise)"
        )
    legend = (
        "Signed distance of each Hoeffding interval from ½ (red: the row system is "
        "significantly above the column system; blue: below; white: not significant"
    )
    if n_circled:
        legend += (
            f"; circled white cells ({n_circled} pairs): significant by Holm's step-down although "
            "the interval drawn, at the Bonferroni level, contains ½"
        )
    legend += ")."
    buffer = io.StringIO()
    buffer.write(
        f"<!DOCTYPE html>\n<html lang='en'>\n<head>\n<meta charset='utf-8'>\n"
        f"<title>rankstats report: {title}</title>\n<style>{_CSS}</style>\n"
        f"</head>\n<body>\n<h1>Ranking report: {title}</h1>\n"
        f"<p class='meta'>{len(scores.systems)} systems, {len(scores.tasks)} tasks, "
        f"{len(scores.data)} scores, {level}-level rankings ({n_rankings}); "
        f"systems evaluated nowhere: {html.escape(never)}; tasks set aside: "
        f"{html.escape(skipped)}.</p>\n"
        + warnings_html
        + "<h2>Data</h2>\n<p>What the scores went through before ranking:</p>\n"
        f"<ul id='transformations'>\n{data_items}\n</ul>\n"
        f"<h2>Ranking</h2>\n<p>Ordered by {html.escape(method_name)}. <em>Rank range</em>: the "
        "ranks a system can take without contradicting a significant pairwise difference; "
        f"{marks}. {n_sig} of {ci.attrs['n_pairs']} pairs differ significantly (δ = {delta}, "
        f"{html.escape(correction)}).</p>\n"
        + _html_table(table, methods, unconverged)
        + "\n<h2>Pairwise significance</h2>\n"
        f"<p id='heatmap-legend'>{legend}</p>\n"
        f"<img id='heatmap' alt='pairwise significance heatmap' src='{heatmap}'>\n"
        + _comparison_html(comparison)
        + section_html
        + f"<h2>Methods</h2>\n<p id='methods'>{html.escape(text)}</p>\n"
        "<h2>References (BibTeX)</h2>\n"
        f"<pre>{html.escape(chr(10).join(BIBTEX[c] for c in cites))}</pre>\n"
        "<p class='meta'>Generated by rankstats. Every number is in ranking.csv and pairs.csv; "
        "the LaTeX table is ranking.tex.</p>\n</body>\n</html>\n"
    )
    return buffer.getvalue()
