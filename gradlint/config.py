"""Configuration: ``[tool.gradlint]`` in the nearest ``pyproject.toml``, merged with CLI options.

Unknown keys and unknown rule codes are errors, never silently ignored: a
typo in ``ignore`` would otherwise switch nothing off and nobody would notice.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import functools
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, FrozenSet, Iterable, List, Mapping, Optional, Sequence, Tuple

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from gradlint import catalog
from gradlint.options import RuleOptions

GRAD_GUARDS = ("no_grad", "inference_mode")

DEFAULT_EXCLUDE = (
    ".bzr",
    ".direnv",
    ".eggs",
    ".git",
    ".gradlint_cache",
    ".hg",
    ".ipynb_checkpoints",
    ".mypy_cache",
    ".nox",
    ".pytest_cache",
    ".ruff_cache",
    ".svn",
    ".tox",
    ".venv",
    "__pycache__",
    "__pypackages__",
    "_build",
    "build",
    "dist",
    "node_modules",
    "site-packages",
    "venv",
)


class ConfigError(Exception):
    """Bad configuration or selection: reported as one line, exit code 2."""


def _str_list(where: str, key: str, value: Any) -> List[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: '{key}' must be a list of strings")
    return list(value)


@dataclass
class Config:
    """The ``[tool.gradlint]`` table, validated; paths in it are relative to ``root``."""

    root: Path
    source: Optional[Path] = None
    select: Optional[List[str]] = None
    ignore: List[str] = field(default_factory=list)
    extend_select: List[str] = field(default_factory=list)
    exclude: Optional[List[str]] = None
    extend_exclude: List[str] = field(default_factory=list)
    per_file_ignores: Dict[str, List[str]] = field(default_factory=dict)
    fix_grad_guard: str = "no_grad"
    # As Ruff's: directory walks skip what .gitignore, .git/info/exclude say git ignores.
    respect_gitignore: bool = True
    preview: bool = False


_KEYS = {
    "select",
    "ignore",
    "extend-select",
    "exclude",
    "extend-exclude",
    "per-file-ignores",
    "fix-grad-guard",
    "respect-gitignore",
    "preview",
}


def parse_table(table: Mapping[str, Any], root: Path, where: str) -> Config:
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        raise ConfigError(
            f"{where}: unknown key {unknown[0]!r} in [tool.gradlint] (known keys: {', '.join(sorted(_KEYS))})"
        )
    cfg = Config(root=root)
    if "select" in table:
        cfg.select = _str_list(where, "select", table["select"])
    if "ignore" in table:
        cfg.ignore = _str_list(where, "ignore", table["ignore"])
    if "extend-select" in table:
        cfg.extend_select = _str_list(where, "extend-select", table["extend-select"])
    if "exclude" in table:
        cfg.exclude = _str_list(where, "exclude", table["exclude"])
    if "extend-exclude" in table:
        cfg.extend_exclude = _str_list(where, "extend-exclude", table["extend-exclude"])
    if "per-file-ignores" in table:
        pfi = table["per-file-ignores"]
        if not isinstance(pfi, dict):
            raise ConfigError(f"{where}: 'per-file-ignores' must be a table of pattern = [codes]")
        for pattern, codes in pfi.items():
            cfg.per_file_ignores[pattern] = _str_list(where, f"per-file-ignores.{pattern}", codes)
    if "fix-grad-guard" in table:
        guard = table["fix-grad-guard"]
        if guard not in GRAD_GUARDS:
            raise ConfigError(f"{where}: 'fix-grad-guard' must be one of {', '.join(repr(g) for g in GRAD_GUARDS)}")
        cfg.fix_grad_guard = guard
    if "respect-gitignore" in table:
        if not isinstance(table["respect-gitignore"], bool):
            raise ConfigError(f"{where}: 'respect-gitignore' must be true or false")
        cfg.respect_gitignore = table["respect-gitignore"]
    if "preview" in table:
        if not isinstance(table["preview"], bool):
            raise ConfigError(f"{where}: 'preview' must be true or false")
        cfg.preview = table["preview"]
    # Validate every selector now, so a typo fails the run before any file is read.
    for sel in (*(cfg.select or ()), *cfg.ignore, *cfg.extend_select):
        expand_selector(sel, where)
    for codes in cfg.per_file_ignores.values():
        for sel in codes:
            expand_selector(sel, where)
    return cfg


def load_pyproject(path: Path) -> Optional[Config]:
    """The config in ``path``; None if it has no ``[tool.gradlint]`` table."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    except RecursionError:  # tomllib parses nested arrays and tables recursively
        raise ConfigError(f"{path}: invalid TOML: nested too deeply") from None
    table = data.get("tool", {}).get("gradlint") if isinstance(data.get("tool"), dict) else None
    if table is None:
        return None
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.gradlint] must be a table")
    cfg = parse_table(table, path.parent.resolve(), str(path))
    cfg.source = path
    return cfg


