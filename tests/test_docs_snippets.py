"""Every command and code block of README.md and docs/**/*.md runs (a doctest-style runner).

Collected: fenced ``bash``, ``console`` and ``python`` blocks; each is one test named
``page:line`` (the line of the opening fence). Everything of one page runs in order in one
temporary directory (``examples/`` and ``tests/`` are linked into it, so ``python examples/x.py``
works), with ``MPLBACKEND=Agg``:

- ``python`` blocks run in one Python process per page, in order, sharing their variables as the
  page is written (``rs`` is ``import rankstats as rs``, as everywhere in the guide);
- ``bash`` blocks: every command line runs (continuation lines joined, ``&&`` chains split,
  ``# comments`` dropped); ``rankstats`` (also ``.venv/bin/rankstats``) is this environment's entry
  point and ``python`` this interpreter; ``console`` blocks: only the ``$ `` lines run, the rest is
  printed output. Installing commands (``python3 -m venv``, ``pip install``) and the test suite
  itself (``python -m pytest``) are not re-run: tests/test_wheel.py installs the built wheel and
  runs the README's command, and CI step 1 is the README's install + test command. They are
  listed in :data:`NOT_RERUN`.

A block fails when a command exits with a non-zero status, a Python block raises, or the output or
the warnings say that a sampler or solver did not converge (a ``ConvergenceWarning``, "NOT
converged", "did not converge"): the documentation must not silently stop converging.

Markers, an HTML comment on the line(s) just before the fence (invisible on GitHub and in Sphinx):

- ``<!-- docs-test: slow -->``: run only with ``pytest -m slow`` (NUTS compiles, long samplers);
- ``<!-- docs-test: skip (reason) -->``: never run; the reason is required and the list is kept
  short (``pytest -rs`` prints it);
- ``<!-- docs-test: data NAME key=value ... -->``: writes the example input a block names as the
  reader's own file (``scores.csv``, ``scores/part-*.parquet``, ``wide.csv``) before it runs:
  ``columns=system,task,instance,score`` (the names of the four roles), ``tasks=A,B``,
  ``wide`` (one row per instance, one column per system);
- ``<!-- docs-test: replace "OLD" with "NEW" -->``: runs a smaller version of a command whose full
  size takes many minutes (the 132 M-score simulation): the same code path on less data.

Several markers may share one comment, separated by ``;``.
"""

from __future__ import annotations

import json
import os
import re
import select
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = ["README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").rglob("*.md"))]
PAGES = [p for p in PAGES if not p.startswith("docs/_build")]
RANKSTATS = Path(sys.executable).parent / "rankstats"
TIMEOUT = 600  # seconds for one command or one Python block

FENCE = re.compile(r"^```(bash|console|python)\s*$")
MARKER = re.compile(r"^\s*<!--\s*docs-test:\s*(.*?)\s*-->\s*$")

# Commands that are not re-run here, and why (a prefix of the command's words).
NOT_RERUN = {
    ("python3", "-m", "venv"): "creates the environment: tests/test_wheel.py and CI step 1",
    ("python", "-m", "venv"): "creates the environment: tests/test_wheel.py and CI step 1",
    ("pip", "install"): "installs: tests/test_wheel.py (wheel) and CI step 1 (editable)",
    ("python", "-m", "pytest"): "the test suite itself: CI step 1",
}


@dataclass
class Block:
    page: str
    line: int  # 1-based line of the opening fence
    kind: str
    source: str
    markers: list[str] = field(default_factory=list)

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"

    def marker(self, name: str) -> list[str]:
        """The arguments of every marker ``name`` (``""`` when it has none)."""
        out = []
        for m in self.markers:
            word, _, rest = m.partition(" ")
            if word.rstrip(":") == name:
                out.append(rest.strip())
        return out


