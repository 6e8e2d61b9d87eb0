"""``gradlint server``: a Language Server (LSP over stdio) for editors.

It publishes gradlint's findings as diagnostics when a Python document is
opened, changed or saved, and offers each finding's fix as a quick fix (unsafe
fixes say so in their title and are never the preferred action), a "Disable
GLxxx for this line" action that adds (or extends) a ``# noqa`` comment, and a
``source.fixAll.gradlint`` action that applies every safe fix, as Ruff's
server does. Each document is checked with the configuration that governs its
path (the nearest ``[tool.gradlint]``, per-file ignores, excludes), read
afresh on every check so that edits to ``pyproject.toml`` take effect at once,
and with the workspace's project index (``WorkspaceIndex``: what the other
files say about it, as ``gradlint check`` sees them), kept up to date with
the open documents' text as they change.

Typing must stay responsive:

- a change is checked after a short pause (``DEBOUNCE_S``) in which no other
  change came: six keystrokes are one check, of the last version;
- each version of a document is checked once; code actions (which editors
  ask for on every cursor move) are answered from that check, and "fix all"
  is computed at most once per version, when first asked for: when chosen, by
  ``codeAction/resolve`` or by the ``gradlint.applyAutofix`` command (sent back
  with ``workspace/applyEdit``) where the client has one of them; with the list
  of code actions only for a client that has neither;
- while the buffer does not parse (a line half typed), the last diagnostics
  of a version that did parse stay; GL000 replaces them only if the buffer
  still does not parse after ``SYNTAX_PAUSE_S``.

pygls is imported here only: ``gradlint check`` never pays for it, and it is
needed only with the ``lsp`` extra (``pip install '.[lsp]'`` in a clone).
"""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import io
import os
import tokenize
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path
from pygls.workspace.position_codec import PositionCodec

from gradlint import __version__, catalog
from gradlint.catalog import PARSE_ERROR
from gradlint.checking import check_document, fix_document, lint_settings
from gradlint.config import DEFAULT_EXCLUDE, ConfigError, Settings, excludes, matches
from gradlint.engine import _CODE_SPLIT, LintSettings
from gradlint.noqa import NOQA_RE as _NOQA_RE
from gradlint.noqa import NoqaMap
from gradlint.files import is_notebook
from gradlint.fix_renderer import FixRenderer
from gradlint.fixes import Fix
from gradlint.import_changes import preload_import_changes
from gradlint.parsing import split_lines
from gradlint.text_diff import text_edits
from gradlint.results import Diagnostic, Finding, FixInfo, TextEdit, fix_of
from gradlint.runner import fix_renderer
from gradlint.runner import Mode, to_diagnostics
from gradlint.semantic import project
from gradlint.semantic.project import Project
from gradlint.session import Session, SummaryMemo, display_path, index_files

SOURCE = "gradlint"
FIX_ALL = f"{types.CodeActionKind.SourceFixAll.value}.gradlint"
FIX_ALL_TITLE = "gradlint: fix all safe fixes"
# The command a client that cannot resolve code actions runs for "fix all": its
# arguments are one object, {"uri": ..., "version": ...} (Ruff's `ruff.applyAutofix`).
APPLY_FIX_ALL = "gradlint.applyAutofix"
# A check starts this long after the last change of a document.
DEBOUNCE_S = 0.05
# A buffer that does not parse keeps its last good diagnostics this long.
SYNTAX_PAUSE_S = 1.0
# The most files of a workspace summarised when the server starts.
MAX_WORKSPACE_FILES = 2000


