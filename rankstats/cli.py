"""The ``rankstats`` command.

Each subcommand is a pair of functions, ``_<name>_arguments(parser)`` and ``_<name>(args)``,
registered in :data:`SUBCOMMANDS`.
"""

from __future__ import annotations

import argparse
import glob
import json
import math
import sys
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from rankstats.aggregate import AGGREGATORS, LAZY_METHODS, Aggregate, aggregate
from rankstats.confidence import CORRECTIONS, ESTIMANDS, FORMS, hoeffding, significance_marks
from rankstats.datasets import DATASETS, load_dataset
from rankstats.errors import DataWarning, InvalidRankingsError, InvalidScoresError
from rankstats.pairwise import Pairwise, pairwise
from rankstats.rankings import Rankings
from rankstats.scan import scan_scores
from rankstats.scores import Scores, read_scores

METHOD_LABELS = {
    "borda": "one-level Borda with imputation (σ^l)",
    "borda2": "two-level Borda with imputation (σ^2l)",
    "mean": "mean of available scores (σ^μ)",
    "median": "median of available scores",
    "copeland": "Copeland (pairwise majority wins)",
}


# ---------------------------------------------------------------------------- shared input
def add_input_arguments(parser: argparse.ArgumentParser, task_flag: str = "--task") -> None:
    """FILE | --dataset NAME and the column / direction options shared by subcommands.

    ``task_flag`` names the option of the task column (``args.task`` either way): a subcommand
    whose ``--task`` chooses a metric passes ``"--task-column"``."""
    parser.add_argument("file", nargs="?", help="score table: CSV, TSV or Parquet (long or wide)")
    parser.add_argument("--dataset", choices=sorted(DATASETS), help="a bundled data set instead")
    parser.add_argument("--system", default="system", help="system column (default: system)")
    parser.add_argument(task_flag, dest="task", default="task", help="task column of a long table")
    parser.add_argument("--instance", default=None, help="instance column of a long table")
    parser.add_argument("--score", default="score", help="score column of a long table")
    parser.add_argument(
        "--layout",
        choices=["auto", "long", "wide"],
        default="auto",
        help="long = one row per score; wide = one row per system (default: auto)",
    )
    parser.add_argument(
        "--lower-is-better",
        nargs="+",
        default=[],
        metavar="TASK",
        help="tasks where a lower score is better",
    )


def load_input(args: argparse.Namespace) -> Scores:
    """Scores from ``FILE`` or ``--dataset`` (exactly one)."""
    if bool(args.file) == bool(args.dataset):
        raise SystemExit("error: give a score FILE or --dataset NAME (exactly one)")
    if args.dataset:
        scores = load_dataset(args.dataset)
        if args.lower_is_better:
            raise SystemExit("error: --lower-is-better applies to FILE input only")
        return scores
    directions = {t: False for t in args.lower_is_better} if args.lower_is_better else True
    return read_scores(
        args.file,
        system=args.system,
        task=args.task,
        instance=args.instance,
        score=args.score,
        higher_is_better=directions,
        layout=args.layout,
    )


def _json_default(value: object) -> object:
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return None if math.isnan(value) else float(value)
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def _clean(records: list[dict]) -> list[dict]:
    """Replace NaN by None so the JSON is standard."""
    return [
        {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in r.items()}
        for r in records
    ]


def _short(name: str, width: int) -> str:
    return name if len(name) <= width else name[: width - 1] + "…"


