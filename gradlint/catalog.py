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
from pathlib import Path
from typing import Any, Dict, FrozenSet, List, Mapping, Optional, Tuple

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib

DOCS_URL = "https://gradlint.readthedocs.io/en/latest/rules/{code}/"

# "varies": the rule decides per finding (safe where it can prove the fix changes
# nothing that matters, unsafe otherwise); its fix_safety text says when.
FIX_SAFETIES = ("safe", "unsafe", "varies", "none")
# The reserved code of files that cannot be read, decoded or parsed.
PARSE_ERROR = "GL000"
# PyTorch 0.3's `async=` keyword argument: found on the token stream, as the file does not parse.
ASYNC_ARGUMENT = "GL005"
# Findings about `# noqa` directives themselves (Ruff's RUF100 and RUF102):
# computed from the other findings after the rules ran, with no torch claim.
UNUSED_NOQA = "GL900"
INVALID_NOQA = "GL901"
DIRECTIVE_CODES = frozenset({UNUSED_NOQA, INVALID_NOQA})
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


# What a finding may claim to happen at run time: the vocabulary of the
# ``[[verify]]`` tables (rules/README.md documents it). ``gradlint verify FILE``
# measures these in a sandboxed run; each kind says which keys it takes (and
# their allowed values, or the type), and whether the fix should make the
# behaviour go away ("gone") or keep it ("kept": a rewrite that only spells
# the same behaviour out).
REGIONS = ("statement", "rest-of-scope", "loop")
AFTER_FIX = ("gone", "kept")
# Whether the file's results must stay the same once the fix removes the
# behaviour ("same"), or may change because the behaviour is what decided them
# ("may-change": GL302's "frozen" parameters that a fix really freezes).
RESULTS = ("same", "may-change")
CLAIM_KINDS: Dict[str, Dict[str, Any]] = {
    "records-graph": {"keys": {"region": REGIONS}, "region": "statement", "after_fix": "gone"},
    "retains-memory": {"keys": {}, "region": "loop", "after_fix": "gone"},
    "raises": {"keys": {"exception": (str, list), "match": str, "where": ("finding", "later")}, "required": ("exception",), "after_fix": "gone"},
    "warns": {"keys": {"match": str, "category": str}, "required": ("match",), "after_fix": "gone"},
    "detaches": {"keys": {}, "after_fix": "kept"},
    "grad-already-disabled": {"keys": {}, "after_fix": "kept"},
    "grad-mode-leaks": {"keys": {}, "after_fix": "gone"},
    "bypasses-version-counter": {"keys": {}, "after_fix": "gone"},
    "requires-grad-unchanged": {"keys": {}, "after_fix": "gone"},
}


@dataclass(frozen=True)
class Claim:
    """One thing a finding says happens at run time (one ``[[verify]]`` table)."""

    kind: str
    region: str = "statement"
    # raises: exception class names (any base class counts) and where it is raised.
    exceptions: Tuple[str, ...] = ()
    where: str = "finding"
    # raises / warns: a regular expression searched in the message.
    match: str = ""
    category: str = ""
    after_fix: str = "gone"
    results: str = "same"

    def describe(self) -> str:
        """The claim in words, for the docs."""
        region = {
            "statement": "the flagged statement",
            "rest-of-scope": "the flagged statement and the code after it in the same function (or module)",
            "loop": "the loop around the flagged statement",
        }[self.region]
        if self.kind == "records-graph":
            text = f"{region} records an autograd graph (bytes saved for backward > 0)"
        elif self.kind == "retains-memory":
            text = f"tensors saved for backward in earlier iterations of {region} are still alive when it ends"
        elif self.kind == "raises":
            at = "the flagged statement" if self.where == "finding" else "the code, once the flagged statement has run,"
            text = f"{at} raises {' or '.join(self.exceptions)}" + (f" matching `{self.match}`" if self.match else "")
        elif self.kind == "warns":
            text = f"the flagged statement emits a {self.category or 'warning'} matching `{self.match}`"
        elif self.kind == "detaches":
            text = "the tensors it produces have no autograd history (`requires_grad=False`, no `grad_fn`)"
        elif self.kind == "grad-already-disabled":
            text = "gradients are already disabled when the flagged statement runs"
        elif self.kind == "grad-mode-leaks":
            text = "the function around it returns with gradients disabled although they were enabled when it was called"
        elif self.kind == "bypasses-version-counter":
            text = "it changes a tensor's values without bumping the tensor's version counter"
        else:  # requires-grad-unchanged
            text = "it leaves the `requires_grad` flags of the tensor (or of every parameter of the module) it targets as they were"
        if self.results == "may-change":
            return text + "; the fix makes this go away, which changes the results on purpose"
        if self.after_fix == "gone":
            return text + "; the fix makes this go away"
        return text + "; the fix keeps this behaviour and the results"


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
    verify: Tuple[Claim, ...] = ()
    # Why ``gradlint migrate`` applies this rule's unsafe fixes too (``migrate = "trusted"``):
    # in code written for PyTorch <= 0.3 they restore what the code did then. Empty: migrate
    # applies only the fixes ``check --fix`` calls safe.
    migrate_trust: str = ""
    # What ``gradlint migrate`` does with the rule (``MIGRATE_MARKS``); empty: it is no migration.
    migrate: str = ""
    # ``torch.nn`` classes whose outputs in eval mode differ under ``no_grad`` (a native
    # fast path taken only with grad off), as measured by benchmarks/no_grad_numerics.py
    # and re-measured by the rule's probe: a fix that adds a guard is unsafe near them.
    no_grad_changes: Tuple[str, ...] = ()
    # What the semantic model must prove before the rule reports in the default
    # tier (one sentence each); a premise it cannot prove means no finding.
    premises: Tuple[str, ...] = ()
    # A preview rule runs only with ``preview = true`` / ``--preview`` (and then by
    # default when ``default`` is true too, as Ruff's preview rules in a selected family).
    preview: bool = False
    # Its weak part, which reports only in the preview tier, and the precision measured for it.
    preview_what: str = ""
    preview_precision: str = ""

    @property
    def migrate_trusted(self) -> bool:
        return bool(self.migrate_trust)

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
    "verify": list,
    "migrate": str,
    "migrate_trust": str,
    "no_grad_changes": list,
    "premises": list,
    "preview": bool,
    "preview_what": str,
    "preview_precision": str,
}
# What ``gradlint migrate`` does with a rule: ``safe``, apply its safe fixes;
# ``trusted``, its unsafe fixes too (``migrate_trust`` says why); ``report``, list
# its findings for a human (a rule without a fix). A rule without the key is
# not a migration.
MIGRATE_MARKS = ("safe", "trusted", "report")


