"""tests/new_rule.py: a scaffolded rule is complete, works, and touches only its own places."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import new_rule
from gradlint.catalog import parse_entry

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = "tests/new_rule.py"
# What the scaffold and the generators it runs read and write: nothing else is copied,
# so a scaffold that reached outside these would fail here.
COPIED = ["rules", "gradlint", "docs/rules", "README.md", "mkdocs.yml", "pyproject.toml", "fixtures/pyproject.toml", "tests/data/outputs"]
SCRIPTS = ["new_rule.py", "update_fixtures.py", "update_trigger_table.py", "harness.py", "test_output_golden.py", "samples.py"]
# Codes no rule has yet (a checkout may hold a scaffolded GL998 already).
CODE, OTHER = [c for c in (f"GL{n}" for n in range(998, 900, -1)) if not (ROOT / "rules" / f"{c}.toml").exists()][:2]
NAME = f"scaffolded-{CODE.lower()}"
MODULE = f"{CODE.lower()}_scaffolded_{CODE.lower()}"
# The verify script's sidecar is written by running it under torch.
TORCH = importlib.util.find_spec("torch") is not None
VERIFIED = [f"fixtures/{CODE}/verify/example.verified"] if TORCH else []


def _snapshot(root: Path) -> dict:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }


def _scaffold(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(root / SCRIPT), *args], cwd=root, capture_output=True, text=True)


def _copy(root: Path) -> Path:
    ignore = shutil.ignore_patterns("__pycache__")
    for rel in COPIED:
        src, dst = ROOT / rel, root / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(src, dst, ignore=ignore)
        else:
            shutil.copy2(src, dst)
    (root / "tests" / "cases").mkdir(parents=True)
    for name in SCRIPTS:
        shutil.copy2(ROOT / "tests" / name, root / "tests" / name)
    return root


def _check(root: Path, *args: str) -> subprocess.CompletedProcess:
    paths = [f"fixtures/{CODE}/example.py", f"tests/cases/{CODE}/example_case.py"]
    argv = ["check", "--select", CODE, "--no-cache", "--output-format", "concise", *args, *paths]
    return new_rule.run_in(root, "module", "gradlint", argv, check=False)


MESSAGE = "TODO: the finding's message; `torch.autograd.set_detect_anomaly(True)` leaves anomaly detection on for every later backward"


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """A copy of what the scaffold needs, before and after ``CODE NAME --fix safe --default``."""
    root = _copy(tmp_path_factory.mktemp("project"))
    before = _snapshot(root)
    proc = _scaffold(root, CODE, NAME, "--fix", "safe", "--default")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return root, before, _snapshot(root), proc


def test_the_scaffold_creates_the_rule_s_files_and_regenerates_the_rest(project):
    _, before, after, _ = project
    created = sorted(set(after) - set(before))
    changed = sorted(p for p in set(after) & set(before) if after[p] != before[p])
    assert created == [
        f"docs/rules/{CODE}.md",
        f"fixtures/{CODE}/example.expected",
        f"fixtures/{CODE}/example.fixed.py",
        f"fixtures/{CODE}/example.py",
        f"fixtures/{CODE}/verify/example.py",
        *VERIFIED,
        f"gradlint/rules/{MODULE}.py",
        f"rules/{CODE}.toml",
        f"tests/cases/{CODE}/example_case.py",
    ]
    # Generated: the prefilter table, the selection index, the rules table and nav, the stored outputs.
    assert changed == [
        "README.md",
        "docs/rules/index.md",
        "gradlint/catalog_index.py",
        "gradlint/triggers.py",
        "mkdocs.yml",
        "tests/data/outputs/full.txt",
        "tests/data/outputs/json.txt",
        "tests/data/outputs/sarif.txt",
    ]
    assert not set(before) - set(after)
    # The fixture is checked with every default rule: another may fire on it too.
    expected = after[f"fixtures/{CODE}/example.expected"].decode().splitlines()
    assert [line for line in expected if line.endswith(CODE)] == [f"4:1 {CODE}"]
    assert after[f"fixtures/{CODE}/example.fixed.py"].endswith(b"\ntorch.autograd.set_detect_anomaly(False)\n")
    assert f"    '{CODE}': (('set_detect_anomaly',), (), None, None),\n".encode() in after["gradlint/triggers.py"]
    assert f"    '{CODE}': (True, False),\n".encode() in after["gradlint/catalog_index.py"]
    assert f"      - {CODE} {NAME}: rules/{CODE}.md\n".encode() in after["mkdocs.yml"]
    # The copy's fixtures, cases and verify scripts are the new rule's alone.
    assert after["tests/data/outputs/full.txt"].decode().count(f"{CODE} [*] TODO: ") == 3
    # The placeholder claim shows in the verify script, and the fix takes it away.
    if TORCH:
        assert after[f"fixtures/{CODE}/verify/example.verified"].decode().splitlines() == [
            "as written: exception",
            "as fixed: completed",
            "fixes applied: 1",
            f"9:1 {CODE} CONFIRMED",
            "  fix (safe): ERROR GONE",
        ]


def test_the_scaffold_says_what_to_fill_in(project):
    _, _, _, proc = project
    out = proc.stdout.splitlines()
    assert out[:4] == [
        f"created rules/{CODE}.toml",
        f"created gradlint/rules/{MODULE}.py",
        f"created fixtures/{CODE}/example.py",
        f"created tests/cases/{CODE}/example_case.py",
    ]
    (findings,) = [line for line in out if line.startswith(f"fixtures/{CODE}/example.expected: ")]
    assert f"4:1 {CODE}" in findings.split(": ", 1)[1].split(", ")
    assert "Now rewrite the placeholders (every TODO) with the rule's own:" in out
    assert f"  fixtures/{CODE}/verify/example.py: a runnable script in which the finding shows what the claims say" in out
    if TORCH:
        assert f"fixtures/{CODE}/verify/example.verified: 9:1 {CODE} CONFIRMED; fix (safe): ERROR GONE" in out
    assert f"  rules/{CODE}.toml: summary, message, what, why, fix_safety, fix_title, torch, references," in out
    assert proc.stderr == ""


def test_the_catalog_loads_with_the_new_entry(project):
    root = project[0]
    proc = new_rule.run_in(root, "module", "gradlint", ["rules"], check=False)
    assert proc.returncode == 0, proc.stderr
    row = next(line for line in proc.stdout.splitlines() if line.startswith(f"{CODE} "))
    assert row.split()[:4] == [CODE, NAME, "on", "safe"]


def test_the_scaffolded_rule_reports_its_fixture_and_case(project):
    proc = _check(project[0])
    assert (proc.returncode, proc.stdout) == (
        1,
        f"fixtures/{CODE}/example.py:4:1: {CODE} [*] {MESSAGE}\n"
        f"tests/cases/{CODE}/example_case.py:9:1: {CODE} [*] {MESSAGE}\n"
        "Found 2 problems (2 fixable with --fix).\n",
    )


def test_a_preview_rule_reports_in_the_preview_tier_only(tmp_path):
    root = _copy(tmp_path)
    before = _snapshot(root)
    assert _scaffold(root, CODE, NAME, "--preview").returncode == 0
    after = _snapshot(root)
    # The fixture's folder switches the preview tier on. (Its fix outputs are left out:
    # the rule has none, but another default rule may fix something there.)
    fix_outputs = (".fixed.py", ".unsafe.py")
    assert sorted(p for p in set(after) - set(before) if p.startswith("fixtures/") and not p.endswith(fix_outputs)) == [
        f"fixtures/{CODE}/example.expected",
        f"fixtures/{CODE}/example.py",
        f"fixtures/{CODE}/pyproject.toml",
        f"fixtures/{CODE}/verify/example.py",
        *VERIFIED,
    ]
    # The folder's configuration holds for the verify script too: verify confirms the preview finding.
    if TORCH:
        assert f"9:1 {CODE} CONFIRMED" in after[f"fixtures/{CODE}/verify/example.verified"].decode().splitlines()
    assert f"4:1 {CODE}" in after[f"fixtures/{CODE}/example.expected"].decode().splitlines()
    assert f"# expect: {CODE}:1\n".encode() in after[f"tests/cases/{CODE}/example_case.py"]
    assert f"    '{CODE}': (True, True),\n".encode() in after["gradlint/catalog_index.py"]
    # Selected but not in the preview tier, the case reports nothing (the fixture's folder turns it on).
    proc = _check(root)
    assert (proc.returncode, proc.stdout) == (1, f"fixtures/{CODE}/example.py:4:1: {CODE} {MESSAGE}\nFound 1 problem.\n")
    proc = _check(root, "--preview")
    assert (proc.returncode, proc.stdout) == (
        1,
        f"fixtures/{CODE}/example.py:4:1: {CODE} {MESSAGE}\n"
        f"tests/cases/{CODE}/example_case.py:9:1: {CODE} {MESSAGE}\n"
        "Found 2 problems.\n",
    )


@pytest.mark.parametrize(
    "args,error",
    [
        (["GL303", "x"], "GL303 exists already (rules/GL303.toml)"),
        ([CODE, "other-name"], f"{CODE} exists already (rules/{CODE}.toml)"),
        (["GL12", "x"], "code 'GL12' is not GLnnn (GL followed by three digits)"),
        ([OTHER.lower(), "x"], f"code '{OTHER.lower()}' is not GLnnn (GL followed by three digits)"),
        ([OTHER, "Demo_Rule"], "name 'Demo_Rule' is not kebab-case (lower-case words joined by '-')"),
        ([OTHER, "demo--rule"], "name 'demo--rule' is not kebab-case (lower-case words joined by '-')"),
        ([OTHER, "requires-grad-typo"], "name 'requires-grad-typo' is used by GL303 already"),
        ([OTHER, NAME], f"name '{NAME}' is used by {CODE} already"),
        (["GL999", "x"], "GL999 is reserved: tests use it as the code no rule has"),
    ],
)
def test_refusals_are_one_line_exit_2_and_write_nothing(project, args, error):
    root, _, after, _ = project
    proc = _scaffold(root, *args)
    assert (proc.returncode, proc.stdout, proc.stderr) == (2, "", f"new_rule: {error}\n")
    assert _snapshot(root) == after


def test_a_code_left_in_any_of_the_rule_s_places_is_refused(project):
    root, _, after, _ = project
    stray = root / "fixtures" / OTHER
    stray.mkdir()
    try:
        proc = _scaffold(root, OTHER, "x")
    finally:
        stray.rmdir()
    assert (proc.returncode, proc.stderr) == (2, f"new_rule: {OTHER} exists already (fixtures/{OTHER})\n")
    assert _snapshot(root) == after


@pytest.mark.parametrize("fix", ["safe", "unsafe", "none"])
@pytest.mark.parametrize("tier", ["default", "preview", "selected"])
def test_every_variant_of_the_entry_passes_the_catalog(fix, tier):
    doc = parse_entry(f"rules/{OTHER}.toml", tomllib.loads(new_rule.render_toml(OTHER, "some-rule", fix, tier)))
    assert (doc.code, doc.name, doc.fix) == (OTHER, "some-rule", fix)
    assert (doc.default, doc.preview) == {"default": (True, False), "preview": (True, True), "selected": (False, False)}[tier]
    assert bool(doc.fix_title) == (fix != "none")
    assert doc.probe is not None and [(e.findings, e.fixable) for e in doc.examples] == [(((3, 1),), True)]
    assert [(c.kind, c.exceptions, c.where) for c in doc.verify] == [("raises", ("RuntimeError",), "later")]
    config = new_rule.render_fixture_config(OTHER, tier)
    assert config is None if tier == "default" else tomllib.loads(config)["tool"]["gradlint"] == {
        "preview": {"preview": True, "extend-exclude": ["*.fixed.py", "*.unsafe.py", "*.migrated.py"]},
        "selected": {"extend-select": [OTHER], "extend-exclude": ["*.fixed.py", "*.unsafe.py", "*.migrated.py"]},
    }[tier]
    compile(new_rule.render_module(OTHER, "some-rule", fix), f"{OTHER.lower()}_some_rule.py", "exec")
