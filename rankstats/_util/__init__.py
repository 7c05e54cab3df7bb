"""Private helpers below every domain: atomic outputs, escaping of names, progress display,
parallel cells, memory estimates, BLAS threads, worker processes, LaTeX tables, method names and
the advice of messages. They import nothing of rankstats but ``rankstats.errors``.
"""
