"""The paper-ready report: files, LaTeX that parses, numbers equal to the result object's."""

import html
import re
from pathlib import Path

import markupsafe
import numpy as np
import pandas as pd
import pytest
from reporting.test_report_atomic import STANDARD  # the files of every report

import rankstats as rs
from rankstats.errors import DataWarning
from rankstats.reporting import latex_escape

pytestmark = pytest.mark.long


@pytest.fixture(scope="module")
def tac_report(tmp_path_factory):
    scores = rs.load_dataset("tac08", tasks=["ROUGE_2", "H:pyramid"])
    return rs.report(scores, out=tmp_path_factory.mktemp("rep"), delta=0.05, correction="holm")


def test_files(tac_report):
    names = {p.name for p in tac_report.files}
    assert names == STANDARD
    for path in tac_report.files:
        assert path.stat().st_size > 0


def test_rank_range_contains_the_rank_and_agrees_with_pairs(tac_report):
    table = tac_report.ranking
    ranks = table["rank_borda"].to_numpy()
    assert (table["rank_low"] <= np.floor(ranks)).all() and (
        np.ceil(ranks) <= table["rank_high"]
    ).all()
    ci = tac_report.pairs
    first = table["system"].iloc[0]
    beaten = ci[(ci.system_a == first) & (ci.winner == first)]
    assert table["rank_high"].iloc[0] == len(table) - len(beaten)


def _balanced(tex: str) -> bool:
    stack = []
    for kind, name in re.findall(r"\\(begin|end)\{([^}]*)\}", tex):
        if kind == "begin":
            stack.append(name)
        elif not stack or stack.pop() != name:
            return False
    return not stack and tex.count("{") - tex.count(r"\{") == tex.count("}") - tex.count(r"\}")


def test_latex_parses_and_numbers_match(tac_report):
    tex = (tac_report.out / "ranking.tex").read_text()
    assert _balanced(tex)
    assert r"\toprule" in tex and r"\bottomrule" in tex
    body = _tex_body(tex)
    table = tac_report.ranking
    assert len(body) == len(table)
    for line, (_, row) in zip(body, table.iterrows(), strict=True):
        cells = [c.strip() for c in line.removesuffix(r"\\").split(" & ")]
        assert cells[1].startswith(latex_escape(row["system"]))
        assert (r"\dagger" in cells[1]) == bool(row["above_next"])
        numbers = cells[2:-1]
        for k, method in enumerate(("borda", "borda2", "mean")):
            assert float(numbers[2 * k]) == pytest.approx(row[f"rank_{method}"])
            shown = numbers[2 * k + 1]
            half_unit = 0.5 * 10.0 ** -len(shown.partition(".")[2])
            assert float(shown) == pytest.approx(row[f"score_{method}"], abs=half_unit + 1e-9)
        assert cells[-1] == f"{row['rank_low']}--{row['rank_high']}"


def test_latex_escape():
    assert latex_escape("A&B_C 50% #1 {x} ~^\\") == (
        r"A\&B\_C 50\% \#1 \{x\} \textasciitilde{}\textasciicircum{}\textbackslash{}"
    )


def test_html_is_self_contained(tac_report):
    page = tac_report.html.read_text()
    assert "<script" not in page.lower()
    assert not re.search(r"(src|href)\s*=\s*['\"]?(https?:)?//", page)
    assert "data:image/png;base64," in page
    for system in tac_report.ranking["system"].head(5):
        assert f"<td class='name' dir='auto'>{system}</td>" in page


def test_methods_and_bibtex(tac_report):
    text = tac_report.methods_text
    assert "δ = 0.05" in text and "Holm" in text
    bib = (tac_report.out / "references.bib").read_text()
    for key in re.findall(r"\[(\w+)\]", text):
        assert f"{{{key}," in bib


def test_report_matches_aggregate(tac_report):
    scores = rs.load_dataset("tac08", tasks=["ROUGE_2", "H:pyramid"])
    borda = rs.aggregate(scores, method="borda")
    assert tac_report.ranking["system"].tolist() == borda.order
    np.testing.assert_allclose(tac_report.ranking["score_borda"], borda.table["score"])


