"""Where a dotted module name is found among a run's files: the names a file may be
imported as, the project root it belongs to, and the lookup that turns ``import
pkg.mod`` (or a relative ``from .mod import C``) into the files of the index that
define it. Plain paths and strings: the project index (``project``) uses it, and so
does the runtime checker's import reach.
"""

from __future__ import annotations

import os
from pathlib import PurePath
from typing import Dict, List, Sequence, Tuple

from gradlint.semantic import bounds


def module_names(path: str) -> List[str]:
    """The dotted names a file may be imported as, shortest first."""
    parts = [p for p in PurePath(path).with_suffix("").parts if p not in ("", "/", "\\")]
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    names = []
    for k in range(1, min(len(parts), bounds.MODULE_NAME_PARTS) + 1):
        tail = parts[-k:]
        if all(p.isidentifier() for p in tail):
            names.append(".".join(tail))
    return names


def project_root(path: str) -> str:
    """The directory a file's project is taken to be: the parent of the topmost
    package holding it (directories with an ``__init__.py``), or, for a script,
    its own directory. Facts flow only between files of one root: a run over
    several code bases (or over unrelated scripts) keeps them apart."""
    d = os.path.dirname(os.path.abspath(path))
    while os.path.isfile(os.path.join(d, "__init__.py")):
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    return d


def index_names(path: str) -> List[str]:
    """The names the index files ``path`` under: those of the path as the run gave
    it (what its summary's own relative imports are made absolute against) and of
    its absolute path (what ``absolute`` makes another file's relative imports)."""
    names = module_names(path)
    return names + [n for n in module_names(os.path.abspath(path)) if n not in names]


def own_module(path: str) -> str:
    """The name a summary's own ``.C`` (a class or function of the file itself) is
    read in, from the absolute path: the index files it under that name too
    (``index_names``), whichever directory the run started in."""
    names = module_names(os.path.abspath(path))
    return names[-1] if names else ""


def real_stem(path: str) -> str:
    return os.path.splitext(os.path.abspath(path))[0]


def absolute(qualname: str, origin: str) -> str:
    """``qualname`` with a relative module spelt as the import wrote it
    (``.vqgan.autoencoder.AutoencoderKL``, read in ``natalle/natalle_model.py``)
    made absolute against ``origin``'s package, as the file summaries spell it
    (``natalle.vqgan.autoencoder.AutoencoderKL``); other names unchanged."""
    if not qualname.startswith("."):
        return qualname
    rest = qualname.lstrip(".")
    names = module_names(os.path.abspath(origin))  # the index knows these too (``index_names``)
    if not names:
        return qualname
    package = names[-1].split(".")
    if os.path.basename(origin) != "__init__.py":
        package = package[:-1]
    up = len(qualname) - len(rest) - 1
    if up > len(package):
        return qualname
    return ".".join(package[: len(package) - up] + ([rest] if rest else []))


def find_module_files(by_module: Dict[Tuple[str, str], List[str]], root: str, module: str) -> Sequence[str]:
    """The files of ``by_module`` (``(root, dotted name)`` -> paths) that ``import
    <module>`` may load in the project at ``root``: those of the project itself, else
    the file at that dotted path below a directory up to ``SCRIPT_ROOT_LEVELS`` above
    it, where a script that puts the repository's top on ``sys.path`` finds its
    package (``yolov6/core/engine.py``), or below the root through a directory
    without ``__init__.py``, whose files are a root of their own
    (``natalle/vqgan/autoencoder.py`` as ``natalle.vqgan.autoencoder``). Only the
    full path counts there, not a suffix of it."""
    found = by_module.get((root, module))
    if found or not module:
        return found or ()
    parts = module.split(".")
    # A name read from a file given by its absolute path starts with the root's own
    # directories (``home.me.repo.natalle.vqgan.autoencoder``): each tail is tried.
    places = [(os.path.join(root, *tail[:k]), os.path.join(root, *tail)) for tail in (parts[s:] for s in range(len(parts))) for k in range(1, len(tail))]
    d = root
    for _ in range(bounds.SCRIPT_ROOT_LEVELS):
        d = os.path.dirname(d)
        places.append((d, os.path.join(d, *parts)))
    for key, stem in places:
        found = [p for p in by_module.get((key, module), ()) if real_stem(p) in (stem, os.path.join(stem, "__init__"))]
        if found:
            return found
    return ()
