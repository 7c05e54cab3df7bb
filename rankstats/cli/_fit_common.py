"""What every path of ``rankstats fit`` shares (one model, ``--compare``, Mallows): the input
(``FILE``, ``--rankings``, ``--paired``), the time estimate printed before a long fit, the fit
itself with the data warnings it keeps for the JSON, the convergence verdict and its advice, number
columns, and the output directory of one fitted model."""

from __future__ import annotations

import dataclasses
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from rankstats._util import progress as _progress
from rankstats._util.atomic import output_dir
from rankstats.cli._common import (
    file_done,
    file_format,
    level_of,
    load_input,
    load_rankings_file,
    noted,
    write_json,
    write_tables,
    written,
)
from rankstats.cli.options.fit import Options
from rankstats.cli.usage import UsageError
from rankstats.core.rankings import Rankings
from rankstats.datasets import load_paired, load_rankings


def fit_input(opts: Options) -> tuple[object, str, str]:
    sources = (opts.input.file, opts.input.dataset, opts.rankings, opts.paired, opts.preferences)
    given = sum(bool(x) for x in sources)
    if given != 1:
        raise UsageError("give exactly one of FILE, --dataset, --rankings, --paired, --preferences")
    chosen = file_format(opts.input, opts.rankings_file)
    if opts.error_model and not (opts.preferences or chosen == "preferences"):
        raise UsageError(
            "--error-model models assessors' stated preferences (--format preferences or "
            "--preferences NAME), not rankings"
        )
    if opts.preferences or chosen == "preferences":
        if opts.compare or opts.model != "mallows":
            raise UsageError(
                "assessors' preferences are fitted by --model mallows only"
                + (" (nothing to compare)" if opts.compare else "")
            )
        if opts.preferences:
            from rankstats.datasets import load_preferences

            return load_preferences(opts.preferences), opts.preferences, "assessors' preferences"
    if opts.rankings:
        return load_rankings(opts.rankings), opts.rankings, "rankings"
    if opts.paired:
        if opts.model != "bt":
            raise UsageError("--paired data need --model bt")
        return load_paired(opts.paired), opts.paired, "paired comparisons"
    if chosen != "scores":
        if chosen == "pairwise" and (opts.compare or opts.model != "bt"):
            raise UsageError(
                "--format pairwise data are paired comparisons, fitted by --model bt only"
                + (" (nothing to compare)" if opts.compare else "")
            )
        cycles = "keep" if opts.error_model else "refuse"
        data, what = load_rankings_file(opts.input, opts.rankings_file, chosen, cycles=cycles)
        return data, Path(opts.input.file).name.split(".")[0], what
    scores = load_input(opts.input, opts.rankings_file.format)
    level = level_of(opts.input.by, scores)
    name = opts.input.dataset or Path(opts.input.file).stem
    return Rankings.from_scores(scores, by=level), name, f"{level}-level rankings"


def fitting(fit_call, notes: list[str]):
    """Run ``fit_call()`` with the library's ConvergenceWarning (worded in Python arguments)
    silenced: the command words the problems in its own options (:func:`warn_verdict`); the data
    warnings are kept in ``notes`` (for the JSON)."""
    from rankstats.models import ConvergenceWarning

    with noted(notes), warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=ConvergenceWarning)
        return fit_call()


def advice_text(opts: Options, verdict, fit) -> str:
    """What to rerun with, in the command's options."""
    draws = fit.info.get("draws", opts.mcmc.draws) if opts.model == "mallows" else opts.mcmc.draws
    suggest = verdict.suggested_draws(draws)
    if opts.model == "mallows":
        if fit.info.get("cap_reached"):
            return (
                f"the chains reached the cap of --max-draws {fit.info['max_draws']} sweeps: rerun "
                f"with --max-draws {max(suggest, 2 * fit.info['max_draws'])} (or longer --draws, "
                "--tune)"
            )
        return f"rerun with --draws {suggest} (longer chains), a longer --tune or more --chains"
    if verdict.divergences:
        return (
            "divergent transitions: a stronger prior (smaller --prior-scale) helps when systems "
            "never win or never lose; or --method map"
        )
    return f"rerun with --draws {suggest} --tune {max(opts.mcmc.tune, 1000)} or more --chains"


def warn_verdict(verdict, advice: str) -> None:
    if verdict.sampled and verdict.problems:
        warnings.warn(
            "MCMC did not converge reliably: "
            + "; ".join(verdict.problems)
            + f". Do not report these numbers as they are: {advice} (summary at the end).",
            UserWarning,
            stacklevel=2,
        )


