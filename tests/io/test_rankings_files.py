"""Rankings files read by the one reader: PrefLib (.soc / .soi / .toc / .toi), rank-matrix and
orderings CSVs, pairwise preferences. Expected rankings are written by hand from the files (or
built by a second route: ``Rankings.from_orderings`` on the bundled NASCAR data); every bad file
is refused naming its line."""

import bz2
import gzip
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rankstats as rs
from rankstats import InvalidRankingsError
from rankstats.datasets import data_path
from rankstats.errors import DataWarning, UnreadableFileError

NAN = np.nan
DATA = data_path("rankings")  # the bundled classic rankings data sets

# Five 2023 Formula 1 Grands Prix, the first five finishers of each (Bahrain, Saudi Arabia,
# Australia, Azerbaijan, Miami), written by hand in the PrefLib format of 2022: incomplete
# strict orders (top 5 of 8 drivers), so .soi.
F1 = """\
# FILE NAME: f1-2023.soi
# TITLE: 2023 Formula 1, first five races, top five
# DESCRIPTION: first five finishers of each race
# DATA TYPE: soi
# MODIFICATION TYPE: original
# RELATES TO:
# RELATED FILES:
# PUBLICATION DATE: 2026-11-25
# MODIFICATION DATE: 2026-11-25
# NUMBER ALTERNATIVES: 8
# NUMBER VOTERS: 5
# NUMBER UNIQUE ORDERS: 5
# ALTERNATIVE NAME 1: Max Verstappen
# ALTERNATIVE NAME 2: Sergio Perez
# ALTERNATIVE NAME 3: Fernando Alonso
# ALTERNATIVE NAME 4: Carlos Sainz
# ALTERNATIVE NAME 5: Lewis Hamilton
# ALTERNATIVE NAME 6: George Russell
# ALTERNATIVE NAME 7: Lance Stroll
# ALTERNATIVE NAME 8: Charles Leclerc
1: 1,2,3,4,5
1: 2,1,3,6,5
1: 1,5,3,7,2
1: 2,1,8,3,4
1: 1,2,3,6,4
"""
F1_RANKS = [  # Ver, Per, Alo, Sai, Ham, Rus, Str, Lec: hand-transcribed from the lines above
    [1, 2, 3, 4, 5, NAN, NAN, NAN],
    [2, 1, 3, NAN, 5, 4, NAN, NAN],
    [1, 5, 3, NAN, 2, NAN, 4, NAN],
    [2, 1, 4, 5, NAN, NAN, NAN, 3],
    [1, 2, 3, 5, NAN, 4, NAN, NAN],
]


def _header(kind: str, names: list[str], voters: int | None = None, orders: int | None = None):
    lines = [f"# DATA TYPE: {kind}", f"# NUMBER ALTERNATIVES: {len(names)}"]
    if voters is not None:
        lines.append(f"# NUMBER VOTERS: {voters}")
    if orders is not None:
        lines.append(f"# NUMBER UNIQUE ORDERS: {orders}")
    lines += [f"# ALTERNATIVE NAME {k}: {n}" for k, n in enumerate(names, 1)]
    return "\n".join(lines) + "\n"


def _write(path: Path, text: str | bytes) -> Path:
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


# ---------------------------------------------------------------------------- PrefLib
def test_f1_races_in_preflib_soi(tmp_path):
    rk = rs.read_rankings(_write(tmp_path / "f1-2023.soi", F1))
    assert rk.systems[:3] == ("Max Verstappen", "Sergio Perez", "Fernando Alonso")
    np.testing.assert_array_equal(rk.ranks, np.array(F1_RANKS, dtype=float))
    assert list(rk.rankers) == [(k, 1) for k in range(21, 26)]  # (line, voter)


