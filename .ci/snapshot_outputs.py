"""Prove that a refactoring changed no user-facing output: run the same commands on two trees.

What it proves: for every ``rankstats ...`` command line of the documentation (README.md and
docs/**/*.md, fenced ``bash`` / ``console`` blocks, read as tests/test_docs_snippets.py reads them)
that is written word for word in both trees, and for every ``examples/*.py`` whose command-line
usage is the same in both trees, the OLD and the NEW source tree give the same exit code, the same
standard output and error, and the same files (after removing what legitimately varies from run to
run: timings, ETA lines, temporary paths, varying memory figures, dates, embedded base64 images).
Binary files (PNG, PDF, SVG, netCDF, ...) are compared by presence only; Parquet files are compared
as their CSV text when pandas can read them. JSON is compared exactly (bit-identical numbers are
the claim) and, when it differs, the largest absolute difference of its numbers is reported.

Every difference is reported, intended ones included (renamed things, reworded messages): the
human decides. Output: ``OUT/summary.md`` (one row per command and the first 30 lines of every
difference), ``OUT/diffs/*.diff`` (the full unified diffs, per command) and ``OUT/runs/`` (the
normalised standard output and error of each run).

Each tree's code is the one imported: commands run as ``python -m rankstats ...`` and
``python examples/x.py ...`` with ``PYTHONPATH=<tree>`` (checked before running: ``rankstats``
must import from the tree), in a fresh temporary directory per (tree, command), with
``MPLBACKEND=Agg``, ``RANKSTATS_QUIET=1`` (when the tree knows it), ``PYTHONHASHSEED=0`` and one
BLAS / OpenMP thread. The docs' ``replace "OLD" with "NEW"`` markers of either tree are applied to
both (the same smaller size), the inputs of ``data`` markers are generated identically for both
(the docs runner's ``write_data``), and a command that reads what an earlier command of its page
wrote (``rank big/`` after ``simulate --out big/``) runs after that command in the same directory.

Run (from the repository root)::

    git worktree add --detach /tmp/snap-old d5a807b
    .venv/bin/python .ci/snapshot_outputs.py --old /tmp/snap-old --new . --out /tmp/snap --jobs 2
    .venv/bin/python .ci/snapshot_outputs.py --old /tmp/snap-old --new . --out /tmp/snap --list
    .venv/bin/python .ci/snapshot_outputs.py ... --only "significance --dataset summeval$"

Exit status: 0 when every command is identical, 1 otherwise.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import difflib
import json
import math
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

# ------------------------------------------------------------------------------ the docs' blocks
# The documentation runner's own parser (tests/docs_blocks.py of this checkout) reads both trees.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from docs_blocks import (
    Block,
    collect,
    commands,
    not_rerun,
    page_names,
    replacements,
    write_data,
)

OUT_OPTIONS = {"--out", "--dir", "--output", "-o", "--save", "--to", "--write"}
BINARY = {
    ".png", ".pdf", ".svg", ".jpg", ".jpeg", ".gif", ".eps", ".ps", ".nc", ".npz", ".npy",
    ".pkl", ".pickle", ".zip", ".gz", ".feather", ".arrow", ".woff", ".woff2", ".ico",
}  # fmt: skip
DIFF_LINES = 30


# ------------------------------------------------------------------------------ the commands
@dataclass
class Unit:
    """One compared command: ``argv`` run after ``setup`` (data specs, earlier commands)."""

    kind: str  # "cli" or "example"
    argv: list[str]  # as a user types it: ["rankstats", ...] or ["python", "examples/x.py", ...]
    where: str  # page:line, or the example's path
    data: list[str] = field(default_factory=list)
    before: list[list[str]] = field(default_factory=list)
    slow: bool = False
    prelude: list[str] = field(default_factory=list)  # the page's Python blocks before it

    @property
    def text(self) -> str:
        return shlex.join(self.argv)


PYTHON_BLOCKS: dict[tuple[str, str], list[Block]] = {}


@dataclass
class DocCommand:
    words: list[str]  # as written
    block: Block
    index: int  # order on its page


def doc_commands(tree: Path) -> dict[str, list[DocCommand]]:
    """Per page, its runnable command lines in page order (skip-marked blocks left out)."""
    out: dict[str, list[DocCommand]] = {}
    for page in page_names(tree):
        found: list[DocCommand] = []
        for block in collect(tree, page):
            if block.kind == "python" and not block.marker("skip") and not block.marker("slow"):
                PYTHON_BLOCKS.setdefault((str(tree), page), []).append(block)
            if block.kind not in ("bash", "console") or block.marker("skip"):
                continue
            for words in commands(block, block.source):
                if words and not not_rerun(words):
                    found.append(DocCommand(words, block, len(found)))
        out[page] = found
    return out


def substitute(words: list[str], specs: list[tuple[str, str]]) -> list[str]:
    line = shlex.join(words) + " "
    for old, new in specs:
        line = line.replace(old, new)
    return shlex.split(line)


def _paths(words: list[str]) -> set[str]:
    """The words that look like file names (a slash or an extension; not numbers)."""
    return {
        w.rstrip("/")
        for w in words
        if not w.startswith("-")
        and ("/" in w or re.search(r"\.[A-Za-z]\w*$", w))
        and not re.fullmatch(r"[\d.eE+-]+", w)
    }


def _produced(words: list[str]) -> set[str]:
    return {
        words[i + 1].rstrip("/")
        for i, w in enumerate(words[:-1])
        if w in OUT_OPTIONS or w.startswith("--out")
    }


def cli_units(old: Path, new: Path) -> tuple[list[Unit], list[str]]:
    """The ``rankstats`` commands written word for word in both trees, and what is left out."""
    trees = {"old": doc_commands(old), "new": doc_commands(new)}
    written = {
        name: {tuple(c.words) for cs in per.values() for c in cs} for name, per in trees.items()
    }
    specs: dict[tuple[str, ...], list[tuple[str, str]]] = {}
    for per in trees.values():
        for cs in per.values():
            for c in cs:
                for spec in replacements(c.block):
                    if spec not in specs.setdefault(tuple(c.words), []):
                        specs[tuple(c.words)].append(spec)
    excluded: list[str] = []
    units: list[Unit] = []
    seen: set[tuple] = set()
    for name, per in trees.items():
        for page, cs in per.items():
            for c in cs:
                key = tuple(c.words)
                program = Path(c.words[0]).name
                if program != "rankstats":
                    if name == "new" and program not in ("python", "python3"):
                        excluded.append(
                            f"{page}:{c.block.line} `{shlex.join(c.words)}`: not rankstats"
                        )
                    continue
                other = "old" if name == "new" else "new"
                if key not in written[other]:
                    excluded.append(
                        f"{page}:{c.block.line} `{shlex.join(c.words)}`: only in {name.upper()}"
                    )
                    continue
                if name == "old":
                    continue  # the common commands are taken from NEW's pages
                argv = substitute(c.words, specs.get(key, []))
                # Earlier commands of the page whose outputs this one reads (transitively).
                needed: list[DocCommand] = []
                wanted = _paths(argv[1:])
                for earlier in reversed(cs[: c.index]):
                    if Path(earlier.words[0]).name != "rankstats":
                        continue
                    made = _produced(earlier.words)
                    if any(w == m or w.startswith(m + "/") for w in wanted for m in made):
                        needed.insert(0, earlier)
                        wanted |= _paths(earlier.words[1:])
                data = [
                    spec
                    for b in {d.block.line: d.block for d in cs[: c.index + 1]}.values()
                    for spec in b.marker("data")
                ]
                data = list(dict.fromkeys(data))
                before = [substitute(e.words, specs.get(tuple(e.words), [])) for e in needed]
                # Inputs that neither a data marker nor an earlier command writes: the page's
                # Python blocks before this command write them (run once, with NEW, in setup).
                given = {shlex.split(d)[0].rstrip("/") for d in data}
                given |= {m for b in before for m in _produced(b)}
                missing = {
                    w
                    for w in _paths(argv[1:])
                    if not any(w == g or w.startswith(g + "/") for g in given)
                    and w not in _produced(argv)
                }
                prelude = [
                    b.source
                    for b in PYTHON_BLOCKS.get((str(new), page), [])
                    if b.line < c.block.line
                ]
                ident = (tuple(argv), tuple(data), tuple(map(tuple, before)))
                if ident in seen:
                    continue
                seen.add(ident)
                units.append(
                    Unit(
                        "cli",
                        argv,
                        f"{page}:{c.block.line}",
                        data,
                        before,
                        bool(c.block.marker("slow")),
                        prelude if missing else [],
                    )
                )
    return units, sorted(set(excluded))


# Small arguments for the examples (the docs' own where they give some, smaller sizes).
EXAMPLE_ARGS = {
    "arena_battles.py": ["--out", "arena-example"],
    "choosing_a_rank_model.py": ["sushi-figures", "--draws", "200", "--tune", "200"],
    "models_plackett_luce.py": ["--fast"],
    "scale_streaming.py": ["--instances", "330", "--dir", "big"],
}
POSITIONAL_OUT = "out"  # for the examples whose only argument is an output directory


def usage(path: Path) -> list[str]:
    """The lines of an example that define its command line (argparse calls, ``sys.argv``)."""
    text = path.read_text(encoding="utf-8")
    return [
        line.strip()
        for line in text.splitlines()
        if re.search(r"add_argument\(|sys\.argv|ArgumentParser\(", line)
    ]


def example_units(old: Path, new: Path) -> tuple[list[Unit], list[str]]:
    units, excluded = [], []
    names = {p.name for p in (old / "examples").glob("*.py")}
    for path in sorted((new / "examples").glob("*.py")):
        if path.name not in names:
            excluded.append(f"examples/{path.name}: only in NEW")
            continue
        lines = usage(path)
        if lines != usage(old / "examples" / path.name):
            excluded.append(f"examples/{path.name}: command-line usage differs")
            continue
        if path.name in EXAMPLE_ARGS:
            args = EXAMPLE_ARGS[path.name]
        elif any("sys.argv[1]" in line for line in lines):
            args = [POSITIONAL_OUT]
        else:
            args = []
        units.append(Unit("example", ["python", f"examples/{path.name}", *args], str(path.name)))
    mine = {p.name for p in (new / "examples").glob("*.py")}
    excluded += [f"examples/{n}: only in OLD" for n in sorted(names - mine)]
    return units, excluded


# ------------------------------------------------------------------------------ running
@dataclass
class Run:
    code: int | str  # exit status, or "timeout"
    out: str
    err: str
    files: dict[str, bytes]
    setup_failed: str = ""
    places: list[str] = field(default_factory=list)


def environment(tree: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONSTARTUP")}
    env.update(
        PYTHONPATH=str(tree),
        MPLBACKEND="Agg",
        PYTHONHASHSEED="0",
        OMP_NUM_THREADS="1",
        OPENBLAS_NUM_THREADS="1",
        MKL_NUM_THREADS="1",
        PYTHONUNBUFFERED="1",
    )
    if knows_quiet(tree):
        env["RANKSTATS_QUIET"] = "1"
    return env


def knows_quiet(tree: Path) -> bool:
    return any(
        "RANKSTATS_QUIET" in p.read_text(encoding="utf-8", errors="replace")
        for p in (tree / "rankstats").rglob("*.py")
    )


def execute(argv: list[str], cwd: Path, env: dict[str, str], timeout: float) -> tuple:
    process = subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # a timeout ends the command and its children
    )
    try:
        out, err = process.communicate(timeout=timeout)
        code: int | str = process.returncode
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        code = "timeout"
    return code, out.decode(errors="replace"), err.decode(errors="replace")


def real_argv(words: list[str], python: str, tree: Path) -> list[str]:
    if Path(words[0]).name == "rankstats":
        return [python, "-m", "rankstats", *words[1:]]
    return [python, *words[1:]]  # python examples/x.py: examples/ is linked into the directory


PRELUDE = """
import traceback, sys
import matplotlib
matplotlib.use("Agg")
namespace = {"__name__": "__main__"}
exec("import rankstats as rs", namespace)
for k, source in enumerate(BLOCKS):
    try:
        exec(compile(source, f"block {k}", "exec"), namespace)
    except BaseException:
        traceback.print_exc()
