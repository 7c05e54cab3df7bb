"""The options of each subcommand: ``HELP``, ``EXAMPLE`` and ``ARGUMENTS`` (a table of options),
one module per subcommand (named like it), the shared ones in :mod:`rankstats.cli.options.shared`.

They are kept apart from the commands' implementations (:mod:`rankstats.cli.rank`, …) so that
the parser is built without importing numpy, pandas, SciPy or matplotlib; a command's module is
imported only when it runs.
"""
