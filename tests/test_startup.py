"""What a run imports: LibCST and the rules only for a file that passes the prefilter.

Importing LibCST and the rules costs more CPU than checking a small file; a
pre-commit hook or an editor checking files that mention nothing a rule looks
for must not pay it (``gradlint.prefilter``). Each run here is a fresh
process, as a hook's is, with ``-X importtime`` listing every module it
imported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import List, Set, Tuple

import pytest

# Imported only to lint or fix: LibCST, the engine, the rules, the semantic model
# of a parsed file, the fixes.
HEAVY = ("libcst", "gradlint.engine", "gradlint.rules", "gradlint.rule", "gradlint.fixes",
         "gradlint.fix_renderer", "gradlint.import_changes", "gradlint.text_diff", "gradlint.semantic", "gradlint.parsing")
# What every run needs of gradlint.semantic: the project index, built with
# Python's ast (the cache keys and GL101's project gate read it, its summary
# of what callers do with results, which arguments callers leave in eval
# mode, which functions return a model in eval mode and which classes' calls
# return a 0-dim value, which classes forward to a module when called, which
# modules switch gradients off when imported), the
# files a run of few files indexes besides them, and the table of its bounds
# (a few constants).
INDEX = ("gradlint.semantic", "gradlint.semantic.project", "gradlint.semantic.torch_api", "gradlint.semantic.star_exports",
         "gradlint.semantic.bounds", "gradlint.semantic.result_uses", "gradlint.semantic.eval_callers",
         "gradlint.semantic.eval_returns", "gradlint.semantic.loss_returns",
         "gradlint.semantic.ast_imports", "gradlint.semantic.ast_forwarders", "gradlint.semantic.ast_decorators", "gradlint.semantic.ast_frozen", "gradlint.semantic.import_effects", "gradlint.semantic.module_files", "gradlint.semantic.ast_factories",
         "gradlint.semantic.ast_eval_methods", "gradlint.semantic.ast_param_free",
         "gradlint.semantic.neighbours")

PLAIN = "import os\n\n\ndef join(x):\n    return os.path.join(x, 'a')\n\n\nfor p in ('a', 'b'):\n    print(join(p))\n"
LEGACY = "import torch\nfrom torch.autograd import Variable\n\nx = Variable(torch.ones(2), volatile=True)\n"


def _run(cwd: Path, *args: str) -> Tuple[int, str, str, Set[str]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRADLINT_")}
    env["NO_COLOR"] = "1"
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "gradlint", "check", "--no-cache", *args],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=300,
    )
    modules = {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    errors = "".join(line + "\n" for line in proc.stderr.splitlines() if not line.startswith("import time:"))
    return proc.returncode, proc.stdout, errors, modules


def _heavy(modules: Set[str]) -> List[str]:
    return sorted(m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY) and m not in INDEX)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.gradlint]\n")
    (tmp_path / "plain.py").write_text(PLAIN)
    return tmp_path


def test_a_file_without_triggers_is_checked_without_libcst_or_the_rules(project):
    code, out, err, modules = _run(project, "plain.py")
    assert (code, out, err) == (0, "All checks passed!\n", "")
    assert "gradlint.cli" in modules  # the listing is real
    assert _heavy(modules) == []


def test_a_file_without_triggers_leaves_libcst_out_of_sys_modules(project):
    # -X importtime lists what the import system ran; this is what the process holds
    # at its end, a module put there by hand included.
    driver = (
        "import json, sys\nfrom gradlint.cli import main\n"
        "sys.argv = ['gradlint', 'check', '--no-cache', '--output-format', 'concise', 'plain.py']\n"
        "try:\n    main()  # the command less the console script's exit, which skips what follows\n"
        "except SystemExit as exc:\n    status = exc.code\n"
        "sys.stderr.write(json.dumps([status, sorted(sys.modules)]))\n"
    )
    proc = subprocess.run([sys.executable, "-c", driver], cwd=project, capture_output=True, text=True, timeout=300)
    status, modules = json.loads(proc.stderr)
    assert (status, proc.stdout) == (0, "All checks passed!\n")
    assert "gradlint.lazy_libcst" in modules  # the check that would load LibCST lazily ran
    assert _heavy(set(modules)) == []


def test_with_every_rule_and_the_concise_and_full_formats_too(project):
    for fmt in ("concise", "full", "json"):
        code, out, err, modules = _run(project, "--select", "ALL", "--output-format", fmt, "plain.py")
        assert code == 0 and err == "", fmt
        assert _heavy(modules) == [], fmt


def test_fix_and_diff_of_a_file_without_triggers_need_no_libcst_either(project):
    for args in (("--fix",), ("--diff",), ("--fix", "--unsafe-fixes")):
        code, out, err, modules = _run(project, "--output-format", "concise", *args, "plain.py")
        assert code == 0 and _heavy(modules) == [], args
    assert (project / "plain.py").read_text() == PLAIN
    (project / "wrapped.py").write_text("import torch\nfrom torch.autograd import Variable\n\nx = Variable(torch.ones(2))\n")
    code, out, err, modules = _run(project, "--output-format", "concise", "--fix", "wrapped.py", "plain.py")
    assert (code, out, err) == (0, "Found 1 problem (1 fixed, 0 remaining).\n", "")
    assert (project / "wrapped.py").read_text() == "import torch\n\nx = torch.ones(2)\n"


def test_a_file_with_triggers_loads_the_engine_and_gets_its_findings(project):
    (project / "legacy.py").write_text(LEGACY)
    code, out, err, modules = _run(project, "--output-format", "concise", "legacy.py", "plain.py")
    assert (code, err) == (1, "")
    assert out == (
        "legacy.py:4:5: GL001 `volatile=True` has been ignored since PyTorch 0.4: this call still records an"
        " autograd graph; use `torch.no_grad()`\nFound 1 problem.\n"
    )
    assert "libcst" in modules and "gradlint.engine" in modules
    # what only a run that writes a file needs (the cache, a fix), or one that reads
    # the catalog from a zip: not this one's
    assert sorted({"importlib.resources", "tempfile", "shutil"} & modules) == []


def test_a_syntax_error_without_triggers_is_still_reported(project):
    (project / "broken.py").write_text("import os\ndef f(:\n    pass\n")
    code, out, err, modules = _run(project, "--output-format", "concise", "broken.py", "plain.py")
    assert (code, err) == (1, "")
    assert out.startswith("broken.py:2:7: GL000 ")
    assert out.endswith("\nFound 1 problem.\n")


def test_noqa_directives_are_judged_where_their_codes_are_selected(project):
    (project / "plain.py").write_text(PLAIN + "x = 1  # noqa: GL001\n")
    code, out, _, modules = _run(project, "--output-format", "concise", "plain.py")
    assert code == 0 and _heavy(modules) == []
    code, out, _, _ = _run(project, "--output-format", "concise", "--extend-select", "GL900", "plain.py")
    assert code == 1 and out == "plain.py:10:8: GL900 [*] Unused `noqa` directive (unused: `GL001`)\nFound 1 problem (1 fixable with --fix).\n"


# The parts of LibCST that a parse and a walk of the tree do not use, which
# ``libcst/__init__`` imports whatever one asks of it (``gradlint.lazy_libcst``),
# and the pure-Python tokenizer of ``cst.parse_module`` (``parsing._parser``).
LIBCST_UNUSED = ("libcst.metadata", "libcst.helpers", "libcst.matchers", "libcst.codemod", "libcst._batched_visitor",
                 "libcst._parser.entrypoints", "libcst._parser.detect_config", "libcst._parser.parso", "libcst._parser.types",
                 "libcst.display")


def test_a_file_with_a_finding_imports_only_the_parts_of_libcst_a_check_uses(project):
    (project / "legacy.py").write_text(LEGACY)
    code, out, err, modules = _run(project, "--output-format", "concise", "legacy.py")
    assert (code, err) == (1, "")
    assert out.startswith("legacy.py:4:5: GL001 ") and out.endswith("\nFound 1 problem.\n")
    assert {"libcst._nodes.expression", "libcst._nodes.statement", "libcst.native"} <= modules  # the listing is real
    assert _unused(modules) == []


def _unused(modules: Set[str]) -> List[str]:
    return sorted(m for m in modules if any(m == u or m.startswith(u + ".") for u in LIBCST_UNUSED))


def test_rendering_a_fix_that_only_edits_text_needs_no_more_of_libcst(project):
    (project / "wrapped.py").write_text("import torch\nfrom torch.autograd import Variable\n\nx = Variable(torch.ones(2))\n")
    code, out, err, modules = _run(project, "--output-format", "json", "wrapped.py")
    assert (code, err) == (1, "")

    (finding,) = json.loads(out)
    assert (finding["code"], finding["location"], finding["fix"]["applicability"]) == ("GL002", {"row": 4, "column": 5}, "safe")
    edits = [(e["location"]["row"], e["location"]["column"], e["end_location"]["row"], e["end_location"]["column"], e["content"])
             for e in finding["fix"]["edits"]]
    assert edits == [(2, 1, 3, 1, ""), (4, 5, 4, 27, "torch.ones(2")]
    assert _unused(modules) == []


EVAL = "for x in data:\n    model.eval()\n    y = model(x)\n"


def test_a_gl101_fix_is_checked_and_shown_with_no_more_of_libcst(project):
    # GL101's fix wraps the forward in `with torch.no_grad():` and adds `import
    # torch`: codegen's snippets are parsed without cst.parse_expression's module.
    (project / "eval.py").write_text(EVAL)
    message = ("`model` is in eval mode (line 2) but gradients are still enabled here: `.eval()` does not stop autograd,"
               " so this forward records a graph and keeps its activations alive; run it under `torch.no_grad()`")
    code, out, err, modules = _run(project, "--preview", "--output-format", "concise", "eval.py")
    # unsafe: the file imports nothing of torch, so the `import torch` the fix adds could raise
    assert (code, out, err) == (1, f"eval.py:3:9: GL101 {message}\nFound 1 problem.\n1 fixable with --fix --unsafe-fixes.\n", "")
    assert "gradlint.fix_renderer" in modules  # the fix was checked: it is advertised
    assert _unused(modules) == []

    code, out, err, modules = _run(project, "--preview", "--output-format", "json", "eval.py")
    (finding,) = json.loads(out)
    assert (code, err, finding["code"], finding["fix"]["applicability"]) == (1, "", "GL101", "unsafe")
    edits = [(e["location"]["row"], e["location"]["column"], e["end_location"]["row"], e["end_location"]["column"], e["content"])
             for e in finding["fix"]["edits"]]
    assert edits == [(1, 1, 1, 1, "import torch\n\n"), (3, 5, 3, 5, "with torch.no_grad():\n        ")]
    assert _unused(modules) == []


def test_a_gl101_fix_of_a_small_file_parses_no_more_of_the_catalog_than_its_finding(project):
    # Whether the fix may change more than the graph asks every entry's
    # no_grad_changes: read from the generated index, not the catalog's TOML.
    (project / "eval.py").write_text(EVAL)
    driver = (
        "import json, sys\nfrom gradlint.cli import main\n"
        "sys.argv = ['gradlint', 'check', '--no-cache', '--preview', '--output-format', 'concise', 'eval.py']\n"
        "try:\n    main()  # the command less the console script's exit, which skips what follows\n"
        "except SystemExit as exc:\n    status = exc.code\n"
        "from gradlint import catalog\n"
        "sys.stderr.write(json.dumps([status, catalog.load.cache_info().currsize, sorted(catalog.entry.cache_info()._asdict().items())]))\n"
    )
    proc = subprocess.run([sys.executable, "-c", driver], cwd=project, capture_output=True, text=True, timeout=300)
    status, whole, entries = json.loads(proc.stderr.splitlines()[-1])
    assert (status, proc.stdout.splitlines()[-1]) == (1, "1 fixable with --fix --unsafe-fixes.")
    assert whole == 0
    assert dict(entries)["currsize"] == 1  # GL101's own entry, which words the finding


def test_a_check_that_writes_its_cache_needs_no_tempfile(project):
    # The results cache is written beside itself with os.open, not tempfile
    # (which imports shutil, random and the compression modules).
    (project / "legacy.py").write_text(LEGACY)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRADLINT_")}
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "gradlint", "check", "--output-format", "concise", "legacy.py"],
                          cwd=project, env=env, capture_output=True, text=True, timeout=300)
    modules = {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    assert proc.returncode == 1 and proc.stdout.endswith("\nFound 1 problem.\n")
    assert "gradlint.cache" in modules and (project / ".gradlint_cache").is_dir()
    assert [p for p in (project / ".gradlint_cache").rglob("*") if p.name.endswith(".tmp")] == []
    assert sorted({"tempfile", "shutil", "random"} & modules) == []