@dataclass
class Checked:
    """One check of a document's text: its diagnostics, or why there are none."""

    diagnostics: List[Diagnostic]
    settings: Optional[LintSettings] = None
    error: Optional[str] = None
    # The text did not parse (its one diagnostic is GL000).
    broken: bool = False
    # The findings behind ``diagnostics`` (one each, in order) and the parsed text:
    # the text edits of their fixes are computed from them when an editor asks.
    findings: List[Finding] = field(default_factory=list)
    context: Optional[Any] = None
    # The text checked (what the fixes' edits apply to).
    text: Optional[str] = None
    # Where a rule's source repair made the text parse (an `async=` argument renamed).
    repaired_by: Optional[Tuple[str, int]] = None
    # The repaired text's own lint, its fixes deferred (``engine.LintResult.repaired_lint``).
    repaired_lint: Optional[Any] = None
    _renderer: Optional[FixRenderer] = None
    _fixes: Dict[int, Optional[Fix]] = field(default_factory=dict)

    def fix(self, index: int) -> Optional[Fix]:
        """The fix of diagnostic ``index``: built when first asked for, where the check
        deferred it (a code action is asked for a few findings, not for all)."""
        if index not in self._fixes:
            try:
                self._fixes[index] = fix_of(self.findings[index])
            except Exception:  # a fix that cannot be built is not offered; the finding stays
                self._fixes[index] = None
        return self._fixes[index]

    def lint(self) -> Optional[Any]:
        """This check as the fix loop's first round (``engine.LintResult``), its deferred
        fixes built (those a code action built already are reused); None if the text
        was not parsed."""
        if self.context is None or not self.findings:
            return None
        from gradlint.engine import LintResult

        findings = [dataclasses.replace(f, fix=self.fix(i), deferred_fix=None) for i, f in enumerate(self.findings)]
        return LintResult(findings, self.context, self.repaired_by, self._repaired_lint())

    def _repaired_lint(self) -> Optional[Any]:
        """``repaired_lint`` with its fixes built: the same findings as this check's, at
        their places in the repaired text, so each fix is the one a code action built
        (the two share the deferred builder), or built now."""
        own = self.repaired_lint
        if own is None:
            return None
        from gradlint.engine import LintResult

        built = {id(f.deferred_fix): i for i, f in enumerate(self.findings) if f.deferred_fix is not None}
        findings = []
        for f in own.findings:
            if f.deferred_fix is None:
                findings.append(f)
                continue
            i = built.get(id(f.deferred_fix))
            if i is not None:
                fix = self.fix(i)
            else:
                try:
                    fix = fix_of(f)
                except Exception:  # as Checked.fix: a fix that cannot be built is not applied
                    fix = None
            findings.append(dataclasses.replace(f, fix=fix, deferred_fix=None))
        return LintResult(findings, own.context)

    def any_fix(self) -> bool:
        """Whether some diagnostic has a fix (building deferred fixes until one has)."""
        return any(self.fix_info(i) is not None for i in range(len(self.diagnostics)))

    def fix_info(self, index: int) -> Optional[FixInfo]:
        """What a quick fix of diagnostic ``index`` is called, and how safe (its edits aside)."""
        if not self.findings:  # diagnostics made elsewhere carry their fixes
            return self.diagnostics[index].fix
        fix = self.fix(index)
        if fix is None:
            return None
        renderer = self.renderer(self.text)
        if renderer is not None and not renderer.parses(fix):
            return None  # `--fix` would not apply it: not offered
        return FixInfo(fix.applicability, fix.title)

    def renderer(self, text: Optional[str]) -> Optional[FixRenderer]:
        """The renderer of this check's fixes on ``text`` (made once: it keeps what it
        learnt of the file, and each fix's rendering, for the next code action)."""
        if self.context is None or text is None:
            return None
        if self._renderer is None:
            self._renderer = fix_renderer(self.context, text)
        return self._renderer

    def fix_edits(self, index: int, text: str) -> List[TextEdit]:
        """The text edits of the fix of diagnostic ``index`` (a quick fix's edit)."""
        if not self.findings:
            found = self.diagnostics[index].fix
            return list(found.edits) if found is not None else []
        fix = self.fix(index)
        renderer = self.renderer(text)
        if fix is None or renderer is None:
            return []
        try:
            return renderer.text_edits(fix)
        except Exception:  # an unrenderable fix is offered without edits, as `check` reports it
            return []


