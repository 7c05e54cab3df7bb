"""Item response theory for instance-level results: abilities, item parameters, item fit.

``rs.irt.fit(responses, model="2pl")`` fits a Rasch, 2PL, 3PL or graded response model by
marginal maximum likelihood (Bock–Aitkin EM on mirt's quadrature) to a systems × items matrix of
responses whose missing cells are never counted as wrong. See :doc:`/user-guide/irt`.
"""

from rankstats.irt.estimation import NotConvergedWarning
from rankstats.irt.fitting import fit
from rankstats.irt.item_models import ItemPrior
from rankstats.irt.responses import Responses, responses_from_long, responses_from_wide
from rankstats.irt.result import IRTFit

__all__ = [
    "IRTFit",
    "ItemPrior",
    "NotConvergedWarning",
    "Responses",
    "fit",
    "responses_from_long",
    "responses_from_wide",
]
