"""A leaderboard as people type it: what rankstats reads, what it refuses, and why.

Run: ``python examples/messy_input.py [OUTDIR]``

1. A semicolon-separated wide table with a BOM, an ``NA`` cell, a perplexity column (lower is
   better), an ``Average`` column and a system called ``007``: refused twice with one-line
   messages, then read once the two choices are made explicit.
2. The ``rankstats rank`` command on the same file: exit codes, and an output directory that is
   replaced as a whole (a failed rerun leaves the previous files untouched).
"""

import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import rankstats as rs

out = Path(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp()) / "messy"
out.mkdir(parents=True, exist_ok=True)
path = out / "leaderboard.csv"
path.write_text(
    "\ufeffsystem;accuracy;f1;perplexity;Average\r\n"
    "007;0.81;0.77;12.1;0.79\r\n"
    "gpt-x;0.84;NA;10.4;0.84\r\n"
    "baseline;0.62;0.58;25.0;0.60\r\n"
    "=cmd|' /C calc'!A0;0.70;0.66;15.2;0.68\r\n",
    encoding="utf-8",
)

# 1. The API ---------------------------------------------------------------------------------
for attempt in ({}, {"na_values": ["NA"]}):  # the NA cell, then the Average column
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", rs.DataWarning)  # shown below, once
            rs.read_scores(path, **attempt)
    except rs.InvalidScoresError as err:
        print(f"refused: {err}\n")

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    scores = rs.read_scores(
        path,
        na_values=["NA"],  # the one missing score is spelled NA: say so
        tasks=["accuracy", "f1", "perplexity"],  # Average is not a task
        higher_is_better={"perplexity": "lower"},
    )
for w in caught:
    print(f"warning: {w.message}")
print(scores)
print(rs.aggregate(scores, method="borda").table.to_string(index=False))
# '007' stayed '007' (keys are text), perplexity was negated once, the NA cell is "not evaluated".

# 2. The command -----------------------------------------------------------------------------
results = out / "results"
command = [
    sys.executable,
    "-m",
    "rankstats",
    "rank",
    str(path),
    "--na-values",
    "NA",
    "--tasks",
    "accuracy",
    "f1",
    "perplexity",
    "--lower-is-better",
    "perplexity",
    "--no-figures",
    "--out",
    str(results),
]
done = subprocess.run(command, capture_output=True, text=True)
print(f"\n$ rankstats rank ... -> exit {done.returncode}")
print(done.stdout.splitlines()[-1])
bad = subprocess.run(
    [*command[:4], str(path), "--out", str(results)], capture_output=True, text=True
)
print(f"$ rankstats rank {path.name} (without the choices) -> exit {bad.returncode}")
print(bad.stderr.strip())
print("still there, untouched:", sorted(p.name for p in results.iterdir()))
# The CSV cell of the system named like a spreadsheet formula is neutralised with a leading '.
print((results / "ranking.csv").read_text().splitlines()[1:5])
