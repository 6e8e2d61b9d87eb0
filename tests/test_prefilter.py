"""The prefilter never skips a file with findings, and every rule's triggers and gates earn their place.

The engine does not parse a file for a rule unless the file contains one of
the rule's trigger substrings and matches each of its gates (regular
expressions). These tests run each rule with and without that filter over
every file under fixtures/ (sources and expected fix outputs), every catalog
example and the spellings in GATE_CASES, and require the same findings: a
rule added without the triggers or with gates stricter than its fixtures need
fails here.

One run of every rule over each corpus file (prefilter off, and on) stands for
the run of each rule alone: a rule's findings are its share of the joint run.
Rules share a file's semantic model, so the slow test
``test_one_run_of_every_rule_is_the_runs_of_each_rule`` checks that against
each rule run alone, file by file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Dict, List, Tuple

import re

import pytest

from harness import FIXTURES, settings_for
from gradlint import catalog
from gradlint.engine import LintSettings, SourceSyntaxError, lint_source, needs_parse, parse, triggered_rules
from gradlint.options import RuleOptions
from gradlint.rules import all_rules


def _corpus() -> List[Tuple[str, str]]:
    """(name, source) of every fixture file and catalog example."""
    out = [(str(p.relative_to(FIXTURES)), p.read_text(encoding="utf-8")) for p in sorted(FIXTURES.rglob("*.py"))]
    for doc in catalog.load().values():
        for n, ex in enumerate(doc.examples):
            out.append((f"{doc.code} example {n} bad", ex.bad))
            out.append((f"{doc.code} example {n} good", ex.good))
    return out


CORPUS = _corpus()
RULES = sorted(all_rules())


ALL = frozenset(RULES) | {catalog.PARSE_ERROR}
REPAIRING = sorted(code for code, rule in all_rules().items() if rule.source_repair is not None)

Found = List[Tuple[str, Tuple[int, int]]]


def _findings(source: str, codes, prefilter: bool, module=None) -> Found:
    """The findings of both tiers: the prefilter decides before any tier does, and a
    trigger or gate may be needed by a preview finding only (GL301's kept copies)."""
    found = set()
    for preview in (False, True):
        settings = LintSettings(frozenset(codes), RuleOptions(preview=preview))
        found.update((f.code, f.start) for f in lint_source(source, "case.py", settings, prefilter=prefilter, module=module).findings)
    return sorted(found, key=lambda f: (f[1], f[0]))


def _share(findings: Found, code: str) -> Found:
    """One rule's findings out of a joint run's: the engine sorts by position, then code."""
    return [f for f in findings if f[0] == code]


@pytest.fixture(scope="module")
def every_rule() -> Dict[str, Tuple[Found, Found]]:
    """Each corpus file's findings with every rule enabled: (prefilter off, prefilter on)."""
    return {name: (_findings(src, ALL, False), _findings(src, ALL, True)) for name, src in CORPUS}


@pytest.fixture(scope="module")
def unfiltered(every_rule) -> Dict[Tuple[str, str], Found]:
    """Each rule's findings on each corpus file, with the prefilter off."""
    return {(code, name): _share(every_rule[name][0], code) for code in RULES for name, _ in CORPUS}


@pytest.mark.parametrize("code", RULES)
def test_prefilter_never_skips_a_file_with_findings(code, every_rule, unfiltered):
    missed = []
    for name, _ in CORPUS:
        want = unfiltered[(code, name)]
        if _share(every_rule[name][1], code) != want:
            missed.append(f"{name}: {want}")
    assert not missed, f"{code}'s triggers {all_rules()[code].triggers} make the engine skip files it has findings in: {missed}"


def test_prefilter_with_all_rules_enabled(every_rule):
    for name, _ in CORPUS:
        off, on = every_rule[name]
        assert on == off, name
    assert any(off for off, _ in every_rule.values()), "no findings at all: the corpus tests nothing"


@pytest.mark.slow
def test_one_run_of_every_rule_is_the_runs_of_each_rule(every_rule):
    # The fixtures above split one joint run per file; here each rule runs alone
    # (on a tree parsed once per file: the fix loop hands ``lint_source`` its
    # tree the same way), with the prefilter off and on.
    differ = []
    for name, src in CORPUS:
        try:
            module = parse(src)
        except SourceSyntaxError:
            module = None
        for code in RULES:
            for prefilter, joint in zip((False, True), every_rule[name]):
                # A file that parses only once a rule repairs it (`async=`) is read by
                # every rule through that repair: the repairing rules come along.
                alone = _share(_findings(src, [code, *REPAIRING], prefilter, module), code)
                if alone != _share(joint, code):
                    differ.append(f"{name} {code} prefilter={prefilter}: alone {alone}, joint {_share(joint, code)}")
    assert not differ, differ


@pytest.mark.parametrize("code", RULES)
def test_every_trigger_is_needed_by_a_case(code, unfiltered):
    """A trigger that no fixture or example with findings contains is a typo, or
    an untested way for the rule to fire: give it a fixture."""
    triggers = all_rules()[code].triggers
    assert isinstance(triggers, tuple) and triggers, f"{code}: triggers must be a non-empty tuple"
    assert all(isinstance(t, str) and t.strip() == t and t for t in triggers), f"{code}: bad trigger in {triggers}"
    firing = [src for name, src in CORPUS if unfiltered[(code, name)]]
    assert firing, f"{code} has no finding in any fixture or example, so its triggers are untested"
    unused = [t for t in triggers if not any(t in src for src in firing)]
    assert not unused, f"{code}: no case with findings contains the trigger(s) {unused}"


def test_a_rule_without_adequate_triggers_is_caught(monkeypatch, unfiltered):
    # What the tests above would say about GL003 declaring a trigger its fixtures lack.
    rule = all_rules()["GL003"]
    monkeypatch.setattr(rule, "triggers", (".data [",))
    skipped = [name for name, src in CORPUS if unfiltered[("GL003", name)] and not _share(_findings(src, ALL, True), "GL003")]
    assert "GL003/logging_losses.py" in skipped and "GL003 example 0 bad" in skipped


def test_untriggered_files_are_not_parsed(monkeypatch):
    import gradlint.engine as engine

    def fail(source):
        raise AssertionError("parsed")

    monkeypatch.setattr(engine, "parse", fail)
    src = "import torch\nx = torch.zeros(3)\n"
    assert lint_source(src, "a.py", settings_for(["ALL"])).findings == []
    assert not needs_parse(src, frozenset(RULES))
    assert needs_parse("v = Variable(x)\n", frozenset(RULES))
    assert [r.code for r in triggered_rules("v = Variable(x, volatile=True)\n", frozenset(RULES))] == ["GL001", "GL002"]


def test_file_level_noqa_is_honoured_before_parsing():
    codes = frozenset(RULES)
    assert not needs_parse("# gradlint: noqa\nv = Variable(x)\n", codes)
    assert not needs_parse("# gradlint: noqa: GL001, GL002\nv = Variable(x)\n", codes)
    assert needs_parse("# gradlint: noqa: GL001\nv = Variable(x)\n", codes)


GATED = [code for code in RULES if all_rules()[code].gates]


@pytest.mark.parametrize("code", GATED)
def test_every_gate_matches_every_case_with_findings(code, unfiltered):
    for gate in all_rules()[code].gates:
        missed = [name for name, src in CORPUS if unfiltered[(code, name)] and not gate.search(src)]
        assert not missed, f"{code}'s gate {gate.pattern!r} does not match cases it has findings in: {missed}"


@pytest.mark.parametrize("code", GATED)
def test_every_gate_keeps_out_a_triggered_case(code):
    """A gate that passes every case with a trigger word is dead weight (or wrong)."""
    rule = all_rules()[code]
    triggered = [src for _, src in CORPUS if any(t in src for t in rule.triggers)]
    for gate in rule.gates:
        assert any(not gate.search(src) for src in triggered), f"{code}: {gate.pattern!r} keeps out nothing"


def test_a_rule_with_a_too_strict_gate_is_caught(monkeypatch, unfiltered):
    # What the tests above would say about GL204 (GL202's edits where no graph sees
    # them) gating on ``.data.<method>_(`` alone, forgetting augmented assignments and
    # aliases (``d_p = p.grad.data``).
    rule = all_rules()["GL204"]
    monkeypatch.setattr(rule, "gates", (re.compile(r"\.data\.\w+_\("),))
    skipped = [name for name, src in CORPUS if unfiltered[("GL204", name)] and not _share(_findings(src, ALL, True), "GL204")]
    assert "GL204/manual_sgd.unsafe.py" in skipped


def test_a_lowercase_gate_matches_any_case_and_is_written_in_lower_case():
    from gradlint.rule import LowercaseGate

    gate = LowercaseGate(r"(?<![a-z])model\w*\s*\(")
    assert gate.search("y = self.Model_G(x)\n") and gate.search("MODEL (x)") and not gate.search("remodel(x)")
    assert LowercaseGate(r"\Aimport\S").search("IMPORT.x")  # escapes keep their meaning
    with pytest.raises(ValueError, match="a lowercase gate's pattern must be in lower case: 'Model'"):
        LowercaseGate("Model")


def test_any_of_matches_where_one_of_its_patterns_does_and_word_is_a_word_boundary():
    from gradlint.rule import AnyOf, LowercaseGate
    from gradlint.rules._gates import word

    gate = AnyOf(re.compile(r"\.clone\b"), LowercaseGate(word(r"self\.") + r"\w+\s*\+="))
    assert gate.search("x = y.clone()").group() == ".clone"
    assert gate.search("SELF.total += loss").group() == "self.total +="
    assert gate.search("(self.n += 1)") and not gate.search("myself.total += loss") and not gate.search("y.cloned")
    assert gate.pattern == r"\.clone\b|self\.(?<!\wself\.)\w+\s*\+="
    # the boundary after the literal: the same matches as ``\b`` before it, anywhere in a text
    text = "append xappend _append 1append (append) append_ .append"
    assert [m.span() for m in re.finditer(word("append"), text)] == [m.span() for m in re.finditer(r"\bappend", text)]
    with pytest.raises(ValueError, match="AnyOf needs at least one pattern"):
        AnyOf()


def test_gates_must_be_compiled_patterns():
    from gradlint.rule import Rule

    with pytest.raises(TypeError, match="gates must be a tuple of compiled regular expressions"):

        class Bad(Rule):  # noqa: F841
            code = "GL999"
            triggers = ("x",)
            gates = (r"\.data",)  # type: ignore[assignment]


# Spellings a rule accepts that the fixtures may not show: each is a finding
# with the prefilter off, and the gates must let it through.
GATE_CASES = [
    ("GL204", "def step(p, lr):\n    p.data.add_(p.grad, alpha=-lr)\n"),
    ("GL204", "def step(p, lr):\n    (p.data\n     .add_(p.grad, alpha=-lr))\n"),
    ("GL204", "def step(p, lr):\n    p.data \\\n        .add_(p.grad, alpha=-lr)\n"),
    ("GL204", "def step(p, lr):\n    p.data.view(-1)[0] = 1\n"),
    ("GL204", "def step(p, lr):\n    p.data.T.zero_()\n"),
    ("GL204", "def step(p, lr):\n    p.data -= lr * p.grad\n"),
    ("GL204", "def step(p, lr):\n    p.data[0] = 1\n"),
    ("GL204", "def step(p, lr):\n    d_p = p.grad.data\n    d_p.mul_(lr)\n"),
    ("GL204", "def step(p, lr):\n    d_p = (p.grad.data)\n    d_p.mul_(lr)\n"),
    ("GL204", "def step(p, lr):\n    d_p = p.grad.data  # alias\n    d_p.mul_(lr)\n"),
    ("GL204", "def step(p, q, lr):\n    a, b = p.data, q.data.clone()\n    a.mul_(lr)\n"),
    ("GL204", "def step(p, lr):\n    d_p = p.grad.data; d_p.mul_(lr)\n"),
    ("GL204", "def step(p, lr):\n    d_p: torch.Tensor = p.grad.data\n    d_p.mul_(lr)\n"),
    ("GL204", "def step(myself, lr):\n    myself.data.zero_()\n"),  # not ``self``
    # a receiver named like a graph or a batch is a tensor where the code proves one
    ("GL202", "def f(x, m):\n    w = torch.ones(3, requires_grad=True)\n    g = torch.sigmoid(x * w)\n    g.data.mul_(m)\n    return g\n"),
    ("GL204", "def step(lr):\n    batch = torch.zeros(3)\n    batch.data.add_(lr)\n"),
    ("GL201", "def f(model: torch.nn.Module, x):\n    y = model(x)\n    z = y.detach()\n    z.add_(1)\n    return y\n"),
    ("GL201", "def f(model: torch.nn.Module, x):\n    y = model(x)\n    y.detach().zero_()\n    return y\n"),
    ("GL201", "def f(model: torch.nn.Module, x):\n    y = model(x)\n    y.detach()[0] = 1\n    return y\n"),
    ("GL201", "def f(model: torch.nn.Module, x):\n    y = model(x)\n    z = y.detach().view(-1)\n    z += 1\n    return y\n"),
    ("GL203", "def f(model):\n    w = model.weight.data\n    return w.norm()\n"),
    ("GL301", "def f(model: torch.nn.Module, loader):\n    total = 0\n    for x in loader:\n        total += model(x)\n    print(total)\n"),
    ("GL301", "def f(model: torch.nn.Module, loader):\n    total = 0\n    for x in loader:\n        total = total + model(x)\n    print(total)\n"),
    ("GL301", "def f(model: torch.nn.Module, loader):\n    t = 0\n    for x in loader:\n        t = (t\n             + model(x))\n    print(t)\n"),
    ("GL301", "def f(model: torch.nn.Module, loader):\n    t = 0\n    for x in loader:\n        out = model(x)\n        t = out + t\n    print(t)\n"),
    ("GL301", "def f(model: torch.nn.Module, loader):\n    outs = []\n    for x in loader:\n        outs.append(model(x))\n    print(outs)\n"),
    ("GL301", "def f(model: torch.nn.Module, xs, n):\n    outs = {}\n    i = 0\n    while i < n:\n        outs[i] = model(xs[i])\n        i += 1\n    print(outs)\n"),
    ("GL301", "async def f(model: torch.nn.Module, loader):\n    outs = []\n    async for x in loader:\n        outs.append(model(x))\n    print(outs)\n"),
    ("GL103", "def f(model, x):\n    with torch.no_grad():\n        loss = model(x).sum()\n    loss.backward()\n"),
    ("GL103", "from torch import no_grad as ng\ndef f(model, x):\n    with ng():\n        loss = model(x).sum()\n    loss.backward()\n"),
    ("GL104", "def f(model: torch.nn.Module, x):\n    x.requires_grad = False\n    return model(x)\n"),
    ("GL104", "def f(model: torch.nn.Module, x):\n    x.requires_grad = (False)\n    return model(x)\n"),
    ("GL104", "def f(model: torch.nn.Module, x):\n    x.requires_grad_(False)\n    return model(x)\n"),
    ("GL104", "def f(model: torch.nn.Module, x):\n    x.requires_grad_(requires_grad=False)\n    return model(x)\n"),
    ("GL101", "def f(model, x):\n    model.eval()\n    print(model(x))\n"),
    ("GL101", "def f(model, x):\n    model.eval(  # inference\n    )\n    print(model(x))\n"),
    ("GL101", "def f(model, x):\n    model.train(False)\n    print(model(x))\n"),
    ("GL101", "def f(model, x):\n    model.train(mode=False)\n    print(model(x))\n"),
    ("GL101", "def f(model, x):\n    model.train(\n        False,\n    )\n    print(model(x))\n"),
    ("GL102", "def f(model, x):\n    with torch.no_grad:\n        return model(x)\n"),
    ("GL102", "from torch import no_grad as ng\ndef f(model, x):\n    with ng:\n        return model(x)\n"),
    ("GL102", "@torch.set_grad_enabled\ndef f(model, x):\n    return model(x)\n"),
    ("GL106", "@torch.no_grad()\ndef f(model, x):\n    with torch.no_grad():\n        return model(x)\n"),
    ("GL106", "from torch import no_grad as ng\n@ng()\ndef f(model, x):\n    with ng():\n        return model(x)\n"),
    ("GL106", "def f(model, x):\n    torch.set_grad_enabled(False)\n    with torch.no_grad():\n        return model(x)\n"),
    ("GL107", "def f(model, x):\n    torch.no_grad()\n    return model(x)\n"),
    ("GL107", "def f(model, x):\n    ctx = torch.no_grad()\n    return model(x)\n"),
    ("GL107", "def f(model, x):\n    if x: torch.no_grad()\n    return model(x)\n"),
    ("GL107", "def f(model, x):\n    y = 1; torch.no_grad()\n    return model(x)\n"),
    ("GL107", "def f(model, x):\n    (torch.no_grad())\n    return model(x)\n"),
    ("GL107", "def f(model, x):\n    torch.autograd.no_grad()\n    return model(x)\n"),
    ("GL107", "from torch import inference_mode as im\ndef f(model, x):\n    im()\n    return model(x)\n"),
    ("GL107", "import torch\n@torch.set_grad_enabled(False)\nasync def f(model, x):\n    return model(x)\n"),
    ("GL107", "import torch\n@torch.no_grad()\nasync def f(model, x):\n    return model(x)\n"),
    ("GL302", "model = torch.nn.Linear(2, 2)\nmodel.requires_grad = False\n"),
    ("GL302", "model = torch.nn.Linear(2, 2)\nmodel.requires_grad = other.requires_grad = False\n"),
]


@pytest.mark.parametrize("code, body", GATE_CASES)
def test_gates_let_through_every_spelling_of_a_finding(code, body):
    src = body if body.startswith("from torch") else "import torch\n" + body
    want = _findings(src, [code], prefilter=False)
    assert want, "not a finding: the case tests nothing"
    assert _findings(src, [code], prefilter=True) == want


@pytest.mark.parametrize(
    "code, src",
    [
        ("GL202", "import torch\nfrom torch.utils.data import DataLoader\nx = batch.data.cuda()\nself.data.append(1)\n"),
        ("GL203", "import torch\nfrom allennlp.data.fields import Field\np.data = t\n"),
        ("GL201", "import torch\ny = model(x).detach().cpu().numpy()\n"),
        ("GL301", "import torch\n# for each batch\ntotal += loss\n"),
        ("GL103", "import torch\nloss.backward()\n"),
        ("GL104", "import torch\nx = torch.zeros(3, requires_grad=True)\n"),
        ("GL101", "import torch\nmodel.train()\nmodel.eval_mode = 1\n"),
        ("GL102", "import torch\nwith torch.no_grad():\n    pass\n"),
        ("GL106", "import torch\nwith torch.no_grad():\n    pass\n"),
        ("GL107", "import torch\nwith torch.no_grad():\n    y = f(torch.enable_grad())\n"),
        ("GL302", "import torch\nif x.requires_grad == False:\n    pass\n"),
    ],
)
def test_gates_keep_out_what_cannot_be_a_finding(code, src):
    rule = all_rules()[code]
    assert any(t in src for t in rule.triggers)
    assert code not in [r.code for r in triggered_rules(src, frozenset([code]))]


# -- the LibCST-free prefilter (gradlint.prefilter, the table gradlint/triggers.py) --


def test_the_trigger_table_is_what_the_rules_declare():
    import update_trigger_table

    assert update_trigger_table.TABLE.read_text(encoding="utf-8") == update_trigger_table.render(), (
        "gradlint/triggers.py is out of date: run python tests/update_trigger_table.py"
    )


def test_the_selection_index_is_what_the_catalog_says():
    import update_trigger_table

    assert update_trigger_table.INDEX.read_text(encoding="utf-8") == update_trigger_table.render_index(), (
        "gradlint/catalog_index.py is out of date: run python tests/update_trigger_table.py"
    )
    assert list(catalog.selection_index()) == list(catalog.load())
    assert catalog.no_grad_changes() == frozenset(q for doc in catalog.load().values() for q in doc.no_grad_changes)
    assert "torch.nn.MultiheadAttention" in catalog.no_grad_changes()


@pytest.mark.parametrize("codes", [ALL, frozenset(RULES), *(frozenset({c}) for c in RULES), frozenset({catalog.PARSE_ERROR})])
def test_the_libcst_free_prefilter_lets_through_every_file_the_engine_parses(codes):
    from gradlint import prefilter

    cases = CORPUS + [(f"gate case {n}", src) for n, src in enumerate(_ASYNC_SPELLINGS)]
    missed = [name for name, src in cases if needs_parse(src, codes) and not prefilter.may_parse(src, codes)]
    assert not missed, f"gradlint.prefilter would skip files the engine parses for {sorted(codes)}: {missed}"


# ``async`` then ``=`` with what the tokenizer skips between them: GL005's repair is needed.
_ASYNC_SPELLINGS = [
    "x = y.cuda(async=True)\n",
    "x = y.cuda(async\n=True)\n",
    "x = y.cuda(async \\\n = True)\n",
    "x = y.cuda(async  # old\n = True)\n",
]


def test_a_repair_pattern_matches_wherever_its_repair_is_needed():
    for code in REPAIRING:
        repair = all_rules()[code].source_repair
        needed = [src for _, src in CORPUS if repair.needed(src)] + [s for s in _ASYNC_SPELLINGS if repair.needed(s)]
        assert len(needed) >= 4
        assert all(re.search(repair.pattern, src) for src in needed), code


def test_the_libcst_free_prefilter_keeps_out_files_without_triggers():
    from gradlint import prefilter

    plain = "import os\n\n\ndef f(x):\n    return os.path.join(x, 'a')\n"
    assert not prefilter.needs_engine(plain, ALL)
    assert prefilter.needs_engine("v = Variable(x)\n", ALL)
    # A syntax error is reported although no trigger is in the file, whatever the selection.
    assert prefilter.needs_engine("import os\ndef f(:\n pass\n", ALL)
    assert prefilter.needs_engine("import os\ndef f(:\n pass\n", frozenset(RULES))
    assert prefilter.needs_engine("import os\ndef f(:\n pass\n", frozenset({"GL003"}))
    assert prefilter.needs_engine("import os\ndef f(:\n pass\n", frozenset())
    # So is the repair a rule not selected makes to read a file.
    assert prefilter.needs_engine("x = y.cuda(async=True)\n", frozenset({"GL003"}))
    # The directives are judged where their codes are enabled, and only there.
    assert prefilter.needs_engine(plain + "x = 1  # noqa: GL001\n", ALL | catalog.DIRECTIVE_CODES)
    assert not prefilter.needs_engine(plain + "x = 1  # noqa: GL001\n", ALL)
    assert not prefilter.needs_engine(plain + "x = 1  # noqa: GL001\n", ALL | catalog.DIRECTIVE_CODES, line_noqa=False)
