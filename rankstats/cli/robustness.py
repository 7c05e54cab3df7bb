"""``rankstats robustness``: the robustness experiments of the papers."""

from __future__ import annotations

from pathlib import Path

from rankstats._util.atomic import output_dir
from rankstats.cli._common import write_tables, written
from rankstats.cli._console import method_label, print_frame
from rankstats.cli.options.robustness import Options
from rankstats.cli.options.shared import check_n_jobs
from rankstats.cli.usage import EXIT_INTERRUPTED


def run(opts: Options) -> int:
    from rankstats.plotting.saving import save_figure
    from rankstats.simulate.robustness_experiments import PRESETS, robustness

    check_n_jobs(opts.n_jobs)
    preset = PRESETS[opts.experiment]
    print(f"{opts.experiment}: {preset['description']}")
    run = {
        "n_replications": opts.n_replications or preset["n_replications"],
        "seed": opts.seed,
        "n_jobs": opts.n_jobs,
        "base": preset["base"],
        "progress": True,
        "backend": opts.backend,
    }
    if opts.scheduler:
        import joblib

        from rankstats.cli.rank import connect

        with connect(opts.scheduler), joblib.parallel_config(backend="dask"):
            n_jobs = opts.n_jobs if opts.n_jobs != 1 else -1
            res = robustness(
                opts.aggregators, preset["grid"], **{**run, "n_jobs": n_jobs, "backend": "joblib"}
            )
    else:
        res = robustness(opts.aggregators, preset["grid"], **run)
    if not res.complete:
        print(
            f"rankstats robustness: interrupted after {len(res.table)} result rows; nothing "
            f"written ({opts.output.out} left as it was)"
        )
        return EXIT_INTERRUPTED
    summary = res.summary("kendall_tau")
    panel = preset["panel"] if preset["panel"] in preset["grid"] else None
    index = [k for k in (panel, preset["x"]) if k is not None]
    table = summary.pivot_table(index=index, columns="aggregator", values="mean", sort=False)
    print("mean Kendall τ to the truth:")
    shown = table.reset_index()
    print_frame(
        shown,
        headers={a: method_label(a) for a in table.columns},
        decimals=dict.fromkeys(table.columns, 3),
    )
    out = Path(opts.output.out)
    with output_dir(out) as tmp:
        files = write_tables(tmp, {"robustness.csv": res.table, "summary.csv": summary})
        files += save_figure(res.plot(x=preset["x"], panel=panel), tmp / "robustness")
    print(written(tmp, out, files))
    return 0
