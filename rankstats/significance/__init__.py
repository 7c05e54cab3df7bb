"""Significance tests over blocks (tasks or instances): Friedman and its post-hoc tests with the
critical-difference diagram (Demšar 2006), imputed ranks for missing scores, repeated-measures
ANOVA and Tukey, autorank's automatic choice, confidence sets for ranks (Mogstad et al. 2024) and
the Bayesian signed-rank and hierarchical comparisons (Benavoli et al. 2017; Corani et al. 2017).
"""