"""


def stage(unit: Unit, new: Path, python: str, timeout: float, where: Path) -> str:
    """Write the unit's inputs into ``where`` (the same for both trees); any error text."""
    for name in ("examples", "tests"):
        (where / name).symlink_to(new / name, target_is_directory=True)
    for spec in unit.data:
        write_data(spec, where)
    if not unit.prelude:
        return ""
    code, _, err = execute(
        [python, "-c", PRELUDE.replace("BLOCKS", repr(unit.prelude))],
        where,
        environment(new),
        timeout,
    )
    return "" if code == 0 and "Traceback" not in err else f"inputs (Python blocks): {err[-2000:]}"


def run_unit(unit: Unit, tree: Path, python: str, timeout: float, staged: Path) -> Run:
    env = environment(tree)
    with tempfile.TemporaryDirectory(prefix="snap-") as tmp:
        work = Path(tmp)
        shutil.copytree(staged, work, symlinks=True, dirs_exist_ok=True)
        for name in ("examples", "tests"):
            (work / name).unlink(missing_ok=True)
            (work / name).symlink_to(tree / name, target_is_directory=True)
        failed = ""
        for words in unit.before:
            code, out, err = execute(real_argv(words, python, tree), work, env, timeout)
            if code != 0:
                failed = f"`{shlex.join(words)}` exited {code}\n{err[-2000:]}"
        code, out, err = execute(real_argv(unit.argv, python, tree), work, env, timeout)
        files = {
            str(p.relative_to(work)): p.read_bytes()
            for p in sorted(work.rglob("*"))
            if p.is_file() and p.relative_to(work).parts[0] not in ("examples", "tests")
        }
        places = [str(work), os.path.realpath(work), str(tree), os.path.realpath(tree)]
        return Run(
            code,
            normalise(out, places),
            normalise(err, places),
            files,
            normalise(failed, places),
            places,
        )


