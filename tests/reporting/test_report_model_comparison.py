"""The report's model-comparison section (``rs.report(..., models=[...])`` with two or more fits).

No PyMC model is compiled in the default run: the Plackett–Luce and Bradley–Terry "posteriors" are
the normal-approximation draws of their MAP fits (scipy), relabelled as sampled fits with their
pointwise log-likelihood attached exactly as a NUTS fit attaches it; the Mallows fit is the real
Gibbs sampler (NumPy / numba, no PyMC).  The numbers of the section are checked against
``rs.models.compare_fits`` called here on the same fits.  One slow test runs the real thing
(NUTS) through the command line.
"""

from __future__ import annotations

import copy
import dataclasses
import re
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

import rankstats as rs
from rankstats._pymc.convergence import ConvergenceWarning
from rankstats._util.method_names import MODEL_NAMES
from rankstats.models import LOOWarning
from rankstats.models import pointwise_likelihood as pointwise
from rankstats.reporting.model_comparison import (
    ModelComparisonSection,
    latex_table,
    run_model_comparison,
    verdicts,
)

pytestmark = [pytest.mark.long, pytest.mark.pymc]

HOSTILE = ["<b>bold</b>", "$x$", "A & B", r"c\textbf{y}", "plain"]


def _quiet(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return call()


def _sampled(model, rk: rs.Rankings, seed: int):
    """A MAP fit turned into a 'sampled' fit: its normal-approximation draws as the posterior,
    with the pointwise log-likelihood a NUTS fit would attach."""
    fit = model.fit(rk, method="map", seed=seed)
    fake = dataclasses.replace(fit, method="nuts", idata=copy.deepcopy(fit.idata))
    pointwise.add_to_nuts_fit(model, rk, None, fake)
    return fake


def _scores(names: list[str], n_tasks: int = 30, seed: int = 5) -> rs.Scores:
    rng = np.random.default_rng(seed)
    strength = np.linspace(1.0, 0.0, len(names))
    values = strength[:, None] + rng.normal(0, 0.5, (len(names), n_tasks))
    frame = pd.DataFrame(values, columns=[f"t{i}" for i in range(n_tasks)])
    frame.insert(0, "system", names)
    return rs.Scores.from_wide(frame, system="system")


@pytest.fixture(scope="module")
def fitted():
    scores = _scores(HOSTILE)
    rk = rs.Rankings.from_scores(scores, by="task")
    fits = {
        "pl": _sampled(rs.models.PlackettLuce(), rk, 1),
        "bt": _sampled(rs.models.BradleyTerry(), rk, 2),
    }
    mallows = _quiet(
        lambda: rs.models.Mallows().fit(rk, draws=400, tune=100, chains=2, seed=3, progress=False)
    )
    map_fit = rs.models.Mallows().fit(rk, method="map")  # one point: not comparable
    return scores, rk, fits, map_fit, mallows


@pytest.fixture(scope="module")
def report(fitted, tmp_path_factory):
    scores, _, fits, map_fit, _ = fitted
    out = tmp_path_factory.mktemp("mc") / "rep"
    models = [fits["pl"], fits["bt"], map_fit]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        rep = rs.report(scores, out=out, methods=["borda"], models=models, by="task")
    return rep, out


def test_section_numbers_equal_compare_fits(fitted, report):
    _, _, fits, _, _ = fitted
    rep, out = report
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LOOWarning)
        expected = rs.models.compare_fits(fits).table  # independently, on the same fits
    section = rep.model_comparison
    assert section is not None and section.comparison is not None
    got = section.comparison.table
    assert list(got.index) == list(expected.index)
    cols = ["elpd", "se", "p", "elpd_diff", "dse", "weight"]
    np.testing.assert_allclose(got[cols].to_numpy(float), expected[cols].to_numpy(float))
    csv = pd.read_csv(out / "model_comparison.csv").set_index("fit")
    np.testing.assert_allclose(csv.loc[list(expected.index), cols], expected[cols], rtol=1e-12)
    assert csv.loc[expected.index[0], "verdict"] == "preferred (highest elpd)"

    page = (out / "report.html").read_text(encoding="utf-8")
    assert "<h2 id='model-comparison'>Model comparison</h2>" in page
    table = page.split("<table id='model-comparison-table'>")[1].split("</table>")[0]
    rows = re.findall(r"<tr[^>]*><td class='name'>([^<]+)</td>((?:<td>[^<]*</td>)+)", table)
    assert [r[0] for r in rows] == [MODEL_NAMES[n] for n in expected.index]
    for (_, cells), (_, want) in zip(rows, expected.iterrows(), strict=True):
        values = re.findall(r"<td>([^<]*)</td>", cells)
        assert values[:6] == [
            f"{want['elpd']:.1f}",
            f"{want['se']:.1f}",
            f"{want['elpd_diff']:.1f}",
            f"{want['dse']:.1f}",
            f"{want['weight']:.3f}",
            f"{want['p']:.1f}",
        ]
    # The preferred row is the best of compare_fits, marked once.
    assert table.count("class='preferred'") == 1
    assert f"class='preferred'><td class='name'>{MODEL_NAMES[expected.index[0]]}" in (table)
    tex = (out / "model_comparison.tex").read_text(encoding="utf-8")
    best = MODEL_NAMES[expected.index[0]]
    assert f"{best}$^{{*}}$ & {expected['elpd'].iloc[0]:.1f}" in tex


