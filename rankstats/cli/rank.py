"""``rankstats rank``: rank systems, with the Hoeffding significance of every pair."""

from __future__ import annotations

import glob
import os
import warnings
from pathlib import Path

import pandas as pd

from rankstats._util.atomic import output_dir
from rankstats._util.method_names import method_name
from rankstats.aggregation.aggregators import (
    STREAMED_METHODS,
    Aggregate,
    aggregate_many,
)
from rankstats.aggregation.hoeffding_intervals import HoeffdingResult, hoeffding_test
from rankstats.cli._common import (
    clean,
    file_done,
    level_of,
    load_input,
    short,
    write_json,
    write_tables,
    written,
)
from rankstats.cli._console import (
    NAME_WIDTH,
    format_numbers,
    method_label,
    print_columns,
    print_matrix,
)
from rankstats.cli._top import heatmap_files, top_note
from rankstats.cli.check import before_analysis
from rankstats.cli.options.rank import Options
from rankstats.cli.usage import UsageError
from rankstats.core.pair_probabilities import Pairwise, pairwise
from rankstats.core.rankings import Rankings

#: Above this many systems the pairs are left out of summary.json (they are in pairs.csv).
JSON_PAIRS_LIMIT = 200
#: Above this many systems no heatmap is drawn (one cell per pair would not be readable).
HEATMAP_LIMIT = 300


def _stream_paths(pattern: str) -> list[str]:
    """FILE, DIR or GLOB (expanded here, so a quoted glob works on every shell)."""
    if any(ch in pattern for ch in "*?["):
        paths = sorted(glob.glob(pattern, recursive=True))
        if not paths:
            raise UsageError(f"no file matches {pattern!r}")
        return paths
    if not os.path.exists(pattern):
        raise UsageError(f"no such file or directory: {pattern}")
    return [pattern]


def connect(address: str):
    """A Dask client for ``--scheduler``; an unreachable address is a usage error."""
    try:
        from distributed import Client
    except ImportError:
        raise UsageError('--scheduler needs Dask: pip install "rankstats[dask]"') from None
    try:
        return Client(address, timeout="10s")
    except (OSError, TimeoutError, ValueError) as err:
        raise UsageError(
            f"cannot reach the Dask scheduler at {address!r} ({err}); check the address "
            "(e.g. tcp://host:8786) and that the scheduler is running"
        ) from None


def _streamed(opts: Options) -> int:
    """``rank --stream``: the statistics of rs.scan_scores, then the same table and files."""
    from rankstats.scan import scan_scores

    if opts.input.dataset or not opts.input.file:
        raise UsageError("--stream reads a FILE, directory or glob (not --dataset)")
    if opts.input.by == "task":
        raise UsageError("--stream ranks (task, instance) rankings: use --by instance")
    if opts.input.layout == "wide":
        raise UsageError("--stream reads long tables (one row per score)")
    if not isinstance(opts.input.system, str):
        raise UsageError(
            "--stream reads one --system column; a key of several columns needs "
            "the file in memory (drop --stream)"
        )
    if opts.input.tasks or opts.input.drop_columns:
        raise UsageError(
            "--tasks and --drop-columns apply to wide tables; --stream reads long tables"
        )
    if opts.input.placeholders != "keep":
        raise UsageError("--placeholders needs the data check, which --stream does not run")
    if opts.method not in STREAMED_METHODS:
        raise UsageError(
            f"--stream supports --method {', '.join(STREAMED_METHODS)}, not {opts.method!r} "
            "(the others need all rankings in memory)"
        )
    paths = _stream_paths(opts.input.file)
    client = connect(opts.scheduler) if opts.scheduler else None
    directions = (
        {t: False for t in opts.input.lower_is_better} if opts.input.lower_is_better else True
    )
    options = {
        k: getattr(opts.input, k)
        for k in ("na_values", "sep", "encoding")
        if getattr(opts.input, k) is not None
    }
    try:
        scanned = scan_scores(
            paths,
            system=opts.input.system,
            task=opts.input.task,
            instance=opts.input.instance or "instance",
            score=opts.input.score,
            higher_is_better=directions,
            batch_rows=opts.batch_rows,
            client=client,
            n_jobs=opts.n_jobs,
            order=opts.order,
            **options,
        )
        # A bar on a terminal; --progress: lines off a terminal; --quiet: none (cli main).
        st = scanned.statistics(progress=True)
    finally:
        if client is not None:
            client.close()
    pw = st.pairwise
    ranked = st.task_seen.sum(axis=1) > 0
    data = {
        "name": Path(opts.input.file).name,
        "systems": len(scanned.systems),
        "tasks": int(ranked.sum()),
        "scores": int(st.instance_count.sum()),
        "level": "instance",
        "rankings": pw.n_rankings,
        "lower_is_better": [t for t, h in scanned.higher_is_better.items() if not h],
        "skipped_tasks": [t for t, r in zip(scanned.tasks, ranked, strict=True) if not r],
        "never_evaluated": [s for s, n in zip(pw.systems, pw.n_evaluated, strict=True) if n == 0],
    }
    return _output(
        opts,
        repr(scanned),
        data,
        scanned.aggregate(opts.method, statistics=st),
        scanned.aggregate("mean", statistics=st),
        pw,
    )


