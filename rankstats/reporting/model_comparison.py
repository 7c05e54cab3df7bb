"""The report's model-comparison section: which rank model fits, by PSIS-LOO and by PPC.

With two or more fitted models, :func:`run_model_comparison` (called once, by
:func:`rankstats.reporting.report_data.compute`) sorts the fits into those that can be compared by
PSIS-LOO (posterior draws and a pointwise log-likelihood of the same data, the same unit and
the same reading of partial rankings) and those that cannot, each with the reason
(:func:`rankstats.models.pointwise_likelihood.missing_reason`: a MAP / MLE fit, a Mallows fit of
sub-rankings of more than two systems, other data), compares the first ones with
:func:`rankstats.models.compare_fits` (one :class:`~rankstats.models.ModelComparison`), and
runs the posterior predictive check (:meth:`Fit.ppc`) of every sampled fit.

Every mark the renderers show — "preferred", "within 2 SE of the best", "Pareto-k warning" —
is read off that one :class:`ModelComparison` by :func:`verdicts`; the HTML section
(:func:`section`), ``model_comparison.tex`` (:func:`latex_table`), the sentence of the opening
paragraph (:func:`sentence`) and ``model_comparison.csv`` all use it.  Files written by
:func:`write_model_comparison`:

- ``model_comparison.csv``: the LOO table (unrounded), one row per compared fit;
- ``model_comparison.tex``: the same as a booktabs table, with the fits not compared in the
  caption;
- ``ppc_<model>.csv``: every statistic of the posterior predictive check with its ppp-value;
- ``ppc_<model>_<group>.png`` / ``.pdf``: its figures (linked from the page, not embedded).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from rankstats._util.method_names import fit_key, model_name
from rankstats._util.text import latex_escape, write_csv
from rankstats.plotting.saving import save_figure

if TYPE_CHECKING:  # importing rankstats.models loads ArviZ: only when models were fitted
    from rankstats.models import ModelComparison
    from rankstats.models.ppc_result import PPCResult

#: Replicated data sets of each posterior predictive check (a check of the 5,000 sushi
#: rankings takes 1–2 s with 200).
PPC_DRAWS = 200
#: A ppp-value below this (two-sided) marks a statistic the model misses.
PPC_THRESHOLD = 0.05
#: A fit whose Δelpd is below ``SE_FACTOR × dse`` is "within noise" of the best.
SE_FACTOR = 2.0
#: Pareto k bands (Vehtari et al. 2024): good ≤ 0.5 < ok ≤ 0.7 < bad.
K_GOOD, K_BAD = 0.5, 0.7


@dataclass(frozen=True, eq=False)
class ModelComparisonSection:
    """What the section shows.

    Attributes
    ----------
    labels : dict
        ``{key: display name}`` of every fit (key: the model, ``"pl"``; ``"pl (2)"`` for a
        second fit of the same model).
    comparison : ModelComparison or None
        PSIS-LOO of the comparable fits (None when fewer than two could be compared).
    excluded : tuple of (key, reason)
        Fits left out of the comparison, and why.
    ppc : dict
        ``{key: PPCResult}`` of every sampled fit.
    ppc_skipped : tuple of (key, reason)
        Fits without a posterior predictive check, and why.
    caveats : tuple of str
        Caveats of the section beyond the comparison's own notes (ties, see
        :func:`tie_caveat`).
    composite : tuple of str
        Compared fits whose per-ranking value is Bradley–Terry's composite likelihood, compared
        with proper likelihoods (the comparison's note says why it is biased low).
    """

    labels: dict[str, str]
    comparison: ModelComparison | None
    excluded: tuple[tuple[str, str], ...] = ()
    ppc: dict[str, PPCResult] = field(default_factory=dict)
    ppc_skipped: tuple[tuple[str, str], ...] = ()
    caveats: tuple[str, ...] = ()
    composite: tuple[str, ...] = ()

    @property
    def notes(self) -> tuple[str, ...]:
        """The comparison's caveats (:class:`~rankstats.models.LOOWarning` texts), then the
        section's own."""
        return (() if self.comparison is None else self.comparison.notes) + self.caveats


@dataclass(frozen=True)
class ModelComparisonFiles:
    """Files written by :func:`write_model_comparison`."""

    table: Path | None
    latex: Path | None
    ppc_tables: dict[str, Path]
    ppc_figures: dict[str, dict[str, tuple[Path, ...]]]


def _keys(fits: Sequence[Any]) -> list[str]:
    keys: list[str] = []
    for fit in fits:
        base = fit_key(fit)
        key, k = base, 2
        while key in keys:
            key, k = f"{base} ({k})", k + 1
        keys.append(key)
    return keys


def label(key: str) -> str:
    """``"pl (2)"`` → ``"Plackett–Luce (2)"``."""
    base, _, rest = key.partition(" ")
    return model_name(base) + (f" {rest}" if rest else "")


def run_model_comparison(
    fits: Sequence[Any],
    data: Any,
    ppc_draws: int = PPC_DRAWS,
    seed: int = 0,
) -> ModelComparisonSection | None:
    """Compare ``fits`` (fitted to ``data``) by PSIS-LOO and check each by PPC.

    Returns None for fewer than two fits.  Fits that cannot be compared are listed with the
    reason; when the comparable ones disagree on what they predict (unit, data, reading of
    partial rankings) the largest group that agrees is compared and the others are listed.
    """
    if len(fits) < 2:
        return None
    keys = _keys(fits)
    by_key = dict(zip(keys, fits, strict=True))
    comparison, excluded, composite = _compare(by_key)
    checks, skipped = _ppc_checks(by_key, data, ppc_draws, seed)
    order = sorted(excluded, key=lambda item: keys.index(item[0]))
    caveat = None
    if comparison is not None:
        caveat = tie_caveat(data, [by_key[k].model for k in comparison.table.index])
    return ModelComparisonSection(
        labels={k: label(k) for k in keys},
        comparison=comparison,
        excluded=tuple(order),
        ppc=checks,
        ppc_skipped=tuple(skipped),
        caveats=(caveat,) if caveat else (),
        composite=tuple(composite),
    )


def _compare(by_key: dict[str, Any]) -> tuple[Any, list[tuple[str, str]], list[str]]:
    """PSIS-LOO comparison of the largest group of fits that predict the same thing (unit, data,
    reading of partial rankings): the comparison (None: fewer than two), the fits left out with
    the reason, and the composite fits when only some are."""
    from rankstats._pymc import compat as _compat
    from rankstats._pymc.convergence import SAMPLED
    from rankstats.models import compare_fits
    from rankstats.models import pointwise_likelihood as pointwise

    excluded: list[tuple[str, str]] = []
    groups: dict[tuple, list[str]] = {}
    for key, fit in by_key.items():
        if fit.method not in SAMPLED or not _compat.has_group(fit.idata, pointwise.GROUP):
            excluded.append((key, pointwise.missing_reason(fit)))
            continue
        attrs = _compat.group(fit.idata, pointwise.GROUP).attrs
        signature = (attrs.get("unit"), attrs.get("data_hash"), attrs.get("kind"))
        groups.setdefault(signature, []).append(key)
    if not groups:
        return None, excluded, []
    signature, chosen = max(groups.items(), key=lambda item: len(item[1]))
    for other, members in groups.items():
        if other is not signature:
            excluded += [(key, _mismatch(other, signature, chosen)) for key in members]
    if len(chosen) < 2:
        excluded.append(
            (chosen[0], "the only fit with posterior draws and a pointwise log-likelihood")
        )
        return None, excluded, []
    with warnings.catch_warnings():
        # The caveats are kept in comparison.notes and shown in the section.
        warnings.simplefilter("ignore")
        comparison = compare_fits({k: by_key[k] for k in chosen})
    flags = {
        k: int(_compat.group(by_key[k].idata, pointwise.GROUP).attrs.get("composite", 0))
        for k in chosen
    }
    composite = []
    if 0 < sum(flags.values()) < len(flags):  # the rule of compare_fits' note
        composite = [k for k, flag in flags.items() if flag]
    return comparison, excluded, composite


def _ppc_checks(
    by_key: dict[str, Any], data: Any, ppc_draws: int, seed: int
) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """The posterior predictive check of each sampled fit, and the fits skipped with the reason."""
    from rankstats._pymc.convergence import SAMPLED

    checks: dict[str, Any] = {}
    skipped: list[tuple[str, str]] = []
    for key, fit in by_key.items():
        if fit.method not in SAMPLED:
            refit = (
                "method='mcmc'" if fit.model in ("mallows", "mallows_mixture") else "method='nuts'"
            )
            reason = f"method={fit.method!r} holds an optimum, not posterior draws; refit with "
            skipped.append((key, reason + refit))
            continue
        try:
            checks[key] = fit.ppc(data, draws=ppc_draws, seed=seed, threshold=PPC_THRESHOLD)
        except ValueError as err:
            skipped.append((key, str(err)))
    return checks, skipped


def tie_caveat(data: Any, models: Sequence[str]) -> str | None:
    """A caveat when Plackett–Luce and Mallows are compared on rankings with ties above the
    last place.

    Mallows' likelihood of a tied ranking is the probability of the set of strict orders
    compatible with it (the sum over the tie-breakings); Plackett–Luce's Efron likelihood of a
    tie group of ``d`` systems above the last place approximates the *average* of the
    tie-breakings' probabilities, i.e. that sum divided by ``d!`` (a tie in last place counts
    as the set).  The difference of their elpd then holds up to ``Σ log d!`` that comes from
    the convention, not from the fit.
    """
    if not {"pl", "mallows"} <= set(models):
        return None
    from rankstats.core.rankings import Rankings

    if not isinstance(data, Rankings):
        return None
    # Σ log d! over the tie groups above the last place of each ranking, without a loop over
    # rankings: in each sorted row the k-th member (k = 0, 1, ...) of a group adds log(k + 1).
    ordered = np.sort(data.ranks, axis=1)  # NaN (not ranked) last, and never equal
    position = np.arange(ordered.shape[1])
    start = np.ones(ordered.shape, dtype=bool)
    start[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    within = position - np.maximum.accumulate(np.where(start, position, 0), axis=1)
    last_place = ordered == np.fmax.reduce(ordered, axis=1)[:, None]  # no warning on empty rows
    above = ~np.isnan(ordered) & ~last_place
    terms = np.where(above, np.log1p(within), 0.0)
    per_ranking = terms.sum(axis=1)
    n_rankings, total = int((per_ranking > 0).sum()), float(per_ranking.sum())
    if not n_rankings:
        return None
    return (
        f"{n_rankings} of the {data.n_rankings} rankings tie systems above the last place: "
        "Mallows scores such a ranking by the probability of all the strict orders it allows, "
        "Plackett–Luce (Efron's ties) by about their average, lower by log d! per tie group of "
        f"d systems — {total:.1f} in all, of the elpd difference between the two. Compare them "
        "on the untied rankings to see the fit alone"
    )


def _mismatch(other: tuple, signature: tuple, chosen: list[str]) -> str:
    """Why a fit of ``other`` (unit, data hash, kind) is not compared with ``chosen``."""
    names = ", ".join(label(k) for k in chosen)
    if other[0] != signature[0]:
        return (
            f"it predicts one {other[0]} at a time, the compared fits ({names}) one "
            f"{signature[0]}: their elpd are not on the same scale"
        )
    if other[1] != signature[1]:
        return f"it was fitted to other data (other rankings or systems) than {names}"
    return (
        f"it reads the partial rankings as {other[2]!r}, {names} as {signature[2]!r}: "
        "different events, different likelihoods"
    )


# ---------------------------------------------------------------------------------- marks
def verdicts(
    comparison: ModelComparison, composite: Sequence[str] = ()
) -> dict[str, dict[str, Any]]:
    """Per compared fit, the marks every renderer shows, read off ``comparison.table`` and
    ``comparison.pareto_k``: ``preferred``, ``close`` (Δelpd < 2 dse: not distinguishable
    from the best), ``verdict`` (words), Pareto-k counts ``k_good``, ``k_ok``, ``k_bad``
    (``None`` for WAIC) and ``k_warning``.  A fit in ``composite`` (Bradley–Terry's composite
    likelihood against proper ones) gets no "worse by" verdict: its elpd is biased low."""
    out: dict[str, dict[str, Any]] = {}
    table = comparison.table
    for name, row in table.iterrows():
        preferred = int(row["rank"]) == 0
        diff, dse = float(row["elpd_diff"]), float(row["dse"])
        close = not preferred and diff < SE_FACTOR * dse
        if str(name) in composite and not preferred:
            close = False
            verdict = "composite likelihood: biased low, not comparable with the others"
        elif preferred:
            verdict = "preferred (highest elpd)"
        elif close:
            verdict = f"within {SE_FACTOR:g} SE of the best: not distinguishable"
        else:
            verdict = f"worse than the best by {diff / dse:.1f} SE" if dse > 0 else "worse"
        k_good = k_ok = k_bad = None
        if comparison.pareto_k is not None:
            k = comparison.pareto_k[name].to_numpy()
            k_bad = int(np.sum(k > K_BAD))
            k_ok = int(np.sum((k > K_GOOD) & (k <= K_BAD)))
            k_good = int(np.sum(k <= K_GOOD))
        out[str(name)] = {
            "preferred": preferred,
            "close": close,
            "verdict": verdict,
            "k_good": k_good,
            "k_ok": k_ok,
            "k_bad": k_bad,
            "k_warning": bool(k_bad),
        }
    return out


def ppc_rows(result: PPCResult) -> list[dict[str, Any]]:
    """Per statistic group of a check: checked, missed, expected by chance, the smallest
    ppp-value and the missed statistics by name (from :meth:`PPCResult.summary`)."""
    table = result.statistics
    rows = []
    for group, row in result.summary().iterrows():
        part = table[(table["group"] == group) & table["p_value"].notna()]
        rows.append(
            {
                "group": str(group),
                "checked": int(row["checked"]),
                "missed": int(row["missed"]),
                "expected": float(row["expected_by_chance"]),
                "min_p": float(part["p_value"].min()) if len(part) else None,
                "which": str(row["which"]),
                "flag": int(row["missed"]) > float(row["expected_by_chance"]),
            }
        )
    return rows


def sentence(result: ModelComparisonSection) -> str:
    """One sentence for the report's opening paragraph (names as text)."""
    parts = []
    cmp = result.comparison
    if cmp is None:
        parts.append("No rank models could be compared by PSIS-LOO (see Model comparison)")
    else:
        marks = verdicts(cmp, result.composite)
        best = result.labels[cmp.best]
        close = [result.labels[n] for n, m in marks.items() if m["close"]]
        text = f"By PSIS-LOO, {best} predicts a new {cmp.unit} best"
        if close:
            text += f", but {', '.join(close)} cannot be told apart from it (Δelpd < 2 SE)"
        if result.caveats:
            text += " (part of the difference comes from how the models score ties: see Model "
            text += "comparison)"
        if result.composite:
            names = ", ".join(result.labels[n] for n in result.composite)
            text += f"; {names}: composite likelihood, not comparable"
        bad = [f"{result.labels[n]} ({m['k_bad']})" for n, m in marks.items() if m["k_warning"]]
        if bad:
            text += f"; Pareto k > {K_BAD} for {', '.join(bad)}: those estimates are unreliable"
        parts.append(text)
    missed = [
        f"{result.labels[k]} ({sum(r['missed'] for r in ppc_rows(res))} statistics)"
        for k, res in result.ppc.items()
        if any(r["flag"] for r in ppc_rows(res))
    ]
    if missed:
        parts.append(
            "the posterior predictive checks flag more missed statistics than chance for "
            + ", ".join(missed)
        )
    return "; ".join(parts) + "."


# ---------------------------------------------------------------------------------- files
def _slug(key: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in key.lower()).strip("_")


def write_model_comparison(
    result: ModelComparisonSection,
    directory: Path,
    written: Callable[[Path], None] = lambda path: None,
) -> ModelComparisonFiles:
    """Write the LOO table (CSV, LaTeX) and every check's table and figures."""
    table = latex = None
    if result.comparison is not None:
        frame = result.comparison.table.reset_index()
        marks = verdicts(result.comparison, result.composite)
        frame["verdict"] = [marks[str(n)]["verdict"] for n in frame["fit"]]
        table = directory / "model_comparison.csv"
        write_csv(frame, table)
        written(table)
    if result.comparison is not None or result.excluded:
        latex = directory / "model_comparison.tex"
        latex.write_text(latex_table(result), encoding="utf-8")
        written(latex)
    ppc_tables, ppc_figures = {}, {}
    for key, res in result.ppc.items():
        path = directory / f"ppc_{_slug(key)}.csv"
        write_csv(res.table(), path)
        written(path)
        ppc_tables[key] = path
        ppc_figures[key] = {}
        for group, figure in res.plots().items():
            paths = save_figure(figure, directory / f"ppc_{_slug(key)}_{group}")
            for p in paths:
                written(p)
            ppc_figures[key][group] = tuple(paths)
    return ModelComparisonFiles(table, latex, ppc_tables, ppc_figures)


def latex_table(result: ModelComparisonSection) -> str:
    """A booktabs table of the comparison; the fits not compared are named in the caption."""
    cmp = result.comparison
    lines = [r"\begin{table}[t]", r"\centering", r"\small"]
    if cmp is not None:
        marks = verdicts(cmp, result.composite)
        ic = "LOO" if cmp.ic == "loo" else "WAIC"
        lines += [
            r"\begin{tabular}{l r r r r r r r}",
            r"\toprule",
            rf"Model & elpd & SE & $\Delta$elpd & dSE & weight & $p_\mathrm{{{ic}}}$ & "
            rf"$\hat k > {K_BAD}$ \\",
            r"\midrule",
        ]
        for name, row in cmp.table.iterrows():
            m = marks[str(name)]
            shown = latex_escape(result.labels[str(name)]) + (r"$^{*}$" if m["preferred"] else "")
            k_bad = "--" if m["k_bad"] is None else str(m["k_bad"])
            lines.append(
                f"{shown} & {row['elpd']:.1f} & {row['se']:.1f} & {row['elpd_diff']:.1f} & "
                f"{row['dse']:.1f} & {row['weight']:.3f} & {row['p']:.1f} & {k_bad}" + r" \\"
            )
        lines += [r"\bottomrule", r"\end{tabular}"]
        caption = (
            f"Model comparison by {'PSIS-LOO' if cmp.ic == 'loo' else 'WAIC'}: expected log "
            f"predictive density of a new {cmp.unit} (higher is better, {cmp.n_units} "
            f"{cmp.unit}s), its difference to the best model with the standard error of the "
            r"difference, and the stacking weight; $^{*}$: preferred"
        )
        bad = [latex_escape(result.labels[n]) for n, m in marks.items() if m["k_warning"]]
        if bad:
            caption += (
                f"; Pareto $\\hat k > {K_BAD}$ for some {cmp.unit}s of {', '.join(bad)}: "
                "their estimates are unreliable"
            )
        notes = [latex_escape(n) for n in cmp.notes if "Pareto k" not in n]
        if notes:
            caption += ". " + ". ".join(notes)
    else:
        caption = "No rank models could be compared by PSIS-LOO"
    if result.excluded:
        caption += ". Not compared: " + "; ".join(
            f"{latex_escape(result.labels[k])} ({latex_escape(why)})" for k, why in result.excluded
        )
    lines += [
        rf"\caption{{{caption}.}}",
        r"\label{tab:rankstats-model-comparison}",
        r"\end{table}",
    ]
    return "\n".join(lines) + "\n"


def section(result: ModelComparisonSection, files: ModelComparisonFiles) -> dict[str, Any]:
    """What the HTML template needs (plain text and numbers; the template escapes)."""
    cmp = result.comparison
    rows = []
    if cmp is not None:
        marks = verdicts(cmp, result.composite)
        for name, row in cmp.table.iterrows():
            m = marks[str(name)]
            rows.append(
                {
                    "name": result.labels[str(name)],
                    "elpd": f"{row['elpd']:.1f}",
                    "se": f"{row['se']:.1f}",
                    "diff": f"{row['elpd_diff']:.1f}",
                    "dse": f"{row['dse']:.1f}",
                    "weight": f"{row['weight']:.3f}",
                    "p": f"{row['p']:.1f}",
                    "k": "–"
                    if m["k_bad"] is None
                    else f"{m['k_good']} / {m['k_ok']} / {m['k_bad']}",
                    "verdict": m["verdict"],
                    "preferred": m["preferred"],
                    "k_warning": m["k_warning"],
                }
            )
    checks = []
    for key, res in result.ppc.items():
        checks.append(
            {
                "name": result.labels[key],
                "method": res.method,
                "draws": res.draws,
                "n": res.n_rankings,
                "what": "compared pairs" if res.model == "bt" else "rankings",
                "rows": [
                    {
                        **r,
                        "expected": f"{r['expected']:g}",
                        "min_p": "–" if r["min_p"] is None else f"{r['min_p']:.3f}",
                    }
                    for r in ppc_rows(res)
                ],
                "notes": list(res.notes),
                "table_file": files.ppc_tables[key].name,
                "figures": [
                    {"group": g, "file": paths[0].name}
                    for g, paths in files.ppc_figures[key].items()
                ],
            }
        )
    return {
        "ic": "" if cmp is None else ("PSIS-LOO" if cmp.ic == "loo" else "WAIC"),
        "unit": "" if cmp is None else cmp.unit,
        "n_units": 0 if cmp is None else cmp.n_units,
        "rows": rows,
        "notes": [n for n in result.notes if "Pareto k" not in n],
        "excluded": [{"name": result.labels[k], "reason": why} for k, why in result.excluded],
        "checks": checks,
        "ppc_skipped": [{"name": result.labels[k], "reason": why} for k, why in result.ppc_skipped],
        "threshold": f"{PPC_THRESHOLD:g}",
        "k_bad": f"{K_BAD:g}",
        "k_good": f"{K_GOOD:g}",
        "table_file": "" if files.table is None else files.table.name,
        "latex_file": "" if files.latex is None else files.latex.name,
        "sentence": sentence(result),
    }


def methods_sentence(result: ModelComparisonSection) -> tuple[str, list[str]]:
    """A sentence of the methods paragraph and its citation keys."""
    keys: list[str] = []
    parts: list[str] = []
    cmp = result.comparison
    if cmp is not None:
        keys.append("vehtari2017")
        table = cmp.table
        how = (
            "Pareto-smoothed importance-sampling leave-one-out cross-validation (PSIS-LOO)"
            if cmp.ic == "loo"
            else "WAIC"
        )
        parts.append(
            f"The models {', '.join(result.labels[str(n)] for n in table.index)} were compared "
            f"by {how} "
            f"[vehtari2017] on the pointwise log-likelihood of the {cmp.n_units} {cmp.unit}s: "
            + "; ".join(
                f"{result.labels[str(n)]} elpd {r['elpd']:.1f} (SE {r['se']:.1f}), Δelpd "
                f"{r['elpd_diff']:.1f} (SE {r['dse']:.1f})"
                for n, r in table.iterrows()
            )
        )
    for key, why in result.excluded:
        parts.append(f"{result.labels[key]} was not compared: {why}")
    if result.ppc:
        keys.append("gelman1996")
        parts.append(
            "posterior predictive checks [gelman1996] replicated the data "
            f"{next(iter(result.ppc.values())).draws} times per model (top-1 frequencies, "
            "pairwise win proportions, Kendall distances to the consensus, ties; two-sided "
            f"posterior predictive p-values, threshold {PPC_THRESHOLD:g})"
        )
    return (". ".join(p[0].upper() + p[1:] for p in parts) + ".") if parts else "", keys
