"""Names never cut into collisions in any figure that draws system names (issue 23, 100+ systems).

Each figure is drawn with 150 long names that share their first 50 characters (as open_clip's
``name / pretrained`` keys do). A plain cut at any width up to 50 gives many systems one label;
the figures draw :func:`rankstats.plotting.names.labels` instead, so the drawn names are unique,
and every shortened one maps back through the key (:func:`rankstats.plotting.names.name_key` of
the same names) to the system drawn at that place. The expected system of each row comes from the
object drawn (its order, its table), never from the figure.
"""

from __future__ import annotations

import importlib

import numpy as np
import pandas as pd
import pytest

import rankstats as rs
from rankstats._util.text import abbreviations, mpl_text
from rankstats.plotting.names import NAME_WIDTH, SHORTENED_NOTE, name_key

pytestmark = [pytest.mark.long, pytest.mark.filterwarnings("ignore::UserWarning")]

_PREFIXES = (
    "openai/clip-vit-large-patch14-336 / laion2b_s32b_b82k_v",
    "convnext_xxlarge / laion2b_s34b_b82k_augreg_rewind_",
    "ViT-B-32-quickgelu / metaclip_fullcc_2.5b_step",
)
NAMES = [f"{_PREFIXES[i % 3]}{i:03d}" for i in range(150)]


def _full(drawn: list[str], names, width: int = NAME_WIDTH) -> list[str]:
    """The system behind each drawn label: a shortened label through the key, any other text
    must be the name itself. Fails on a repeated label."""
    assert len(set(drawn)) == len(drawn), sorted(t for t in drawn if drawn.count(t) > 1)[:4]
    key = name_key(names, width)
    back = dict(zip((mpl_text(x) for x in key["label"]), key["name"], strict=True))
    assert all(len(t) <= width for t in back)
    return [back.get(t, t) for t in drawn]


def _ticks(ax, axis: str = "y") -> list[str]:
    return [t.get_text() for t in getattr(ax, f"get_{axis}ticklabels")()]


def test_plain_cuts_of_these_names_collide():
    """The premise: truncating at the widths the figures used (12 to 36) merges systems."""
    for width in (12, 20, 24, 28, 36):
        assert len({n[: width - 1] for n in NAMES}) <= 3


def test_labels_depend_on_the_set_of_names_not_their_order():
    """Two figures of the same systems in different orders (ranked, by mean rank) draw each
    system with the same label, so one key serves both; checked on 100 random sets of short
    a/b words whose cuts collide in many ways."""
    rng = np.random.default_rng(3)
    for _ in range(100):
        words = {"".join(rng.choice(["a", "b"], size=rng.integers(3, 17))) for _ in range(40)}
        names = sorted(words)
        width = int(rng.choice([5, 6, 8]))
        first = abbreviations(names, width)
        again = abbreviations(list(rng.permutation(names)), width)
        assert again == first
        assert len(set(first.values())) == len(names)


# ------------------------------------------------------------------------------ data
@pytest.fixture(scope="module")
def scores() -> rs.Scores:
    rng = np.random.default_rng(0)
    n = len(NAMES)
    rows = [
        (s, f"t{t}", i, rng.normal(3 * k / n))
        for t in range(2)
        for i in range(10)
        for k, s in enumerate(NAMES)
    ]
    frame = pd.DataFrame(rows, columns=["system", "task", "instance", "score"])
    return rs.Scores.from_long(frame, instance="instance")


@pytest.fixture(scope="module")
def rankings(scores) -> rs.Rankings:
    return rs.Rankings.from_scores(scores, by="instance")


@pytest.fixture(scope="module")
def fit(rankings):
    return rs.models.PlackettLuce().fit(rankings, method="mle")


@pytest.fixture(scope="module")
def comparison(rankings, fit):
    return rs.compare(rs.pairwise(rankings), [fit])


