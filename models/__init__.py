"""The model zoo: reference fits of the bundled benchmarks (ArviZ NetCDF), their provenance and the
command that reproduces each (``README.md``). Installed as the package ``rankstats.zoo_fits``
(``[tool.setuptools] package-dir`` in pyproject.toml); read them with ``rs.models.load``."""