# ---------------------------------------------------------------------------- rank
def _rank_arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser)
    parser.add_argument(
        "--method",
        default="borda",
        choices=sorted({*AGGREGATORS, *LAZY_METHODS}),
        help="aggregation method (default: borda, i.e. σ^l)",
    )
    parser.add_argument(
        "--level",
        choices=["task", "instance"],
        default=None,
        help="rank per task or per (task, instance) (default: instance when the data has it)",
    )
    parser.add_argument("--delta", type=float, default=0.05, help="error level δ (default 0.05)")
    parser.add_argument(
        "--correction",
        choices=CORRECTIONS,
        default="holm",
        help="multiplicity correction over pairs (default: holm)",
    )
    parser.add_argument(
        "--form",
        choices=FORMS,
        default="two-sided",
        help="Hoeffding half-width: two-sided (default) or the paper's",
    )
    parser.add_argument(
        "--estimand",
        choices=ESTIMANDS,
        default="imputed",
        help="pairwise probability estimated (default: imputed, as the paper)",
    )
    parser.add_argument("--out", default="rankstats-out", help="output directory")
    parser.add_argument("--no-figures", action="store_true", help="skip the heatmap")
    stream = parser.add_argument_group(
        "streaming (files larger than memory; FILE may be a directory or a quoted glob)"
    )
    stream.add_argument(
        "--stream",
        action="store_true",
        help="read FILE in batches with rs.scan_scores (instance level; mean, borda, borda2, bt)",
    )
    stream.add_argument(
        "--batch-rows", type=int, default=2_000_000, help="rows per batch (default 2,000,000)"
    )
    stream.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="run on a Dask cluster, e.g. tcp://host:8786 (needs rankstats[dask])",
    )
    stream.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="local worker processes reducing Parquet row groups in parallel (default 1)",
    )
    stream.add_argument(
        "--progress",
        action="store_true",
        help="print rows read and rows/s on stderr (default: only when stderr is a terminal)",
    )


STREAM_METHODS = ("mean", "borda", "borda2", "bt")


def _stream_paths(pattern: str) -> list[str]:
    """FILE, DIR or GLOB (expanded here, so a quoted glob works on every shell)."""
    if any(ch in pattern for ch in "*?["):
        paths = sorted(glob.glob(pattern, recursive=True))
        if not paths:
            raise FileNotFoundError(f"no file matches {pattern!r}")
        return paths
    return [pattern]


def _rank_streamed(args: argparse.Namespace) -> int:
    """``rank --stream``: the statistics of rs.scan_scores, then the same table and files."""
    if args.dataset or not args.file:
        raise SystemExit("error: --stream reads a FILE, directory or glob (not --dataset)")
    if args.level == "task":
        raise SystemExit("error: --stream ranks (task, instance) rankings: use --level instance")
    if args.layout == "wide":
        raise SystemExit("error: --stream reads long tables (one row per score)")
    if args.method not in STREAM_METHODS:
        raise SystemExit(
            f"error: --stream supports --method {', '.join(STREAM_METHODS)}, not {args.method!r} "
            "(the others need all rankings in memory)"
        )
    client = None
    if args.scheduler:
        try:
            from distributed import Client
        except ImportError:
            raise SystemExit(
                'error: --scheduler needs Dask: pip install "rankstats[dask]"'
            ) from None
        client = Client(args.scheduler)
    directions = {t: False for t in args.lower_is_better} if args.lower_is_better else True
    scanned = scan_scores(
        _stream_paths(args.file),
        system=args.system,
        task=args.task,
        instance=args.instance or "instance",
        score=args.score,
        higher_is_better=directions,
        batch_rows=args.batch_rows,
        client=client,
        workers=args.workers,
    )
    try:
        st = scanned.statistics(progress=args.progress or sys.stderr.isatty())
    finally:
        if client is not None:
            client.close()
    pw = st.pairwise
    ranked = st.task_seen.sum(axis=1) > 0
    data = {
        "name": Path(args.file).name,
        "systems": len(scanned.systems),
        "tasks": int(ranked.sum()),
        "scores": int(st.instance_count.sum()),
        "level": "instance",
        "rankings": pw.n_rankings,
        "skipped_tasks": [t for t, r in zip(scanned.tasks, ranked, strict=True) if not r],
        "never_evaluated": [s for s, n in zip(pw.systems, pw.n_evaluated, strict=True) if n == 0],
    }
    return _rank_output(
        args,
        repr(scanned),
        data,
        scanned.aggregate(args.method, statistics=st),
        scanned.aggregate("mean", statistics=st),
        pw,
    )