@pytest.mark.pymc
def test_report_with_models(tmp_path):
    scores = rs.load_dataset("dialogue_tc", tasks=["BLEU", "H:overall"])
    rep = rs.report(scores, out=tmp_path, models=["pl", "bt"], delta=0.05)
    assert {"rank_pl", "rank_bt"} <= set(rep.ranking.columns)
    fit = rs.models.PlackettLuce().fit(rs.Rankings.from_scores(scores, by="instance"), method="map")
    expected = {s: i + 1.0 for i, s in enumerate(fit.order)}
    assert rep.ranking.set_index("system")["rank_pl"].to_dict() == expected
    agree = rep.comparison.agreement.set_index("method")
    assert f"Plackett–Luce: {agree.loc['pl', 'both_same']} pairs significant" in rep.methods_text
    assert "plackett1975" in (tmp_path / "references.bib").read_text()
    page = rep.html.read_text()
    assert "id='agreement'" in page and "<th title='Plackett–Luce'>rank PL</th>" in page
    tex = (tmp_path / "ranking.tex").read_text()
    assert _balanced(tex) and "rank PL" in tex


# ---------------------------------------------------------------------------- data transformations
def _transformations_html(page: str) -> str:
    return page.split("<ul id='transformations'>")[1].split("</ul>")[0]


def test_methods_state_every_transformation(tmp_path):
    """Negated, missing, set-aside and never-evaluated: each stated, counts from the input."""
    wide = pd.DataFrame(
        {
            "system": ["s1", "s2", "s3", "s4", "ghost"],
            "acc": [0.9, 0.8, np.nan, 0.6, np.nan],
            "latency": [10.0, np.nan, 30.0, 40.0, np.nan],
            "f1": [0.5, 0.7, 0.6, np.nan, np.nan],
            "lonely": [1.0, np.nan, np.nan, np.nan, np.nan],
        }
    )
    with pytest.warns(DataWarning):
        scores = rs.Scores.from_wide(wide, system="system", higher_is_better={"latency": False})
    rep = rs.report(scores, out=tmp_path / "r", methods=["borda"])
    kept = ["acc", "latency", "f1"]  # "lonely" has one evaluated system
    cells = len(wide) * len(kept)
    missing = int(wide[kept].isna().to_numpy().sum())
    assert (cells, missing) == (15, 6)
    expected = [
        "1 lower-is-better task(s) were negated so that higher is better: latency.",
        f"{missing} of the {cells} (system, task) cells ({missing / cells:.1%}) have no score",
        "1 task(s) with fewer than two evaluated systems were set aside: lonely.",
        "1 system(s) evaluated nowhere were kept and ranked on imputation alone",
        "(every pairwise probability ½): ghost.",
    ]
    listed = html.unescape(_transformations_html(rep.html.read_text(encoding="utf-8")))
    for phrase in expected:
        assert phrase in rep.methods_text
        assert phrase in listed
    assert "(task, instance) ranking(s)" not in rep.methods_text  # none were skipped