def test_fits_not_compared_are_listed_with_the_reason(report):
    rep, out = report
    section = rep.model_comparison
    excluded = dict(section.excluded)
    assert list(excluded) == ["mallows"]
    assert "method='map'" in excluded["mallows"] and "method='mcmc'" in excluded["mallows"]
    page = (out / "report.html").read_text(encoding="utf-8")
    listed = page.split("<ul id='model-comparison-excluded'>")[1].split("</ul>")[0]
    assert "Mallows (Kendall): method=&#39;map&#39; holds an optimum" in listed
    assert "No posterior predictive check for Mallows (Kendall)" in page
    tex = (out / "model_comparison.tex").read_text(encoding="utf-8")
    assert "Not compared: Mallows (Kendall) (method='map' holds an optimum" in tex
    assert "Mallows (Kendall) was not compared" in rep.methods_text
    assert "vehtari2017" in (out / "references.bib").read_text(encoding="utf-8")


def test_ppc_summary_per_model(fitted, report):
    _, rk, fits, _, _ = fitted
    rep, out = report
    assert set(rep.model_comparison.ppc) == {"pl", "bt"}
    for key, res in rep.model_comparison.ppc.items():
        table = pd.read_csv(out / f"ppc_{key}.csv")
        np.testing.assert_allclose(
            table["p_value"].to_numpy(float), res.statistics["p_value"].to_numpy(float)
        )
        # The same check, recomputed here with the report's settings, gives the same ppp-values.
        again = fits[key].ppc(rk, draws=200, seed=0)
        np.testing.assert_allclose(
            again.statistics["p_value"].to_numpy(float),
            res.statistics["p_value"].to_numpy(float),
        )
        for group in res.plots():
            assert (out / f"ppc_{key}_{group}.png").exists()
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "<h3>Posterior predictive checks</h3>" in page
    assert "href='ppc_pl_pairs.png'" in page


def test_names_with_markup_are_escaped(report):
    _, out = report
    page = (out / "report.html").read_text(encoding="utf-8")
    section = page.split("<h2 id='model-comparison'>")[1].split("<h2")[0]
    assert "<b>" not in section and "$x$" not in section.replace("&lt;", "")
    assert "<b>bold</b>" not in page and "&lt;b&gt;bold&lt;/b&gt;" in page
    # The PPC tables name the systems as data (CSV), the statistics of the page as text.
    pairs = pd.read_csv(out / "ppc_pl.csv")
    assert "<b>bold</b>" in set(pairs["system_a"]) | set(pairs["system_b"])
    tex = (out / "model_comparison.tex").read_text(encoding="utf-8")
    assert "<b>" not in tex


