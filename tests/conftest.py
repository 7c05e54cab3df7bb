import json
import os
from pathlib import Path

# --- one BLAS thread per process ---------------------------------------------------------------
# The test processes already fill every core (xdist's -n auto; PyMC runs chains in processes of
# their own, the docs runner and the CLI tests start commands): OpenBLAS's threads on top only
# spin against them.  Measured on the 2-core machine (three slow-tier files, 2 workers): 72.6 s
# wall and 131 s CPU with OpenBLAS's default threads, 60.8 s and 109 s with one.  Set before
# NumPy is loaded, and inherited by every worker and command a test starts; an existing setting
# wins.  (rankstats limits the pairwise kernel to one thread itself: _util/blas_threads.py.)
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")


# --- the partition-function disk cache: one temporary folder per test run ---------------------
# rankstats keeps costly Mallows partition functions in ~/.cache/rankstats (partition_store.py):
# a test run must not write there, nor load what another version of the code left there.  The
# controller makes the folder and removes it at exit; xdist workers and every command a test
# starts inherit it (tests of the cache itself point it elsewhere with monkeypatch).
if "PYTEST_XDIST_WORKER" not in os.environ:
    import atexit
    import shutil
    import tempfile

    _cache = tempfile.mkdtemp(prefix="rankstats-test-cache-")
    os.environ["RANKSTATS_CACHE_DIR"] = _cache
    atexit.register(shutil.rmtree, _cache, ignore_errors=True)


# --- ArviZ 0.2x's daily stamp: written once, safely, before any worker imports ArviZ ----------
# Test modules import ArviZ and PyMC directly too; two workers importing them at the same moment
# on a fresh machine race on ArviZ's fixed temporary file (rankstats/_pymc/arviz_stamp.py).
from rankstats._pymc import arviz_stamp as _arviz_stamp  # noqa: E402

_arviz_stamp.settle()

import matplotlib  # noqa: E402  (after the BLAS setting: it loads NumPy)
import pytest  # noqa: E402

matplotlib.use("Agg")

# --- models (PyMC): one PyTensor compile cache for every test run, here and across runs -------
# Set before PyMC / PyTensor are imported.  An existing PYTENSOR_FLAGS wins.
os.environ.setdefault(
    "PYTENSOR_FLAGS",
    f"base_compiledir={Path(__file__).resolve().parents[1] / '.pytest_cache' / 'pytensor'}",
)


# --- pytest-xdist: which tests run together, and in which order ------------------------------
# A work unit is a test file (its module fixtures are built once), except that every page of the
# documentation runner is a unit of its own (a page's blocks share a directory and variables, so
# they stay together and in order): one file would put every docs block on one worker. Units go
# out longest first (tests/durations.json, the seconds each unit took; refreshed with
# ``pytest --record-durations``), so that no long unit starts last and leaves a core idle.
DURATIONS = Path(__file__).with_name("durations.json")
DOCS_RUNNER = "tests/test_docs_snippets.py::test_docs_block["


def recorded(config) -> dict[str, float]:
    """The recorded seconds of each unit in runs with this ``-m`` (default and slow runs differ)."""
    runs = json.loads(DURATIONS.read_text()) if DURATIONS.exists() else {}
    return runs.get(config.option.markexpr, {})


def work_unit(nodeid: str) -> str:
    """The file of a test, or file::page for a block of the documentation runner."""
    if nodeid.startswith(DOCS_RUNNER):
        page = nodeid[len(DOCS_RUNNER) :].rsplit(":", 1)[0]  # [page:line]
        return f"tests/test_docs_snippets.py::{page}"
    return nodeid.split("::", 1)[0]


def pytest_addoption(parser):
    parser.addoption(
        "--record-durations",
        action="store_true",
        help=f"add the seconds each work unit took to {DURATIONS.name} (xdist's order)",
    )


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    if config.option.dist != "loadfile":  # another --dist asked for on the command line
        return None
    from xdist.scheduler import LoadScopeScheduling

    known = recorded(config)

    class LongestFirst(LoadScopeScheduling):
        ordered = False

        def _split_scope(self, nodeid: str) -> str:
            return work_unit(nodeid)

        def _assign_work_unit(self, node) -> None:
            if not self.ordered:  # the first assignment: the queue is complete
                units = sorted(self.workqueue.items(), key=lambda u: -known.get(u[0], 1.0))
                self.workqueue.clear()
                self.workqueue.update(units)
                self.ordered = True
            super()._assign_work_unit(node)

    return LongestFirst(config, log)


class _Recorder:
    """Adds up the seconds of each work unit (setup + call + teardown) over the run."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    def pytest_runtest_logreport(self, report) -> None:
        unit = work_unit(report.nodeid)
        self.seconds[unit] = self.seconds.get(unit, 0.0) + report.duration

    def pytest_sessionfinish(self, session) -> None:
        if hasattr(session.config, "workerinput"):  # an xdist worker: the controller records
            return
        runs = json.loads(DURATIONS.read_text()) if DURATIONS.exists() else {}
        mark = session.config.option.markexpr
        runs[mark] = {**runs.get(mark, {}), **{u: round(s, 1) for u, s in self.seconds.items()}}
        runs[mark] = dict(sorted(runs[mark].items()))
        DURATIONS.write_text(json.dumps(runs, indent=1) + "\n")


def pytest_configure(config):
    if config.getoption("--record-durations", default=False):
        config.pluginmanager.register(_Recorder(), "record-durations")


def _sigint_ignored_by_the_os() -> bool | None:
    """Whether SIGINT is ignored at the OS level (a C library may set it behind Python's back)."""
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return None
    mask = next(line.split()[1] for line in status.splitlines() if line.startswith("SigIgn:"))
    return bool(int(mask, 16) & (1 << (2 - 1)))  # bit of signal 2


@pytest.fixture(autouse=True)
def _interrupt_handler_kept():
    """A test must leave Ctrl-C as it found it: a SIGINT ignored in this process is inherited by
    every command a later test starts (tests/cli/test_bad_input.py interrupts one)."""
    import signal

    before = signal.getsignal(signal.SIGINT), _sigint_ignored_by_the_os()
    yield
    after = signal.getsignal(signal.SIGINT), _sigint_ignored_by_the_os()
    if after != before:
        signal.signal(signal.SIGINT, before[0])
        pytest.fail(f"the test changed the SIGINT handling of the process: {before!r} -> {after!r}")