def test_methods_state_instance_level_missing(tmp_path):
    rows = []
    for task in ("t1", "t2"):
        for inst in range(6):
            for k, system in enumerate(["a", "b", "c", "d"]):
                rows.append((system, task, inst, float((k + inst) % 4)))
    frame = pd.DataFrame(rows, columns=["system", "task", "instance", "score"])
    drop = (
        ((frame.task == "t1") & (frame.instance == 0) & frame.system.isin(["c", "d"]))
        | ((frame.task == "t2") & (frame.instance == 3) & (frame.system == "a"))
        | ((frame.task == "t2") & (frame.instance == 5) & (frame.system != "b"))  # 1 system left
    )
    frame.loc[drop, "score"] = np.nan
    frame = pd.concat([frame, pd.DataFrame([("ghost", "t1", 0, np.nan)], columns=frame.columns)])
    with pytest.warns(DataWarning):
        scores = rs.Scores.from_long(frame, instance="instance")
    rep = rs.report(scores, out=tmp_path / "r", methods=["borda"], by="instance")
    counts = frame.dropna().groupby(["task", "instance"]).size()
    kept = counts[counts >= 2]
    n_systems = frame["system"].nunique()  # 5, the never-evaluated one included
    absent = n_systems - kept
    text = rep.methods_text
    assert (
        f"{int((absent > 0).sum())} of the {len(kept)} (task, instance) rankings lack at least "
        f"one of the {n_systems} systems ({int(absent.sum())} missing (system, ranking) cells"
    ) in text
    assert f"up to {int(absent.max())} systems missing in one ranking" in text
    n_skipped = int((counts < 2).sum())
    assert n_skipped == 1
    assert f"{n_skipped} (task, instance) ranking(s) with fewer than two evaluated" in text
    assert "ghost" in text.split("evaluated nowhere")[1]
    assert "no score was negated" in text

    # The same data ranked per task: instance means, some over fewer instances than the task has.
    rep = rs.report(scores, out=tmp_path / "t", methods=["borda"], by="task")
    observed = frame.dropna()
    observed = observed[
        observed.groupby(["task", "instance"])["system"].transform("size").to_numpy() >= 2
    ]
    per_cell = observed.groupby(["system", "task"]).size()
    per_task = observed.groupby("task")["instance"].nunique()
    partial = int(
        (per_cell < per_task.reindex(per_cell.index.get_level_values("task")).values).sum()
    )
    assert partial == 3  # c and d on t1, a on t2
    cells = n_systems * 2
    assert f"{partial} of these means use fewer instances than their task has" in rep.methods_text
    assert f"{cells - len(per_cell)} of the {cells} (system, task) cells" in rep.methods_text


# ---------------------------------------------------------------------------- marks
@pytest.fixture(scope="module")
def disagreeing_scores():
    """Borda says b > a > c; the pairwise test says a beats b (see
    tests/aggregation/test_marks.py)."""
    rows = []
    for inst in range(2000):
        order = ["a", "b", "c"] if inst % 5 < 3 else ["b", "c", "a"]
        rows += [(s, "t", inst, 3.0 - r) for r, s in enumerate(order)]
    frame = pd.DataFrame(rows, columns=["system", "task", "instance", "score"])
    return rs.Scores.from_long(frame, instance="instance")


def test_contradicted_order_is_marked(disagreeing_scores, tmp_path):
    rep = rs.report(disagreeing_scores, out=tmp_path / "r", methods=["borda"], by="instance")
    assert rep.ranking["system"].tolist() == ["b", "a", "c"]
    pairs = rep.pairs.set_index(["system_a", "system_b"])
    assert pairs.loc[("b", "a"), "winner"] == "a" and pairs.loc[("a", "c"), "winner"] == "a"
    tex = (tmp_path / "r" / "ranking.tex").read_text(encoding="utf-8")
    rows = {
        line.split(" & ")[1].split("$")[0]: line
        for line in tex.split(r"\midrule")[1].split(r"\bottomrule")[0].strip().splitlines()
    }
    assert r"\ddagger" in rows["b"] and r"\dagger}" not in rows["b"]
    assert r"\dagger}" in rows["a"] and r"\ddagger" not in rows["a"]
    assert "dagger" not in rows["c"]
    sentence = (
        "the next system is significantly above this one: the $\\sigma^{l}$ order contradicts"
    )
    assert sentence in tex
    page = rep.html.read_text(encoding="utf-8")
    row_b = next(r for r in page.split("<tr") if "<td class='name' dir='auto'>b</td>" in r)
    row_a = next(r for r in page.split("<tr") if "<td class='name' dir='auto'>a</td>" in r)
    assert "class='contra'" in row_b and "‡" in row_b and "†" not in row_b
    assert "class='sig'" in row_a and "†" in row_a
    assert "the next system is significantly above this one" in page


