"""``rankstats check``: the data check, before any analysis (also run by ``rank`` and ``report``).

Prints each finding (kind, counts, examples, the option that acts on it) and writes
``check.json`` and ``check.csv`` into ``--out`` as a whole. A wide table's aggregate and
metadata columns, which ``rank`` refuses, are reported here as errors and set aside so that the
other checks still run. Exit code 0 whatever is found (2 for input errors, as every command).
"""

from __future__ import annotations

import dataclasses
import warnings
from pathlib import Path

from rankstats._util.atomic import output_dir
from rankstats.cli._common import load_input, short, write_json, write_tables, written
from rankstats.cli.options.check import Options
from rankstats.cli.options.groups import InputOptions
from rankstats.errors import DataWarning


def load_checked(inp: InputOptions):
    """``(scores, DataCheck)``: the input read as ``load_input`` reads it, aggregate and
    metadata columns reported (and set aside) instead of refused."""
    from rankstats.core.wide_columns import NotTaskColumnsError
    from rankstats.datacheck import DataCheck, column_findings, run_detectors

    columns: list = []
    try:
        scores = load_input(inp)
    except NotTaskColumnsError as err:
        columns = column_findings(err.findings)
        given = list(inp.drop_columns or [])
        again = dataclasses.replace(inp, drop_columns=given + [f.column for f in err.findings])
        scores = load_input(again)
    instance = inp.instance if inp.file else None
    if inp.dataset:
        instance = "instance"
    found = tuple(columns) + tuple(run_detectors(scores, instance))
    return scores, DataCheck(found, scores, scores.name)


def before_analysis(inp: InputOptions, scores):
    """The check that ``rank`` and ``report`` run on the scores they read: each warning
    printed (the command's handler spells its remedy with flags), ``--placeholders missing``
    applied. Returns ``(scores, DataCheck)``; the findings go into the command's outputs."""
    from rankstats.datacheck import DataCheck, drop_placeholders, run_detectors

    instance = None if inp.dataset else inp.instance
    check = DataCheck(tuple(run_detectors(scores, instance)), scores, scores.name)
    found = check.of_kind("placeholder")
    if inp.placeholders == "missing" and found:
        scores = drop_placeholders(scores)
        check.warn(skip=("placeholder",))
        cells = ", ".join(f"{f.count} in {f.subject[0]}" for f in found)
        warnings.warn(
            f"data check: read the placeholder scores ({cells}) as not evaluated, as "
            "--placeholders missing asks",
            DataWarning,
            stacklevel=2,
        )
    else:
        check.warn()
    return scores, check


def run(opts: Options) -> int:
    scores, check = load_checked(opts.input)
    name = scores.name or (Path(opts.input.file).name if opts.input.file else "scores")
    print(f"rankstats check: {short(name, 80)}")
    print(f"  {short(repr(scores), 400)}")
    counts = {s: sum(f.severity == s for f in check.findings) for s in ("error", "warning", "note")}
    print(
        f"  {counts['error']} error(s) (refused by rank and report until an option says what "
        f"to do), {counts['warning']} warning(s), {counts['note']} note(s)\n"
    )
    for f in check.findings:
        print(f"{f.severity}: {f.kind}: {short(f.message, 2000)}")
        print(f"  what to do: {short(f.option, 400)}")
    if not check.findings:
        print("nothing found")
    out = Path(opts.output.out)
    with output_dir(out) as tmp:
        files = write_tables(tmp, {"check.csv": check.table})
        data = {
            "name": name,
            "systems": len(scores.systems),
            "tasks": len(scores.tasks),
            "scores": len(scores.data),
            "counts": counts,
        }
        files.append(write_json(tmp / "check.json", {"data": data, "findings": check.records()}))
    print("\n" + written(tmp, out, files))
    return 0