# ------------------------------------------------------------------------------ compare
def test_comparison_matrix(comparison):
    fig = comparison.plot_matrix()
    ax = fig.axes[0]
    for axis in ("x", "y"):
        assert _full(_ticks(ax, axis), comparison.order) == list(comparison.order)
    assert SHORTENED_NOTE in ax.get_title()


def test_comparison_forest(comparison):
    pairs = comparison._uncertain_pairs()[:150]
    ax = comparison.plot_forest(k=150).axes[0]
    drawn = _ticks(ax)
    assert len(set(drawn)) == len(drawn) == 150
    key = name_key(comparison.order)  # one key for every page
    back = dict(zip(key["label"], key["name"], strict=True))
    split = [t.split(" vs ") for t in drawn]
    assert [(back.get(a, a), back.get(b, b)) for a, b in split] == pairs
    assert SHORTENED_NOTE in ax.get_title()
    assert _ticks(comparison.plot_forest(k=10).axes[0]) == drawn[:10]


# ------------------------------------------------------------------------------ models
def test_forest_plot_and_pages(fit):
    from rankstats.models.plots import forest_pages, forest_plot

    one = forest_plot(fit)
    assert _full(_ticks(one.axes[0]), fit.order) == list(fit.order)  # best first (at the top)
    assert SHORTENED_NOTE in one.axes[0].get_title()
    pages = forest_pages(fit, per_page=60)
    drawn = [t for page in pages for t in _ticks(page.axes[0])]
    assert _full(drawn, fit.order) == list(fit.order)
    best = forest_plot(fit, max_systems=10)  # a page of the best: the same labels
    assert _ticks(best.axes[0]) == drawn[:10]


def test_rank_posterior_heat_map(fit):
    post = fit.rank_posterior()
    ax = post.plot().axes[0]
    assert _full(_ticks(ax), post.order) == list(post.order)
    assert SHORTENED_NOTE in ax.get_title()


@pytest.fixture(scope="module")
def ppc(fit, rankings):
    return fit.ppc(rankings, draws=30)


def test_ppc_top1_and_pairs(ppc):
    from rankstats.models.ppc_plots import plot

    top1 = plot(ppc, "top1").axes[0]
    rows = ppc.statistics[ppc.statistics["group"] == "top1"]
    assert _full(_ticks(top1), ppc.consensus) == list(rows["system_a"])
    assert SHORTENED_NOTE in top1.get_title()
    pairs = plot(ppc, "pairs").axes[0]
    for axis in ("x", "y"):
        assert _full(_ticks(pairs, axis), ppc.consensus) == list(ppc.consensus)


def test_ppc_kendall_title_names_the_consensus(ppc):
    from rankstats.models.ppc_plots import plot

    fig = plot(ppc, "kendall")
    line = next(x for x in fig._suptitle.get_text().split("\n") if x.startswith("consensus: "))
    shown = line.removeprefix("consensus: ").removesuffix("…").split(", ")
    assert len(shown) == 5
    assert _full(shown, ppc.consensus) == list(ppc.consensus[:5])


# ------------------------------------------------------------------------------ battles
@pytest.fixture(scope="module")
def battle_fit():
    from rankstats.battles.log import read_battles, simulate_battles

    log, _ = simulate_battles(n_models=150, n_battles=20_000, seed=1)
    models = sorted(set(log["model_a"].astype(str)) | set(log["model_b"].astype(str)))
    names = dict(zip(models, NAMES, strict=True))
    log = log.astype({"model_a": str, "model_b": str, "winner": str})
    log = log.assign(model_a=log["model_a"].map(names), model_b=log["model_b"].map(names))
    return rs.fit_battles(read_battles(log), n_resamples=0)


def test_battle_interval_plot(battle_fit):
    fig = battle_fit.plot()
    ax = fig.axes[0]
    models = list(battle_fit.table()["model"])
    assert _full(_ticks(ax), battle_fit.models) == models
    assert SHORTENED_NOTE in ax.get_title()
    top = battle_fit.plot(top=10).axes[0]
    assert _full(_ticks(top), battle_fit.models) == models[:10]


