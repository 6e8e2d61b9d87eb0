"""``gradlint server``: driven over stdio with LSP JSON-RPC messages, as an editor does."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

import libcst as cst
import pytest

pytest.importorskip("pygls")

from lsprotocol import types  # noqa: E402
from pygls.workspace.position_codec import PositionCodec  # noqa: E402

from gradlint import engine, prefilter  # noqa: E402
from gradlint.rule import Rule  # noqa: E402
from gradlint.server import FIX_ALL, code_actions  # noqa: E402
from samples import LIFTED  # noqa: E402

SOURCE = (
    "import torch\n"
    "from torch.autograd import Variable\n"
    "\n"
    "\n"
    "def evaluate(model, x):\n"
    "    # résumé: évaluation\n"
    "    return model(Variable(x, volatile=True)).argmax(1)\n"
)
FIXED = (
    "import torch\n"
    "\n"
    "\n"
    "@torch.no_grad()\n"
    "def evaluate(model, x):\n"
    "    # résumé: évaluation\n"
    "    return model(x.detach()).argmax(1)\n"
)
URL = "https://gradlint.readthedocs.io/en/latest/rules/GL001/"
MESSAGE = (
    "`volatile=True` has been ignored since PyTorch 0.4: this call still records an autograd graph; "
    "use `torch.no_grad()`"
)
TIMEOUT = 30


class Client:
    """A minimal LSP client: Content-Length framed JSON-RPC over the server's stdio."""

    def __init__(self, cwd: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "gradlint", "server"],
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        self.messages: "queue.Queue[Dict[str, Any]]" = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            headers: Dict[str, str] = {}
            while True:
                line = out.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii").partition(":")
                headers[name.strip().lower()] = value.strip()
            body = out.read(int(headers["content-length"]))
            self.messages.put(json.loads(body.decode("utf-8")))

    def send(self, message: Dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def notify(self, method: str, params: Any) -> None:
        self.send({"method": method, "params": params})

    def request(self, method: str, params: Any) -> Any:
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        reply = self.wait(lambda m: m.get("id") == self.next_id and "method" not in m)
        assert "error" not in reply, reply
        return reply["result"]

    def wait(self, match) -> Dict[str, Any]:
        while True:
            try:
                message = self.messages.get(timeout=TIMEOUT)
            except queue.Empty:
                self.proc.kill()
                raise AssertionError(f"no reply from the server; stderr: {self.proc.stderr.read().decode()[-2000:]}")
            if match(message):
                return message

    def diagnostics(self, uri: str) -> Dict[str, Any]:
        return self.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri)[
            "params"
        ]


def apply(text: str, edits: List[Dict[str, Any]]) -> str:
    """Apply LSP text edits (UTF-16 positions) to ``text``."""
    lines = text.splitlines(keepends=True)

    def offset(pos: Dict[str, int]) -> int:
        before = sum(len(line) for line in lines[: pos["line"]])
        line = lines[pos["line"]] if pos["line"] < len(lines) else ""
        units, i = 0, 0
        while units < pos["character"]:
            units += 2 if ord(line[i]) > 0xFFFF else 1
            i += 1
        return before + i

    for edit in sorted(edits, key=lambda e: (e["range"]["start"]["line"], e["range"]["start"]["character"]), reverse=True):
        start, end = offset(edit["range"]["start"]), offset(edit["range"]["end"])
        text = text[:start] + edit["newText"] + text[end:]
    return text