def test_counts_become_repeated_rankings_and_ties_share_mid_ranks(tmp_path):
    text = _header("toc", ["a", "b", "c", "d"], voters=5, orders=2) + "3: 1,{2,3},4\n2: 4,3,2,1\n"
    rk = rs.read_rankings(_write(tmp_path / "x.toc", text))
    expected = [[1, 2.5, 2.5, 4]] * 3 + [[4, 3, 2, 1]] * 2
    np.testing.assert_array_equal(rk.ranks, np.array(expected, dtype=float))
    assert list(rk.rankers) == [(9, 1), (9, 2), (9, 3), (10, 1), (10, 2)]


def test_toi_incomplete_orders_are_sub_rankings(tmp_path):
    text = _header("toi", ["a", "b", "c", "d"]) + "1: {3,1}\n1: 2,4,1\n"
    rk = rs.read_rankings(_write(tmp_path / "x.toi", text))
    np.testing.assert_array_equal(
        rk.ranks, np.array([[1.5, NAN, 1.5, NAN], [3, 1, NAN, 2]], dtype=float)
    )


def test_soc_file_and_unlisted_alternative_kept(tmp_path):
    text = _header("soc", ["x", "y"]) + "2: 2,1\n"
    rk = rs.read_rankings(_write(tmp_path / "x.soc", text))
    np.testing.assert_array_equal(rk.ranks, [[2.0, 1.0], [2.0, 1.0]])


def test_skaters_toc_bundled_preflib_file():
    rk = rs.read_rankings(DATA / "skaters.toc")
    assert rk.n_rankings == 9 and rk.n_systems == 30
    # Last line of the file: "..., 5,{22,24},7, ...": places 15 and 16 shared (written by hand).
    last = rk.to_frame().iloc[-1]
    assert last["Cornel Gheorghe"] == last["Thierry Cerez"] == 15.5
    assert last["Alexei Yagudin"] == 1.0


def test_compressed_and_latin1_preflib(tmp_path):
    text = _header("soc", ["Müller", "b"]) + "1: 1,2\n"
    gz = _write(tmp_path / "x.soc.gz", gzip.compress(text.encode("utf-8")))
    assert rs.read_rankings(gz).systems == ("Müller", "b")
    bz = _write(tmp_path / "y.soc", bz2.compress(text.encode("utf-8")))
    assert rs.read_rankings(bz).systems == ("Müller", "b")
    latin = _write(tmp_path / "z.soc", text.encode("latin-1"))
    with pytest.raises(UnreadableFileError, match=r"not valid UTF-8 .*line 3"):
        rs.read_rankings(latin)
    assert rs.read_rankings(latin, encoding="latin-1").systems == ("Müller", "b")


@pytest.mark.parametrize(
    ("suffix", "body", "pattern"),
    [
        ("soc", "1: 1,2\n", r"line 6: the order lists 2 of the 3 alternatives \(missing 3 \(c\)\)"),
        ("soc", "1: 1,{2,3}\n", r"line 6: a tie \{2,3\} in a .soc file"),
        ("soi", "1: 1,4\n", r"line 6: alternative\(s\) 4 are not among the 3"),
        ("toi", "1: 1,2,1\n", r"line 6: alternative\(s\) 1 \(a\) appear twice"),
        ("toi", "0: 1,2\n", r"line 6: the count 0 is not a positive"),
        ("toi", "1 1,2\n", r"line 6: '1 1,2' is not an order"),
        ("toi", "1: 1,,2\n", r"line 6: .* is not an order"),
        ("toi", "1: 1,{}\n", r"line 6: .* is not an order"),
        ("toi", "1: 1,2\n# TITLE: late\n", r"line 7: a '#' metadata line after the orders"),
        ("toi", "", r"no order line"),
    ],
)
def test_bad_preflib_orders_name_the_line(tmp_path, suffix, body, pattern):
    path = _write(tmp_path / f"x.{suffix}", _header(suffix, ["a", "b", "c"]) + body)
    with pytest.raises(InvalidRankingsError, match=pattern):
        rs.read_rankings(path)


