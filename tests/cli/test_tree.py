"""The `rankstats tree` command: the library's tree, its files written as a whole, and user
errors in one line with exit code 2."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cli_run import one_error_line, run

import rankstats as rs


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """Scores of 4 systems on 60 tasks (one score per task); on the tasks of kind "b" system
    d wins; covariates: kind (a/b) and a numeric noise column."""
    rng = np.random.default_rng(9)
    folder = tmp_path_factory.mktemp("tree")
    kind = rng.choice(["a", "b"], size=60)
    rows = []
    for t in range(60):
        worth = np.array([1.0, 0.5, 0.0, 2.0 if kind[t] == "b" else -0.5])
        for system, value in zip("abcd", worth + rng.gumbel(size=4), strict=True):
            rows.append((system, f"task {t}", value))
    scores_file = folder / "scores.csv"
    pd.DataFrame(rows, columns=["system", "task", "score"]).to_csv(scores_file, index=False)
    covariates = pd.DataFrame(
        {"task": [f"task {t}" for t in range(60)], "kind": kind, "noise": rng.normal(size=60)}
    )
    covariates_file = folder / "covariates.csv"
    covariates.to_csv(covariates_file, index=False)
    return folder, scores_file, covariates_file, covariates


def test_tree_writes_the_library_tree(inputs, tmp_path, capsys):
    _, scores_file, covariates_file, covariates = inputs
    out = tmp_path / "out"
    code, printed, err = run(
        ["tree", str(scores_file), "--ranker-covariates", str(covariates_file), "--out", str(out)],
        capsys,
    )
    assert code == 0, err
    expected = rs.models.rank_tree(
        rs.read_scores(scores_file), covariates.set_index("task"), min_size=10
    )
    assert "split on kind" in printed
    names = {"leaves.csv", "worths.csv", "tests.csv", "tree.png", "tree.pdf"}
    assert names <= {p.name for p in out.iterdir()}
    leaves = pd.read_csv(out / "leaves.csv")
    np.testing.assert_allclose(leaves["log_worth"], expected.leaves()["log_worth"], rtol=1e-9)
    tests = pd.read_csv(out / "tests.csv")
    np.testing.assert_allclose(tests["p_value"], expected.tests()["p_value"], rtol=1e-9)
    assert tests["p_at_floor"].tolist() == expected.tests()["p_at_floor"].tolist()
    assert pd.read_csv(out / "worths.csv")["leaf"].tolist() == expected.worths().index.tolist()


@pytest.mark.parametrize(
    ("extra", "needles"),
    [
        (["--trim", "0.7"], ["--trim"]),
        (["--key", "nope"], ["--key", "nope"]),
        (["--categorical", "ghost"], ["--categorical", "ghost"]),
        (["--systems", "a", "zz"], ["'zz'"]),
    ],
)
def test_user_errors_are_one_line(inputs, capsys, extra, needles):
    _, scores_file, covariates_file, _ = inputs
    code, _, err = run(
        ["tree", str(scores_file), "--ranker-covariates", str(covariates_file), *extra], capsys
    )
    assert code == 2
    one_error_line(err, "tree", *needles)


def test_a_task_without_covariates_is_named(inputs, tmp_path, capsys):
    _, scores_file, _, covariates = inputs
    partial = tmp_path / "partial.csv"
    covariates.iloc[1:].to_csv(partial, index=False)
    code, _, err = run(["tree", str(scores_file), "--ranker-covariates", str(partial)], capsys)
    assert code == 2
    one_error_line(err, "tree", "'task 0'", "no row")
    missing = tmp_path / "missing.csv"
    code, _, err = run(["tree", str(scores_file), "--ranker-covariates", str(missing)], capsys)
    assert code == 2
    one_error_line(err, "tree", "no such file")


def test_categorical_columns_add_to_the_text_columns(inputs, tmp_path, capsys):
    """--categorical year keeps kind (text) categorical: declared columns are added to the
    detected ones, not a replacement."""
    _, scores_file, _, covariates = inputs
    path = tmp_path / "with_year.csv"
    covariates.assign(year=np.where(covariates["noise"] > 0, 2015, 2016)).to_csv(path, index=False)
    out = tmp_path / "out"
    code, _, err = run(
        [
            "tree",
            str(scores_file),
            "--ranker-covariates",
            str(path),
            "--categorical",
            "year",
            "--out",
            str(out),
        ],
        capsys,
    )
    assert code == 0, err
    tests = pd.read_csv(out / "tests.csv")
    kinds = dict(zip(tests["covariate"], tests["test"], strict=False))
    assert kinds == {"kind": "chi2", "noise": "supLM", "year": "chi2"}


@pytest.mark.parametrize("cell", ["inf", "0.3l"])
def test_a_bad_cell_of_a_numeric_covariate_is_named(inputs, tmp_path, capsys, cell):
    _, scores_file, _, covariates = inputs
    bad = covariates.astype({"noise": object})
    bad.loc[4, "noise"] = cell
    path = tmp_path / "bad.csv"
    bad.to_csv(path, index=False)
    code, _, err = run(["tree", str(scores_file), "--ranker-covariates", str(path)], capsys)
    assert code == 2
    one_error_line(err, "tree", "'noise'", "line 6", "'task 4'", repr(cell), "--categorical noise")


BEANS = Path(__file__).resolve().parents[3] / "shared" / "data" / "converted"


def _orderings_file(folder, rng):
    """Orderings of 4 systems, three per ranker (a trio and two pairs, as in beans), by 120
    rankers; d is best for the rankers of region "south", worst elsewhere; age plays no part."""
    region = rng.choice(["north", "south"], size=120)
    rows = []
    for r in range(120):
        theta = np.array([0.5, 0.0, -0.5, 1.5 if region[r] == "south" else -1.0])
        for chosen in (
            rng.choice(4, 3, replace=False),
            rng.choice(4, 2, replace=False),
            rng.choice(4, 2, replace=False),
        ):
            order = chosen[np.argsort(-(theta[chosen] + rng.gumbel(size=len(chosen))))]
            rows.append([f"r{r}", *("abcd"[k] for k in order), *[""] * (3 - len(order))])
    path = folder / "orderings.csv"
    pd.DataFrame(rows, columns=["farmer", "first", "second", "third"]).to_csv(path, index=False)
    covariates = pd.DataFrame(
        {"farmer": [f"r{r}" for r in range(120)], "region": region, "age": rng.normal(size=120)}
    )
    covariates.to_csv(folder / "farmers.csv", index=False)
    return path, folder / "farmers.csv", rows, covariates


def test_a_rankings_file_with_several_rankings_per_ranker(tmp_path, capsys):
    """--format orderings --ranker farmer: a farmer's rankings share the farmer's covariates and
    the farmer is the unit (the same tree as the library's on the same Rankings)."""
    path, farmers, rows, covariates = _orderings_file(tmp_path, np.random.default_rng(3))
    out = tmp_path / "out"
    command = ["tree", str(path), "--format", "orderings", "--ranker", "farmer"]
    code, printed, err = run(
        [*command, "--ranker-covariates", str(farmers), "--out", str(out)], capsys
    )
    assert code == 0, err
    assert "360 rankings (orderings file)" in printed and "120 rankers" in printed
    orders = [[s for s in row[1:] if s] for row in rows]
    rk = rs.Rankings.from_orderings(orders, names=[row[0] for row in rows])
    expected = rs.models.rank_tree(rk, covariates.set_index("farmer"))
    assert expected.node(1).split.covariate == "region"
    leaves = pd.read_csv(out / "leaves.csv")
    assert leaves["n_units"].tolist() == expected.leaves()["n_units"].tolist()
    np.testing.assert_allclose(leaves["log_worth"], expected.leaves()["log_worth"], rtol=1e-9)
    # fit still reads one ranking per ranker: the repeated label is refused there
    code, _, err = run(["fit", str(path), "--format", "orderings", "--ranker", "farmer"], capsys)
    assert code == 2
    one_error_line(err, "fit", "repeats a label")


def test_paired_data_are_refused_in_one_line(tmp_path, capsys):
    path = tmp_path / "pairs.csv"
    pd.DataFrame({"preferred": ["a", "b"], "other": ["b", "c"]}).to_csv(path, index=False)
    covariates = tmp_path / "c.csv"
    covariates.write_text("ranker,x\n1,2\n")
    code, _, err = run(
        ["tree", str(path), "--format", "pairwise", "--ranker-covariates", str(covariates)], capsys
    )
    assert code == 2
    one_error_line(err, "tree", "--format pairwise", "rank-matrix")


def _pl_mle(orders: list[list[str]], systems: list[str]) -> np.ndarray:
    """Centred Plackett–Luce MLE of best-first orderings, written here independently of
    rankstats: minimise the negative log-likelihood Σ_j [log Σ_{k ≥ j} e^θ_k − θ_j]."""
    from scipy.optimize import minimize
    from scipy.special import logsumexp

    index = [np.array([systems.index(s) for s in order]) for order in orders]

    def nll(free):
        theta = np.append(free, 0.0)
        return sum(logsumexp(theta[o[j:]]) - theta[o[j]] for o in index for j in range(len(o) - 1))

    found = minimize(nll, np.zeros(len(systems) - 1), method="BFGS", options={"gtol": 1e-8})
    theta = np.append(found.x, 0.0)
    return theta - theta.mean()


@pytest.mark.slow
@pytest.mark.skipif(
    not (BEANS / "beans_orderings.csv").exists(),
    reason="PlackettLuce's beans (../shared/data/converted, GPL: never bundled) is absent",
)
def test_beans_reproduces_plackettluce_pltree(tmp_path, capsys):
    """PlackettLuce's vignette (Turner et al. 2020, 'Plackett-Luce Trees'; its figure
    vignettes/pltree.png at hturner/PlackettLuce 411b1ef6): pltree(G ~ season + year + maxTN,
    minsize = 0.05 n, maxdepth = 3) on beans splits on maxTN (p < 0.001) at ≤ 18.718, then
    the cooler part on season, Pr - 16 against the other four seasons; leaves of 47, 489 and
    306 farmers. Each leaf's worths are checked against a Plackett–Luce MLE written here."""
    table = pd.read_csv(BEANS / "beans_orderings.csv", dtype=str, keep_default_na=False)
    orderings = tmp_path / "beans_orderings.csv"
    table.drop(columns="kind").to_csv(orderings, index=False)  # kind is not a system
    out = tmp_path / "out"
    code, printed, err = run(
        [
            "tree", str(orderings), "--format", "orderings", "--ranker", "farmer",
            "--ranker-covariates", str(BEANS / "beans_raw.csv"), "--key", "farmer",
            "--covariate-columns", "season", "year", "maxTN", "--categorical", "year",
            "--min-size", "43", "--max-depth", "2", "--out", str(out),
        ],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    assert "split on maxTN (supLM = " in printed and "adjusted p ≤ 0.0003)" in printed
    tests = pd.read_csv(out / "tests.csv")
    root = tests[(tests["node"] == 1) & tests["split"]].iloc[0]
    assert root["covariate"] == "maxTN" and root["p_at_floor"]
    assert root["p_adjusted"] == pytest.approx(3 / 10_001)
    leaves = pd.read_csv(out / "leaves.csv")
    sizes = leaves.groupby("rule")["n_units"].first().to_dict()
    assert sizes == {
        "maxTN <= 18.7175 & season in {Ap - 15, Ap - 16, Po - 15, Po - 16}": 489,
        "maxTN <= 18.7175 & season in {Pr - 16}": 47,
        "maxTN > 18.7175": 306,
    }
    raw = pd.read_csv(BEANS / "beans_raw.csv")
    farmers = set(raw.loc[(raw["maxTN"] <= 18.7175) & (raw["season"] == "Pr - 16"), "farmer"])
    leaf = leaves[leaves["rule"] == "maxTN <= 18.7175 & season in {Pr - 16}"]
    orders = [
        [s for s in row[1:] if s]
        for row in table.drop(columns="kind").itertuples(index=False)
        if int(row[0]) in farmers
    ]
    systems = leaf["system"].tolist()
    np.testing.assert_allclose(leaf["log_worth"], _pl_mle(orders, systems), atol=2e-5)


def test_an_alpha_below_the_simulation_floor_is_refused(inputs, capsys):
    """With 2 covariates and 10,000 draws no adjusted supLM p-value is below 2/10,001: an
    alpha of 0.0001 could never split on the numeric covariate (refused); more draws can."""
    _, scores_file, covariates_file, _ = inputs
    command = ["tree", str(scores_file), "--ranker-covariates", str(covariates_file)]
    code, _, err = run([*command, "--alpha", "0.0001"], capsys)
    assert code == 2
    one_error_line(err, "tree", "--alpha 0.0001", "0.0002", "--draws")
    with pytest.raises(ValueError, match=r"alpha=0\.0001 is not above 2 / \(draws \+ 1\)"):
        rs.models.rank_tree(
            rs.read_scores(scores_file), pd.read_csv(covariates_file, index_col=0), alpha=1e-4
        )
    code, _, err = run([*command, "--alpha", "0.0001", "--draws", "30000"], capsys)
    assert code == 0, err