@pytest.mark.slow
def test_diagnostics_quick_fix_and_clean_text_over_stdio(tmp_path):
    # the configuration for the document's path applies: GL003 is off
    (tmp_path / "pyproject.toml").write_text("[tool.gradlint]\nignore = ['GL003']\n")
    path = tmp_path / "evaluate.py"
    path.write_text(SOURCE, encoding="utf-8")
    uri = path.as_uri()
    client = Client(tmp_path)
    try:
        init = client.request("initialize", {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}})
        caps = init["capabilities"]
        assert caps["codeActionProvider"]["codeActionKinds"] == ["quickfix", FIX_ALL]
        assert init["serverInfo"]["name"] == "gradlint"
        client.notify("initialized", {})

        client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": SOURCE}})
        published = client.diagnostics(uri)
        assert published["diagnostics"] == [
            {
                "range": {"start": {"line": 6, "character": 17}, "end": {"line": 6, "character": 43}},
                "severity": 2,
                "code": "GL001",
                "codeDescription": {"href": URL},
                "source": "gradlint",
                "message": MESSAGE,
            }
        ]

        diagnostic = published["diagnostics"][0]
        actions = client.request(
            "textDocument/codeAction",
            {"textDocument": {"uri": uri}, "range": diagnostic["range"], "context": {"diagnostics": [diagnostic]}},
        )
        quick = [a for a in actions if a["kind"] == "quickfix"]
        assert [a["title"] for a in quick] == [
            "GL001: Remove the `Variable` wrapper and decorate `evaluate` with `@torch.no_grad()`",
            "Disable GL001 for this line",
        ]
        assert quick[0]["isPreferred"] is True
        assert quick[0]["diagnostics"] == [diagnostic]
        assert apply(SOURCE, quick[0]["edit"]["changes"][uri]) == FIXED
        assert "isPreferred" not in quick[1] and quick[1]["diagnostics"] == [diagnostic]
        silenced = SOURCE.replace(".argmax(1)\n", ".argmax(1)  # noqa: GL001\n")
        assert apply(SOURCE, quick[1]["edit"]["changes"][uri]) == silenced
        # a client that neither resolves nor applies edits: the edit comes with the list
        (fix_all,) = [a for a in actions if a["kind"] == FIX_ALL]
        assert fix_all == {"title": "gradlint: fix all safe fixes", "kind": FIX_ALL, "edit": {"changes": {uri: _eager_fix_all(path, SOURCE)}}}
        assert apply(SOURCE, fix_all["edit"]["changes"][uri]) == FIXED

        # the editor applies the fix: a full-text change, then no diagnostics
        client.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": FIXED}]},
        )
        assert client.diagnostics(uri) == {"uri": uri, "version": 2, "diagnostics": []}

        # an incremental change brings a finding back, after a character that is two
        # UTF-16 code units (LSP's default position encoding); GL003 is ignored
        client.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": uri, "version": 3},
                "contentChanges": [
                    {
                        "range": {"start": {"line": 6, "character": 4}, "end": {"line": 6, "character": 4}},
                        "text": 's = "😋"; print(x.volatile, loss.sum().data[0])\n    ',
                    }
                ],
            },
        )
        (again,) = client.diagnostics(uri)["diagnostics"]
        assert (again["code"], again["range"]) == (
            "GL004",
            {"start": {"line": 6, "character": 20}, "end": {"line": 6, "character": 30}},
        )

        assert client.request("shutdown", None) is None
        client.notify("exit", None)
        assert client.proc.wait(timeout=TIMEOUT) == 0
    finally:
        if client.proc.poll() is None:
            client.proc.kill()


class _UnsafeRule(Rule):
    """A test rule with an unsafe fix: `model.eval()` -> `model.train(False)`."""

    triggers = ("eval",)

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == "eval":
            new = node.with_changes(func=node.func.with_changes(attr=cst.Name("train")), args=[cst.Arg(cst.Name("False"))])
            self.report(node, fix=self.fix(self.replace(node, new), title="Use train(False)", applicability="unsafe"), receiver="m", read="m.data[0]")


def test_unsafe_fixes_are_labelled_and_not_preferred(tmp_path, monkeypatch):
    _UnsafeRule.code = "GL003"  # set after class creation: not registered as a real rule
    monkeypatch.setattr(engine, "rule_classes", lambda codes: {"GL003": _UnsafeRule} if "GL003" in codes else {})
    # the engine imports the rules its table (gradlint/triggers.py) names: this one is not in it
    monkeypatch.setattr(prefilter, "firing", lambda source, codes, index=None: sorted(codes))
    # The comment holds GL003's trigger, which the engine's table of triggers asks before
    # any rule is imported (no default rule triggers on `eval` alone).
    text = "model.eval()  # .data[0]\n"
    everything = types.Range(types.Position(0, 0), types.Position(1, 0))
    uri = (tmp_path / "m.py").as_uri()
    # the quick fix and the noqa action; unsafe fixes are not in "fix all", which is then empty
    action, noqa = code_actions(uri, text, tmp_path / "m.py", everything, PositionCodec())
    assert noqa.title == "Disable GL003 for this line"
    assert action.title == "GL003: Use train(False) (unsafe: may change behaviour)"
    assert action.is_preferred is False
    assert action.edit.changes[uri] == [
        types.TextEdit(range=types.Range(types.Position(0, 6), types.Position(0, 11)), new_text="train(False")
    ]
    # a range that misses the finding gets nothing
    elsewhere = types.Range(types.Position(3, 0), types.Position(3, 0))
    assert code_actions(uri, text + "\n\nx = 1\n", tmp_path / "m.py", elsewhere, PositionCodec()) == []


