"""Every command and code block of README.md and docs/**/*.md runs (a doctest-style runner).

Collected: fenced ``bash``, ``console`` and ``python`` blocks; each is one test named
``page:line`` (the line of the opening fence). Everything of one page runs in order in one
temporary directory (``examples/`` and ``tests/`` are linked into it, so ``python examples/x.py``
works), with ``MPLBACKEND=Agg``:

- ``python`` blocks run in order, sharing their variables as the page is written (``rs`` is
  ``import rankstats as rs``, as everywhere in the guide): one namespace per page, in one Python
  process that serves every page (:data:`WORKER`);
- ``bash`` blocks: every command line runs (continuation lines joined, ``&&`` chains split,
  ``# comments`` dropped); ``rankstats`` (also ``.venv/bin/rankstats``) is this environment's
  ``rankstats.cli.main``, called in that same process, and ``python`` this interpreter in a new
  one; ``console`` blocks: only the ``$ `` lines run, the rest is
  printed output. Installing commands (``python3 -m venv``, ``pip install``) and the test suite
  itself (``python -m pytest``) are not re-run: tests/test_wheel.py installs the built wheel and
  runs the README's command, and CI step 1 is the README's install + test command. They are
  listed in :data:`NOT_RERUN`.

A block fails when a command exits with a non-zero status, a Python block raises, or the output or
the warnings say that a sampler or solver did not converge (a ``ConvergenceWarning``, "NOT
converged", "did not converge"): the documentation must not silently stop converging.

Markers, an HTML comment on the line(s) just before the fence (invisible on GitHub and in Sphinx):

- ``<!-- docs-test: slow -->``: run only with ``pytest -m slow`` (NUTS compiles, long samplers);
- ``<!-- docs-test: long -->``: run only with ``pytest -m long`` (commands of several seconds:
  CI runs them; the README's default run leaves them out);
- ``<!-- docs-test: long; pymc -->``: a long block that runs PyMC or ArviZ (a sampled fit and its
  summary): CI runs it on the second stack too, where the other long blocks are left out;
- ``<!-- docs-test: skip (reason) -->``: never run; the reason is required and the list is kept
  short (``pytest -rs`` prints it);
- ``<!-- docs-test: data NAME key=value ... -->``: writes the example input a block names as the
  reader's own file (``scores.csv``, ``scores/part-*.parquet``, ``wide.csv``) before it runs:
  ``columns=system,task,instance,score`` (the names of the four roles), ``tasks=A,B``,
  ``wide`` (one row per instance, one column per system); or ``from=NAME first=K``: the first
  ``K`` tasks of a bundled data set as a long CSV (a smaller input for the heaviest blocks);
- ``<!-- docs-test: replace "OLD" with "NEW" -->``: runs a smaller version of a command or block
  whose full size takes minutes (the 132 M-score simulation; fits of every model to all 1,140
  rankings of dialogue_tc): the same code path on less data, and it must converge as the full
  size does. The page's numbers come from the full size, as the page says;
- ``<!-- docs-test: same "COMMAND" as PAGE -->``: a command line that another page runs word for
  word (the README's tour repeats the guide's commands) is run there only; the runner checks that
  PAGE has a block that runs it, with no skip marker and wherever this block runs (not slow
  when this block is not, in the default run when this block is).

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
from pathlib import Path

import pandas as pd
import pytest
from docs_blocks import (  # the parsing, shared with .ci/snapshot_outputs.py
    Block,
    collect,
    commands,
    not_rerun,
    page_names,
    run_elsewhere,
    substituted,
    tier,
    write_data,
)

ROOT = Path(__file__).resolve().parents[1]
PAGES = page_names(ROOT)
TIMEOUT = 600  # seconds for one command or one Python block


BLOCKS = [b for page in PAGES for b in collect(ROOT, page)]


def _param(block: Block):
    marks = []
    skip = block.marker("skip")
    if skip:
        reason = skip[0].strip("() ")
        assert reason, f"{block.id}: a skip marker needs a reason"
        marks.append(pytest.mark.skip(reason=f"docs-test skip: {reason}"))
    if block.marker("slow"):
        marks.append(pytest.mark.slow)
    elif block.marker("long"):
        marks.append(pytest.mark.long)
    if block.marker("pymc"):
        marks.append(pytest.mark.pymc)
    return pytest.param(block, id=block.id, marks=marks)


# ------------------------------------------------------------------------------ markers
def check_run_elsewhere(block: Block) -> None:
    """Each ``same`` command is in this block and runs, word for word, on the page it names."""
    if not block.marker("same"):
        return
    assert block.kind in ("bash", "console"), f"{block.id}: a same marker needs a command block"
    mine = {tuple(w) for w in commands(block, substituted(block))}
    for words, page in run_elsewhere(block).items():
        assert words in mine, f"{block.id}: `{shlex.join(words)}` is not a command of the block"
        assert page != block.page and page in PAGES, f"{block.id}: no other page {page!r}"
        runs = [
            b
            for b in BLOCKS
            if b.page == page
            and b.kind in ("bash", "console")
            and not b.marker("skip")
            and not run_elsewhere(b)
            and tier(b) <= tier(block)
            and words in {tuple(w) for w in commands(b, substituted(b))}
        ]
        assert runs, f"{block.id}: no block of {page} runs `{shlex.join(words)}` in this stage"


# ------------------------------------------------------------------------------ running
# One Python process per pytest process runs every page's ``python`` blocks (one namespace per
# page, in the page's directory) and its ``rankstats`` commands (``rankstats.cli.main`` in the
# process, as tests/cli_run.py does): an interpreter start and the imports of pandas,
# matplotlib and rankstats are paid once, not once per page and per command (≈ 1.5 s each).
# ``python examples/x.py`` still runs in a process of its own.
WORKER = r"""
import contextlib, io, json, os, sys, traceback
protocol_in = os.fdopen(os.dup(0), "r")
protocol = os.fdopen(os.dup(1), "w")
null = os.open(os.devnull, os.O_RDONLY)
os.dup2(null, 0)  # a command reading standard input must not read the protocol
os.dup2(2, 1)  # what the blocks print goes to the log, not to the protocol
sys.stdout = sys.stderr
import matplotlib
matplotlib.use("Agg")
import re, warnings
NOT_CONVERGED = re.compile(NOT_CONVERGED_PATTERN)
RC = dict(matplotlib.rcParams)
namespaces = {}