def _rank(args: argparse.Namespace) -> int:
    if args.stream:
        return _rank_streamed(args)
    if args.scheduler or args.workers != 1:
        raise SystemExit("error: --scheduler and --workers apply to --stream")
    scores = load_input(args)
    level = args.level or ("instance" if scores.has_instances else "task")
    if level == "instance" and not scores.has_instances:
        raise SystemExit("error: --level instance needs an instance column (--instance NAME)")
    data = {
        "name": scores.name or (Path(args.file).name if args.file else "scores"),
        "systems": len(scores.systems),
        "tasks": len(scores.tasks),
        "scores": len(scores.data),
        "level": level,
        "rankings": None,
        "skipped_tasks": list(scores.skipped_tasks),
        "never_evaluated": list(scores.unevaluated_systems),
    }
    pw = pairwise(Rankings.from_scores(scores, by=level))
    data["rankings"] = pw.n_rankings
    return _rank_output(
        args,
        repr(scores),
        data,
        aggregate(scores, method=args.method, level=level),
        aggregate(scores, method="mean"),
        pw,
    )


def _rank_output(
    args: argparse.Namespace,
    description: str,
    data: dict,
    result: Aggregate,
    baseline: Aggregate,
    pw: Pairwise,
) -> int:
    """Hoeffding intervals, the printed table and matrix, and the files (both input paths)."""
    level, name = data["level"], data["name"]
    ci = hoeffding(
        pw,
        delta=args.delta,
        correction=args.correction,
        form=args.form,
        estimand=args.estimand,
        order=result.order,
    )

    table = result.table.rename(columns={"rank": "rank", "score": args.method})
    base = baseline.table.set_index("system")
    table["rank_mean"] = base.loc[table["system"], "rank"].to_numpy()
    table["mean"] = base.loc[table["system"], "score"].to_numpy()
    order = table["system"].tolist()
    marks = significance_marks(ci, order)
    for column in ("significantly_above", "significantly_below", "above_next", "below_next"):
        table[column] = marks[column].to_numpy()
    table = table.rename(
        columns={"above_next": "above_next_significant", "below_next": "below_next_significant"}
    )

    label = METHOD_LABELS.get(args.method, args.method)
    print(f"rankstats rank: {name}")
    print(f"  {description}")
    print(
        f"  ranking by {label}, {level} level ({pw.n_rankings} rankings), "
        f"next to the mean baseline (σ^μ)\n"
    )
    width = min(max(len(s) for s in order), 44)
    header = (
        f"{'rank':>5}  {'system':<{width}}  {args.method:>10}  {'rank σ^μ':>8}  "
        f"{'σ^μ':>9}  {'sig.>':>5}  {'sig.<':>5}  >next"
    )
    print(header)
    print("-" * len(header))
    for _, row in table.iterrows():
        print(
            f"{row['rank']:>5g}  {_short(row['system'], width):<{width}}  "
            f"{row[args.method]:>10.4f}  {row['rank_mean']:>8g}  {row['mean']:>9.4f}  "
            f"{row['significantly_above']:>5d}  {row['significantly_below']:>5d}  "
            f"{'  *' if row['above_next_significant'] else ''}"
            f"{'  !' if row['below_next_significant'] else ''}"
        )
    n_sig = int(ci["significant"].sum() // 2)
    attrs = ci.attrs
    print(
        f"\nsig.> / sig.<: number of systems it is significantly above / below; * = significantly "
        f"above the next system; ! = the next system is significantly above this one (the "
        f"ranking order contradicts the pairwise test there).\nHoeffding intervals "
        f"({args.form}, {args.estimand} estimand), "
        f"δ = {args.delta}, {args.correction} correction over {attrs['n_pairs']} pairs: "
        f"{n_sig} significant pair(s)."
    )
    max_z = int(pw.compared.max()) if pw.n_systems > 1 else 0
    log_term = (
        math.log(2 / attrs["interval_level"])
        if args.form == "two-sided"
        else -math.log(attrs["interval_level"])
    )
    # A unanimous pair (estimate 1) is significant iff 2 z (1/2)^2 > log_term.
    z_needed = math.floor(log_term / (2 * 0.25)) + 1
    if max_z < z_needed:
        print(
            f"note: pairs are compared in at most {max_z} rankings; even a unanimous pair needs "
            f"z ≥ {z_needed} to be significant at this level. Instance-level scores "
            f"(--level instance, when the data has them) give more rankings."
        )
    if pw.n_systems <= 40:
        print(
            "\npairwise significance in ranked order (row vs column): + above, - below, . not "
            "significant"
        )
        labels = [str(i + 1) for i in range(len(order))]
        print("      " + " ".join(f"{lab:>2}" for lab in labels))
        matrix = ci.pivot(index="system_a", columns="system_b", values="winner")
        for i, a in enumerate(order):
            cells = []
            for b in order:
                if a == b:
                    cells.append(" \\")
                else:
                    w = matrix.loc[a, b]
                    cells.append(" +" if w == a else (" -" if w == b else " ."))
            print(f"  {labels[i]:>2}  " + " ".join(cells) + f"   {_short(a, 40)}")

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    table_path = out / "ranking.csv"
    table.to_csv(table_path, index=False)
    pairs_path = out / "pairs.csv"
    ci.to_csv(pairs_path, index=False)
    files = [table_path, pairs_path]
    if not args.no_figures:
        from rankstats.plotting import save_figure, significance_heatmap

        files += save_figure(significance_heatmap(ci), out / "significance_heatmap")
    summary = {
        "data": data,
        "parameters": {
            "method": args.method,
            "baseline": "mean",
            **{
                k: attrs[k]
                for k in ("delta", "correction", "form", "estimand", "n_pairs", "interval_level")
            },
        },
        "ranking": _clean(table.to_dict(orient="records")),
        "pairs": _clean(ci.to_dict(orient="records")),
        "significant_pairs": n_sig,
        "files": [str(p) for p in files],
    }
    json_path = out / "summary.json"
    json_path.write_text(json.dumps(summary, indent=1, default=_json_default))
    print(f"\nwrote {', '.join(str(p) for p in [*files, json_path])}")
    return 0


# ---------------------------------------------------------------------------- report
def _report_arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser)
    parser.add_argument(
        "--methods",
        nargs="+",
        default=["borda", "borda2", "mean"],
        help="aggregators; the first orders the tables (default: borda borda2 mean)",
    )
    parser.add_argument("--level", choices=["task", "instance"], default=None)
    parser.add_argument("--delta", type=float, default=0.05)
    parser.add_argument("--correction", choices=CORRECTIONS, default="holm")
    parser.add_argument("--estimand", choices=ESTIMANDS, default="imputed")
    parser.add_argument("--title", default=None)
    parser.add_argument(
        "--models",
        nargs="*",
        default=[],
        choices=["pl", "bt", "mallows"],
        help="rank models to fit and compare with the Hoeffding intervals",
    )
    parser.add_argument(
        "--model-method",
        default="map",
        choices=["map", "nuts", "mcmc"],
        help="fitting method of the models (default: map)",
    )
    parser.add_argument(
        "--paired",
        nargs="+",
        metavar="TASK",
        default=None,
        help="add a paired instance-level analysis (sign / Wilcoxon / t / Mood tests, BT, Elo, "
        "TrueSkill) of these tasks (metrics)",
    )
    parser.add_argument("--out", default="report", help="output directory (default: report)")


