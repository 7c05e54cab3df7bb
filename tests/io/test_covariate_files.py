"""Covariate tables read from files (issue 45, item 8): an empty file, and keys that differ
only by surrounding whitespace, are refused naming the file and its lines."""

from __future__ import annotations

import pytest

from rankstats.errors import InvalidScoresError
from rankstats.io.covariate_files import read_covariate_table, read_system_covariates


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
