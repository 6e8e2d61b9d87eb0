"""Reads the rule catalog (the TOML files in ``rules/``).

The catalog is the single source of every rule's name, message, explanation,
examples, fix safety and runtime probe: rule modules, ``gradlint explain``,
the docs, the tests and ``gradlint verify`` all read it from here.
"""

from __future__ import annotations

import functools
import re
import sys
from dataclasses import dataclass
from importlib import resources
from typing import Any, Dict, List, Mapping, Optional, Tuple

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib

DOCS_URL = "https://gradlint.readthedocs.io/en/latest/rules/{code}/"

# The reserved code of files that cannot be read, decoded or parsed.
PARSE_ERROR = "GL000"
FIX_SAFETIES = ("safe", "unsafe", "none")
_CODE_RE = re.compile(r"^GL\d{3}$")
_NAME_RE = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
_POS_RE = re.compile(r"^(\d+):(\d+)$")


class CatalogError(Exception):
    """A catalog file is malformed (a bug in gradlint, caught by its tests)."""


@dataclass(frozen=True)
class Example:
    bad: str
    good: str
    # 1-based (row, column) of every finding of this rule in ``bad``.
    findings: Tuple[Tuple[int, int], ...]
    # False when ``good`` is a hand-written rewrite rather than the autofix output.
    fixable: bool = True


@dataclass(frozen=True)
class Probe:
    claim: str
    code: str


@dataclass(frozen=True)
class RuleDoc:
    code: str
    name: str
    summary: str
    message: str
    default: bool
    fix: str
    fix_title: str
    fix_safety: str
    why: str
    what: str
    known_problems: str
    torch: str
    references: Tuple[str, ...]
    examples: Tuple[Example, ...]
    probe: Optional[Probe]

    @property
    def url(self) -> str:
        return DOCS_URL.format(code=self.code, name=self.name)

    def format_message(self, **fields: Any) -> str:
        try:
            return self.message.format(**fields)
        except (KeyError, IndexError) as exc:  # a rule/catalog mismatch
            raise CatalogError(f"{self.code}: message needs field {exc}") from None


_REQUIRED = {
    "code": str,
    "name": str,
    "summary": str,
    "message": str,
    "default": bool,
    "fix": str,
    "fix_safety": str,
    "why": str,
    "torch": str,
    "references": list,
    "examples": list,
}
_OPTIONAL = {
    "what": str,
    "fix_title": str,
    "known_problems": str,
    "probe": dict,
}


def _check_keys(where: str, table: Mapping[str, Any], required: Mapping[str, type], optional: Mapping[str, type]) -> None:
    for key, typ in required.items():
        if key not in table:
            raise CatalogError(f"{where}: missing key {key!r}")
    for key, value in table.items():
        typ = required.get(key) or optional.get(key)
        if typ is None:
            raise CatalogError(f"{where}: unknown key {key!r}")
        if not isinstance(value, typ):
            raise CatalogError(f"{where}: {key!r} must be {typ.__name__}")


def _parse_example(where: str, raw: Mapping[str, Any]) -> Example:
    _check_keys(where, raw, {"bad": str, "good": str, "findings": list}, {"fixable": bool})
    findings: List[Tuple[int, int]] = []
    for pos in raw["findings"]:
        m = _POS_RE.match(str(pos))
        if not m:
            raise CatalogError(f"{where}: finding {pos!r} is not 'row:column'")
        findings.append((int(m.group(1)), int(m.group(2))))
    return Example(raw["bad"], raw["good"], tuple(findings), raw.get("fixable", True))


def parse_entry(where: str, raw: Mapping[str, Any]) -> RuleDoc:
    _check_keys(where, raw, _REQUIRED, _OPTIONAL)
    code = raw["code"]
    if not _CODE_RE.match(code):
        raise CatalogError(f"{where}: code {code!r} is not GLnnn")
    if not _NAME_RE.match(raw["name"]):
        raise CatalogError(f"{where}: name {raw['name']!r} is not kebab-case")
    if raw["fix"] not in FIX_SAFETIES:
        raise CatalogError(f"{where}: fix must be one of {', '.join(FIX_SAFETIES)}")
    if raw["fix"] != "none" and "fix_title" not in raw:
        raise CatalogError(f"{where}: a fixable rule needs 'fix_title'")
    examples = tuple(_parse_example(f"{where}: examples[{i}]", ex) for i, ex in enumerate(raw["examples"]))
    if not examples:
        raise CatalogError(f"{where}: at least one example is needed")
    probe = None
    if "probe" in raw:
        _check_keys(f"{where}: probe", raw["probe"], {"claim": str, "code": str}, {})
        probe = Probe(raw["probe"]["claim"], raw["probe"]["code"])
    return RuleDoc(
        code=code,
        name=raw["name"],
        summary=raw["summary"].strip(),
        message=raw["message"].strip(),
        default=raw["default"],
        fix=raw["fix"],
        fix_title=raw.get("fix_title", "").strip(),
        fix_safety=raw["fix_safety"].strip(),
        why=raw["why"].strip(),
        what=raw.get("what", raw["summary"]).strip(),
        known_problems=raw.get("known_problems", "").strip(),
        torch=raw["torch"],
        references=tuple(raw["references"]),
        examples=examples,
        probe=probe,
    )


@functools.lru_cache(maxsize=None)
def load() -> Dict[str, RuleDoc]:
    """All catalog entries by code, in code order."""
    entries: Dict[str, RuleDoc] = {}
    names: Dict[str, str] = {}
    for item in resources.files("gradlint._catalog").iterdir():
        if not item.name.endswith(".toml"):
            continue
        try:
            raw = tomllib.loads(item.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise CatalogError(f"rules/{item.name}: {exc}") from None
        doc = parse_entry(f"rules/{item.name}", raw)
        if item.name != f"{doc.code}.toml":
            raise CatalogError(f"rules/{item.name}: file must be named {doc.code}.toml")
        if doc.name in names:
            raise CatalogError(f"rules/{item.name}: name {doc.name!r} is also used by {names[doc.name]}")
        names[doc.name] = doc.code
        entries[doc.code] = doc
    return dict(sorted(entries.items()))


def get(code_or_name: str) -> Optional[RuleDoc]:
    entries = load()
    key = code_or_name.strip()
    if key.upper() in entries:
        return entries[key.upper()]
    for doc in entries.values():
        if doc.name == key:
            return doc
    return None
