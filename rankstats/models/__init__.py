"""Probabilistic rank models: Plackett–Luce and Bradley–Terry (MLE, MAP, NUTS via PyMC), Mallows.

>>> import rankstats as rs
>>> fit = rs.models.PlackettLuce().fit(rs.load_rankings("salad"), method="mle")
>>> fit.order
['B', 'C', 'D', 'A']

See :class:`Fit` for what a fit offers, and the user guide (``docs/user-guide/models.md``).
"""

from rankstats._pymc.convergence import ConvergenceWarning
from rankstats.core.bradley_terry_mle import ConvergenceError, MLEDoesNotExistError
from rankstats.core.permutations.distances import DISTANCES, rank_distance
from rankstats.core.permutations.partition import PartitionFunction, partition_function
from rankstats.core.permutations.partition_in_use import use_partition_function
from rankstats.core.preferences import AssessorPreferences
from rankstats.core.quasi_variance import QuasiVariances, quasi_variances
from rankstats.io.partition_files import read_partition_function
from rankstats.models._fit import Fit, register_model
from rankstats.models.bradley_terry import BradleyTerry
from rankstats.models.cluster_choice import ClusterChoice, choose_clusters
from rankstats.models.covariate_fit import predict_worth
from rankstats.models.cross_validation import KFoldResult, kfold
from rankstats.models.mallows.em import mallows_em
from rankstats.models.mallows.em_result import MallowsEMFit
from rankstats.models.mallows.fit import MallowsFit
from rankstats.models.mallows.mixture_fit import MallowsMixtureFit
from rankstats.models.mallows.model import Mallows
from rankstats.models.model_comparison import LOOWarning, ModelComparison, compare_fits
from rankstats.models.partitioning import rank_tree
from rankstats.models.plackett_luce import PlackettLuce
from rankstats.models.ppc_result import PPCResult
from rankstats.models.predictive_checks import ppc, ppc_draws
from rankstats.models.rank_posteriors import RankPosterior
from rankstats.models.rank_tree_result import RankTree, RankTreeNode
from rankstats.models.zoo import load, save

__all__ = [
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
]

from rankstats.models import _aggregate  # noqa: F401  (registers aggregate "pl" / "bt")
