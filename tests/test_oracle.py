"""The differential oracle: no safe fix changes what a program does under torch.

Every generated program (tests/oracle/templates.py) runs as written, after
``check --fix``, after ``--fix --unsafe-fixes`` and after ``migrate``, in the
verify sandbox. A safe fix (and a migration that applied only safe fixes) must
leave printed output, returned values, exceptions and every gradient as they
were, or make an error raised at the flagged line go away; a second ``--fix``
must change nothing. CI runs a fixed sample; ``GRADLINT_ORACLE=long`` runs
every program and prints the figures docs/reliability.md reports.
"""

from __future__ import annotations

import os
from collections import Counter

import pytest

from oracle import runner, templates
from oracle.runner import Judged, Program, Version

LONG = os.environ.get("GRADLINT_ORACLE") == "long"
PROGRAMS = templates.generate()
CHOSEN = PROGRAMS if LONG else templates.sample(PROGRAMS)

def test_every_defect_class_has_a_family_in_the_sample():
    for what, (rule, family) in templates.DEFECT_CLASSES.items():
        assert any(p.rule == rule and p.family.startswith(family) for p in CHOSEN), what


def test_the_generated_families_cover_every_axis():
    families = {p.family for p in PROGRAMS}
    for flow in templates.FLOWS:
        assert any(f"flow={flow} " in f for f in families), flow
    for shape in templates.SHAPES:
        assert any(f"shape={shape} " in f for f in families), shape
    for name in templates.TORCH_NAMES:
        assert any(f.endswith(f"torch={name}") for f in families), name
    assert any("shape=notebook " in f for f in families)
    assert len(PROGRAMS) > 1800 and len({p.name for p in PROGRAMS}) == len(PROGRAMS)


def test_gl001_on_a_disabled_path_removes_the_wrapper_and_adds_no_guard():
    for program in (p for p in PROGRAMS if p.family.startswith("disabled-path")):
        fixed = runner.make_versions(program)["fixed"]
        assert fixed.fixed == Counter({"GL001": 1}), program.name
        assert "Variable(" not in fixed.source
        assert fixed.source.count("no_grad") == program.source.count("no_grad"), program.name


def test_notebook_programs_are_fixed_through_their_cells():
    program = next(p for p in PROGRAMS if p.name == "gl101-notebook-printed-module")
    assert program.cells is not None and len(program.cells) == 4
    assert program.cells[1] == "model.eval()\n" and program.cells[2].startswith("out = model(x)\n")
    fixed = runner.make_versions(program)["fixed"]
    assert (fixed.fixed, fixed.written, fixed.converged) == (Counter({"GL101": 1}), True, True)
    assert "with torch.no_grad():\n    out = model(x)\n" in fixed.source


def test_a_program_needing_a_missing_library_is_not_judged_on_it():
    program = Program("p", "GL001", "fixture", "x = 1\n")
    versions = {v: Version("x = 2\n", Counter({"GL001": 1})) for v in runner.VERSIONS}
    missing = {"type": "ModuleNotFoundError", "message": "No module named 'torchvision'", "line": 1}
    runs = {"p@original": _run({})[0], **{f"p@{v}": _run({}, exception=missing)[1] for v in runner.VERSIONS}}
    assert {j.verdict for j in runner.judge(program, versions, runs)} == {"not-run"}


def _run(before: dict, **after) -> dict:
    base = {"exception": None, "stdout": "", "returned": None, "gradients": {}}
    return {**base, **before}, {**base, **before, **after}


def test_difference_ignores_graph_annotations_only():
    a, b = _run({"stdout": "tensor(1.5000, grad_fn=<AddBackward0>)\n"}, stdout="tensor(1.5000)\n")
    assert runner.difference(a, b) is None
    a, b = _run({"stdout": "tensor(1.1007)\n"}, stdout="1.1007099151611328\n")
    assert runner.difference(a, b) == (
        "stdout",
        "printed line 1: 'tensor(1.1007)' as written, '1.1007099151611328' as fixed",
    )


def test_difference_names_exceptions_and_gradients():
    exc = {"type": "RuntimeError", "message": "element 0 of tensors does not require grad", "line": 9}
    a, b = _run({}, exception=exc)
    assert runner.difference(a, b) == (
        "exception",
        "no exception as written, RuntimeError: element 0 of tensors does not require grad as fixed",
    )
    grad = {"model.weight": {"value": {"tensor": "torch.float32", "shape": [1], "values": [1.0]}, "grad": None}}
    a, b = _run(
        {"gradients": grad},
        gradients={"model.weight": {**grad["model.weight"], "grad": {"tensor": "torch.float32", "shape": [1], "values": [2.0]}}},
    )
    assert runner.difference(a, b) == ("gradient", "model.weight.grad: None as written, [2.0] as fixed")


def test_a_fix_that_does_not_converge_is_a_change():
    program = Program("p", "GL001", "f", "x = 1\n")
    versions = {v: Version("x = 2\n", Counter({"GL001": 1}), converged=(v != "fixed")) for v in runner.VERSIONS}
    runs = {f"p@{v}": _run({})[0] for v in ("original", *runner.VERSIONS)}
    judged = {j.version: j for j in runner.judge(program, versions, runs)}
    assert (judged["fixed"].verdict, judged["fixed"].cause) == ("changed", "not-converged")
    assert judged["unsafe"].verdict == "same"


def test_migrated_changes_by_trusted_rules_are_not_failures():
    program = Program("p", "GL003", "f", "x = 1\n")
    trusted = Judged(program, "migrated", Counter({"GL003": 1}), "changed", "d", "stdout")
    safe_only = Judged(program, "migrated", Counter({"GL106": 1}), "changed", "d", "stdout")
    unsafe = Judged(program, "unsafe", Counter({"GL003": 1}), "changed", "d", "stdout")
    assert runner.unsafe_judgements([trusted, safe_only, unsafe]) == [safe_only]


@pytest.fixture(scope="module")
def judged():
    pytest.importorskip("torch")
    results = runner.oracle(CHOSEN)
    if LONG:
        print("\n" + runner.figures(results))
    return {(j.program.name, j.version): j for j in results}


@pytest.mark.parametrize("program", CHOSEN, ids=lambda p: p.name)
def test_safe_fixes_keep_behaviour(judged, program):
    failures = [
        runner.describe(judged[(program.name, version)])
        for version in ("fixed", "migrated")
        if judged[(program.name, version)] in runner.unsafe_judgements([judged[(program.name, version)]])
    ]
    assert not failures, "\n".join(failures)