def _report(args: argparse.Namespace) -> int:
    from rankstats.report import report

    unknown = [m for m in args.methods if m not in AGGREGATORS and m not in LAZY_METHODS]
    if unknown:
        raise SystemExit(f"error: unknown method(s) {', '.join(unknown)}")
    rep = report(
        load_input(args),
        out=args.out,
        methods=args.methods,
        delta=args.delta,
        correction=args.correction,
        estimand=args.estimand,
        level=args.level,
        title=args.title,
        models=args.models,
        model_method=args.model_method,
        paired=args.paired or (),
    )
    print(rep.methods_text)
    print("\nwrote " + ", ".join(str(p) for p in rep.files))
    return 0


# ---------------------------------------------------------------------------- simulate
def _simulate_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--systems", type=int, default=20)
    parser.add_argument("--tasks", type=int, default=20)
    parser.add_argument(
        "--instances",
        type=int,
        default=None,
        help="instances per task (default: task-level scores)",
    )
    parser.add_argument("--phi", type=float, default=0.5, help="location step φ (default 0.5)")
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--adversarial", type=int, default=0, help="adversarial tasks")
    parser.add_argument("--missing", type=float, default=0.0, help="share of scores removed")
    parser.add_argument(
        "--missing-pattern",
        choices=["cell", "block"],
        default=None,
        dest="missing_pattern_given",
        help="remove single scores (cell; default) or whole (system, task) blocks (block; the "
        "default with --partitions)",
    )
    parser.add_argument(
        "--round",
        type=int,
        default=None,
        dest="round_to",
        help="round scores to this many decimals (creates ties)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--out",
        required=True,
        help="output file (.csv or .parquet); with --partitions, an output directory",
    )
    parser.add_argument(
        "--partitions",
        type=int,
        default=None,
        help="write a benchmark larger than memory as this many files in --out, one at a time "
        "(needs --instances; missing scores are left out, --missing-pattern block by default)",
    )
    parser.add_argument(
        "--format",
        choices=["parquet", "csv"],
        default="parquet",
        help="file format with --partitions (default: parquet)",
    )