def print_convergence(verdict, advice: str, fit, opts: Options) -> dict:
    """Print the convergence summary (the last lines of the output); return it for the JSON."""
    record = {
        **dataclasses.asdict(verdict),
        "converged": verdict.converged,
        "rule": "R-hat ≤ 1.01, bulk ESS ≥ 400, no divergent transitions",
    }
    if opts.model == "mallows" and opts.method == "mcmc":
        record.update(
            {k: fit.info.get(k) for k in ("draws", "max_draws", "extensions", "cap_reached")}
        )
    lines = ["", "convergence summary"]
    if not verdict.sampled:
        lines.append(
            f"  {opts.method}: an optimum, no MCMC diagnostics"
            + (f"; {'; '.join(verdict.problems)}" if verdict.problems else "")
        )
    else:
        r_hat = "-" if verdict.max_r_hat is None else f"{verdict.max_r_hat:.3f}"
        ess = "-" if verdict.min_ess_bulk is None else f"{verdict.min_ess_bulk:.0f}"
        lines.append(
            f"  max R-hat {r_hat} (≤ 1.01), min bulk ESS {ess} (≥ 400), "
            f"divergences {verdict.divergences}"
        )
        if opts.model == "mallows" and fit.info.get("extensions"):
            lines.append(
                f"  chains extended {fit.info['extensions']} time(s) in blocks of --draws "
                f"{opts.mcmc.draws} sweeps to {fit.info['draws']} sweeps per chain"
                + (
                    f"; the cap --max-draws {fit.info['max_draws']} was reached"
                    if fit.info.get("cap_reached")
                    else " (the cap --max-draws was not reached)"
                )
            )
        if verdict.converged:
            lines.append("  verdict: converged")
        else:
            lines.append(f"  verdict: NOT converged ({'; '.join(verdict.problems)})")
            lines.append(f"  {advice}")
    record["verdict"] = "converged" if verdict.converged else "not converged"
    record["advice"] = None if verdict.converged else advice
    if verdict.sampled or verdict.problems:  # an optimum without problems: nothing to say
        print("\n".join(lines))
    return record


def print_estimate(opts: Options, data: object) -> None:
    """One line, before the fit, when it should take more than a few seconds."""
    from rankstats.models.timing import fit_estimate

    line = fit_estimate(
        opts.model,
        data,
        opts.method,
        opts.mcmc.draws,
        opts.mcmc.tune,
        opts.mcmc.chains,
        opts.max_draws,
        opts.kind,
        opts.backend,
        opts.distance,
        opts.thin,
    )
    if line:
        print(f"  {line}", flush=True)


def formatted(values, spec: str) -> list[str]:
    """One number format for a whole column; NaN as ``-``."""
    return ["-" if v is None or not np.isfinite(v) else format(float(v), spec) for v in values]


def metropolis(opts: Options, model: str | None = None) -> bool:
    """Whether ``--model mallows`` runs Metropolis–Hastings (any distance but Kendall, or top-k
    lists), not the exact Gibbs sampler (:meth:`rankstats.models.Mallows.fit`'s ``auto``);
    ``model``: the model asked about (default ``opts.model``, the one being fitted)."""
    preferences = opts.preferences or opts.rankings_file.format == "preferences"
    return (model or opts.model) == "mallows" and (
        opts.distance != "kendall" or opts.kind == "top_k" or opts.clusters > 1 or bool(preferences)
    )


def tune_for(opts: Options, given: int | None) -> int:
    """``--tune`` as given, else the default of the sampler that runs: 5,000 iterations for
    Metropolis–Hastings, 1,000 sweeps or steps for the Gibbs sampler and NUTS."""
    if given is not None:
        return given
    from rankstats.cli.options.fit import METROPOLIS_TUNE

    return METROPOLIS_TUNE if metropolis(opts) else 1000


def fit_model(model: object, data: object, opts: Options, **extra: object) -> tuple:
    """``(fit, notes)``: ``model.fit`` with the options every model shares (``extra``: the
    model's own), under :func:`fitting` (interruption and sampler errors in CLI terms), and the
    data warnings it gave (for the JSON)."""
    notes: list[str] = []
    fit = fitting(
        lambda: model.fit(
            data,
            method=opts.method,
            draws=opts.mcmc.draws,
            tune=opts.mcmc.tune,
            chains=opts.mcmc.chains,
            seed=opts.seed,
            progress=_progress.displayed(),  # --progress / --no-progress (cli main)
            **extra,
        ),
        notes,
    )
    return fit, notes