def python(request):
    if request["page"] not in namespaces:
        matplotlib.rcParams.update(RC)  # a page starts as in a fresh process
        namespaces[request["page"]] = {"__name__": "__main__"}
        exec("import rankstats as rs", namespaces[request["page"]])
    namespace = namespaces[request["page"]]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(compile(request["source"], request["name"], "exec"), namespace)
    for w in caught:
        print(f"{w.category.__name__}: {w.message}", file=sys.stderr)
    bad = [
        f"{w.category.__name__}: {w.message}" for w in caught
        if w.category.__name__ == "ConvergenceWarning" or NOT_CONVERGED.search(str(w.message))
    ]
    return {"ok": not bad, "error": "did not converge: " + " | ".join(bad)}


def cli(request):
    from rankstats.cli import main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        with warnings.catch_warnings():
            warnings.simplefilter("always")  # every warning shown, as in a fresh process
            try:
                code = main(request["argv"])
            except SystemExit as exit_:  # argparse's own errors
                code = exit_.code if isinstance(exit_.code, int) else 1
    return {"ok": True, "code": code, "out": out.getvalue(), "err": err.getvalue()}


for request in protocol_in:
    request = json.loads(request)
    try:
        os.chdir(request["cwd"])
        answer = python(request) if request["op"] == "python" else cli(request)
    except BaseException:
        answer = {"ok": False, "error": traceback.format_exc()}
    import matplotlib.pyplot as plt
    plt.close("all")
    protocol.write(json.dumps(answer) + "\n")
    protocol.flush()
"""


# A block that "runs" but whose sampler or solver did not converge fails too.
NOT_CONVERGED = r"(?i)\bnot converged\b|did not converge"


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",)}
    env.update(MPLBACKEND="Agg", PYTHONUNBUFFERED="1")
    return env


class Worker:
    """The Python process that runs the blocks (started on first use, restarted if it dies)."""

    def __init__(self, log: Path) -> None:
        self.log = log
        self.process: subprocess.Popen | None = None

    def ask(self, block: Block, request: dict) -> dict:
        if self.process is None or self.process.poll() is not None:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    WORKER.replace("NOT_CONVERGED_PATTERN", repr(NOT_CONVERGED)),
                ],
                env=_env(),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.log.open("a"),
                text=True,
            )
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        ready, _, _ = select.select([self.process.stdout], [], [], TIMEOUT)
        if not ready:
            self.close()
            pytest.fail(f"{block.id}: no answer within {TIMEOUT} s")
        answer = self.process.stdout.readline()
        if not answer:
            self.close()
            pytest.fail(f"{block.id}: the Python process died\n{self.tail()}")
        return json.loads(answer)

    def tail(self, n: int = 3000) -> str:
        return self.log.read_text(errors="replace")[-n:] if self.log.exists() else ""

    def close(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None


class Page:
    """The working directory of one page, and the worker that runs its blocks."""

    def __init__(self, where: Path, worker: Worker) -> None:
        self.where = where
        self.worker = worker
        where.mkdir(parents=True, exist_ok=True)
        for name in ("examples", "tests"):
            (where / name).symlink_to(ROOT / name, target_is_directory=True)

    def python(self, block: Block, source: str) -> None:
        # Blank lines first: a traceback names the line of the page.
        request = {
            "op": "python",
            "page": block.page,
            "cwd": str(self.where),
            "source": "\n" * block.line + source,
            "name": str(ROOT / block.page),
        }
        answer = self.worker.ask(block, request)
        if not answer["ok"]:
            pytest.fail(
                f"{block.id} failed:\n{answer['error']}\n{self.worker.tail()}", pytrace=False
            )


def run_command(block: Block, words: list[str], page: Page) -> None:
    """One command line: ``rankstats`` in the page's worker, ``python`` in a new process."""
    program = Path(words[0]).name
    start = time.perf_counter()
    if program == "rankstats":
        request = {"op": "cli", "argv": words[1:], "cwd": str(page.where)}
        answer = page.worker.ask(block, request)
        if not answer["ok"]:
            pytest.fail(f"{block.id}: `{shlex.join(words)}` raised\n{answer['error']}")
        code, out, err = answer["code"], answer["out"], answer["err"]
    elif program in ("python", "python3"):
        done = subprocess.run(
            [sys.executable, *words[1:]],
            cwd=page.where,
            env=_env(),
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )
        code, out, err = done.returncode, done.stdout, done.stderr
    else:
        pytest.fail(f"{block.id}: the runner does not know how to run {words[0]!r}")
    if re.search(NOT_CONVERGED, out + err):
        pytest.fail(
            f"{block.id}: `{shlex.join(words)}` did not converge\n{out[-3000:]}\n{err[-3000:]}",
            pytrace=False,
        )
    if code != 0:
        pytest.fail(
            f"{block.id}: `{shlex.join(words)}` exited {code} after "
            f"{time.perf_counter() - start:.1f} s\n{out[-3000:]}\n{err[-3000:]}",
            pytrace=False,
        )


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    opened: dict[str, Page] = {}
    base = tmp_path_factory.mktemp("docs")
    worker = Worker(base / ".worker.log")

    def page(name: str) -> Page:
        if name not in opened:
            opened[name] = Page(base / name.replace("/", "__"), worker)
        return opened[name]

    yield page
    worker.close()