def _gumbel_options(args: argparse.Namespace) -> dict:
    """Generator options shared by the in-memory and the partitioned benchmark."""
    return {
        "phi": args.phi,
        "scale": args.scale,
        "seed": args.seed,
        "missing": args.missing,
        "round_to": args.round_to,
    }


def _simulate_partitioned(args: argparse.Namespace) -> int:
    import time

    from rankstats.simulate import gumbel_files

    if args.instances is None:
        raise SystemExit("error: --partitions needs --instances")
    if args.adversarial:
        raise SystemExit("error: --adversarial is not available with --partitions")
    start = time.perf_counter()
    files, truth = gumbel_files(
        args.out,
        args.systems,
        args.tasks,
        args.instances,
        partitions=args.partitions,
        missing_pattern=args.missing_pattern_given or "block",
        fmt=args.format,
        progress=sys.stderr.isatty(),
        **_gumbel_options(args),
    )
    size = sum(f.stat().st_size for f in files)
    total = args.systems * args.tasks * args.instances
    print(
        f"wrote {len(files)} {args.format} files to {args.out} ({size / 1e6:,.0f} MB; "
        f"{total:,} scores before removing missing ones) and {truth} in "
        f"{time.perf_counter() - start:.1f} s"
    )
    print(f"read them with: rankstats rank {args.out} --stream")
    return 0


def _simulate(args: argparse.Namespace) -> int:
    from rankstats.simulate import gumbel

    if args.partitions is not None:
        return _simulate_partitioned(args)
    sim = gumbel(
        args.systems,
        args.tasks,
        args.instances,
        adversarial_tasks=args.adversarial,
        missing_pattern=args.missing_pattern_given or "cell",
        **_gumbel_options(args),
    )
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    paths = sim.to_parquet(out) if out.suffix in (".parquet", ".pq") else sim.to_csv(out)
    print(repr(sim))
    print(f"wrote {paths[0]} and {paths[1]} (truth, best first: {', '.join(sim.truth[:5])}, ...)")
    return 0


# ---------------------------------------------------------------------------- robustness
def _robustness_arguments(parser: argparse.ArgumentParser) -> None:
    from rankstats.robustness import PRESETS

    parser.add_argument("--experiment", choices=sorted(PRESETS), required=True)
    parser.add_argument("--reps", type=int, default=None, help="replicates per grid cell")
    parser.add_argument("--aggregators", nargs="+", default=["mean", "borda", "borda2"])
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (-1: all cores)")
    parser.add_argument(
        "--backend",
        choices=["processes", "joblib"],
        default="processes",
        help="how --jobs runs the grid cells: the standard library's process pool (default) or "
        "joblib (loky; or a Dask cluster with --scheduler)",
    )
    parser.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="run the cells on this Dask cluster through joblib (implies --backend joblib; "
        "needs rankstats[dask])",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="robustness-out")


