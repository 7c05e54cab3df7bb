"""The methods paragraph of a report and the BibTeX entries it cites.

:func:`methods_paragraph` states, from a :class:`~rankstats.reporting.report_data.ReportData`, what
was computed: the data and every transformation it went through, the aggregators, the imputation
(Himmi et al., 2023), the Borda scores (Colombo et al., 2022), the Hoeffding intervals (Hoeffding,
1963) and their multiplicity correction (Holm, 1979), the rank models with their priors and
convergence diagnostics, the paired analyses (Peyrard et al., 2021) and the classical rank tests
(Friedman, 1937; Iman and Davenport, 1980; Nemenyi, 1963; after Demšar, 2006). It returns the
citation keys it used; :func:`bibtex` copies their entries from ``references.bib``, a data file
of the package.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from importlib import resources
from typing import Any

from rankstats._util.method_names import fit_key, method_name, model_name
from rankstats._util.text import terminal
from rankstats.reporting.diagnostics import Convergence
from rankstats.reporting.model_comparison import methods_sentence as model_comparison_sentence
from rankstats.reporting.paired import summary
from rankstats.reporting.power_section import PowerSection
from rankstats.reporting.power_section import methods_sentence as power_sentence
from rankstats.reporting.rankings_input import left_out
from rankstats.reporting.report_data import ReportData
from rankstats.reporting.significance import Significance, methods_sentence
from rankstats.significance.zero_methods import zero_method_text

#: Model → the citation of its definition.
MODEL_CITATIONS = {"pl": "plackett1975", "bt": "bradleyterry1952", "mallows": "mallows1957"}


@functools.cache
def references() -> dict[str, str]:
    """``{key: BibTeX entry}`` of ``rankstats/reporting/references.bib`` (package data)."""
    text = resources.files("rankstats.reporting").joinpath("references.bib").read_text("utf-8")
    entries = re.finditer(r"^@\w+\{([^,\s]+),.*?^\}", text, flags=re.M | re.S)
    return {entry.group(1): entry.group(0) for entry in entries}


def bibtex(keys: Iterable[str], sep: str = "\n\n") -> str:
    """The BibTeX entries of ``keys``, in that order."""
    entries = references()
    return sep.join(entries[key] for key in keys)


def convergence_warning(verdict: Convergence) -> str:
    """The sentence the methods paragraph and the HTML warning box both print."""
    return (
        f"Warning: the {verdict.name} did not converge ({'; '.join(verdict.problems)}); "
        "its order, its ranks and its pairwise decisions are not reliable and must not be "
        "reported as they are (run longer or more chains and check the diagnostics)."
    )


def methods_paragraph(
    data: ReportData,
    significance: Significance | None = None,
    power: PowerSection | None = None,
) -> tuple[str, list[str]]:
    """The methods paragraph (one line of prose, names with visible control characters) and
    the citation keys it uses, in order of first use; with ``significance``, a sentence on
    Friedman's test and the post-hoc comparisons (:mod:`rankstats.reporting.significance`)."""
    text, cites = _statistics(data)
    if significance is not None:
        sentence, keys = methods_sentence(significance)
        text += " " + sentence
        cites += [k for k in keys if k not in cites]
    if data.fits:
        text += _models(data)
        cites += [MODEL_CITATIONS[m] for m in MODEL_CITATIONS if m in {f.model for f in data.fits}]
    if data.model_comparison is not None:
        sentence, keys = model_comparison_sentence(data.model_comparison)
        if sentence:
            text += " " + sentence
            cites += [k for k in keys if k not in cites]
    if data.paired:
        sentence, keys = _paired(data)
        text += " " + sentence
        cites += [k for k in ("peyrard2021", "holm1979", *keys) if k not in cites]
    if power is not None:
        sentence, keys = power_sentence(power)
        text += " " + sentence
        cites += [k for k in keys if k not in cites]
    return text, cites


