"""From pairwise statistics to one ranking and how sure it is: the estimators (mean σ^μ, Borda
σ^l and σ^2l, median, Copeland; Colombo et al. 2022), Kemeny consensus, Hoeffding intervals and
their marks (Himmi et al. 2023), the dispersion of a set of rankings, and the comparison of the
intervals with the posteriors of fitted rank models.
"""