def _robustness(args: argparse.Namespace) -> int:
    from rankstats.plotting import save_figure
    from rankstats.robustness import PRESETS, robustness

    preset = PRESETS[args.experiment]
    print(f"{args.experiment}: {preset['description']}")
    run = {
        "n_rep": args.reps or preset["n_rep"],
        "seed": args.seed,
        "n_jobs": args.jobs,
        "base": preset["base"],
        "progress": True,
        "backend": args.backend,
    }
    if args.scheduler:
        try:
            import joblib
            from distributed import Client
        except ImportError:
            raise SystemExit(
                'error: --scheduler needs Dask: pip install "rankstats[dask]"'
            ) from None
        with Client(args.scheduler), joblib.parallel_config(backend="dask"):
            n_jobs = args.jobs if args.jobs != 1 else -1
            res = robustness(
                args.aggregators, preset["grid"], **{**run, "n_jobs": n_jobs, "backend": "joblib"}
            )
    else:
        res = robustness(args.aggregators, preset["grid"], **run)
    summary = res.summary("kendall_tau")
    panel = preset["panel"] if preset["panel"] in preset["grid"] else None
    index = [k for k in (panel, preset["x"]) if k is not None]
    table = summary.pivot_table(index=index, columns="aggregator", values="mean", sort=False)
    print("mean Kendall τ to the truth:")
    print(table.to_string(float_format="%.3f"))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    res.table.to_csv(out / "robustness.csv", index=False)
    summary.to_csv(out / "summary.csv", index=False)
    figures = save_figure(res.plot(x=preset["x"], panel=panel), out / "robustness")
    print("wrote", out / "robustness.csv", out / "summary.csv", *figures)
    return 0 if res.complete else 130


# ---------------------------------------------------------------------------- paired
def _paired_arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser, task_flag="--task-column")
    parser.add_argument(
        "--task",
        dest="metric",
        default=None,
        metavar="METRIC",
        help="the metric (task) to analyse; required when the data holds several",
    )
    parser.add_argument(
        "--systems-as-columns",
        action="store_true",
        help="FILE is wide with one row per instance and one column per system "
        "(the pairformance format)",
    )
    parser.add_argument("--confidence", type=float, default=0.95)
    parser.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples")
    parser.add_argument(
        "--bt-ties",
        choices=["half", "davidson"],
        default="half",
        help="Bradley–Terry ties: half a win each way (default) or Davidson's tie parameter",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--pair",
        nargs=2,
        action="append",
        metavar=("A", "B"),
        help="draw the pairing plot of A against B (repeatable; default: the two strongest)",
    )
    parser.add_argument("--out", default="paired-out")
    parser.add_argument("--no-figures", action="store_true")


def _paired(args: argparse.Namespace) -> int:
    from rankstats.paired import paired
    from rankstats.plotting import save_figure

    if args.systems_as_columns:
        if not args.file or args.dataset:
            raise SystemExit("error: --systems-as-columns applies to a FILE")
        sep = "\t" if str(args.file).endswith((".tsv", ".tsv.gz")) else ","
        data = pd.read_csv(args.file, sep=sep)
    else:
        data = load_input(args)
    res = paired(
        data,
        task=args.metric,
        confidence=args.confidence,
        n_bootstrap=args.bootstrap,
        seed=args.seed,
        bt_ties=args.bt_ties,
    )
    alpha = res.parameters["alpha"]
    print(repr(res))
    strengths = res.strengths.set_index("system")
    key = "bt" if strengths["bt"].notna().all() else "mean"
    with pd.option_context("display.width", 160, "display.max_columns", 20):
        print(f"\nstrengths (sorted by {key}):")
        print(
            res.strengths.sort_values(key, ascending=False).to_string(
                index=False, float_format="%.4g"
            )
        )
        sig = res.pairs[res.pairs["sign_p_holm"] < alpha]
        print(f"\n{len(sig)} pairs significant by the sign test (Holm, α = {alpha:g}):")
        cols = [
            "system_a",
            "system_b",
            "n",
            "wins_a",
            "wins_b",
            "ties",
            "p_a_beats_b",
            "sign_p_holm",
            "mean_diff",
            "ttest_p_holm",
            "wilcoxon_p_holm",
        ]
        if len(sig):
            print(sig[cols].head(30).to_string(index=False, float_format="%.4g"))
            if len(sig) > 30:
                print(f"... ({len(sig) - 30} more in pairs.csv)")
        print("\naggregator agreement (Peyrard et al. 2021, Table 1):")
        print(res.agreement.to_string(index=False, float_format="%.3f"))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    res.pairs.to_csv(out / "pairs.csv", index=False)
    res.strengths.to_csv(out / "strengths.csv", index=False)
    res.agreement.to_csv(out / "agreement.csv", index=False)
    (out / "summary.json").write_text(
        json.dumps(
            {
                "parameters": res.parameters,
                "strengths": _clean(res.strengths.to_dict("records")),
                "pairs": _clean(res.pairs.to_dict("records")),
                "agreement": _clean(res.agreement.to_dict("records")),
            },
            indent=1,
            default=_json_default,
        )
    )
    written = [out / f for f in ("pairs.csv", "strengths.csv", "agreement.csv", "summary.json")]
    if not args.no_figures:
        written += save_figure(res.plot_matrix(), out / "matrix")
        top = list(strengths[key].sort_values(ascending=False, kind="stable").index[:2])
        for a, b in args.pair or [top]:
            stem = f"pair_{_safe_name(a)}_vs_{_safe_name(b)}"
            written += save_figure(res.plot_pair(a, b), out / stem)
    print("\nwrote " + ", ".join(str(p) for p in written))
    return 0