def test_heatmap_circles_holm_only_pairs():
    """A pair significant by the test but with an interval containing ½ is not drawn as white
    and unmarked (Holm's step-down decides more pairs than the Bonferroni intervals show)."""
    from rankstats.aggregation.hoeffding_figure import significance_heatmap

    pw = rs.pairwise(rs.Rankings.from_orderings([["a", "b", "c"], ["b", "a", "c"]] * 3))
    ci = rs.hoeffding(pw, order=["a", "b", "c"])
    assert not ci["significant"].any()
    assert not significance_heatmap(ci).axes[0].collections[1:]  # only the image's colorbar
    ci.loc[ci.system_a.isin(["a", "c"]) & ci.system_b.isin(["a", "c"]), "significant"] = True
    ax = significance_heatmap(ci).axes[0]
    circles = [c for c in ax.collections if len(c.get_offsets())]
    assert len(circles) == 1
    assert sorted(map(tuple, circles[0].get_offsets().tolist())) == [(0.0, 2.0), (2.0, 0.0)]


# ---------------------------------------------------------------------------- convergence
@pytest.fixture(scope="module")
def four_systems():
    rng = np.random.default_rng(0)
    rows = []
    for inst in range(30):
        order = rng.permutation(["a", "b", "c", "d"]) if inst % 3 else ["a", "b", "c", "d"]
        rows += [(s, "t", inst, 4.0 - r) for r, s in enumerate(order)]
    frame = pd.DataFrame(rows, columns=["system", "task", "instance", "score"])
    scores = rs.Scores.from_long(frame, instance="instance")
    return scores, rs.Rankings.from_scores(scores, by="instance")


def _warning_boxes(page: str) -> list[str]:
    return re.findall(r"<div class='warning'[^>]*>(.*?)</div>", page, flags=re.S)


@pytest.mark.pymc
def test_unconverged_fit_is_stated(four_systems, tmp_path):
    """Mallows with 20 sweeps per chain: a realistic fit that did not converge."""
    import arviz as az

    from rankstats._pymc.convergence import ConvergenceWarning

    scores, rk = four_systems
    with pytest.warns(ConvergenceWarning):
        fit = rs.models.Mallows().fit(
            rk, draws=20, tune=0, chains=2, seed=0, progress=False, max_draws=20
        )
    theta = np.asarray(fit.idata["posterior"]["theta"])
    assert float(az.ess(theta, method="bulk")) < 400  # ArviZ itself: too few effective draws
    rep = rs.report(scores, out=tmp_path / "r", methods=["borda"], models=[fit])
    assert not rep.convergence[0].converged
    text = rep.methods_text
    assert "Warning: the Mallows (Kendall) model fitted by mcmc did not converge" in text
    assert re.search(r"min bulk ESS = \d+ < 400", text)
    boxes = _warning_boxes(rep.html.read_text(encoding="utf-8"))
    assert len(boxes) == 1 and "did not converge" in boxes[0] and "bulk ESS" in boxes[0]
    tex = (tmp_path / "r" / "ranking.tex").read_text(encoding="utf-8")
    assert "rank Mallows (not converged)" in tex
    assert (tmp_path / "r" / "methods.txt").read_text(encoding="utf-8") == text + "\n"


@pytest.mark.pymc
def test_r_hat_above_threshold_is_stated(four_systems, tmp_path, monkeypatch):
    """A converged fit, then the same fit whose summary reports R-hat 1.08."""
    from rankstats.models.mallows.fit import MallowsFit

    scores, rk = four_systems
    fit = rs.models.Mallows().fit(rk, draws=1500, tune=300, chains=2, seed=0, progress=False)
    rep = rs.report(scores, out=tmp_path / "ok", methods=["borda"], models=[fit])
    assert rep.convergence[0].converged
    assert "did not converge" not in rep.methods_text
    assert not _warning_boxes(rep.html.read_text(encoding="utf-8"))

    real = MallowsFit.summary

    def r_hat_108(self, ci_prob=0.95):
        table = real(self, ci_prob)
        table["r_hat"] = 1.08
        table["ess_bulk"] = 5000.0
        return table

    monkeypatch.setattr(MallowsFit, "summary", r_hat_108)
    rep = rs.report(scores, out=tmp_path / "bad", methods=["borda"], models=[fit])
    assert rep.convergence[0].problems == ("max R-hat = 1.080 > 1.01",)
    assert "did not converge (max R-hat = 1.080 > 1.01)" in rep.methods_text
    boxes = _warning_boxes(rep.html.read_text(encoding="utf-8"))
    assert len(boxes) == 1 and "R-hat = 1.080 &gt; 1.01" in boxes[0]