def test_latex_and_html_escape_labels_and_reasons(fitted):
    _, _, fits, _, mallows = fitted
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LOOWarning)
        cmp = rs.models.compare_fits({"pl": fits["pl"], "mallows": mallows})
    labels = {"pl": "<b>PL</b> & $x$", "mallows": "M_1 {#}", "bt": "B&T"}
    result = ModelComparisonSection(
        labels=labels,
        comparison=cmp,
        excluded=(("bt", "50% of <i>x</i> & $y$"),),
    )
    tex = latex_table(result)
    assert r"\textless{}b\textgreater{}PL" in tex or r"<b>PL</b>" not in tex
    assert r"\& \$x\$" in tex
    assert r"M\_1 \{\#\}" in tex
    assert r"50\% of" in tex and r"\& \$y\$" in tex
    assert "$x$" not in tex.replace(r"\$x\$", "")

    from rankstats.reporting import html
    from rankstats.reporting.model_comparison import ModelComparisonFiles, section

    values = section(result, ModelComparisonFiles(None, None, {}, {}))
    page = (
        html._environment()
        .from_string(
            "{% for r in s.rows %}<td>{{ r.name }}</td>{% endfor %}"
            "{% for e in s.excluded %}<li>{{ e.name }}: {{ e.reason }}</li>{% endfor %}"
        )
        .render(s=values)
    )
    assert "&lt;b&gt;PL&lt;/b&gt; &amp; $x$" in page
    assert "B&amp;T: 50% of &lt;i&gt;x&lt;/i&gt; &amp; $y$" in page
    assert "<b>" not in page and "<i>" not in page


def test_marks_come_from_the_one_comparison(fitted):
    _, _, fits, _, mallows = fitted
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LOOWarning)
        cmp = rs.models.compare_fits({**fits, "mallows": mallows})
    marks = verdicts(cmp)
    assert [n for n, m in marks.items() if m["preferred"]] == [cmp.best]
    for name, m in marks.items():
        row = cmp.table.loc[name]
        assert m["close"] == (name != cmp.best and row["elpd_diff"] < 2 * row["dse"])
        assert m["k_bad"] == int(row["pareto_k_high"])
        assert m["k_good"] + m["k_ok"] + m["k_bad"] == cmp.n_units


def test_no_section_with_one_fit_and_no_comparison_with_map_fits_only(fitted):
    _, rk, _, map_fit, _ = fitted
    assert run_model_comparison([map_fit], rk) is None
    bt_map = rs.models.BradleyTerry().fit(rk, method="map", seed=1)
    result = run_model_comparison([map_fit, bt_map], rk)
    assert result.comparison is None
    assert [k for k, _ in result.excluded] == ["mallows", "bt"]
    assert result.ppc == {} and len(result.ppc_skipped) == 2
    tex = latex_table(result)
    assert "No rank models could be compared by PSIS-LOO" in tex


def test_fits_of_other_data_are_listed_not_compared(fitted):
    _, rk, fits, _, mallows = fitted
    other = rs.Rankings.from_scores(_scores(HOSTILE, seed=9), by="task")
    stranger = _sampled(rs.models.PlackettLuce(), other, 5)
    result = run_model_comparison([fits["pl"], mallows, stranger], rk, ppc_draws=20)
    assert list(result.comparison.table.index) == [
        result.comparison.best,
        *[n for n in result.comparison.table.index[1:]],
    ]
    assert set(result.comparison.table.index) == {"pl", "mallows"}
    assert dict(result.excluded)["pl (2)"].startswith("it was fitted to other data")


def test_constant_loglik_units_get_pareto_k_zero():
    """A ranking with every system tied has the same log-likelihood at every draw: its LOO term
    is exact; ArviZ's Pareto fit of equal weights says k = inf, compare_fits says 0."""
    base = rs.load_rankings("salad")
    ranks = np.vstack([base.ranks, np.full((1, base.n_systems), 2.5)])
    rk = rs.Rankings.from_rank_matrix(pd.DataFrame(ranks, columns=list(base.systems)))
    pl = _sampled(rs.models.PlackettLuce(), rk, 1)
    ma = _quiet(
        lambda: rs.models.Mallows().fit(rk, draws=300, tune=50, chains=2, seed=0, progress=False)
    )
    values = pointwise.pointwise(pl).to_numpy().reshape(-1, rk.n_rankings)
    assert np.ptp(values[:, -1]) == 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LOOWarning)
        cmp = rs.models.compare_fits({"pl": pl, "mallows": ma})
    assert np.isfinite(cmp.pareto_k.to_numpy()).all()
    assert (cmp.pareto_k.iloc[-1] == 0).all()
    assert (cmp.pointwise.iloc[-1] == 0).all()  # log 1: every model gives the tie probability 1
    assert cmp.table["elpd"].to_numpy() == pytest.approx(cmp.pointwise.sum().to_numpy())
    assert (cmp.table["pareto_k_high"] == 0).all()