def test_bad_preflib_headers_name_the_line(tmp_path):
    cases = {
        "voters": (_header("soi", ["a", "b"], voters=3) + "2: 1,2\n", r"line 3: NUMBER VOTERS"),
        "orders": (
            _header("soi", ["a", "b"], orders=2) + "2: 1,2\n",
            r"line 3: NUMBER UNIQUE ORDERS is 2 but the orders below add up to 1",
        ),
        "type": (_header("toc", ["a", "b"]) + "1: 1,2\n", r"line 1: DATA TYPE toc disagrees"),
        "same name": (_header("soi", ["a", "a"]) + "1: 1,2\n", r"line 4: alternatives 1 and 2"),
        "unnamed": (
            "# DATA TYPE: soi\n# NUMBER ALTERNATIVES: 3\n# ALTERNATIVE NAME 1: a\n1: 1\n",
            r"2 alternative\(s\) of the 3 have no '# ALTERNATIVE NAME' line, e.g. 2, 3",
        ),
        "huge": (
            "# DATA TYPE: soi\n# NUMBER ALTERNATIVES: 999999999\n# ALTERNATIVE NAME 1: a\n1: 1\n",
            r"999999998 alternative\(s\) of the 999999999 have no .* e.g. 2, 3, 4",
        ),
        "zero": (
            "# DATA TYPE: soi\n# ALTERNATIVE NAME 0: a\n# ALTERNATIVE NAME 1: b\n1: 1\n",
            r"line 2: alternative 0: PrefLib numbers alternatives from 1",
        ),
        "legacy": ("3\n1,a\n2,b\n3,c\n", r"line 1: .*PrefLib format before 2022"),
    }
    for name, (text, pattern) in cases.items():
        path = _write(tmp_path / f"{name.replace(' ', '_')}.soi", text)
        with pytest.raises(InvalidRankingsError, match=pattern):
            rs.read_rankings(path)


def test_unreadable_preflib_files(tmp_path):
    with pytest.raises(UnreadableFileError, match="empty"):
        rs.read_rankings(_write(tmp_path / "e.soc", ""))
    with pytest.raises(UnreadableFileError, match="truncated or corrupt gzip"):
        rs.read_rankings(_write(tmp_path / "t.soc", gzip.compress(F1.encode())[:40]))
    with pytest.raises(FileNotFoundError):
        rs.read_rankings(tmp_path / "absent.soc")


# ---------------------------------------------------------------------------- CSV formats
def test_rank_matrix_csv(tmp_path):
    path = _write(tmp_path / "m.csv", "ranker,a,b,c\nr1,1,2,3\nr2,3,,1\nr3,1,1,2\n")
    rk = rs.read_rankings(path, format="rank-matrix")
    np.testing.assert_array_equal(
        rk.ranks, np.array([[1, 2, 3], [2, NAN, 1], [1.5, 1.5, 3]], dtype=float)
    )
    assert list(rk.rankers) == ["r1", "r2", "r3"] and rk.systems == ("a", "b", "c")


def test_rank_matrix_equals_the_bundled_loader():
    """Second route: rs.load_rankings reads potato_visual.csv with pandas."""
    rk = rs.read_rankings(DATA / "potato_visual.csv", format="rank-matrix", ranker="assessor")
    ref = rs.load_rankings("potato_visual")
    assert rk.systems == ref.systems
    np.testing.assert_array_equal(rk.ranks, ref.ranks)


def test_orderings_csv_and_the_nascar_season():
    rk = rs.read_rankings(DATA / "nascar_orderings.csv", format="orderings", ranker="race")
    ref = rs.load_rankings("nascar")  # driver names; Rankings.from_orderings
    drivers = pd.read_csv(DATA / "nascar_drivers.csv")
    names = dict(zip(drivers["driver_id"].astype(str), drivers["driver"].astype(str), strict=True))
    mine = rk.to_frame().rename(columns=names)
    theirs = ref.to_frame()[mine.columns]
    np.testing.assert_array_equal(mine.to_numpy(), theirs.to_numpy())