# ------------------------------------------------------------------------------ normalising
NUMBER = r"\d+(?:[.,]\d+)?"
UNITS = "ms|µs|us|ns|s|sec|secs|seconds?|min|mins|minutes?|h|hours?"
TIMING = [
    (re.compile(r"(?i)\btook\s+[^,;)\n]*"), "took <T>"),
    (re.compile(rf"(?i)\b{NUMBER}\s*(?:{UNITS})\b"), "<T>"),
    (re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})?(?:\.\d+)?\b"), "<CLOCK>"),
    (re.compile(rf"(?i)\b{NUMBER}\s*(?:it/s|s/it|draws/s)\b"), "<RATE>"),
]  # fmt: skip
DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}(?:[ T]<CLOCK>(?:Z|[+-]\d{2}:?\d{2})?)?")
MEMORY_LINE = re.compile(r"(?i)memory|\bram\b|\brss\b|available|\bfree\b|peak|\bused\b")
MEMORY = re.compile(rf"(?i)\b{NUMBER}\s*(?:[KMGT]i?B|bytes|B)\b")
ETA = re.compile(r"(?i)\beta\b")
TMP = re.compile(r"/tmp/[^\s'\"),:]+|/var/folders/[^\s'\"),:]+")
BASE64 = re.compile(r"data:[\w/+.-]+;base64,[A-Za-z0-9+/=\s]+")


