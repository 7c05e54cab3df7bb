"""``rankstats tree``: model-based partitioning of the rankings by covariates (a tree of
Plackett–Luce worths, :func:`rankstats.models.rank_tree`)."""

from __future__ import annotations

from pathlib import Path

from rankstats._util.atomic import output_dir
from rankstats.cli._common import (
    file_format,
    level_of,
    load_input,
    load_rankings_file,
    short,
    write_tables,
    written,
)
from rankstats.cli._console import print_frame
from rankstats.cli.options.tree import Options
from rankstats.cli.usage import UsageError, check_out


def check(opts: Options) -> None:
    """The output directory and the arguments before reading anything."""
    check_out(opts.output)
    if not 0 < opts.trim < 0.5:
        raise UsageError(f"--trim must be in (0, 0.5), got {opts.trim:g}")
    if not Path(opts.ranker_covariates).is_file():
        raise UsageError(f"--ranker-covariates {opts.ranker_covariates}: no such file")


def read_covariates(opts: Options):
    """The covariate table indexed by its key column (read as text); ``--categorical`` columns,
    and columns in which no cell is a number, as categories; a column of numbers with a cell
    that is not a finite number is refused, naming it
    (:func:`rankstats.io.covariate_files.read_covariate_table`)."""
    from rankstats.io.covariate_files import read_covariate_table

    return read_covariate_table(
        opts.ranker_covariates,
        key=opts.key,
        columns=opts.covariate_columns,
        categorical=opts.categorical,
        columns_option="covariate_columns",
        detect_text=True,
    )


def read_rankings(opts: Options):
    """``(rankings, name, what)``: a rankings FILE (rank matrix, orderings, PrefLib; a
    ``--ranker`` label may repeat: several rankings per ranker), or a score table's rankings
    per task or per (task, instance)."""
    from rankstats.core.rankings import Rankings

    chosen = file_format(opts.input, opts.rankings_file)
    if chosen in ("pairwise", "preferences"):
        raise UsageError(
            f"--format {chosen}: a rank tree fits rankings; give a rank-matrix, orderings or "
            "PrefLib file (or a score table)"
        )
    if chosen != "scores":
        rankings, _ = load_rankings_file(
            opts.input, opts.rankings_file, chosen, several_per_ranker=True
        )
        return rankings, Path(opts.input.file).name, f"{chosen} file"
    scores = load_input(opts.input, opts.rankings_file.format)
    level = level_of(opts.input.by, scores)
    name = scores.name or (Path(opts.input.file).name if opts.input.file else "scores")
    return Rankings.from_scores(scores, by=level), name, f"{level} level"


def run(opts: Options) -> int:
    import rankstats.models as models

    rankings, name, what = read_rankings(opts)
    covariates = read_covariates(opts)
    tree = models.rank_tree(
        rankings,
        covariates,
        systems=opts.systems,
        alpha=opts.alpha,
        min_size=opts.min_size,
        max_depth=opts.max_depth,
        trim=opts.trim,
        draws=opts.draws,
        seed=opts.seed,
    )
    print(f"rankstats tree: {short(name, 80)}")
    print(f"  {rankings.n_rankings} rankings ({what}) of {len(tree.systems)} systems")
    source = Path(opts.ranker_covariates).name
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
    if opts.output.out:
        from rankstats.cli._top import figures_key_file
        from rankstats.plotting import save_figure

        out = Path(opts.output.out)
        with output_dir(out) as tmp:
            tables = {"leaves.csv": tree.leaves(), "worths.csv": tree.worths().reset_index()}
            files = write_tables(tmp, tables | {"tests.csv": tests})
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
