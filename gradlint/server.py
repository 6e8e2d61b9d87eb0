"""``gradlint server``: a Language Server (LSP over stdio) for editors.

It publishes gradlint's findings as diagnostics when a Python document is
opened, changed or saved, and offers each finding's fix as a quick fix (unsafe
fixes say so in their title and are never the preferred action), plus a
``source.fixAll.gradlint`` action that applies every safe fix, as Ruff's
server does. Each document is checked with the configuration that governs its
path (the nearest ``[tool.gradlint]``, per-file ignores, excludes), read
afresh on every check so that edits to ``pyproject.toml`` take effect at once.

pygls is imported here only: ``gradlint check`` never pays for it, and it is
needed only with the ``lsp`` extra (``pip install 'torch-gradlint[lsp]'``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path
from pygls.workspace.position_codec import PositionCodec

from gradlint import __version__
from gradlint.config import ConfigError, Settings, excludes, matches
from gradlint.engine import LintSettings, fix_source, lint_source
from gradlint.files import is_notebook
from gradlint.fixes import split_lines, text_edits
from gradlint.runner import Diagnostic, Mode, _read_error_diagnostic, to_diagnostics

SOURCE = "gradlint"
FIX_ALL = f"{types.CodeActionKind.SourceFixAll.value}.gradlint"


@dataclass
class Checked:
    """One check of a document's text: its diagnostics, or why there are none."""

    diagnostics: List[Diagnostic]
    settings: Optional[LintSettings] = None
    error: Optional[str] = None


def check_text(text: str, path: Path) -> Checked:
    """gradlint's findings on ``text``, the current content of the document at ``path``."""
    try:
        settings = Settings(cwd=path.parent)
        cfg = settings.config_for(path)
        if matches(excludes(cfg), path, cfg.root, ancestors=True):
            return Checked([])
        codes, options = settings.codes_for(path)
    except ConfigError as exc:
        return Checked([], error=str(exc))
    lint_settings = LintSettings(codes, options)
    try:
        result = lint_source(text, str(path), lint_settings)
    except RecursionError:  # as the runner reports it: the editor keeps a diagnostic, not a stale list
        return Checked([_read_error_diagnostic("too deeply nested to analyse")], lint_settings)
    return Checked(to_diagnostics(result.findings, text, result.context, Mode(edits=True)), lint_settings)


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


def code_actions(
    uri: str, text: str, path: Path, wanted: types.Range, codec: PositionCodec, only: Optional[Sequence[str]] = None
) -> List[types.CodeAction]:
    """A quick fix for each fixable finding whose range meets ``wanted``, and a fix-all action."""
    checked = check_text(text, path)
    lines = split_lines(text)
    actions: List[types.CodeAction] = []
    quick = only is None or any(types.CodeActionKind.QuickFix.value.startswith(k) for k in only)
    for d in checked.diagnostics:
        if d.fix is None or not quick:
            continue
        diag = lsp_diagnostic(d, lines, codec)
        if not _meets(diag.range, wanted):
            continue
        unsafe = d.fix.applicability != "safe"
        edits = [
            types.TextEdit(range=_range(lines, codec, e.row, e.column, e.end_row, e.end_column), new_text=e.content)
            for e in d.fix.edits
        ]
        actions.append(
            types.CodeAction(
                title=f"{d.code}: {d.fix.message}" + (" (unsafe: may change behaviour)" if unsafe else ""),
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diag],
                edit=types.WorkspaceEdit(changes={uri: edits}),
                is_preferred=not unsafe,
            )
        )
    if checked.settings is not None and (only is None or any(FIX_ALL.startswith(k) for k in only)):
        fixed = fix_source(text, str(path), checked.settings).source
        if fixed != text:
            edits = [
                types.TextEdit(range=_range(lines, codec, e.row, e.column, e.end_row, e.end_column), new_text=e.content)
                for e in text_edits(text, fixed)
            ]
            actions.append(
                types.CodeAction(
                    title="gradlint: fix all safe fixes",
                    kind=FIX_ALL,
                    edit=types.WorkspaceEdit(changes={uri: edits}),
                )
            )
    return actions


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


def create_server() -> LanguageServer:
    server = LanguageServer("gradlint", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
    reported_errors: set = set()

    def publish(uri: str) -> None:
        document = server.workspace.get_text_document(uri)
        path = _path(server, uri)
        if document.language_id not in (None, "", "python") or is_notebook(path):
            return  # a notebook's JSON, or another language: nothing gradlint can check here
        checked = check_text(document.source, path)
        if checked.error and checked.error not in reported_errors:
            reported_errors.add(checked.error)  # once, not on every keystroke
            server.window_show_message(types.ShowMessageParams(type=types.MessageType.Error, message=f"gradlint: {checked.error}"))
        lines = split_lines(document.source)
        server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(
                uri=uri,
                version=document.version,
                diagnostics=[lsp_diagnostic(d, lines, document.position_codec) for d in checked.diagnostics],
            )
        )

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: types.DidOpenTextDocumentParams) -> None:
        publish(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: types.DidChangeTextDocumentParams) -> None:
        publish(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(params: types.DidSaveTextDocumentParams) -> None:
        publish(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: types.DidCloseTextDocumentParams) -> None:
        server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL]),
    )
    def code_action(params: types.CodeActionParams) -> List[types.CodeAction]:
        uri = params.text_document.uri
        document = server.workspace.get_text_document(uri)
        only = [str(getattr(k, "value", k)) for k in params.context.only] if params.context.only else None
        return code_actions(uri, document.source, _path(server, uri), params.range, document.position_codec, only)

    return server


def serve() -> None:
    create_server().start_io()
