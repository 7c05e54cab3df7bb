"""Paired instance-level analysis of systems scored on the same instances: paired tests (sign,
Wilcoxon, t, Mood, bootstrap; Holm), ratings (Bradley–Terry, Elo, TrueSkill) and their figures
(Peyrard et al. 2021).
"""