def collect(page: str) -> list[Block]:
    lines = (ROOT / page).read_text(encoding="utf-8").splitlines()
    blocks, i = [], 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        if fence is None:
            if lines[i].startswith("```"):  # another fence (text, eval-rst, ...): skip its body
                i += 1
                while i < len(lines) and not lines[i].startswith("```"):
                    i += 1
            i += 1
            continue
        markers, k = [], i - 1
        while k >= 0 and (found := MARKER.match(lines[k])):
            markers[:0] = [m.strip() for m in found.group(1).split(";") if m.strip()]
            k -= 1
        end = i + 1
        while not lines[end].startswith("```"):
            end += 1
        blocks.append(Block(page, i + 1, fence.group(1), "\n".join(lines[i + 1 : end]), markers))
        i = end + 1
    return blocks


BLOCKS = [b for page in PAGES for b in collect(page)]


def _param(block: Block):
    marks = []
    skip = block.marker("skip")
    if skip:
        reason = skip[0].strip("() ")
        assert reason, f"{block.id}: a skip marker needs a reason"
        marks.append(pytest.mark.skip(reason=f"docs-test skip: {reason}"))
    if block.marker("slow"):
        marks.append(pytest.mark.slow)
    return pytest.param(block, id=block.id, marks=marks)


# ------------------------------------------------------------------------------ example inputs
def write_data(spec: str, where: Path) -> None:
    """The example input of a ``data`` marker: a small long (or wide) score table."""
    name, *options = shlex.split(spec)
    opts = dict(o.split("=", 1) if "=" in o else (o, "1") for o in options)
    system, task, instance, score = opts.get("columns", "system,task,instance,score").split(",")
    tasks = opts.get("tasks", "BLEU,ROUGE").split(",")
    rng = np.random.default_rng(0)
    systems = [f"M{k}" for k in range(6)]
    quality = np.linspace(1, 0, len(systems))
    n_instances = 30
    if "wide" in opts:
        frame = pd.DataFrame(
            {s: q + rng.normal(0, 0.5, n_instances) for s, q in zip(systems, quality, strict=True)}
        )
    else:
        rows = [
            (s, t, f"ex{i}", q + rng.normal(0, 0.5))
            for t in tasks
            for i in range(n_instances)
            for s, q in zip(systems, quality, strict=True)
        ]
        frame = pd.DataFrame(rows, columns=[system, task, instance, score])
        frame.loc[rng.random(len(frame)) < 0.05, score] = np.nan  # a few not evaluated
    target = where / name
    if "*" in name or name.endswith("/"):
        folder = target.parent if "*" in name else target
        folder.mkdir(parents=True, exist_ok=True)
        pattern = target.name if "*" in name else "part-*.parquet"
        for k, part in enumerate(np.array_split(np.arange(len(frame)), 2)):
            frame.iloc[part].to_parquet(folder / pattern.replace("*", f"{k:05d}"), index=False)
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(target, index=False)


def substituted(block: Block) -> str:
    source = block.source
    for spec in block.marker("replace"):
        found = re.fullmatch(r'"(.*)"\s+with\s+"(.*)"', spec)
        assert found, f'{block.id}: replace marker is `replace "OLD" with "NEW"`, not {spec!r}'
        old, new = found.groups()
        assert old in source, f"{block.id}: {old!r} is not in the block"
        source = source.replace(old, new)
    return source


# ------------------------------------------------------------------------------ running
WORKER = r"""
import json, os, sys, traceback
protocol = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)  # what the blocks print goes to the log, not to the protocol
sys.stdout = sys.stderr
import matplotlib
matplotlib.use("Agg")
import re, warnings
NOT_CONVERGED = re.compile(NOT_CONVERGED_PATTERN)
namespace = {"__name__": "__main__"}
exec("import rankstats as rs", namespace)
for request in sys.stdin:
    request = json.loads(request)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            exec(compile(request["source"], request["name"], "exec"), namespace)
        for w in caught:
            print(f"{w.category.__name__}: {w.message}", file=sys.stderr)
        bad = [
            f"{w.category.__name__}: {w.message}" for w in caught
            if w.category.__name__ == "ConvergenceWarning" or NOT_CONVERGED.search(str(w.message))
        ]
        import matplotlib.pyplot as plt
        plt.close("all")
        answer = {"ok": not bad, "error": "did not converge: " + " | ".join(bad)}
    except BaseException:
        answer = {"ok": False, "error": traceback.format_exc()}
    protocol.write(json.dumps(answer) + "\n")
    protocol.flush()
"""


