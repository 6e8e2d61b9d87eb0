"""A flake8 plugin (entry point ``GL`` in ``flake8.extension``): ``flake8 --select GL`` runs gradlint.

Which rules run is gradlint's own configuration (the nearest ``[tool.gradlint]``,
as for ``gradlint check``), and each file is checked with the index of its
project (the files of its directory and packages, as ``gradlint check`` on one
file indexes them), so both report the same findings; flake8's
``--select``, ``--ignore``, ``per-file-ignores`` and ``# noqa`` then filter them
as they filter any plugin. Check only: fixes need ``gradlint check --fix``.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path
from typing import Dict, Iterator, Optional, Sequence, Tuple

from gradlint import __version__

Result = Tuple[int, int, str, type]

# One Settings per working directory and process: it caches the configs it reads.
_settings: Dict[str, object] = {}
# What indexing has found so far in this process: flake8 checks one file at a
# time, and the files next to it are the next ones' neighbours too.
_memo = None


def _settings_for_cwd():
    from gradlint.config import Settings

    cwd = os.getcwd()
    if cwd not in _settings:
        _settings[cwd] = Settings(cwd=Path(cwd))
    return _settings[cwd]


def _unsaved(filename: str, text: str) -> Optional[Dict[str, str]]:
    """The text flake8 checks, where it may not be the file's (given on stdin with
    ``--stdin-display-name``): a file's own text is summarised from the file."""
    try:
        if os.stat(filename).st_size == len(text.encode("utf-8")):
            return None
    except OSError:
        pass
    return {filename: text}


class Plugin:
    name = "gradlint"
    version = __version__

    # flake8 passes arguments by name: `tree` makes this an AST plugin (run only
    # on files Python parses); gradlint parses `lines` itself, with LibCST.
    def __init__(self, tree: ast.AST, filename: str, lines: Sequence[str]) -> None:
        self.filename = filename
        self.lines = lines

    def run(self) -> Iterator[Result]:
        from gradlint.checking import check_document
        from gradlint.config import ConfigError
        from gradlint.session import Session, SummaryMemo

        global _memo
        if _memo is None:
            _memo = SummaryMemo()
        text = "".join(self.lines)
        try:
            session = Session(_settings_for_cwd())
            if self.filename not in ("-", "stdin"):
                session = session.indexed([Path(self.filename)], texts=_unsaved(self.filename, text), memo=_memo)
            # flake8 applies noqa comments itself; were gradlint to drop a silenced
            # finding, flake8-noqa and yesqa would take the comment for unused.
            result = check_document(self.filename, text, session, line_noqa=False)
        except ConfigError as exc:
            yield 1, 0, f"GL000 gradlint configuration error: {exc}", type(self)
            return
        for finding in result.findings:
            # flake8 wants a 0-based column, as LibCST gives it, and adds 1 itself.
            yield finding.start[0], finding.start[1], f"{finding.code} {finding.message}", type(self)
