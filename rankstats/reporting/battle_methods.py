"""The methods paragraph of a battle report and the citations it uses.

:func:`battle_methods_paragraph` states, from a
:class:`~rankstats.reporting.battle_data.BattleReportData`, what was fitted and how: the
Bradley–Terry model (Bradley and Terry, 1952), Davidson's ties (1970) or ties as half wins, the
order effect as a home advantage (Agresti, 2002) or why it was left out, style control (Li,
Angelopoulos and Chiang, 2024), the Elo scale and rank (UB) of Chatbot Arena (Chiang et al.,
2024), the intervals (Fisher; the bootstrap over battles or clusters, Davison and Hinkley, 1997,
one-step after Kline and Santos, 2012; the posterior by NUTS, Hoffman and Gelman, 2014) and the
Wald tests of the differences with Holm's correction (1979). A posterior that did not converge
gets a warning sentence (:func:`posterior_warning`), the same one the page shows in its warning
box. The BibTeX entries come from ``references.bib`` (:func:`rankstats.reporting.methods.bibtex`).
"""

from __future__ import annotations

import re

from rankstats._util.text import terminal
from rankstats.battles.battle_fit import ELO_SCALE
from rankstats.reporting._format import names
from rankstats.reporting.battle_data import BattleReportData

#: The interval methods as the outputs name them.
INTERVAL_NAMES = {"fisher": "Fisher (Wald)", "bootstrap": "bootstrap", "posterior": "posterior"}


def posterior_warning(problems: tuple[str, ...] | list[str]) -> str:
    """The sentence the methods paragraph and the page's warning box both print."""
    return (
        f"Warning: the posterior did not converge ({'; '.join(problems)}); its intervals "
        "(posterior columns) are not reliable and must not be reported as they are (run longer "
        "or more chains and check the diagnostics)."
    )


def battle_methods_paragraph(data: BattleReportData) -> tuple[str, list[str]]:
    """The methods paragraph (one line of prose) and its citation keys, in order of first
    use."""
    fit, log = data.fit, data.log
    cites = ["bradleyterry1952"]
    fitted = (
        f"{log.n_fitted} of the {log.n_battles}" if log.n_fitted != log.n_battles else log.n_battles
    )
    text = (
        f"We rated {log.n_models} models from {fitted} pairwise battles ({log.n_pairs} ordered "
        f"pairs of models; {terminal(log.source)}) with rankstats, by the maximum-likelihood fit "
        "of a Bradley–Terry model [bradleyterry1952] to the battles"
    )
    if "bias_reduction" in fit.info:  # Firth's penalised likelihood (rs.fit_battles)
        cites.append("firth1993")
        text += (
            ", bias-reduced: the likelihood penalised by Jeffreys' prior, ½ log det I "
            "[firth1993], whose maximum is finite when a model never wins or never loses"
        )
    text += (
        "" if log.cluster is None else f" ({log.n_clusters} clusters of {terminal(log.cluster)})"
    )
    if fit.ties:
        cites.append("davidson1970")
        text += ". Ties were modelled with Davidson's tie parameter ν [davidson1970]"
    else:
        text += ". A tie counted as half a win for each model"
    if log.both_bad:
        text += (
            f"; the {log.both_bad} 'both bad' battles were left out"
            if fit.info.get("both_bad") == "drop"
            else f"; the {log.both_bad} 'both bad' battles counted as ties"
        )
    text += ". " + _order_sentence(data, cites)
    if fit.covariate_names:
        text += " " + _style_sentence(data, cites)
    cites.append("chiang2024")
    anchor = (
        f"the ratings centred at {fit.anchor_rating:g}"
        if fit.anchor is None
        else f"{terminal(fit.anchor)} fixed at {fit.anchor_rating:g}"
    )
    text += (
        f" Ratings are on the Elo scale of Chatbot Arena, 400·log10(e)·θ + c [chiang2024], with "
        f"{anchor}. " + _interval_sentence(data, cites)
    )
    key = "bootstrap" if fit.bootstrap_distribution is not None else "fisher"
    text += (
        f" Rank (UB) is 1 + the number of models whose {INTERVAL_NAMES[key]} interval lies "
        "entirely above the model's [chiang2024]."
    )
    cites.append("holm1979")
    n_pairs = len(data.differences)
    text += (
        " Every rating difference was tested by a Wald test, z = (θa − θb)/se with the Fisher "
        f"covariance of the two ratings, two-sided, Holm-adjusted over the {n_pairs} pairs "
        f"[holm1979]: {data.n_significant} of the {n_pairs} differences are significant at "
        f"α = {data.alpha:g}; the rank range of a model (the ranks it can take without "
        "contradicting a significant difference) and the † marks come from these tests."
    )
    if data.posterior_problems:
        text += " " + posterior_warning(data.posterior_problems)
    return text, list(dict.fromkeys(cites))