def _statistics(data: ReportData) -> tuple[str, list[str]]:
    scores, ci = data.scores, data.intervals
    cites = ["himmi2023", "colombo2022", "hoeffding1963"]
    if scores is None:  # a report of rankings
        text = (
            f"We aggregated {ci.n_rankings} rankings of {data.rankings.n_systems} systems, given "
            f"as rankings without scores, with rankstats. {left_out(data.rankings)} "
        )
    else:
        if data.by == "instance":
            level_text = "each (task, instance) pair"
        elif scores.has_instances:
            level_text = "each task (instance scores averaged)"
        else:
            level_text = "each task"
        text = (
            f"We ranked {len(scores.systems)} systems on {len(scores.tasks)} tasks "
            f"({len(scores.data)} scores; {level_text} defines one partial ranking, "
            f"{ci.n_rankings} rankings in all) with rankstats. "
        )
    text += (
        f"Data: {' '.join(data.transformations)} "
        f"Aggregators: {', '.join(method_name(m) for m in data.methods)}. "
        "A system without a score in a ranking was imputed as a uniformly random insertion "
        "into it, i.e. its pairwise probabilities are those of a uniformly random complete ranking "
        "compatible with the observed one [himmi2023]; the Borda score of a system is the expected "
        "number of systems it beats, summed over rankings [colombo2022]. For every pair of systems "
        f"we computed a Hoeffding interval [hoeffding1963] on the probability that one is ranked "
        f"above the other ({ci.estimand} estimand, {ci.form} half-width "
        f"sqrt(log(2/δ)/2z) where z is the number of rankings evaluating both), δ = {ci.delta}"
    )
    if ci.correction == "holm":
        cites.append("holm1979")
        text += (
            f", with Holm's step-down correction over the {ci.n_pairs} pairs [holm1979] "
            f"(intervals shown at the Bonferroni level δ/{ci.n_pairs})"
        )
    elif ci.correction == "bonferroni":
        text += f", with a Bonferroni correction over the {ci.n_pairs} pairs"
    else:
        text += ", without multiplicity correction"
    text += (
        f". {ci.n_significant} of the {ci.n_pairs} pairwise differences are significant by "
        "the Hoeffding intervals."
    )
    if "copeland" in data.methods:
        cites.append("copeland1951")
    return text, cites


def _models(data: ReportData) -> str:
    """Each model's prior, method and diagnostics, its agreement with the intervals, and a
    warning per fit that did not converge."""
    fits, verdicts, comparison = data.fits, data.convergence, data.comparison
    text = (
        " Rank models: "
        + "; ".join(_model_sentence(f, v) for f, v in zip(fits, verdicts, strict=True))
        + ". "
    )
    text += " ".join(
        f"{model_name(r['method'])}: {r['both_same']} pairs significant "
        f"under both with the same winner, {r['conflicts']} conflicts, "
        f"{r['hoeffding_only']} significant under Hoeffding only and {r['model_only']} "
        f"under the model only (credible intervals at level {comparison.ci_prob:.4g})."
        for _, r in comparison.agreement.iterrows()
    )
    for verdict in verdicts:
        if not verdict.converged:
            text += " " + convergence_warning(verdict)
    return text


def _model_sentence(fit: Any, verdict: Convergence) -> str:
    info = getattr(fit, "info", {})
    text = f"{model_name(fit_key(fit))} fitted by {fit.method}"
    if "prior_scale" in info:
        text += f" (zero-sum normal prior on the log-worths, scale {info['prior_scale']})"
    if fit.model in ("mallows", "mallows_mixture") and fit.method != "map":
        from rankstats._pymc import compat as _compat

        a = _compat.attrs(fit.idata)
        if "prior_alpha_rate" in a:  # Metropolis–Hastings: the prior is on α = nθ
            shape, rate = float(a["prior_alpha_shape"]), float(a["prior_alpha_rate"])
            prior = (
                f"α = nθ ~ Exponential({rate:g})"
                if shape == 1
                else f"α = nθ ~ Gamma({shape:g}, rate {rate:g})"
            )
        elif a.get("prior") == "bayesmallows":
            prior = "α = nθ ~ Exponential(0.001)"
        else:
            prior = f"θ ~ Gamma({a.get('shape')}, rate {a.get('rate')})"
        consensus = (
            "uniform priors on the consensuses"
            if "clusters" in a
            else ("uniform prior on the consensus")
        )
        text += f" ({consensus}, {prior}"
        if "clusters" in a:
            text += f", cluster weights ~ Dirichlet({float(a['psi']):g})"
        text += ")"
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
    from rankstats.models.information import caveat  # rank models: issue 23, item 4

    if caveat(fit):
        text += f" (warning: {caveat(fit)})"
    return text


def _paired(data: ReportData) -> tuple[str, list[str]]:
    """One sentence per paired task (names as visible text), and the citation keys of their
    Wilcoxon zero methods."""
    sentences, cites = [], []
    for task, result in data.paired.items():
        p = result.parameters
        zeros, keys = zero_method_text(p["zero_method"])
        cites += [k for k in keys if k not in cites]
        sentences.append(
            f"On {terminal(task)} ({p['n_instances']} instances), {len(result.pairs)} pairs of "
            f"systems were compared on their paired scores [peyrard2021]: significant at "
            f"α = {p['alpha']:g} after Holm's correction {summary(result)}; bootstrap intervals "
            f"from {p['n_bootstrap']} resamples (seed {p['seed']}); strengths by mean, median, "
            f"Bradley–Terry, Elo (K = {p['elo_k']:g}, {p['n_orders']} orders) and TrueSkill; "
            f"Wilcoxon's signed-rank test with {zeros}"
            + "".join(f" [{k}]" for k in keys)
            + f" (scipy.stats.wilcoxon, zero_method={p['zero_method']!r})."
        )
    return " ".join(sentences), cites