def normalise(text: str, places: list[str]) -> str:
    text = text.replace("\r\n", "\n")
    lines = []
    for line in text.split("\n"):
        line = line.rsplit("\r", 1)[-1]  # a progress line rewritten in place: its last state
        if ETA.search(line):
            continue
        for place in sorted(set(places), key=len, reverse=True):
            line = line.replace(place, "<DIR>")
        line = TMP.sub("<TMP>", line)
        for pattern, by in TIMING:
            line = pattern.sub(by, line)
        line = DATE.sub("<DATE>", line)
        if MEMORY_LINE.search(line):
            line = MEMORY.sub("<MEM>", line)
        lines.append(line)
    return "\n".join(lines)


def file_text(name: str, data: bytes, places: list[str]) -> str | None:
    """The comparable text of a file, or None for a binary file (compared by presence)."""
    suffix = Path(name).suffix.lower()
    if suffix in BINARY:
        return None
    if suffix == ".parquet":
        try:
            import io

            return pd.read_parquet(io.BytesIO(data)).to_csv(index=False)
        except Exception:  # unreadable: presence only
            return None
    if b"\0" in data[:4096]:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if suffix in (".html", ".htm"):
        text = BASE64.sub("data:<BASE64>", text)
    return normalise(text, places)


def numbers(value: object, path: str = "") -> dict[str, float]:
    if isinstance(value, bool):
        return {}
    if isinstance(value, int | float):
        return {path: float(value)}
    if isinstance(value, dict):
        return {
            k: v for key, item in value.items() for k, v in numbers(item, f"{path}/{key}").items()
        }
    if isinstance(value, list):
        return {
            k: v for i, item in enumerate(value) for k, v in numbers(item, f"{path}/{i}").items()
        }
    return {}


