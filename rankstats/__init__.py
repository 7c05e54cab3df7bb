"""rankstats: rank systems from benchmark scores, and say how sure you are.

See DESIGN.md for the pipeline: Scores → Rankings → Pairwise → aggregate / hoeffding.
"""

from rankstats import simulate
from rankstats.aggregate import Aggregate, aggregate
from rankstats.compare import Comparison, compare
from rankstats.confidence import hoeffding, significance_matrix
from rankstats.datasets import list_datasets, load_dataset, load_paired, load_rankings
from rankstats.dispersion import Dispersion, dispersion, dispersion_table, kendall_distance
from rankstats.errors import DataWarning, InvalidRankingsError, InvalidScoresError
from rankstats.kemeny import KemenyResult, kemeny
from rankstats.paired import Paired, paired
from rankstats.pairwise import Pairwise, pairwise
from rankstats.rankings import Rankings
from rankstats.report import Report, report
from rankstats.robustness import Robustness, agreement
from rankstats.scan import ScannedScores, scan_scores
from rankstats.scores import Scores, read_scores

__version__ = "0.1.0"


def __getattr__(name: str):
    # The rank models pull in PyMC and ArviZ (seconds of import time): load them on first use.
    if name == "models":
        import importlib

        return importlib.import_module("rankstats.models")
    raise AttributeError(f"module 'rankstats' has no attribute {name!r}")


__all__ = [
    "Aggregate",
    "Comparison",
    "DataWarning",
    "Dispersion",
    "InvalidRankingsError",
    "InvalidScoresError",
    "KemenyResult",
    "Paired",
    "Pairwise",
    "Rankings",
    "Report",
    "Robustness",
    "ScannedScores",
    "Scores",
    "aggregate",
    "agreement",
    "compare",
    "dispersion",
    "dispersion_table",
    "hoeffding",
    "kemeny",
    "kendall_distance",
    "list_datasets",
    "load_dataset",
    "load_paired",
    "load_rankings",
    "models",
    "paired",
    "pairwise",
    "read_scores",
    "report",
    "scan_scores",
    "significance_matrix",
    "simulate",
]
