"""Paper-ready output: one self-contained HTML file, LaTeX tables, figures, BibTeX, methods text.

``rs.report(scores, out="report/")`` ranks the systems with several aggregators, puts a Hoeffding
interval on every pairwise probability, and writes:

- ``report.html``: self-contained (figures embedded as data URIs, inline CSS, no JavaScript, no
  network access), opening with one plain-language paragraph of what can and cannot be claimed
  (:func:`rankstats.reporting.summary.claims`);
- ``ranking.tex`` (booktabs): each method's rank and score, the rank range implied by the
  significant pairwise differences, a † on systems significantly above the next one and a ‡ where
  the next system is significantly above (the order contradicts the pairwise test there);
- ``ranking.csv``, ``pairs.csv``: every number of the tables, unrounded;
- ``significance_heatmap.png`` / ``.pdf``;
- ``references.bib`` and ``methods.txt``: what was computed, with citations, every
  transformation of the data and every convergence problem of a fitted model;
- ``data_check.csv`` and the page's "Data check" section: the findings of
  :func:`rankstats.check_data` (placeholders, scales, missing and few scores, name collisions,
  uneven instances, folds), each with the option that acts on it;
- with ``significance=True``: Friedman's test, Iman–Davenport's F and a post-hoc test of every
  pair (Demšar, 2006) on the complete blocks, as a section of the page with the
  critical-difference diagram, ``cd_diagram.png`` / ``.pdf``, ``cd_table.tex`` (booktabs) and
  ``posthoc_pairs.csv``, and a sentence of the methods paragraph;
- with ``models``: the rank posterior of each model (``P(rank = r)``, ``P(best)``, credible rank
  intervals) as a section of the page with its heat maps, ``rank_posterior_<model>.csv``,
  ``rank_posterior_<model>_probabilities.csv``, ``rank_posterior_<model>.png`` / ``.pdf`` and
  ``rank_posteriors.tex``;
- with two or more ``models``: a model-comparison section — PSIS-LOO of the fits that have
  posterior draws and a pointwise log-likelihood (``model_comparison.csv``,
  ``model_comparison.tex``; every fit left out is named with the reason) and the posterior
  predictive check of every sampled fit (``ppc_<model>.csv``, ``ppc_<model>_<group>.png`` /
  ``.pdf``).

A battle log (LLM-arena battles fitted by :func:`rankstats.fit_battles`) has its own report in
the same style: :func:`rankstats.battle_report` (:mod:`rankstats.reporting.battle_reporting`).

``rs.report(rankings, out=...)`` takes :class:`~rankstats.Rankings` as well (a PrefLib file read
by :func:`rankstats.read_rankings`): the sections that need only rankings are computed from
them, and one sentence says what needs scores and is left out
(:mod:`rankstats.reporting.rankings_input`).

The *rank range* of a system is ``[1 + a, N − b]``, where ``a`` (``b``) is the number of systems
significantly above (below) it: the ranks the system can take in an order that contradicts none of
the significant differences.

Computing is separate from rendering:

- ``report/compute.py``: every statistic the report shows, computed once into a frozen
  :class:`~rankstats.reporting.report_data.ReportData` (rankings, pairwise statistics, aggregates,
  Hoeffding intervals, fits, convergence verdicts, comparison, paired analyses);
- ``report/diagnostics.py``: whether a fitted model can be reported (:func:`convergence`);
- ``report/methods.py``: the methods paragraph and its BibTeX (``references.bib``, package data);
- ``report/latex.py``: ``ranking.tex``;
- ``report/html.py``: ``report.html``, from the Jinja2 template ``templates/report.html.j2``;
- ``report/paired.py``: the paired instance-level analyses and their files;
- ``report/significance.py``: the Friedman / post-hoc section and its files;
- ``report/rank_posteriors.py``: the rank-posterior section and its files;
- ``report/model_comparison.py``: the model-comparison section (LOO, PPC) and its files.

**Outputs are atomic.** ``out`` is validated before anything is computed; every file is written
into a temporary directory beside it, which replaces ``out`` as a whole once the last file is
written. An interrupted or failing run leaves the previous report (or nothing); a rerun never
leaves a stale file of an earlier run.

**Names are data.** System and task names are escaped for each output: HTML (the template's
autoescape), LaTeX (:func:`rankstats._util.text.latex_escape`), matplotlib (``$`` escaped: never
mathtext), CSV (text cells starting with ``= + - @`` get a leading ``'``), prose (control and
bidirectional characters shown as ``\\uXXXX``) and file names
(:func:`rankstats._util.text.unique_slugs`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from rankstats._util.arguments import probability, random_seed
from rankstats._util.atomic import check_output_dir, output_dir
from rankstats._util.method_names import METHOD_NAMES, MODEL_NAMES
from rankstats._util.renamed import renamed_parameters
from rankstats._util.text import latex_escape
from rankstats.aggregation.hoeffding_intervals import HoeffdingResult
from rankstats.core.rankings import Rankings, check_level, default_level, require_systems
from rankstats.core.scores import Scores
from rankstats.reporting import rankings_input
from rankstats.reporting import report_data as compute
from rankstats.reporting.data_check import run_data_check
from rankstats.reporting.diagnostics import Convergence, convergence
from rankstats.reporting.methods import methods_paragraph
from rankstats.reporting.model_comparison import ModelComparisonSection
from rankstats.reporting.model_comparison import sentence as model_comparison_sentence
from rankstats.reporting.power_section import PowerSection, run_power
from rankstats.reporting.power_section import options as power_request
from rankstats.reporting.rank_posteriors import RankPosteriors
from rankstats.reporting.report_data import ReportData
from rankstats.reporting.report_page import ReportPage
from rankstats.reporting.significance import (
    Significance,
    options,
    run_significance,
    with_zero_method,
)
from rankstats.reporting.summary import claims
from rankstats.reporting.top_systems import check_top
from rankstats.reporting.written_files import WrittenFiles

# ``latex_escape`` is re-exported: ``from rankstats.reporting import latex_escape`` keeps working.
__all__ = [
    "METHOD_NAMES",
    "MODEL_NAMES",
    "Convergence",
    "Report",
    "ReportData",
    "convergence",
    "latex_escape",
    "report",
]


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
        :meth:`~rankstats.HoeffdingResult.marks`.
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
    intervals : HoeffdingResult
        The Hoeffding intervals (``pairs`` is their table), with their parameters as fields.
    data : ReportData
        Everything the report computed (rankings, pairwise statistics, aggregates, ...).
    summary : str
        The plain-language paragraph the HTML page opens with: what can and cannot be claimed
        (:func:`rankstats.reporting.summary.claims`, from the marks of :attr:`intervals` and the
        :attr:`convergence` verdicts).
    significance : Significance or None
        Friedman's test and the post-hoc comparisons (``.friedman``, ``.posthoc``) when
        ``significance`` was asked for.
    rank_posteriors : RankPosteriors or None
        ``P(rank = r)`` of every system under each fitted model (``.posteriors``, by model),
        and a note for each model without one (a single-point fit); None without models.
    model_comparison : ModelComparisonSection or None
        With two or more models: ``.comparison`` (the :class:`~rankstats.models.ModelComparison`
        of the fits that could be compared by PSIS-LOO, or None), ``.excluded`` (the others,
        with the reason) and ``.ppc`` (the posterior predictive check of every sampled fit).
    data_check : DataCheck or None
        The findings of :func:`rankstats.check_data` on the scores (the "Data check" section
        and ``data_check.csv``); None for a report of Rankings (no scores to check).
    power : PowerSection or None
        The calibration on the scores and the detectable difference (``power=``).
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
    intervals: HoeffdingResult | None = None
    data: ReportData | None = None
    summary: str = ""
    significance: Significance | None = None
    rank_posteriors: RankPosteriors | None = None
    model_comparison: ModelComparisonSection | None = None
    data_check: Any = None
    power: PowerSection | None = None

    @property
    def html(self) -> Path:
        return self.files[0]

    def __repr__(self) -> str:
        # Each count under the name of its test, from that test's one result.
        counts = f"{self.intervals.n_significant} pairs significant by Hoeffding"
        if self.significance is not None:
            ph = self.significance.posthoc
            counts += f", {ph.n_significant} by {ph.method}"
        return (
            f"Report({self.html}, {len(self.ranking)} systems, {counts}, {len(self.files)} files)"
        )


@renamed_parameters(level="by", confidence="confidence_level")
def report(
    scores: Scores | Rankings,
    out: str | Path = "report",
    methods: Sequence[str] | None = None,
    delta: float = 0.05,
    correction: str = "holm",
    estimand: str = "imputed",
    by: str | None = None,
    title: str | None = None,
    models: Sequence[Any] = (),
    model_method: str = "map",
    seed: int = 0,
    paired: Sequence[str] = (),
    confidence_level: float = 0.95,
    significance: bool | Mapping[str, Any] = False,
    data_check: Any = None,
    top: int | None = None,
    power: bool | Mapping[str, Any] = False,
    zero_method: str | None = None,
) -> Report:
    """Write a paper-ready report of the ranking of ``scores``.

    ``out`` is checked before anything is computed, and the files are written into a temporary
    directory that replaces ``out`` as a whole when the last one is written: an interrupted or
    failing run leaves the previous report (or nothing), and a rerun replaces the whole set.
    Every statistic is computed once (:func:`rankstats.reporting.report_data.compute`), then
    rendered.

    Parameters
    ----------
    scores : Scores or Rankings
        The benchmark, or rankings without scores (e.g. :func:`rankstats.read_rankings` of a
        PrefLib ``.soi`` file, :func:`rankstats.load_rankings`). From Rankings the report
        shows every section that needs only rankings (σ^l, Copeland, Kemeny, the Hoeffding
        intervals and heat map, the rank models, their comparison and rank posteriors, Friedman's
        test on the rankings as blocks) and says in one sentence what it leaves out (σ^μ, σ^2l
        without tasks, the paired analyses, the data check on scores); asking for one of those
        (``methods=["mean"]``, ``paired=``, ``by=``, ``data_check=``) raises ValueError.
    out : str or Path
        Output directory: new, empty, or a directory an earlier rankstats run wrote (it carries
        a ``.rankstats-output`` marker); any other non-empty directory or an existing file is
        refused with :class:`~rankstats.errors.OutputError`.
    methods : sequence of str, optional
        Aggregators (see :func:`~rankstats.aggregate`); the first one orders the tables and is
        the one whose pairwise differences are tested. Default ``("borda", "borda2", "mean")``
        for Scores, ``("borda", "copeland")`` for Rankings.
    delta, correction, estimand
        Passed to :func:`~rankstats.hoeffding_test`.
    by : {"task", "instance"}, optional
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
    confidence_level : float
        Coverage of the paired bootstrap intervals; the paired tests at α = 1 −
        ``confidence_level``.
    significance : bool or mapping
        Add the classical rank tests (Demšar, 2006): Friedman's test with Iman–Davenport's F and
        a post-hoc test of every pair on the complete blocks of ``by``
        (:func:`rankstats.friedman`, :func:`rankstats.posthoc`), as an HTML section with the
        critical-difference diagram and the average ranks with group letters, ``cd_table.tex``,
        ``cd_diagram.png`` / ``.pdf``, ``posthoc_pairs.csv`` and a sentence of the methods
        paragraph citing Demšar (2006), Friedman (1937), Iman and Davenport (1980) and the
        post-hoc test. ``True``: Nemenyi at α = 0.05; a mapping sets ``method``, ``alpha``,
        ``correction``, ``missing``, ``min_coverage`` (as :func:`rankstats.posthoc`). Incomplete
        blocks are refused, before anything else is computed, unless
        ``missing="complete-case"`` (what is dropped is stated).
    data_check : DataCheck, optional
        The data check of ``scores`` when the caller ran it (``rankstats report`` does, to
        print its findings in the CLI's words); by default it is run here and its warnings are
        issued as :class:`~rankstats.errors.DataWarning`. Either way the findings are the
        page's "Data check" section and ``data_check.csv``.
    power : bool or mapping
        Add "What this benchmark can detect" (issue 26): a design calibrated on the scores
        (:func:`rankstats.calibrate`, with its checks against them) and, by simulation, the
        smallest difference between neighbouring systems that a test detects with power 0.8 at
        the benchmark's size (:meth:`rankstats.Calibration.detectable`; Card et al. 2020):
        an HTML section with the power curve, ``power_curve.png`` / ``.pdf`` / ``.csv``,
        ``calibration_pairs.csv`` and a sentence of the methods paragraph. ``True``: the paired
        t-test; a mapping sets ``test`` (``"t"``, ``"wilcoxon"``, ``"sign"``, ``"hoeffding"``,
        ``"nemenyi"``, ``"conover"``), ``power``, ``n_replications`` (per point of the curve,
        default 1,000) and ``seed``. Scores only.
    top : int, optional
        Show only the best ``top`` systems of the primary order in the ranking tables (HTML,
        ``ranking.tex``) and the heat map; every statistic — intervals, their multiplicity
        correction, ranks, rank ranges — is computed on all systems, the page and the caption say
        so, and ``ranking.csv`` / ``pairs.csv`` list every system. Names too long for the heat map
        are drawn as unique abbreviations, with their key in ``labels.csv`` and on the page.
    zero_method : {"wilcox", "pratt", "zsplit"}, optional
        The zero score differences of every Wilcoxon signed-rank test of the report (the
        ``"wilcoxon-holm"`` post-hoc test of ``significance`` and the ``paired`` analyses),
        passed to ``scipy.stats.wilcoxon``: dropped (``"wilcox"``, the default), ranked (Pratt,
        1959) or their ranks split between the signs
        (:mod:`rankstats.significance.zero_methods`); the methods paragraph states it. It also
        reaches the power section's simulated Wilcoxon test (``power={"test": "wilcoxon"}``,
        as ``rs.power(zero_method=...)``). Refused when the report runs no Wilcoxon test.

    Returns
    -------
    Report

    Raises
    ------
    OutputError
        ``out`` cannot be (re)placed, or two ``paired`` tasks map to the same file name.
    ValueError
        A table of fewer than two systems (nothing to compare), an argument out of its range,
        before anything is computed or written.

    Examples
    --------
    >>> import tempfile, rankstats as rs
    >>> rep = rs.report(rs.load_dataset("xtreme_missing"), out=tempfile.mkdtemp())
    >>> rep.html.name, rep.ranking["system"].iloc[0]
    ('report.html', 'Turing ULR v5 Alexander v-team Microsoft')
    """
    check_level(by)
    probability("delta", delta)
    probability("confidence_level", confidence_level)
    random_seed("seed", seed)
    from rankstats.battles.battle_fit import BattleFit

    if isinstance(scores, BattleFit):
        raise TypeError(
            "rs.report ranks score tables and rankings; a battle fit has its own report: "
            "rs.battle_report(fit, battles, out=...)"
        )
    if isinstance(scores, Scores | Rankings):  # a ranking of one system compares nothing
        require_systems(scores.systems)
    # Everything that can be refused is refused before any computing or model fitting: the
    # output directory here, the request in the first step of compute (compute.check).
    out = check_output_dir(out, option="out")
    check_top(top)
    methods, check, block_level = _inputs(scores, methods, paired, by, data_check)
    sig_options, power_options = _section_options(scores, significance, power, zero_method, paired)
    # Cheap, and refuses incomplete blocks before the aggregators and the model fits run.
    sig = run_significance(scores, block_level, sig_options) if sig_options is not None else None
    request = compute.ReportRequest(
        methods,
        delta,
        correction,
        estimand,
        by,
        title,
        models,
        model_method,
        seed,
        paired,
        confidence_level,
        zero_method,
    )
    data = compute.compute(scores, request)
    power_part = (
        run_power(scores, power_options, zero_method) if power_options is not None else None
    )
    text, cites = methods_paragraph(data, sig, power_part)
    summary = claims(
        data.intervals,
        data.convergence,
        data.primary,
        data.by,
        data.scores is not None and data.scores.has_instances,
        significance=sig,
        cli=data_check is not None,
    )
    if data.model_comparison is not None:
        summary += " " + model_comparison_sentence(data.model_comparison)
    cli = data_check is not None
    page = ReportPage(data, text, cites, summary, check, sig, power_part, top, cli)
    with output_dir(out, option="out") as tmp:
        written = WrittenFiles(tmp, out)
        ranks = page.write(written)
        files = [out / "report.html", *(p for p in written.files if p.name != "report.html")]
    return Report(
        out=out,
        files=tuple(files),
        ranking=data.ranking,
        pairs=data.intervals.table,
        methods_text=text,
        comparison=data.comparison,
        fits=data.fits,
        paired=data.paired,
        transformations=data.transformations,
        convergence=data.convergence,
        intervals=data.intervals,
        data=data,
        summary=summary,
        significance=sig,
        rank_posteriors=ranks,
        model_comparison=data.model_comparison,
        data_check=check,
        power=power_part,
    )


def _inputs(
    scores: Scores | Rankings,
    methods: Sequence[str] | None,
    paired: Sequence[str],
    by: str | None,
    data_check: Any,
) -> tuple[Sequence[str], Any, str | None]:
    """The aggregators (their default for scores or for rankings), the data check and the
    blocks of the rank tests; what rankings cannot give is refused."""
    if isinstance(scores, Rankings):
        methods = rankings_input.DEFAULT_METHODS if methods is None else methods
        rankings_input.refuse(scores, methods, paired, by, data_check)
        return methods, None, None  # the blocks are the rankings
    methods = ("borda", "borda2", "mean") if methods is None else methods
    return methods, run_data_check(scores, data_check), default_level(scores, by)


def _section_options(
    scores: Scores | Rankings,
    significance: bool | Mapping[str, Any],
    power: bool | Mapping[str, Any],
    zero_method: str | None,
    paired: Sequence[str],
) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """The checked options of the significance and power sections (None: not asked for)."""
    sig_options = options(significance)
    power_options = power_request(power)
    power_wilcoxon = power_options is not None and power_options["test"] == "wilcoxon"
    sig_options = with_zero_method(sig_options, zero_method, bool(paired), power_wilcoxon)
    if power_options is not None and isinstance(scores, Rankings):
        raise ValueError(
            "power= calibrates a design on scores; rankings without scores have no noise to "
            "calibrate (leave power= out)"
        )
    return sig_options, power_options