def run(opts: Options) -> int:
    if opts.stream:
        return _streamed(opts)
    if opts.scheduler or opts.n_jobs != 1 or opts.batch_rows != 2_000_000 or opts.order != "auto":
        raise UsageError("--scheduler, --n-jobs, --batch-rows and --order apply to --stream")
    scores = load_input(opts.input)
    # The data check first: its warnings printed, its findings in summary.json.
    scores, check = before_analysis(opts.input, scores)
    level = level_of(opts.input.by, scores)
    data = {
        "name": scores.name or (Path(opts.input.file).name if opts.input.file else "scores"),
        "systems": len(scores.systems),
        "tasks": len(scores.tasks),
        "scores": len(scores.data),
        "level": level,
        "rankings": None,
        "lower_is_better": [t for t, h in scores.higher_is_better.items() if not h],
        "skipped_tasks": list(scores.skipped_tasks),
        "never_evaluated": list(scores.unevaluated_systems),
        "data_check": check.records(),
        "placeholders": opts.input.placeholders,
    }
    rankings = Rankings.from_scores(scores, by=level)
    pw = pairwise(rankings)
    data["rankings"] = pw.n_rankings
    with warnings.catch_warnings():
        if opts.method == "kemeny":  # the search (and SciPy) are imported for Kemeny alone
            # A Kemeny consensus not proved optimal is stated with its gap below the table.
            from rankstats.aggregation.kemeny_search import NotProvedOptimalWarning

            warnings.simplefilter("ignore", NotProvedOptimalWarning)
        results = aggregate_many([opts.method, "mean"], scores, rankings, pw, level)
    return _output(opts, repr(scores), data, results[opts.method], results["mean"], pw)


def _output(
    opts: Options,
    description: str,
    data: dict,
    result: Aggregate,
    baseline: Aggregate,
    pw: Pairwise,
) -> int:
    """Hoeffding intervals, the printed table and matrix, and the files (both input paths)."""
    level, name = data["level"], data["name"]
    test = hoeffding_test(
        pw,
        delta=opts.hoeffding.delta,
        correction=opts.hoeffding.correction,
        form=opts.hoeffding.form,
        estimand=opts.hoeffding.estimand,
        order=result.order,
    )
    ci = test.table

    table = result.table.rename(columns={"score": opts.method})
    base = baseline.table.set_index("system")
    table["rank_mean"] = base.loc[table["system"], "rank"].to_numpy()
    table["mean"] = base.loc[table["system"], "score"].to_numpy()
    order = table["system"].tolist()
    marks = test.marks()
    for column in ("significantly_above", "significantly_below", "above_next", "below_next"):
        table[column] = marks[column].to_numpy()
    table = table.rename(
        columns={"above_next": "above_next_significant", "below_next": "below_next_significant"}
    )

    label = method_name(opts.method)
    print(f"rankstats rank: {short(name, 80)}")
    print(f"  {short(description, 400)}")
    print(
        f"  ranking by {label}, {level} level ({pw.n_rankings} rankings), "
        f"next to the mean baseline (σ^μ)\n"
    )
    kemeny_note = _kemeny_note(result)
    shown = order[: opts.top] if opts.top else order
    _print_ranking(table.head(len(shown)), opts.method)
    n_sig = test.n_significant
    hoeffding = opts.hoeffding
    print(
        f"\nsig.> / sig.<: number of systems it is significantly above / below; * = significantly "
        f"above the next system; ! = the next system is significantly above this one (the "
        f"ranking order contradicts the pairwise test there).\nHoeffding intervals "
        f"({hoeffding.form}, {hoeffding.estimand} estimand), "
        f"δ = {hoeffding.delta}, {hoeffding.correction} correction over {test.n_pairs} pairs: "
        f"{n_sig} significant pair(s)."
    )
    if kemeny_note:
        print(kemeny_note)
    _print_power_note(test, pw)
    if len(shown) < len(order):
        print(top_note(len(shown), len(order), test.n_pairs, opts.hoeffding.correction))
    if len(shown) <= 40:
        _print_matrix(ci, shown)

    out = Path(opts.output.out)
    with output_dir(out) as tmp:
        files = write_tables(tmp, {"ranking.csv": table, "pairs.csv": ci})
        if not opts.output.no_figures and len(shown) > HEATMAP_LIMIT:
            print(
                f"note: no heatmap above {HEATMAP_LIMIT} systems ({len(shown)} here; --top N "
                "draws the best N); pairs.csv holds every pair"
            )
        elif not opts.output.no_figures:
            files += heatmap_files(test, shown, tmp)
            file_done()
        parameters = {
            "method": opts.method,
            "baseline": "mean",
            **{
                k: test.parameters[k]
                for k in ("delta", "correction", "form", "estimand", "n_pairs", "interval_level")
            },
        }
        if opts.method == "kemeny":
            res = result.details["kemeny"]
            parameters["kemeny"] = {k: getattr(res, k) for k in _KEMENY_KEYS}
        big = pw.n_systems > JSON_PAIRS_LIMIT
        if opts.top:
            parameters["top"] = opts.top
        summary = {
            "data": data,
            "parameters": parameters,
            "shown": {"systems": len(shown), "of": len(order)},
            "ranking": clean(table.to_dict(orient="records")),
            "pairs": "in pairs.csv" if big else clean(ci.to_dict(orient="records")),
            "significant_pairs": n_sig,
            "files": [str(out / p.relative_to(tmp)) for p in files],
        }
        files.append(write_json(tmp / "summary.json", summary))
    print("\n" + written(tmp, out, files))
    return 0


