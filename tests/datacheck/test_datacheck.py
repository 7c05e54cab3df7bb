"""The data check (issue 23): each detector fires where it must and stays quiet where it must
not, with expectations computed independently of the detectors (pandas / NumPy on the raw
table); aggregate and metadata columns of a wide table are refused (item 9); the real open_clip
and AutoML benchmark files."""

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rankstats as rs
from rankstats.core import wide_columns as _columns
from rankstats.datasets import data_path
from rankstats.errors import InvalidScoresError

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "outside"
OPENCLIP = data_path("openclip_results.csv")  # bundled: a byte-for-byte copy of DATA's
AMLB = DATA / "amlb2019_4h_all_results.csv"
NOT_TASKS = ["params (M)", "FLOPs (B)", "Average perf. on 38 datasets"]


def _board(n=40, k=6, seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(rng.uniform(0.2, 0.9, (n, k)), columns=[f"t{j}" for j in range(k)])
    df.insert(0, "system", [f"s{i}" for i in range(n)])
    return df


def _kinds(check):
    return [f.kind for f in check.findings]


def _quiet_check(data, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rs.DataWarning)
        return rs.check_data(data, **options)


# ---------------------------------------------------------------------------- item 9: columns
def test_row_mean_with_rounding_and_missing_cells_is_refused():
    df = _board()
    tasks = [f"t{j}" for j in range(6)]
    df.loc[[3, 7], "t2"] = np.nan
    df["Headline"] = df[tasks].mean(axis=1).round(4)  # pandas skips the empty cells
    with pytest.raises(InvalidScoresError, match="'Headline' equals the row mean of the 6"):
        rs.Scores.from_wide(df)
    (found,) = _columns.find(df, [*tasks, "Headline"])
    expected = (df["Headline"] - df[tasks].mean(axis=1)).abs().max()  # independent: pandas
    assert found.statistic == "mean" and found.deviation == pytest.approx(expected, abs=1e-12)
    assert 0 < found.deviation <= 5e-5
    kept = rs.Scores.from_wide(df, drop_columns=["Headline"])
    assert kept.tasks == tuple(tasks)


def test_median_and_sum_are_found_and_a_correlated_task_is_not():
    df = _board(seed=1)
    rng = np.random.default_rng(2)
    mean = df[[f"t{j}" for j in range(6)]].mean(axis=1)
    # strongly correlated with the mean, but 10 % of its spread away: a task
    df["close"] = mean + rng.normal(0, 0.1 * mean.std(), len(df))
    tasks = [*(f"t{j}" for j in range(6)), "close"]
    frame = df.assign(med=df[tasks].median(axis=1), tot=df[tasks].sum(axis=1))
    found = {f.column: f.statistic for f in _columns.find(frame, [*tasks, "med", "tot"])}
    assert found == {"med": "median", "tot": "sum"}


def test_leave_one_out_median_against_pandas():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(30, 7))
    x[rng.uniform(size=x.shape) < 0.2] = np.nan
    count = (~np.isnan(x)).sum(axis=1)
    got = _columns._medians_without(x, count)
    frame = pd.DataFrame(x)
    for j in range(7):  # independent: pandas' median of the other columns
        expected = frame.drop(columns=j).median(axis=1)
        rows = ~np.isnan(x[:, j]) & (count > 1)
        np.testing.assert_allclose(got[rows, j], expected[rows], rtol=0, atol=1e-12)


def test_a_task_between_two_others_is_not_their_median():
    """With three tasks, one that lies between the other two in every row is the median of all
    three, but not of the other two (their mean): a task."""
    rng = np.random.default_rng(4)
    low = rng.uniform(0.1, 0.4, 20)
    df = pd.DataFrame({"a": low, "b": low + rng.uniform(0.1, 0.2, 20), "c": low + 0.4})
    assert _columns.find(df, ["a", "b", "c"]) == []


def test_names_of_aggregates_and_metadata():
    flagged = {
        "Average perf. on 38 datasets": "aggregate",
        "Avg. rank": "aggregate",
        "Overall": "aggregate",
        "macro avg": "aggregate",
        "Mean": "aggregate",
        "params (M)": "metadata",
        "#Params": "metadata",
        "n_parameters": "metadata",
        "FLOPs (B)": "metadata",
        "GMACs": "metadata",
        "release date": "metadata",
        "Model size (GB)": "metadata",
        "Latency (ms)": "metadata",
        "year": "metadata",
    }
    tasks = ["MNLI-m", "Date Understanding", "Mean Reciprocal Rank", "Average Precision",
             "Time series", "SST-2", "BERTScore", "CoLA"]  # fmt: skip
    for name, kind in flagged.items():
        assert _columns.name_kind(name)[0] == kind, name
    for name in tasks:
        assert _columns.name_kind(name) is None, name


