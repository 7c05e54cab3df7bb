"""The built wheel is complete: installed outside the source tree, the README's command runs and the
model zoo loads.

A copy of the sources (``pyproject.toml``, ``README.md``, ``LICENSE``, ``rankstats/``) is built with
``pip wheel --no-deps`` in a temporary directory (nothing is written into the checkout), the wheel
is installed with ``--no-deps`` into a fresh venv, and the dependencies are made visible by a
``.pth`` line naming this interpreter's site-packages, never the source tree. The commands run from
a directory outside the checkout, and ``rankstats.__file__`` must be inside the new venv.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow

DATASETS = ["glue", "superglue", "xtreme", "tac08"]
MODELS = ["pl", "bt", "mallows"]
INSTALL = ["--no-deps", "--no-index", "-q"]


def _run(args: list[str], cwd: Path, env: dict[str, str], timeout: int = 600) -> str:
    done = subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    assert done.returncode == 0, f"{args} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    src = tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, src / name)
    # The package and the model zoo (the top-level models/, installed as rankstats.zoo_fits).
    for name in ("rankstats", "models"):
        shutil.copytree(
            ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
        )
    dist = tmp_path_factory.mktemp("dist")
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    _run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(src)],
        cwd=src,
        env=env,
    )
    (built,) = dist.glob("rankstats-*.whl")
    return built


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory) -> Path:
    """A fresh venv holding the wheel; dependencies from this interpreter's site-packages."""
    root = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    python = root / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    _run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", *INSTALL, str(wheel)],
        cwd=root,
        env=env,
    )
    # Plain path lines: the directory is appended to sys.path, but the .pth files inside it
    # (among them the editable install of the checkout) are not processed.
    deps = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    assert ROOT not in {Path(d).resolve() for d in deps}  # the source tree is never on the path
    (Path(purelib) / "zz_rankstats_test_deps.pth").write_text("\n".join(sorted(deps)) + "\n")
    return root


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "RANKSTATS_MODELS")}
    return {**env, "MPLBACKEND": "Agg"}


def test_wheel_holds_the_package_data(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    data = ROOT / "rankstats" / "datasets" / "data"
    expected = {
        f"rankstats/datasets/data/{p.relative_to(data).as_posix()}"
        for p in data.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert expected and expected <= names, sorted(expected - names)
    assert {
        "rankstats/reporting/references.bib",
        "rankstats/reporting/templates/report.html.j2",
    } <= names
    assert "rankstats/reporting/templates/report.css" in names
    fits = {f"rankstats/zoo_fits/{d}_{m}.nc" for d in DATASETS for m in MODELS}
    assert fits | {"rankstats/zoo_fits/README.md"} <= names, sorted(fits - names)


def test_installed_wheel_runs_outside_the_checkout(venv, tmp_path):
    bin_ = venv / "bin"
    env = _env()
    where = _run(
        [str(bin_ / "python"), "-c", "import rankstats; print(rankstats.__file__)"], tmp_path, env
    ).strip()
    assert Path(where).resolve().is_relative_to(venv.resolve()), where

    # The README's quick start (its install step is this test's fixture).
    _run(
        [str(bin_ / "rankstats"), "rank", "--dataset", "xtreme_missing", "--out", "out"],
        tmp_path,
        env,
    )
    for name in ("ranking.csv", "pairs.csv", "summary.json", "significance_heatmap.png"):
        assert (tmp_path / "out" / name).is_file(), name

    # The model zoo is installed with the package.
    code = (
        "import rankstats as rs\n"
        "from pathlib import Path\n"
        "from rankstats.models import zoo\n"
        "fit = rs.models.load('glue', 'pl')\n"
        "assert Path(zoo.default_directory()).resolve().is_relative_to("
        f"Path({str(venv.resolve())!r}))\n"
        "assert len(fit.order) == 105, len(fit.order)\n"
        "assert len(rs.models.load('xtreme', 'mallows').order) == 15\n"
        "print(fit.order[0])\n"
    )
    assert _run([str(bin_ / "python"), "-c", code], tmp_path, env).strip()