def test_check_does_not_import_pygls(tmp_path):
    (tmp_path / "nb.py").write_text(SOURCE)
    code = (
        "import sys\nfrom click.testing import CliRunner\nfrom gradlint.cli import main\n"
        "CliRunner().invoke(main, ['check', sys.argv[1]])\n"
        "sys.exit(1 if 'pygls' in sys.modules or 'lsprotocol' in sys.modules else 0)"
    )
    assert subprocess.run([sys.executable, "-c", code, str(tmp_path / "nb.py")]).returncode == 0


def test_server_without_pygls_is_a_clear_error(tmp_path):
    # pygls made unimportable: the command says what to install, exit 2
    code = (
        "import sys\nsys.modules['pygls'] = None\nsys.modules['lsprotocol'] = None\n"
        "from gradlint.cli import main\nmain(['server'])"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 2
    assert result.stderr.startswith("error: `gradlint server` needs pygls (")
    assert result.stderr.rstrip().endswith("install it with: pip install 'pygls>=2,<3' (in a clone of gradlint: pip install '.[lsp]')")


def test_documents_are_checked_with_the_configuration_for_their_path(tmp_path):
    from gradlint.server import check_text

    (tmp_path / "pyproject.toml").write_text("[tool.gradlint]\nper-file-ignores = { 'legacy/*' = ['GL001'] }\n")
    text = SOURCE + "\n\nprint(loss.sum().data[0])\n"
    codes = lambda rel: [d.code for d in check_text(text, tmp_path / rel).diagnostics]  # noqa: E731
    assert codes("evaluate.py") == ["GL001", "GL003"]
    assert codes("legacy/evaluate.py") == ["GL003"]
    assert codes("build/evaluate.py") == []  # excluded by default, as in `gradlint check`
    (tmp_path / "pyproject.toml").write_text("[tool.gradlint]\nselect = ['GL8']\n")
    broken = check_text(text, tmp_path / "evaluate.py")
    assert broken.diagnostics == [] and broken.error == f"{tmp_path / 'pyproject.toml'}: unknown rule code or prefix 'GL8'"


def _open(client: Client, tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    uri = path.as_uri()
    client.request("initialize", {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}})
    client.notify("initialized", {})
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}})
    return uri


def _change(uri: str, version: int, line: int, text: str, character: int = 0) -> Dict[str, Any]:
    position = {"line": line, "character": character}
    params = {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"range": {"start": position, "end": position}, "text": text}]}
    return {"method": "textDocument/didChange", "params": params}


def _insert(client: Client, uri: str, version: int, line: int, text: str, character: int = 0) -> None:
    client.send(_change(uri, version, line, text, character))


def _no_more_diagnostics(client: Client, uri: str, seconds: float) -> None:
    try:
        while True:
            message = client.messages.get(timeout=seconds)
            assert not (message.get("method") == "textDocument/publishDiagnostics" and message["params"]["uri"] == uri), message
    except queue.Empty:
        pass


@pytest.mark.slow
def test_keystrokes_are_checked_once_after_a_pause_and_a_half_typed_line_keeps_the_diagnostics(tmp_path):
    client = Client(tmp_path)
    try:
        uri = _open(client, tmp_path, "evaluate.py", SOURCE)
        assert [d["code"] for d in client.diagnostics(uri)["diagnostics"]] == ["GL001"]
        # six keystrokes in a row (one write: a loaded machine cannot space them out
        # by more than the pause): one check, of the last version
        burst = b""
        for column, ch in enumerate("x = 1\n"):
            body = json.dumps({"jsonrpc": "2.0", **_change(uri, column + 2, 2, ch, column)}).encode("utf-8")
            burst += b"Content-Length: %d\r\n\r\n" % len(body) + body
        client.proc.stdin.write(burst)
        client.proc.stdin.flush()
        published = client.diagnostics(uri)
        assert published["version"] == 7
        assert [(d["code"], d["range"]["start"]["line"]) for d in published["diagnostics"]] == [("GL001", 7)]
        _no_more_diagnostics(client, uri, 0.5)

        # a line half typed: the file does not parse; the diagnostics stay as they were ...
        _insert(client, uri, 8, 3, "y = (\n")
        started = time.monotonic()
        kept = client.diagnostics(uri)
        assert kept["version"] == 8
        assert [(d["code"], d["range"]["start"]["line"]) for d in kept["diagnostics"]] == [("GL001", 7)]
        # ... until it still does not parse a moment later: then GL000 says why
        broken = client.diagnostics(uri)
        assert time.monotonic() - started >= 0.9
        assert broken["version"] == 8
        assert [(d["code"], d["range"]["start"]["line"]) for d in broken["diagnostics"]] == [("GL000", 3)]

        # finished typing before the pause is over: no GL000 in between
        _insert(client, uri, 9, 4, "0)\n")
        fixed = client.diagnostics(uri)
        assert (fixed["version"], [d["code"] for d in fixed["diagnostics"]]) == (9, ["GL001"])
        _insert(client, uri, 10, 3, "z = [\n")
        assert [d["code"] for d in client.diagnostics(uri)["diagnostics"]] == ["GL001"]
        _insert(client, uri, 11, 4, "]\n")
        assert [d["code"] for d in client.diagnostics(uri)["diagnostics"]] == ["GL001"]
        _no_more_diagnostics(client, uri, 1.5)
    finally:
        client.proc.kill()