def test_battle_win_probability(battle_fit):
    ax = battle_fit.plot_win_probability(top=None).axes[0]
    models = list(battle_fit.table()["model"])
    for axis in ("x", "y"):
        assert _full(_ticks(ax, axis), battle_fit.models) == models
    assert SHORTENED_NOTE in ax.get_title()


# ------------------------------------------------------------------------------ paired
def test_pair_figure_keeps_two_names_apart():
    from rankstats.paired_analysis.figures import pair_figure

    a, b = NAMES[0], NAMES[3]  # the same first 55 characters
    rng = np.random.default_rng(2)
    fig = pair_figure(rng.normal(size=30), rng.normal(size=30), a, b)
    left, right = fig.axes[:2]
    assert _full([left.get_ylabel(), left.get_xlabel()], [a, b]) == [a, b]
    x, y = right.get_xlabel().split(" − ")
    assert _full([x, y], [a, b]) == [a, b]
    legend = [t.get_text() for t in left.get_legend().get_texts()][:2]
    assert _full([t.removesuffix(" better") for t in legend], [a, b]) == [a, b]
    assert SHORTENED_NOTE in left.get_title()


def test_pair_matrix():
    from rankstats.paired_analysis.figures import matrix_figure

    order = NAMES
    i, j = np.triu_indices(len(order), k=1)
    pairs = pd.DataFrame(
        {
            "system_a": np.asarray(order)[i],
            "system_b": np.asarray(order)[j],
            "p_a_beats_b": 0.6,
            "sign_p_holm": 0.5,
        }
    )
    ax = matrix_figure(pairs, order, "sign_p_holm", 0.05, "task").axes[0]
    for axis in ("x", "y"):
        assert _full(_ticks(ax, axis), order) == order
    assert SHORTENED_NOTE in ax.get_title()


# ------------------------------------------------------------------------------ significance
def test_rank_sets_plot(scores):
    from rankstats.significance.rank_sets import rank_confidence_sets

    task = scores.select(["t0"])
    sets = rank_confidence_sets(task, by="instance", n_resamples=200, seed=0)
    ax = sets.plot()
    assert _full(_ticks(ax), sets.systems) == list(sets.systems)
    assert SHORTENED_NOTE in ax.get_title()


def test_tukey_plot(scores):
    from rankstats.significance.parametric import tukey_hsd

    # 30 of the names: Tukey's p-values (scipy's studentized range, one per pair) take minutes
    # for 150 systems; 30 names still share their first 50 characters.
    few = scores.data[scores.data["system"].isin(NAMES[:30]) & (scores.data["task"] == "t0")]
    res = tukey_hsd(rs.Scores.from_long(few, instance="instance"), by="instance")
    ax = res.plot()
    assert _full(_ticks(ax), res.means.index) == list(res.means.index)
    assert SHORTENED_NOTE in ax.get_title()


def test_bayes_signed_rank_simplex(scores):
    a, b = NAMES[0], NAMES[3]
    res = rs.bayes_signed_rank(scores.select(["t0"]), a, b, rope=0.1, draws=2000)
    texts = [t.get_text() for t in res.plot().axes[0].texts]
    better = [t.split(" better\n")[0] for t in texts if " better\n" in t]
    assert _full(better, [a, b]) == [a, b]


