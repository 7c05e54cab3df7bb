"""``rankstats fit``: fit Plackett–Luce, Bradley–Terry or Mallows; print worths / consensus
positions and pairwise probabilities.

"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from rankstats._atomic import output_dir
from rankstats._text import write_csv
from rankstats.cli._common import (
    UsageError,
    add_input_arguments,
    add_output_argument,
    at_least,
    check_out,
    file_done,
    level_of,
    load_input,
    positive,
    probability,
    short,
    write_json,
    written,
)
from rankstats.datasets import PAIRED, RANKINGS, load_paired, load_rankings
from rankstats.rankings import Rankings

HELP = "fit a Plackett–Luce, Bradley–Terry or Mallows model (MLE, MAP, NUTS or Gibbs)"
EXAMPLE = (
    "rankstats fit --dataset glue --model pl --method map\n  "
    "rankstats fit --rankings nascar --model mallows"
)


def arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser, level=True)
    parser.add_argument(
        "--rankings", choices=sorted(RANKINGS), help="a bundled classic ranking data set instead"
    )
    parser.add_argument(
        "--paired", choices=sorted(PAIRED), help="a bundled paired-comparison data set (bt only)"
    )
    parser.add_argument(
        "--model", choices=["pl", "bt", "mallows"], default="pl", help="default: pl"
    )
    parser.add_argument(
        "--method",
        choices=["nuts", "mle", "map", "mcmc"],
        default=None,
        help="pl/bt: nuts (default), mle or map; mallows: mcmc (Gibbs, default) or map "
        "(Kemeny consensus + ML dispersion, complete rankings)",
    )
    parser.add_argument(
        "--prior",
        choices=["gamma", "bayesmallows"],
        default="gamma",
        help="mallows: θ ~ Gamma(1, 0.1) (default) or BayesMallows' α = nθ ~ Exp(0.001)",
    )
    parser.add_argument(
        "--kind",
        choices=["subset", "top_k"],
        default="subset",
        help="partial rankings are "
        "sub-rankings (default) or top-k lists (ranked systems beat all unranked ones)",
    )
    parser.add_argument(
        "--prior-scale",
        type=positive,
        default=1.0,
        help="pl/bt: σ of the ZeroSumNormal prior on the log-worths (default 1)",
    )
    parser.add_argument(
        "--draws",
        type=at_least(1),
        default=1000,
        help="draws (NUTS) or sweeps (Mallows Gibbs) kept per chain (default 1000)",
    )
    parser.add_argument(
        "--tune",
        type=at_least(0),
        default=1000,
        help="tuning steps (NUTS) or discarded sweeps (Mallows) per chain (default 1000)",
    )
    parser.add_argument(
        "--chains", type=at_least(1), default=4, help="independent chains (default 4)"
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument(
        "--sampler",
        choices=["pymc", "nutpie"],
        default="pymc",
        help="NUTS implementation (nutpie needs rankstats[fast]; default pymc)",
    )
    parser.add_argument(
        "--prob", type=probability, default=0.95, help="interval probability (default 0.95)"
    )
    add_output_argument(parser, "rankstats-out", "the tables, the forest plot and the JSON")
    parser.add_argument("--save", metavar="DIR", help="also store the fit as DIR/<data>_<model>.nc")
    parser.add_argument(
        "--keep", type=at_least(1), default=100, help="draws per chain kept by --save"
    )
    parser.add_argument("--no-figures", action="store_true", help="skip the forest plot")
    parser.add_argument("--no-progress", action="store_true", help="no sampling progress bar")


def check(args: argparse.Namespace) -> None:
    """The output directory and ``--save`` before fitting (a fit can take minutes)."""
    check_out(args)
    if args.save and Path(args.save).exists() and not Path(args.save).is_dir():
        raise UsageError(f"--save {args.save} is an existing file; give a directory")


def _data(args: argparse.Namespace) -> tuple[object, str, str]:
    given = sum(bool(x) for x in (args.file, args.dataset, args.rankings, args.paired))
    if given != 1:
        raise UsageError("give exactly one of FILE, --dataset, --rankings, --paired")
    if args.rankings:
        return load_rankings(args.rankings), args.rankings, "rankings"
    if args.paired:
        if args.model != "bt":
            raise UsageError("--paired data need --model bt")
        return load_paired(args.paired), args.paired, "paired comparisons"
    scores = load_input(args)
    level = level_of(args, scores)
    name = args.dataset or Path(args.file).stem
    return Rankings.from_scores(scores, by=level), name, f"{level}-level rankings"


def run(args: argparse.Namespace) -> int:
    from rankstats import models

    data, name, what = _data(args)
    if args.model == "mallows":
        args.method = args.method or "mcmc"
        if args.method not in ("mcmc", "map"):
            raise UsageError("--model mallows takes --method mcmc or map")
        if args.kind != "subset":
            raise UsageError(
                "--kind top_k is not a Mallows option (unranked items are latent anywhere)"
            )
        return _mallows(args, data, name, what)
    args.method = args.method or "nuts"
    if args.method == "mcmc":
        raise UsageError("--method mcmc is the Mallows sampler; pl/bt use nuts, mle or map")
    cls = models.PlackettLuce if args.model == "pl" else models.BradleyTerry
    model = cls(prior_scale=args.prior_scale, kind=args.kind)
    fit = model.fit(
        data,
        method=args.method,
        draws=args.draws,
        tune=args.tune,
        chains=args.chains,
        seed=args.seed,
        sampler=args.sampler,
        progressbar=not args.no_progress,
    )
    print(f"rankstats fit: {name} ({what}), {model!r}, method={args.method}")
    if args.method == "nuts":
        print(
            f"  NUTS ({args.sampler}): {args.chains} chains × {args.draws} draws after "
            f"{args.tune} tuning steps, seed {args.seed}; converged: {fit.info['converged']}"
            + (f" ({fit.info['problems']})" if fit.info["problems"] else "")
        )
    elif fit.log_likelihood is not None:
        label = "log-likelihood" if args.method == "mle" else "log-posterior (up to a constant)"
        print(f"  {label}: {fit.log_likelihood:.4f}")
    for key, value in fit.parameters.items():
        if not key.startswith("log_") and not key.endswith("_se"):
            print(f"  {key} = {value:.6g} (± {fit.parameters.get(key + '_se', float('nan')):.3g})")

    summary = fit.summary(args.prob)
    rows = [f"{fit.variable}[{s}]" for s in fit.order]
    centre = "mean" if args.method == "nuts" else "estimate"
    spread = "sd" if args.method == "nuts" else "se"
    table = pd.DataFrame(
        {
            "rank": range(1, len(rows) + 1),
            "system": fit.order,
            "log_worth": summary.loc[rows, centre].to_numpy(),
            spread: summary.loc[rows, spread].to_numpy(),
            "low": summary.loc[rows, "low"].to_numpy(),
            "high": summary.loc[rows, "high"].to_numpy(),
        }
    )
    if args.method == "nuts":
        table["r_hat"] = summary.loc[rows, "r_hat"].to_numpy()
        table["ess_bulk"] = summary.loc[rows, "ess_bulk"].to_numpy()
    width = min(max(6, *(len(s) for s in fit.order)), 40)
    interval = "posterior" if args.method == "nuts" else "Wald"
    print(f"\nlog-worth (centred), {args.prob:.0%} {interval} interval")
    header = f"{'rank':>4}  {'system':<{width}}  {'log-worth':>9}  {spread:>6}  {'interval':>17}"
    if args.method == "nuts":
        header += f"  {'R-hat':>6}  {'ESS':>6}"
    print(header)
    print("-" * len(header))
    for row in table.itertuples():
        line = (
            f"{row.rank:>4}  {short(row.system, width):<{width}}  {row.log_worth:>9.4f}  "
            f"{getattr(row, spread):>6.3f}  [{row.low:>7.3f}, {row.high:>7.3f}]"
        )
        if args.method == "nuts":
            line += f"  {row.r_hat:>6.3f}  {row.ess_bulk:>6.0f}"
        print(line)

    pairs = fit.pairwise(args.prob)
    n = len(fit.order)
    if n <= 25:
        how = "posterior mean" if args.method == "nuts" else "at the estimate"
        print(f"\nP(row ranked above column), {how}:")
        matrix = pairs.pivot(index="system_a", columns="system_b", values="estimate")
        matrix = matrix.reindex(index=fit.order, columns=fit.order)
        labels = [str(i + 1) for i in range(n)]
        print("      " + " ".join(f"{lab:>5}" for lab in labels))
        for i, a in enumerate(fit.order):
            cells = ["    \\" if a == b else f"{matrix.loc[a, b]:5.2f}" for b in fit.order]
            print(f"  {labels[i]:>2}  " + " ".join(cells) + f"   {short(a, 40)}")
    return _write_outputs(args, fit, name, table, "worth", pairs, forest=not args.no_figures)


def _write_outputs(
    args: argparse.Namespace,
    fit: object,
    name: str,
    table: pd.DataFrame,
    table_name: str,
    pairs: pd.DataFrame,
    forest: bool = False,
    extra: dict | None = None,
) -> int:
    """The significant-pair count, then ``<model>_<table_name>.csv``, ``<model>_pairwise.csv``,
    the forest plot, the stored fit (``--save``) and ``<model>_fit.json``."""
    from rankstats import models

    n = len(fit.order)
    n_sig = int(pairs["significant"].sum() // 2)
    print(f"\n{n_sig} of {n * (n - 1) // 2} pairs have a {args.prob:.0%} interval excluding ½.")
    out = Path(args.out)
    with output_dir(out) as tmp:
        files = [tmp / f"{args.model}_{table_name}.csv", tmp / f"{args.model}_pairwise.csv"]
        write_csv(table, files[0])
        file_done()
        write_csv(pairs, files[1])
        file_done()
        if forest:
            from rankstats.models.plots import forest_plot
            from rankstats.plotting import save_figure

            files += save_figure(forest_plot(fit, args.prob), tmp / f"{args.model}_forest")
            file_done()
        info = {
            "data": name,
            "model": args.model,
            "method": args.method,
            **(extra or {}),
            "info": fit.info,
            "parameters": fit.parameters,
            "log_likelihood": fit.log_likelihood,
        }
        files.append(write_json(tmp / f"{args.model}_fit.json", info))
    print(written(tmp, out, files))
    if args.save:
        print(f"wrote {models.save(fit, name, args.save, keep=args.keep)}")
    return 0


def _mallows(args: argparse.Namespace, data: object, name: str, what: str) -> int:
    """``rankstats fit --model mallows``: consensus positions, θ and pairwise probabilities."""
    from rankstats import models

    if not isinstance(data, Rankings):
        raise UsageError("the Mallows model takes rankings, not paired comparisons")
    model = models.Mallows(prior=args.prior)
    fit = model.fit(
        data,
        method=args.method,
        draws=args.draws,
        tune=args.tune,
        chains=args.chains,
        seed=args.seed,
        progressbar=not args.no_progress,
    )
    sampled = args.method == "mcmc"
    print(f"rankstats fit: {name} ({what}), {model!r}, method={args.method}")
    summary = fit.summary(args.prob)
    if sampled:
        problems = fit.info["convergence_problems"]
        print(
            f"  Gibbs sampler: {args.chains} chains × {args.draws} sweeps after {args.tune} "
            f"discarded, seed {args.seed}; converged: {not problems}"
            + (f" ({'; '.join(problems)})" if problems else "")
        )
        t = summary.loc["theta"]
        print(
            f"  theta = {t['mean']:.4g} (sd {t['sd']:.3g}; {args.prob:.0%} interval "
            f"[{t['low']:.4g}, {t['high']:.4g}])"
        )
    else:
        print(
            f"  theta = {fit.theta:.6g} (maximum likelihood), Kemeny consensus optimal: "
            f"{fit.info['kemeny_optimal']}; log-likelihood {fit.log_likelihood:.4f}"
        )
    rows = [f"position[{s}]" for s in fit.order]
    centre = "mean" if sampled else "estimate"
    table = pd.DataFrame(
        {
            "rank": range(1, len(rows) + 1),
            "system": fit.order,
            "position": summary.loc[rows, centre].to_numpy(),
        }
    )
    if sampled:
        for key in ("sd", "low", "high", "r_hat", "ess_bulk"):
            table[key] = summary.loc[rows, key].to_numpy()
    width = min(max(6, *(len(s) for s in fit.order)), 40)
    print(
        "\nconsensus (the ranking closest in expected Kendall distance to the posterior draws)"
        + (f"; posterior position of each system in σ, {args.prob:.0%} interval" if sampled else "")
    )
    header = f"{'rank':>4}  {'system':<{width}}  {'position':>8}"
    if sampled:
        header += f"  {'sd':>5}  {'interval':>12}  {'R-hat':>6}  {'ESS':>6}"
    print(header)
    print("-" * len(header))
    for row in table.itertuples():
        line = f"{row.rank:>4}  {short(row.system, width):<{width}}  {row.position:>8.2f}"
        if sampled:
            r_hat = "     -" if np.isnan(row.r_hat) else f"{row.r_hat:>6.3f}"
            ess = "     -" if np.isnan(row.ess_bulk) else f"{row.ess_bulk:>6.0f}"
            line += f"  {row.sd:>5.2f}  [{row.low:>4.0f}, {row.high:>4.0f}]  {r_hat}  {ess}"
        print(line)
    if sampled:
        print("(R-hat / ESS '-': the position is the same in every draw.)")
    return _write_outputs(
        args, fit, name, table, "consensus", fit.pairwise(args.prob), extra={"prior": args.prior}
    )
