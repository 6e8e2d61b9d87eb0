"""Scaffold a new rule: its catalog entry, module, fixture and case, then the generated files.

Usage: ``python tests/new_rule.py CODE NAME [--fix safe|unsafe|none] [--default | --preview] [--root DIR]``

- ``rules/CODE.toml``: every required key, with placeholder text (``TODO: ...``)
  that the catalog accepts and that is to be rewritten;
- ``gradlint/rules/<code>_<name>.py``: a working rule for a placeholder pattern
  (a bare ``torch.autograd.set_detect_anomaly(True)`` statement), so that every
  test that runs over all rules runs it from the start;
- ``fixtures/CODE/example.py`` and what ``tests/update_fixtures.py`` writes beside it
  (and a ``pyproject.toml`` that switches the rule on there, unless it is on by default);
- ``tests/cases/CODE/example_case.py`` with ``# expect:`` markers;
- ``fixtures/CODE/verify/example.py``: a runnable script in which the finding shows
  what the entry's ``[[verify]]`` claim says, and the ``.verified`` sidecar that
  ``tests/update_fixtures.py`` writes beside it (``gradlint verify``'s verdicts);

then ``tests/update_trigger_table.py``, ``tests/update_fixtures.py CODE``,
``python -m gradlint.docs`` and ``tests/test_output_golden.py`` (the stored
outputs). Nothing else needs to know about the rule.

``--default``: checked by default; ``--preview``: checked only with ``--preview``;
neither: only when selected (``--select CODE``). A refused code or name is an
error on one line, exit status 2, with nothing written.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Optional, Sequence

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
# The catalog's own patterns (gradlint/catalog.py), repeated so that a refusal needs no import.
CODE_RE = re.compile(r"^GL\d{3}$")
NAME_RE = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
# The tests use GL999 as the code no rule has (an unknown --select, explain, a missing entry).
RESERVED = {"GL999": "tests use it as the code no rule has"}

# What every process the scaffold starts (and every process those start: the golden
# outputs run ``python -m gradlint``) runs first, as ``sitecustomize``: the tree at
# NEW_RULE_ROOT's gradlint and catalog, whatever gradlint the interpreter has
# installed. An editable install maps ``gradlint._catalog`` to its own checkout's
# rules/, which a second worktree or a temporary copy must not read.
_SITECUSTOMIZE = r"""
import importlib.util, os, sys

_rules = os.path.join(os.environ["NEW_RULE_ROOT"], "rules")


class _Catalog:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name != "gradlint._catalog":
            return None
        return importlib.util.spec_from_file_location(
            name, os.path.join(_rules, "__init__.py"), submodule_search_locations=[_rules]
        )


sys.meta_path.insert(0, _Catalog)
"""


def run_in(root: Path, kind: str, target: str, argv: Sequence[str] = (), check: bool = True) -> subprocess.CompletedProcess:
    """``python -m target argv`` (kind "module") or ``python target argv`` ("path"),
    in ``root`` and against ``root``'s own gradlint and catalog."""
    with tempfile.TemporaryDirectory() as boot:
        Path(boot, "sitecustomize.py").write_text(_SITECUSTOMIZE, encoding="utf-8")
        path = [boot, str(root), *filter(None, [os.environ.get("PYTHONPATH")])]
        env = {**os.environ, "NEW_RULE_ROOT": str(root), "PYTHONPATH": os.pathsep.join(path)}
        cmd = [sys.executable, *(["-m", target] if kind == "module" else [target]), *argv]
        proc = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True)
    if check and proc.returncode != 0:
        sys.stderr.write(proc.stdout + proc.stderr)
        raise SystemExit(f"new_rule: {target} {' '.join(argv)} failed (exit {proc.returncode})")
    return proc


# -- the files -------------------------------------------------------------------

BAD = "import torch\n\ntorch.autograd.set_detect_anomaly(True)\n"
GOOD = "import torch\n\ntorch.autograd.set_detect_anomaly(False)\n"
BAD_FINDINGS = ["3:1"]


def module_name(code: str, name: str) -> str:
    return f"{code.lower()}_{name.replace('-', '_')}"


def class_name(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("-"))


