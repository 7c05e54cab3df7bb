"""rankstats: rank systems from benchmark scores, and say how sure you are.

See docs/architecture.md for the pipeline: Scores → Rankings → sufficient statistics →
estimators → outputs.

``import rankstats`` loads nothing heavy: every public name is imported from its module on first
use (PEP 562), so ``rs.Scores`` loads pandas and the score tables, ``rs.report`` matplotlib,
``rs.models`` PyMC and ArviZ, each only when it is asked for.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING

__version__ = "0.1.0"

#: Public name → the module (``rankstats.<module>``) that defines it.
_EXPORTS = {
    "Aggregate": "aggregation.aggregators",
    "aggregate": "aggregation.aggregators",
    "Battles": "battles.log",
    "InvalidBattlesError": "battles.log",
    "read_battles": "battles.log",
    "simulate_battles": "battles.log",
    "BattleFit": "battles.fitting",
    "fit_battles": "battles.fitting",
    "EloScale": "battles.battle_options",
    "StyleControl": "battles.battle_options",
    "NutsSettings": "_pymc.settings",
    "BayesHierarchical": "significance.bayesian_hierarchical",
    "bayes_hierarchical": "significance.bayesian_hierarchical",
    "BayesSignedRank": "significance.bayesian_signed_rank",
    "bayes_signed_rank": "significance.bayesian_signed_rank",
    "Blocks": "significance.blocks",
    "rank_blocks": "significance.blocks",
    "cd_diagram": "significance.critical_difference",
    "cd_table": "significance.critical_difference",
    "ChoiceResult": "significance.which_test",
    "choose_test": "significance.which_test",
    "Comparison": "aggregation.comparison",
    "compare": "aggregation.comparison",
    "HoeffdingResult": "aggregation.hoeffding_intervals",
    "hoeffding": "aggregation.hoeffding_intervals",
    "hoeffding_test": "aggregation.hoeffding_intervals",
    "significance_matrix": "aggregation.hoeffding_intervals",
    "DataCheck": "datacheck",
    "check_data": "datacheck",
    "list_datasets": "datasets",
    "load_dataset": "datasets",
    "load_paired": "datasets",
    "load_preferences": "datasets",
    "load_rankings": "datasets",
    "Dispersion": "aggregation.dispersion_analysis",
    "dispersion": "aggregation.dispersion_analysis",
    "dispersion_table": "aggregation.dispersion_analysis",
    "kendall_distance": "aggregation.dispersion_analysis",
    "DataWarning": "errors",
    "InvalidRankingsError": "errors",
    "InvalidScoresError": "errors",
    "FriedmanResult": "significance.friedman_test",
    "friedman": "significance.friedman_test",
    "KemenyResult": "aggregation.kemeny_search",
    "kemeny": "aggregation.kemeny_search",
    "Paired": "paired_analysis.paired_tests",
    "paired": "paired_analysis.paired_tests",
    "BenchmarkDesign": "planning.design",
    "BattleDesign": "planning.battle_design",
    "Calibration": "planning.calibration",
    "calibrate": "planning.calibration",
    "PowerResult": "planning.power_result",
    "power": "planning.power_analysis",
    "SampleSizeResult": "planning.sample_size_result",
    "sample_size": "planning.power_analysis",
    "Pairwise": "core.pair_probabilities",
    "pairwise": "core.pair_probabilities",
    "AnovaResult": "significance.parametric",
    "TukeyResult": "significance.parametric",
    "repeated_measures_anova": "significance.parametric",
    "tukey_hsd": "significance.parametric",
    "PosthocResult": "significance.posthoc_result",
    "posthoc": "significance.posthoc_tests",
    "RankSets": "significance.rank_sets",
    "rank_confidence_sets": "significance.rank_sets",
    "Rankings": "core.rankings",
    "read_paired_comparisons": "io.ranking_files",
    "read_preferences": "io.preference_files",
    "read_rankings": "io.ranking_files",
    "Report": "reporting",
    "report": "reporting",
    "BattleReport": "reporting.battle_reporting",
    "battle_report": "reporting.battle_reporting",
    "Robustness": "simulate.robustness_experiments",
    "agreement": "simulate.robustness_experiments",
    "ScannedScores": "scan",
    "scan_scores": "scan",
    "Scores": "core.scores",
    "read_scores": "io.score_files",
}
#: Public submodules: ``rs.simulate.gumbel(...)``, ``rs.models.PlackettLuce()``.
_SUBMODULES = ("models", "simulate")

if TYPE_CHECKING:  # static tools see every name; nothing is imported at run time
    from rankstats import models, simulate
    from rankstats._pymc.settings import NutsSettings
    from rankstats.aggregation.aggregators import Aggregate, aggregate
    from rankstats.aggregation.comparison import Comparison, compare
    from rankstats.aggregation.dispersion_analysis import (
        Dispersion,
        dispersion,
        dispersion_table,
        kendall_distance,
    )
    from rankstats.aggregation.hoeffding_intervals import (
        HoeffdingResult,
        hoeffding,
        hoeffding_test,
        significance_matrix,
    )
    from rankstats.aggregation.kemeny_search import KemenyResult, kemeny
    from rankstats.battles.battle_options import EloScale, StyleControl
    from rankstats.battles.fitting import BattleFit, fit_battles
    from rankstats.battles.log import Battles, InvalidBattlesError, read_battles, simulate_battles
    from rankstats.core.pair_probabilities import Pairwise, pairwise
    from rankstats.core.rankings import Rankings
    from rankstats.core.scores import Scores
    from rankstats.datacheck import DataCheck, check_data
    from rankstats.datasets import (
        list_datasets,
        load_dataset,
        load_paired,
        load_preferences,
        load_rankings,
    )
    from rankstats.errors import DataWarning, InvalidRankingsError, InvalidScoresError
    from rankstats.io.preference_files import read_preferences
    from rankstats.io.ranking_files import read_paired_comparisons, read_rankings
    from rankstats.io.score_files import read_scores
    from rankstats.paired_analysis.paired_tests import Paired, paired
    from rankstats.planning.battle_design import BattleDesign
    from rankstats.planning.calibration import Calibration, calibrate
    from rankstats.planning.design import BenchmarkDesign
    from rankstats.planning.power_analysis import power, sample_size
    from rankstats.planning.power_result import PowerResult
    from rankstats.planning.sample_size_result import SampleSizeResult
    from rankstats.reporting import Report, report
    from rankstats.reporting.battle_reporting import BattleReport, battle_report
    from rankstats.scan import ScannedScores, scan_scores
    from rankstats.significance.bayesian_hierarchical import BayesHierarchical, bayes_hierarchical
    from rankstats.significance.bayesian_signed_rank import BayesSignedRank, bayes_signed_rank
    from rankstats.significance.blocks import Blocks, rank_blocks
    from rankstats.significance.critical_difference import cd_diagram, cd_table
    from rankstats.significance.friedman_test import FriedmanResult, friedman
    from rankstats.significance.parametric import (
        AnovaResult,
        TukeyResult,
        repeated_measures_anova,
        tukey_hsd,
    )
    from rankstats.significance.posthoc_result import PosthocResult
    from rankstats.significance.posthoc_tests import posthoc
    from rankstats.significance.rank_sets import RankSets, rank_confidence_sets
    from rankstats.significance.which_test import ChoiceResult, choose_test
    from rankstats.simulate.robustness_experiments import Robustness, agreement


def __getattr__(name: str) -> object:
    if name in _EXPORTS:
        value = getattr(importlib.import_module(f"rankstats.{_EXPORTS[name]}"), name)
        globals()[name] = value  # later look-ups skip this function
        return value
    if name in _SUBMODULES or (
        not name.startswith("__") and importlib.util.find_spec(f"rankstats.{name}") is not None
    ):
        # A submodule (rs.simulate, rs.models, rs.scores ...): importing binds it here.
        return importlib.import_module(f"rankstats.{name}")
    raise AttributeError(f"module 'rankstats' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__all__ = [
    "Aggregate",
    "AnovaResult",
    "BattleDesign",
    "BattleFit",
    "BattleReport",
    "Battles",
    "BayesHierarchical",
    "BayesSignedRank",
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
]
