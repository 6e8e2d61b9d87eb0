#!/usr/bin/env python3
"""The editor server's answers on a 500-line legacy module, with and without ``async=``.

    .venv/bin/python benchmarks/speed_editor.py --python .venv/bin/python --repeat 3

Targets (CPU seconds of the server's own work):

- didChange -> diagnostics: <= 0.3 s (the check of a new version and its
  diagnostics, what the server does after its pause of ``DEBOUNCE_S``);
- every codeAction: <= 0.05 s (answered from the check already done: the
  slowest of the code actions asked on each diagnostic's range, for a
  client that resolves the fix-all edit when it is chosen; and, on a version
  checked afresh, the first code action and the slowest for a client that
  does not resolve but applies edits (``workspace.applyEdit``: fix all comes
  as a command) and the first for one that does neither, which gets the
  fix-all edit with the list: no target, it is a fix all);
- fixAll: <= 0.5 s (the edits of every safe fix, from that check);
- a file with ``async=`` arguments no slower than the same file without.

Measured in-process, in a subprocess of the interpreter given with
``--python`` (the gradlint installed for it is the one measured), by calling
the server's own functions as ``Documents.publish`` and the code-action
handlers do (``gradlint.server.check_text``, ``Version.actions``,
``Version.fix_all``; ``Version.actions`` with the fix-all command where the
tree has one, else as that tree answers such a client): no transport, no
debounce pause. Each figure is the
median over ``--repeat`` fresh versions of the document (a new version is
checked again and its answers computed again). The documents are
``benchmarks/run.py``'s ``legacy_document``. The last line printed is a JSON
object of the figures. Needs the ``lsp`` extra (pygls) in the measured
environment; standard library only here.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Optional, Sequence

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from run import legacy_document  # noqa: E402  (the module run.py's server figures use)

LINES = 500

# Run by the measured interpreter: one JSON line per version measured.
PROBE = r"""
import inspect, json, sys, time
from pathlib import Path
from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec
from gradlint import server
from gradlint.rules import all_rules

path, repeat = Path(sys.argv[1]), int(sys.argv[2])
text = path.read_text(encoding="utf-8")
# What the server does when the client says it is initialized, where it has these (the
# workspace index aside: the document is checked on its own).
if hasattr(server, "load"):
    server.load()
else:
    all_rules()
if hasattr(server, "settle"):
    server.settle()
server.check_text(text, path)  # a first check: what it loads on first use
codec = PositionCodec(types.PositionEncodingKind.Utf16)
# A tree without the fix-all command answers a client that cannot resolve with the edit.
has_command = "command" in inspect.signature(server.Version.actions).parameters


# (first, slowest) code action of a version checked afresh, for a client that does not
# resolve code actions (apply_edit: it applies the edits the server sends).
def no_resolve(version_text, apply_edit):
    version = server.Version(version_text, path, codec, server.check_text(version_text, path))
    extra = {}
    if apply_edit and has_command:
        extra["command"] = types.Command(
            title="fix all", command=server.APPLY_FIX_ALL, arguments=[{"uri": path.as_uri(), "version": 1}]
        )
    times = []
    for diag in version.lsp:
        t = time.process_time()
        version.actions(path.as_uri(), diag.range, **extra)
        times.append(time.process_time() - t)
        if not apply_edit:
            break  # the rest as for the client above: only the first waits for a fix all
    return times[0] if times else 0.0, max(times, default=0.0)


for i in range(repeat):
    version_text = text + "#" * (i + 1) + "\n"  # a new version, as after a keystroke
    t = time.process_time()
    checked = server.check_text(version_text, path)
    version = server.Version(version_text, path, PositionCodec(types.PositionEncodingKind.Utf16), checked)
    check = time.process_time() - t
    actions = []
    for diag in version.lsp:
        t = time.process_time()
        version.actions(path.as_uri(), diag.range, resolve=True)
        actions.append(time.process_time() - t)
    t = time.process_time()
    edits = version.fix_all()
    fix_all = time.process_time() - t
    # Other versions (another comment), so that no check or fix is shared with the above.
    first_command, max_command = no_resolve(version_text + "a\n", True)
    first_eager, _ = no_resolve(version_text + "b\n", False)
    print(json.dumps({"check": check, "action_max": max(actions, default=0.0), "fix_all": fix_all,
                      "findings": len(version.lsp), "fix_all_edits": len(edits),
                      "no_resolve_first": first_command, "no_resolve_max": max_command,
                      "eager_first": first_eager}), flush=True)
"""


def measure(python: str, text: str, repeat: int) -> dict:
    import statistics

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "evaluate.py")
        path.write_text(text, encoding="utf-8")
        done = subprocess.run(
            [python, "-c", PROBE, str(path), str(repeat)], cwd=tmp, capture_output=True, text=True, check=True
        )
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return {key: statistics.median(r[key] for r in rows) for key in rows[0]}


def interpreter(python: str) -> str:
    """``python`` as the runs below can name it: they start in a temporary directory,
    where a relative path (``.venv/bin/python``) would name nothing. Not resolved
    further: a virtualenv's interpreter is a link, and its target is not the venv's."""
    return str(Path(python).absolute()) if os.sep in python else python


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=sys.executable, help="the interpreter whose gradlint is measured")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)

    figures = {}
    for label, async_args in (("plain", False), ("async=", True)):
        found = measure(interpreter(args.python), legacy_document(LINES, async_args), args.repeat)
        print(
            f"{label}: {found['findings']:.0f} findings; didChange -> diagnostics {found['check']:.3f} s (target <= 0.3), "
            f"codeAction max {found['action_max']:.3f} s (<= 0.05), fixAll {found['fix_all']:.3f} s (<= 0.5), CPU",
            flush=True,
        )
        print(
            f"{label}, a client without resolve: applying edits, first codeAction {found['no_resolve_first']:.3f} s, "
            f"max {found['no_resolve_max']:.3f} s (<= 0.05); applying none, first codeAction {found['eager_first']:.3f} s "
            "(the fix-all edit with the list), CPU",
            flush=True,
        )
        figures[f"editor {label} didChange cpu s"] = round(found["check"], 4)
        figures[f"editor {label} codeAction max cpu s"] = round(found["action_max"], 4)
        figures[f"editor {label} fixAll cpu s"] = round(found["fix_all"], 4)
        figures[f"editor {label} codeAction first, no resolve, applyEdit cpu s"] = round(found["no_resolve_first"], 4)
        figures[f"editor {label} codeAction max, no resolve, applyEdit cpu s"] = round(found["no_resolve_max"], 4)
        figures[f"editor {label} codeAction first, no resolve nor applyEdit cpu s"] = round(found["eager_first"], 4)
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