@pytest.mark.pymc
def test_convergence_counts_divergences_and_single_chains():
    import arviz as az

    from rankstats._pymc import compat as _compat
    from rankstats.reporting import convergence

    rng = np.random.default_rng(0)
    diverging = np.zeros((4, 200), dtype=bool)
    diverging[1, [3, 50, 70]] = True
    groups = {"posterior": {"log_worth": rng.normal(size=(4, 200, 3))}}
    groups["sample_stats"] = {"diverging": diverging}
    idata = az.from_dict(groups) if _compat.DATATREE else az.from_dict(**groups)

    class FakeFit:
        model, method, info = "pl", "nuts", {}

        def __init__(self, idata, r_hat=1.0, ess=2000.0):
            self.idata, self.r_hat, self.ess = idata, r_hat, ess

        def summary(self, ci_prob=0.95):
            return pd.DataFrame(
                {"sd": [1.0, 1.0, 0.0], "r_hat": [self.r_hat, 1.0, np.nan], "ess_bulk": self.ess}
            )

    verdict = convergence(FakeFit(idata))
    assert verdict.problems == ("3 divergent transition(s)",) and not verdict.converged
    one_chain = {"posterior": {"log_worth": rng.normal(size=(1, 200, 3))}}
    idata1 = az.from_dict(one_chain) if _compat.DATATREE else az.from_dict(**one_chain)
    assert convergence(FakeFit(idata1)).problems == ("a single chain: R-hat cannot be computed",)
    # A parameter equal in every draw (sd 0, R-hat undefined) is certain, not unconverged.
    idata0 = {"posterior": {"log_worth": rng.normal(size=(4, 200, 3))}}
    idata0 = az.from_dict(idata0) if _compat.DATATREE else az.from_dict(**idata0)
    assert convergence(FakeFit(idata0)).converged
    assert convergence(FakeFit(idata0, ess=399.0)).problems == ("min bulk ESS = 399 < 400",)


# ---------------------------------------------------------------------------- compute once
def _count_calls(monkeypatch):
    """Record every Rankings.from_scores and rs.pairwise call (wherever ``pairwise`` was
    imported) with the level of its input: ``("task", "instance")`` or ``("task",)``."""
    import importlib
    import sys

    from rankstats.core.rankings import Rankings

    pairwise_module = importlib.import_module(
        "rankstats.core.pair_probabilities"
    )  # rs.pairwise: the function

    calls = {"from_scores": [], "pairwise": []}
    real_from_scores = Rankings.from_scores.__func__

    def from_scores(cls, scores, by="task"):
        calls["from_scores"].append(by)
        return real_from_scores(cls, scores, by)

    real_pairwise = pairwise_module.pairwise

    def counted_pairwise(data, *args, **kwargs):
        level = tuple(data.rankers.names) if isinstance(data, Rankings) else type(data).__name__
        calls["pairwise"].append(level)
        return real_pairwise(data, *args, **kwargs)

    monkeypatch.setattr(Rankings, "from_scores", classmethod(from_scores))
    for name, module in list(sys.modules.items()):
        if name.startswith("rankstats") and getattr(module, "pairwise", None) is real_pairwise:
            monkeypatch.setattr(module, "pairwise", counted_pairwise)
    return calls


