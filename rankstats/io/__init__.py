"""Files in: the one score-file reader (CSV, TSV, Parquet, compressed) and the rankings files
(PrefLib, rank matrices, orderings, pairwise preferences). Builds ``rankstats.core`` objects.
"""
