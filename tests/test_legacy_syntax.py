"""The token-level `async=` rename and the reasons given for files that do not parse."""

from __future__ import annotations

import pytest

from gradlint.engine import SourceSyntaxError, parse
from gradlint.legacy_syntax import describe_syntax_error, rename_async_arguments

RENAMED = [
    ("x = y.cuda(async=True)\n", "x = y.cuda(non_blocking=True)\n"),
    ("x = y.cuda(0, async=True)\n", "x = y.cuda(0, non_blocking=True)\n"),
    ("x = y.cuda(device=1, async = True)  # async=True copy\n", "x = y.cuda(device=1, non_blocking = True)  # async=True copy\n"),
    ("x = y.to(device, async=True)\n", "x = y.to(device, non_blocking=True)\n"),
    ("t = x.type(torch.cuda.FloatTensor, async=True)\n", "t = x.type(torch.cuda.FloatTensor, non_blocking=True)\n"),
    ("dst.copy_(src, async=True)\n", "dst.copy_(src, non_blocking=True)\n"),
    # nested calls, several per line, a call spread over lines, CRLF kept
    (
        "v = Variable(x.cuda(async=True)), y.cuda(async=True)\n",
        "v = Variable(x.cuda(non_blocking=True)), y.cuda(non_blocking=True)\n",
    ),
    ("x = y.cuda(\r\n    0,\r\n    async=True,\r\n)\r\n", "x = y.cuda(\r\n    0,\r\n    non_blocking=True,\r\n)\r\n"),
    ("x = batch['img'].cuda(async=True)\n", "x = batch['img'].cuda(non_blocking=True)\n"),
    ("x = f(a)[0].cuda(async=True)\n", "x = f(a)[0].cuda(non_blocking=True)\n"),
    ("s = 'é'; x = y.cuda(async=True)\n", "s = 'é'; x = y.cuda(non_blocking=True)\n"),
    # a function of the file that hands its **kwargs on to `.cuda()`: the argument ends up there
    (
        "def T(a):\n    return to_gpu(a, async=True)\n\ndef to_gpu(x, *args, **kwargs):\n    return x.cuda(*args, **kwargs) if GPU else x\n",
        "def T(a):\n    return to_gpu(a, non_blocking=True)\n\ndef to_gpu(x, *args, **kwargs):\n    return x.cuda(*args, **kwargs) if GPU else x\n",
    ),
]

UNCHANGED = [
    "x = 'y.cuda(async=True)'\n",  # in a string
    "# x = y.cuda(async=True)\n",  # in a comment
    "async def f():\n    await g()\n",  # the keyword
    "def cuda(self, device=None, async=False):\n    pass\n",  # a parameter, not an argument
    "x = pool.apply(f, async=True)\n",  # not a method that took `async=`
    "x = cuda(async=True)\n",  # a function, not the tensor method
    "x = y.cuda(z(async=True))\n",  # inside another call's parentheses
    "x = y.cuda(flags[async])\n",
    "x = y.cuda(async)\n",  # positional
    "x = y.cuda(async == True)\n",
    "x = args.async\n",
    # functions of the file that do not hand **kwargs on to a method that took `async=`
    "def to_gpu(x, **kwargs):\n    return x.cuda()\n\ny = to_gpu(a, async=True)\n",
    "def to_gpu(x, **kwargs):\n    return pool.apply(x, **kwargs)\n\ny = to_gpu(a, async=True)\n",
    "def to_gpu(x, **kwargs):\n    return x.cuda(**kwargs)\n\ndef to_gpu(x):\n    return x\n\ny = to_gpu(a, async=True)\n",
    "class M:\n    def to_gpu(self, x, **kwargs):\n        return x.cuda(**kwargs)\n\ny = m.to_gpu(a, async=True)\n",
]


@pytest.mark.parametrize("before,after", RENAMED)
def test_async_keyword_argument_is_renamed_and_nothing_else(before, after):
    new, found = rename_async_arguments(before)
    assert new == after
    assert found
    parse(new)


@pytest.mark.parametrize("source", UNCHANGED)
def test_other_async_is_left_alone(source):
    assert rename_async_arguments(source) == (source, [])


def test_positions_are_reported():
    _, found = rename_async_arguments("a = 1\nx = y.cuda(\n    async=True)\n")
    assert [(a.line, a.column, a.method) for a in found] == [(3, 4, "cuda")]


def test_what_precedes_a_tokenize_error_is_still_renamed():
    source = 'x = y.cuda(async=True)\ns = """never closed\n'
    new, found = rename_async_arguments(source)
    assert new == source.replace("async=", "non_blocking=") and len(found) == 1


def _reason(source: str) -> str:
    try:
        parse(source)
    except SourceSyntaxError as err:
        return describe_syntax_error(source, err.line, err.column, err.message)
    raise AssertionError("parsed")


@pytest.mark.parametrize(
    "source,start",
    [
        ("print 'loss', l\n", "Python 2 syntax (`print` statement) on line 1: Missing parentheses in call to 'print'"),
        ("exec 'x = 1'\n", "Python 2 syntax (`exec` statement) on line 1: Missing parentheses in call to 'exec'"),
        ("x = 0777\n", "Python 2 syntax (octal literal without `0o`) on line 1: leading zeros"),
        ("if a <> b:\n    pass\n", "Python 2 syntax (`<>` operator) on line 1"),
        ("raise ValueError, 'bad'\n", "Python 2 syntax (`raise E, message`) on line 1"),
        ("x = `y`\n", "Python 2 syntax (backquote repr) on line 1"),
        (
            "class A:\n\tdef f(self):\n\t\tpass\n        x = 1\n",
            "Python 2 syntax (tabs and spaces mixed in indentation) on line 4",
        ),
        ("x = args.async\n", "`async` is a keyword since Python 3.7 and cannot be a name or argument here (line 1)"),
        ("x = pool.apply(f, async=True)\n", "`async` is a keyword since Python 3.7"),
        ("x = (1,\n", "syntax error on line 1: "),
    ],
)
def test_syntax_errors_are_described(source, start):
    assert _reason(source).startswith(start)
