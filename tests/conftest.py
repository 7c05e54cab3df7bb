import matplotlib

matplotlib.use("Agg")

# --- models (PyMC): one PyTensor compile cache for every test run, here and across runs -------
# Set before PyMC / PyTensor are imported.  An existing PYTENSOR_FLAGS wins.
import os
from pathlib import Path

os.environ.setdefault(
    "PYTENSOR_FLAGS",
    f"base_compiledir={Path(__file__).resolve().parents[1] / '.pytest_cache' / 'pytensor'}",
)
