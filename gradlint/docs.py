"""Render catalog entries as Markdown: ``gradlint explain``, the docs pages and the README table.

``python -m gradlint.docs`` rewrites the generated parts of README.md,
docs/rules/ (a page per rule and the index) and mkdocs.yml's rules nav; a
test fails when they are out of date.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Iterable, List, Optional

from gradlint import catalog
from gradlint.catalog import RuleDoc

FIX_LABEL = {"safe": "safe", "unsafe": "unsafe", "varies": "safe or unsafe", "none": "—"}
FIX_SENTENCE = {
    "safe": "always safe",
    "unsafe": "unsafe (needs --unsafe-fixes)",
    "varies": "safe or unsafe depending on the code (see Fix safety)",
    "none": "none",
}


def _code_block(code: str) -> str:
    return "```python\n" + code.rstrip("\n") + "\n```"


def rule_markdown(doc: RuleDoc, heading: str = "#") -> str:
    """One rule, in the section order Ruff's rule docs use."""
    h2 = heading + "#"
    ex = doc.examples[0]
    parts: List[str] = [
        f"{heading} {doc.name} ({doc.code})",
        "",
        f"Enabled by default: {'preview only (`--preview`)' if doc.preview else 'yes' if doc.default else 'no'}. "
        f"Fix: {FIX_SENTENCE[doc.fix]}. "
        f"Holds for torch {doc.torch}.",
        "",
        f"{h2} What it does",
        "",
        doc.what,
        "",
    ]
    if doc.premises:
        parts += [
            f"{h2} Premises",
            "",
            "It reports only where the semantic model proves each of these; where one is unknown, "
            "the default tier reports nothing:",
            "",
        ] + [f"- {p}" for p in doc.premises] + [""]
    if doc.preview_what:
        parts += [
            f"{h2} Preview",
            "",
            "With `--preview` (`preview = true`) it also reports what follows; measured precision: "
            + doc.preview_precision,
            "",
            doc.preview_what,
            "",
        ]
    parts += [
        f"{h2} Why is this bad?",
        "",
        doc.why,
        "",
        f"{h2} Example",
        "",
        _code_block(ex.bad),
        "",
        f"{h2} Use instead",
        "",
        _code_block(ex.good),
        "",
    ]
    if doc.fix != "none" and ex.fixable:
        flags = "--fix" if doc.fix == "safe" else "--fix --unsafe-fixes"
        parts += [f"This is what `gradlint check {flags}` makes of the example.", ""]
    parts += [
        f"{h2} Fix safety",
        "",
        doc.fix_safety,
        "",
    ]
    if doc.migrate_trusted:
        parts += [
            "`gradlint migrate` applies this rule's unsafe fixes as well, because the catalog trusts them "
            "for legacy code ([the contract](../fixes.md)): " + doc.migrate_trust,
            "",
        ]
    if doc.known_problems:
        parts += [f"{h2} Known problems", "", doc.known_problems, ""]
    if doc.probe is not None or doc.verify:
        parts += [f"{h2} Runtime check", ""]
    if doc.probe is not None:
        parts += [
            f"`gradlint verify --probes --select {doc.code}` runs this probe on your torch and confirms: "
            f"{doc.probe.claim}",
            "",
            _code_block(doc.probe.code),
            "",
        ]
    if doc.verify:
        parts += [
            "`gradlint verify FILE` runs a file with this finding as written and as fixed, and checks at each finding that:",
            "",
        ] + [f"- {claim.describe()}." for claim in doc.verify] + [""]
    if doc.references:
        parts += [f"{h2} References", ""] + [f"- <{ref}>" for ref in doc.references] + [""]
    return "\n".join(parts)


def rules_table(docs: Optional[Iterable[RuleDoc]] = None) -> str:
    rows = [
        "| Code | Name | What it flags | Default | Fix |",
        "|---|---|---|---|---|",
    ]
    for doc in docs if docs is not None else catalog.load().values():
        summary = doc.summary.replace("|", "\\|").replace("\n", " ")
        rows.append(
            f"| [{doc.code}](docs/rules/{doc.code}.md) | `{doc.name}` | {summary} | "
            f"{'preview' if doc.preview else 'on' if doc.default else 'off'} | {FIX_LABEL[doc.fix]} |"
        )
    return "\n".join(rows) + "\n"


def rules_index(docs: Optional[Iterable[RuleDoc]] = None) -> str:
    """docs/rules/index.md: the rule table, linking each rule's page."""
    table = rules_table(docs).replace("](docs/rules/", "](")
    return (
        "# Rules\n\n"
        "Every rule, generated from the catalog in `rules/` (`gradlint rules` prints the\n"
        "same list; `gradlint explain CODE` prints a rule's page). Fix: *safe* fixes\n"
        "are applied by `--fix`, *unsafe* ones only with `--fix --unsafe-fixes`. To add a\n"
        "rule, see `CONTRIBUTING.md` at the top of the repository.\n\n" + table
    )


_TABLE_RE = re.compile(r"(<!-- rules-table:start -->\n)(.*?)(<!-- rules-table:end -->)", re.S)
_NAV_RE = re.compile(r"(?m)^(?P<indent>[ \t]*)# rules-nav:start\n(?P<body>.*?)^(?P=indent)# rules-nav:end$", re.S)


def render_readme(text: str) -> str:
    if not _TABLE_RE.search(text):
        raise ValueError("README.md has no <!-- rules-table:start --> ... <!-- rules-table:end --> markers")
    return _TABLE_RE.sub(lambda m: m.group(1) + rules_table() + m.group(3), text)


def render_mkdocs_nav(text: str) -> str:
    """mkdocs.yml with one nav entry per rule between the ``# rules-nav`` markers."""
    m = _NAV_RE.search(text)
    if m is None:
        raise ValueError("mkdocs.yml has no '# rules-nav:start' ... '# rules-nav:end' markers")
    indent = m.group("indent")
    entries = "".join(f"{indent}- {doc.code} {doc.name}: rules/{doc.code}.md\n" for doc in catalog.load().values())
    return text[: m.start()] + f"{indent}# rules-nav:start\n{entries}{indent}# rules-nav:end" + text[m.end() :]


def generated_files(root: Path) -> dict:
    """Path -> expected content for every generated docs file."""
    out = {}
    for doc in catalog.load().values():
        out[root / "docs" / "rules" / f"{doc.code}.md"] = rule_markdown(doc)
    out[root / "docs" / "rules" / "index.md"] = rules_index()
    readme = root / "README.md"
    out[readme] = render_readme(readme.read_text(encoding="utf-8"))
    mkdocs = root / "mkdocs.yml"
    out[mkdocs] = render_mkdocs_nav(mkdocs.read_text(encoding="utf-8"))
    return out


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gradlint.docs", description=__doc__)
    parser.add_argument("--root", default=".", help="project root (default: .)")
    parser.add_argument("--check", action="store_true", help="exit 1 if a generated file is out of date")
    args = parser.parse_args(argv)
    root = Path(args.root)
    stale = []
    for path, content in generated_files(root).items():
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current != content:
            stale.append(path)
            if not args.check:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(content, encoding="utf-8")
    for path in stale:
        print(f"{'stale' if args.check else 'wrote'}: {path}")
    return 1 if (args.check and stale) else 0


if __name__ == "__main__":
    sys.exit(main())
