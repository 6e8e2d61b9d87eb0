"""The engine: fix composition, conflicts, convergence, and suppression."""

from __future__ import annotations

import libcst as cst

from harness import fix, lint, messages, settings_for
from samples import ASYNC_LEGACY
from gradlint.engine import LintSettings, fix_source, lint_source
from gradlint.fixes import Edit, Fix, apply_fixes, select_compatible
from gradlint.text_diff import text_edits


def test_several_fixes_compose_with_import_removal():
    src = """\
        import torch
        from torch.autograd import Variable

        x = Variable(torch.randn(2, 3))
        y = Variable(torch.zeros(3), requires_grad=True)
        z = Variable(torch.ones(3)) + Variable(x * 2)
    """
    assert fix(src) == (
        "import torch\n"
        "\n"
        "x = torch.randn(2, 3)\n"
        "y = torch.zeros(3, requires_grad=True)\n"
        "z = torch.ones(3) + (x * 2).detach()\n"
    )


def test_import_kept_while_a_use_remains():
    src = """\
        from torch.autograd import Variable

        def f(x):
            return Variable(x), isinstance(x, Variable)
    """
    assert fix(src) == (
        "from torch.autograd import Variable\n"
        "\n"
        "def f(x):\n"
        "    return x.detach(), isinstance(x, Variable)\n"
    )


def test_nested_fixes_converge_over_rounds():
    # The inner Variable is inside the outer one's argument: the outer fix replaces the
    # whole call, so the inner one is applied in a later round.
    src = """\
        import torch
        from torch.autograd import Variable
        v = Variable(Variable(torch.randn(3)).cuda())
    """
    assert fix(src) == "import torch\nv = torch.randn(3).cuda()\n"


def test_decorator_and_inner_fixes_compose():
    src = """\
        import torch
        from torch.autograd import Variable

        def evaluate(model, a, b):
            x = Variable(torch.from_numpy(a), volatile=True)
            y = Variable(torch.from_numpy(b), volatile=True)
            print(model(x, y).data[0] + loss.sum().data[0])
    """
    assert fix(src) == (
        "import torch\n"
        "\n"
        "@torch.no_grad()\n"
        "def evaluate(model, a, b):\n"
        "    x = torch.from_numpy(a)\n"
        "    y = torch.from_numpy(b)\n"
        "    print(model(x, y).data[0] + loss.sum().item())\n"
    )


def test_fix_adds_import_torch_when_missing():
    src = """\
        from torch.autograd import Variable

        def predict(net, batch):
            return net(Variable(batch, volatile=True)).argmax(1)
    """
    assert fix(src) == (
        "import torch\n"
        "\n"
        "@torch.no_grad()\n"
        "def predict(net, batch):\n"
        "    return net(batch.detach()).argmax(1)\n"
    )


def test_fix_uses_existing_torch_alias():
    src = """\
        import torch as T
        from torch.autograd import Variable

        def predict(net, batch):
            return net(Variable(batch, volatile=True)).argmax(1)
    """
    assert "@T.no_grad()\n" in fix(src)
    assert "import torch\n" not in fix(src)


def test_fix_grad_guard_option():
    from gradlint.rule import RuleOptions

    src = """\
        import torch
        from torch.autograd import Variable

        def predict(net, batch):
            return net(Variable(batch, volatile=True)).argmax(1).tolist()
    """
    assert "@torch.inference_mode()\n" in fix(src, options=RuleOptions(fix_grad_guard="inference_mode"))
    # A tensor handed back may meet autograd or an in-place edit later, which an
    # inference tensor refuses: the guard falls back to no_grad there.
    returned = src.replace(".argmax(1).tolist()", ".argmax(1)")
    assert "@torch.no_grad()\n" in fix(returned, options=RuleOptions(fix_grad_guard="inference_mode"))


