"""The rules: one module per rule code, found by name (``glNNN_<name>.py``).

Adding a rule means adding its catalog entry in ``rules/``, one module here,
and its fixtures; nothing else needs to know about it.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from typing import Dict, Iterable, Type

from gradlint.rule import Rule


@functools.lru_cache(maxsize=None)
def _modules() -> Dict[str, str]:
    """Each rule module's name by the code it is named after (``gl001_x`` -> ``GL001``)."""
    names = sorted(info.name for info in pkgutil.iter_modules(__path__) if info.name.startswith("gl"))
    return {name.split("_", 1)[0].upper(): name for name in names}


@functools.lru_cache(maxsize=None)
def all_rules() -> Dict[str, Type[Rule]]:
    """Every rule class by code, in code order."""
    for name in _modules().values():
        importlib.import_module(f"{__name__}.{name}")
    return dict(sorted(Rule._registry.items()))


def rule_classes(codes: Iterable[str]) -> Dict[str, Type[Rule]]:
    """The rule classes of ``codes``, in code order, importing only their modules:
    a rule's module and what it imports cost more than checking a small file,
    and a run needs only the rules the prefilter lets through. Codes without a
    rule module (the parse error, the directive codes) are left out."""
    modules = _modules()
    wanted = sorted(c for c in set(codes) if c in modules or c in Rule._registry)
    for code in wanted:
        if code not in Rule._registry:
            importlib.import_module(f"{__name__}.{modules[code]}")
    return {code: Rule._registry[code] for code in wanted if code in Rule._registry}
