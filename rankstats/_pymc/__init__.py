"""Private PyMC layer: the compatibility of the two supported stacks (pymc 5 + arviz 0.x, pymc 6 +
arviz 1.x), the one NUTS call and the convergence rules every sampled fit follows.
"""