def check_text(text: str, path: Path, index: Optional[Project] = None) -> Checked:
    """gradlint's findings on ``text``, the current content of the document at ``path``,
    with the project index ``index`` (None: the index of the files around ``path``,
    with ``text`` as its content)."""
    try:
        settings = Settings(cwd=path.parent)
        cfg = settings.config_for(path)
        if matches(excludes(cfg), path, cfg.root, ancestors=True):
            return Checked([])
        session = Session(settings, index)
        if index is None:
            session = session.indexed([path], texts={str(path): text})
        rules = lint_settings(path, session)
    except ConfigError as exc:
        return Checked([], error=str(exc))
    # Diagnostics first: fixes a rule builds on request, and every fix's text edits,
    # wait until a code action asks for them.
    result = check_document(path, text, dataclasses.replace(rules, defer_fixes=True))
    broken = result.context is None and any(f.code == PARSE_ERROR for f in result.findings)
    # No context: whether each fix is offered (it parses) is asked when a code action
    # wants it (Checked.fix_info), not on every keystroke.
    diagnostics = to_diagnostics(result.findings, text, None, Mode())
    return Checked(
        diagnostics, rules, broken=broken, findings=list(result.findings), context=result.context, text=text,
        repaired_by=result.repaired_by, repaired_lint=result.repaired_lint,
    )


def _range(lines: Sequence[str], codec: PositionCodec, row: int, column: int, end_row: int, end_column: int) -> types.Range:
    # gradlint counts 1-based rows and code points; LSP 0-based lines and the client's units.
    rng = types.Range(types.Position(row - 1, column - 1), types.Position(end_row - 1, end_column - 1))
    return codec.range_to_client_units(lines, rng)


def lsp_diagnostic(d: Diagnostic, lines: Sequence[str], codec: PositionCodec) -> types.Diagnostic:
    return types.Diagnostic(
        range=_range(lines, codec, d.row, d.column, d.end_row, d.end_column),
        message=d.message,
        severity=types.DiagnosticSeverity.Warning,
        code=d.code,
        code_description=types.CodeDescription(href=d.url) if d.url else None,
        source=SOURCE,
    )


