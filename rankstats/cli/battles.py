"""``rankstats battles``: Bradley–Terry leaderboard of pairwise battles (Chatbot-Arena style)."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import pandas as pd

from rankstats._util.atomic import check_output_dir, output_dir
from rankstats._util.text import latex_escape, terminal, write_csv
from rankstats.cli._common import clean, file_done, write_json, write_tables, written
from rankstats.cli._console import print_frame
from rankstats.cli.options.battles import Options
from rankstats.cli.usage import UsageError, spoken
from rankstats.errors import DataWarning


def latex_table(table: pd.DataFrame, methods: list[str], confidence: float) -> str:
    """A booktabs table of the leaderboard; every name through :func:`latex_escape`."""
    header = ["Rank", "Model", "Rating"] + [f"{m} {confidence:.0%} CI" for m in methods] + ["n"]
    lines = [
        "\\begin{tabular}{rl" + "r" * (len(header) - 2) + "}",
        "\\toprule",
        " & ".join(latex_escape(h) for h in header) + " \\\\",
        "\\midrule",
    ]
    for _, row in table.iterrows():
        cells = [f"{row['rank']:g}", latex_escape(row["model"]), f"{row['rating']:.1f}"]
        cells += [f"[{row[f'{m}_low']:.1f}, {row[f'{m}_high']:.1f}]" for m in methods]
        cells.append(f"{int(row['n_battles'])}")
        lines.append(" & ".join(cells) + " \\\\")
    lines += ["\\bottomrule", "\\end{tabular}", ""]
    return "\n".join(lines)


def run(opts: Options) -> int:
    report_dir = _report_dir(opts)  # refused before the log is read
    # The library's errors pass through (the command's handler prints them with their flags).
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DataWarning)
        battles, fit = _fit(opts)
    notes = []
    for item in caught:
        if issubclass(item.category, DataWarning) or item.category.__name__ == "ConvergenceWarning":
            notes.append(spoken(item.message))
            print(f"rankstats battles: warning: {notes[-1]}", file=sys.stderr)
        else:
            warnings.warn_explicit(item.message, item.category, item.filename, item.lineno)
    table, parameters = fit.table(), fit.parameters()
    quasi = _print_fit(opts, fit, table, parameters, battles)
    for note in notes:
        print(f"\nnote: {note}")
    problems = fit.info.get("posterior_problems")
    if problems:
        print("\nposterior NOT converged: " + "; ".join(problems))
    out = Path(opts.output.out)
    with output_dir(out) as tmp:
        files = _write_tables(tmp, opts, fit, table, parameters)
        summary = _summary(fit, battles, notes, table, parameters, quasi)
        files.append(write_json(tmp / "summary.json", summary))
        file_done()
        if not opts.output.no_figures:
            files += _figures(fit, tmp)
        # Inside the --out block: a report that fails leaves --out as it was too.
        report = _write_report(fit, battles, report_dir, opts.title)
    print("\n" + written(tmp, out, files))
    if report is not None:
        print(f"report: {terminal(str(report.html))} ({len(report.files)} files in {report.out})")
    return 0


def _print_fit(opts: Options, fit, table: pd.DataFrame, parameters: pd.DataFrame, battles):
    """The ratings, the parameters, the bootstrap's unit and the quasi-variances' accuracy
    printed; the quasi-variances."""
    adjusted = " adjusted for " + ", ".join(fit.covariate_names) if fit.covariate_names else ""
    if "bias_reduction" in fit.info:
        adjusted = ", bias-reduced (Firth)" + adjusted
    print(
        f"\nratings{adjusted} (Elo scale, {opts.confidence_level:.0%} intervals: "
        f"{', '.join(fit.methods)}):"
    )
    integers = ("rank", "rank_ub", "rank_unadjusted", "n_battles")
    print_frame(table, decimals={c: 1 for c in table.columns if c not in integers})
    if len(parameters):
        effects = ", covariate effects γ (per standard deviation)" if fit.covariate_names else ""
        print(f"\norder effect η = log h, log tie parameter log ν{effects}:")
        print_frame(parameters)
    if "bootstrap" in fit.methods:
        print(f"\nbootstrap over {_unit(fit, battles)}")
    quasi = fit.quasi_variances()
    print(f"\nquasi_se: comparison intervals rating ± 1.96 quasi_se; {quasi.accuracy()}")
    return quasi


def _write_tables(tmp: Path, opts: Options, fit, table, parameters) -> list[Path]:
    """ratings.csv, parameters.csv, win_probability.csv and ratings.tex."""
    files = write_tables(tmp, {"ratings.csv": table, "parameters.csv": parameters})
    matrix = fit.win_probability().loc[list(table["model"]), list(table["model"])]
    write_csv(matrix.reset_index(names="model"), tmp / "win_probability.csv")
    files.append(tmp / "win_probability.csv")
    (tmp / "ratings.tex").write_text(latex_table(table, fit.methods, opts.confidence_level))
    files.append(tmp / "ratings.tex")
    return files


def _summary(fit, battles, notes: list[str], table, parameters, quasi) -> dict:
    """The content of summary.json."""
    return {
        "battles": repr(battles),
        "info": {
            k: v for k, v in fit.info.items() if k not in ("warnings", "order_effect_dropped")
        },
        "warnings": notes,
        "parameters": clean(parameters.to_dict("records")),
        "ratings": clean(table.to_dict("records")),
        "quasi_variances": clean(
            [
                {
                    "worst_pair_low": quasi.worst_pair[0],
                    "worst_pair_high": quasi.worst_pair[1],
                    "worst_contrast_low": quasi.worst_contrast[0],
                    "worst_contrast_high": quasi.worst_contrast[1],
                }
            ]
        )[0],
    }


def _figures(fit, tmp: Path) -> list[Path]:
    """The intervals, the win probabilities and the covariates' effects, with their key file."""
    import matplotlib.pyplot as plt

    from rankstats.cli._top import figures_key_file
    from rankstats.plotting.saving import save_figure

    files = []
    drawn = [
        ("intervals", fit.plot(top=60)),
        ("win_probability", fit.plot_win_probability(top=30)),
    ]
    if fit.covariate_names:
        drawn.append(("covariates", fit.plot_covariates()))
    for stem, figure in drawn:
        files += save_figure(figure, tmp / stem)
        plt.close(figure)
        file_done()
    # Both figures draw the labels of all the models (the same with --top).
    keyed = dict.fromkeys(("intervals", "win_probability"), fit.models)
    if fit.covariate_names:
        keyed["covariates"] = fit.covariate_names
    return files + figures_key_file(keyed, tmp)


