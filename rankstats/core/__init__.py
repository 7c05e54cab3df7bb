"""The data every analysis shares: score tables, partial rankings and their sufficient statistics.

``Scores`` (validated long tables, higher = better) → ``Rankings`` (ranks per task or instance,
ties averaged, NaN = not evaluated) → the pairwise statistics of the uniform linear extension
(``Pairwise``: expected wins and comparison counts, Himmi et al. 2023) and their additive
reduction, shared by the in-memory, streamed, cluster and simulated paths; keys, ranking metrics
and the one Bradley–Terry MLE. Imports only ``rankstats._util`` and ``rankstats.errors``.
"""