def test_orderings_csv_short_rows_are_sub_rankings(tmp_path):
    path = _write(tmp_path / "o.csv", "first,second,third\na,b,c\nc,a,\n")
    rk = rs.read_rankings(path, format="orderings")
    np.testing.assert_array_equal(rk.ranks, np.array([[1, 2, 3], [2, NAN, 1]], dtype=float))


@pytest.mark.parametrize(
    ("fmt", "text", "pattern", "options"),
    [
        ("orderings", "p1,p2,p3\na,,c\n", r"empty cell before a name \(line 2\)", {}),
        ("orderings", "p1,p2\na,b\nb,b\n", r"list a system twice \(line 3: 'b'\)", {}),
        ("orderings", "p1,p2\na,b\nb ,a\n", r"'b' \(line 2\) and 'b ' \(line 3\)", {}),
        ("rank-matrix", "a,b\n1,2\nx,1\n", r"column 'a' are not ranks \(line 3: 'x'\)", {}),
        ("rank-matrix", "a,b\n1,2\nNA,1\n", r"na_values=\['NA'\]", {}),
        ("rank-matrix", "a,a \n1,2\n", r"'a' \(column 1\) and 'a ' \(column 2\)", {}),
        (
            "rank-matrix",
            "r,a\nx,1\nx,2\n",
            r"repeats a label \(line 2: 'x', line 3: 'x'\)",
            {"ranker": "r"},
        ),
        ("rank-matrix", "a,b\n", r"header but no rows", {}),
        ("orderings", "a,b\n1,2\n", r"no column 'who' for ranker='who'", {"ranker": "who"}),
    ],
)
def test_bad_csv_rankings_name_the_line(tmp_path, fmt, text, pattern, options):
    path = _write(tmp_path / "bad.csv", text)
    with pytest.raises(InvalidRankingsError, match=pattern):
        rs.read_rankings(path, format=fmt, **options)


def test_csv_format_must_be_said(tmp_path):
    path = _write(tmp_path / "m.csv", "a,b\n1,2\n")
    with pytest.raises(ValueError, match=r"format='rank-matrix'.*format='orderings'"):
        rs.read_rankings(path)
    with pytest.raises(ValueError, match="format must be one of"):
        rs.read_rankings(path, format="xlsx")


# ---------------------------------------------------------------------------- pairwise
def test_paired_comparisons_counted_by_hand(tmp_path):
    path = _write(
        tmp_path / "p.csv",
        "assessor,preferred,other\n1,a,b\n1,b,c\n2,b,a\n2,a,b\n3,c,a\n3,c,b\n",
    )
    counts = rs.read_paired_comparisons(path)
    expected = pd.DataFrame(
        {
            "item1": ["a", "b", "a"],
            "item2": ["b", "c", "c"],
            "wins1": [2, 1, 0],
            "wins2": [1, 1, 1],
        }
    )
    pd.testing.assert_frame_equal(
        counts.sort_values(["item1", "item2"]).reset_index(drop=True),
        expected.sort_values(["item1", "item2"]).reset_index(drop=True),
        check_dtype=False,
    )


def test_beach_preferences_equal_the_bundled_loader():
    """The bundled loader keeps one row per preference; BT fits of both agree (MLE)."""
    counts = rs.read_paired_comparisons(
        DATA / "beach_preferences.csv", preferred="top_item", other="bottom_item"
    )
    raw = pd.read_csv(DATA / "beach_preferences.csv")
    assert counts["wins1"].sum() + counts["wins2"].sum() == len(raw)
    a = rs.models.BradleyTerry().fit(counts, method="map")
    b = rs.models.BradleyTerry().fit(rs.load_paired("beach"), method="map")
    pd.testing.assert_series_equal(
        a.worth.sort_index(), b.worth.sort_index(), check_names=False, atol=1e-6
    )


