"""``rankstats tree``: model-based partitioning of the rankings by covariates (a tree of
Plackett–Luce worths, :func:`rankstats.models.rank_tree`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from rankstats._util.atomic import output_dir
from rankstats._util.text import write_csv
from rankstats.cli._common import (
    file_done,
    file_format,
    level_of,
    load_input,
    load_rankings_file,
    short,
    written,
)
from rankstats.cli._console import print_frame
from rankstats.cli.usage import UsageError, check_out


def check(args: argparse.Namespace) -> None:
    """The output directory and the arguments before reading anything."""
    check_out(args)
    if not 0 < args.trim < 0.5:
        raise UsageError(f"--trim must be in (0, 0.5), got {args.trim:g}")
    if not Path(args.covariates).is_file():
        raise UsageError(f"--covariates {args.covariates}: no such file")


def read_covariates(args: argparse.Namespace):
    """The covariate table indexed by its key column (read as text); ``--categorical`` columns,
    and columns in which no cell is a number, as categories; a column of numbers with a cell
    that is not a finite number is refused, naming it
    (:func:`rankstats.io.covariate_files.read_covariate_table`)."""
    from rankstats.io.covariate_files import read_covariate_table

    return read_covariate_table(
        args.covariates,
        key=args.key,
        columns=args.covariate_columns,
        categorical=args.categorical,
        columns_option="covariate_columns",
        detect_text=True,
    )


def read_rankings(args: argparse.Namespace):
    """``(rankings, name, what)``: a rankings FILE (rank matrix, orderings, PrefLib; a
    ``--ranker`` label may repeat: several rankings per ranker), or a score table's rankings
    per task or per (task, instance)."""
    from rankstats.core.rankings import Rankings

    chosen = file_format(args)
    if chosen in ("pairwise", "preferences"):
        raise UsageError(
            f"--format {chosen}: a rank tree fits rankings; give a rank-matrix, orderings or "
            "PrefLib file (or a score table)"
        )
    if chosen != "scores":
        rankings, _ = load_rankings_file(args, chosen, several_per_ranker=True)
        return rankings, Path(args.file).name, f"{chosen} file"
    scores = load_input(args)
    level = level_of(args, scores)
    name = scores.name or (Path(args.file).name if args.file else "scores")
    return Rankings.from_scores(scores, by=level), name, f"{level} level"


def run(args: argparse.Namespace) -> int:
    import rankstats.models as models

    rankings, name, what = read_rankings(args)
    covariates = read_covariates(args)
    tree = models.rank_tree(
        rankings,
        covariates,
        systems=args.systems,
        alpha=args.alpha,
        min_size=args.min_size,
        max_depth=args.max_depth,
        trim=args.trim,
        draws=args.n_draws,
        seed=args.seed,
    )
    print(f"rankstats tree: {short(name, 80)}")
    print(f"  {rankings.n_rankings} rankings ({what}) of {len(tree.systems)} systems")
    source = Path(args.covariates).name
    print(f"  units: {tree.unit}s (each {tree.unit}'s covariates from {short(source, 60)})")
    print()
    print(repr(tree))
    tests = tree.tests()
    print()
    print_frame(
        _p_values_as_text(tests),
        title="instability tests (p_adjusted: Bonferroni over the covariates"
        + ("; ≤: no simulated null draw reached the statistic" if tests["p_at_floor"].any() else "")
        + ")",
    )
    print()
    worths = tree.worths().T.reset_index(names="system")
    worths.columns = ["system"] + [f"leaf {c}" for c in worths.columns[1:]]
    print_frame(worths, title="log-worths per leaf (centred)", decimals={c: 3 for c in worths})
    if args.out:
        from rankstats.cli._top import figures_key_file
        from rankstats.plotting import save_figure

        out = Path(args.out)
        with output_dir(out) as tmp:
            files = [tmp / "leaves.csv", tmp / "worths.csv", tmp / "tests.csv"]
            write_csv(tree.leaves(), files[0])
            file_done()
            write_csv(tree.worths().reset_index(), files[1])
            file_done()
            write_csv(tests, files[2])
            file_done()
            files += save_figure(tree.plot(), tmp / "tree")
            files += figures_key_file({"tree": list(tree.systems)}, tmp)
        print("\n" + written(tmp, out, files))
    return 0


def _p_values_as_text(tests):
    """The tests with p_value and p_adjusted as text: a value, or ``≤ bound`` at the floor of a
    simulated p-value (right-aligned by padding)."""
    from rankstats.models.rank_tree_result import p_cell

    shown = tests.drop(columns=["split", "p_at_floor"])
    for column in ("p_value", "p_adjusted"):
        cells = [
            p_cell(p, bool(f)) for p, f in zip(tests[column], tests["p_at_floor"], strict=True)
        ]
        width = max(map(len, cells), default=0)
        shown[column] = [cell.rjust(width) for cell in cells]
    return shown
