"""Every bundled data set loads with the shape its provenance line states."""

import warnings

import pytest

import rankstats as rs

SHAPES = {  # systems, tasks (from shared/data/README.md)
    "glue": (105, 14),
    "superglue": (24, 14),
    "xtreme": (15, 4),
    "xtreme_missing": (15, 4),
    "xtreme_table5": (10, 4),
    "openclip": (121, 38),
    "tac08": (62, 15),
    "tac09": (59, 15),
    "tac11": (54, 15),
    "summeval": (16, 17),
    "realsumm": (25, 15),
    "dialogue_pc": (4, 19),
    "dialogue_tc": (5, 19),
    "flickr": (8, 14),
}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_load(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rs.DataWarning)  # xtreme_table5: M5 evaluated nowhere
        s = rs.load_dataset(name)
    assert (s.n_systems, s.n_tasks) == SHAPES[name]
    assert s.has_instances == (rs.datasets.DATASETS[name].level == "instance")


def test_missing_cells():
    assert len(rs.load_dataset("xtreme_missing").data) == 15 * 4 - 7
    with pytest.warns(rs.DataWarning, match="M5"):
        s = rs.load_dataset("xtreme_table5")
    assert len(s.data) == 40 - 18 and s.unevaluated_systems == ("M5",)


def test_listing_and_unknown_name():
    assert set(rs.list_datasets()["name"]) == set(SHAPES)
    with pytest.raises(KeyError, match="unknown data set 'mnist'"):
        rs.load_dataset("mnist")
