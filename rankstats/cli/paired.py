"""``rankstats paired``: paired instance-level tests and ratings on one metric."""

from __future__ import annotations

from pathlib import Path

from rankstats._util.atomic import output_dir
from rankstats._util.text import terminal, unique_slugs
from rankstats.cli._common import (
    clean,
    file_done,
    load_input,
    write_json,
    write_tables,
    written,
)
from rankstats.cli._console import print_frame
from rankstats.cli.options.paired import Options
from rankstats.cli.usage import UsageError


def _load(opts: Options):
    """The data and its system names (to check --pair before computing)."""
    if not opts.systems_as_columns:
        scores = load_input(opts.input)
        if opts.metric is not None and opts.metric not in scores.tasks:
            raise UsageError(
                f"--task {opts.metric!r} is not a task of the data; tasks are "
                f"{', '.join(map(repr, scores.tasks[:20]))}"
            )
        return scores, list(scores.systems)
    if not opts.input.file or opts.input.dataset:
        raise UsageError("--systems-as-columns applies to a FILE")
    from rankstats.io.score_files import read_score_columns

    data = read_score_columns(
        opts.input.file, opts.input.sep, opts.input.encoding, opts.input.na_values
    )
    return data, [str(c) for c in data.columns]


#: The tables of summary.json, in its order.
_JSON_ORDER = ("strengths", "pairs", "agreement")


def run(opts: Options) -> int:
    from rankstats.paired_analysis.paired_tests import paired

    data, systems = _load(opts)
    _check_pairs(opts, systems)
    res = paired(
        data,
        task=opts.metric,
        confidence_level=opts.confidence_level,
        n_resamples=opts.n_resamples,
        seed=opts.seed,
        bt_ties=opts.bt_ties,
        zero_method=opts.zero_method,
    )
    key = _print_result(res)
    out = Path(opts.output.out)
    with output_dir(out) as tmp:
        tables = ("pairs", "strengths", "agreement")
        files = write_tables(tmp, {f"{name}.csv": getattr(res, name) for name in tables})
        summary = {"parameters": res.parameters}
        summary |= {name: clean(getattr(res, name).to_dict("records")) for name in _JSON_ORDER}
        files.append(write_json(tmp / "summary.json", summary))
        if not opts.output.no_figures:
            files += _figures(opts, res, key, tmp)
    print("\n" + written(tmp, out, files))
    return 0


def _check_pairs(opts: Options, systems: list[str]) -> None:
    """Each ``--pair``: two different systems of the data, whose plots' file names differ."""
    for pair in opts.pair or []:
        unknown = [s for s in pair if s not in systems]
        if unknown:
            raise UsageError(
                f"--pair: no system {', '.join(map(repr, unknown))}; systems are "
                f"{', '.join(map(repr, systems[:20]))}"
            )
        if pair[0] == pair[1]:
            raise UsageError(f"--pair {pair[0]!r} {pair[1]!r}: give two different systems")
    if opts.pair:
        unique_slugs([f"pair_{a}_vs_{b}" for a, b in opts.pair], "pairing plot")


def _print_result(res) -> str:
    """The strengths, the significant pairs and the aggregators' agreement, printed; the
    strength the systems are sorted by."""
    alpha = res.parameters["alpha"]
    print(terminal(repr(res)))
    key = "bt" if res.strengths["bt"].notna().all() else "mean"
    print(f"\nstrengths (sorted by {key}):")
    print_frame(res.strengths.sort_values(key, ascending=False))
    sig = res.pairs[res.pairs["sign_p_holm"] < alpha]
    print(f"\n{len(sig)} pairs significant by the sign test (Holm, α = {alpha:g}):")
    cols = ["system_a", "system_b", "n", "wins_a", "wins_b", "ties", "p_a_beats_b"]
    cols += ["sign_p_holm", "mean_diff", "ttest_p_holm", "wilcoxon_p_holm"]
    if len(sig):
        print_frame(sig[cols].head(30))
        if len(sig) > 30:
            print(f"... ({len(sig) - 30} more in pairs.csv)")
    print("\naggregator agreement (Peyrard et al. 2021, Table 1):")
    print_frame(res.agreement, decimals=dict.fromkeys(res.agreement.columns, 3))
    return key


def _figures(opts: Options, res, key: str, tmp: Path) -> list[Path]:
    """The matrix of the pairs and the pairing plots (``--pair``, or the two strongest)."""
    from rankstats.cli._top import figures_key_file
    from rankstats.plotting.saving import save_figure

    files = save_figure(res.plot_matrix(), tmp / "matrix")
    file_done()
    strengths = res.strengths.set_index("system")
    top = list(strengths[key].sort_values(ascending=False, kind="stable").index[:2])
    pairs = opts.pair or [top]
    stems = unique_slugs([f"pair_{a}_vs_{b}" for a, b in pairs], "pairing plot")
    for (a, b), stem in zip(pairs, stems.values(), strict=True):
        files += save_figure(res.plot_pair(a, b), tmp / stem)
        file_done()
    keyed = {"matrix": list(res.strengths["system"])}
    keyed |= {stem: [a, b] for (a, b), stem in zip(pairs, stems.values(), strict=True)}
    return files + figures_key_file(keyed, tmp)