def _safe_name(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-." else "_" for c in str(name))


# ---------------------------------------------------------------------------- datasets
def _datasets_arguments(parser: argparse.ArgumentParser) -> None:
    pass


def _datasets(args: argparse.Namespace) -> int:
    from rankstats.datasets import list_datasets

    with pd.option_context("display.max_colwidth", 70, "display.width", 160):
        print(list_datasets().to_string(index=False))
    return 0


# ---------------------------------------------------------------------------- fit (models)
def _fit_arguments(parser: argparse.ArgumentParser) -> None:
    from rankstats.models._cli import fit_arguments

    fit_arguments(parser)


def _fit(args: argparse.Namespace) -> int:
    from rankstats.models._cli import fit_command

    return fit_command(args)


# ---------------------------------------------------------------------------- kemeny
def _kemeny_arguments(parser: argparse.ArgumentParser) -> None:
    add_input_arguments(parser)
    parser.add_argument(
        "--level",
        choices=["task", "instance"],
        default=None,
        help="rank per task or per (task, instance) (default: instance when the data has it)",
    )
    parser.add_argument(
        "--method",
        choices=["auto", "exact", "heuristic"],
        default="auto",
        help="auto: exact within the time limit, else best heuristic with its gap (default)",
    )
    parser.add_argument(
        "--time-limit", type=float, default=60.0, help="seconds for the search (default 60)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the KwikSort starts")
    parser.add_argument("--out", default=None, help="also write kemeny.csv and kemeny.json here")
    parser.add_argument(
        "--progress", action="store_true", help="print one line per solver round (stderr)"
    )


def _kemeny(args: argparse.Namespace) -> int:
    from rankstats.dispersion import dispersion_table
    from rankstats.kemeny import kemeny

    scores = load_input(args)
    level = args.level or ("instance" if scores.has_instances else "task")
    if level == "instance" and not scores.has_instances:
        raise SystemExit("error: --level instance needs an instance column (--instance NAME)")
    rankings = Rankings.from_scores(scores, by=level)
    try:
        res = kemeny(
            rankings,
            method=args.method,
            time_limit=args.time_limit,
            seed=args.seed,
            progress=args.progress,
        )
    except TimeoutError as err:
        print(f"error: {err}", file=sys.stderr)
        return 3
    borda = aggregate(rankings, method="borda").table.set_index("system")["rank"]
    mean = aggregate(scores, method="mean").table.set_index("system")["rank"]
    table = res.table.rename(columns={"rank": "rank_kemeny"})
    table["rank_borda"] = borda.reindex(table["system"]).to_numpy()
    table["rank_mean"] = mean.reindex(table["system"]).to_numpy()
    name = scores.name or (Path(args.file).name if args.file else "scores")
    print(f"rankstats kemeny: {name}")
    print(f"  {scores!r}")
    print(f"  {rankings.n_rankings} rankings ({level} level), missing systems imputed\n")
    width = min(max(len(s) for s in table["system"]), 44)
    header = f"{'kemeny':>6}  {'system':<{width}}  {'borda':>6}  {'mean':>6}"
    print(header)
    print("-" * len(header))
    for _, row in table.iterrows():
        print(
            f"{row['rank_kemeny']:>6d}  {_short(row['system'], width):<{width}}  "
            f"{row['rank_borda']:>6g}  {row['rank_mean']:>6g}"
        )
    status = "proved optimal" if res.optimal else f"NOT proved optimal (gap {res.gap:.3%})"
    print(
        f"\ncost (total expected Kendall distance to the rankings): {res.cost:.6g}; lower bound "
        f"{res.lower_bound:.6g}; {status}; {len(res.components)} Condorcet blocks (largest "
        f"{max(res.components, default=0)}); {res.seconds:.3g} s"
    )
    candidates = {"kemeny": res, "borda": "borda", "mean": "mean", "random": "random"}
    disp = dispersion_table(
        scores, candidates=candidates, level=level, time_limit=args.time_limit, seed=args.seed
    )
    gamma = disp.attrs["pairwise"]
    print(
        f"\ndispersion: mean Kendall distance between two rankings γ = {gamma:.6g} "
        f"(of at most {len(table) * (len(table) - 1) / 2:g}); any consensus is at least γ/2 = "
        f"{gamma / 2:.6g} from the rankings on average"
    )
    print(f"{'consensus':<10}  {'distance':>10}  {'/ γ':>6}")
    for _, row in disp.iterrows():
        print(f"{row['candidate']:<10}  {row['distance']:>10.6g}  {row['ratio']:>6.3f}")
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        table.to_csv(out / "kemeny.csv", index=False)
        summary = {
            "data": {"name": name, "level": level, "rankings": rankings.n_rankings},
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
                "pairwise": gamma,
                "random_baseline": disp.attrs["random_baseline"],
                "consensus": _clean(disp.to_dict(orient="records")),
            },
        }
        (out / "kemeny.json").write_text(json.dumps(summary, indent=1, default=_json_default))
        print(f"\nwrote {out / 'kemeny.csv'}, {out / 'kemeny.json'}")
    return 0