def test_conflicting_edits_are_deferred():
    module = cst.parse_module("a = f(g(x))\n")
    outer = module.body[0].body[0].value
    inner = outer.args[0].value
    span_outer = ((1, 4), (1, 11))
    span_inner = ((1, 6), (1, 10))
    f1 = Fix("safe", "outer", (Edit("replace", outer, span_outer, new=cst.Name("y")),))
    f2 = Fix("safe", "inner", (Edit("replace", inner, span_inner, new=cst.Name("z")),))
    f3 = Fix("safe", "wrap", (Edit("transform", outer, span_outer, fn=lambda n: n),))
    assert select_compatible([f1, f2]) == [f1]
    assert select_compatible([f2, f1]) == [f2]
    # a transform of the outer node composes with a replacement inside it
    assert select_compatible([f3, f2]) == [f3, f2]
    assert apply_fixes(module, [f3, f2]) == "a = f(z)\n"


def test_text_edits_are_minimal():
    old = "a = 1\nb = loss.data[0]\nc = 3\n"
    new = "a = 1\nb = loss.item()\nc = 3\n"
    (edit,) = text_edits(old, new)
    assert (edit.row, edit.column, edit.end_row, edit.end_column, edit.content) == (2, 10, 2, 17, "item()")


def test_noqa_in_string_does_not_suppress():
    assert lint('from torch.autograd import Variable\nv = Variable(x, "# noqa")\n', select=["GL002"]) == [(2, 5, "GL002")]


def test_syntax_errors_are_reported_with_or_without_trigger_words():
    # No rule's trigger word: CPython's parser says it is not Python, LibCST's parse says where.
    assert lint("print 'hello'\n") == [(1, 1, "GL000")]
    assert lint("print loss.data[0]\n") == [(1, 1, "GL000")]
    assert lint("import torch\ndef f(:\n pass\n") == lint("from torch.autograd import Variable\ndef f(:\n pass\n") == [(2, 7, "GL000")]
    assert messages("import torch\ndef f(:\n pass\n") == ["syntax error: invalid syntax"]
    assert messages("x = 1\n  y = 2\n") == ["syntax error: unexpected indent"]
    # Whatever the selection and the directives say, as Ruff's invalid-syntax.
    assert lint("print 'hello'\n", select=["GL001"]) == [(1, 1, "GL000")]
    assert lint("import torch\ndef f(:\n pass\n", select=["GL003"]) == [(2, 7, "GL000")]
    assert lint("x = 1\ndef f(:\n pass\n", select=["GL003"]) == [(2, 7, "GL000")]
    assert lint("print 'hello'  # gradlint: noqa\n") == [(1, 1, "GL000")]
    assert lint("import torch\ndef f(:  # noqa: GL000\n pass\n", select=["GL003"]) == [(2, 7, "GL000")]
    assert lint("print 'hello'  # gradlint: noqa: GL000\n", select=[]) == [(1, 1, "GL000")]




def test_a_rules_source_repair_reads_the_file_whatever_the_selection():
    assert lint(ASYNC_LEGACY, select=["GL003", "GL005"]) == [(5, 16, "GL005"), (7, 12, "GL003")]
    assert lint(ASYNC_LEGACY, select=["GL003"]) == [(7, 12, "GL003")]
    assert lint(ASYNC_LEGACY, select=["GL001"]) == []
    assert lint(ASYNC_LEGACY, select=[]) == []
    # Not selected, the repair is not applied: a fix on the repaired text could not be.
    alone = lint_source(ASYNC_LEGACY, "snippet.py", settings_for(["GL003"]))
    assert alone.repaired_by == ("GL005", 1) and [f.fix for f in alone.findings] == [None]
    fixed = fix_source(ASYNC_LEGACY, "snippet.py", settings_for(["GL003"]))
    assert fixed.source == ASYNC_LEGACY and not fixed.fixed and [(f.code, f.start) for f in fixed.remaining] == [("GL003", (7, 11))]
    both = fix_source(ASYNC_LEGACY, "snippet.py", settings_for(["GL003", "GL005"]))
    assert both.fixed == {"GL005": 1, "GL003": 1} and "non_blocking=True" in both.source and "loss.item()" in both.source
    # Still a syntax error after the repair: GL000, with the hint on the `async=` line.
    broken = ASYNC_LEGACY + "def f(:\n    pass\n"
    assert lint(broken, select=["GL003"]) == [(5, 16, "GL000")]


