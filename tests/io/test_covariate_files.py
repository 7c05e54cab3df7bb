"""Covariate tables read from files (:mod:`rankstats.io.covariate_files`): which columns are
categorical, the cells a numeric column refuses, named by line, key and value; an empty file, and
keys that differ only by surrounding whitespace, refused naming the file and its lines."""

from __future__ import annotations

import numpy as np
import pytest

from rankstats.errors import InvalidScoresError
from rankstats.io.covariate_files import read_covariate_table, read_system_covariates

HEADER = "farmer,season,year,maxTN\n"
ROWS = ["1,Ap - 15,2015,19.43", "2,Po - 15,2016,18.86", "3,Pr - 16,2016,18.375"]


def _file(tmp_path, rows=ROWS, header=HEADER):
    path = tmp_path / "covariates.csv"
    path.write_text(header + "\n".join(rows) + "\n")
    return path


def test_declared_categorical_columns_add_to_the_detected_ones(tmp_path):
    """Naming year (numbers) categorical keeps season (no number) categorical as well."""
    path = _file(tmp_path)
    table = read_covariate_table(path, categorical=["year"], detect_text=True)
    assert table["season"].tolist() == ["Ap - 15", "Po - 15", "Pr - 16"]
    assert table["year"].tolist() == ["2015", "2016", "2016"]
    np.testing.assert_array_equal(table["maxTN"], [19.43, 18.86, 18.375])
    detected = read_covariate_table(path, detect_text=True)
    assert detected["year"].dtype == np.float64
    assert detected["season"].tolist() == table["season"].tolist()


@pytest.mark.parametrize(
    ("cell", "shown"),
    [("inf", "'inf'"), ("-Infinity", "'-Infinity'"), ("18.x", "'18.x'"), ("NA", "'NA'")],
)
def test_a_numeric_column_with_a_bad_cell_is_refused_naming_it(tmp_path, cell, shown):
    rows = [*ROWS[:2], f"3,Pr - 16,2016,{cell}"]
    with pytest.raises(InvalidScoresError) as caught:
        read_covariate_table(_file(tmp_path, rows), categorical=["year"], detect_text=True)
    message = caught.value.cli()
    assert "\n" not in message
    for needle in ("column 'maxTN'", "line 4", "farmer '3'", shown, "--categorical year maxTN"):
        assert needle in message
    # declared categorical, the same column is read as its text
    table = read_covariate_table(_file(tmp_path, rows), categorical=["maxTN"], detect_text=True)
    assert table["maxTN"].tolist()[2] == cell


def test_every_bad_cell_is_counted_and_the_first_three_are_shown(tmp_path):
    rows = [f"{k},a,2015,{v}" for k, v in enumerate(["1", "x", "2", "inf", "y", "z", "w"], 1)]
    with pytest.raises(InvalidScoresError, match=r"5 cell\(s\).*'x'.*'inf'.*'y', and 2 more"):
        read_covariate_table(_file(tmp_path, rows), detect_text=True)


def test_system_covariates_stay_numeric_and_name_the_cell(tmp_path):
    path = _file(tmp_path, ["a,1,2,3", "b,4,5,inf"], header="system,x,y,z\n")
    with pytest.raises(InvalidScoresError, match=r"line 3 \(system 'b'\): 'inf'") as caught:
        read_system_covariates(path)
    assert "categorical" not in str(caught.value)
    text = _file(tmp_path, ["a,1,u,3", "b,4,v,5"], header="system,x,y,z\n")
    with pytest.raises(InvalidScoresError, match=r"column 'y' 2 cell\(s\) are not finite"):
        read_system_covariates(text)


@pytest.mark.parametrize("text", ["", "\n  \n\t"])
def test_an_empty_file_is_named_empty(tmp_path, text):
    path = tmp_path / "cov.csv"
    path.write_text(text)
    with pytest.raises(InvalidScoresError, match=f"file {path} is empty"):
        read_system_covariates(path)


def test_keys_differing_by_whitespace_are_refused_with_their_lines(tmp_path):
    path = tmp_path / "cov.csv"
    path.write_text("system,size\ngpt-4,1\nclaude,2\ngpt-4 ,3\n")
    with pytest.raises(InvalidScoresError) as err:
        read_covariate_table(path)
    assert "'gpt-4' (line 2) and 'gpt-4 ' (line 4)" in str(err.value)
    assert str(err.value).startswith(f"{path}: system names that differ only by")
    path.write_text("system,size\ngpt-4,1\nclaude,2\n")  # one spelling: read as before
    assert list(read_covariate_table(path).index) == ["gpt-4", "claude"]