SUBCOMMANDS: dict[str, tuple[str, Callable, Callable]] = {
    "rank": ("rank systems, with Hoeffding significance of every pair", _rank_arguments, _rank),
    "report": ("write an HTML + LaTeX + figures report", _report_arguments, _report),
    "fit": (
        "fit a Plackett–Luce or Bradley–Terry model (MLE, MAP or NUTS)",
        _fit_arguments,
        _fit,
    ),
    "simulate": (
        "write a synthetic Gumbel benchmark with its truth",
        _simulate_arguments,
        _simulate,
    ),
    "robustness": ("run a robustness experiment of the papers", _robustness_arguments, _robustness),
    "paired": ("paired instance-level tests and ratings on one metric", _paired_arguments, _paired),
    "datasets": ("list the bundled data sets", _datasets_arguments, _datasets),
    "kemeny": (
        "Kemeny consensus (exact or with a bound) and the dispersion of the rankings",
        _kemeny_arguments,
        _kemeny,
    ),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rankstats", description="Rank systems from benchmark scores, with uncertainty."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for name, (help_text, add_arguments, _) in SUBCOMMANDS.items():
        add_arguments(sub.add_parser(name, help=help_text, description=help_text))
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    previous = warnings.formatwarning
    with warnings.catch_warnings():
        warnings.simplefilter("always", DataWarning)
        warnings.formatwarning = lambda msg, cat, *a, **k: f"warning: {msg}\n"
        try:
            return SUBCOMMANDS[args.command][2](args)
        except (InvalidScoresError, InvalidRankingsError, FileNotFoundError, KeyError) as err:
            print(f"error: {err}", file=sys.stderr)
            return 2
        finally:
            warnings.formatwarning = previous


if __name__ == "__main__":
    raise SystemExit(main())