def json_gap(old: str, new: str) -> str:
    try:
        a, b = numbers(json.loads(old)), numbers(json.loads(new))
    except ValueError:
        return ""
    gaps = [
        abs(a[k] - b[k]) for k in a.keys() & b.keys() if math.isfinite(a[k]) and math.isfinite(b[k])
    ]
    gaps = [g for g in gaps if g > 0]
    return f"max abs difference of the numbers: {max(gaps):.3g}" if gaps else ""


# ------------------------------------------------------------------------------ comparing
@dataclass
class Outcome:
    unit: Unit
    verdict: str
    compared: int
    binary: list[str]
    parts: list[tuple[str, list[str]]]  # (what, unified diff lines)


def diff(what: str, old: str, new: str) -> list[str]:
    return list(
        difflib.unified_diff(
            old.splitlines(), new.splitlines(), f"OLD {what}", f"NEW {what}", lineterm=""
        )
    )


def compare(unit: Unit, old: Run, new: Run) -> Outcome:
    parts: list[tuple[str, list[str]]] = []
    if old.setup_failed or new.setup_failed:
        parts.append(("setup", diff("setup", old.setup_failed, new.setup_failed)))
    if old.code != new.code:
        parts.append(("exit code", [f"OLD exit {old.code}", f"NEW exit {new.code}"]))
    for what, a, b in (("stdout", old.out, new.out), ("stderr", old.err, new.err)):
        if a != b:
            parts.append((what, diff(what, a, b)))
    binary, compared = [], 0
    for name in sorted(old.files.keys() | new.files.keys()):
        if name not in new.files or name not in old.files:
            parts.append((name, [f"only in {'OLD' if name in old.files else 'NEW'}: {name}"]))
            continue
        a = file_text(name, old.files[name], old.places)
        b = file_text(name, new.files[name], new.places)
        compared += 1
        if a is None or b is None:
            binary.append(name)
            continue
        if a != b:
            lines = diff(name, a, b)
            if name.endswith(".json") and (gap := json_gap(a, b)):
                lines.insert(0, gap)
            parts.append((name, lines))
    failed_old, failed_new = old.code != 0, new.code != 0
    if failed_old and failed_new:
        verdict = "failed-in-both" + (" (identical)" if not parts else "")
    elif failed_old:
        verdict = "failed-in-old"
    elif failed_new:
        verdict = "failed-in-new"
    else:
        verdict = "differs" if parts else "identical"
    return Outcome(unit, verdict, compared, binary, parts)


def slug(index: int, unit: Unit) -> str:
    return f"{index:03d}-" + re.sub(r"[^A-Za-z0-9]+", "-", unit.text)[:60].strip("-")


def report(outcomes: list[Outcome], out: Path, excluded: list[str], header: list[str]) -> None:
    (out / "diffs").mkdir(parents=True, exist_ok=True)
    table = ["| # | command | result | files compared (binary: presence) |", "|---|---|---|---|"]
    details = []
    for i, o in enumerate(outcomes, 1):
        files = f"{o.compared} ({len(o.binary)})"
        table.append(f"| {i} | `{o.unit.text}` | {o.verdict} | {files} |")
        if not o.parts:
            continue
        name = slug(i, o.unit)
        full = [f"# {o.unit.text}  ({o.unit.where})"]
        details += [f"### {i}. `{o.unit.text}` ({o.unit.where}): {o.verdict}", ""]
        for what, lines in o.parts:
            full += [f"## {what}", *lines, ""]
            shown = lines[:DIFF_LINES] + (
                [f"... ({len(lines) - DIFF_LINES} more lines)"] if len(lines) > DIFF_LINES else []
            )
            details += [f"- {what}", "", "```diff", *shown, "```", ""]
        (out / "diffs" / f"{name}.diff").write_text("\n".join(full) + "\n", encoding="utf-8")
    counts = {
        v: sum(o.verdict == v for o in outcomes) for v in sorted({o.verdict for o in outcomes})
    }
    text = [
        "# Snapshot of outputs: OLD against NEW",
        "",
        *header,
        "",
        "Results: " + ", ".join(f"{n} {v}" for v, n in counts.items()),
        "",
        *table,
        "",
        "## Differences (first 30 lines each; full diffs in diffs/)",
        "",
        *(details or ["None."]),
        "## Not run",
        "",
        *[f"- {e}" for e in excluded],
        "",
    ]
    (out / "summary.md").write_text("\n".join(text), encoding="utf-8")