def test_refusal_names_each_column_and_the_options():
    df = _board(n=6, k=3)
    df["params (M)"] = [100, 200, 50, 300, 80, 90]
    with pytest.raises(InvalidScoresError) as err:
        rs.Scores.from_wide(df)
    message = str(err.value)
    assert "'params (M)' is named like metadata" in message
    assert "drop_columns=['params (M)']" in message  # and as the CLI prints it:
    assert "--drop-columns 'params (M)'" in err.value.cli()
    assert rs.Scores.from_wide(df, tasks=["t0", "t1", "params (M)"]).n_tasks == 3  # chosen
    with pytest.raises(InvalidScoresError, match="'nope'"):
        rs.Scores.from_wide(df, drop_columns=["nope"])


def test_a_column_given_a_direction_is_a_task():
    df = _board(n=6, k=2)
    df["latency"] = [120.0, 80.0, 95.0, 150.0, 60.0, 70.0]
    with pytest.raises(InvalidScoresError, match="'latency' is named like metadata"):
        rs.Scores.from_wide(df)
    scores = rs.Scores.from_wide(df, higher_is_better={"latency": False})
    assert scores.tasks == ("t0", "t1", "latency")


def test_openclip_columns_are_refused_by_the_reader():
    with pytest.raises(InvalidScoresError) as err:
        rs.read_scores(OPENCLIP, system=["name", "pretrained"])
    message = str(err.value)
    for column in NOT_TASKS:
        assert repr(column) in message
    assert "equals the row mean of the 38 other task columns to 5e-05" in message
    scores = rs.read_scores(OPENCLIP, system=["name", "pretrained"], drop_columns=NOT_TASKS)
    assert (scores.n_systems, scores.n_tasks) == (121, 38)
    with pytest.raises(ValueError, match="not both"):
        rs.read_scores(
            OPENCLIP, system=["name", "pretrained"], tasks=["FMoW"], drop_columns=NOT_TASKS
        )


# ---------------------------------------------------------------------------- placeholders
def test_placeholder_block_fires_and_real_zeros_do_not():
    df = _board(n=30, k=3, seed=3)
    df.loc[[2, 5, 11, 17], "t1"] = 0.0
    check = rs.check_data(df)
    (found,) = check.of_kind("placeholder")
    assert found.subject == ("t1",) and found.count == 4
    assert set(found.examples) == {"s2", "s5", "s11", "s17"}
    # a single zero; zeros inside the range of a task with negative scores; a discrete task
    # whose values tie more often than its zeros
    quiet = _board(n=30, k=3, seed=3)
    quiet.loc[4, "t0"] = 0.0
    quiet["t1"] = np.linspace(-1, 1, 30)
    quiet.loc[[0, 1], "t1"] = 0.0
    quiet["t2"] = [0.0, 0.0] + [0.5] * 14 + [1.0] * 14
    assert rs.check_data(quiet).of_kind("placeholder") == ()


def test_placeholder_minus_one_and_lower_is_better():
    df = _board(n=20, k=2, seed=4)
    df.loc[[1, 2, 3], "t0"] = -1.0
    (found,) = rs.check_data(df, higher_is_better={"t0": False}).of_kind("placeholder")
    assert found.subject == ("t0",) and found.count == 3  # in the file's orientation


def test_placeholder_cells_at_instance_level():
    rng = np.random.default_rng(5)
    rows = [(s, t, i, rng.uniform(0.1, 1)) for s in "abcdef" for t in ("x", "y") for i in range(8)]
    long = pd.DataFrame(rows, columns=["system", "task", "instance", "score"])
    long.loc[(long.task == "x") & long.system.isin(["a", "b"]), "score"] = 0.0  # never run
    long.loc[(long.task == "y") & (long.instance == 3), "score"] = 0.0  # one hard instance
    (found,) = rs.check_data(long, instance="instance").of_kind("placeholder")
    assert found.subject == ("x",) and found.count == 2
    dropped = rs.datacheck.drop_placeholders(rs.Scores.from_long(long, instance="instance"))
    assert len(dropped.data) == len(long) - 16