class _FakeDocument:
    def __init__(self, uri: str, text: str, version: int) -> None:
        self.uri, self.source, self.version = uri, text, version
        self.language_id = "python"
        self.position_codec = PositionCodec()


class _FakeServer:
    """What gradlint.server.Documents uses of pygls's LanguageServer."""

    def __init__(self) -> None:
        self.workspace = self
        self.text_documents: Dict[str, _FakeDocument] = {}
        self.root_path = None
        self.published: List[Any] = []

    def get_text_document(self, uri: str) -> _FakeDocument:
        return self.text_documents[uri]

    def text_document_publish_diagnostics(self, params: Any) -> None:
        self.published.append(params)

    def window_show_message(self, params: Any) -> None:
        raise AssertionError(params)


def test_code_actions_are_answered_from_the_check_of_the_version(tmp_path, monkeypatch):
    from gradlint import server as server_mod

    checks: List[str] = []
    fixes: List[str] = []

    def check(text: str, path: Path):
        checks.append(text)
        return server_mod.check_text(text, path)

    real_fix = server_mod.fix_document
    monkeypatch.setattr(server_mod, "fix_document", lambda *a, **k: fixes.append(a[1]) or real_fix(*a, **k))
    fake = _FakeServer()
    uri = (tmp_path / "evaluate.py").as_uri()
    fake.text_documents[uri] = _FakeDocument(uri, SOURCE, 1)
    documents = server_mod.Documents(fake, check)  # type: ignore[arg-type]
    documents.publish(uri)
    assert [d.code for d in fake.published[-1].diagnostics] == ["GL001"]
    line = types.Range(types.Position(6, 0), types.Position(6, 0))
    for _ in range(5):  # the cursor moves along the line
        version = documents.current(uri)
        assert version is not None
        titles = [a.title for a in version.actions(uri, line)]
    assert titles[-1] == "gradlint: fix all safe fixes"
    assert (len(checks), len(fixes)) == (1, 1)
    # a new version is checked again, once
    fake.text_documents[uri] = _FakeDocument(uri, SOURCE + "\n", 2)
    documents.current(uri)
    documents.current(uri)
    assert len(checks) == 2


def _noqa_actions(tmp_path: Path, text: str, line: int) -> List[types.CodeAction]:
    uri = (tmp_path / "m.py").as_uri()
    wanted = types.Range(types.Position(line, 0), types.Position(line + 1, 0))
    return [a for a in code_actions(uri, text, tmp_path / "m.py", wanted, PositionCodec()) if a.title.startswith("Disable")]


def test_noqa_action_adds_a_comment_or_merges_with_the_one_there(tmp_path):
    head = "import torch\n\n\ndef f(loss, x):\n"
    # a line with a comment already: the noqa goes after it
    text = head + "    print(loss.sum().data[0], x.volatile)  # why\n"
    first, second = _noqa_actions(tmp_path, text, 4)
    assert (first.title, second.title) == ("Disable GL003 for this line", "Disable GL004 for this line")
    uri = (tmp_path / "m.py").as_uri()
    (edit,) = first.edit.changes[uri]
    assert edit == types.TextEdit(range=types.Range(types.Position(4, 48), types.Position(4, 48)), new_text="  # noqa: GL003")
    # a noqa comment for another code: the code is added to it
    text = head + "    print(loss.sum().data[0], x.volatile)  # noqa:GL004\n"
    (action,) = _noqa_actions(tmp_path, text, 4)
    (edit,) = action.edit.changes[uri]
    assert edit == types.TextEdit(range=types.Range(types.Position(4, 43), types.Position(4, 55)), new_text="# noqa: GL004, GL003")
    # the engine agrees: nothing left on that line
    fixed = text.replace("# noqa:GL004", "# noqa: GL004, GL003")
    assert _noqa_actions(tmp_path, fixed, 4) == []