@pytest.mark.parametrize("block", [_param(b) for b in BLOCKS])
def test_docs_block(block: Block, pages):
    page = pages(block.page)
    for spec in block.marker("data"):
        write_data(spec, page.where)
    source = substituted(block)
    if block.kind == "python":
        page.python(block, source)
        return
    check_run_elsewhere(block)
    elsewhere = run_elsewhere(block)
    ran = 0
    for words in commands(block, source):
        if not_rerun(words) is None and tuple(words) not in elsewhere:
            run_command(block, words, page)
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
            assert m.split()[0].rstrip(":") in (
                "slow",
                "long",
                "pymc",
                "skip",
                "data",
                "replace",
                "same",
            ), (
                b.id,
                m,
            )
        check_run_elsewhere(b)


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
    again = Block("README.md", 3, "bash", "rankstats robustness --x 1\nrankstats rank a.csv")
    again.markers = ['same "rankstats robustness --x 1" as docs/user-guide/simulate.md']
    assert run_elsewhere(again) == {
        ("rankstats", "robustness", "--x", "1"): "docs/user-guide/simulate.md"
    }
    with pytest.raises(AssertionError, match=r"no block of docs/user-guide/simulate\.md runs"):
        check_run_elsewhere(again)  # simulate.md has no such command
    again.markers = ['same "rankstats rank b.csv" as docs/user-guide/simulate.md']
    with pytest.raises(AssertionError, match="is not a command of the block"):
        check_run_elsewhere(again)
    write_data("s.csv columns=model,metric,example,value tasks=BLEU,loss", tmp_path)
    frame = pd.read_csv(tmp_path / "s.csv")
    assert list(frame.columns) == ["model", "metric", "example", "value"]
    assert set(frame.metric) == {"BLEU", "loss"}


def test_a_failing_block_fails(tmp_path):
    worker = Worker(tmp_path / "worker.log")
    page = Page(tmp_path / "page", worker)
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
        with pytest.raises(pytest.fail.Exception, match="exited 2"):
            run_command(Block("x.md", 1, "bash", ""), ["rankstats", "rank", "missing.csv"], page)
        with pytest.raises(pytest.fail.Exception, match="exited 1"):
            run_command(Block("x.md", 1, "bash", ""), ["python", "-c", "raise SystemExit(1)"], page)
        # A page's variables are its own; the worker is shared.
        other = Page(tmp_path / "other", worker)
        with pytest.raises(pytest.fail.Exception, match="NameError"):
            other.python(Block("y.md", 1, "python", "x"), "x")
    finally:
        worker.close()


def test_each_page_is_a_work_unit_of_its_own():
    """tests/conftest.py gives xdist one unit per page (its blocks stay together and in order)."""
    from conftest import work_unit

    assert work_unit("tests/test_docs_snippets.py::test_docs_block[docs/user-guide/cli.md:71]") == (
        "tests/test_docs_snippets.py::docs/user-guide/cli.md"
    )
    assert work_unit("tests/test_docs_snippets.py::test_docs_block[README.md:15]") == (
        "tests/test_docs_snippets.py::README.md"
    )
    assert work_unit("tests/core/test_scores.py::test_x[a::b]") == "tests/core/test_scores.py"
    units = {work_unit(f"tests/test_docs_snippets.py::test_docs_block[{b.id}]") for b in BLOCKS}
    assert len(units) == len(PAGES) - sum(not collect(ROOT, p) for p in PAGES)