# A block that "runs" but whose sampler or solver did not converge fails too.
NOT_CONVERGED = r"(?i)\bnot converged\b|did not converge"


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",)}
    env.update(MPLBACKEND="Agg", PYTHONUNBUFFERED="1")
    return env


class Page:
    """The working directory and the Python process of one page."""

    def __init__(self, where: Path) -> None:
        self.where = where
        where.mkdir(parents=True, exist_ok=True)
        for name in ("examples", "tests"):
            (where / name).symlink_to(ROOT / name, target_is_directory=True)
        self.log = where / ".python.log"
        self.worker: subprocess.Popen | None = None

    def python(self, block: Block, source: str) -> None:
        if self.worker is None or self.worker.poll() is not None:
            self.worker = subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    WORKER.replace("NOT_CONVERGED_PATTERN", repr(NOT_CONVERGED)),
                ],
                cwd=self.where,
                env=_env(),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.log.open("a"),
                text=True,
            )
        # Blank lines first: a traceback names the line of the page.
        request = {"source": "\n" * block.line + source, "name": str(ROOT / block.page)}
        self.worker.stdin.write(json.dumps(request) + "\n")
        self.worker.stdin.flush()
        ready, _, _ = select.select([self.worker.stdout], [], [], TIMEOUT)
        if not ready:
            self.close()
            pytest.fail(f"{block.id}: no answer within {TIMEOUT} s")
        answer = self.worker.stdout.readline()
        if not answer:
            self.close()
            pytest.fail(f"{block.id}: the Python process died\n{self._tail()}")
        answer = json.loads(answer)
        if not answer["ok"]:
            pytest.fail(f"{block.id} failed:\n{answer['error']}\n{self._tail()}", pytrace=False)

    def _tail(self, n: int = 3000) -> str:
        return self.log.read_text(errors="replace")[-n:] if self.log.exists() else ""

    def close(self) -> None:
        if self.worker is not None:
            self.worker.kill()
            self.worker.wait()
            self.worker = None


def commands(block: Block, source: str) -> list[list[str]]:
    """The command lines of a bash / console block, as argument lists."""
    lines = source.splitlines()
    if block.kind == "console":
        lines = [line[2:] for line in lines if line.startswith("$ ")]
    joined, buffer = [], ""
    for line in lines:
        buffer += line
        if buffer.endswith("\\"):
            buffer = buffer[:-1] + " "
            continue
        if buffer.strip():
            joined.append(buffer)
        buffer = ""
    out = []
    for line in joined:
        words = shlex.split(line, comments=True)
        while words:
            cut = words.index("&&") if "&&" in words else len(words)
            out.append(words[:cut])
            words = words[cut + 1 :]
    return out


def not_rerun(words: list[str]) -> str | None:
    name = [Path(words[0]).name, *words[1:]]
    if name[0] in ("python3", "python") and name[1:3] == ["-m", "pip"]:
        name = ["pip", *name[3:]]
    for prefix, why in NOT_RERUN.items():
        if tuple(name[: len(prefix)]) == prefix:
            return why
    return None


