"""Hostile system and task names are harmless in every output of ``rs.report`` and every figure.

The expected forms are written out here by hand (an HTML parser, a LaTeX decoder, the CSV
module, matplotlib's own mathtext test): nothing is compared with the escaper's own output.
"""

import csv
import html.parser
import importlib
import io
import re
import shutil
import subprocess
import warnings

import numpy as np
import pandas as pd
import pytest
from matplotlib import cbook
from reporting.test_report_atomic import STANDARD  # the files of every report

import rankstats as rs
from rankstats.aggregation.hoeffding_figure import significance_heatmap
from rankstats.errors import DataWarning, OutputError
from rankstats.models.plots import forest_plot

pytestmark = pytest.mark.long

HOSTILE = [
    "$\\alpha$",
    "$\\notacommand$",  # mathtext would raise on this one
    '=HYPERLINK("x")',
    "+1",
    "-x",
    "@sum",
    "a<b>|c",
    "x\ny",
    "a\u202eb",  # right-to-left override
    "<script>alert(1)</script>",
    "50% & _#{}~^\\",
    "模型",
]
LOWER = ["$\\alpha$", "a\u202eb"]  # lower-is-better tasks
SKIPPED = "@sum"  # a task with one evaluated system
NEVER = "+1"  # a system evaluated nowhere


def visible(name: str) -> str:
    """A name as the documents show it: the bidi override as the text ``\\u202e``."""
    return name.replace("\u202e", "\\u202e")


def prose(name: str) -> str:
    """A name inside running text (methods paragraph): line breaks visible too."""
    return visible(name).replace("\n", "\\x0a")


def formula_safe(name: str) -> str:
    """OWASP: a text cell starting with = + - @ gets a leading apostrophe."""
    return "'" + name if name[:1] in "=+-@" else name


@pytest.fixture(scope="module")
def messy_wide() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    tasks = [*HOSTILE, "a b", "a_b"]
    wide = pd.DataFrame(rng.normal(size=(len(HOSTILE), len(tasks))), columns=tasks)
    wide.iloc[::3, 4] = np.nan  # some missing cells
    wide.loc[1:, SKIPPED] = np.nan  # only one system evaluated: set aside
    wide.loc[HOSTILE.index(NEVER), :] = np.nan  # evaluated nowhere
    wide.insert(0, "system", HOSTILE)
    return wide


@pytest.fixture(scope="module")
def hostile_report(messy_wide, tmp_path_factory):
    with pytest.warns(DataWarning):
        scores = rs.Scores.from_wide(
            messy_wide, system="system", higher_is_better={t: False for t in LOWER}
        )
    out = tmp_path_factory.mktemp("hostile") / "report"
    rep = rs.report(scores, out=out, title="$\\notacommand$ & <b>bold</b>", by="task")
    return rep