def test_noqa_action_goes_to_the_end_of_the_logical_line_where_the_line_cannot_take_it(tmp_path):
    # the finding's line ends inside a string: a comment there would be part of
    # it; the directive after the string's end covers the whole statement
    text = 'import torch\n\n\ndef f(loss):\n    return loss.sum().data[0], """\n    text\n    """\n'
    (action,) = _noqa_actions(tmp_path, text, 4)
    (edit,) = action.edit.changes[(tmp_path / "m.py").as_uri()]
    assert edit == types.TextEdit(range=types.Range(types.Position(6, 7), types.Position(6, 7)), new_text="  # noqa: GL003")
    assert _noqa_actions(tmp_path, text.replace('    """\n', '    """  # noqa: GL003\n'), 4) == []
    # a backslash continuation: the same
    text = "import torch\n\n\ndef f(loss):\n    return loss.sum().data[0] + \\\n        1\n"
    (action,) = _noqa_actions(tmp_path, text, 4)
    (edit,) = action.edit.changes[(tmp_path / "m.py").as_uri()]
    assert edit == types.TextEdit(range=types.Range(types.Position(5, 9), types.Position(5, 9)), new_text="  # noqa: GL003")


@pytest.mark.slow
def test_fix_all_is_computed_when_chosen_by_a_client_that_resolves_code_actions(tmp_path):
    path = tmp_path / "evaluate.py"
    path.write_text(SOURCE, encoding="utf-8")
    uri = path.as_uri()
    client = Client(tmp_path)
    try:
        # a client that also applies edits: resolving comes first, the action carries no command
        capabilities = {"workspace": {"applyEdit": True}, "textDocument": {"codeAction": {"resolveSupport": {"properties": ["edit"]}}}}
        init = client.request("initialize", {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": capabilities})
        assert init["capabilities"]["codeActionProvider"]["resolveProvider"] is True
        client.notify("initialized", {})
        client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": SOURCE}})
        (diagnostic,) = client.diagnostics(uri)["diagnostics"]
        actions = client.request(
            "textDocument/codeAction",
            {"textDocument": {"uri": uri}, "range": diagnostic["range"], "context": {"diagnostics": [diagnostic]}},
        )
        (fix_all,) = [a for a in actions if a["kind"] == FIX_ALL]
        assert fix_all == {"title": "gradlint: fix all safe fixes", "kind": FIX_ALL, "data": {"uri": uri}}
        resolved = client.request("codeAction/resolve", fix_all)
        assert apply(SOURCE, resolved["edit"]["changes"][uri]) == FIXED
    finally:
        client.proc.kill()


# A later version of SOURCE: GL003 added, its fix in "fix all" too.
SOURCE_2 = SOURCE + "\n\ndef total(loss):\n    return loss.sum().data[0]\n"
FIXED_2 = FIXED + "\n\ndef total(loss):\n    return loss.sum().item()\n"
FIX_ALL_COMMAND = "gradlint.applyAutofix"


def _eager_fix_all(path: Path, text: str) -> List[Dict[str, Any]]:
    """The fix-all edit a client that neither resolves nor applies edits gets, as JSON."""
    from lsprotocol.converters import get_converter

    nowhere = types.Range(types.Position(0, 0), types.Position(0, 0))
    (action,) = code_actions(path.as_uri(), text, path, nowhere, PositionCodec(), [FIX_ALL])
    assert action.command is None
    return get_converter().unstructure(action.edit.changes[path.as_uri()])


def _execute(client: Client, arguments: List[Any]) -> Dict[str, Any]:
    """Run the fix-all command; the server's workspace/applyEdit request, answered."""
    client.next_id += 1
    asked = client.next_id
    client.send({"id": asked, "method": "workspace/executeCommand", "params": {"command": FIX_ALL_COMMAND, "arguments": arguments}})
    request = client.wait(lambda m: m.get("method") == "workspace/applyEdit")
    client.send({"id": request["id"], "result": {"applied": True}})
    reply = client.wait(lambda m: m.get("id") == asked and "method" not in m)
    assert reply == {"jsonrpc": "2.0", "id": asked, "result": None}
    return request["params"]


@pytest.mark.slow
def test_fix_all_reaches_a_client_without_resolve_by_a_command_and_apply_edit(tmp_path):
    """A client that cannot resolve code actions but applies edits gets "fix all" as a
    command: the list costs no fix all, and the command sends the edit "fix all" gives,
    of the document as it is when the command runs."""
    path = tmp_path / "evaluate.py"
    path.write_text(SOURCE, encoding="utf-8")
    uri = path.as_uri()
    client = Client(tmp_path)
    try:
        capabilities = {"workspace": {"applyEdit": True}, "textDocument": {"codeAction": {}}}
        init = client.request("initialize", {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": capabilities})
        assert init["capabilities"]["executeCommandProvider"] == {"commands": [FIX_ALL_COMMAND]}
        client.notify("initialized", {})
        client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": SOURCE}})
        (diagnostic,) = client.diagnostics(uri)["diagnostics"]
        actions = client.request(
            "textDocument/codeAction",
            {"textDocument": {"uri": uri}, "range": diagnostic["range"], "context": {"diagnostics": [diagnostic]}},
        )
        assert [(a["kind"], a["title"], "edit" in a) for a in actions] == [
            ("quickfix", "GL001: Remove the `Variable` wrapper and decorate `evaluate` with `@torch.no_grad()`", True),
            ("quickfix", "Disable GL001 for this line", True),
            (FIX_ALL, "gradlint: fix all safe fixes", False),
        ]
        assert [a.get("command") for a in actions] == [
            None,
            None,
            {"title": "gradlint: fix all safe fixes", "command": FIX_ALL_COMMAND, "arguments": [{"uri": uri, "version": 1}]},
        ]
        assert apply(SOURCE, actions[0]["edit"]["changes"][uri]) == FIXED

        sent = _execute(client, actions[-1]["command"]["arguments"])
        assert sent == {"edit": {"changes": {uri: _eager_fix_all(path, SOURCE)}}, "label": "gradlint: fix all safe fixes"}
        assert apply(SOURCE, sent["edit"]["changes"][uri]) == FIXED

        # the document changed after the list was made: the command, still naming
        # version 1, fixes the text the client holds now (version 2)
        client.notify(
            "textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": SOURCE_2}]}
        )
        sent = _execute(client, actions[-1]["command"]["arguments"])
        assert sent["edit"]["changes"][uri] == _eager_fix_all(path, SOURCE_2)
        assert apply(SOURCE_2, sent["edit"]["changes"][uri]) == FIXED_2
    finally:
        client.proc.kill()


def test_fix_all_command_names_the_version_it_fixed_for_a_client_that_takes_document_changes(tmp_path):
    from gradlint import server as server_mod

    fake = _FakeServer()
    uri = (tmp_path / "evaluate.py").as_uri()
    fake.text_documents[uri] = _FakeDocument(uri, SOURCE, 1)
    documents = server_mod.Documents(fake)  # type: ignore[arg-type]
    documents.publish(uri)
    line = types.Range(types.Position(6, 0), types.Position(6, 0))
    command = documents.fix_all_command(uri)
    assert command == types.Command(title="gradlint: fix all safe fixes", command=FIX_ALL_COMMAND, arguments=[{"uri": uri, "version": 1}])
    version = documents.current(uri)
    (fix_all,) = version.actions(uri, line, [FIX_ALL], command=command)
    assert (fix_all.kind, fix_all.title, fix_all.edit, fix_all.command) == (FIX_ALL, "gradlint: fix all safe fixes", None, command)
    assert version._fix_all is None  # the list did not compute it
    # a newer version by the time the command runs: its edit, naming version 2
    fake.text_documents[uri] = _FakeDocument(uri, SOURCE_2, 2)
    sent = documents.fix_all_edit(uri, versioned=True)
    assert sent is not None and sent.edit.changes is None
    (change,) = sent.edit.document_changes
    assert change.text_document == types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=2)
    assert change.edits == documents.current(uri).fix_all()
    from lsprotocol.converters import get_converter

    assert get_converter().unstructure(change.edits) == _eager_fix_all(tmp_path / "evaluate.py", SOURCE_2)
    # nothing to fix, or a document not open: no edit is sent
    fake.text_documents[uri] = _FakeDocument(uri, FIXED_2, 3)
    assert documents.fix_all_edit(uri, versioned=True) is None
    assert documents.current(uri).actions(uri, line, [FIX_ALL], command=documents.fix_all_command(uri)) == []
    del fake.text_documents[uri]
    assert documents.fix_all_edit(uri) is None


