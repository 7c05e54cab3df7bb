"""``rankstats fit --system-covariates FILE [--random-effect]``: the coefficients written equal the
library's fit, and every misuse is one error line with exit code 2, before any fitting."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from cli_run import one_error_line, run
from scipy import stats

import rankstats as rs


@pytest.fixture()
def covariates_file(tmp_path):
    scores = rs.load_dataset("xtreme")
    rng = np.random.default_rng(4)
    table = pd.DataFrame({"system": scores.systems, "size": rng.normal(size=len(scores.systems))})
    table.loc[2, "size"] = np.nan  # a missing covariate: that system keeps its own log-worth
    path = tmp_path / "covariates.csv"
    table.to_csv(path, index=False)
    return path, table.set_index("system")


def test_the_coefficients_written_are_the_fit(tmp_path, capsys, covariates_file) -> None:
    path, table = covariates_file
    out = tmp_path / "out"
    argv = ["fit", "--dataset", "xtreme", "--method", "mle", "--system-covariates", str(path)]
    code, stdout, err = run([*argv, "--random-effect", "--out", str(out), "--no-figures"], capsys)
    assert code == 0, err
    written = pd.read_csv(out / "pl_coefficients.csv").set_index("parameter")
    fit = rs.models.PlackettLuce(covariates=table, random_effect=True).fit(
        rs.load_dataset("xtreme"), method="mle"
    )
    own = f"own: {table.index[2]}"
    assert list(written.index) == ["beta: size", own, "sigma"]
    for name in written.index:
        assert written.loc[name, "estimate"] == pytest.approx(fit.parameters[name], abs=1e-9)
        assert written.loc[name, "se"] == pytest.approx(fit.parameters[f"{name}_se"], abs=1e-9)
        wald = stats.norm.interval(
            0.95, loc=fit.parameters[name], scale=fit.parameters[f"{name}_se"]
        )
        assert written.loc[name, ["low", "high"]].tolist() == pytest.approx(wald, abs=1e-9)
    assert "--system-covariates size, --random-effect" in stdout


def test_the_random_effect_by_pql(tmp_path, capsys, covariates_file) -> None:
    """``--method pql``: BradleyTerry2's estimator of σ, named in the summary, the same fit as
    the library's ``method="pql"``."""
    path, table = covariates_file
    out = tmp_path / "out"
    argv = ["fit", "--dataset", "xtreme", "--model", "bt", "--method", "pql"]
    argv += ["--system-covariates", str(path), "--random-effect", "--out", str(out), "--no-figures"]
    code, stdout, err = run(argv, capsys)
    assert code == 0, err
    written = pd.read_csv(out / "bt_coefficients.csv").set_index("parameter")
    fit = rs.models.BradleyTerry(covariates=table, random_effect=True).fit(
        rs.load_dataset("xtreme"), method="pql"
    )
    assert fit.info["estimator"] == "pql"
    for name in written.index:
        assert written.loc[name, "estimate"] == pytest.approx(fit.parameters[name], abs=1e-9)
    assert "Laplace approximation at the PQL estimates" in stdout


@pytest.mark.parametrize(
    ("extra", "needles"),
    [
        (["--method", "pql", "--random-effect"], ["--method pql"]),
        (["--method", "pql"], ["--method pql", "--random-effect", "--method mle"]),
        (["--model", "mallows"], ["--system-covariates", "pl/bt"]),
        (["--method", "map"], ["--system-covariates", "mle or nuts"]),
        (["--model", "pl", "bt", "--compare"], ["--compare", "compare_fits"]),
    ],
)
def test_misuse_is_one_line(tmp_path, capsys, covariates_file, extra, needles) -> None:
    path, _ = covariates_file
    out = tmp_path / "out"
    argv = ["fit", "--dataset", "xtreme", "--out", str(out), *extra]
    if extra[:3] != ["--method", "pql", "--random-effect"]:
        argv += ["--system-covariates", str(path)]
    else:  # --method pql with --compare (which takes no --random-effect) and --kfold
        argv = ["fit", "--dataset", "xtreme", "--out", str(out), "--model", "pl", "bt"]
        argv += ["--compare", "--kfold", "2", "--method", "pql"]
    code, _, err = run(argv, capsys)
    assert code == 2
    one_error_line(err, "fit", *needles)
    assert not out.exists()


def test_bad_files_are_named(tmp_path, capsys) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("system,size\nXLM-R,1.5\nmT5,big\n")
    out = tmp_path / "out"
    argv = ["fit", "--dataset", "xtreme", "--method", "mle", "--out", str(out)]
    code, _, err = run([*argv, "--system-covariates", str(bad)], capsys)
    assert code == 2
    one_error_line(err, "fit", "bad.csv", "line 3", "'size'", "'big'")
    code, _, err = run(
        [*argv, "--system-covariates", str(bad), "--covariate-columns", "age"], capsys
    )
    assert code == 2
    one_error_line(err, "fit", "no covariate column 'age'", "--covariate-columns")
    unknown = tmp_path / "unknown.csv"
    unknown.write_text("system,size\nnobody,1.5\n")
    code, _, err = run([*argv, "--system-covariates", str(unknown)], capsys)
    assert code == 2
    one_error_line(err, "fit", "'nobody'")
    assert not out.exists()