def test_tab_indented_python_that_libcst_refuses_is_read_with_its_tabs_expanded():
    # Method bodies indented with tabs then spaces: CPython reads them, LibCST's
    # tokenizer does not. Read with the tabs expanded, the file is checked: findings
    # at their columns in the file as written, and no fix (each would reindent it).
    source = (
        "import torch\nfrom torch.autograd import Variable\n\n\nclass Net:\n"
        "    def to_kaldi(self, x):\n\t\t    return Variable(x, volatile=True)\n\n"
        "    def other(self):\n        return 1\n"
    )
    compile(source, "<source>", "exec")
    assert lint(source) == [(7, 14, "GL001")]
    result = lint_source(source, "snippet.py", settings_for(["GL001"]))
    assert [(f.start, f.end, f.fix) for f in result.findings] == [((7, 13), (7, 39), None)]
    fixed = fix_source(source, "snippet.py", settings_for(["GL001"]))
    assert fixed.source == source and not fixed.fixed and [(f.code, f.start) for f in fixed.remaining] == [("GL001", (7, 13))]


def test_valid_python_that_libcst_cannot_parse_is_not_called_a_syntax_error(monkeypatch):
    # The same file, were expanding its tabs not enough: not checked, and the finding says so.
    from gradlint import parsing

    monkeypatch.setattr(parsing, "reindented", lambda source: None)
    source = "from torch.autograd import Variable\n\n\nclass Net:\n    def to_kaldi(self):\n\t\t    return Variable(1)\n\n    def other(self):\n        return 1\n"
    compile(source, "<source>", "exec")
    assert lint(source) == [(1, 1, "GL000")]
    assert messages(source) == [
        "not checked: Python accepts this file, but LibCST, gradlint's parser, does not "
        "(tokenizer error: no matching outer block for dedent)"
    ]


def test_reindented_maps_positions_back_to_the_written_columns():
    from gradlint.parsing import reindented

    assert reindented("x = 1\n    y = 2\n") is None
    text, position = reindented("if a:\n  \tb = 1\nc = '\t'\n")
    assert text == "if a:\n        b = 1\nc = '\t'\n"
    assert [position((2, 8)), position((2, 12)), position((2, 3)), position((3, 4))] == [(2, 3), (2, 7), (2, 3), (3, 4)]


def test_files_without_triggers_that_are_python_are_not_parsed(monkeypatch):
    from gradlint import engine

    def no_parse(source):
        raise AssertionError("parsed")

    monkeypatch.setattr(engine, "parse", no_parse)
    assert lint("import torch\nx = torch.ones(3)\n") == []
    # What CPython's symbol table refuses but LibCST parses is LibCST's to judge.
    assert not engine.needs_parse("x = 1\n", frozenset({"GL000"}))
    assert engine.needs_parse("def f(a, a):\n    pass\n", frozenset({"GL000"}))
    monkeypatch.undo()
    assert lint("def f(a, a):\n    pass\n") == []


def test_comments_above_a_removed_import_are_kept():
    src = """\
        import torch
        # 0.3 autograd
        from torch.autograd import Variable
        # models
        import torch.nn as nn

        x = Variable(torch.zeros(3))
    """
    assert fix(src) == "import torch\n# 0.3 autograd\n# models\nimport torch.nn as nn\n\nx = torch.zeros(3)\n"


def test_comment_above_a_removed_last_statement_is_kept():
    src = "import torch\ndef f():\n    return Variable(torch.zeros(3))\n# the end\nfrom torch.autograd import Variable\n"
    assert fix(src) == "import torch\ndef f():\n    return torch.zeros(3)\n# the end\n"


