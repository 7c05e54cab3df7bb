"""What rankings say about the order of the systems, checked before a rank model is fitted.

Issue 23, items 4, 6 and 11: disconnected comparison graphs under MAP (the prior alone orders
the groups), rankings that tie all their systems (no order information), empty rankings.  The
expected components are written out by hand from the design of each data set.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import rankstats as rs
from rankstats.errors import DataWarning, InvalidRankingsError

MODELS = [rs.models.PlackettLuce, rs.models.BradleyTerry]

# Two groups that never met: {a, b} and {c, d}; within each, the first beats the second 2:1.
TWO_GROUPS = [["a", "b"], ["b", "a"], ["a", "b"], ["c", "d"], ["d", "c"], ["c", "d"]]


@pytest.mark.parametrize("cls", MODELS)
def test_map_on_two_groups_warns_and_names_the_groups(cls):
    rk = rs.Rankings.from_orderings(TWO_GROUPS)
    with pytest.warns(DataWarning, match="prior") as record:
        fit = cls().fit(rk, method="map")
    text = " ".join(str(w.message) for w in record)
    assert "{a, b}" in text and "{c, d}" in text
    assert fit.info["n_groups"] == 2
    assert fit.info["groups"] == "{a, b}; {c, d}"
    # Within each group the order is the data's; across groups the worths of the winners are
    # equal by symmetry (the prior centres each group): a and c are tied exactly.
    assert fit.worth["a"] > fit.worth["b"] and fit.worth["c"] > fit.worth["d"]
    assert fit.worth["a"] == pytest.approx(fit.worth["c"], abs=1e-8)


@pytest.mark.parametrize("cls", MODELS)
def test_connected_data_give_no_group_warning(cls):
    rk = rs.Rankings.from_orderings([*TWO_GROUPS, ["b", "c"], ["c", "b"]])
    with warnings.catch_warnings():
        warnings.simplefilter("error", DataWarning)
        fit = cls().fit(rk, method="map")
    assert fit.info.get("n_groups", 1) == 1


@pytest.mark.parametrize("cls", MODELS)
@pytest.mark.parametrize("method", ["mle", "map"])
def test_all_tied_rankings_are_refused(cls, method):
    rk = rs.Rankings.from_orderings([[("a", "b", "c", "d")]] * 3)
    with pytest.raises(InvalidRankingsError, match="no order information"):
        cls().fit(rk, method=method)


@pytest.mark.parametrize("cls", MODELS)
def test_tied_rankings_among_informative_ones_are_reported(cls):
    rk = rs.Rankings.from_orderings(
        [["a", "b", "c"], ["b", "c", "a"], ["c", "a", "b"], [("a", "b", "c")]],
        names=["r1", "r2", "r3", "all-tied"],
    )
    with pytest.warns(DataWarning, match=r"1 ranking\(s\) tie all their systems.*all-tied"):
        cls().fit(rk, method="map")


def test_pl_system_only_in_tied_rankings_has_no_comparison():
    # c appears only in a ranking that ties everything: Plackett–Luce learns nothing about it.
    rk = rs.Rankings.from_orderings([["a", "b"], ["b", "a"], ["a", "b"], [("a", "c")]])
    with pytest.raises(rs.models.MLEDoesNotExistError, match="c"):
        rs.models.PlackettLuce().fit(rk, method="mle")
    with pytest.warns(DataWarning, match=r"no comparison at all: c\b"):
        fit = rs.models.PlackettLuce().fit(rk, method="map")
    assert fit.worth["c"] == pytest.approx(0.0, abs=1e-9)  # the prior's mean (centred)


def test_final_tie_group_is_no_comparison_for_pl():
    # c is only ever in the last place, tied with b: under Plackett–Luce (Efron) a final tie
    # group makes no choice, so c never beats anything and its MLE runs off to -infinity
    # (Hunter 2004, Assumption 1); Newton used to stop on a singular information matrix.
    rk = rs.Rankings.from_orderings([["a", ("b", "c")], ["b", "a"]] * 2)
    with pytest.raises(rs.models.MLEDoesNotExistError, match=r"never win \(nor tie\), 1: c"):
        rs.models.PlackettLuce().fit(rk, method="mle")
    # a tie above the last place is a comparison (Efron's terms pull b and c together)
    rk = rs.Rankings.from_orderings([[("b", "c"), "a"], ["a", "b"], ["b", "a"]])
    fit = rs.models.PlackettLuce().fit(rk, method="mle")
    assert np.isfinite(fit.worth).all()


def test_empty_orderings_are_refused():
    with pytest.raises(InvalidRankingsError, match="no orderings"):
        rs.Rankings.from_orderings([])


@pytest.mark.parametrize("cls", MODELS)
def test_fit_on_no_rankings_is_refused(cls):
    empty = rs.Rankings(
        np.empty((0, 3)), ("a", "b", "c"), rs.Rankings.from_orderings([["a", "b"]]).rankers[:0]
    )
    with pytest.raises(InvalidRankingsError, match="no ranking"):
        cls().fit(empty, method="map")


@pytest.mark.parametrize("method", ["mcmc", "map"])
def test_mallows_refuses_all_tied_and_empty_rankings(method):
    rk = rs.Rankings.from_orderings([[("a", "b", "c")], [("a", "b", "c")]])
    with pytest.raises(InvalidRankingsError, match="no order information"):
        rs.models.Mallows().fit(rk, method=method, draws=10, tune=0, chains=1)
    empty = rs.Rankings(np.empty((0, 2)), ("a", "b"), rk.rankers[:0])
    with pytest.raises(InvalidRankingsError, match="no rankings"):
        rs.models.Mallows().fit(empty, method=method, draws=10, tune=0, chains=1)