@dataclass
class Version:
    """One version of a document, checked once; what code actions are built from."""

    text: str
    path: Path
    codec: PositionCodec
    checked: Checked
    lines: List[str] = field(default_factory=list)
    lsp: List[types.Diagnostic] = field(default_factory=list)
    _fix_all: Optional[List[types.TextEdit]] = None
    _comments: Optional[Tuple[Dict[int, Tuple[int, str]], set]] = None
    _noqa_map: Optional[NoqaMap] = None
    # The project index the version was checked with: a check with an older one is stale.
    index: Optional[Project] = None

    def __post_init__(self) -> None:
        self.lines = split_lines(self.text)
        self.lsp = [lsp_diagnostic(d, self.lines, self.codec) for d in self.checked.diagnostics]

    def fix_all(self) -> List[types.TextEdit]:
        """The edits of every safe fix, computed when first asked for, from the check
        of this version (its first round is not linted again)."""
        if self._fix_all is None:
            self._fix_all = []
            if self.checked.settings is not None and self.checked.any_fix():
                first = self.checked.lint() if self.checked.text == self.text else None
                fixed = fix_document(self.path, self.text, self.checked.settings, first=first).source
                if fixed != self.text:
                    self._fix_all = [self._edit(e.row, e.column, e.end_row, e.end_column, e.content) for e in text_edits(self.text, fixed)]
        return self._fix_all

    def _edit(self, row: int, column: int, end_row: int, end_column: int, content: str) -> types.TextEdit:
        return types.TextEdit(range=_range(self.lines, self.codec, row, column, end_row, end_column), new_text=content)

    def noqa_edit(self, row: int, code: str) -> Optional[types.TextEdit]:
        """The edit that silences ``code`` on ``row``: a new ``# noqa: CODE`` comment, or
        ``CODE`` added to the line's noqa comment; None where no comment can go (the
        line ends inside a string) or all codes are already silenced there."""
        comments, in_string = self._tokens()
        if row in in_string or row > len(self.lines) or self._ends_with_continuation(row):
            # A comment cannot go here: the directive at the end of the logical
            # line covers every line of it.
            if self._noqa_map is None:
                self._noqa_map = NoqaMap(self.text)
            target = self._noqa_map.placement(row)
            if target is None or target == row or target > len(self.lines):
                return None
            row = target
        line = self.lines[row - 1].rstrip("\r\n")
        found = comments.get(row)
        if found is not None:
            column, comment = found
            m = _NOQA_RE.search(comment)
            if m is not None:
                if m.group("codes") is None:
                    return None  # a bare `# noqa` silences every code already
                codes = [c for c in _CODE_SPLIT.split(m.group("codes").strip()) if c]
                if code in (c.upper() for c in codes):
                    return None
                start, end = column + m.start(), column + m.end()
                return self._edit(row, start + 1, row, end + 1, f"# noqa: {', '.join([*codes, code])}")
        end = len(line.rstrip())
        return self._edit(row, end + 1, row, len(line) + 1, f"  # noqa: {code}")

    def _ends_with_continuation(self, row: int) -> bool:
        line = self.lines[row - 1].rstrip("\r\n").rstrip()
        return line.endswith("\\") and row not in self._tokens()[0]

    def _tokens(self) -> Tuple[Dict[int, Tuple[int, str]], set]:
        """(row -> (column, text) of its comment, rows that end inside a string)."""
        if self._comments is None:
            comments: Dict[int, Tuple[int, str]] = {}
            in_string: set = set()
            try:
                for tok in tokenize.generate_tokens(io.StringIO(self.text, newline=None).readline):
                    if tok.type == tokenize.COMMENT:
                        comments[tok.start[0]] = (tok.start[1], tok.string)
                    elif tok.type == tokenize.STRING and tok.end[0] > tok.start[0]:
                        in_string.update(range(tok.start[0], tok.end[0]))
            except (tokenize.TokenError, IndentationError, SyntaxError):
                in_string = set(range(1, len(self.lines) + 1))  # not tokenizable: no safe place
            self._comments = (comments, in_string)
        return self._comments

    def actions(
        self,
        uri: str,
        wanted: types.Range,
        only: Optional[Sequence[str]] = None,
        resolve: bool = False,
        command: Optional[types.Command] = None,
    ) -> List[types.CodeAction]:
        """A quick fix for each fixable finding whose range meets ``wanted``, a noqa action
        for each finding there, and a fix-all action. Its edit costs a fix all (0.2 s on
        500 lines), too much for a cursor move, so it comes with the list only where the
        client can be given it no other way: ``resolve``, the action comes without it
        and ``codeAction/resolve`` computes it when chosen; ``command``, the action
        carries that command, whose ``workspace/executeCommand`` computes the edit and
        sends it with ``workspace/applyEdit``."""
        actions: List[types.CodeAction] = []
        quick = only is None or any(types.CodeActionKind.QuickFix.value.startswith(k) for k in only)
        noqa: List[types.CodeAction] = []
        for index, (d, diag) in enumerate(zip(self.checked.diagnostics, self.lsp)):
            if not quick or not _meets(diag.range, wanted):
                continue
            info = self.checked.fix_info(index)
            if info is not None:
                unsafe = info.applicability != "safe"
                fix_edits = self.checked.fix_edits(index, self.text)
                edits = [self._edit(e.row, e.column, e.end_row, e.end_column, e.content) for e in fix_edits]
                actions.append(
                    types.CodeAction(
                        title=f"{d.code}: {info.message}" + (" (unsafe: may change behaviour)" if unsafe else ""),
                        kind=types.CodeActionKind.QuickFix,
                        diagnostics=[diag],
                        edit=types.WorkspaceEdit(changes={uri: edits}),
                        is_preferred=not unsafe,
                    )
                )
            edit = None if d.code == PARSE_ERROR else self.noqa_edit(d.row, d.code)
            if edit is not None:
                noqa.append(
                    types.CodeAction(
                        title=f"Disable {d.code} for this line",
                        kind=types.CodeActionKind.QuickFix,
                        diagnostics=[diag],
                        edit=types.WorkspaceEdit(changes={uri: [edit]}),
                    )
                )
        actions += noqa  # after the fixes: a fix is what an editor should offer first
        if only is None or any(FIX_ALL.startswith(k) for k in only):
            if resolve or command is not None:
                if self.checked.settings is not None and self.checked.any_fix():
                    if resolve:
                        actions.append(types.CodeAction(title=FIX_ALL_TITLE, kind=FIX_ALL, data={"uri": uri}))
                    else:
                        actions.append(types.CodeAction(title=FIX_ALL_TITLE, kind=FIX_ALL, command=command))
                return actions
            edits = self.fix_all()
            if edits:
                actions.append(types.CodeAction(title=FIX_ALL_TITLE, kind=FIX_ALL, edit=types.WorkspaceEdit(changes={uri: edits})))
        return actions