def _legacy_module(functions: int) -> str:
    """A PyTorch 0.3-era module: per function, GL001 (`volatile=True`), GL002 (a plain
    `Variable`) and GL003 (`.data[0]` of a sum)."""
    out = ["import torch", "from torch.autograd import Variable", ""]
    for i in range(functions):
        out += [
            "",
            f"def evaluate_{i}(model, loader):",
            "    total = 0",
            "    for x, y in loader:",
            "        out = model(Variable(x, volatile=True))",
            "        total += (out - Variable(y)).abs().sum().data[0]",
            "    return total",
        ]
    return "\n".join(out) + "\n"


@pytest.mark.slow
def test_pygls_client_gets_the_last_version_checked_and_quick_fixes_built_on_request(tmp_path):
    """pygls's own language client, over stdio: diagnostics on opening, one check after a
    burst of incremental changes (of the last version), and a code action whose fix the
    check left unbuilt (GL001's), built when asked for and equal to what `check` offers."""
    import asyncio

    from pygls.lsp.client import LanguageClient

    from gradlint.checking import check_document
    from gradlint.config import Settings
    from gradlint.fix_renderer import FixRenderer

    text = _legacy_module(20)
    path = tmp_path / "evaluate.py"
    path.write_text(text, encoding="utf-8")
    uri = path.as_uri()

    async def session() -> None:
        client = LanguageClient("gradlint-test", "1")
        published: "asyncio.Queue[types.PublishDiagnosticsParams]" = asyncio.Queue()

        @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
            published.put_nowait(params)

        await client.start_io(sys.executable, "-m", "gradlint", "server", cwd=str(tmp_path))
        try:
            init = await client.initialize_async(
                types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri=tmp_path.as_uri())
            )
            assert init.capabilities.text_document_sync.change == types.TextDocumentSyncKind.Incremental
            client.initialized(types.InitializedParams())
            client.text_document_did_open(
                types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text))
            )
            opened = await asyncio.wait_for(published.get(), TIMEOUT)
            assert opened.version == 1
            assert [d.code for d in opened.diagnostics[:3]] == ["GL001", "GL003", "GL002"]
            assert len(opened.diagnostics) == 60

            for version, ch in enumerate("# ok\n", start=2):  # typed on line 3, one change per keystroke
                at = types.Position(line=3, character=version - 2)
                client.text_document_did_change(
                    types.DidChangeTextDocumentParams(
                        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                        content_changes=[types.TextDocumentContentChangePartial(range=types.Range(at, at), text=ch)],
                    )
                )
            typed = await asyncio.wait_for(published.get(), TIMEOUT)
            assert typed.version == 6
            assert [d.range.start.line for d in typed.diagnostics] == [d.range.start.line + 1 for d in opened.diagnostics]

            first = typed.diagnostics[0]
            actions = await client.text_document_code_action_async(
                types.CodeActionParams(
                    text_document=types.TextDocumentIdentifier(uri=uri),
                    range=first.range,
                    context=types.CodeActionContext(diagnostics=[first]),
                )
            )
            quick = [a for a in actions if a.kind == types.CodeActionKind.QuickFix]
            assert [a.title for a in quick] == [
                "GL001: Remove the `Variable` wrapper and decorate `evaluate_0` with `@torch.no_grad()`",
                "Disable GL001 for this line",
            ]
            edits = quick[0].edit.changes[uri]
            new = text.replace("\n\n\n", "\n# ok\n\n\n", 1)
            checked = check_document(path, new, Settings(cwd=tmp_path))
            fix = checked.findings[0].fix
            renderer = FixRenderer(checked.context.module, new, checked.context.parents)
            expected = [(e.row - 1, e.column - 1, e.end_row - 1, e.end_column - 1, e.content) for e in renderer.text_edits(fix)]
            got = [(e.range.start.line, e.range.start.character, e.range.end.line, e.range.end.character, e.new_text) for e in edits]
            assert got == expected
            await asyncio.wait_for(client.shutdown_async(None), TIMEOUT)
            client.exit(None)
        finally:
            server = getattr(client, "_server", None)
            if server is not None and server.returncode is None:
                try:
                    await asyncio.wait_for(server.wait(), TIMEOUT)
                except asyncio.TimeoutError:
                    server.kill()
            await client.stop()
        assert published.empty()  # nothing for versions 2 to 5

    asyncio.run(session())