class _Page(html.parser.HTMLParser):
    """Tags of the page, the text of every ranking name cell and of every prose element."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.names: list[str] = []
        self.prose: dict[str, list[str]] = {}
        self._in_name = False
        self._stack: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append(tag)
        self._stack.append((tag, attrs.get("id")))
        if tag == "td" and attrs.get("class") == "name":
            self._in_name = True
            self.names.append("")

    def handle_endtag(self, tag):
        if tag == "td":
            self._in_name = False
        while self._stack:
            if self._stack.pop()[0] == tag:
                break

    def handle_data(self, data):
        if self._in_name:
            self.names[-1] += data
        for tag, ident in self._stack:
            if tag in ("p", "li", "h1", "h2", "h3", "title"):
                self.prose.setdefault(ident or tag, []).append(data)


def test_report_finishes_and_writes_figures(hostile_report):
    out = hostile_report.out
    assert (out / "significance_heatmap.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (out / "significance_heatmap.pdf").read_bytes()[:5] == b"%PDF-"
    # "a b" and "a_b" are both ranked: no per-task file is written, so nothing can collide.
    n_tasks = len(HOSTILE) + 2 - 1  # one task set aside
    assert f"on {n_tasks} tasks" in hostile_report.methods_text
    assert {p.name for p in hostile_report.files} == STANDARD


def test_html_names_are_text(hostile_report):
    page = _Page()
    page.feed(hostile_report.html.read_text(encoding="utf-8"))
    assert "script" not in page.tags and "b" not in page.tags
    assert sorted(page.names) == sorted(HOSTILE)
    assert page.names == hostile_report.ranking["system"].tolist()
    methods = "".join(page.prose["methods"])
    assert methods == hostile_report.methods_text
    # No raw bidi override in running text: it would reverse the rest of the paragraph.
    for key, parts in page.prose.items():
        assert "\u202e" not in "".join(parts), key
    assert "".join(page.prose["title"]) == "rankstats report: $\\notacommand$ & <b>bold</b>"


def test_methods_state_hostile_names_visibly(hostile_report):
    text = hostile_report.methods_text
    for task in LOWER:
        assert prose(task) in text
    assert f"set aside: {prose(SKIPPED)}." in text
    assert f"ranked on imputation alone (every pairwise probability ½): {prose(NEVER)}." in text
    assert "\u202e" not in text and "\n" not in text
    assert (hostile_report.out / "methods.txt").read_text(encoding="utf-8") == text + "\n"


_LATEX = {
    r"\textbackslash{}": "\\",
    r"\textasciitilde{}": "~",
    r"\textasciicircum{}": "^",
    r"\textless{}": "<",
    r"\textgreater{}": ">",
    r"\textbar{}": "|",
    r"\&": "&",
    r"\%": "%",
    r"\$": "$",
    r"\#": "#",
    r"\_": "_",
    r"\{": "{",
    r"\}": "}",
}
_LATEX_TOKEN = re.compile("|".join(re.escape(k) for k in _LATEX))


def _balanced_braces(text: str) -> bool:
    depth = 0
    for token in re.findall(r"\\.|[{}]", text):
        depth += {"{": 1, "}": -1}.get(token, 0)
        if depth < 0:
            return False
    return depth == 0


def test_latex_names_are_escaped(hostile_report):
    tex = (hostile_report.out / "ranking.tex").read_text(encoding="utf-8")
    assert _balanced_braces(tex)
    body = tex.split(r"\midrule")[1].split(r"\bottomrule")[0].strip().splitlines()
    systems = hostile_report.ranking["system"].tolist()
    assert len(body) == len(systems)
    for line, name in zip(body, systems, strict=True):
        cell = line.split(" & ")[1]
        cell = cell.replace(r"$^{\dagger}$", "").replace(r"$^{\ddagger}$", "")
        assert _LATEX_TOKEN.sub(lambda m: _LATEX[m.group()], cell) == visible(name).replace(
            "\n", " "
        )
        # Once the escapes are removed no LaTeX special character is left.
        assert not set(_LATEX_TOKEN.sub("", cell)) & set("\\&%$#_{}~^<>|")
        assert _balanced_braces(cell)
    caption = re.search(r"\\caption\{(.*)\}\n", tex).group(1)
    assert caption.startswith(r"Ranking of \$\textbackslash{}notacommand\$ \& \textless{}b")


def _csv_rows(path):
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_csv_cells_cannot_run_as_formulas(hostile_report):
    ranking = _csv_rows(hostile_report.out / "ranking.csv")
    assert [r["system"] for r in ranking] == [
        formula_safe(s) for s in hostile_report.ranking["system"]
    ]
    assert {formula_safe(n) for n in HOSTILE} == {r["system"] for r in ranking}
    pairs = _csv_rows(hostile_report.out / "pairs.csv")
    assert len(pairs) == len(HOSTILE) * (len(HOSTILE) - 1)
    for row in pairs:
        for column in ("system_a", "system_b"):
            assert row[column][:1] not in "=+-@" or row[column].startswith("'")
    assert {r["system_a"] for r in pairs} == {formula_safe(n) for n in HOSTILE}
    # Numbers stay numbers: a negative score is data, not a formula.
    assert any(float(r["score_mean"]) < 0 for r in ranking if r["score_mean"])


def _assert_literal(texts, names):
    """Every label is shown literally: matplotlib does not see mathtext, the text is the name."""
    assert len(texts) == len(names)
    for text, name in zip(texts, names, strict=True):
        assert not cbook.is_math_text(text), text
        assert text.replace(r"\$", "$") == visible(name)


def _draw(fig) -> None:
    for fmt in ("png", "pdf"):
        buffer = io.BytesIO()
        with warnings.catch_warnings():
            # The default font has no CJK glyphs: a box is drawn, which is fine here.
            warnings.filterwarnings("ignore", message="Glyph .* missing from font")
            fig.savefig(buffer, format=fmt)
        assert buffer.tell() > 1000


def test_heatmap_labels_are_literal(hostile_report):
    fig = significance_heatmap(hostile_report.pairs)
    ax = fig.axes[0]
    names = hostile_report.ranking["system"].tolist()
    _assert_literal([t.get_text() for t in ax.get_yticklabels()], names)
    _assert_literal([t.get_text() for t in ax.get_xticklabels()], names)
    _draw(fig)


@pytest.fixture(scope="module")
def complete_scores() -> rs.Scores:
    rng = np.random.default_rng(1)
    rows = [
        (s, t, i, float(rng.normal() + k / 4))
        for k, s in enumerate(HOSTILE)
        for t in ("$\\notacommand$", "a\u202eb")
        for i in range(12)
    ]
    return rs.Scores.from_long(
        pd.DataFrame(rows, columns=["system", "task", "instance", "score"]), instance="instance"
    )


def test_forest_plot_labels_are_literal(complete_scores):
    rk = rs.Rankings.from_scores(complete_scores, by="instance")
    fit = rs.models.PlackettLuce().fit(rk, method="map")
    fig = forest_plot(fit)
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    _assert_literal(labels, fit.order)
    _draw(fig)


def test_forest_pages_and_compare_figures_are_literal(complete_scores):
    from rankstats.models.plots import forest_pages

    rk = rs.Rankings.from_scores(complete_scores, by="instance")
    fit = rs.models.PlackettLuce().fit(rk, method="map")
    pages = forest_pages(fit, per_page=5)
    labels = [t.get_text() for page in pages for t in page.axes[0].get_yticklabels()]
    _assert_literal(labels, fit.order)
    cmp = rs.compare(rs.pairwise(rk), [fit])
    matrix = cmp.plot_matrix()
    _assert_literal([t.get_text() for t in matrix.axes[0].get_yticklabels()], cmp.order)
    forest = cmp.plot_forest(k=None)
    ticks = [t.get_text() for t in forest.axes[0].get_yticklabels()]
    assert len(ticks) == len(HOSTILE) * (len(HOSTILE) - 1) // 2
    assert not any(cbook.is_math_text(t) for t in ticks)
    _draw(matrix)
    _draw(forest)


def test_paired_figures_and_section(complete_scores, tmp_path):
    result = rs.paired(complete_scores, task="$\\notacommand$", seed=0, n_resamples=200)
    matrix = result.plot_matrix()
    ax = matrix.axes[0]
    ranked = [t.get_text().replace(r"\$", "$") for t in ax.get_yticklabels()]
    assert sorted(ranked) == sorted(visible(n) for n in HOSTILE)
    assert not any(cbook.is_math_text(t.get_text()) for t in ax.get_yticklabels())
    assert not cbook.is_math_text(ax.get_title())
    assert ax.get_title().replace(r"\$", "$").startswith("$\\notacommand$: P(a beats b)")
    _draw(matrix)
    pair = result.plot_pair("$\\alpha$", "a\u202eb")
    left, right = pair.axes
    assert left.get_xlabel().replace(r"\$", "$") == "a\\u202eb"
    assert not cbook.is_math_text(left.get_ylabel()) and not cbook.is_math_text(right.get_xlabel())
    legend = [t.get_text() for t in left.get_legend().get_texts()]
    assert not any(cbook.is_math_text(t) for t in legend)
    _draw(pair)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        rep = rs.report(
            complete_scores, out=tmp_path / "r", methods=["borda"], paired=["$\\notacommand$"]
        )
    strengths = _csv_rows(tmp_path / "r" / "paired_notacommand_strengths.csv")
    assert {r["system"] for r in strengths} == {formula_safe(n) for n in HOSTILE}
    page = _Page()
    page.feed(rep.html.read_text(encoding="utf-8"))
    assert "script" not in page.tags
    assert "".join(page.prose["h3"]) == "$\\notacommand$"
    assert (tmp_path / "r" / "paired_notacommand_matrix.pdf").read_bytes()[:5] == b"%PDF-"


def test_colliding_file_names_refused_before_any_file(complete_scores, tmp_path, monkeypatch):
    frame = complete_scores.data.astype({"task": str}).replace(
        {"task": {"$\\notacommand$": "a b", "a\u202eb": "a_b"}}
    )
    scores = rs.Scores.from_long(frame, instance="instance")
    compute_module = importlib.import_module("rankstats.reporting.report_data")

    def no_computing(*args, **kwargs):
        raise AssertionError("computing started before the collision was refused")

    # After compute's own checks (compute.check), the first computing step builds rankings.
    monkeypatch.setattr(compute_module, "pairwise", no_computing)
    monkeypatch.setattr(compute_module, "aggregate_many", no_computing)
    out = tmp_path / "r"
    with pytest.raises(OutputError, match=r"'a b' and 'a_b'.*same file name"):
        rs.report(scores, out=out, paired=["a b", "a_b"])
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="no pdflatex on this machine")
def test_latex_table_compiles(hostile_report, tmp_path):
    shutil.copy(hostile_report.out / "ranking.tex", tmp_path / "ranking.tex")
    (tmp_path / "doc.tex").write_text(
        "\\documentclass{article}\n\\usepackage[utf8]{inputenc}\n\\usepackage[T1]{fontenc}\n"
        "\\usepackage{booktabs}\n"
        # pdflatex has no CJK glyphs: map the two characters so the test checks escaping only.
        "\\DeclareUnicodeCharacter{6A21}{?}\n\\DeclareUnicodeCharacter{578B}{?}\n"
        "\\begin{document}\n\\input{ranking.tex}\n\\end{document}\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout[-3000:]
    assert (tmp_path / "doc.pdf").exists()
