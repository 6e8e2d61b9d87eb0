"""Output formats: full, concise (alias text), json, sarif, github, and --statistics."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness import ROOT
from gradlint import catalog, reporters
from gradlint.cli import main
from gradlint.reporters import RunInfo, full
from gradlint.results import Diagnostic, FileReport, FixInfo, TextEdit
from samples import GL001_MESSAGE, GL003_MESSAGE, LEGACY

ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GRADLINT_OUTPUT_FORMAT", raising=False)
    (tmp_path / "legacy.py").write_text(LEGACY)
    return tmp_path


def run(*args, **kwargs):
    return CliRunner().invoke(main, list(args), **kwargs)


# -- full ---------------------------------------------------------------------

FULL = f"""\
GL001 [*] {GL001_MESSAGE}
 --> legacy.py:6:17
  |
5 | def evaluate(model, x):
6 |     out = model(Variable(x, volatile=True))
  |                 ^^^^^^^^^^^^^^^^^^^^^^^^^^
7 |     return out.max(1)[1]
  |
help: Remove the `Variable` wrapper and decorate `evaluate` with `@torch.no_grad()`
  |
1 | import torch
  - from torch.autograd import Variable
2 |
3 |
4 + @torch.no_grad()
5 | def evaluate(model, x):
  -     out = model(Variable(x, volatile=True))
6 +     out = model(x.detach())
7 |     return out.max(1)[1]
  |

GL003 [*] {GL003_MESSAGE}
 --> legacy.py:11:11
   |
10 | def log(loss):
11 |     print(loss.sum().data[0])
   |           ^^^^^^^^^^^^^^^^^^
   |
help: Replace with `loss.sum().item()`
   |
10 | def log(loss):
   -     print(loss.sum().data[0])
11 +     print(loss.sum().item())
   |