def test_drop_placeholders_ranks_as_empty_cells():
    df = _board(n=12, k=3, seed=6)
    df.loc[[0, 4], "t2"] = 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rs.DataWarning)
        dropped = rs.datacheck.drop_placeholders(rs.Scores.from_wide(df))
        blank = rs.Scores.from_wide(df.replace({"t2": {0.0: np.nan}}))
    assert len(dropped.data) == 12 * 3 - 2
    pd.testing.assert_frame_equal(
        rs.aggregate(dropped, "borda").table, rs.aggregate(blank, "borda").table
    )


# ---------------------------------------------------------------------------- other detectors
def test_scales():
    df = _board(n=10, k=4, seed=7)
    df["t2"] *= 100
    df["t3"] *= 100
    (found,) = rs.check_data(df).of_kind("scales")
    assert "0–1 next to 0–100" in found.message
    assert found.examples == ("t0", "t1", "t2", "t3")
    assert rs.check_data(_board(n=10, k=4, seed=7)).of_kind("scales") == ()


def test_missing_and_few_scores():
    df = _board(n=10, k=6, seed=8)
    df.loc[0, ["t0", "t1", "t2", "t3", "t4"]] = np.nan  # s0: 1 of 6 tasks
    df.loc[1, ["t0", "t1", "t2"]] = np.nan  # s1: 3 of 6 (half): not few
    check = _quiet_check(df)
    (missing,) = check.of_kind("missing")
    assert missing.count == int(df.drop(columns="system").isna().sum().sum()) == 8
    few = check.of_kind("few-scores")
    assert [f.subject for f in few] == [("s0",)]


def test_name_collisions():
    df = _board(n=4, k=2)
    df["system"] = ["GPT-4", "gpt-4", "Claude  3", "claude 3"]
    df = df.rename(columns={"t1": "T0"})
    found = rs.check_data(df).of_kind("name-collision")
    assert [f.count for f in found] == [2, 1]  # two system groups, one task group
    assert set(found[0].subject) == {"GPT-4", "gpt-4", "Claude  3", "claude 3"}
    assert rs.check_data(_board(n=4, k=2)).of_kind("name-collision") == ()


def _long(n_sys=4, n_tasks=3, n_inst=10, ids=None, seed=9):
    rng = np.random.default_rng(seed)
    rows = [
        (f"s{s}", f"t{t}", (ids or (lambda t, i: i))(t, i), rng.uniform())
        for s in range(n_sys)
        for t in range(n_tasks)
        for i in range(n_inst)
    ]
    return pd.DataFrame(rows, columns=["system", "task", "instance", "score"])


def test_uneven_instances():
    long = _long(ids=lambda t, i: f"doc{t}-{i}")
    drop = (long.system == "s2") & (long.task == "t1") & long.instance.isin(["doc1-0", "doc1-5"])
    check = rs.check_data(long[~drop], instance="instance")
    (found,) = check.of_kind("uneven-instances")
    counts = long[~drop].groupby(["task", "system"]).size()["t1"]  # independent: pandas
    assert found.subject == ("t1",) and (counts.min(), counts.max()) == (8, 10)
    assert "t1: 8–10 instances (s2 8)" in found.examples
    assert rs.check_data(long, instance="instance").of_kind("uneven-instances") == ()


def test_folds_by_value_and_by_name():
    (note,) = rs.check_data(_long()).findings  # the 'instance' column found as read_scores does
    assert note.kind == "folds" and note.severity == "note"
    docs = _long(ids=lambda t, i: f"doc{t}-{i}")  # each task its own documents
    assert rs.check_data(docs, instance="instance").of_kind("folds") == ()
    many = _long(n_inst=20)  # 0..19 in every task: more than a fold count
    assert rs.check_data(many, instance="instance").of_kind("folds") == ()
    named = docs.rename(columns={"instance": "seed"})
    (found,) = rs.check_data(named, instance="seed").of_kind("folds")
    assert "named 'seed'" in found.message


