#!/usr/bin/env python3
"""didChange -> diagnostics through ``gradlint server`` itself, over stdio, while the
fix all computed ahead runs, against a client for which nothing is computed ahead.

    .venv/bin/python benchmarks/editor_stdio.py --python .venv/bin/python --rounds 2

Two kinds of client, in turn, each in its own server process: one with no
capabilities (it neither resolves code actions nor applies edits: the server
computes the fix-all edit ahead once a version's diagnostics are published,
``server.FixAllAhead``) and one that applies edits (nothing is computed ahead).
On ``benchmarks/run.py``'s 500-line ``legacy_document``, each session changes the
whole text 7 times: after an even version's diagnostics it waits ``--gap``
seconds (the fix all then runs, for the first client), then sends the next
change and times it until that version's diagnostics come: wall time, and the
server process's CPU time (user + system, both threads, from ``/proc``, in
clock ticks), which is what its diagnostics wait for on an idle processor.
The debounce (``DEBOUNCE_S``) is in the wall time, not in the CPU time.
Standard library only; Linux (``/proc``).
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from run import legacy_document  # noqa: E402

LINES = 500
CLIENTS = (("no capabilities", {}), ("applies edits", {"workspace": {"applyEdit": True}}))


def process_cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Client:
    """Content-Length framed JSON-RPC over the server's stdio; each message read is
    kept with the wall time and the server's CPU time when it came."""

    def __init__(self, python: str, cwd: str) -> None:
        self.proc = subprocess.Popen(
            [python, "-m", "gradlint", "server"], cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        self.messages: "queue.Queue[Tuple[float, float, Dict[str, Any]]]" = queue.Queue()
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
            body = json.loads(out.read(int(headers["content-length"])))
            self.messages.put((time.monotonic(), process_cpu(self.proc.pid), body))

    def send(self, message: Dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def wait(self, match: Callable[[Dict[str, Any]], bool]) -> Tuple[float, float]:
        while True:
            at, cpu, message = self.messages.get(timeout=120)
            if match(message):
                return at, cpu


def published(uri: str, version: int) -> Callable[[Dict[str, Any]], bool]:
    return lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri and m["params"].get("version") == version


def session(python: str, capabilities: Dict[str, Any], gap: float) -> Tuple[List[float], List[float]]:
    """(wall, CPU) of each timed change."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "evaluate.py")
        text = legacy_document(LINES, False)
        path.write_text(text, encoding="utf-8")
        uri = path.as_uri()
        client = Client(python, tmp)
        try:
            client.send({"id": 1, "method": "initialize", "params": {"processId": None, "rootUri": Path(tmp).as_uri(), "capabilities": capabilities}})
            client.wait(lambda m: m.get("id") == 1)
            client.send({"method": "initialized", "params": {}})
            client.send({"method": "textDocument/didOpen", "params": {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}}})
            client.wait(published(uri, 1))
            walls: List[float] = []
            cpus: List[float] = []
            for version in range(2, 9):
                change = {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text + "#" * version + "\n"}]}
                if version % 2 == 0:
                    client.send({"method": "textDocument/didChange", "params": change})
                    client.wait(published(uri, version))
                    time.sleep(gap)
                    continue
                at, cpu = time.monotonic(), process_cpu(client.proc.pid)
                client.send({"method": "textDocument/didChange", "params": change})
                done_at, done_cpu = client.wait(published(uri, version))
                walls.append(done_at - at)
                cpus.append(done_cpu - cpu)
            return walls, cpus
        finally:
            client.proc.kill()
            client.proc.wait()


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=sys.executable, help="the interpreter whose gradlint server is measured")
    parser.add_argument("--rounds", type=int, default=2, help="sessions of each client, in turn")
    parser.add_argument("--gap", type=float, default=0.08, help="seconds from a version's diagnostics to the next change")
    args = parser.parse_args(argv)
    python = str(Path(args.python).absolute()) if os.sep in args.python else args.python
    figures: Dict[str, List[float]] = {}
    for _ in range(args.rounds):
        for label, capabilities in CLIENTS:
            walls, cpus = session(python, capabilities, args.gap)
            figures.setdefault(f"{label} wall s", []).extend(walls)
            figures.setdefault(f"{label} cpu s", []).extend(cpus)
            print(f"{label}: didChange -> diagnostics wall {' '.join(f'{w:.3f}' for w in walls)} s; server CPU {' '.join(f'{c:.2f}' for c in cpus)} s", flush=True)
    print(json.dumps({key: round(statistics.median(values), 4) for key, values in figures.items()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