# ------------------------------------------------------------------------------ main
def check_import(tree: Path, python: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        code, out, err = execute(
            [python, "-c", "import rankstats; print(rankstats.__file__)"],
            Path(tmp),
            environment(tree),
            120,
        )
    where = Path(out.strip()).resolve()
    if code != 0 or not where.is_relative_to(tree.resolve()):
        sys.exit(f"with PYTHONPATH={tree}, rankstats imports from {out.strip() or err}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, required=True, help="the tree before the change")
    parser.add_argument("--new", type=Path, required=True, help="the tree after the change")
    parser.add_argument("--out", type=Path, required=True, help="where summary.md goes")
    parser.add_argument("--python", default=sys.executable, help="interpreter (with the deps)")
    parser.add_argument("--jobs", type=int, default=1, help="runs at a time")
    parser.add_argument("--only", default=None, help="a regex: only the commands it matches")
    parser.add_argument("--list", action="store_true", help="print the commands, run nothing")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per command")
    args = parser.parse_args(argv)
    old, new = args.old.resolve(), args.new.resolve()

    cli, cli_excluded = cli_units(old, new)
    examples, ex_excluded = example_units(old, new)
    excluded = cli_excluded + ex_excluded
    excluded.append(
        "tests/benchmarks/*.py: no --check mode (they time; bench_kemeny --quick and "
        "bench_core --small are smaller timing runs, not result checks)"
    )
    units = cli + examples
    if args.only:
        units = [u for u in units if re.search(args.only, u.text)]
    if args.list:
        print(f"{len(cli)} CLI commands, {len(examples)} examples, 0 benchmark checks")
        for u in units:
            extra = f"  [data: {'; '.join(u.data)}]" if u.data else ""
            extra += "".join(f"  [after: {shlex.join(b)}]" for b in u.before)
            extra += f"  [inputs: {len(u.prelude)} Python blocks]" if u.prelude else ""
            print(f"{u.where:<40} {'slow ' if u.slow else ''}{u.text}{extra}")
        print("\nNot run:", *excluded, sep="\n  ")
        return 0

    for tree in (old, new):
        check_import(tree, args.python)
    out = args.out.resolve()
    if out.exists():
        shutil.rmtree(out / "diffs", ignore_errors=True)
        shutil.rmtree(out / "runs", ignore_errors=True)
    out.mkdir(parents=True, exist_ok=True)
    runs: dict[tuple[int, str], Run] = {}
    staging = Path(tempfile.mkdtemp(prefix="snap-inputs-"))
    staged, setup = [], []
    for i, u in enumerate(units):
        staged.append(staging / str(i))
        staged[-1].mkdir()
        setup.append(stage(u, new, args.python, args.timeout, staged[-1]))
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {
            pool.submit(run_unit, u, tree, args.python, args.timeout, staged[i]): (i, name)
            for i, u in enumerate(units)
            for name, tree in (("old", old), ("new", new))
        }
        for future in concurrent.futures.as_completed(futures):
            i, name = futures[future]
            runs[i, name] = future.result()
            print(f"done {name.upper()}: {units[i].text}  (exit {runs[i, name].code})", flush=True)
    outcomes = []
    for i, u in enumerate(units):
        folder = out / "runs" / slug(i + 1, u)
        folder.mkdir(parents=True, exist_ok=True)
        for name in ("old", "new"):
            (folder / f"{name}.stdout").write_text(runs[i, name].out, encoding="utf-8")
            (folder / f"{name}.stderr").write_text(runs[i, name].err, encoding="utf-8")
        outcome = compare(u, runs[i, "old"], runs[i, "new"])
        if setup[i]:
            outcome.parts.insert(0, ("inputs", setup[i].splitlines()[-DIFF_LINES:]))
        outcomes.append(outcome)
    shutil.rmtree(staging, ignore_errors=True)
    header = [
        f"OLD: `{old}`; NEW: `{new}`; interpreter `{args.python}`.",
        f"{len(cli)} CLI commands, {len(examples)} examples, 0 benchmark checks found"
        + (f"; run: those matching `{args.only}` ({len(units)})" if args.only else "")
        + ".",
    ]
    report(outcomes, out, excluded, header)
    print((out / "summary.md").read_text(encoding="utf-8").split("## Not run")[0])
    return 0 if all(o.verdict == "identical" for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