def test_bad_paired_comparisons(tmp_path):
    same = _write(tmp_path / "s.csv", "preferred,other\na,b\nc,c\n")
    with pytest.raises(InvalidRankingsError, match=r"prefer a system to itself \(line 3: 'c'\)"):
        rs.read_paired_comparisons(same)
    blank = _write(tmp_path / "b.csv", "preferred,other\na,b\n,c\n")
    with pytest.raises(InvalidRankingsError, match=r"empty 'preferred' key \(line 3\)"):
        rs.read_paired_comparisons(blank)
    spaced = _write(tmp_path / "w.csv", "preferred,other\na,b\nb,a \n")
    with pytest.raises(InvalidRankingsError, match=r"'a' \(line 2\) and 'a ' \(line 3\)"):
        rs.read_paired_comparisons(spaced)
    with pytest.raises(InvalidRankingsError, match=r"no column 'winner' for preferred='winner'"):
        rs.read_paired_comparisons(spaced, preferred="winner")


def test_preflib_type_from_the_header_or_the_format_argument(tmp_path):
    text = _header("toi", ["a", "b", "c"]) + "1: {1,2}\n"
    path = _write(tmp_path / "votes.txt", text)
    with pytest.raises(ValueError, match=r"the name does not say"):
        rs.read_rankings(path)
    expected = np.array([[1.5, 1.5, NAN]])
    np.testing.assert_array_equal(rs.read_rankings(path, format="preflib").ranks, expected)
    np.testing.assert_array_equal(rs.read_rankings(path, format="toi").ranks, expected)
    with pytest.raises(InvalidRankingsError, match=r"line 1: DATA TYPE toi disagrees"):
        rs.read_rankings(path, format="soi")


def test_an_orderings_column_that_shares_no_name_is_warned_about(tmp_path):
    """PlackettLuce's beans orderings carry a ``kind`` column ("trio", "vs_local"): read as a
    place, its words would be systems ranked only first. Warned, naming it; a file whose
    columns share names reads without a warning, and repeated rankers pass when asked."""
    path = tmp_path / "beans_like.csv"
    path.write_text(
        "farmer,kind,first,second,third\n1,trio,a,b,c\n1,vs_local,Local,a,\n2,trio,c,a,b\n"
    )
    with pytest.warns(DataWarning, match=r"column 'kind' shares no name.*'trio', 'vs_local'"):
        rs.read_rankings(path, "orderings", ranker="farmer", several_per_ranker=True)
    clean = tmp_path / "clean.csv"
    clean.write_text("farmer,first,second,third\n1,a,b,c\n1,Local,a,\n2,c,a,b\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rk = rs.read_rankings(clean, "orderings", ranker="farmer", several_per_ranker=True)
    assert rk.rankers.tolist() == ["1", "1", "2"]
    with pytest.raises(InvalidRankingsError, match="repeats a label"):
        rs.read_rankings(clean, "orderings", ranker="farmer")


def test_a_preflib_file_named_otherwise_is_not_read_as_scores(tmp_path):
    """A PrefLib file saved as .txt: the score reader recognises its first line and says how to
    read it (it blamed the missing 'system' column); read as PrefLib, it is the bundled file."""
    path = tmp_path / "skaters.txt"
    path.write_bytes(data_path("rankings/skaters.toc").read_bytes())
    with pytest.raises(rs.InvalidScoresError, match="opens a PrefLib rankings file") as err:
        rs.read_scores(path)
    assert "read_rankings(path, format='preflib')" in str(err.value)
    as_preflib = rs.read_rankings(path, format="preflib")
    bundled = rs.read_rankings(data_path("rankings/skaters.toc"))
    np.testing.assert_array_equal(as_preflib.ranks, bundled.ranks)