def test_report_computes_each_statistic_once(tmp_path, monkeypatch):
    """The rankings and their pairwise statistics are built once per level, however many
    aggregators, marks, intervals and comparisons read them."""
    from collections import Counter

    scores = rs.simulate.gumbel(6, 3, 15, phi=0.5, seed=4)
    calls = _count_calls(monkeypatch)
    rep = rs.report(scores, out=tmp_path / "r", methods=["borda", "borda2", "mean"])
    assert calls["from_scores"] == ["instance"]
    # σ^l, the intervals and the marks share one Pairwise of the (task, instance) rankings;
    # σ^2l may add one of its second level (the per-task Borda rankings), never a second one.
    counts = Counter(calls["pairwise"])
    assert counts[("task", "instance")] == 1
    assert set(counts) <= {("task", "instance"), ("task",)} and max(counts.values()) == 1
    # ... and the numbers are those of separate rs.aggregate calls.
    for method in ("borda", "borda2", "mean"):
        result = rs.aggregate(scores, method=method).table.set_index("system")
        expected = result.loc[rep.ranking["system"], "score"].to_numpy()
        np.testing.assert_allclose(rep.ranking[f"score_{method}"], expected)

    calls["from_scores"].clear()
    calls["pairwise"].clear()
    rs.report(scores, out=tmp_path / "t", methods=["borda", "copeland", "mean"], by="task")
    assert calls["from_scores"] == ["task"]
    assert calls["pairwise"] == [("task",)]


def test_report_reuses_its_intervals(tmp_path, monkeypatch):
    """One Hoeffding test per report: the marks, the heatmap and the model comparison read it."""
    import importlib

    compute = importlib.import_module("rankstats.reporting.report_data")

    scores = rs.load_dataset("dialogue_tc", tasks=["BLEU", "H:overall"])
    tests = []
    real = compute.hoeffding_test
    monkeypatch.setattr(compute, "hoeffding_test", lambda *a, **k: tests.append(1) or real(*a, **k))
    rep = rs.report(scores, out=tmp_path, models=["bt"], methods=["borda"])
    assert len(tests) == 1
    assert rep.comparison.intervals is rep.intervals and rep.pairs is rep.intervals.table
    pd.testing.assert_frame_equal(
        rep.ranking[["system", "rank_low", "rank_high"]], rep.intervals.rank_range()
    )


# ---------------------------------------------------------------------------- package data
def _package_dir():
    import importlib

    return Path(importlib.import_module("rankstats.reporting").__file__).parent


def test_references_bib_is_package_data():
    """references.bib and the page template are read with importlib.resources, and the
    package-data globs of pyproject.toml ship every data file of rankstats/report."""
    import fnmatch
    import tomllib
    from importlib import resources

    from rankstats.reporting.methods import MODEL_CITATIONS, references

    bib = resources.files("rankstats.reporting").joinpath("references.bib").read_text("utf-8")
    keys = re.findall(r"^@\w+\{([^,]+),", bib, flags=re.M)
    assert list(references()) == keys
    used = {"himmi2023", "colombo2022", "hoeffding1963", "holm1979", "copeland1951"}
    assert used | set(MODEL_CITATIONS.values()) | {"peyrard2021"} <= set(keys)
    pyproject = tomllib.loads((Path(rs.__file__).parents[1] / "pyproject.toml").read_text())
    globs = pyproject["tool"]["setuptools"]["package-data"]["rankstats.reporting"]
    root = _package_dir()
    data = [
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file() and p.suffix not in (".py", ".pyc")
    ]
    assert {"references.bib", "templates/report.html.j2"} <= set(data)
    for name in data:
        assert any(fnmatch.fnmatch(name, g) for g in globs), f"{name} would not be installed"
    assert "jinja2>=3.1" in pyproject["project"]["dependencies"]


