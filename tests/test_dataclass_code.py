"""The methods ``dataclasses`` writes, compiled once (``gradlint.dataclass_code``)."""

from __future__ import annotations

import builtins
import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gradlint import dataclass_code

SOURCE = '''
@dataclasses.dataclass(frozen=True, order=True)
class Point:
    x: int
    y: "int" = 0
    tags: tuple = dataclasses.field(default=(), compare=False)
'''


def _make(namespace_name: str):
    """A fresh class from SOURCE, as a module that is imported makes it."""
    module = type(sys)(namespace_name)
    module.dataclasses = dataclasses
    sys.modules[namespace_name] = module
    try:
        exec(SOURCE, module.__dict__)
    finally:
        del sys.modules[namespace_name]
    return module.Point


@pytest.fixture
def prefix(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "pycache_prefix", str(tmp_path / "pycache"))
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    yield tmp_path / "pycache"
    dataclass_code.disable()


def _compiles(monkeypatch):
    calls = []
    real = builtins.compile

    def counting(source, *args, **kwargs):
        calls.append(source)
        return real(source, *args, **kwargs)

    monkeypatch.setattr(builtins, "compile", counting)
    return calls


def _methods(cls):
    return {name: getattr(cls, name).__code__ for name in ("__init__", "__repr__", "__eq__", "__lt__", "__hash__", "__setattr__")}


def test_the_second_time_nothing_is_compiled_and_the_methods_are_the_same(prefix, monkeypatch):
    plain = _make("plain_points")
    calls = _compiles(monkeypatch)

    assert dataclass_code.enable()
    assert vars(dataclasses)["exec"] is dataclass_code._exec
    first = _make("first_points")
    dataclass_code.disable()
    assert "exec" not in vars(dataclasses)
    # __init__, __repr__, __eq__, the orderings...: one text each (3.11, 3.12) or one for all (3.13)
    assert calls and all(source.startswith("def __create_fn__(") for source in calls)
    path = Path(dataclass_code.cache_path())
    assert path.parent == prefix / Path(dataclass_code.__file__).resolve().parent.relative_to("/")
    assert path.name == f"dataclass_code.{sys.implementation.cache_tag}.marshal"
    assert path.is_file()

    calls.clear()
    assert dataclass_code.enable()
    second = _make("second_points")
    dataclass_code.disable()
    assert calls == []
    assert _methods(first) == _methods(plain) == _methods(second)
    p = second(1, 2, ("a",))
    assert (repr(p), p == second(1, 2), p < second(1, 3), hash(p) == hash(second(1, 2))) == (
        "Point(x=1, y=2, tags=('a',))", True, True, True)
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.x = 3  # type: ignore[misc]


def test_a_damaged_or_foreign_file_is_as_none_and_is_written_again(prefix, monkeypatch):
    path = Path(dataclass_code.cache_path())
    path.parent.mkdir(parents=True)
    for junk in (b"", b"not marshal", dataclass_code.MAGIC_NUMBER + b"\xff\x00", b"\x00\x00\r\n" + b"x" * 40):
        path.write_bytes(junk)
        calls = _compiles(monkeypatch)
        assert dataclass_code.enable()
        point = _make("points")
        dataclass_code.disable()
        assert calls and repr(point(1)) == "Point(x=1, y=0, tags=())"
        assert path.read_bytes().startswith(dataclass_code.MAGIC_NUMBER)


def test_nothing_is_written_where_python_writes_no_bytecode(prefix, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    assert dataclass_code.enable()
    _make("points")
    dataclass_code.disable()
    assert not prefix.exists()


def test_enable_leaves_an_exec_it_did_not_put_there(prefix):
    assert dataclass_code.enable()
    assert not dataclass_code.enable()
    dataclass_code.disable()
    dataclass_code.disable()
    assert "exec" not in vars(dataclasses)


LEGACY = "import torch\nfrom torch.autograd import Variable\n\nx = Variable(torch.ones(2), volatile=True)\n"

# A fresh `gradlint check`, counting what is compiled from text: the methods of
# LibCST's and gradlint's dataclasses among them.
DRIVER = """
import builtins, dataclasses, json, sys
from gradlint.cli import main
compiled = []
real = builtins.compile
def counting(source, *args, **kwargs):
    compiled.append(source)
    return real(source, *args, **kwargs)
builtins.compile = counting
sys.argv = ['gradlint', 'check', '--no-cache', '--output-format', 'concise', 'legacy.py']
try:
    main()  # the command less the console script's exit, which skips what follows
except SystemExit as exc:
    status = exc.code
methods = sum(1 for s in compiled if isinstance(s, str) and s.startswith('def __create_fn__('))
sys.stderr.write(json.dumps([status, methods, 'exec' in vars(dataclasses)]))
"""


def test_a_check_compiles_the_methods_of_its_dataclasses_once(tmp_path):
    (tmp_path / "legacy.py").write_text(LEGACY)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRADLINT_") and k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(tmp_path / "pycache")
    runs = []
    for _ in range(2):
        proc = subprocess.run([sys.executable, "-c", DRIVER], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
        runs.append((proc.stdout, json.loads(proc.stderr.splitlines()[-1])))
    (out1, (status1, methods1, patched1)), (out2, (status2, methods2, patched2)) = runs
    expected = ("legacy.py:4:5: GL001 `volatile=True` has been ignored since PyTorch 0.4: this call still records an"
                " autograd graph; use `torch.no_grad()`\nFound 1 problem.\n")
    assert (out1, status1, out2, status2) == (expected, 1, expected, 1)
    assert methods1 > 500  # LibCST's node classes: some 200 dataclasses
    assert methods2 == 0
    assert not patched1 and not patched2  # dataclasses as it was, once the command is done