def render_toml(code: str, name: str, fix: str, tier: str) -> str:
    lines = [
        f'code = "{code}"',
        f'name = "{name}"',
        'summary = "TODO: one line, what is wrong (placeholder: a bare `torch.autograd.set_detect_anomaly(True)` statement)"',
        'message = "TODO: the finding\'s message; `{call}` leaves anomaly detection on for every later backward"',
        f"default = {'true' if tier in ('default', 'preview') else 'false'}",
    ]
    if tier == "preview":
        lines.append("preview = true")
    lines.append(f'fix = "{fix}"')
    if fix != "none":
        lines.append('fix_title = "TODO: the fix in one line (placeholder: pass `False`)"')
    lines += [
        'torch = "TODO: the versions the claim holds for, e.g. >=1.0 (tested on 2.13)"',
        'what = """\nTODO: what is flagged, precisely, and what is not.\n"""',
        'why = """\nTODO: why this is wrong on real torch, with the exact warning or error.\n"""',
        'fix_safety = """\nTODO: when the fix is safe and when not (docs/fixes.md).\n"""',
        'references = [\n    "https://pytorch.org/docs/stable/autograd.html#anomaly-detection",\n]',
        "",
        "[[examples]]",
        f"bad = '''\n{BAD}'''",
        f"good = '''\n{GOOD}'''",
        f"findings = {BAD_FINDINGS!r}".replace("'", '"'),
        "",
        "[probe]",
        'claim = "TODO: the rule\'s premise in one sentence, checked on the installed torch"',
        "code = '''",
        "import torch",
        "",
        "torch.autograd.set_detect_anomaly(True)",
        'observe("anomaly detection after the statement", torch.is_anomaly_enabled())',
        'confirm(torch.is_anomaly_enabled(), "the statement leaves anomaly detection on")',
        "'''",
        "",
        "# What `gradlint verify FILE` checks at run time (rules/README.md has the vocabulary);",
        f"# fixtures/{code}/verify/ holds a script in which it shows.",
        "[[verify]]",
        'claim = "raises"',
        'exception = "RuntimeError"',
        'match = "returned nan values"',
        'where = "later"',
    ]
    return "\n".join(lines) + "\n"


def render_module(code: str, name: str, fix: str) -> str:
    if fix == "none":
        report = "self.report(call, call=self.ctx.code_for(call))"
    else:
        report = (
            'fix = self.fix(self.replace(mode, cst.Name("False")))\n'
            "        self.report(call, fix=fix, call=self.ctx.code_for(call))"
        )
    return f'''"""{code} {name}: TODO say in one line what the rule flags.

Scaffolded with a placeholder pattern that works end to end (a bare
``torch.autograd.set_detect_anomaly(True)`` statement): replace it with the
rule's own, and its examples in ``rules/{code}.toml`` with it.
"""

from __future__ import annotations

import libcst as cst

from gradlint.rule import Rule


class {class_name(name)}(Rule):
    code = "{code}"
    # The prefilter: a file with none of these substrings is never parsed for this rule.
    triggers = ("set_detect_anomaly",)

    def visit_Expr(self, node: cst.Expr) -> None:
        call = node.value
        if not isinstance(call, cst.Call) or not call.args:
            return
        # Qualified names, not spellings: ``from torch import autograd`` and aliases count.
        if "torch.autograd.set_detect_anomaly" not in self.ctx.semantic.names.qualnames(call.func):
            return
        mode = call.args[0].value
        if not (isinstance(mode, cst.Name) and mode.value == "True"):
            return
        {report}
'''


def render_fixture(code: str) -> str:
    return f'"""TODO: what this fixture stands for ({code}); add more fixtures beside it."""\n' + BAD


def render_fixture_config(code: str, tier: str) -> Optional[str]:
    """``fixtures/CODE/pyproject.toml``: fixtures are checked as ``gradlint check`` would,
    so a rule that is not on by default needs its folder to switch it on."""
    if tier == "default":
        return None
    if tier == "preview":
        why, setting = f"{code} is a preview rule: its fixtures are checked with the preview tier on", "preview = true"
    else:
        why, setting = f"{code} is off by default: these fixtures switch it on", f'extend-select = ["{code}"]'
    return (
        f"# {why}.\n"
        "# The nearest configuration replaces the parent's, so the exclusions are repeated.\n"
        "[tool.gradlint]\n"
        f"{setting}\n"
        'extend-exclude = ["*.fixed.py", "*.unsafe.py", "*.migrated.py"]\n'
    )


def render_verify_script(code: str) -> str:
    return f'''"""TODO: a runnable script in which {code}'s finding shows what its [[verify]]
claims say; `gradlint verify` runs it as written and as fixed.

Scaffolded for the placeholder claim: anomaly detection left on makes a backward
that computes NaN raise. Self-contained for `gradlint verify`: synthetic data, CPU.
"""
import torch

torch.autograd.set_detect_anomaly(True)

x = torch.zeros(2, requires_grad=True)
(x / x).sum().backward()
print("gradients", x.grad.tolist())
'''


def render_case(code: str) -> str:
    # tests/test_cases.py runs a case's own rule selected whatever its tier (as
    # GL301's and GL105's cases are): `expect-preview` marks a finding of the
    # rule's inner preview tier, which a scaffolded rule does not have.
    expect = "expect"
    return f'''"""Recall case: TODO name the shape this case stands for.

Scaffolded: rewrite it once the rule checks what it should, and add a case
per shape (a ``Precision case`` marks the lines that must not be reported).
"""

import torch

torch.autograd.set_detect_anomaly(True)  # {expect}: {code}:1


def debug_backward(loss):
    with torch.autograd.set_detect_anomaly(True):  # expect-not: {code}
        loss.backward()
'''