@pytest.mark.slow
def test_cli_report_with_sampled_models(tmp_path):
    """The command of docs/user-guide/report.md that samples every model (``rankstats report
    ... --models pl bt mallows --model-method nuts``), read from the page with its data and
    replace markers and run here instead of by the docs runner (the page's block is skipped
    there): the same run, and its files checked. NUTS compiles: slow."""
    from pathlib import Path

    from docs_blocks import collect, commands, substituted, write_data

    root = Path(__file__).resolve().parents[2]
    (block,) = [
        b
        for b in collect(root, "docs/user-guide/report.md")
        if b.kind == "bash" and "--model-method nuts" in b.source
    ]
    assert block.marker("skip") and "test_cli_report_with_sampled_models" in block.marker("skip")[0]
    for spec in block.marker("data"):
        write_data(spec, tmp_path)
    (words,) = commands(block, substituted(block))
    assert words[:2] == ["rankstats", "report"] and "--model-method" in words
    run = subprocess.run(
        [sys.executable, "-m", "rankstats", *words[1:]],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=900,
    )
    assert run.returncode == 0, run.stderr
    # what the docs runner checks of every block: no sampler that did not converge
    said = run.stdout + run.stderr
    assert not re.search(r"(?i)\bnot converged\b|did not converge|ConvergenceWarning", said), said
    out = tmp_path / words[words.index("--out") + 1]
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "<h2 id='model-comparison'>Model comparison</h2>" in page
    table = pd.read_csv(out / "model_comparison.csv")
    assert set(table["fit"]) == {"pl", "bt", "mallows"}
    for model in ("pl", "bt", "mallows"):
        assert (out / f"ppc_{model}.csv").exists()
    assert (out / "model_comparison.tex").exists()


def test_tie_caveat_counts_ties_above_the_last_place():
    from rankstats.models.pointwise_likelihood import pl_rankings
    from rankstats.reporting.model_comparison import tie_caveat

    frame = pd.DataFrame(
        [[1, 2.5, 2.5, 4], [1, 2, 3, 4], [1, 2, 3.5, 3.5], [3, 3, 3, 1]], columns=list("abcd")
    )
    rk = rs.Rankings.from_rank_matrix(frame)
    text = tie_caveat(rk, ["mallows", "pl"])
    # Only row 0 ties above the last place (b, c for places 2-3); rows 2 and 3 tie in last
    # place (row 3: three systems on places 2-4, an integer mid-rank), row 1 has no tie.
    assert text.startswith("1 of the 4 rankings")
    assert f"{np.log(2):.1f} in all" in text
    assert tie_caveat(rk, ["pl", "bt"]) is None
    # The convention it describes: Efron's value of a tie above the last place is about the
    # average of the tie-breakings' Plackett–Luce probabilities; in last place, their sum.
    theta = np.log(np.array([[3.0, 2.0, 1.0, 0.5]]))
    w = np.exp(theta[0])

    def prob(order):
        p, left = 1.0, list(range(4))
        for i in order:
            p *= w[i] / w[left].sum()
            left.remove(i)
        return p

    middle = np.exp(pl_rankings(np.array([[1, 2.5, 2.5, 4]]), "subset", theta)[0, 0])
    both = prob([0, 1, 2, 3]) + prob([0, 2, 1, 3])
    assert middle == pytest.approx(both / 2, rel=0.1) and middle < both / 1.9
    last = np.exp(pl_rankings(np.array([[1, 2, 3.5, 3.5]]), "subset", theta)[0, 0])
    assert last == pytest.approx(prob([0, 1, 2, 3]) + prob([0, 1, 3, 2]))


def test_composite_bradley_terry_is_not_judged_by_its_elpd(report):
    rep, out = report
    section = rep.model_comparison
    assert section.composite == ("bt",)
    marks = verdicts(section.comparison, section.composite)
    assert marks["bt"]["verdict"].startswith("composite likelihood")
    assert not marks["bt"]["close"]
    csv = pd.read_csv(out / "model_comparison.csv").set_index("fit")
    assert csv.loc["bt", "verdict"].startswith("composite likelihood")
    assert "Bradley–Terry: composite likelihood, not comparable" in rep.summary