def test_the_benchmark_states_the_pause_the_server_waits():
    import importlib.util

    from gradlint import server

    spec = importlib.util.spec_from_file_location("benchmark_run", Path(__file__).parent.parent / "benchmarks" / "run.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = bench  # its dataclasses look their module up
    try:
        spec.loader.exec_module(bench)
    finally:
        del sys.modules[spec.name]
    assert bench.DEBOUNCE_S == server.DEBOUNCE_S


def test_a_document_is_checked_again_when_another_changes_what_it_says(tmp_path):
    """The workspace index follows the open documents' text: `Encoder` becomes an
    `nn.Module` once the other file's `Base` is one, saved or not."""
    from gradlint import server as server_mod

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    nets, train = tmp_path / "pkg" / "nets.py", tmp_path / "pkg" / "train.py"
    nets.write_text("class Base:\n    pass\n")
    text = "from pkg.nets import Base\n\n\nclass Encoder(Base):\n    pass\n\n\nenc = Encoder()\nenc.requires_grad = False\n"
    train.write_text(text)
    fake = _FakeServer()
    documents = server_mod.Documents(fake)  # type: ignore[arg-type]
    documents.workspace.index_root(tmp_path)
    fake.text_documents[train.as_uri()] = _FakeDocument(train.as_uri(), text, 1)
    documents.publish(train.as_uri())
    assert [d.code for d in fake.published[-1].diagnostics] == []
    fake.text_documents[nets.as_uri()] = _FakeDocument(nets.as_uri(), "import torch\nclass Base(torch.nn.Module):\n    pass\n", 1)
    documents.publish(nets.as_uri())
    documents.publish(train.as_uri())
    assert [(d.code, d.range.start.line) for d in fake.published[-1].diagnostics] == [("GL302", 8)]
    # unchanged since: answered from that check
    assert documents.current(train.as_uri()) is documents.current(train.as_uri())




def _quick_fixes(tmp_path: Path, text: str) -> List[types.CodeAction]:
    everywhere = types.Range(types.Position(0, 0), types.Position(len(text.splitlines()), 0))
    actions = code_actions("file:///m.py", text, tmp_path / "m.py", everywhere, PositionCodec(), ["quickfix"])
    return [a for a in actions if not a.title.startswith("Disable")]


def test_a_quick_fix_whose_result_does_not_parse_is_not_offered(tmp_path, monkeypatch):
    from gradlint import codegen

    offered = _quick_fixes(tmp_path, LIFTED)
    assert [a.title for a in offered] == ["GL002: Remove the `Variable` wrapper"]
    edit = offered[0].edit.changes["file:///m.py"][-1]
    assert edit.new_text == "(torch.zeros(3).float()\n    .cuda()"
    monkeypatch.setattr(codegen, "breaks_lines", lambda expr: False)  # the parentheses undone
    assert _quick_fixes(tmp_path, LIFTED) == []


def test_quick_fixes_of_a_file_with_async_arguments_render_one_statement(tmp_path, monkeypatch):
    """Such a file is checked with its `async=` renamed: its quick fixes are rendered
    on their statements of that text, not by rendering and diffing the whole module."""
    from gradlint import fix_renderer

    text = "import torch\n\n\ndef log(loss, x):\n    x = x.cuda(async=True)\n    print(loss.sum().data[0])\n"

    def whole(*args, **kwargs):
        raise AssertionError("the whole module rendered")

    monkeypatch.setattr(fix_renderer, "apply_fixes", whole)
    offered = {a.title.split(":")[0]: a for a in _quick_fixes(tmp_path, text)}
    assert sorted(offered) == ["GL003", "GL005"]
    edits = offered["GL003"].edit.changes["file:///m.py"]
    assert [(e.range.start.line, e.range.start.character, e.new_text) for e in edits] == [
        (4, 15, "non_blocking"),
        (5, 21, "item()"),
    ]


@pytest.mark.parametrize("async_args", [False, True])
def test_fix_all_starts_from_the_check_of_the_version(tmp_path, monkeypatch, async_args):
    """"Fix all" lints only what its fixes wrote, not the text the version's check saw,
    and gives what `--fix` writes (a file with `async=` too: its repair comes first)."""
    from gradlint import server as server_mod
    from gradlint.checking import fix_document

    text = _legacy_module(3)
    if async_args:
        text = text.replace("    for x, y in loader:\n", "    for x, y in loader:\n        x = x.cuda(async=True)\n")
    path = tmp_path / "evaluate.py"
    checked = server_mod.check_text(text, path)
    version = server_mod.Version(text, path, PositionCodec(), checked)
    linted: List[str] = []
    real = engine.lint_source
    monkeypatch.setattr(engine, "lint_source", lambda source, *a, **k: linted.append(source) or real(source, *a, **k))
    edits = version.fix_all()
    assert linted and text not in linted
    if async_args:
        # the repaired text neither: the check ran the rules on it
        assert checked.context.source != text and checked.context.source not in linted
    monkeypatch.undo()
    as_json = [
        {
            "range": {
                "start": {"line": e.range.start.line, "character": e.range.start.character},
                "end": {"line": e.range.end.line, "character": e.range.end.character},
            },
            "newText": e.new_text,
        }
        for e in edits
    ]
    expected = fix_document(path, text, checked.settings).source
    assert expected != text
    assert apply(text, as_json) == expected


def test_what_the_server_loads_at_start_is_kept_out_of_the_collectors_scans():
    import gc

    from gradlint import server as lsp_server
    from gradlint.rules import all_rules

    def scanned(obj: Any) -> bool:
        # gc.get_objects() lists what the collector walks: not what gc.freeze() set apart.
        return any(o is obj for o in gc.get_objects())

    rules = all_rules()
    rule_class = next(iter(rules.values()))
    try:
        lsp_server.load()
        assert scanned(rule_class)
        lsp_server.settle()
        assert not scanned(rule_class)
        assert not scanned(lsp_server.load)
    finally:
        gc.unfreeze()