def _report_dir(opts: Options) -> Path | None:
    """``--report DIR``, checked before anything is read: a usable directory, apart from
    ``--out`` (each is replaced as a whole); ``--title`` only with it."""
    if opts.report is None:
        if opts.title is not None:
            raise UsageError("--title: only with --report DIR")
        return None
    report, out = Path(opts.report).resolve(), Path(opts.output.out).resolve()
    if report == out or out in report.parents or report in out.parents:
        raise UsageError(
            f"--report {opts.report} and --out {opts.output.out} must be two separate directories "
            "(neither inside the other): each is replaced as a whole"
        )
    return check_output_dir(opts.report, option="report")


def _write_report(fit, battles, directory: Path | None, title: str | None):
    """The paper-ready report of the fit (:func:`rankstats.battle_report`), or None."""
    if directory is None:
        return None
    from rankstats.reporting.battle_reporting import battle_report

    return battle_report(fit, battles, out=directory, title=title)


def _unit(fit, battles) -> str:
    if battles.cluster is None:
        return f"battles ({battles.n_battles:,}; --cluster COL resamples groups of battles)"
    return (
        f"clusters ({battles.n_clusters:,} values of --cluster {battles.cluster}; the Fisher "
        "and posterior intervals treat battles as independent)"
    )


def covariate_options(given: list[str] | None) -> dict[str, str | tuple[str, ...]] | None:
    """``--battle-covariate NAME``, ``NAME=COL`` or ``NAME=COL_A,COL_B``: ``read_battles(
    covariates=)``."""
    if not given:
        return None
    out: dict[str, str | tuple[str, ...]] = {}
    for item in given:
        name, _, columns = item.partition("=")
        name = name.strip()
        parts = tuple(c.strip() for c in columns.split(",")) if columns else (name,)
        if not name or not all(parts) or len(parts) > 2:
            raise UsageError(
                f"--battle-covariate {item!r}: give NAME, NAME=COLUMN or NAME=COLUMN_A,COLUMN_B"
            )
        if name in out:
            raise UsageError(f"--battle-covariate {name!r} is given twice")
        out[name] = parts[0] if len(parts) == 1 else parts
    return out


def _fit(opts: Options):
    from rankstats.battles.fitting import fit_battles
    from rankstats.battles.log import read_battles

    battles = read_battles(
        Path(opts.file),
        model_a=opts.model_a,
        model_b=opts.model_b,
        winner=opts.winner,
        sep=opts.sep,
        encoding=opts.encoding,
        cluster=opts.cluster,
        covariates=covariate_options(opts.battle_covariate),
    )
    if opts.anchor is not None and opts.anchor not in battles.models:
        raise UsageError(
            f"--anchor {opts.anchor!r} is not a model of the battles; models are "
            f"{', '.join(map(repr, battles.models[:20]))}"
        )
    print(terminal(repr(battles)))
    fit = fit_battles(
        battles,
        # Davidson's ν only when ties remain after --both-bad (decided on the counts fitted).
        ties=None if opts.ties == "davidson" else False,
        order_effect=opts.order_effect,
        both_bad=opts.both_bad,
        n_resamples=opts.n_resamples,
        bias_reduction=opts.bias_reduction,
        posterior=opts.posterior,
        confidence_level=opts.confidence_level,
        anchor=opts.anchor,
        anchor_rating=opts.rating,
        seed=opts.seed,
        standardize=not opts.no_standardize,
        draws=opts.mcmc.draws,
        tune=opts.mcmc.tune,
        chains=opts.mcmc.chains,
    )
    return battles, fit
