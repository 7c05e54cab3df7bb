"""``import rankstats`` is cheap: heavy dependencies load on first use, never with the package.

Each check runs in a fresh interpreter, since this test process has imported everything.
"""

import json
import subprocess
import sys
import textwrap

import pytest

import rankstats

#: Seconds of import time each; none of them may load with ``import rankstats``.
HEAVY = ("matplotlib", "scipy.stats", "scipy.optimize", "networkx", "pyarrow", "pymc", "arviz")


def run_python(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


def loaded_after(code: str) -> list[str]:
    """The modules of HEAVY present in ``sys.modules`` after running ``code``."""
    report = f"import json, sys; print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    return json.loads(run_python(textwrap.dedent(code) + "\n" + report))


def test_import_loads_no_heavy_module():
    assert loaded_after("import rankstats") == []


def test_the_readme_analysis_loads_no_plotting_statistics_or_graph_library():
    # pandas itself loads pyarrow; the analysis must not add matplotlib, scipy.stats, ...
    loaded = loaded_after(
        """
        import rankstats as rs
        scores = rs.load_dataset("tac08")
        res = rs.aggregate(scores, method="borda2")
        pw = rs.pairwise(rs.Rankings.from_scores(scores, by="instance"))
        ci = rs.hoeffding(pw, delta=0.05, correction="holm", order=res.order)
        rs.kemeny(pw, method="heuristic")
        """
    )
    assert [m for m in loaded if m != "pyarrow"] == []


#: Every public name of ``rankstats`` and ``rankstats.models`` (issue 24 moved every module: these
#: names are the contract, and each must still resolve).
PUBLIC = (
    "Aggregate",
    "AnovaResult",
    "BattleFit",
    "BattleReport",
    "Battles",
    "BayesHierarchical",
    "BayesSettings",
    "BayesSignedRank",
    "BattleDesign",
    "BenchmarkDesign",
    "Blocks",
    "Calibration",
    "ChoiceResult",
    "Comparison",
    "DataCheck",
    "DataWarning",
    "Dispersion",
    "EloScale",
    "FriedmanResult",
    "HoeffdingResult",
    "InvalidBattlesError",
    "InvalidRankingsError",
    "InvalidScoresError",
    "KemenyResult",
    "NutsSettings",
    "Paired",
    "Pairwise",
    "PosthocResult",
    "PowerResult",
    "RankSets",
    "Rankings",
    "Report",
    "Robustness",
    "SampleSizeResult",
    "ScannedScores",
    "Scores",
    "SizeSearch",
    "StyleControl",
    "TukeyResult",
    "aggregate",
    "agreement",
    "battle_report",
    "bayes_hierarchical",
    "bayes_signed_rank",
    "calibrate",
    "cd_diagram",
    "cd_table",
    "check_data",
    "choose_test",
    "compare",
    "dispersion",
    "dispersion_table",
    "fit_battles",
    "friedman",
    "hoeffding",
    "hoeffding_test",
    "irt",
    "kemeny",
    "kendall_distance",
    "list_datasets",
    "load_dataset",
    "load_paired",
    "load_preferences",
    "load_rankings",
    "models",
    "paired",
    "pairwise",
    "posthoc",
    "power",
    "rank_blocks",
    "rank_confidence_sets",
    "read_battles",
    "read_paired_comparisons",
    "read_preferences",
    "read_rankings",
    "read_scores",
    "repeated_measures_anova",
    "report",
    "sample_size",
    "scan_scores",
    "significance_matrix",
    "simulate",
    "simulate_battles",
    "tukey_hsd",
)
MODELS_PUBLIC = (
    "DISTANCES",
    "AssessorPreferences",
    "BradleyTerry",
    "ClusterChoice",
    "ConvergenceError",
    "ConvergenceWarning",
    "Fit",
    "KFoldResult",
    "LOOWarning",
    "MLEDoesNotExistError",
    "Mallows",
    "MallowsEMFit",
    "MallowsFit",
    "MallowsMixtureFit",
    "ModelComparison",
    "PPCResult",
    "PartitionFunction",
    "PlackettLuce",
    "QuasiVariances",
    "RankPosterior",
    "RankTree",
    "RankTreeNode",
    "choose_clusters",
    "compare_fits",
    "kfold",
    "load",
    "mallows_em",
    "partition_function",
    "ppc",
    "ppc_draws",
    "predict_worth",
    "quasi_variances",
    "rank_distance",
    "rank_tree",
    "read_partition_function",
    "register_model",
    "save",
    "use_partition_function",
)


def test_every_public_name_still_resolves():
    assert sorted(rankstats.__all__) == sorted(PUBLIC)
    for name in PUBLIC:
        if name != "models":  # PyMC: seconds to import; tested by the model tests
            assert getattr(rankstats, name) is not None, name


@pytest.mark.slow  # imports PyMC
def test_every_models_name_still_resolves():
    import rankstats.models as models

    assert sorted(models.__all__) == sorted(MODELS_PUBLIC)
    for name in MODELS_PUBLIC:
        assert getattr(models, name) is not None, name


def test_public_names_are_listed_and_resolve():
    assert set(rankstats.__all__) <= set(dir(rankstats))
    for name in rankstats.__all__:
        if name != "models":  # PyMC: seconds to import; tested by the model tests
            assert getattr(rankstats, name) is not None, name
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        _ = rankstats.no_such_name


def test_a_submodule_import_leaves_the_public_functions_bound():
    # No module shares a public function's name, so importing every module leaves rs.kemeny,
    # rs.aggregate, ... the functions, and kemeny an aggregate method.
    out = run_python(
        """
        import rankstats.aggregation.aggregators, rankstats.aggregation.kemeny_search
        import rankstats.core.pair_probabilities, rankstats.reporting
        import rankstats as rs
        from rankstats.aggregation.aggregators import AGGREGATORS
        print(" ".join(
            [type(rs.kemeny).__name__, type(rs.aggregate).__name__, type(rs.pairwise).__name__,
             type(rs.report).__name__, str("kemeny" in AGGREGATORS), type(rs.simulate).__name__]
        ))
        """
    )
    assert out == "function function function function True module"


def best_import_seconds(module: str, repeat: int = 3) -> float:
    code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    return min(float(run_python(code)) for _ in range(repeat))


def test_import_takes_less_than_one_and_a_half_pandas_imports():
    pandas = best_import_seconds("pandas")
    package = best_import_seconds("rankstats")
    assert package < 1.5 * pandas, (package, pandas)


def test_the_command_help_loads_no_numerical_library():
    # ``rankstats --help`` is built from the light option modules (rankstats.cli.options): the
    # commands' implementations, and numpy / pandas with them, load only when a command runs.
    loaded = loaded_after(
        """
        import contextlib, io, sys
        from rankstats.cli import main
        with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
            main(["--help"])
        heavy = [m for m in ("numpy", "pandas") if m in sys.modules]
        assert heavy == [], heavy
        """
    )
    assert loaded == []
