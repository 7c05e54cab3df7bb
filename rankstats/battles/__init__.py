"""Pairwise battle logs (arena-style): reading them, the design's identifiability of an order
effect, Bradley–Terry with ties and an order effect (MLE, bootstrap, NUTS) and its figures.
"""