def test_findings_table_records_and_warnings():
    df = _board(n=20, k=3)
    df.loc[[1, 2, 3], "t0"] = 0.0
    df["Average"] = df[["t0", "t1", "t2"]].mean(axis=1)
    check = rs.check_data(df)
    assert list(check.table["severity"]) == ["error", "warning"] and not check.ok
    assert check.records()[1]["subject"] == ["t0"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check.warn()
    assert all(issubclass(w.category, rs.DataWarning) for w in caught) and len(caught) == 2
    # Spelled for the reader: as flags by the command line (.cli()), as arguments in Python.
    assert "--drop-columns Average" in caught[0].message.cli()
    assert "drop_columns=['Average']" in str(caught[0].message)
    assert "--placeholders missing" in caught[1].message.cli()
    assert "DataCheck(" in repr(check)


# ---------------------------------------------------------------------------- real files
def test_openclip_fmow_zeros_and_the_three_columns():
    raw = pd.read_csv(OPENCLIP)
    check = _quiet_check(OPENCLIP, system=["name", "pretrained"])
    refused = {c for f in check.findings if f.severity == "error" for c in f.subject}
    assert refused == set(NOT_TASKS)
    (found,) = check.of_kind("placeholder")
    zeros = raw[raw["FMoW"] == 0]  # independent: pandas on the raw file
    assert found.subject == ("FMoW",) and found.count == len(zeros) == 31
    assert set(found.examples) <= set(zeros["name"] + " / " + zeros["pretrained"])
    assert check.scores.n_tasks == 38 and check.of_kind("scales") == ()


@pytest.mark.skipif(
    not Path(AMLB).exists(), reason="the AutoML benchmark's file (../shared/data/outside) is absent"
)
def test_automl_failed_runs_and_folds():
    raw = pd.read_csv(AMLB)
    check = _quiet_check(AMLB, system="framework", instance="fold")
    (missing,) = check.of_kind("missing")
    assert missing.count == int(raw["score"].isna().sum()) == 47
    per_system = raw[raw["score"].isna()].groupby("framework").size()
    assert set(missing.subject) == set(per_system.index)
    (folds,) = check.of_kind("folds")
    assert folds.count == raw[["task", "fold"]].drop_duplicates().shape[0] == 390


def test_warn_spells_the_remedy_for_python_or_the_command_line():
    check = rs.check_data(rs.load_dataset("glue"))
    for cli, spelling in ((False, "drop_placeholders(scores)"), (True, "--placeholders missing")):
        with pytest.warns(rs.DataWarning) as caught:
            check.warn(cli=cli)
        texts = [str(w.message) for w in caught]
        assert texts and all(t.startswith("data check: ") for t in texts)
        assert any(spelling in t for t in texts), texts


# ---------------------------------------------------------------------------- no order
def test_tasks_that_tie_every_system_are_named():
    """Every task one complete tie: a warning naming them (fit refuses such data); some tied
    tasks: a note naming those only. Expected sets from pandas' per-task number of values."""
    long = _board(n=5, k=4).melt(id_vars="system", var_name="task", value_name="score")
    long.loc[long.task.isin(["t1", "t3"]), "score"] = 0.5
    tied = sorted(t for t, v in long.groupby("task")["score"] if v.nunique() == 1)
    (found,) = rs.check_data(long).of_kind("no-order")
    assert (found.severity, found.subject, found.count) == ("note", tuple(tied), 2)
    assert "2 of the 4 tasks tie all their systems: t1, t3" in found.message
    long["score"] = long.task.str[1:].astype(float)  # one value per task: every task a tie
    check = _quiet_check(long)
    (found,) = check.of_kind("no-order")
    assert found.severity == "warning" and not check.ok
    assert found.subject == ("t0", "t1", "t2", "t3") and "fit refuses the data" in found.message
    with pytest.raises(rs.InvalidRankingsError, match="no order information"):
        rs.models.PlackettLuce().fit(check.scores, method="mle")


def test_instance_rankings_that_tie_are_counted_per_task_and_instance():
    long = _long(ids=lambda t, i: f"doc{t}-{i}")
    first = long.instance.isin(["doc0-0", "doc1-3"])
    long.loc[first, "score"] = 1.0  # two (task, instance) rankings tie; a lone score does not
    long = long[~((long.instance == "doc0-1") & (long.system != "s0"))]
    (found,) = _quiet_check(long, instance="instance").of_kind("no-order")
    assert found.subject == ("t0 / doc0-0", "t1 / doc1-3") and found.severity == "note"
    assert "(task, instance) rankings" in found.message
    assert (
        rs.check_data(_long(ids=lambda t, i: f"d{t}{i}"), instance="instance").of_kind("no-order")
        == ()
    )