def code_actions(
    uri: str, text: str, path: Path, wanted: types.Range, codec: PositionCodec, only: Optional[Sequence[str]] = None
) -> List[types.CodeAction]:
    """The code actions for ``wanted`` in ``text`` (checked now: the server answers from its last check)."""
    return Version(text, path, codec, check_text(text, path)).actions(uri, wanted, only)


def _meets(a: types.Range, b: types.Range) -> bool:
    def key(p: types.Position) -> Tuple[int, int]:
        return (p.line, p.character)

    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)


def _path(server: LanguageServer, uri: str) -> Path:
    path = to_fs_path(uri)
    if path:
        return Path(path)
    # An unsaved buffer: checked with the configuration of the workspace root.
    root = server.workspace.root_path or os.getcwd()
    return Path(root, "untitled.py")


class WorkspaceIndex:
    """The project index the server checks documents with: the summaries of the
    workspace's ``.py`` files (made when the server starts), of the files around
    each document when it is first checked, and of each open document's current
    text, made again whenever it changes, so that an edit of one file shows in
    the checks of the others."""

    def __init__(self) -> None:
        self.summaries: Dict[str, dict] = {}
        self._memo = SummaryMemo()
        self._covered: Set[str] = set()
        self._project: Optional[Project] = None

    def index_root(self, root: Path, limit: int = MAX_WORKSPACE_FILES) -> None:
        """Summarise the ``.py`` files under ``root`` (at most ``limit``; directories
        ``gradlint check`` skips by default are skipped)."""
        files: List[Path] = []
        for directory, subdirs, names in os.walk(root):
            subdirs[:] = sorted(d for d in subdirs if d not in DEFAULT_EXCLUDE)
            files += [Path(directory, n) for n in sorted(names) if n.endswith(".py")]
            self._covered.add(display_path(Path(directory)))
            if len(files) >= limit:
                files = files[:limit]
                break
        self._add(files)

    def cover(self, path: Path) -> None:
        """Summarise the files around ``path`` (its directory and packages) if not done yet."""
        if display_path(path.parent) in self._covered:
            return
        self._covered.add(display_path(path.parent))
        self._add([path])

    def _add(self, files: Sequence[Path]) -> None:
        if not files:
            return
        found, _ = index_files(files, None, memo=self._memo)
        for name, summary in found.summaries.items():
            self.summaries.setdefault(name, summary)  # an open document's text wins over its file
        self._project = None

    def update(self, path: Path, text: str) -> bool:
        """Summarise ``text`` as the content of ``path``; whether a fact changed."""
        name = display_path(path)
        try:
            summary = project.summarize(name, text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return False  # a buffer half typed: its last summary stands
        if self.summaries.get(name) == summary:
            return False
        if summary is None:
            self.summaries.pop(name, None)
        else:
            self.summaries[name] = summary
        self._project = None
        return True

    def project(self) -> Project:
        if self._project is None:
            self._project = Project(dict(self.summaries))
        return self._project

    @property
    def built(self) -> Optional[Project]:
        """The index as last built (None: out of date, or never built)."""
        return self._project

    def is_current(self, index: Optional[Project]) -> bool:
        """Whether a check made with ``index`` saw the workspace as it is now."""
        return index is None or index is self._project


class Documents:
    """Each open document's last check, its pending check and what was published."""

    def __init__(self, server: LanguageServer, check: Optional[Callable[[str, Path], Checked]] = None) -> None:
        self.server = server
        self.workspace = WorkspaceIndex()
        # A check given by the caller makes its own index: the workspace's changes do not concern it.
        self._own_check = check is None
        self.check = check if check is not None else self._check
        self.versions: Dict[str, Tuple[Optional[int], Version]] = {}
        # The last version that parsed, and what was published last (uri -> version number).
        self.good: Dict[str, Version] = {}
        self.published: Dict[str, Any] = {}
        self.timers: Dict[str, asyncio.TimerHandle] = {}
        self.reported_errors: set = set()

    def _check(self, text: str, path: Path) -> Checked:
        self.workspace.cover(path)
        self.workspace.update(path, text)
        return check_text(text, path, self.workspace.project())

    def current(self, uri: str) -> Optional[Version]:
        """The check of the document's current version (done now if not done yet,
        or again if the workspace index changed since)."""
        document = self.server.workspace.get_text_document(uri)
        path = _path(self.server, uri)
        if document.language_id not in (None, "", "python") or is_notebook(path):
            return None  # a notebook's JSON, or another language: nothing gradlint can check here
        found = self.versions.get(uri)
        if (
            found is not None
            and found[0] == document.version
            and found[1].text == document.source
            and self.workspace.is_current(found[1].index)
        ):
            return found[1]
        version = Version(document.source, path, document.position_codec, self.check(document.source, path))
        version.index = self.workspace.built if self._own_check else None
        self.versions[uri] = (document.version, version)
        if version.checked.error and version.checked.error not in self.reported_errors:
            self.reported_errors.add(version.checked.error)  # once, not on every keystroke
            self.server.window_show_message(types.ShowMessageParams(type=types.MessageType.Error, message=f"gradlint: {version.checked.error}"))
        return version

    def fix_all_command(self, uri: str) -> types.Command:
        """The command of the fix-all action offered for the document's current version."""
        found = self.versions.get(uri)
        number = found[0] if found is not None else None
        return types.Command(title=FIX_ALL_TITLE, command=APPLY_FIX_ALL, arguments=[{"uri": uri, "version": number}])

    def fix_all_edit(self, uri: str, versioned: bool = False) -> Optional[types.ApplyWorkspaceEditParams]:
        """What ``APPLY_FIX_ALL`` sends the client: every safe fix of the document's
        current version, None if there is none or the document is not open. That is
        the version the command was made for, or a later one where the document
        changed since: "fix all" is of the document, not of a place in it, and an
        edit of an older text would not apply to the one the client holds now.
        ``versioned`` (a client that takes ``documentChanges``): the edit names that
        version, so that a client whose document changed again while the edit was
        on its way refuses it rather than apply it to other text."""
        if uri not in self.server.workspace.text_documents:
            return None
        version = self.current(uri)
        if version is None:
            return None
        edits = version.fix_all()
        if not edits:
            return None
        if versioned:
            document = types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=self.versions[uri][0])
            edit = types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(text_document=document, edits=list(edits))])
        else:
            edit = types.WorkspaceEdit(changes={uri: edits})
        return types.ApplyWorkspaceEditParams(edit=edit, label=FIX_ALL_TITLE)

    def schedule(self, uri: str, delay: float) -> None:
        pending = self.timers.pop(uri, None)
        if pending is not None:
            pending.cancel()
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # not under the server's loop (a direct call): check now
            self.publish(uri)
            return
        self.timers[uri] = loop.call_later(delay, self.publish, uri)

    def publish(self, uri: str, *, settle: bool = False) -> None:
        """Check the current version if not checked yet and publish its diagnostics;
        for a buffer that does not parse, the last good ones until SYNTAX_PAUSE_S
        (``settle``: that pause is over)."""
        self.timers.pop(uri, None)
        if uri not in self.server.workspace.text_documents:
            return  # closed meanwhile
        version = self.current(uri)
        if version is None:
            return
        number = self.versions[uri][0]
        shown = version
        if version.checked.broken and not settle and uri in self.good:
            shown = self.good[uri]
            self.schedule_settle(uri, number)
        elif not version.checked.broken:
            self.good[uri] = version
        if self.published.get(uri) == (number, id(shown)):
            return
        self.published[uri] = (number, id(shown))
        self.server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, version=number, diagnostics=shown.lsp))

    def schedule_settle(self, uri: str, number: Optional[int]) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return

        def settle() -> None:
            found = self.versions.get(uri)
            if found is not None and found[0] == number and uri not in self.timers:
                self.publish(uri, settle=True)

        loop.call_later(SYNTAX_PAUSE_S, settle)

    def close(self, uri: str) -> None:
        pending = self.timers.pop(uri, None)
        if pending is not None:
            pending.cancel()
        for table in (self.versions, self.good, self.published):
            table.pop(uri, None)


