"""Property tests: generated programs and mutated fixtures never crash gradlint,
and its fixes always parse, are idempotent, and touch nothing without a finding.

Inputs:

- programs generated from Python's grammar and from LibCST's node types
  (hypothesmith), after a comment naming every rule's trigger words, so that
  the prefilter lets every rule see them;
- the fixture files (``fixtures/GL*/``, ``fixtures/migrate/``) mutated:
  formatting only (blank lines and comments inserted between lines, tabs for
  indentation, CRLF newlines), after which the findings must be the same codes
  on the corresponding lines; or changed in meaning (two adjacent statements
  swapped, a name renamed everywhere), after which only robustness is asked.

CI runs a few deterministic examples per test (``derandomize``, so a run
fails only for a change in gradlint). The long run draws fresh random examples:

    GRADLINT_FUZZ_EXAMPLES=5000 .venv/bin/python -m pytest -p no:cacheprovider tests/test_fuzz.py

A failure found there is saved in ``.hypothesis/`` and replayed first by the
next run; docs/reliability.md has the figures of the last long run.
"""

from __future__ import annotations

import ast
import io
import keyword
import os
import tokenize
import warnings
from collections import Counter
from datetime import timedelta
from functools import lru_cache
from typing import Dict, List, Optional, Tuple

import libcst as cst
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gradlint.engine import fix_allowed, fix_source, lint_source, parse
from gradlint.migrate import migrate_source
from gradlint.rules import all_rules
from harness import MIGRATE_FIXTURES, fixture_cases, settings_for
from samples import LEGACY

LONG_RUN = int(os.environ.get("GRADLINT_FUZZ_EXAMPLES", "0"))
SETTINGS = settings_for(["ALL"])
PATH = "fuzzed.py"

# Generous: a deadline catches runaway (exponential) work, not a slow machine.
fuzz = settings(
    max_examples=LONG_RUN or 12,
    deadline=timedelta(seconds=20),
    derandomize=not LONG_RUN,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)

TRIGGERS = "# " + " ".join(sorted({t for rule in all_rules().values() for t in rule.triggers})) + "\n"
SOURCES = sorted(
    [p for p in fixture_cases()]
    + [p for p in MIGRATE_FIXTURES.glob("*.py") if not p.name.endswith(".migrated.py")]
)


@lru_cache(maxsize=None)
def fixture(index: int) -> str:
    with open(SOURCES[index], encoding="utf-8", newline="") as fh:
        return fh.read()


def compiles(source: str) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SyntaxWarning for odd escapes in generated strings
        try:
            compile(source, PATH, "exec", dont_inherit=True)
        except (SyntaxError, ValueError):
            return False
    return True


def assert_robust(source: str) -> None:
    """check and --fix (safe, and unsafe) and migrate hold their promises on ``source``."""
    python = compiles(source)
    found = lint_source(source, PATH, SETTINGS)  # raises nothing
    for unsafe in (False, True):
        result = fix_source(source, PATH, SETTINGS, unsafe=unsafe)
        assert result.problems == [], result.problems
        if not any(fix_allowed(f.fix, unsafe) for f in found.findings):
            assert result.source == source  # nothing to fix: not one byte changes
        if result.source != source:
            parse(result.source)
            assert not python or compiles(result.source), "a fix turned Python into something CPython rejects"
            again = fix_source(result.source, PATH, SETTINGS, unsafe=unsafe)
            assert (again.source, again.problems) == (result.source, []), "fixing twice changed more"
    migrated = migrate_source(source, PATH, SETTINGS)
    assert migrated.problems == [], migrated.problems
    if migrated.source != source:
        parse(migrated.source)
        assert not python or compiles(migrated.source)
        assert migrate_source(migrated.source, PATH, SETTINGS).source == migrated.source


# -- generated programs -------------------------------------------------------------

# Built when a test first draws, not at import: importing hypothesmith and
# building its grammar strategy costs about 2 s of CPU, which every collection of
# the suite (``-k``, ``-m``, one file) paid.


def _from_grammar() -> st.SearchStrategy[str]:
    import hypothesmith

    return hypothesmith.from_grammar()


def _from_node() -> st.SearchStrategy[str]:
    import hypothesmith

    return hypothesmith.from_node()


@fuzz
@given(st.deferred(_from_grammar))
def test_programs_from_the_grammar(program):
    assert_robust(TRIGGERS + program)


@fuzz
@given(st.deferred(_from_node))
def test_programs_from_libcst_nodes(program):
    assert_robust(TRIGGERS + program)


# -- fixture mutations ----------------------------------------------------------------


def _tokens(source: str) -> List[tokenize.TokenInfo]:
    return list(tokenize.generate_tokens(io.StringIO(source).readline))


def line_starts(source: str) -> Tuple[List[int], List[int]]:
    """(lines before which a line may be inserted, lines that start a logical line), 1-based.

    A line may be inserted after a line that ended with a NEWLINE or NL token:
    not inside a string, not after a backslash continuation.
    """
    insert, logical = {1}, set()
    at_start = True
    for tok in _tokens(source):
        if tok.type in (tokenize.NEWLINE, tokenize.NL):
            insert.add(tok.end[0] + 1)
        if tok.type == tokenize.NEWLINE:
            at_start = True
        elif at_start and tok.type not in (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER):
            logical.add(tok.start[0])
            at_start = False
    n = len(source.splitlines())
    last = n + 1 if source.endswith(("\n", "\r")) else n  # nothing glued onto an unfinished last line
    return sorted(i for i in insert if i <= last), sorted(logical)


