#!/usr/bin/env python3
"""Start-up: ``gradlint check`` on one small file just edited, process start to exit.

    .venv/bin/python benchmarks/speed_startup.py [--python PATH] [--repeat N]

What a pre-commit hook or an editor's save pays on every run. Figures, medians
of CPU time (user + system of the process), ``PATH -m gradlint``:

- ``small trigger-free file CPU s``: a 10-line file that mentions nothing a rule
  looks for (most files of a code base). Target: <= 0.3 s.
- ``small triggering file CPU s``: a 6-line file with a 0.3-era ``Variable(...,
  volatile=True)``, which must be parsed and checked (one GL001 finding).
  Target: <= 0.3 s.
- ``small GL101 file CPU s``: a 3-line loop that calls ``model.eval()`` and
  then the model, which also builds the semantic model and checks GL101's fix
  (``[*]``). Target: <= 0.3 s. See docs/benchmarks.md, "Start-up".

Each run is in a project of its own (a ``pyproject.toml`` and the file) with
a results cache, filled by a first run; before each measured run the file is
edited (a comment line changes), so that its findings are not in the cache, as
for a file just saved. The files alternate run by run. Bytecode, and the
compiled methods of dataclasses that ``gradlint check`` keeps beside it
(``gradlint.dataclass_code``), are written (into a temporary
``PYTHONPYCACHEPREFIX``, by an unmeasured first run) and read, as from an
installed package: ``PYTHONDONTWRITEBYTECODE`` is dropped. Standard
library only; Linux or macOS (``resource``). The last line printed is the
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
from typing import Dict, List, Tuple

TARGET_CPU_S = 0.3

FILES = {
    "small trigger-free file CPU s": (
        "plain.py",
        "import os\n\n\ndef join(root, name):\n    return os.path.join(root, name)\n\n\n"
        "for part in ('a', 'b'):\n    print(join('.', part))\n",
        0,
    ),
    "small triggering file CPU s": (
        "legacy.py",
        "import torch\nfrom torch.autograd import Variable\n\nx = Variable(torch.ones(2), volatile=True)\nprint(x)\n",
        1,
    ),
    "small GL101 file CPU s": (
        "evaluate.py",
        "for x in data:\n    model.eval()\n    y = model(x)\n",
        1,
    ),
}


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run(python: str, cwd: Path, name: str, env: Dict[str, str]) -> Tuple[float, float, int]:
    """(CPU s, wall s, exit status) of one ``gradlint check`` of ``name``."""
    cpu, wall = _cpu(), time.perf_counter()
    proc = subprocess.run(
        [python, "-m", "gradlint", "check", "--output-format", "concise", name],
        cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    if proc.returncode not in (0, 1):
        raise SystemExit(f"gradlint check {name} failed ({proc.returncode}): {proc.stderr.strip()}")
    return _cpu() - cpu, time.perf_counter() - wall, proc.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", default=sys.executable, help="the interpreter whose installed gradlint is measured")
    parser.add_argument("--repeat", type=int, default=3, help="measured runs of each file (default 3)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="gradlint-startup-") as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith("GRADLINT_") and k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        env["NO_COLOR"] = "1"
        projects: Dict[str, Path] = {}
        for figure, (name, text, expected) in FILES.items():
            project = Path(tmp) / name.replace(".py", "")
            project.mkdir()
            # GL101 runs only in the preview tier; the figure keeps measuring its start-up.
            settings = "[tool.gradlint]\npreview = true\n" if "GL101" in figure else "[tool.gradlint]\n"
            (project / "pyproject.toml").write_text(settings, encoding="utf-8")
            (project / name).write_text(text, encoding="utf-8")
            projects[figure] = project
            _, _, status = _run(args.python, project, name, env)  # bytecode, the cache, the disk
            if status != expected:
                raise SystemExit(f"{name}: exit {status}, expected {expected}")
        cpu: Dict[str, List[float]] = {figure: [] for figure in FILES}
        wall: Dict[str, List[float]] = {figure: [] for figure in FILES}
        for rep in range(args.repeat):
            for figure, (name, text, _) in FILES.items():
                (projects[figure] / name).write_text(text + f"# edit {rep}\n", encoding="utf-8")
                c, w, _ = _run(args.python, projects[figure], name, env)
                cpu[figure].append(c)
                wall[figure].append(w)
                print(f"  [{rep + 1}/{args.repeat}] {name}: {c:.3f} s CPU, {w:.3f} s wall", flush=True)
    figures = {}
    for figure in FILES:
        figures[figure] = round(statistics.median(cpu[figure]), 3)
        verdict = "met" if figures[figure] <= TARGET_CPU_S else "missed"
        print(f"{figure}: {figures[figure]:.3f} (median of {args.repeat}; wall {statistics.median(wall[figure]):.3f} s); "
              f"target <= {TARGET_CPU_S} s: {verdict}")
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
