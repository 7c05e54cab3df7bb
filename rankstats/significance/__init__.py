"""Significance tests over blocks (tasks or instances): Friedman and its post-hoc tests with the
critical-difference diagram (Demšar 2006), imputed ranks for missing scores, repeated-measures
ANOVA and Tukey, autorank's automatic choice, confidence sets for ranks (Mogstad et al. 2024) and
the Bayesian signed-rank and hierarchical comparisons (Benavoli et al. 2017; Corani et al. 2017).
"""

# The figure of PosthocResult.plot() (the critical-difference diagram imports the result type, so
# the result reaches its figure by this registration): here, where every import of a module of
# this package passes, so that a result unpickled in a new process can plot itself too.
from rankstats.significance.critical_difference import cd_diagram as _cd_diagram
from rankstats.significance.posthoc_result import register_figure as _register_figure

_register_figure(_cd_diagram)