# ------------------------------------------------------------------------------ labels.csv
def test_report_key_lists_every_figure_that_shortens(tmp_path, monkeypatch):
    """The report's labels.csv has rows for the paired matrix and the rank posterior (not only
    the heat map), and each figure's drawn ticks map back through its own rows."""
    from matplotlib.figure import Figure

    names = NAMES[:12]  # 12 names already collide when cut; the report stays fast
    rng = np.random.default_rng(4)
    rows = [(s, "t0", i, rng.normal(k / 4)) for i in range(30) for k, s in enumerate(names)]
    frame = pd.DataFrame(rows, columns=["system", "task", "instance", "score"])
    scores = rs.Scores.from_long(frame, instance="instance")
    drawn: dict[str, Figure] = {}
    save = rs.plotting.save_figure

    def keep(figure, stem, *args, **kwargs):
        drawn[stem.name] = figure
        return save(figure, stem, *args, **kwargs)

    for module in ("paired", "rank_posteriors"):
        monkeypatch.setattr(
            importlib.import_module(f"rankstats.reporting.{module}"), "save_figure", keep
        )
    rs.report(scores, out=tmp_path / "r", models=["pl"], model_method="mle", paired=["t0"])
    key = pd.read_csv(tmp_path / "r" / "labels.csv")
    figures = set(key["figure"])
    assert {"significance_heatmap", "paired_t0_matrix", "rank_posterior_pl"} <= figures
    for stem in ("paired_t0_matrix", "rank_posterior_pl"):
        rows_of = key[key["figure"] == stem]
        back = dict(zip(rows_of["label"], rows_of["name"], strict=True))
        ticks = _ticks(drawn[stem].axes[0])
        assert len(set(ticks)) == len(ticks) == len(names)
        assert sorted(back.get(t, t) for t in ticks) == sorted(names)


def test_ppc_figures_are_keyed_but_not_the_ties_figure():
    from pathlib import Path
    from types import SimpleNamespace

    from rankstats.reporting.top_systems import figure_systems

    files = SimpleNamespace(
        ppc_figures={
            "pl": {g: (Path(f"ppc_pl_{g}.png"),) for g in ("top1", "pairs", "kendall", "ties")}
        }
    )
    models = SimpleNamespace(ppc={"pl": SimpleNamespace(consensus=NAMES[:4])})
    got = figure_systems(models=models, model_files=files)
    assert got == {f"ppc_pl_{g}": NAMES[:4] for g in ("top1", "pairs", "kendall")}


def _key_maps_each_figure(path, figures: dict[str, list[str]]) -> None:
    """labels.csv has rows for each figure; per figure the labels are unique and name systems
    of that figure, exactly those that :func:`labels` shortens."""
    key = pd.read_csv(path / "labels.csv")
    assert set(key["figure"]) == set(figures)
    for figure, systems in figures.items():
        rows = key[key["figure"] == figure]
        assert rows["label"].is_unique
        assert set(rows["name"]) == {s for s in systems if len(s) > NAME_WIDTH}
        assert all(len(x) <= NAME_WIDTH for x in rows["label"])


@pytest.mark.parametrize("command", ["battles", "paired", "fit"])
def test_cli_writes_the_key_of_its_figures(command, tmp_path, capsys):
    from rankstats.cli import main

    names = NAMES[:8]
    out = tmp_path / "out"
    if command == "battles":
        from rankstats.battles.log import simulate_battles

        log, _ = simulate_battles(n_models=8, n_battles=800, seed=5)
        log = log.astype(str)
        models = sorted(set(log["model_a"]) | set(log["model_b"]))
        rename = dict(zip(models, names, strict=True))
        log = log.assign(model_a=log["model_a"].map(rename), model_b=log["model_b"].map(rename))
        log.to_csv(tmp_path / "b.csv", index=False)
        argv = ["battles", str(tmp_path / "b.csv"), "--n-resamples", "20"]
        figures = {"intervals": names, "win_probability": names}
    else:
        rng = np.random.default_rng(6)
        rows = [(s, "t0", i, rng.normal(k / 3)) for i in range(25) for k, s in enumerate(names)]
        frame = pd.DataFrame(rows, columns=["system", "task", "instance", "score"])
        frame.to_csv(tmp_path / "s.csv", index=False)
        argv = [command, str(tmp_path / "s.csv"), "--instance", "instance"]
        if command == "paired":
            argv += ["--n-resamples", "20", "--pair", names[0], names[3]]
            figures = {"matrix": names}
        else:
            argv += ["--method", "mle", "--model", "pl"]
            figures = {"pl_forest": names}
    code = main([*argv, "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    if command == "paired":
        stem = next(p.stem for p in out.glob("pair_*_vs_*.png"))
        figures[stem] = [names[0], names[3]]
    _key_maps_each_figure(out, figures)