def run_command(block: Block, words: list[str], where: Path) -> None:
    program = Path(words[0]).name
    if program == "rankstats":
        argv = [str(RANKSTATS), *words[1:]]
    elif program in ("python", "python3"):
        argv = [sys.executable, *words[1:]]
    else:
        pytest.fail(f"{block.id}: the runner does not know how to run {words[0]!r}")
    start = time.perf_counter()
    done = subprocess.run(
        argv, cwd=where, env=_env(), capture_output=True, text=True, timeout=TIMEOUT, check=False
    )
    if re.search(NOT_CONVERGED, done.stdout + done.stderr):
        pytest.fail(
            f"{block.id}: `{shlex.join(words)}` did not converge\n{done.stdout[-3000:]}\n"
            f"{done.stderr[-3000:]}",
            pytrace=False,
        )
    if done.returncode != 0:
        pytest.fail(
            f"{block.id}: `{shlex.join(words)}` exited {done.returncode} after "
            f"{time.perf_counter() - start:.1f} s\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}",
            pytrace=False,
        )


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    opened: dict[str, Page] = {}
    base = tmp_path_factory.mktemp("docs")

    def page(name: str) -> Page:
        if name not in opened:
            opened[name] = Page(base / name.replace("/", "__"))
        return opened[name]

    yield page
    for p in opened.values():
        p.close()


@pytest.mark.parametrize("block", [_param(b) for b in BLOCKS])
def test_docs_block(block: Block, pages):
    page = pages(block.page)
    for spec in block.marker("data"):
        write_data(spec, page.where)
    source = substituted(block)
    if block.kind == "python":
        page.python(block, source)
        return
    ran = 0
    for words in commands(block, source):
        if not_rerun(words) is None:
            run_command(block, words, page.where)
            ran += 1
    if ran == 0:
        pytest.skip(
            "only installing / test-suite commands: "
            + "; ".join(sorted({not_rerun(w) or "" for w in commands(block, source)}))
        )


def test_the_runner_finds_the_blocks():
    assert len(BLOCKS) >= 35, len(BLOCKS)
    ids = [b.id for b in BLOCKS]
    assert "README.md:15" in ids and len(set(ids)) == len(ids)
    for b in BLOCKS:
        for m in b.markers:
            assert m.split()[0].rstrip(":") in ("slow", "skip", "data", "replace"), (b.id, m)


def test_the_runner_reads_commands_and_markers(tmp_path):
    block = Block(
        "x.md", 3, "bash", "a && rankstats rank f.csv \\\n    --level task  # why\n# only\n"
    )
    assert commands(block, block.source) == [
        ["a"],
        ["rankstats", "rank", "f.csv", "--level", "task"],
    ]
    console = Block("x.md", 3, "console", "$ rankstats datasets\nglue  105 systems\n")
    assert commands(console, console.source) == [["rankstats", "datasets"]]
    assert not_rerun([".venv/bin/pip", "install", "-e", "."]) and not_rerun(
        ["python3", "-m", "venv"]
    )
    assert not_rerun(["rankstats", "rank"]) is None
    marked = Block("x.md", 3, "bash", "big --instances 9", ['replace "9" with "1"', "skip (why)"])
    assert substituted(marked) == "big --instances 1" and marked.marker("skip") == ["(why)"]
    write_data("s.csv columns=model,metric,example,value tasks=BLEU,loss", tmp_path)
    frame = pd.read_csv(tmp_path / "s.csv")
    assert list(frame.columns) == ["model", "metric", "example", "value"]
    assert set(frame.metric) == {"BLEU", "loss"}


def test_a_failing_block_fails(tmp_path):
    page = Page(tmp_path / "page")
    try:
        page.python(Block("x.md", 1, "python", "x = 1"), "x = 1")
        with pytest.raises(pytest.fail.Exception, match="ZeroDivisionError"):
            page.python(Block("x.md", 2, "python", "x / 0"), "x / 0")
        with pytest.raises(pytest.fail.Exception, match="did not converge"):
            page.python(
                Block("x.md", 3, "python", ""),
                "import warnings\nclass ConvergenceWarning(UserWarning): pass\n"
                "warnings.warn('R-hat 1.2', ConvergenceWarning)",  # matched by its name
            )
    finally:
        page.close()
    with pytest.raises(pytest.fail.Exception, match="exited 2"):
        run_command(Block("x.md", 1, "bash", ""), ["rankstats", "rank", "missing.csv"], tmp_path)
