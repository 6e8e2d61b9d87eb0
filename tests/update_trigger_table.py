"""Write the generated tables that let a run start without LibCST or the catalog's TOML.

- ``gradlint/triggers.py``: the rules' prefilter as data, from the rule classes;
- ``gradlint/catalog_index.py``: what rule selection reads of the catalog.

Usage: ``python tests/update_trigger_table.py``. ``tests/test_prefilter.py``
fails while a committed table differs from what this writes.
"""

from __future__ import annotations

from pathlib import Path

TABLE = Path(__file__).resolve().parent.parent / "gradlint" / "triggers.py"
INDEX = Path(__file__).resolve().parent.parent / "gradlint" / "catalog_index.py"

HEADER = '''"""Each rule's prefilter as data: ``code: (triggers, gates, project gate, source repair pattern)``.

Read by ``gradlint.prefilter`` so that a file no rule could fire on is
answered without importing LibCST or any rule. Gates are written as
``prefilter.gate_spec`` writes them; the project gate by its name in
``prefilter.PROJECT_GATES``; the repair pattern is ``SourceRepair.pattern``
(or, when a repair has none, any of the rule's triggers).

Generated from the rule classes by ``tests/update_trigger_table.py``: do not edit.
"""

'''


def render() -> str:
    from gradlint import prefilter
    from gradlint.rules import all_rules

    lines = ["RULES = {"]
    for code, rule in all_rules().items():
        repair = None
        if rule.source_repair is not None:
            repair = rule.source_repair.pattern
            if repair is None:
                import re

                repair = "|".join(re.escape(t) for t in rule.triggers)
        entry = (
            tuple(rule.triggers),
            tuple(prefilter.gate_spec(g) for g in rule.gates),
            prefilter.project_gate_name(rule.project_gate),
            repair,
        )
        lines.append(f"    {code!r}: {entry!r},")
    lines.append("}")
    return HEADER + "\n".join(lines) + "\n"


INDEX_HEADER = '''"""Every catalog code: ``code: (checked by default, preview only)`` (``catalog.selection_index``),
and the catalog's ``no_grad_changes`` together (``catalog.no_grad_changes``).

Generated from the catalog (``rules/*.toml``) by ``tests/update_trigger_table.py``: do not edit.
"""

'''


def render_index() -> str:
    from gradlint import catalog

    entries = catalog.load()
    rows = "".join(f"    {code!r}: ({doc.default!r}, {doc.preview!r}),\n" for code, doc in entries.items())
    changes = "".join(f"    {name!r},\n" for name in dict.fromkeys(n for doc in entries.values() for n in doc.no_grad_changes))
    return INDEX_HEADER + "RULES = {\n" + rows + "}\n\nNO_GRAD_CHANGES = (\n" + changes + ")\n"


if __name__ == "__main__":
    for path, text in ((TABLE, render()), (INDEX, render_index())):
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")