def planned_files(root: Path, code: str, name: str) -> Dict[Path, str]:
    return {
        root / "rules" / f"{code}.toml": "",
        root / "gradlint" / "rules" / f"{module_name(code, name)}.py": "",
        root / "fixtures" / code / "example.py": "",
        root / "tests" / "cases" / code / "example_case.py": "",
        root / "fixtures" / code / "verify" / "example.py": "",
    }


# -- refusals --------------------------------------------------------------------


def refusal(root: Path, code: str, name: str) -> Optional[str]:
    """Why ``code`` and ``name`` cannot be scaffolded in ``root``, or None."""
    if not CODE_RE.match(code):
        return f"code {code!r} is not GLnnn (GL followed by three digits)"
    if not NAME_RE.match(name):
        return f"name {name!r} is not kebab-case (lower-case words joined by '-')"
    if code in RESERVED:
        return f"{code} is reserved: {RESERVED[code]}"
    taken = [root / "rules" / f"{code}.toml", *sorted((root / "gradlint" / "rules").glob(f"{code.lower()}_*.py"))]
    taken += [root / "fixtures" / code, root / "tests" / "cases" / code]
    for path in taken:
        if path.exists():
            return f"{code} exists already ({path.relative_to(root).as_posix()})"
    for toml in sorted((root / "rules").glob("GL*.toml")):
        with toml.open("rb") as fh:
            other = tomllib.load(fh)
        if other.get("name") == name:
            return f"name {name!r} is used by {other.get('code', toml.stem)} already"
    return None


# -- the command -----------------------------------------------------------------

FILL_IN = """\
Now rewrite the placeholders (every TODO) with the rule's own:
  {toml}: summary, message, what, why, fix_safety{fix_title}, torch, references,
      [[examples]] (bad, good, findings = ["row:col", ...]), [probe] (claim, code),
      [[verify]] (the claims: rules/README.md);
  {module}: the pattern, the triggers, the message's fields;
  {fixture}: fixtures of the real shapes (then: python tests/update_fixtures.py {code});
  {case}: a case per shape, recall and precision (tests/test_cases.py);
  {script}: a runnable script in which the finding shows what the claims say
      (then: python tests/update_fixtures.py {code}, which writes its .verified).
Then regenerate, and review with git diff:
  python tests/update_trigger_table.py && python tests/update_fixtures.py {code} \\
      && python -m gradlint.docs && python tests/test_output_golden.py"""


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="tests/new_rule.py", description=__doc__.split("\n")[0])
    parser.add_argument("code", help="GLnnn, unused")
    parser.add_argument("name", help="kebab-case, unused")
    parser.add_argument("--fix", choices=("safe", "unsafe", "none"), default="none", help="the fix's safety (default: none)")
    tier = parser.add_mutually_exclusive_group()
    tier.add_argument("--default", dest="tier", action="store_const", const="default", help="checked by default")
    tier.add_argument("--preview", dest="tier", action="store_const", const="preview", help="checked only with --preview")
    parser.add_argument("--root", type=Path, default=ROOT, help="the project to add it to (default: this checkout)")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    code, name = args.code, args.name

    why = refusal(root, code, name)
    if why is not None:
        print(f"new_rule: {why}", file=sys.stderr)
        return 2

    tier = args.tier or "selected"
    files = planned_files(root, code, name)
    toml, module, fixture, case, script = list(files)[:5]
    files[toml] = render_toml(code, name, args.fix, tier)
    files[module] = render_module(code, name, args.fix)
    files[fixture] = render_fixture(code)
    files[case] = render_case(code)
    files[script] = render_verify_script(code)
    config = render_fixture_config(code, tier)
    if config is not None:
        files[fixture.with_name("pyproject.toml")] = config
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"created {path.relative_to(root).as_posix()}")

    # The selection index and the prefilter table first: a code they lack is no rule to the engine.
    for kind, target, extra in (
        ("path", str(root / "tests" / "update_trigger_table.py"), []),
        ("path", str(root / "tests" / "update_fixtures.py"), [code]),
        ("module", "gradlint.docs", ["--root", str(root)]),
        # The stored outputs of every format over the fixtures and cases, which now hold the rule's.
        ("path", str(root / "tests" / "test_output_golden.py"), []),
    ):
        out = run_in(root, kind, target, extra).stdout
        for line in out.splitlines():
            print(f"  {line}")

    expected = fixture.with_suffix(".expected")
    findings = expected.read_text(encoding="utf-8").splitlines()
    print(f"{expected.relative_to(root).as_posix()}: {', '.join(findings)}")
    verified = script.with_suffix(".verified")
    if verified.exists():  # without torch, update_fixtures.py says it left it unwritten
        lines = verified.read_text(encoding="utf-8").splitlines()
        print(f"{verified.relative_to(root).as_posix()}: {'; '.join(line.strip() for line in lines if line[:1].isdigit() or line.startswith('  fix'))}")
    rel = {p: p.relative_to(root).as_posix() for p in files}
    print(
        FILL_IN.format(
            toml=rel[toml],
            module=rel[module],
            fixture=rel[fixture],
            case=rel[case],
            script=rel[script],
            code=code,
            fix_title=", fix_title" if args.fix != "none" else "",
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