_KEMENY_KEYS = ("optimal", "cost", "lower_bound", "gap", "seconds")


def _kemeny_note(result: Aggregate) -> str:
    """The optimality of a ``--method kemeny`` consensus, as ``rankstats kemeny`` prints it."""
    if result.method != "kemeny":
        return ""
    res = result.details["kemeny"]
    if res.optimal:
        return f"Kemeny consensus proved optimal (cost {res.cost:.6g})."
    return (
        f"warning: the Kemeny consensus was NOT proved optimal within the time limit: cost "
        f"{res.cost:.6g}, lower bound {res.lower_bound:.6g}, gap {res.gap:.3%} (rankstats kemeny "
        "--time-limit SECONDS searches longer and reports the dispersion)."
    )


def _print_power_note(test: HoeffdingResult, pw: Pairwise) -> None:
    """Say so when no pair can be significant: too few rankings compare any two systems."""
    max_z = int(pw.compared.max()) if pw.n_systems > 1 else 0
    z_needed = test.min_compared_for_significance()
    if max_z < z_needed:
        print(
            f"note: pairs are compared in at most {max_z} rankings; even a unanimous pair needs "
            f"z ≥ {z_needed} to be significant at this level. Instance-level scores "
            f"(--by instance, when the data has them) give more rankings."
        )


def _print_ranking(table: pd.DataFrame, method: str) -> None:
    """The ranking table: σ names in the headers, one number format per column."""
    label, mean = method_label(method), method_label("mean")
    marks = [
        " ".join(m for m, on in (("*", above), ("!", below)) if on)
        for above, below in zip(
            table["above_next_significant"], table["below_next_significant"], strict=True
        )
    ]
    print_columns(
        [
            (f"rank {label}", "right", format_numbers(table["rank"])),
            ("system", "left", table["system"].tolist()),
            (label, "right", format_numbers(table[method], decimals=4)),
            (f"rank {mean}", "right", format_numbers(table["rank_mean"])),
            (mean, "right", format_numbers(table["mean"], decimals=4)),
            ("sig.>", "right", format_numbers(table["significantly_above"])),
            ("sig.<", "right", format_numbers(table["significantly_below"])),
            (">next", "left", marks),
        ],
        max_width={1: NAME_WIDTH},
    )


def _print_matrix(ci: pd.DataFrame, order: list[str]) -> None:
    print(
        "\npairwise significance in ranked order (row vs column): + above, - below, . not "
        "significant"
    )
    # One dict of the winners: a pandas look-up per cell costs more than the whole table.
    pairs = zip(ci["system_a"], ci["system_b"], strict=True)
    winners = dict(zip(pairs, ci["winner"], strict=True))

    def cell(i: int, j: int) -> str:
        a, b = order[i], order[j]
        winner = winners.get((a, b))
        return "+" if winner == a else ("-" if winner == b else ".")

    print_matrix(order, cell)