def test_trusted_codes_get_their_unsafe_fixes_applied():
    from gradlint.engine import fix_source

    # read as a number, but nothing says `x` is 0-dim: GL003's fix is unsafe here
    src = "def f(x):\n    return float(x.data[0])\n"
    settings = settings_for(["GL003"])
    assert fix_source(src, "t.py", settings).source == src
    assert fix_source(src, "t.py", settings, unsafe=True).source == "def f(x):\n    return float(x.item())\n"
    trusted = fix_source(src, "t.py", settings, trusted=frozenset({"GL003"}))
    assert trusted.source == "def f(x):\n    return float(x.item())\n"
    assert trusted.fixed == {"GL003": 1}


ASYNC_MESSAGE = (
    "`async=` was renamed `non_blocking=` in PyTorch 0.4, and `async` has been a keyword since Python 3.7: "
    "this call is a syntax error; use `non_blocking=`"
)


def test_async_syntax_error_hints_at_the_rename_when_the_rename_is_not_enough():
    src = "from torch.autograd import Variable\nx = Variable(y.cuda(async=True))\nprint x\n"
    assert messages(src, select=["GL000", "GL002"]) == [
        "syntax error: invalid syntax (`async=` is PyTorch 0.3's name for `non_blocking=`, and a keyword since "
        "Python 3.7: `gradlint migrate` renames it)"
    ]
    assert lint(src, select=["GL000", "GL002"]) == lint(src, select=["GL002"]) == [(2, 21, "GL000")]
    # Once renamed it parses, GL005 selected or not.
    assert lint(src.replace("print x", "print(x)"), select=["GL002"]) == [(2, 5, "GL002")]
    assert messages("from torch.autograd import Variable\nasync = Variable(y)\n") == ["syntax error: invalid syntax"]


def test_async_argument_is_reported_without_any_trigger_word():
    assert lint("x = batch.cuda(async=True)\n") == [(1, 16, "GL005")]
    assert messages("x = batch.cuda(async=True)\n") == [ASYNC_MESSAGE]
    assert lint("x = batch.cuda(async=True)\n", select=["GL003"]) == []
    assert lint("async def f():\n    await g(async_=True)\n") == []


def test_a_legacy_async_file_reports_every_finding_where_it_is_written():
    src = (
        "import torch\n"
        "from torch.autograd import Variable\n"
        "def evaluate(model, x, y):\n"
        "    loss = torch.nn.functional.mse_loss(model(x), y)\n"
        "    v = Variable(x.cuda(async=True), volatile=True); w = x.to(0, async=True).data[0]; s = loss.data[0]\n"
        "    return loss.data[0]\n"
    )
    found = lint(src)
    assert found == [
        (5, 9, "GL001"),
        (5, 25, "GL005"),
        (5, 58, "GL203"),
        (5, 66, "GL005"),
        (5, 91, "GL003"),
        (6, 12, "GL003"),
    ]
    # The positions are those of the file as written, before, between and after the renamed arguments.
    line = src.splitlines()[4]
    assert [line[col - 1 : col + 4] for _, col, _ in found[:5]] == ["Varia", "async", "x.to(", "async", "loss."]
    assert messages(src)[1] == ASYNC_MESSAGE


def test_a_legacy_async_file_that_still_does_not_parse_is_gl000():
    src = "from torch.autograd import Variable\nx = y.cuda(async=True)\nprint Variable\n"
    assert lint(src) == [(2, 12, "GL000")]


def test_async_rename_is_a_safe_fix_applied_before_the_others():
    src = "from torch.autograd import Variable\nx = Variable(y.cuda(async=True))\nz = loss.sum().data[0]  # async=True\n"
    assert fix(src) == "x = y.cuda(non_blocking=True).detach()\nz = loss.sum().item()  # async=True\n"
    result = fix_source(src, "t.py", settings_for(["ALL"]))
    assert result.fixed == {"GL005": 1, "GL002": 1, "GL003": 1}