Found 2 problems (2 fixable with --fix).
"""


def test_full_shows_source_caret_and_fix_preview(project):
    result = run("check", "--output-format", "full", "legacy.py")
    assert result.exit_code == 1
    assert result.stdout == FULL


def test_full_after_fix_quotes_the_fixed_file(project):
    (project / "legacy.py").write_text("import torch\nfrom torch.autograd import Variable\n\nv = Variable(x)\nw = y.volatile\n")
    result = run("check", "--output-format", "full", "--fix", "legacy.py")
    assert result.exit_code == 1
    # The fix removed the import: the finding left is on row 4 of the fixed file, not row 5.
    assert result.stdout.splitlines()[1:7] == [
        " --> legacy.py:4:5",
        "  |",
        "3 | v = x.detach()",
        "4 | w = y.volatile",
        "  |     ^^^^^^^^^^",
        "  |",
    ]
    assert result.stdout.endswith("Found 2 problems (1 fixed, 1 remaining).\n")


def _report(source: str, diag: Diagnostic) -> FileReport:
    return FileReport("t.py", diagnostics=[diag], source=source)


def test_full_caret_counts_tabs_and_wide_characters():
    source = "\tx = '中文'; y = bad(x)\n"
    col = source.index("bad") + 1
    diag = Diagnostic("GL004", "msg", 1, col, 1, col + len("bad(x)"))
    out = full.render([_report(source, diag)], RunInfo(quiet=True))
    line, carets = out.splitlines()[3:5]
    assert line == "1 |     x = '中文'; y = bad(x)"
    # 4 columns for the tab, 2 for each wide character: the carets sit under `bad(x)`,
    # 20 terminal columns in (4 + len("x = '") + 2 * 2 + len("'; y = ")).
    assert carets == "  | " + " " * 20 + "^^^^^^"


def test_full_multiline_span_and_unsafe_note():
    source = "a = f(\n    1,\n    2,\n)\nb = 3\n"
    fix = FixInfo("unsafe", "Call g instead", (TextEdit("g", 1, 5, 1, 6),))
    diag = Diagnostic("GL002", "msg", 1, 5, 4, 2, fix)
    out = full.render([_report(source, diag)], RunInfo(quiet=True))
    assert out.splitlines()[2:13] == [
        "  |",
        "1 | a = f(",
        "  |     ^^",
        "2 |     1,",
        "  |     ^^",
        "3 |     2,",
        "  |     ^^",
        "4 | )",
        "  | ^",
        "5 | b = 3",
        "  |",
    ]
    assert "GL002 msg" == out.splitlines()[0]  # unsafe and not enabled: no [*]
    assert "  - a = f(\n1 + a = g(\n" in out
    assert out.endswith("note: This is an unsafe fix and may change runtime behavior\n\n")


def test_full_elides_the_middle_of_a_long_span():
    source = "x = f(\n" + "".join(f"    {i},\n" for i in range(8)) + ")\n"
    diag = Diagnostic("GL002", "msg", 1, 5, 10, 2)
    shown = full.render([_report(source, diag)], RunInfo(quiet=True)).splitlines()[3:]
    numbered = [line.split(" |")[0].strip() for line in shown if " | " in line or line.endswith(" |")]
    # rows 1-3, then the last three (8-10), with "..." between; no row 4-7.
    assert [n for n in numbered if n] == ["1", "2", "3", "8", "9", "10"]
    assert "   ..." in shown


def test_full_without_source_prints_location_only():
    diag = Diagnostic("GL000", "cannot decode as UTF-8: invalid byte 0xe9 on line 2", 1, 1, 1, 1)
    out = full.render([FileReport("x.py", diagnostics=[diag])], RunInfo(quiet=True))
    assert out == "GL000 cannot decode as UTF-8: invalid byte 0xe9 on line 2\n --> x.py:1:1\n\n"


def test_full_colours_only_when_asked(project):
    from gradlint.config import Settings
    from gradlint.runner import Mode
    from gradlint.scheduler import check_paths

    results = check_paths([Path("legacy.py")], Settings(), Mode(edits=True, source=True), jobs=1)
    plain = full.render(results, RunInfo())
    coloured = full.render(results, RunInfo(color=True))
    assert "\x1b[" not in plain
    assert "\x1b[31m\x1b[1m^^^^" in coloured  # red, bold carets
    assert ANSI.sub("", coloured) == plain


def test_default_format_is_concise_when_not_a_tty(project):
    result = run("check", "legacy.py")
    assert result.stdout.splitlines()[0] == f"legacy.py:6:17: GL001 [*] {GL001_MESSAGE}"


def test_text_is_an_alias_of_concise(project):
    assert run("check", "--output-format", "text", "legacy.py").stdout == run(
        "check", "--output-format", "concise", "legacy.py"
    ).stdout


def test_output_format_from_environment(project):
    result = run("check", "legacy.py", env={"GRADLINT_OUTPUT_FORMAT": "github"})
    assert result.stdout.startswith("::error file=legacy.py,line=6,col=17,")
    assert run("check", "--output-format", "concise", "legacy.py", env={"GRADLINT_OUTPUT_FORMAT": "github"}).stdout.startswith("legacy.py:6:17:")


def test_cli_offers_every_reporter():
    from gradlint.cli import OUTPUT_FORMATS

    assert OUTPUT_FORMATS == (*reporters.FORMATS, *reporters.ALIASES)
    for name in OUTPUT_FORMATS:
        assert callable(reporters.get(name))
    with pytest.raises(KeyError):
        reporters.get("statistics")  # not a format: --statistics


def test_unknown_format_is_usage_error(project):
    result = run("check", "--output-format", "xml", "legacy.py")
    assert result.exit_code == 2
    assert "'xml' is not one of 'full', 'concise', 'json', 'sarif', 'github', 'text'" in result.stderr


# -- github -------------------------------------------------------------------


def test_github_workflow_commands(project):
    result = run("check", "--output-format", "github", "legacy.py")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        f"::error file=legacy.py,line=6,col=17,endLine=6,endColumn=43,title=GL001::{GL001_MESSAGE}"
        "%0Afix: Remove the `Variable` wrapper and decorate `evaluate` with `@torch.no_grad()`",
        f"::error file=legacy.py,line=11,col=11,endLine=11,endColumn=29,title=GL003::{GL003_MESSAGE}"
        "%0Afix: Replace with `loss.sum().item()`",
    ]


def test_github_escapes_properties_and_data():
    diag = Diagnostic("GL004", "100% wrong\r\nreally", 2, 3, 2, 9, FixInfo("unsafe", "Do it", ()))
    out = reporters.get("github")([FileReport("dir,a:b.py", diagnostics=[diag])], RunInfo())
    assert out == (
        "::error file=dir%2Ca%3Ab.py,line=2,col=3,endLine=2,endColumn=9,title=GL004::"
        "100%25 wrong%0D%0Areally%0Afix (unsafe: needs --unsafe-fixes): Do it\n"
    )


# -- sarif --------------------------------------------------------------------


@pytest.fixture(scope="module")
def sarif_validator():
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((ROOT / "tests" / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    checker = jsonschema.FormatChecker()
    # Without a URI checker the schema's "uri-reference" formats would pass anything.
    assert not checker.conforms("not a uri reference", "uri-reference"), "install rfc3986-validator (dev extra)"
    return jsonschema.Draft4Validator(schema, format_checker=checker)


def _assert_valid(validator, log):
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors)


def test_sarif_is_schema_valid_and_carries_rule_metadata(project, sarif_validator):
    (project / "sub dir").mkdir()
    (project / "sub dir" / "b.py").write_text(LEGACY)
    (project / "broken.py").write_text("from torch.autograd import Variable\nprint x\n")
    result = run("check", "--output-format", "sarif", ".")
    assert result.exit_code == 1
    log = json.loads(result.stdout)
    _assert_valid(sarif_validator, log)
    (run_,) = log["runs"]
    driver = run_["tool"]["driver"]
    assert driver["name"] == "gradlint"
    docs = catalog.load()
    assert [r["id"] for r in driver["rules"]] == list(docs)
    gl001 = driver["rules"][list(docs).index("GL001")]
    assert gl001["name"] == "volatile-flag"
    assert gl001["shortDescription"]["text"] == docs["GL001"].summary
    assert gl001["fullDescription"]["text"].startswith("Flags `Variable(x, volatile=...)` (`torch.autograd.Variable`, through")
    assert gl001["help"]["markdown"].startswith("# volatile-flag (GL001)\n")
    assert gl001["helpUri"] == "https://gradlint.readthedocs.io/en/latest/rules/GL001/"
    assert run_["columnKind"] == "unicodeCodePoints"
    assert run_["originalUriBaseIds"]["%SRCROOT%"]["uri"] == project.resolve().as_uri() + "/"
    results = run_["results"]
    assert [(r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]) for r in results] == [
        ("GL000", "broken.py"),
        ("GL001", "legacy.py"),
        ("GL003", "legacy.py"),
        ("GL001", "sub%20dir/b.py"),
        ("GL003", "sub%20dir/b.py"),
    ]
    first = results[1]
    assert driver["rules"][first["ruleIndex"]]["id"] == "GL001"
    assert first["message"]["text"] == GL001_MESSAGE
    assert first["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 6, "startColumn": 17, "endLine": 6, "endColumn": 43,
    }
    assert results[2]["fixes"] == [
        {
            "description": {"text": "Replace with `loss.sum().item()`"},
            "artifactChanges": [
                {
                    "artifactLocation": {"uri": "legacy.py", "uriBaseId": "%SRCROOT%"},
                    "replacements": [
                        {
                            "deletedRegion": {"startLine": 11, "startColumn": 22, "endLine": 11, "endColumn": 29},
                            "insertedContent": {"text": "item()"},
                        }
                    ],
                }
            ],
        }
    ]
    assert run_["invocations"] == [{"executionSuccessful": True, "toolExecutionNotifications": []}]


def test_sarif_with_no_findings_and_absolute_paths(project, sarif_validator):
    (project / "clean.py").write_text("x = 1\n")
    result = run("check", "--output-format", "sarif", str(project / "clean.py"), str(project / "legacy.py"))
    log = json.loads(result.stdout)
    _assert_valid(sarif_validator, log)
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"]}
    assert uris == {(project / "legacy.py").as_uri()}


def test_sarif_reports_errors_as_notifications(sarif_validator):
    report = FileReport("x.py", errors=["internal error: ValueError: boom"], internal_error=True)
    log = json.loads(reporters.get("sarif")([report], RunInfo()))
    _assert_valid(sarif_validator, log)
    (invocation,) = log["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False
    assert invocation["toolExecutionNotifications"][0]["message"]["text"] == "internal error: ValueError: boom"


def test_schema_rejects_a_broken_log(sarif_validator):
    # The validator is not a rubber stamp: a result without a message is invalid SARIF.
    log = json.loads(reporters.get("sarif")([], RunInfo()))
    log["runs"][0]["results"] = [{"ruleId": "GL001"}]
    assert list(sarif_validator.iter_errors(log))


# -- statistics ---------------------------------------------------------------


def test_statistics_counts_per_rule(project):
    (project / "more.py").write_text(
        "from torch.autograd import Variable\na = Variable(x, volatile=True)\nb = x.volatile\nc = y.volatile\n"
    )
    result = run("check", "--statistics")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "2\tGL001\t[*] volatile-flag",
        "2\tGL004\t[ ] volatile-attribute",
        "1\tGL003\t[*] data-index-scalar",
        "Found 5 problems (2 fixable with --fix).",
    ]
    rows = json.loads(run("check", "--statistics", "--output-format", "json").stdout)
    assert rows[0] == {"code": "GL001", "name": "volatile-flag", "count": 2, "fixable": True, "fixable_count": 1}
    assert [r["code"] for r in rows] == ["GL001", "GL004", "GL003"]


def test_statistics_when_clean(project):
    (project / "legacy.py").write_text("x = 1\n")
    result = run("check", "--statistics")
    assert result.exit_code == 0
    assert result.stdout == "All checks passed!\n"


def test_sarif_for_a_notebook_is_schema_valid(tmp_path, monkeypatch, sarif_validator):
    monkeypatch.chdir(tmp_path)
    nb = {
        "cells": [
            {"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [], "source": ["import torch\n", "loss = torch.nn.functional.mse_loss(a, b)"]},
            {"cell_type": "code", "execution_count": 2, "metadata": {}, "outputs": [], "source": ["print(loss.data[0])\n", "x = y.cuda(async=True)"]},
        ],
        "metadata": {"language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (tmp_path / "nb.ipynb").write_text(json.dumps(nb, indent=1))
    log = json.loads(run("check", "--output-format", "sarif", "nb.ipynb").stdout)
    _assert_valid(sarif_validator, log)
    results = log["runs"][0]["results"]
    lines = (tmp_path / "nb.ipynb").read_text().splitlines()
    row = {needle: next(i for i, line in enumerate(lines, 1) if needle in line) for needle in ("loss.data", "async=")}
    assert [(r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"], r["properties"]["cell"]) for r in results] == [
        ("GL003", row["loss.data"], 2),
        ("GL005", row["async="], 2),
    ]


def test_full_diffs_only_the_lines_around_a_fix(monkeypatch):
    """A fix's preview compares the lines from its first edit to its last, with their
    context: not the whole file once per finding."""
    import difflib

    compared = []
    real = difflib.SequenceMatcher

    class Recording(real):
        def __init__(self, isjunk=None, a="", b="", autojunk=True):
            compared.append((len(a), len(b)))
            super().__init__(isjunk, a, b, autojunk)

    monkeypatch.setattr(difflib, "SequenceMatcher", Recording)
    source = "".join(f"x{i} = {i}\n" for i in range(1, 2001))
    fix = FixInfo("safe", "Rename", (TextEdit("y", 1000, 1, 1000, 2), TextEdit("", 1002, 1, 1003, 1)))
    diag = Diagnostic("GL002", "msg", 1000, 1, 1000, 5, fix)
    out = full.render([_report(source, diag)], RunInfo(quiet=True))
    assert compared == [(6, 5)]  # rows 999-1004 (one line of context) against the same, less one
    assert out.split("help: Rename\n")[1].splitlines() == [
        "     |",
        " 999 | x999 = 999",
        "     - x1000 = 1000",
        "1000 + y1000 = 1000",
        "1001 | x1001 = 1001",
        "     - x1002 = 1002",
        "1002 | x1003 = 1003",
        "     |",
        "",
    ]
