"""Sphinx configuration: myst (Markdown) pages, numpydoc-style docstrings via napoleon."""

import rankstats

project = "rankstats"
author = "The rankstats developers"
copyright = "2026, the rankstats developers"
release = rankstats.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "sphinx.ext.intersphinx",
]
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
exclude_patterns = ["_build"]
autodoc_typehints = "none"
autodoc_member_order = "bysource"
napoleon_numpy_docstring = True
napoleon_google_docstring = False
napoleon_use_rtype = False
# Result attributes are documented in the class docstrings; do not let napoleon create duplicate
# targets for them.
napoleon_use_ivar = True
html_theme = "pydata_sphinx_theme"
html_title = "rankstats"
html_theme_options = {"navigation_with_keys": False}
nitpicky = False
suppress_warnings = ["myst.header"]