@pytest.mark.slow
def test_installed_wheel_finds_its_data(tmp_path):
    """Build the wheel, unpack it (a pure-Python install) and write a report from there."""
    import shutil
    import subprocess
    import sys
    import zipfile

    source = tmp_path / "src"
    repo = Path(rs.__file__).parents[1]
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(repo / "rankstats", source / "rankstats", ignore=ignore)
    shutil.copytree(repo / "models", source / "models", ignore=ignore)  # the zoo (package-dir)
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(repo / name, source / name)
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(source)],
        capture_output=True,
        text=True,
    )
    if build.returncode != 0:
        # tests/test_wheel.py builds the same way: a failure here is the package's, not the
        # machine's (a skip once hid the missing models/ directory of the copy)
        pytest.fail(f"the wheel did not build: {build.stderr[-600:]}")
    (wheel,) = tmp_path.glob("rankstats-*.whl")
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    code = (
        "import sys, tempfile; sys.path.insert(0, sys.argv[1]); import rankstats as rs\n"
        "assert rs.__file__.startswith(sys.argv[1]), rs.__file__\n"
        "rep = rs.report(rs.load_dataset('xtreme_missing'), out=tempfile.mkdtemp())\n"
        "print((rep.out / 'references.bib').read_text()[:40])\n"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-c", code, str(site)], capture_output=True, text=True, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("@article{himmi2023,")


def test_method_names_come_from_one_mapping(tmp_path):
    from rankstats._util.method_names import METHOD_NAMES

    sim = rs.simulate.gumbel(4, 2, seed=0)
    rep = rs.report(sim, out=tmp_path, methods=["copeland", "median", "borda"])
    names = ", ".join(METHOD_NAMES[m] for m in ("copeland", "median", "borda"))
    assert f"Aggregators: {names}." in rep.methods_text
    assert f"Ordered by {METHOD_NAMES['copeland']}." in rep.html.read_text(encoding="utf-8")


# ---------------------------------------------------------------------------- paper formats
def _tex_body(tex: str) -> list[str]:
    """The body rows of a booktabs ``tabular`` or of a ``longtable`` (more than 40 rows)."""
    if r"\endlastfoot" in tex:
        return tex.split("\\endlastfoot\n")[1].split(r"\end{longtable}")[0].strip().splitlines()
    return tex.split(r"\midrule")[1].split(r"\bottomrule")[0].strip().splitlines()


def _tex_body_cells(tex: str) -> list[list[str]]:
    body = _tex_body(tex)
    return [[c.strip() for c in line.removesuffix(r"\\").split(" & ")] for line in body]


def _decimals(cell: str) -> int:
    return len(cell.partition(".")[2])


def test_one_number_format_per_column(tac_report):
    """``3432`` never sits next to ``2418.500``: every numeric column has one number of decimals,
    in LaTeX and in HTML."""
    rows = _tex_body_cells((tac_report.out / "ranking.tex").read_text(encoding="utf-8"))
    columns = list(zip(*rows, strict=True))
    numeric = [columns[0], *columns[2:-1]]
    for col in numeric:
        assert len({_decimals(c) for c in col if c != "--"}) == 1, col
    # Averaged ties (two-level Borda ranks such as 8.5): every rank of that column has one decimal.
    rank_borda2 = columns[4]
    assert any(c.endswith(".5") for c in rank_borda2) and all("." in c for c in rank_borda2)
    page = tac_report.html.read_text(encoding="utf-8")
    table = page.split("<table id='ranking'>")[1].split("</table>")[0]
    html_rows = [re.findall(r"<td>([^<]*)</td>", r) for r in table.split("<tr")[2:]]
    for col in zip(*html_rows, strict=True):
        cells = [c for c in col if re.fullmatch(r"-?\d+(\.\d+)?", c)]
        if cells:
            assert len({_decimals(c) for c in cells}) == 1, col


def test_column_formats():
    from rankstats.reporting._format import column, decimals

    assert column([3432.0, 2418.5]) == ["3432.0", "2418.5"]
    assert column([3432.1734, 2418.5]) == ["3432.2", "2418.5"]
    assert column([0.51234, 0.2]) == ["0.512", "0.200"]
    assert column([1.0, 2.0, 3.0], "rank") == ["1", "2", "3"]
    assert column([1.0, 2.5, float("nan")], "rank") == ["1.0", "2.5", "--"]
    assert decimals([1 / 3, 2.0], "rank") == 2
    assert column([], "score") == []


def test_sigma_names_in_latex_and_html(tac_report):
    tex = (tac_report.out / "ranking.tex").read_text(encoding="utf-8")
    header = tex.split(r"\toprule")[1].split(r"\midrule")[0]
    for symbol in (r"$\sigma^{l}$", r"$\sigma^{2l}$", r"$\sigma^{\mu}$"):
        assert f"rank {symbol} & score {symbol}" in header
    assert "borda" not in header and "mean" not in header
    assert r"$\sigma^{l}$: one-level Borda with imputation" in tex  # the caption explains
    page = tac_report.html.read_text(encoding="utf-8")
    heading = page.split("<table id='ranking'>")[1].split("</tr>")[0]
    for sup in ("l", "2l", "μ"):
        assert f"σ<sup>{sup}</sup></th>" in heading
    assert "rank borda" not in heading


# ---------------------------------------------------------------------------- summary paragraph
def _result(orderings, order):
    return rs.hoeffding_test(rs.pairwise(rs.Rankings.from_orderings(orderings)), order=order)


def test_summary_a_clear_winner():
    from rankstats.reporting.summary import claims

    text = claims(_result([["a", "b", "c"]] * 60, ["a", "b", "c"]))
    assert text.startswith("Can be claimed: a is significantly above every other system;")
    assert "3 of the 3 pairs of systems differ significantly" in text
    assert "every system's rank is established" in text
    assert "Cannot be claimed" not in text


def test_summary_overlapping_ranges():
    from rankstats.reporting.summary import claims

    res = _result([["a", "b", "c"]] * 40 + [["b", "a", "c"]] * 20, ["a", "b", "c"])
    text = claims(res, method="borda")
    assert "2 systems could be first (their rank range starts at 1): a, b" in text
    assert f"{res.n_significant} of the 3 pairs" in text and res.n_significant == 2
    assert "Cannot be claimed: the order of systems whose rank ranges overlap (2 of the 3" in text
    assert "(σ^l)" in text


def test_summary_no_pair_can_be_significant():
    from rankstats.reporting.summary import claims

    res = _result([["a", "b", "c"]] * 4, ["a", "b", "c"])
    assert res.n_significant == 0
    text = claims(res, by="task", has_instances=True)
    assert not text.startswith("Can be claimed")
    assert "no pair of systems differs significantly" in text
    need = res.min_compared_for_significance()
    assert f"compared in at most 4 ranking(s), and even a unanimous pair needs {need}" in text
    assert "rank per instance" in text
    assert "more tasks" in claims(res, by="task", has_instances=False)


@pytest.mark.pymc
def test_summary_contradicted_order_and_unconverged_model():
    from rankstats.reporting.diagnostics import Convergence
    from rankstats.reporting.summary import claims

    res = _result([["a", "b", "c"]] * 60, ["b", "a", "c"])  # the order puts b above a
    bad = Convergence("mallows", "mcmc", True, 1.2, 50.0, 0, ("max R-hat = 1.200 > 1.01",))
    good = Convergence("pl", "map", False)
    text = claims(res, [bad, good], method="borda2")
    assert "order by two-level Borda with imputation (σ^2l) at 1 place(s) where the next" in text
    assert "significantly above (‡): b" in text
    assert "Mallows (Kendall) model fitted by mcmc: it did not converge (max R-hat" in text
    assert "Plackett" not in text


def test_report_opens_with_the_summary(tac_report):
    page = tac_report.html.read_text(encoding="utf-8")
    assert tac_report.summary.startswith("Can be claimed:")
    first = page.index("<p id='summary'")
    assert first < page.index("<h2>")
    assert str(markupsafe.escape(tac_report.summary)) in page


def test_summary_top_group():
    from rankstats.reporting.summary import claims

    orderings = [["a", "b", "c", "d"]] * 30 + [["b", "a", "c", "d"]] * 30
    text = claims(_result(orderings, ["a", "b", "c", "d"]))
    assert "could be first (their rank range starts at 1): a, b; each of these 2 is sig" in text
    assert (
        "significantly above all 2 other systems, so together they form a significant top" in text
    )