def load_config(explicit: str) -> Config:
    """The config in a file named with ``--config``."""
    path = Path(explicit)
    if not path.is_file():
        raise ConfigError(f"{explicit}: config file not found")
    cfg = load_pyproject(path)
    if cfg is not None:
        return cfg
    if path.name == "pyproject.toml":
        return Config(root=path.parent.resolve(), source=path)
    # Any other file holds the settings at its top level (like a ruff.toml).
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{path}: invalid TOML: nested too deeply") from None
    cfg = parse_table(table, path.parent.resolve(), str(path))
    cfg.source = path
    return cfg


def split_config_options(values: Sequence[str]) -> Tuple[Optional[str], Dict[str, Any]]:
    """``--config`` values, read as Ruff reads them: each names a file to read (at
    most one), or is a TOML fragment such as ``select = ["GL1"]`` that overrides
    that key of ``[tool.gradlint]`` in every configuration of the run. Returns the
    file and the fragments merged."""
    path: Optional[str] = None
    overrides: Dict[str, Any] = {}
    for value in values:
        if os.path.isfile(value):
            if path is not None:
                raise ConfigError(f"--config names two files ({path}, {value}): give at most one")
            path = value
            continue
        try:
            fragment = tomllib.loads(value)
        except tomllib.TOMLDecodeError as exc:
            if "=" not in value:
                raise ConfigError(f"--config {value}: config file not found") from None
            raise ConfigError(f"--config {value!r}: not a valid `key = value` TOML fragment: {exc}") from None
        if not fragment:
            raise ConfigError(f"--config {value!r}: no `key = value` in it")
        # Validated now with the table's own rules, so a typo fails before any file is read.
        parse_table(fragment, Path.cwd(), f"--config {value!r}")
        overrides.update(fragment)
    return path, overrides


def apply_overrides(cfg: Config, overrides: Mapping[str, Any]) -> Config:
    """``cfg`` with the keys of ``--config "key = value"`` replaced."""
    if not overrides:
        return cfg
    parsed = parse_table(overrides, cfg.root, "--config")
    return dataclasses.replace(cfg, **{key.replace("-", "_"): getattr(parsed, key.replace("-", "_")) for key in overrides})


class Settings:
    """Answers "which config and rules apply to this path?" for one run.

    Like Ruff, each file is governed by the nearest ``pyproject.toml`` with a
    ``[tool.gradlint]`` table above it (looked up once per directory), unless
    ``--config`` names one file for all; CLI selections apply on top.
    """

    def __init__(
        self,
        config_path: Optional[str] = None,
        select: Optional[Sequence[str]] = None,
        extend_select: Sequence[str] = (),
        ignore: Sequence[str] = (),
        cwd: Optional[Path] = None,
        overrides: Optional[Mapping[str, Any]] = None,
        respect_gitignore: Optional[bool] = None,
    ) -> None:
        self.select = list(select) if select is not None else None
        # --respect-gitignore / --no-respect-gitignore; None: each walk's configuration says.
        self._respect_gitignore = respect_gitignore
        self.extend_select = list(extend_select)
        self.ignore = list(ignore)
        for sel in (*(self.select or ()), *self.extend_select, *self.ignore):
            expand_selector(sel)
        self._overrides = dict(overrides or {})
        self._explicit = apply_overrides(load_config(config_path), self._overrides) if config_path else None
        self._by_dir: Dict[Path, Config] = {}
        self._by_dir_name: Dict[str, Config] = {}
        self._selections: Dict[int, Selection] = {}
        # Fail early (exit 2) on a broken config above the working directory.
        self.project = self.config_for_dir(Path(cwd or Path.cwd()))

    def config_for_dir(self, directory: Path) -> Config:
        if self._explicit is not None:
            return self._explicit
        directory = Path(os.path.abspath(directory))
        found = self._by_dir.get(directory)
        if found is not None:
            return found
        chain = []
        cur = directory
        while True:
            if cur in self._by_dir:
                found = self._by_dir[cur]
                break
            chain.append(cur)
            candidate = cur / "pyproject.toml"
            if candidate.is_file():
                cfg = load_pyproject(candidate)
                if cfg is not None:
                    found = apply_overrides(cfg, self._overrides)
                    break
            if cur.parent == cur:
                found = apply_overrides(Config(root=directory), self._overrides)
                break
            cur = cur.parent
        for d in chain:
            self._by_dir[d] = found
        return found

    def config_for(self, path: Path) -> Config:
        # Asked for every file of a run: looked up by the directory's name first,
        # without building Path objects.
        directory = os.path.dirname(os.path.abspath(path))
        found = self._by_dir_name.get(directory)
        if found is None:
            found = self._by_dir_name[directory] = self.config_for_dir(Path(directory))
        return found

    def respects_gitignore(self, directory: Path) -> bool:
        """Whether a walk of ``directory`` skips what git ignores (the command line, else its configuration)."""
        if self._respect_gitignore is not None:
            return self._respect_gitignore
        return self.config_for_dir(directory).respect_gitignore

    def selection(self, cfg: Config) -> Selection:
        key = id(cfg)
        sel = self._selections.get(key)
        if sel is None:
            sel = self._selections[key] = resolve(cfg, self.select, self.extend_select, self.ignore)
        return sel

    def codes_for(self, path: Path) -> Tuple[FrozenSet[str], RuleOptions]:
        cfg = self.config_for(path)
        sel = self.selection(cfg)
        return codes_for_file(sel, path, cfg.root), sel.options


