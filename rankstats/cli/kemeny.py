"""``rankstats kemeny``: Kemeny consensus (exact or with a certified gap) and dispersion."""

from __future__ import annotations

import warnings
from pathlib import Path

from rankstats._util.atomic import output_dir
from rankstats.cli._common import (
    clean,
    level_of,
    load_input,
    short,
    write_json,
    write_tables,
    written,
)
from rankstats.cli._console import NAME_WIDTH, format_numbers, method_label, print_columns
from rankstats.cli.options.kemeny import Options


def run(opts: Options) -> int:
    from rankstats.aggregation.dispersion_analysis import dispersion_table
    from rankstats.aggregation.kemeny_search import NotProvedOptimalWarning, kemeny
    from rankstats.core.rankings import Rankings

    scores = load_input(opts.input)
    level = level_of(opts.input.by, scores)
    rankings = Rankings.from_scores(scores, by=level)
    with warnings.catch_warnings():
        # The status line below states the proof status and the gap.
        warnings.simplefilter("ignore", NotProvedOptimalWarning)
        res = kemeny(
            rankings,
            method=opts.method,
            time_limit=opts.time_limit,
            seed=opts.seed,
            progress=True,  # a bar on a terminal; --progress / --quiet: see cli main
        )
    table = _ranks(res, rankings, scores)
    name = scores.name or (Path(opts.input.file).name if opts.input.file else "scores")
    print(f"rankstats kemeny: {short(name, 80)}")
    print(f"  {short(repr(scores), 400)}")
    print(f"  {rankings.n_rankings} rankings ({level} level), missing systems imputed\n")
    print_columns(
        [(f"rank {method_label('kemeny')}", "right", format_numbers(table["rank_kemeny"]))]
        + [("system", "left", table["system"])]
        + [
            (f"rank {method_label(m)}", "right", format_numbers(table[f"rank_{m}"]))
            for m in ("borda", "mean")
        ],
        max_width={1: NAME_WIDTH},
    )
    status = "proved optimal" if res.optimal else f"NOT proved optimal (gap {res.gap:.3%})"
    print(
        f"\ncost (total expected Kendall distance to the rankings): {res.cost:.6g}; lower bound "
        f"{res.lower_bound:.6g}; {status}; {len(res.components)} Condorcet blocks (largest "
        f"{max(res.components, default=0)}); {res.seconds:.3g} s"
    )
    candidates = {"kemeny": res, "borda": "borda", "mean": "mean", "random": "random"}
    disp = dispersion_table(
        scores, candidates=candidates, by=level, time_limit=opts.time_limit, seed=opts.seed
    )
    _print_dispersion(disp, len(table))
    if opts.output.out:
        out = Path(opts.output.out)
        with output_dir(out) as tmp:
            files = write_tables(tmp, {"kemeny.csv": table})
            summary = _summary(
                res, disp, {"name": name, "level": level, "rankings": rankings.n_rankings}
            )
            files.append(write_json(tmp / "kemeny.json", summary))
        print("\n" + written(tmp, out, files))
    return 0


def _ranks(res, rankings, scores):
    """The Kemeny order with each system's Borda and mean-score ranks beside it."""
    from rankstats.aggregation.aggregators import aggregate

    borda = aggregate(rankings, method="borda").table.set_index("system")["rank"]
    mean = aggregate(scores, method="mean").table.set_index("system")["rank"]
    table = res.table.rename(columns={"rank": "rank_kemeny"})
    table["rank_borda"] = borda.reindex(table["system"]).to_numpy()
    table["rank_mean"] = mean.reindex(table["system"]).to_numpy()
    return table


def _print_dispersion(disp, n: int) -> None:
    """γ and each consensus's distance to the rankings."""
    gamma = disp.attrs["pairwise"]
    print(
        f"\ndispersion: mean Kendall distance between two rankings γ = {gamma:.6g} "
        f"(of at most {n * (n - 1) / 2:g}); any consensus is at least γ/2 = "
        f"{gamma / 2:.6g} from the rankings on average"
    )
    print_columns(
        [
            ("consensus", "left", [method_label(c) for c in disp["candidate"]]),
            ("distance", "right", format_numbers(disp["distance"], decimals=3)),
            ("/ γ", "right", format_numbers(disp["ratio"], decimals=3)),
        ]
    )


def _summary(res, disp, data: dict) -> dict:
    """The content of kemeny.json."""
    return {
        "data": data,
        "kemeny": {
            "order": res.order,
            "cost": res.cost,
            "lower_bound": res.lower_bound,
            "optimal": res.optimal,
            "gap": res.gap,
            "seconds": res.seconds,
            "method": res.method,
            "blocks": list(res.components),
        },
        "dispersion": {
            "pairwise": disp.attrs["pairwise"],
            "random_baseline": disp.attrs["random_baseline"],
            "consensus": clean(disp.to_dict(orient="records")),
        },
    }