def test_noqa_on_an_async_argument_keeps_the_file_as_it_is():
    src = "x = y.cuda(async=True)  # noqa: GL005\nz = loss.sum().data[0]\n"
    assert lint(src) == [(2, 5, "GL003")]
    result = fix_source(src, "t.py", settings_for(["ALL"]))
    # One rename silenced: the file cannot parse, so no other fix can be applied either.
    assert result.source == src and [f.code for f in result.remaining] == ["GL003"]


def test_deferred_fixes_are_the_fixes_built_on_request():
    """With ``defer_fixes`` a rule's fix given as a callable (GL001's) is built when
    asked for, after the walk: the same findings, and fixes that apply to the same text.
    A finding without a fix (a project's own ``Variable`` subclass) has none deferred."""
    import dataclasses
    from pathlib import Path

    from gradlint.results import fix_of

    fixtures = sorted(Path(__file__).parent.parent.joinpath("fixtures", "GL001").glob("*.py"))
    sources = [p.read_text() for p in fixtures if p.name.count(".") == 1]
    sources.append("import torch\nfrom torch.autograd import Variable\n\ndef f(m, x):\n    x = x.cuda(async=True)\n    return m(Variable(x, volatile=True)).argmax(1)\n")
    settings = LintSettings(frozenset({"GL001", "GL005"}))
    deferred = 0
    for source in sources:
        eager = lint_source(source, "x.py", settings)
        lazy = lint_source(source, "x.py", dataclasses.replace(settings, defer_fixes=True))
        assert [(f.code, f.message, f.start, f.end) for f in lazy.findings] == [(f.code, f.message, f.start, f.end) for f in eager.findings]
        for a, b in zip(eager.findings, lazy.findings):
            assert a.deferred_fix is None
            if b.code == "GL001" and a.fix is not None:
                assert b.fix is None and b.deferred_fix is not None
                deferred += 1
            built = fix_of(b)
            assert (a.fix is None) == (built is None)
            if built is not None:
                assert (built.applicability, built.title) == (a.fix.applicability, a.fix.title)
                ctx = lazy.context
                assert apply_fixes(ctx.module, [built], ctx.parents) == apply_fixes(eager.context.module, [a.fix], eager.context.parents)
    assert deferred >= 5


def test_the_pipeline_knows_no_rule_code():
    """Rules are found by the engine through what they register (triggers, gates,
    a source repair), never by their codes: the pipeline names none of them."""
    import re
    from pathlib import Path

    package = Path(__file__).resolve().parent.parent / "gradlint"
    modules = [*package.glob("engine*.py"), *(package / "semantic").glob("*.py")]
    modules += [package / f"{name}.py" for name in ("checking", "runner", "scheduler", "session")]
    named = [f"{p.name}:{n}" for p in modules for n, line in enumerate(p.read_text().splitlines(), 1) if re.search(r"GL[0-9]{3}", line)]
    assert named == []


def test_a_source_repair_is_registered_by_its_rule():
    from gradlint.rule import SourceRepair
    from gradlint.rules import all_rules

    repairs = {code: rule.source_repair for code, rule in all_rules().items() if rule.source_repair is not None}
    assert list(repairs) == ["GL005"] and isinstance(repairs["GL005"], SourceRepair)
    source = "x = y.cuda(async=True)\n"
    repaired = repairs["GL005"].repair(source)
    assert repaired.text == "x = y.cuda(non_blocking=True)\n"
    assert repaired.spans == (((1, 11), (1, 16)),)
    assert repaired.position((1, 28)) == (1, 21)  # after the renamed argument: back by the longer name
    # switched off, the rename is still made to read the file, and not reported
    found = lint_source(source, "m.py", LintSettings(frozenset({"GL000"})))
    assert found.findings == [] and found.repaired_by == ("GL005", 1)
    assert found.context is not None and found.context.source == repaired.text
