"""``gradlint verify``: run code under torch and show what autograd really does.

Two modes: ``probes`` runs each catalog entry's probe, ``scripts`` runs a file
as written and as fixed and checks each finding's runtime claims (the
``[[verify]]`` tables of the catalog). All torch work happens in sandboxed
subprocesses (``sandbox``, running ``_harness.py``); nothing in this package
imports torch into the gradlint process.
"""

from __future__ import annotations

import importlib.util

# The package is not on the index yet: name what works from any environment, and from a clone.
INSTALL_HINT = "pip install torch numpy (in a clone of gradlint: pip install '.[verify]')"


def torch_available() -> bool:
    """Whether torch is installed, found without importing it."""
    try:
        return importlib.util.find_spec("torch") is not None
    except (ImportError, ValueError):
        return False
