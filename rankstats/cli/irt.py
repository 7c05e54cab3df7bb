"""``rankstats irt``: an item response model fitted to instance-level 0/1 (or graded) results."""

from __future__ import annotations

from pathlib import Path

from rankstats._util.atomic import output_dir
from rankstats._util.text import write_csv
from rankstats.cli._common import file_done, load_input, short, write_json, written
from rankstats.cli._console import NAME_WIDTH, format_numbers, print_table
from rankstats.cli.options.irt import Options

#: Systems shown on the terminal (all of them go to abilities.csv / ranking.csv).
SHOWN = 25


def _fit(opts: Options):
    from rankstats.irt import ItemPrior, fit
    from rankstats.irt.responses import responses_from_scores

    scores = load_input(opts.input)
    kind = "graded" if opts.model == "graded" else "binary"
    responses = responses_from_scores(scores, kind=kind)
    prior = None if opts.slope_sd is None else ItemPrior(slope_sd=opts.slope_sd)
    result = fit(
        responses,
        opts.model,
        method=opts.method,
        prior=prior,
        confidence_level=opts.confidence_level,
    )
    return scores, result


def _print(result, ranking, flags) -> None:
    print(f"  {short(repr(result.responses), 200)}")
    state = "converged" if result.converged else "NOT converged"
    print(
        f"  {result.model}, log-likelihood {result.loglik:.4f}, {state} "
        f"({result.n_iterations} EM iterations); abilities {result.method}\n"
    )
    shown = ranking.head(SHOWN)
    print_table(
        [
            ("rank", "right"),
            ("system", "left"),
            ("theta", "right"),
            ("se", "right"),
            ("rank set", "right"),
        ],
        zip(
            format_numbers(shown["rank"]),
            shown["system"],
            format_numbers(shown["theta"], decimals=3),
            format_numbers(shown["se"], decimals=3),
            [f"{lo}-{hi}" for lo, hi in zip(shown["rank_low"], shown["rank_high"], strict=True)],
            strict=True,
        ),
        max_width={1: NAME_WIDTH},
    )
    if len(ranking) > SHOWN:
        print(f"  ... {len(ranking) - SHOWN} more systems (ranking.csv)")
    low, high = result.measurement_range()
    print(f"\nthe benchmark measures best between θ = {low:.2f} and {high:.2f}")
    if len(flags):
        print(f"{len(flags)} flagged item(s): {short(', '.join(map(str, flags['item'])), 300)}")


def run(opts: Options) -> int:
    scores, result = _fit(opts)
    ranking = result.ranking(alpha=opts.alpha, seed=opts.seed)
    flags = result.flags
    name = scores.name or (Path(opts.input.file).name if opts.input.file else "scores")
    print(f"rankstats irt: {short(name, 80)}")
    _print(result, ranking, flags)
    if opts.output.out:
        out = Path(opts.output.out)
        tables = {
            "abilities.csv": result.abilities,
            "items.csv": result.items,
            "ranking.csv": ranking,
            "comparison.csv": result.compare_rankings(),
            "flags.csv": flags,
        }
        if result.model != "graded":
            tables["item_fit.csv"] = result.item_fit()
        with output_dir(out) as tmp:
            files = []
            for filename, table in tables.items():
                files.append(tmp / filename)
                write_csv(table, files[-1])
                file_done()
            summary = {
                "data": name,
                "model": result.model,
                "method": result.method,
                "loglik": result.loglik,
                "converged": result.converged,
                "em_iterations": result.n_iterations,
                "standard_errors": result.se_type,
                "latent_sd": result.latent_sd,
                "measurement_range": list(result.measurement_range()),
                "excluded_items": result.excluded,
                "quadrature": {"points": 61, "limit": 6.0},
            }
            files.append(write_json(tmp / "summary.json", summary))
        print("\n" + written(tmp, out, files))
    return 0