def _check_keys(where: str, table: Mapping[str, Any], required: Mapping[str, type], optional: Mapping[str, type]) -> None:
    for key, typ in required.items():
        if key not in table:
            raise CatalogError(f"{where}: missing key {key!r}")
    for key, value in table.items():
        known = required.get(key) or optional.get(key)
        if known is None:
            raise CatalogError(f"{where}: unknown key {key!r}")
        if not isinstance(value, known):
            raise CatalogError(f"{where}: {key!r} must be {known.__name__}")


def _parse_example(where: str, raw: Mapping[str, Any]) -> Example:
    _check_keys(where, raw, {"bad": str, "good": str, "findings": list}, {"fixable": bool})
    findings: List[Tuple[int, int]] = []
    for pos in raw["findings"]:
        m = _POS_RE.match(str(pos))
        if not m:
            raise CatalogError(f"{where}: finding {pos!r} is not 'row:column'")
        findings.append((int(m.group(1)), int(m.group(2))))
    return Example(raw["bad"], raw["good"], tuple(findings), raw.get("fixable", True))


def parse_claim(where: str, raw: Any) -> Claim:
    if not isinstance(raw, dict):
        raise CatalogError(f"{where}: must be a table")
    kind = raw.get("claim")
    if kind not in CLAIM_KINDS:
        raise CatalogError(f"{where}: 'claim' must be one of {', '.join(CLAIM_KINDS)}")
    spec = CLAIM_KINDS[kind]
    allowed: Dict[str, Any] = {"claim": str, "after_fix": AFTER_FIX, "results": RESULTS, **spec["keys"]}
    for key in spec.get("required", ()):
        if key not in raw:
            raise CatalogError(f"{where}: a {kind!r} claim needs {key!r}")
    for key, value in raw.items():
        if key not in allowed:
            raise CatalogError(f"{where}: unknown key {key!r} for a {kind!r} claim")
        rule = allowed[key]
        if isinstance(rule, tuple) and all(isinstance(r, str) for r in rule):
            if value not in rule:
                raise CatalogError(f"{where}: {key!r} must be one of {', '.join(rule)}")
        elif not isinstance(value, rule):
            raise CatalogError(f"{where}: {key!r} has the wrong type")
    exceptions = raw.get("exception", ())
    exceptions = (exceptions,) if isinstance(exceptions, str) else tuple(exceptions)
    if not all(isinstance(e, str) and e.isidentifier() for e in exceptions):
        raise CatalogError(f"{where}: 'exception' must name exception classes")
    match = raw.get("match", "")
    try:
        re.compile(match)
    except re.error as exc:
        raise CatalogError(f"{where}: 'match' is not a regular expression: {exc}") from None
    after_fix = raw.get("after_fix", spec["after_fix"])
    if raw.get("results") == "may-change" and after_fix != "gone":
        raise CatalogError(f"{where}: results = 'may-change' needs after_fix = 'gone'")
    return Claim(
        kind=kind,
        region=raw.get("region", spec.get("region", "statement")),
        exceptions=exceptions,
        where=raw.get("where", "finding"),
        match=match,
        category=raw.get("category", ""),
        after_fix=after_fix,
        results=raw.get("results", "same"),
    )


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
    mark = raw.get("migrate")
    if mark is not None and mark not in MIGRATE_MARKS:
        raise CatalogError(f"{where}: migrate must be one of {', '.join(MIGRATE_MARKS)}")
    if mark == "report" and raw["fix"] != "none":
        raise CatalogError(f"{where}: migrate = 'report' is for a rule without a fix: use 'safe' or 'trusted'")
    if mark == "safe" and raw["fix"] == "none":
        raise CatalogError(f"{where}: migrate = 'safe' needs a rule with a fix: use 'report'")
    if mark == "trusted":
        if raw["fix"] == "none" or raw["fix"] == "safe":
            raise CatalogError(f"{where}: migrate = 'trusted' needs a rule whose fixes can be unsafe")
        if not raw.get("migrate_trust", "").strip():
            raise CatalogError(f"{where}: migrate = 'trusted' needs 'migrate_trust' saying why")
    elif "migrate_trust" in raw:
        raise CatalogError(f"{where}: 'migrate_trust' without migrate = 'trusted'")
    examples = tuple(_parse_example(f"{where}: examples[{i}]", ex) for i, ex in enumerate(raw["examples"]))
    if not examples:
        raise CatalogError(f"{where}: at least one example is needed")
    probe = None
    if "probe" in raw:
        _check_keys(f"{where}: probe", raw["probe"], {"claim": str, "code": str}, {})
        probe = Probe(raw["probe"]["claim"], raw["probe"]["code"])
    claims = tuple(parse_claim(f"{where}: verify[{i}]", c) for i, c in enumerate(raw.get("verify", ())))
    premises = raw.get("premises", [])
    if not all(isinstance(p, str) and p.strip() for p in premises):
        raise CatalogError(f"{where}: 'premises' must be a list of sentences")
    if ("preview_what" in raw) != ("preview_precision" in raw):
        raise CatalogError(f"{where}: 'preview_what' and 'preview_precision' go together")
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
        verify=claims,
        migrate=mark or "",
        migrate_trust=" ".join(raw.get("migrate_trust", "").split()),
        no_grad_changes=_qualified_names(f"{where}: no_grad_changes", raw.get("no_grad_changes", [])),
        premises=tuple(" ".join(p.split()) for p in premises),
        preview=raw.get("preview", False),
        preview_what=raw.get("preview_what", "").strip(),
        preview_precision=" ".join(raw.get("preview_precision", "").split()),
    )