# -- rule selection -----------------------------------------------------------


def expand_selector(selector: str, where: str = "") -> FrozenSet[str]:
    """``ALL``, a code (``GL101``) or a code prefix (``GL1``) -> the codes it selects."""
    sel = selector.strip().upper()
    codes = catalog.selection_index()
    if sel == "ALL":
        return frozenset(codes)
    matched = frozenset(c for c in codes if c.startswith(sel)) if sel.startswith("GL") else frozenset()
    if not matched:
        prefix = f"{where}: " if where else ""
        raise ConfigError(f"{prefix}unknown rule code or prefix {selector!r}")
    return matched


def expand(selectors: Iterable[str]) -> FrozenSet[str]:
    out: FrozenSet[str] = frozenset()
    for sel in selectors:
        out |= expand_selector(sel)
    return out


def default_codes() -> FrozenSet[str]:
    return frozenset(code for code, (default, _) in catalog.selection_index().items() if default)


def preview_codes() -> FrozenSet[str]:
    """Rules that run only with ``preview = true`` (``--preview``), even when selected."""
    return frozenset(code for code, (_, preview) in catalog.selection_index().items() if preview)


@dataclass(frozen=True)
class Selection:
    """The effective rule set and options for a run (before per-file ignores)."""

    codes: FrozenSet[str]
    options: RuleOptions
    per_file_ignores: Tuple[Tuple[str, FrozenSet[str]], ...] = ()


def resolve(
    cfg: Config,
    select: Optional[Sequence[str]] = None,
    extend_select: Sequence[str] = (),
    ignore: Sequence[str] = (),
) -> Selection:
    """Merge config and CLI: CLI ``--select`` replaces the config's; extensions and ignores add up."""
    if select is not None:
        base = expand(select)
    elif cfg.select is not None:
        base = expand(cfg.select)
    else:
        base = default_codes()
    codes = (base | expand(cfg.extend_select) | expand(extend_select)) - expand(cfg.ignore) - expand(ignore)
    if not cfg.preview:
        codes -= preview_codes()
    pfi = tuple((pattern, expand(sels)) for pattern, sels in cfg.per_file_ignores.items())
    return Selection(codes, RuleOptions(fix_grad_guard=cfg.fix_grad_guard, preview=cfg.preview), pfi)


def split_selectors(values: Sequence[str]) -> List[str]:
    """``--select GL001,GL002 --select GL1`` -> ``["GL001", "GL002", "GL1"]``."""
    return [part.strip() for v in values for part in v.split(",") if part.strip()]


# -- path matching ------------------------------------------------------------


def relative_posix(path: Path, root: Path) -> str:
    # String operations: this runs for every file and directory a walk meets.
    full = os.path.abspath(path)
    base = str(root)
    if full == base:
        return "."
    prefix = base if base.endswith(os.sep) else base + os.sep
    rel = full[len(prefix) :] if full.startswith(prefix) else full
    return rel.replace(os.sep, "/") if os.sep != "/" else rel


@functools.lru_cache(maxsize=256)
def _glob_regex(patterns: Tuple[str, ...]) -> "re.Pattern[str]":
    """One regex matching what any of the glob ``patterns`` matches (as ``fnmatchcase``)."""
    parts = []
    for pattern in patterns:
        pat = pattern.rstrip("/")
        if pat.startswith("./"):
            pat = pat[2:]
        parts.append(fnmatch.translate(pat))
    return re.compile("|".join(f"(?:{p})" for p in parts) if parts else r"(?!)")


def matches(patterns: Iterable[str], path: Path, root: Path, ancestors: bool = False) -> bool:
    """Whether ``path`` matches one of the glob ``patterns``, by its basename or its
    path relative to ``root``; with ``ancestors``, a match of any directory above it
    (within ``root``) counts too. Directory walks prune excluded directories, so
    they need no ancestor check, and a directory named explicitly is walked even
    when it is excluded, as in Ruff."""
    rx = _glob_regex(tuple(patterns))
    rel = relative_posix(path, root)
    if rx.match(path.name) or rx.match(rel):
        return True
    if ancestors:
        parts = rel.split("/")
        for i in range(1, len(parts)):
            if rx.match(parts[i - 1]) or rx.match("/".join(parts[:i])):
                return True
    return False


def excludes(cfg: Config) -> List[str]:
    base = list(cfg.exclude) if cfg.exclude is not None else list(DEFAULT_EXCLUDE)
    return base + list(cfg.extend_exclude)


def codes_for_file(selection: Selection, path: Path, root: Path) -> FrozenSet[str]:
    codes = selection.codes
    for pattern, ignored in selection.per_file_ignores:
        if matches([pattern], path, root, ancestors=True):
            codes = codes - ignored
    return codes
