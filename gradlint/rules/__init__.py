"""The rules: one module per rule code, found by name (``glNNN_<name>.py``).

Adding a rule means adding its catalog entry in ``rules/``, one module here,
and its fixtures; nothing else needs to know about it.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from typing import Dict, Type

from gradlint.rule import Rule


@functools.lru_cache(maxsize=None)
def all_rules() -> Dict[str, Type[Rule]]:
    """Every rule class by code, in code order."""
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if info.name.startswith("gl"):
            importlib.import_module(f"{__name__}.{info.name}")
    return dict(sorted(Rule._registry.items()))