def _qualified_names(where: str, raw: List[Any]) -> Tuple[str, ...]:
    if not all(isinstance(n, str) and re.fullmatch(r"[A-Za-z_][\w]*(\.[A-Za-z_]\w*)+", n) for n in raw):
        raise CatalogError(f"{where}: must be a list of dotted qualified names")
    return tuple(raw)


def selection_index() -> Dict[str, Tuple[bool, bool]]:
    """Every code, in code order -> (checked by default, preview only): what rule
    selection needs, from ``gradlint.catalog_index`` (generated from the catalog
    by ``tests/update_trigger_table.py``), so that a run whose files have no
    finding never parses the catalog's TOML."""
    from gradlint.catalog_index import RULES

    return RULES


def no_grad_changes() -> FrozenSet[str]:
    """The ``no_grad_changes`` of every entry together, from ``gradlint.catalog_index``:
    a GL101 or GL001 fix asks it of every file it would guard, and parsing the
    whole catalog's TOML for it was a twentieth of a small file's check."""
    from gradlint.catalog_index import NO_GRAD_CHANGES

    return frozenset(NO_GRAD_CHANGES)


@functools.lru_cache(maxsize=None)
def entry(code: str) -> RuleDoc:
    """The catalog entry of ``code`` (KeyError when there is none), parsed from its
    own file unless the whole catalog is loaded already: a run with findings of
    one or two rules need not parse every rule's TOML to word them."""
    whole = getattr(load, "cache_info", None)
    if whole is None or whole().currsize:
        return load()[code]
    if code not in selection_index():
        raise KeyError(code)
    item = files().joinpath(f"{code}.toml")
    try:
        raw = tomllib.loads(item.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise CatalogError(f"rules/{code}.toml: {exc}") from None
    return parse_entry(f"rules/{code}.toml", raw)


@functools.lru_cache(maxsize=None)
def files() -> Any:
    """The catalog's directory (the data package ``gradlint._catalog``): a ``Path``
    where it is a directory on disk, as installed from a wheel or a clone, else
    what ``importlib.resources`` makes of it. Importing ``importlib.resources``
    (with ``tempfile``, ``shutil``, ``zipfile``) costs about a tenth of a run's
    start-up, which a run that words one finding need not pay."""
    import importlib

    # A data package, mapped from rules/ by the build: no module for type checkers to find.
    data = importlib.import_module("gradlint._catalog")
    for entry in getattr(data, "__path__", ()):
        if Path(entry).is_dir():
            return Path(entry)
    from importlib import resources

    return resources.files("gradlint._catalog")


@functools.lru_cache(maxsize=None)
def load() -> Dict[str, RuleDoc]:
    """All catalog entries by code, in code order."""
    entries: Dict[str, RuleDoc] = {}
    names: Dict[str, str] = {}
    for item in files().iterdir():
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