def load() -> None:
    """What checks and fixes need, loaded when the server starts rather than on the first
    keystroke: the rules, the catalog, and LibCST's codemods (for fixes that change
    imports; else loaded by the first code action or "fix all" of the session)."""
    from gradlint.rules import all_rules

    all_rules()
    catalog.load()
    preload_import_changes()


def settle() -> None:
    """Keep what is loaded so far (modules, the catalog, the workspace index) out of the
    garbage collector's scans from now on. A check builds a syntax tree of many
    objects, and so sets off collections of the oldest generation, which walk every
    object the process holds: some 100,000 of them loaded, about a third of the CPU
    time of a check of a 500-line module (0.1 of 0.3 s) before this, almost none after
    (``benchmarks/speed_editor.py``). What was loaded stays, as it would anyway."""
    gc.collect()
    gc.freeze()


def create_server() -> LanguageServer:
    server = LanguageServer("gradlint", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
    documents = Documents(server)
    server.gradlint_documents = documents  # type: ignore[attr-defined]

    @server.feature(types.INITIALIZED)
    def initialized(params: types.InitializedParams) -> None:
        load()
        root = server.workspace.root_path
        if root:
            documents.workspace.index_root(Path(root))
        settle()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: types.DidOpenTextDocumentParams) -> None:
        documents.publish(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: types.DidChangeTextDocumentParams) -> None:
        documents.schedule(params.text_document.uri, DEBOUNCE_S)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(params: types.DidSaveTextDocumentParams) -> None:
        uri = params.text_document.uri
        documents.publish(uri)
        # The other open documents checked before this one last changed what it
        # says of itself are checked again (the others keep their check).
        for other in list(server.workspace.text_documents):
            if other != uri:
                documents.schedule(other, DEBOUNCE_S)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: types.DidCloseTextDocumentParams) -> None:
        documents.close(params.text_document.uri)
        server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))

    def resolves_edits() -> bool:
        """Whether the client asks for a code action's edit when it is chosen."""
        try:
            support = server.client_capabilities.text_document.code_action.resolve_support  # type: ignore[union-attr]
        except AttributeError:
            return False
        return support is not None and "edit" in support.properties

    def applies_edits() -> bool:
        """Whether the client takes ``workspace/applyEdit`` requests."""
        try:
            return bool(server.client_capabilities.workspace.apply_edit)  # type: ignore[union-attr]
        except AttributeError:
            return False

    def versioned_edits() -> bool:
        """Whether the client takes a workspace edit's ``documentChanges`` (edits that name a version)."""
        try:
            return bool(server.client_capabilities.workspace.workspace_edit.document_changes)  # type: ignore[union-attr]
        except AttributeError:
            return False

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL], resolve_provider=True),
    )
    def code_action(params: types.CodeActionParams) -> List[types.CodeAction]:
        uri = params.text_document.uri
        version = documents.current(uri)
        if version is None:
            return []
        only = [str(getattr(k, "value", k)) for k in params.context.only] if params.context.only else None
        resolve = resolves_edits()
        # A client that can do neither gets the fix-all edit with the list (Version.actions).
        command = documents.fix_all_command(uri) if not resolve and applies_edits() else None
        return version.actions(uri, params.range, only, resolve=resolve, command=command)

    @server.feature(types.CODE_ACTION_RESOLVE)
    def code_action_resolve(action: types.CodeAction) -> types.CodeAction:
        data = action.data if isinstance(action.data, dict) else {}
        uri = data.get("uri")
        version = documents.current(uri) if isinstance(uri, str) and uri in server.workspace.text_documents else None
        if action.kind == FIX_ALL and version is not None and isinstance(uri, str):
            action.edit = types.WorkspaceEdit(changes={uri: version.fix_all()})
        return action

    @server.command(APPLY_FIX_ALL)
    def apply_fix_all(*arguments: Any) -> None:
        target = arguments[0] if arguments else None
        uri = target.get("uri") if isinstance(target, dict) else None
        if not isinstance(uri, str):
            raise ValueError(f'{APPLY_FIX_ALL} takes one argument, {{"uri": ..., "version": ...}}; got {list(arguments)!r}')
        params = documents.fix_all_edit(uri, versioned_edits())
        if params is not None:
            # Not waited for: this command's reply does not depend on it, and a client
            # that handles the server's requests only once its own are answered would
            # never answer this one.
            server.workspace_apply_edit(params)

    return server


def serve() -> None:
    create_server().start_io()