def _order_sentence(data: BattleReportData, cites: list[str]) -> str:
    fit = data.fit
    if fit.order_effect:
        cites.append("agresti2002")
        return (
            "The advantage of the model shown first entered as a home advantage h = e^η "
            f"[agresti2002] (η = {fit.log_order:.3f}, {ELO_SCALE * fit.log_order:+.1f} Elo points)."
        )
    dropped = fit.info.get("order_effect_dropped")
    if dropped:
        # The fit's warning, without its advice on the option that silences it.
        reason = re.sub(r"\s*\([^()]*order_effect=False[^()]*\)\s*$", "", terminal(dropped))
        return reason[:1].upper() + reason[1:].rstrip(".") + "."
    return "No order effect was fitted (the position of a model in a battle was not modelled)."


def _style_sentence(data: BattleReportData, cites: list[str]) -> str:
    fit = data.fit
    cites.append("li2024style")
    scaled = fit.info.get("standardized", True)
    return (
        "Style control [li2024style]: the log-odds of the model shown first include γᵀz for the "
        f"battle covariates {names(fit.covariate_names)}, "
        + (
            "each divided by its standard deviation over the battles fitted (γ per standard "
            "deviation; not centred, so that the ratings are those at equal style)"
            if scaled
            else "as given (γ per unit)"
        )
        + "; the unadjusted ratings are those of the same battles fitted without the covariates."
    )


def _interval_sentence(data: BattleReportData, cites: list[str]) -> str:
    fit = data.fit
    parts = ["Fisher (Wald) intervals from the observed information at the maximum"]
    if fit.bootstrap_distribution is not None:
        n = fit.info.get("n_bootstrap", len(fit.bootstrap_distribution))
        unit = fit.info.get("bootstrap_unit", "battle")
        boot = f"percentile intervals of {n} bootstrap replicates resampling "
        if unit.startswith("cluster"):
            cites.append("davison1997")
            boot += (
                f"the {data.log.n_clusters} clusters ({terminal(data.log.cluster)}) [davison1997]"
            )
        else:
            boot += "battles"
        if fit.info.get("bootstrap_method") == "one-step":
            cites.append("kline2012")
            boot += ", each by one Newton step from the maximum (score bootstrap) [kline2012]"
        failed = fit.info.get("bootstrap_failed", 0)
        if failed:
            boot += f" ({failed} replicates without a maximum-likelihood estimate left out)"
        parts.append(boot)
    if fit.posterior is not None:
        cites.append("hoffman2014")
        priors = "log-worths ZeroSumNormal(2)"
        priors += ", log ν ~ Normal(0, 1.5)" if fit.ties else ""
        priors += ", η ~ Normal(0, 1.5)" if fit.order_effect else ""
        priors += ", each γ ~ Normal(0, 1.5)" if fit.covariate_names else ""
        sampler = fit.info.get("sampler", "NUTS")
        verdict = "did not meet them" if data.posterior_problems else "met them"
        parts.append(
            f"equal-tailed credible intervals of the posterior ({priors}; sampled by NUTS "
            f"[hoffman2014], {terminal(sampler)}; R-hat ≤ 1.01, bulk ESS ≥ 400 and no divergent "
            f"transitions required: the sample {verdict})"
        )
    return f"Intervals at {fit.confidence_level:.0%}: " + "; ".join(parts) + "."
