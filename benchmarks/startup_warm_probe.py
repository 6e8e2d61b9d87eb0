#!/usr/bin/env python3
"""What a warm gradlint would cost per check: a prototype, not a feature.

    .venv/bin/python benchmarks/startup_warm_probe.py [--repeat N]

A server process imports gradlint with every rule once and answers ``gradlint
check`` command lines over a Unix socket (the command line run in it by click's
test runner); a client that only starts Python (``-S``) and imports ``socket``
and ``json`` sends the working directory and the arguments, and prints the
reply. The file is the 6-line file with one GL001 finding of
``benchmarks/speed_startup.py``, edited before each check (results cache on).

Figures, medians of CPU time (user + system): the client process, start to
exit; the server's work for one check (``time.process_time`` around it); their
sum, what a check would cost once the server runs; and, for comparison, a
fresh ``python -m gradlint check`` of the same file. The server's own start
(imports) is printed once. No protocol, lifetime or invalidation (a change of
configuration or of gradlint itself) is handled: what a real one would need.
Standard library and gradlint; Linux or macOS. The last line printed is the
figures as one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List

LEGACY = "import torch\nfrom torch.autograd import Variable\n\nx = Variable(torch.ones(2), volatile=True)\nprint(x)\n"

SERVER = r"""
import json, os, socket, sys, time
t0 = time.process_time()
from click.testing import CliRunner
from gradlint.cli import main
from gradlint.rules import all_rules
all_rules()
started = time.process_time() - t0
sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
sock.bind(sys.argv[1])
sock.listen(1)
print(json.dumps({"start": started}), flush=True)
while True:
    conn, _ = sock.accept()
    data = b""
    while not data.endswith(b"\n"):
        chunk = conn.recv(65536)
        if not chunk:
            break
        data += chunk
    if not data:
        break
    request = json.loads(data)
    t = time.process_time()
    os.chdir(request["cwd"])
    result = CliRunner().invoke(main, request["argv"])
    work = time.process_time() - t
    conn.sendall(json.dumps({"status": result.exit_code, "out": result.output, "cpu": work}).encode() + b"\n")
    conn.close()
"""

CLIENT = r"""
import json, os, socket, sys
sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
sock.connect(sys.argv[1])
sock.sendall(json.dumps({"cwd": os.getcwd(), "argv": sys.argv[2:]}).encode() + b"\n")
data = b""
while not data.endswith(b"\n"):
    chunk = sock.recv(65536)
    if not chunk:
        break
    data += chunk
reply = json.loads(data)
sys.stdout.write(reply["out"])
sys.stderr.write(str(reply["cpu"]) + "\n")
sys.exit(reply["status"])
"""


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=9, help="measured checks of each kind (default 9)")
    args = parser.parse_args()
    argv = ["check", "--output-format", "concise", "legacy.py"]
    with tempfile.TemporaryDirectory(prefix="gradlint-warm-") as tmp:
        project = Path(tmp) / "project"
        project.mkdir()
        (project / "pyproject.toml").write_text("[tool.gradlint]\n", encoding="utf-8")
        (project / "legacy.py").write_text(LEGACY, encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if not k.startswith("GRADLINT_") and k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        env["NO_COLOR"] = "1"
        address = str(Path(tmp) / "gradlint.sock")
        subprocess.run([sys.executable, "-m", "gradlint", *argv], cwd=project, env=env, stdout=subprocess.DEVNULL)  # bytecode
        subprocess.run([sys.executable, "-c", "from gradlint.rules import all_rules; all_rules()"], env=env)
        server = subprocess.Popen([sys.executable, "-c", SERVER, address], env=env, stdout=subprocess.PIPE, text=True)
        try:
            start = json.loads(server.stdout.readline())["start"]  # type: ignore[union-attr]
            print(f"server start (imports, every rule): {start:.3f} s CPU", flush=True)
            figures: Dict[str, List[float]] = {"client": [], "server": [], "fresh": []}
            for rep in range(args.repeat + 1):
                (project / "legacy.py").write_text(LEGACY + f"# edit {rep}\n", encoding="utf-8")
                before, wall = _cpu(), time.perf_counter()
                proc = subprocess.run([sys.executable, "-S", "-c", CLIENT, address, *argv], cwd=project, env=env, capture_output=True, text=True)
                client, wall = _cpu() - before, time.perf_counter() - wall
                if proc.returncode != 1 or "GL001" not in proc.stdout:
                    raise SystemExit(f"warm check: exit {proc.returncode}: {proc.stdout}{proc.stderr}")
                (project / "legacy.py").write_text(LEGACY + f"# edit {rep} again\n", encoding="utf-8")
                before = _cpu()
                subprocess.run([sys.executable, "-m", "gradlint", *argv], cwd=project, env=env, stdout=subprocess.DEVNULL)
                fresh = _cpu() - before
                if rep == 0:
                    continue  # the server's first check fills its own caches
                figures["client"].append(client)
                figures["server"].append(float(proc.stderr.strip()))
                figures["fresh"].append(fresh)
                print(f"  [{rep}/{args.repeat}] client {client:.3f} s, server {figures['server'][-1]:.4f} s, wall {wall:.3f} s; fresh process {fresh:.3f} s", flush=True)
        finally:
            server.kill()
            server.wait()
    out = {
        "warm client CPU s": round(statistics.median(figures["client"]), 4),
        "warm server CPU s per check": round(statistics.median(figures["server"]), 4),
        "warm check CPU s (client + server)": round(statistics.median(c + s for c, s in zip(figures["client"], figures["server"])), 4),
        "fresh process CPU s": round(statistics.median(figures["fresh"]), 4),
        "server start CPU s": round(start, 3),
    }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