def with_tabs(source: str) -> Optional[str]:
    """Each logical line's indentation of 4n spaces as n tabs; None where some is not 4n spaces."""
    lines = source.splitlines(keepends=True)
    for row in line_starts(source)[1]:
        line = lines[row - 1]
        indent = len(line) - len(line.lstrip(" "))
        if indent % 4 or line[indent:indent + 1] == "\t":
            return None
        lines[row - 1] = "\t" * (indent // 4) + line[indent:]
    return "".join(lines)


FILLERS = ["\n", "# a comment\n", "        # an indented comment\n", "    \n", "#: noqa-free note\n"]


@st.composite
def reformatted(draw) -> Tuple[str, str, Dict[int, int], bool]:
    """(fixture, the fixture reformatted, its line numbers -> the new ones, whether columns moved)."""
    source = fixture(draw(st.integers(0, len(SOURCES) - 1)))
    tabs = draw(st.booleans())
    text = with_tabs(source) if tabs else None
    text = source if text is None else text
    lines = text.splitlines(keepends=True)
    points, _ = line_starts(source)
    inserts = draw(st.lists(st.tuples(st.sampled_from(points), st.sampled_from(FILLERS)), max_size=6))
    before: Dict[int, List[str]] = {}
    for row, filler in inserts:
        before.setdefault(row, []).append(filler)
    out: List[str] = []
    mapping: Dict[int, int] = {}
    for row in range(1, len(lines) + 2):
        out.extend(before.get(row, []))
        if row <= len(lines):
            mapping[row] = len(out) + 1
            out.append(lines[row - 1])
    new = "".join(out)
    if draw(st.booleans()) and "\r" not in new:
        new = new.replace("\n", "\r\n")
    return source, new, mapping, text is not source


@fuzz
@given(reformatted())
def test_findings_survive_formatting_only_changes(case):
    source, new, mapping, columns_moved = case
    assert_robust(new)

    def keyed(findings, remap):
        return Counter((remap(f.start[0]), None if columns_moved else f.start[1], f.code) for f in findings)

    before = keyed(lint_source(source, PATH, SETTINGS).findings, lambda row: mapping[row])
    after = keyed(lint_source(new, PATH, SETTINGS).findings, lambda row: row)
    assert after == before


@st.composite
def changed_in_meaning(draw) -> str:
    source = fixture(draw(st.integers(0, len(SOURCES) - 1)))
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:  # a 0.3-era migrate fixture (`async=True`): renaming only
        module = cst.parse_module("")
        swaps = 0
    else:
        swaps = draw(st.integers(0, 2))
    # Blocks whose statements can be swapped: the module's, and each top-level def's or class's.
    blocks: List[cst.CSTNode] = [module] + [
        s.body for s in module.body if isinstance(s, (cst.FunctionDef, cst.ClassDef)) and isinstance(s.body, cst.IndentedBlock)
    ]
    for _ in range(swaps):
        choice = draw(st.integers(0, len(blocks) - 1))
        block = blocks[choice]
        if len(block.body) < 2:
            continue
        i = draw(st.integers(0, len(block.body) - 2))
        body = list(block.body)
        body[i], body[i + 1] = body[i + 1], body[i]
        if choice == 0:
            module = module.with_changes(body=body)
            blocks = [module] + [
                s.body for s in module.body if isinstance(s, (cst.FunctionDef, cst.ClassDef)) and isinstance(s.body, cst.IndentedBlock)
            ]
        else:
            new_block = block.with_changes(body=body)
            module = module.deep_replace(block, new_block)
            blocks[choice] = new_block
    text = module.code if swaps else source
    names = sorted({t.string for t in _tokens(text) if t.type == tokenize.NAME and not keyword.iskeyword(t.string)})
    if names and draw(st.booleans()):
        old = draw(st.sampled_from(names))
        new = draw(st.sampled_from(["x", "torch", "Variable", "data", "model", "renamed_" + old]))
        lines = text.splitlines(keepends=True)
        # From the end, so that earlier positions stay right.
        for tok in reversed([t for t in _tokens(text) if t.type == tokenize.NAME and t.string == old]):
            (row, col), (_, end) = tok.start, tok.end
            lines[row - 1] = lines[row - 1][:col] + new + lines[row - 1][end:]
        text = "".join(lines)
    return text


@fuzz
@given(changed_in_meaning())
def test_fixtures_changed_in_meaning(source):
    assert_robust(source)


# -- the helpers above, on known cases (a helper that cannot fail tests nothing) -----


def test_line_starts_skip_strings_and_continuations():
    source = 'x = """a\nb"""\ny = 1 + \\\n    2\nif y:\n    z = (1,\n         2)\n'
    assert line_starts(source) == ([1, 3, 5, 6, 7, 8], [1, 3, 5, 6])
    assert with_tabs(source) == 'x = """a\nb"""\ny = 1 + \\\n    2\nif y:\n\tz = (1,\n         2)\n'
    assert with_tabs("if y:\n  z = 1\n") is None


def test_a_broken_fix_would_be_caught(monkeypatch):
    # assert_robust fails when a fix is not idempotent: here every fix adds a line.
    import gradlint.engine as engine

    real = engine.fix_source

    def drifting(source, *args, **kwargs):
        result = real(source, *args, **kwargs)
        result.source += "pass\n"
        return result

    monkeypatch.setattr("test_fuzz.fix_source", drifting)
    with pytest.raises(AssertionError, match="fixing twice changed more"):
        assert_robust(LEGACY)
