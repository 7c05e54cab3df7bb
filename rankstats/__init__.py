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
import sys
import types
from typing import TYPE_CHECKING

__version__ = "0.1.0"

#: Public name → the module (``rankstats.<module>``) that defines it.
_EXPORTS = {
    "Aggregate": "aggregate",
    "aggregate": "aggregate",
    "Battles": "battles",
    "InvalidBattlesError": "battles",
    "read_battles": "battles",
    "simulate_battles": "battles",
    "BattleFit": "battles_fit",
    "fit_battles": "battles_fit",
    "BayesHierarchical": "bayes_hierarchical",
    "bayes_hierarchical": "bayes_hierarchical",
    "BayesSignedRank": "bayes_signed_rank",
    "bayes_signed_rank": "bayes_signed_rank",
    "Blocks": "blocks",
    "rank_blocks": "blocks",
    "cd_diagram": "cd_diagram",
    "cd_table": "cd_diagram",
    "ChoiceResult": "choice",
    "choose_test": "choice",
    "Comparison": "compare",
    "compare": "compare",
    "HoeffdingResult": "confidence",
    "hoeffding": "confidence",
    "hoeffding_test": "confidence",
    "significance_matrix": "confidence",
    "DataCheck": "datacheck",
    "check_data": "datacheck",
    "list_datasets": "datasets",
    "load_dataset": "datasets",
    "load_paired": "datasets",
    "load_rankings": "datasets",
    "Dispersion": "dispersion",
    "dispersion": "dispersion",
    "dispersion_table": "dispersion",
    "kendall_distance": "dispersion",
    "DataWarning": "errors",
    "InvalidRankingsError": "errors",
    "InvalidScoresError": "errors",
    "FriedmanResult": "friedman",
    "friedman": "friedman",
    "KemenyResult": "kemeny",
    "kemeny": "kemeny",
    "Paired": "paired",
    "paired": "paired",
    "Pairwise": "pairwise",
    "pairwise": "pairwise",
    "AnovaResult": "parametric",
    "TukeyResult": "parametric",
    "repeated_measures_anova": "parametric",
    "tukey_hsd": "parametric",
    "PosthocResult": "posthoc",
    "posthoc": "posthoc",
    "RankSets": "rank_sets",
    "rank_confidence_sets": "rank_sets",
    "Rankings": "rankings",
    "read_paired_comparisons": "rankings_files",
    "read_rankings": "rankings_files",
    "Report": "report",
    "report": "report",
    "Robustness": "robustness",
    "agreement": "robustness",
    "ScannedScores": "scan",
    "scan_scores": "scan",
    "Scores": "scores",
    "read_scores": "scores",
}
#: Public submodules: ``rs.simulate.gumbel(...)``, ``rs.models.PlackettLuce()``.
_SUBMODULES = ("models", "simulate")

if TYPE_CHECKING:  # static tools see every name; nothing is imported at run time
    from rankstats import models, simulate
    from rankstats.aggregate import Aggregate, aggregate
    from rankstats.battles import Battles, InvalidBattlesError, read_battles, simulate_battles
    from rankstats.battles_fit import BattleFit, fit_battles
    from rankstats.bayes_hierarchical import BayesHierarchical, bayes_hierarchical
    from rankstats.bayes_signed_rank import BayesSignedRank, bayes_signed_rank
    from rankstats.blocks import Blocks, rank_blocks
    from rankstats.cd_diagram import cd_diagram, cd_table
    from rankstats.choice import ChoiceResult, choose_test
    from rankstats.compare import Comparison, compare
    from rankstats.confidence import (
        HoeffdingResult,
        hoeffding,
        hoeffding_test,
        significance_matrix,
    )
    from rankstats.datacheck import DataCheck, check_data
    from rankstats.datasets import list_datasets, load_dataset, load_paired, load_rankings
    from rankstats.dispersion import Dispersion, dispersion, dispersion_table, kendall_distance
    from rankstats.errors import DataWarning, InvalidRankingsError, InvalidScoresError
    from rankstats.friedman import FriedmanResult, friedman
    from rankstats.kemeny import KemenyResult, kemeny
    from rankstats.paired import Paired, paired
    from rankstats.pairwise import Pairwise, pairwise
    from rankstats.parametric import AnovaResult, TukeyResult, repeated_measures_anova, tukey_hsd
    from rankstats.posthoc import PosthocResult, posthoc
    from rankstats.rank_sets import RankSets, rank_confidence_sets
    from rankstats.rankings import Rankings
    from rankstats.rankings_files import read_paired_comparisons, read_rankings
    from rankstats.report import Report, report
    from rankstats.robustness import Robustness, agreement
    from rankstats.scan import ScannedScores, scan_scores
    from rankstats.scores import Scores, read_scores


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


class _Package(types.ModuleType):
    """This package's module type: keeps a public function bound under a submodule's name."""

    def __setattr__(self, name: str, value: object) -> None:
        if isinstance(value, types.ModuleType) and value.__name__ == f"{__name__}.{name}":
            # The import system binds every submodule on its package once it has run
            # (``rankstats.kemeny = <module>``). Where a public function has the module's name
            # (aggregate, compare, dispersion, kemeny, paired, pairwise, report), ``rs.kemeny``
            # stays the function, as it was when this file imported everything.
            if _EXPORTS.get(name) == name:
                value = getattr(value, name, value)
            super().__setattr__(name, value)
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package

__all__ = [
    "Aggregate",
    "AnovaResult",
    "BattleFit",
    "Battles",
    "BayesHierarchical",
    "BayesSignedRank",
    "Blocks",
    "ChoiceResult",
    "Comparison",
    "DataCheck",
    "DataWarning",
    "Dispersion",
    "FriedmanResult",
    "HoeffdingResult",
    "InvalidBattlesError",
    "InvalidRankingsError",
    "InvalidScoresError",
    "KemenyResult",
    "Paired",
    "Pairwise",
    "PosthocResult",
    "RankSets",
    "Rankings",
    "Report",
    "Robustness",
    "ScannedScores",
    "Scores",
    "TukeyResult",
    "aggregate",
    "agreement",
    "bayes_hierarchical",
    "bayes_signed_rank",
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
    "load_rankings",
    "models",
    "paired",
    "pairwise",
    "posthoc",
    "rank_blocks",
    "rank_confidence_sets",
    "read_battles",
    "read_paired_comparisons",
    "read_rankings",
    "read_scores",
    "repeated_measures_anova",
    "report",
    "scan_scores",
    "significance_matrix",
    "simulate",
    "simulate_battles",
    "tukey_hsd",
]