def described(model: object, opts: Options) -> str:
    """The model and its settings in the command's flags."""
    from rankstats._util.method_names import model_name

    key = getattr(model, "name", "mallows")
    if key == "mallows":
        label = model_name(key) if opts.distance == "kendall" else f"Mallows ({opts.distance})"
        clusters = opts.clusters
        mixture = f", --clusters {clusters}" if clusters > 1 else ""
        if opts.error_model:
            mixture += f", --error-model {opts.error_model}"
        if opts.rho_proposal != "leap_and_shift":
            mixture += f", --rho-proposal {opts.rho_proposal}"
        if opts.leap != 1:
            mixture += f", --leap {opts.leap}"
        if clusters > 1:
            label = f"Mallows ({opts.distance}) mixture of {clusters}"
        return (
            f"{label} (--distance {opts.distance}, --kind {opts.kind}, --prior "
            f"{opts.prior}{mixture}), --method {opts.method}"
        )
    structure = ""
    covariates = getattr(model, "covariates", None)
    if covariates is not None:
        structure += f", --system-covariates {', '.join(map(str, covariates.columns))}"
    if getattr(model, "random_effect", False):
        structure += ", --random-effect"
    if opts.bias_reduction:
        structure += ", --bias-reduction"
    return (
        f"{model_name(key)} (--prior-scale {opts.prior_scale:g}, --kind {opts.kind}"
        f"{structure}), --method {opts.method}"
    )


def write_outputs(
    opts: Options,
    fit: object,
    name: str,
    table: pd.DataFrame,
    table_name: str,
    pairs: pd.DataFrame,
    forest: bool = False,
    extra: dict | None = None,
    verdict=None,
    advice: str = "",
    more: dict[str, pd.DataFrame] | None = None,
    notes: list[str] = (),
) -> int:
    """The significant-pair count, then ``<model>_<table_name>.csv``, ``<model>_pairwise.csv``,
    ``<model>_<name>.csv`` for each table of ``more``, the forest plot, the stored fit
    (``--save``) and ``<model>_fit.json``; last, the convergence summary (also in the JSON)."""
    import io
    from contextlib import redirect_stdout

    from rankstats import models

    n = len(fit.order)
    n_sig = int(pairs["significant"].sum() // 2)
    print(f"\n{n_sig} of {n * (n - 1) // 2} pairs have a {opts.ci_prob:.0%} interval excluding ½.")
    from rankstats.models.information import caveat

    text = caveat(fit)
    if text:  # the library's sentence, as it is
        print(f"warning: {text} (see the warning above).")
    buffer = io.StringIO()
    with redirect_stdout(buffer):
        record = print_convergence(verdict, advice, fit, opts)
    out = Path(opts.output.out)
    with output_dir(out) as tmp:
        tables = {table_name: table, "pairwise": pairs, **(more or {})}
        files = write_tables(tmp, {f"{opts.model}_{k}.csv": v for k, v in tables.items()})
        if forest:
            from rankstats.cli._top import figures_key_file
            from rankstats.models.plots import forest_plot
            from rankstats.plotting.saving import save_figure

            files += save_figure(forest_plot(fit, opts.ci_prob), tmp / f"{opts.model}_forest")
            files += figures_key_file({f"{opts.model}_forest": fit.order}, tmp)
            file_done()
        info = {
            "data": name,
            "model": opts.model,
            "method": opts.method,
            **(extra or {}),
            "info": fit.info,
            "parameters": fit.parameters,
            "log_likelihood": fit.log_likelihood,
            "convergence": record,
            "warnings": list(notes),
        }
        files.append(write_json(tmp / f"{opts.model}_fit.json", info))
    print(written(tmp, out, files))
    if opts.save:
        print(f"wrote {models.save(fit, name, opts.save, keep=opts.keep)}")
    sys.stdout.write(buffer.getvalue())
    sys.stdout.flush()
    return 0


def quasi_summary(fit: object) -> tuple[np.ndarray, dict]:
    """The quasi-standard errors of a PL / BT fit in :attr:`order` (NaN when the covariance
    leaves a difference without variance, said in the note) and the record for the JSON:
    quasi-variances and the worst relative errors (Firth & de Menezes 2004)."""
    try:
        qv = fit.quasi_variances()
    except ValueError as err:
        note = f"none ({err})"
        return np.full(len(fit.order), np.nan), {"note": note}
    record = {
        "note": "comparison intervals log-worth ± 1.96 quasi-se (no overlap ≈ a significant "
        f"difference at 5 %); {qv.accuracy()}",
        "quasi_var": dict(zip(qv.table["system"], qv.table["quasi_var"].tolist(), strict=True)),
        "worst_pair_relative_errors": list(qv.worst_pair),
        "worst_contrast_relative_errors": list(qv.worst_contrast),
    }
    return qv.quasi_se.loc[list(fit.order)].to_numpy(), record


def choose_partition(opts: Options, n: int) -> None:
    """``--partition FILE``: read it (a bad file, or one of another distance or number of
    items, is a usage error naming it) and use it for this process's Mallows fits
    (:func:`rankstats.models.use_partition_function`)."""
    if opts.partition is None:
        return
    from rankstats import models

    try:
        pf = models.read_partition_function(opts.partition, distance=opts.distance, n=n)
    except (OSError, ValueError) as err:
        raise UsageError(f"--partition: {err}") from None
    models.use_partition_function(pf)
