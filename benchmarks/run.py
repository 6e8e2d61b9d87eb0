#!/usr/bin/env python3
"""Benchmark ``gradlint check`` against TorchFix and Ruff on real torch-using code.

    .venv/bin/python benchmarks/run.py            # everything, 3 repetitions
    .venv/bin/python benchmarks/run.py --repeat 5 --no-write
    .venv/bin/python benchmarks/run.py --speed --baseline d87ad36   # every benchmarks/speed_*.py, this tree against another revision
    .venv/bin/python benchmarks/run.py --speed --baseline d87ad36 --only startup   # one of them (printed, not written)

1. Builds the corpus: downloads pinned releases of torch-using packages from
   PyPI (``pip download --no-deps --require-hashes``: the same bytes on every
   machine) and unpacks their ``.py`` files into ``benchmarks/.work/corpus``.
2. Creates ``benchmarks/.work/peers``, a virtualenv with pinned TorchFix and
   Ruff (and TorchFix's dependencies), apart from gradlint's own environment.
3. Measures how much parallel capacity the machine has at the moment (two
   processes of pure-Python work against one), before and after.
4. Runs each tool on the whole corpus, interleaved (the order rotates each
   repetition, so that no tool always follows the same one) and repeated;
   reports the median wall time, files per second and peak memory.
5. Checks that the parallel and the cached runs print exactly what the serial
   uncached run prints, on the whole corpus (text and JSON output).
6. Times ``gradlint check`` on one small file, process start to exit, and
   breaks its start-up down with ``python -X importtime``.
7. Prints the table and writes it, with the machine's description and load,
   to ``docs/benchmarks.md``.

gradlint is the one installed for the Python running this script.
Only the standard library is used. Linux is assumed for memory figures.
"""

from __future__ import annotations

import argparse
import datetime
import io
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Dict, List, Optional, Sequence, Tuple

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
WORK = HERE / ".work"
DOCS = ROOT / "docs" / "benchmarks.md"

# name, version, sha256 of the file PyPI serves, kind. Wheels are fetched for
# CPython 3.11 on manylinux x86-64 whatever the machine, so that the one
# platform-specific wheel (torchvision's) is the same file everywhere.
CORPUS = [
    ("allennlp", "0.9.0", "353752e7b78e48c450e27889d80a3000c4a9af34f70ff9091b3031ad01320940", "wheel"),
    ("torch_geometric", "2.6.1", "8faeb353f9655f7dbec44c5e0b44c721773bdfb279994da96b9b8b12fd30f427", "wheel"),
    ("torchmetrics", "1.6.0", "a508cdd87766cedaaf55a419812bf9f493aff8fffc02cc19df5a8e2e7ccb942a", "wheel"),
    ("pytorch-lightning", "2.4.0", "9ac7935229ac022ef06994c928217ed37f525ac6700f7d4fc57009624570e655", "wheel"),
    ("timm", "1.0.11", "52a6f895e2cbec35a87d0846870419c2c0aa40de9b205bcda917f38278bf3044", "wheel"),
    ("torchvision", "0.20.1", "86f6523dee420000fe14c3527f6c8e0175139fda7d995b187f54a0b0ebec7eb6", "wheel"),
    ("pytorch-pretrained-bert", "0.6.2", "ddd86f2f4ca595a2ad05d48c35d4f5c1c5f150bef79d56e3159701840a574d06", "wheel"),
    ("pretrainedmodels", "0.7.4", "7e77ead4619a3e11ab3c41982c8ad5b86edffe37c87fd2a37ec3c2cc6470b98a", "sdist"),
    ("diffusers", "0.31.0", "cbc498ae63f4abfc7c3a07649cdcbee229ef2f9a9a1f0d19c9bbaf22f8d30c1f", "wheel"),
    ("speechbrain", "1.0.2", "fe5328554c28bc8fe8bfef355144ee9de5cf569b9706cee2267e19c99b092578", "wheel"),
    ("stable-baselines3", "2.4.0", "c37c6986d8b3b253e4e52620dc1e4eaeb28b896ee411de289782deab8f83721f", "wheel"),
    ("allennlp", "0.5.0", "5dec408b9675f32efe47e72031aedea655546c06c64c23abd4495152120ae8a7", "wheel"),
    ("fastai", "0.7.0", "a7a511da6d5406de23932e9a73d62c1075ca70fe06fb604389db1e6b07112a18", "wheel"),
    ("pyro-ppl", "0.1.2", "8fd95ccc49f45ed622dde4812e19e1a9e1fec6ccb4597342678157065daeedfb", "sdist"),
    ("pytorch-ignite", "0.1.0", "b54a6d731b9b3d7b5012d97c8aaec92ebd90c342d1be5d70d2637c85d1dcdffe", "wheel"),
    ("skorch", "0.2.0", "16ab46e23a1c1aa2bf026b1696239ad373a0ff9476dabb3bd6452abfc560d955", "wheel"),
    ("torchtext", "0.2.3", "268157efa287daa7fa78cc94e41d6e624dc1362dd85791df49ab86b888836de6", "sdist"),
    # Three more 2017-2018 code bases, chosen by a rule fixed before anything was
    # measured on them: of the PyTorch libraries of the period not in the corpus
    # yet (torchvision, tensorboardX, torchnet, inferno-pytorch, pytorch-nlp), those
    # of which PyPI serves a release uploaded between 2017-09-01 and 2018-05-31
    # (the archive's file times), the last such release, the three most downloaded
    # first (PyPI's download ranking). torchnet's releases are all of 2018-07 and
    # inferno-pytorch's only one of 2017-08, so exactly these three qualify.
    ("torchvision", "0.2.1", "ba0a5e7fa1646d4e7f2e5ad5802d123e17e42a1a9c026d0f79d2fd3a976afba1", "wheel"),
    ("tensorboardX", "1.2", "f018460e5b06cd0c1eeba405be93893d769e2fc06f0167a0b9d1c967db58a3b7", "wheel"),
    ("pytorch-nlp", "0.3.5", "daa5d3dd5fcedb8192a07b6cf812df52ae7c88f51ce0593dd2450a4b5304ff9c", "wheel"),
]
# Which torch each code base was written for: "legacy" for the 0.3/0.4 era
# (2017-2018: Variable, volatile, .data[0]), "modern" for torch 1.x and later.
# Precision is judged apart for the two, since the legacy rules only fire on
# the former.
ERA = {
    "allennlp-0.9.0": "modern",
    "torch_geometric-2.6.1": "modern",
    "torchmetrics-1.6.0": "modern",
    "pytorch-lightning-2.4.0": "modern",
    "timm-1.0.11": "modern",
    "torchvision-0.20.1": "modern",
    "pytorch-pretrained-bert-0.6.2": "modern",
    "pretrainedmodels-0.7.4": "legacy",
    "diffusers-0.31.0": "modern",
    "speechbrain-1.0.2": "modern",
    "stable-baselines3-2.4.0": "modern",
    "allennlp-0.5.0": "legacy",
    "fastai-0.7.0": "legacy",
    "pyro-ppl-0.1.2": "legacy",
    "pytorch-ignite-0.1.0": "legacy",
    "skorch-0.2.0": "legacy",
    "torchtext-0.2.3": "legacy",
    "torchvision-0.2.1": "legacy",
    "tensorboardX-1.2": "legacy",
    "pytorch-nlp-0.3.5": "legacy",
}
WHEEL_PLATFORM = ["--platform", "manylinux1_x86_64", "--python-version", "3.11", "--implementation", "cp", "--abi", "cp311"]

# The peers and every package they need, pinned, installed with --no-deps.
PEERS = [
    "torchfix==0.7.0",
    "libcst==1.5.1",
    "PyYAML==6.0.2",
    "flake8==7.1.1",
    "pyflakes==3.2.0",
    "pycodestyle==2.12.1",
    "mccabe==0.7.0",
    "ruff==0.8.0",
]

SMALL_FILE = '''\
import torch
from torch.autograd import Variable


def train(model, loader, optimizer, criterion):
    model.train()
    for data, target in loader:
        data, target = Variable(data), Variable(target)
        optimizer.zero_grad()
        loss = criterion(model(data), target)
        loss.backward()
        optimizer.step()
        print("loss %.4f" % loss.data[0])
'''

TARGETS = {
    "cold_vs_torchfix": 0.10,
    "warm_vs_cold": 1 / 20,
    "jobs1_rss_mb": 250.0,
    "small_file_s": 0.35,
    # CPU time of a cold run over the corpus, against the revision given as --baseline.
    "cold_vs_baseline": 1.1,
}


# -- corpus and peers ------------------------------------------------------------


def pip(python: Sequence[str], *args: str) -> None:
    subprocess.run([*python, "-m", "pip", "--disable-pip-version-check", *args], check=True)


def build_corpus(only: Optional[Sequence[str]] = None) -> Path:
    """Downloads and unpacks the corpus; ``only``: the code bases ("name-version") to build, all if None."""
    downloads, corpus = WORK / "downloads", WORK / "corpus"
    downloads.mkdir(parents=True, exist_ok=True)
    # The repository's .gitignore ignores benchmarks/.work. gradlint walks a directory
    # named on the command line whatever git says of it, but the revisions from
    # 6126842 (walks respect .gitignore) until that was fixed walk nothing under an
    # ignored directory: re-including everything here (read by gradlint only, git
    # does not look inside an ignored directory) lets them check the corpus when
    # run as baselines.
    (WORK / ".gitignore").write_text("# read by gradlint's walks only: see benchmarks/run.py\n!*\n")
    selected = [c for c in CORPUS if only is None or f"{c[0]}-{c[1]}" in only]
    for kind, extra in (("wheel", ["--only-binary=:all:", *WHEEL_PLATFORM]), ("sdist", ["--no-binary=:all:"])):
        missing = [c for c in selected if c[3] == kind and not _archive(downloads, c[0], c[1])]
        # One requirements file may name a package once: two releases of the
        # same package (allennlp 0.5.0 and 0.9.0) need separate downloads.
        while missing:
            batch, names = [], set()
            for c in missing:
                if c[0] not in names:
                    batch.append(c)
                    names.add(c[0])
            missing = [c for c in missing if c not in batch]
            with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as req:
                for name, version, digest, _ in batch:
                    req.write(f"{name}=={version} --hash=sha256:{digest}\n")
            try:
                pip([sys.executable], "download", "--no-deps", "--require-hashes", *extra, "-d", str(downloads), "-r", req.name)
            finally:
                os.unlink(req.name)
    _unpack_all(corpus, downloads, [(name, version) for name, version, _, _ in selected])
    return corpus


def _unpack_all(corpus: Path, downloads: Path, releases) -> None:
    """Each downloaded release's ``.py`` files into ``corpus/<name>-<version>``, once."""
    for name, version in releases:
        target = corpus / f"{name}-{version}"
        if (target / ".complete").exists():
            continue
        shutil.rmtree(target, ignore_errors=True)
        archive = _archive(downloads, name, version)
        assert archive is not None, f"{name} {version} was not downloaded"
        _unpack_py(archive, target)
        (target / ".complete").write_text("")


def _archive(downloads: Path, name: str, version: str) -> Optional[Path]:
    stem = name.replace("-", "_").lower()
    for p in downloads.iterdir():
        rest = p.name.replace("-", "_").lower()[len(stem) + 1 :]
        # The version must end where the name's version part ends: 0.2.0 is not 0.20.1.
        if p.name.replace("-", "_").lower().startswith(f"{stem}_{version}") and rest[len(version) : len(version) + 1] in ("_", ".") and p.suffix in (".whl", ".gz"):
            return p
    return None


def _unpack_py(archive: Path, target: Path) -> None:
    """Only the regular ``.py`` files, at safe relative paths (no links, no ``..``)."""

    def write(name: str, data: bytes) -> None:
        rel = PurePosixPath(name)
        if rel.is_absolute() or ".." in rel.parts or not name.endswith(".py"):
            return
        out = target.joinpath(*rel.parts)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(data)

    if archive.suffix == ".whl":
        with zipfile.ZipFile(archive) as zf:
            for info in zf.infolist():
                if not info.is_dir():
                    write(info.filename, zf.read(info))
    else:
        with tarfile.open(archive) as tf:
            for member in tf.getmembers():
                if member.isfile():
                    fh = tf.extractfile(member)
                    if fh is not None:
                        write(member.name, fh.read())


def build_peers() -> Path:
    venv = WORK / "peers"
    stamp = venv / "pins.txt"
    pins = "\n".join(PEERS) + "\n"
    if not (stamp.exists() and stamp.read_text() == pins):
        shutil.rmtree(venv, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        python = [str(venv / "bin" / "python")]
        pip(python, "install", "--quiet", "--no-deps", *PEERS)
        pip(python, "check")
        stamp.write_text(pins)
    return venv / "bin"


def corpus_stats(corpus: Path) -> Tuple[int, int, int]:
    files = [p for p in corpus.rglob("*.py")]
    lines = size = 0
    for p in files:
        data = p.read_bytes()
        size += len(data)
        lines += data.count(b"\n")
    return len(files), lines, size


# -- measuring -------------------------------------------------------------------


@dataclass
class Run:
    wall: float
    rss_kb: int  # the largest single process (getrusage)
    tree_kb: int  # all processes of the run together (sampled every 20 ms)
    returncode: int
    stdout: bytes
    # User + system CPU seconds of the run, its worker processes included: what the
    # run costs, whatever else the machine is doing meanwhile.
    cpu: float = 0.0


def _tree_rss_kb(pid: int) -> int:
    total, stack, page_kb = 0, [pid], os.sysconf("SC_PAGE_SIZE") // 1024
    while stack:
        p = stack.pop()
        try:
            with open(f"/proc/{p}/statm") as fh:
                total += int(fh.read().split()[1]) * page_kb
            with open(f"/proc/{p}/task/{p}/children") as fh:
                stack.extend(int(c) for c in fh.read().split())
        except (OSError, ValueError):
            continue
    return total


def measure(cmd: Sequence[str], cwd: Path) -> Run:
    with tempfile.TemporaryFile() as out, open(os.devnull, "wb") as devnull:
        start = time.perf_counter()
        proc = subprocess.Popen(list(cmd), cwd=cwd, stdout=out, stderr=devnull)
        peak = [0]
        stop = threading.Event()

        def sample() -> None:
            while not stop.is_set():
                peak[0] = max(peak[0], _tree_rss_kb(proc.pid))
                stop.wait(0.02)

        sampler = threading.Thread(target=sample, daemon=True)
        if sys.platform.startswith("linux"):
            sampler.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        except BaseException:  # Ctrl-C: do not leave the tool running
            stop.set()
            proc.kill()
            proc.wait()
            raise
        wall = time.perf_counter() - start
        stop.set()
        if sampler.is_alive():
            sampler.join()
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        return Run(wall, usage.ru_maxrss, max(peak[0], usage.ru_maxrss), proc.returncode, out.read(), usage.ru_utime + usage.ru_stime)


@dataclass
class Tool:
    key: str
    label: str
    cmd: List[str]
    runs: List[Run] = field(default_factory=list)

    def median(self) -> float:
        return statistics.median(r.wall for r in self.runs)


def gradlint_cmd() -> List[str]:
    script = Path(sys.executable).parent / "gradlint"
    return [str(script)] if script.exists() else [sys.executable, "-m", "gradlint"]


def tools(peers: Path, cache_dir: Path) -> List[Tool]:
    g = gradlint_cmd()
    return [
        Tool("cold", "gradlint check (cold: no cache, default jobs)", [*g, "check", "--select", "ALL", "--no-cache", "corpus"]),
        Tool("jobs1", "gradlint check --jobs 1 (no cache)", [*g, "check", "--select", "ALL", "--no-cache", "--jobs", "1", "corpus"]),
        Tool("warm", "gradlint check (warm cache)", [*g, "check", "--select", "ALL", "--cache-dir", str(cache_dir), "corpus"]),
        Tool("torchfix", "torchfix --select ALL", [str(peers / "torchfix"), "--select", "ALL", "corpus"]),
        Tool("ruff", "ruff check --select E9 (no cache)", [str(peers / "ruff"), "check", "--isolated", "--no-cache", "--select", "E9", "--exit-zero", "corpus"]),
    ]


# -- checks ----------------------------------------------------------------------


def check_outputs(all_tools: Dict[str, Tool], cache_dir: Path) -> List[str]:
    """Problems found: parallel and cached runs must print what the serial uncached run prints."""
    problems = []
    reference = all_tools["jobs1"].runs[0]
    for key in ("jobs1", "cold", "warm"):
        for i, run in enumerate(all_tools[key].runs):
            if (run.stdout, run.returncode) != (reference.stdout, reference.returncode):
                problems.append(f"{key} run {i + 1}: output differs from the serial uncached run")
    g = gradlint_cmd()
    base = [*g, "check", "--select", "ALL", "--output-format", "json", "corpus"]
    serial = measure([*base, "--no-cache", "--jobs", "1"], WORK)
    json_cache = cache_dir.parent / "cache-json"
    shutil.rmtree(json_cache, ignore_errors=True)
    for label, cmd in (
        ("json, default jobs", [*base, "--no-cache"]),
        ("json, cache filled", [*base, "--cache-dir", str(json_cache)]),
        ("json, from cache", [*base, "--cache-dir", str(json_cache)]),
    ):
        run = measure(cmd, WORK)
        if (run.stdout, run.returncode) != (serial.stdout, serial.returncode):
            problems.append(f"{label}: output differs from the serial uncached run")
    return problems


_BURN = "import sys\nx = 0\nfor i in range(int(sys.argv[1])):\n    x += i * i\n"


def cpu_capacity() -> float:
    """How many times more pure-Python work two processes get done than one, here
    and now: 2.0 on an idle 2-core machine, less when other work holds the cores.
    The parallel runs' figures mean little without it."""
    n = "6000000"
    one = measure([sys.executable, "-c", _BURN, n], WORK).wall
    start = time.perf_counter()
    procs = [subprocess.Popen([sys.executable, "-c", _BURN, n]) for _ in range(2)]
    for p in procs:
        p.wait()
    return 2 * one / (time.perf_counter() - start)


def small_file(repeat: int) -> Dict[str, float]:
    g = gradlint_cmd()
    target = WORK / "small" / "train.py"
    target.parent.mkdir(parents=True, exist_ok=True)
    untriggered = target.parent / "model.py"
    untriggered.write_text("import torch\n\n\nclass Net(torch.nn.Module):\n    def forward(self, x):\n        return x * 2\n")
    cache = target.parent / ".gradlint_cache"
    shutil.rmtree(cache, ignore_errors=True)
    times: Dict[str, List[float]] = {"findings": [], "no_triggers": [], "no_cache": []}
    target.write_text(SMALL_FILE)
    measure([*g, "check", "--no-cache", "train.py"], target.parent)  # compiles what it imports, once
    for i in range(repeat):
        # As in pre-commit: the file was just edited, so it is never a cache hit.
        target.write_text(SMALL_FILE + f"# edit {i}\n")
        times["findings"].append(measure([*g, "check", "train.py"], target.parent).wall)
        times["no_cache"].append(measure([*g, "check", "--no-cache", "train.py"], target.parent).wall)
        untriggered.write_text(untriggered.read_text() + f"# edit {i}\n")
        times["no_triggers"].append(measure([*g, "check", "model.py"], target.parent).wall)
    return {k: statistics.median(v) for k, v in times.items()}


def import_times() -> List[Tuple[str, float]]:
    """(module, cumulative ms) of the heaviest imports of ``gradlint check`` on one file."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "gradlint", "check", "--no-cache", "train.py"],
        cwd=WORK / "small",
        capture_output=True,
        text=True,
    )
    # Lines read "import time: <self us> | <cumulative us> | <indented name>";
    # the indentation (two spaces a level) says who imported whom.
    rows, total = [], 0.0
    for line in proc.stderr.splitlines():
        fields = line[len("import time:") :].split("|") if line.startswith("import time:") else []
        if len(fields) != 3 or not fields[0].strip().isdigit():
            continue
        total += int(fields[0]) / 1000
        name = fields[2][1:]  # one space after the bar, then two per level
        if not name.startswith(" "):  # imported at the top level, not by another import
            rows.append((name.strip(), int(fields[1]) / 1000))
    rows.sort(key=lambda r: -r[1])
    return [("(all imports together)", total)] + rows[:8]


# -- against a baseline revision ----------------------------------------------------
# The same interpreter and the same corpus, this tree's gradlint and another
# revision's, alternating run by run (so that a change in the machine's load
# falls on both), compared on CPU time: user + system of the run's processes,
# which on a shared machine moves far less with the others' load than wall
# time does.

SPEED_SECTION = "<!-- against a baseline revision: benchmarks/run.py --speed --baseline REV -->"


class BaselineTree:
    """Another revision's files, unpacked in a temporary directory (``git archive``:
    nothing is registered in the repository), run as ``python -m gradlint`` with
    that directory first on ``PYTHONPATH``."""

    def __init__(self, rev: str) -> None:
        self.rev = rev
        self.short = subprocess.run(["git", "rev-parse", "--short", rev], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
        self.path = Path(tempfile.mkdtemp(prefix="gradlint-baseline-"))
        data = subprocess.run(["git", "archive", "--format=tar", rev], cwd=ROOT, capture_output=True, check=True).stdout
        with tarfile.open(fileobj=io.BytesIO(data)) as tf:
            tf.extractall(self.path, filter="data")
        # The wheel ships rules/ as the package gradlint._catalog; from a source tree
        # the installed (editable) gradlint would answer with this tree's catalog.
        catalog, rules = self.path / "gradlint" / "_catalog", self.path / "rules"
        if rules.is_dir() and not catalog.exists():
            catalog.symlink_to(rules, target_is_directory=True)
        # The baseline's own benchmark scripts find the corpus (and other inputs) where
        # this tree's do.
        if (self.path / "benchmarks").is_dir() and WORK.is_dir() and not (self.path / "benchmarks" / ".work").exists():
            (self.path / "benchmarks" / ".work").symlink_to(WORK, target_is_directory=True)
        self._python: Optional[Path] = None

    def python(self) -> Path:
        """An interpreter whose installed gradlint is this revision's: a virtualenv whose
        one ``.pth`` file puts the unpacked tree first on ``sys.path`` and then adds this
        interpreter's site-packages (LibCST and the rest, the same versions for both;
        this tree's editable install there is a finder consulted after ``sys.path``)."""
        if self._python is None:
            venv = self.path.parent / f"{self.path.name}-venv"
            subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
            python = venv / "bin" / "python"
            purelib = subprocess.run(
                [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], capture_output=True, text=True, check=True
            ).stdout.strip()
            import site

            lines = [str(self.path)] + [f"import site; site.addsitedir({d!r})" for d in site.getsitepackages() if Path(d).is_dir()]
            Path(purelib, "gradlint_baseline.pth").write_text("\n".join(lines) + "\n")
            found = subprocess.run(
                [str(python), "-c", "import gradlint; print(gradlint.__file__)"], capture_output=True, text=True, check=True, cwd=self.path.parent
            ).stdout.strip()
            if not Path(found).resolve().is_relative_to(self.path.resolve()):
                raise RuntimeError(f"the baseline interpreter imports gradlint from {found}, not from {self.path}")
            self._python = python
        return self._python

    def env(self) -> Dict[str, str]:
        return {**os.environ, "PYTHONPATH": os.pathsep.join([str(self.path), *filter(None, [os.environ.get("PYTHONPATH")])])}

    def close(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)
        shutil.rmtree(self.path.parent / f"{self.path.name}-venv", ignore_errors=True)


def _module_cmd() -> List[str]:
    # Both trees start the same way (the installed console script would differ in start-up).
    return [sys.executable, "-m", "gradlint"]


def measure_env(cmd: Sequence[str], cwd: Path, env: Optional[Dict[str, str]]) -> Run:
    if env is None:
        return measure(cmd, cwd)
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        return measure(cmd, cwd)
    finally:
        os.environ.clear()
        os.environ.update(saved)


@dataclass
class Versus:
    """One figure measured on this tree and on the baseline, alternating."""

    label: str
    head: List[Run] = field(default_factory=list)
    base: List[Run] = field(default_factory=list)

    @staticmethod
    def _median(runs: List[Run], what: str) -> float:
        return statistics.median(getattr(r, what) for r in runs)

    def ratio(self, what: str) -> float:
        return self._median(self.head, what) / self._median(self.base, what)


def versus_baseline(base: BaselineTree, corpus_repeat: int, small_repeat: int, serial: bool = True) -> Dict[str, Versus]:
    """The corpus cold (default jobs, and ``--jobs 1`` if ``serial``) and one small file
    end to end, each on this tree and on ``base``, alternating (the order swaps each
    repetition)."""
    g = _module_cmd()
    corpus_cmds = {
        "cold": ("gradlint check, cold (no cache, default jobs)", [*g, "check", "--select", "ALL", "--no-cache", "corpus"]),
        "jobs1": ("gradlint check --jobs 1 (no cache)", [*g, "check", "--select", "ALL", "--no-cache", "--jobs", "1", "corpus"]),
    }
    if not serial:
        del corpus_cmds["jobs1"]
    out = {key: Versus(label) for key, (label, _) in corpus_cmds.items()}
    trees = [("head", None), ("base", base.env())]
    for rep in range(corpus_repeat):
        for key, (_, cmd) in corpus_cmds.items():
            for which, env in trees if rep % 2 == 0 else trees[::-1]:
                run = measure_env(cmd, WORK, env)
                getattr(out[key], which).append(run)
                print(f"  [{rep + 1}/{corpus_repeat}] {key}, {which}: {run.cpu:.2f} s CPU, {run.wall:.2f} s wall, exit {run.returncode}", flush=True)
    small = WORK / "small"
    small.mkdir(parents=True, exist_ok=True)
    target = small / "train.py"
    target.write_text(SMALL_FILE)
    for _, env in trees:  # compiles the modules a small file needs, once (see ``cache_bytecode``)
        measure_env([*g, "check", "--no-cache", "train.py"], small, env)
    out["small"] = Versus("one small file with findings, `--no-cache`, process start to exit")
    for rep in range(small_repeat):
        target.write_text(SMALL_FILE)
        for which, env in trees if rep % 2 == 0 else trees[::-1]:
            getattr(out["small"], which).append(measure_env([*g, "check", "--no-cache", "train.py"], small, env))
    print(f"  small file: head {Versus._median(out['small'].head, 'wall'):.3f} s, base {Versus._median(out['small'].base, 'wall'):.3f} s", flush=True)
    return out


def render_versus(versus: Dict[str, Versus], base: BaselineTree, stats: Tuple[int, int, int], repeat: int, small_repeat: int) -> List[str]:
    lines = [
        f"This tree against revision {base.short} (`--baseline {base.rev}`): the same interpreter and corpus "
        f"({stats[0]:,} files), the two alternating run by run, {repeat}× each on the corpus and {small_repeat}× on the "
        "small file; medians. CPU: user + system seconds of the run's processes together, which a loaded machine "
        "changes far less than wall time.",
        "",
        f"| run | CPU, this tree | CPU, {base.short} | CPU ratio | wall, this tree | wall, {base.short} | wall ratio |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for v in versus.values():
        med = Versus._median
        lines.append(
            f"| {v.label} | {med(v.head, 'cpu'):.2f} s | {med(v.base, 'cpu'):.2f} s | {v.ratio('cpu'):.3f} "
            f"| {med(v.head, 'wall'):.2f} s | {med(v.base, 'wall'):.2f} s | {v.ratio('wall'):.3f} |"
        )
    cold, small = versus["cold"], versus["small"]
    lines += [
        "",
        "| target | value | target | |",
        "| --- | ---: | ---: | --- |",
        f"| cold CPU time / {base.short}'s | {cold.ratio('cpu'):.3f} | ≤ {TARGETS['cold_vs_baseline']} | {'met' if cold.ratio('cpu') <= TARGETS['cold_vs_baseline'] else '**missed**'} |",
        f"| small file, wall time | {Versus._median(small.head, 'wall'):.3f} s | < {TARGETS['small_file_s']} s | {'met' if Versus._median(small.head, 'wall') < TARGETS['small_file_s'] else '**missed**'} |",
        f"| small file, CPU time / {base.short}'s | {small.ratio('cpu'):.3f} | | |",
    ]
    return lines


def cache_bytecode() -> None:
    """Let the runs measured write and read compiled bytecode (under ``.work/pycache``),
    as an installed package's modules are compiled once: an environment that sets
    PYTHONDONTWRITEBYTECODE would otherwise have every run compile every module it
    imports, and a small file's run measure mostly that."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = str(WORK / "pycache")


# -- speed figures: every benchmarks/speed_*.py, this tree against a baseline ------
# Each script measures one topic with the interpreter given as --python, prints
# what it does, and as its last line one JSON object of figures (see
# docs/benchmarks.md, "Speed figures against a baseline revision").


@dataclass
class ScriptPlan:
    """One speed script, and the file run for each side: the side's own copy, or the
    other tree's where that side has none (a script newer than the baseline)."""

    topic: str
    head: Path
    base: Path


def discover_speed_scripts(head_root: Path, base_root: Optional[Path]) -> List[ScriptPlan]:
    """``benchmarks/speed_*.py`` of both trees, by topic (sorted)."""
    mine = {p.stem: p for p in sorted((head_root / "benchmarks").glob("speed_*.py"))}
    theirs = {p.stem: p for p in sorted((base_root / "benchmarks").glob("speed_*.py"))} if base_root is not None else {}
    return [
        ScriptPlan(topic[len("speed_") :], mine.get(topic, theirs.get(topic)), theirs.get(topic, mine.get(topic)))  # type: ignore[arg-type]
        for topic in sorted(set(mine) | set(theirs))
    ]


def last_json(stdout: str) -> Optional[Dict[str, object]]:
    """The figures a speed script printed: its last non-empty line, a JSON object; None otherwise."""
    lines = [line for line in stdout.splitlines() if line.strip()]
    if not lines:
        return None
    try:
        found = json.loads(lines[-1])
    except ValueError:
        return None
    return found if isinstance(found, dict) else None


@dataclass
class ScriptResult:
    figures: Optional[Dict[str, object]]
    note: str = ""  # why there are no figures, or which script file ran


def run_speed_script(script: Path, python: Path, repeat: int, timeout: float, label: str) -> ScriptResult:
    """Runs ``script`` with this interpreter (the scripts use only the standard library),
    measuring the gradlint of ``python``; its lines are echoed as they come."""
    cmd = [sys.executable, str(script), "--python", str(python), "--repeat", str(repeat)]
    out: List[str] = []
    try:
        proc = subprocess.Popen(cmd, cwd=script.parent.parent, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    except OSError as exc:
        return ScriptResult(None, f"not started: {exc}")
    timer = threading.Timer(timeout, proc.kill)
    timer.start()
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            out.append(line)
            print(f"  [{label}] {line}", end="", flush=True)
        code = proc.wait()
    finally:
        timer.cancel()
    figures = last_json("".join(out))
    if code != 0:
        return ScriptResult(figures, f"exit {code}" + (f" (killed after {timeout:.0f} s)" if code < 0 else ""))
    return ScriptResult(figures, "" if figures is not None else "no JSON line at the end")


def _number(value: object) -> Optional[float]:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value or value in (float("inf"), float("-inf")):
        return None
    return float(value)


def format_figure(value: object) -> str:
    if value is None:
        return "n/a"
    number = _number(value)
    if number is None:
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    return f"{number:.1f}" if abs(number) >= 100 else f"{number:.2f}" if abs(number) >= 1 else f"{number:.3f}"


def figure_ratio(head: object, base: object) -> Optional[float]:
    h, b = _number(head), _number(base)
    return None if h is None or b is None or b == 0 else h / b


def speed_rows(plans: Sequence[ScriptPlan], results: Dict[Tuple[str, str], ScriptResult]) -> List[Tuple[str, str, str, str, str]]:
    """(topic, figure, this tree, baseline, ratio) for every figure either side printed,
    in the order the scripts printed them; "n/a" where a side has none. A script that
    gave no figures on either side still has a row, saying why."""
    rows = []
    for plan in plans:
        head, base = results[(plan.topic, "head")], results[(plan.topic, "base")]
        h, b = head.figures or {}, base.figures or {}
        names = list(h) + [n for n in b if n not in h]
        if not names:
            rows.append((plan.topic, "(no figures)", head.note or "n/a", base.note or "n/a", "n/a"))
        for name in names:
            ratio = figure_ratio(h.get(name), b.get(name))
            rows.append((plan.topic, name, format_figure(h.get(name)), format_figure(b.get(name)), "n/a" if ratio is None else f"{ratio:.3f}"))
    return rows


def render_speed(rows: Sequence[Tuple[str, str, str, str, str]], base_short: str, notes: Sequence[str]) -> List[str]:
    lines = [
        f"| script | figure | this tree | {base_short} | this / {base_short} |",
        "| --- | --- | ---: | ---: | ---: |",
    ]
    lines += [f"| `speed_{topic}.py` | {name} | {h} | {b} | {r} |" for topic, name, h, b, r in rows]
    if notes:
        lines += ["", *[f"- {n}" for n in notes]]
    return lines


SPEED_ABOUT = [
    "`benchmarks/run.py --speed --baseline REV` gathers every speed figure in one run. It unpacks revision REV "
    "(`git archive`) into a temporary directory and makes a virtualenv whose gradlint is REV's (that tree first on "
    "its path, this interpreter's packages after it), then runs each `benchmarks/speed_*.py` (found by glob, in both "
    "trees) twice: with `--python` naming this tree's interpreter and the baseline's, the same `--repeat N`, the order "
    "swapped from one script to the next. Each side runs its own copy of a script; a script REV lacks runs from this "
    "tree against REV's interpreter. A script prints what it measures and, as its last line, one JSON object of "
    "figures (median CPU seconds where the target is CPU time, wall seconds where it is wall time, ratios and counts "
    "as their names say); its module docstring states each target. The table puts the two sides' figures side by "
    "side with their ratio (this tree / REV); \"n/a\" where a side has no figure: a script that failed or is "
    "missing, a figure new in this tree, or one a script skipped (its input absent, with the reason printed).",
]


def speed(args: argparse.Namespace) -> int:
    """``--speed``: every ``benchmarks/speed_*.py`` with this tree's gradlint and with the
    baseline's, side by side; its own section of the docs."""
    base = BaselineTree(args.baseline)
    try:
        loads_before = os.getloadavg()
        base_python = base.python()
        plans = discover_speed_scripts(ROOT, base.path)
        if args.only:
            unknown = sorted(set(args.only) - {p.topic for p in plans})
            if unknown:
                raise SystemExit(f"--only: no benchmarks/speed_{unknown[0]}.py in either tree")
            plans = [p for p in plans if p.topic in args.only]
        print(f"speed scripts: {', '.join(p.topic for p in plans) or 'none'}; baseline {base.short} in {base.path}", flush=True)
        results: Dict[Tuple[str, str], ScriptResult] = {}
        notes: List[str] = []
        for k, plan in enumerate(plans):
            sides = [("head", plan.head, Path(sys.executable)), ("base", plan.base, base_python)]
            # The order swaps from one script to the next, so that neither side always runs second.
            for side, script, python in sides if k % 2 == 0 else sides[::-1]:
                label = f"{plan.topic}, {'this tree' if side == 'head' else base.short}"
                results[(plan.topic, side)] = result = run_speed_script(script, python, args.repeat, args.script_timeout, label)
                if result.note:
                    notes.append(f"`speed_{plan.topic}.py`, {label.split(', ')[1]}: {result.note}")
            if not plan.base.is_relative_to(base.path):
                notes.append(f"`speed_{plan.topic}.py` is not in {base.short}: this tree's script measured it")
        loads_after = os.getloadavg()
    finally:
        base.close()
    text = "\n".join(
        [
            SPEED_SECTION,
            "",
            "## Speed figures against a baseline revision",
            "",
            f"- Date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; gradlint {gradlint_version()}, revision {git_revision()}; baseline {base.short} (`--baseline {base.rev}`)",
            f"- Machine: {os.cpu_count()} logical CPUs; load average (1, 5, 15 min) before: {', '.join(f'{x:.2f}' for x in loads_before)}; after: {', '.join(f'{x:.2f}' for x in loads_after)}",
            f"- Each `benchmarks/speed_*.py` run once per tree with `--repeat {args.repeat}` (medians inside each script); figures are seconds unless the name says otherwise.",
            "",
            *SPEED_ABOUT,
            "",
            *render_speed(speed_rows(plans, results), base.short, notes),
        ]
    ) + "\n"
    print()
    print(text)
    # Some scripts' figures alone would replace the section's whole table.
    if not args.no_write and not args.only:
        _write_section(text, SPEED_SECTION)
        print(f"written to {DOCS}")
    return 0


# -- report ----------------------------------------------------------------------


def machine() -> List[str]:
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        kb = int(Path("/proc/meminfo").read_text().split("MemTotal:")[1].split()[0])
        mem = f", {kb / 1024 / 1024:.1f} GiB memory"
    except (OSError, IndexError, ValueError):
        pass
    try:
        usable = len(os.sched_getaffinity(0))  # type: ignore[attr-defined]
    except AttributeError:
        usable = os.cpu_count() or 1
    return [
        f"{model}; {os.cpu_count()} logical CPUs ({usable} usable){mem}",
        f"{platform.platform()}; Python {platform.python_version()}",
    ]


def version_of(cmd: Sequence[str]) -> str:
    try:
        return subprocess.run([*cmd, "--version"], capture_output=True, text=True, check=True).stdout.strip().splitlines()[0]
    except (OSError, subprocess.CalledProcessError, IndexError):
        return "?"


def gradlint_version() -> str:
    from gradlint import __version__

    return __version__


def git_revision() -> str:
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
        return rev + (" (with uncommitted changes)" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def render(
    all_tools: Dict[str, Tool],
    stats: Tuple[int, int, int],
    single: Dict[str, float],
    imports: List[Tuple[str, float]],
    problems: List[str],
    loads: Tuple[Tuple[float, ...], Tuple[float, ...]],
    repeat: int,
    peers: Path,
    capacity: List[float],
) -> str:
    n_files, n_lines, n_bytes = stats
    mb = lambda kb: f"{kb / 1024:.0f} MB"  # noqa: E731
    lines = [
        "| run | wall time (median) | min – max | files/s | peak RSS, largest process | peak RSS, all processes |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for t in all_tools.values():
        walls = [r.wall for r in t.runs]
        lines.append(
            f"| `{t.label}` | {t.median():.2f} s | {min(walls):.2f} – {max(walls):.2f} s | {n_files / t.median():,.0f} "
            f"| {mb(max(r.rss_kb for r in t.runs))} | {mb(max(r.tree_kb for r in t.runs))} |"
        )
    cold, warm, jobs1 = all_tools["cold"], all_tools["warm"], all_tools["jobs1"]
    tf, ruff = all_tools["torchfix"], all_tools["ruff"]
    rss1 = max(r.rss_kb for r in jobs1.runs) / 1024

    def verdict(ok: bool) -> str:
        return "met" if ok else "**missed**"

    ratios = [
        "| figure | value | target | |",
        "| --- | ---: | ---: | --- |",
        f"| gradlint cold / TorchFix | {cold.median() / tf.median():.3f} ({tf.median() / cold.median():.1f}× faster) | ≤ 0.10 | {verdict(cold.median() / tf.median() <= TARGETS['cold_vs_torchfix'])} |",
        f"| gradlint warm / gradlint cold | {warm.median() / cold.median():.3f} ({cold.median() / warm.median():.1f}× faster) | ≤ 0.05 | {verdict(warm.median() / cold.median() <= TARGETS['warm_vs_cold'])} |",
        f"| gradlint `--jobs 1` / TorchFix | {jobs1.median() / tf.median():.3f} | | |",
        f"| gradlint cold / Ruff (parse only) | {cold.median() / ruff.median():.1f} | | |",
        f"| gradlint warm / Ruff (parse only) | {warm.median() / ruff.median():.1f} | | |",
        f"| gradlint `--jobs 1` peak RSS | {rss1:.0f} MB | < 250 MB | {verdict(rss1 < TARGETS['jobs1_rss_mb'])} |",
        f"| one small file with findings, process start to exit (cache on, file just edited) | {single['findings']:.3f} s | < 0.35 s | {verdict(single['findings'] < TARGETS['small_file_s'])} |",
        f"| the same with `--no-cache` | {single['no_cache']:.3f} s | | |",
        f"| one small file without trigger words | {single['no_triggers']:.3f} s | | |",
    ]
    imports_table = ["| module | cumulative import time |", "| --- | ---: |"]
    imports_table += [f"| `{name}` | {ms:.0f} ms |" for name, ms in imports]
    corpus = ", ".join(f"{name} {version}" for name, version, _, _ in CORPUS)
    out = [
        "# Benchmarks",
        "",
        "Generated by `benchmarks/run.py` (see `benchmarks/README.md`); do not edit by hand.",
        "",
        f"- Date: {datetime.datetime.now().astimezone().strftime('%Y-%m-%d %H:%M %Z')}; gradlint {gradlint_version()}, revision {git_revision()}",
        f"- Peers: TorchFix {version_of([str(peers / 'torchfix')])}, {version_of([str(peers / 'ruff')])}",
        *[f"- Machine: {m}" for m in machine()],
        f"- Load average (1, 5, 15 min) before: {', '.join(f'{x:.2f}' for x in loads[0])}; after: {', '.join(f'{x:.2f}' for x in loads[1])}",
        f"- Parallel capacity (two processes of pure-Python work against one; 2.0 on an idle 2-core machine), before and after: {capacity[0]:.2f}, {capacity[1]:.2f}",
        f"- Corpus: {n_files:,} `.py` files, {n_lines:,} lines, {n_bytes / 1e6:.1f} MB: the `.py` files of {corpus} (pinned, hash-checked PyPI releases)",
        f"- Each run repeated {repeat}×, the tools interleaved (the order rotates each repetition); median shown. files/s is the corpus's file count over the wall time, for every tool.",
        "",
        "## Whole corpus",
        "",
        *lines,
        "",
        "## Targets and ratios",
        "",
        *ratios,
        "",
        "## Output identity",
        "",
        (
            "Every parallel and cached run (text output) and the JSON output with default jobs, cache filled and "
            "from cache printed exactly what the serial uncached run printed."
            if not problems
            else "**Differences found:** " + "; ".join(problems)
        ),
        "",
        "## Start-up (`python -X importtime -m gradlint check --no-cache train.py`)",
        "",
        *imports_table,
        "",
    ]
    return "\n".join(out)


# -- output formats and the language server --------------------------------------
# Separate from the TorchFix comparison: `run.py --formats` and `run.py --lsp`
# measure what a user of one format or of an editor waits for, and write their
# own section of docs/benchmarks.md (kept when the main run rewrites the rest).

# 2017-2018 releases written for PyTorch 0.3 (Variable, volatile, .data[0]):
# many findings per file, most with fixes, which is what output formats cost on.
LEGACY_CORPUS = [
    ("fastai", "0.7.0", "98466faea074f5b0b5d90798f25f8c948ca832de0313a097c7bc9feb8b694d59"),
    ("allennlp", "0.4.0", "f6d3e0e2877f6157966b2f081e45ab73f3b3b70b959d37aeb1d414171d4e6664"),
    ("pyro-ppl", "0.1.2", "8fd95ccc49f45ed622dde4812e19e1a9e1fec6ccb4597342678157065daeedfb"),
]
OUTPUT_FORMATS = ("concise", "full", "json", "sarif", "github")
FORMATS_TARGET = 1.2  # every format's time over concise's
LSP_TARGET_S = 0.3  # last change -> diagnostics, 500-line file
DEBOUNCE_S = 0.05  # gradlint.server.DEBOUNCE_S (not imported: the benchmark runs without pygls too)
SECTION = "<!-- output formats and language server: benchmarks/run.py --formats --lsp -->"
# Written by hand from pytest's timings (no run of this script measures the
# test suite): every run keeps it as it is.
SUITE_SECTION = "<!-- test suite: measured with pytest, not by benchmarks/run.py -->"
# The marked sections of docs/benchmarks.md, in the order they appear after the main run's text.
# benchmarks/output_formats.py writes the last one (output cost against a baseline, the server, --diff).
OUTPUT_SECTION = "<!-- output cost, editor server and --diff: benchmarks/output_formats.py -->"
_MARKERS = (SPEED_SECTION, SECTION, OUTPUT_SECTION, SUITE_SECTION)


def build_legacy_corpus() -> Path:
    downloads, corpus = WORK / "downloads-legacy", WORK / "legacy"
    downloads.mkdir(parents=True, exist_ok=True)
    if not all(_archive(downloads, name, version) for name, version, _ in LEGACY_CORPUS):
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as req:
            for name, version, digest in LEGACY_CORPUS:
                req.write(f"{name}=={version} --hash=sha256:{digest}\n")
        try:
            pip([sys.executable], "download", "--no-deps", "--require-hashes", "--no-binary=:all:", "-d", str(downloads), "-r", req.name)
        finally:
            os.unlink(req.name)
    _unpack_all(corpus, downloads, [(name, version) for name, version, _ in LEGACY_CORPUS])
    return corpus


def format_times(corpus: Path, repeat: int) -> List[Tuple[str, float, float, float, int]]:
    """(format, cold CPU s, cold wall s, warm wall s, output bytes), medians, for each
    output format, every rule selected, default jobs. Cold runs have no cache and
    are interleaved (each repetition runs every format once), so that a change in
    the machine's load does not fall on one format; warm runs read the cache that
    format's first run filled. CPU time (the run's processes together) is what
    the formats are compared on: on a shared machine wall time mostly measures
    the others' load."""
    g = gradlint_cmd()
    base = {fmt: [*g, "check", "--select", "ALL", "--output-format", fmt, corpus.name] for fmt in OUTPUT_FORMATS}
    cold: Dict[str, List[Run]] = {fmt: [] for fmt in OUTPUT_FORMATS}
    for rep in range(repeat):
        for fmt in OUTPUT_FORMATS:
            run = measure([*base[fmt], "--no-cache"], corpus.parent)
            cold[fmt].append(run)
            print(f"  [{rep + 1}/{repeat}] {fmt}: cold {run.cpu:.2f} s CPU, {run.wall:.2f} s wall", flush=True)
    results = []
    for fmt in OUTPUT_FORMATS:
        cache_dir = WORK / f"cache-{fmt}"
        shutil.rmtree(cache_dir, ignore_errors=True)
        measure([*base[fmt], "--cache-dir", str(cache_dir)], corpus.parent)
        warm = [measure([*base[fmt], "--cache-dir", str(cache_dir)], corpus.parent) for _ in range(repeat)]
        runs = cold[fmt]
        results.append(
            (
                fmt,
                statistics.median(r.cpu for r in runs),
                statistics.median(r.wall for r in runs),
                statistics.median(r.wall for r in warm),
                len(runs[0].stdout),
            )
        )
        print(f"  {fmt}: warm {results[-1][3]:.2f} s", flush=True)
    return results


def legacy_document(lines: int, async_args: Optional[bool] = None) -> str:
    """A PyTorch 0.3-era module of about ``lines`` lines: one legacy finding or more every few
    lines. ``async_args`` True: each loop also moves its batch with 0.3's ``x.cuda(async=True)``
    (a file that parses only once renamed); False: with ``x.cuda()``, the same file otherwise."""
    out = ["import torch", "from torch.autograd import Variable", ""]
    i = 0
    while len(out) < lines - 8:
        out += [
            "",
            f"def evaluate_{i}(model, loader):",
            "    total = 0",
            "    for x, y in loader:",
            *(() if async_args is None else ("        x = x.cuda(async=True)" if async_args else "        x = x.cuda()",)),
            "        out = model(Variable(x, volatile=True))",
            "        total += (out - Variable(y)).abs().sum().data[0]",
            "    return total",
        ]
        i += 1
    return "\n".join(out) + "\n"


class _LspClient:
    """Just enough of an LSP client (Content-Length framed JSON-RPC over stdio)."""

    def __init__(self, cwd: Path) -> None:
        import json
        import queue

        self.json, self.queue = json, queue.Queue()
        self.proc = subprocess.Popen([*gradlint_cmd(), "server"], cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            assert length is not None
            self.queue.put((time.perf_counter(), self.json.loads(out.read(length))))

    def send(self, message: Dict) -> None:
        body = self.json.dumps({"jsonrpc": "2.0", **message}).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def request(self, method: str, params: object) -> Tuple[float, Dict]:
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        return self.wait(lambda m: m.get("id") == self.next_id and "method" not in m)

    def wait(self, match) -> Tuple[float, Dict]:
        while True:
            at, message = self.queue.get(timeout=120)
            if match(message):
                return at, message

    def diagnostics(self, uri: str, version: int) -> Tuple[float, Dict]:
        return self.wait(
            lambda m: m.get("method") == "textDocument/publishDiagnostics"
            and m["params"]["uri"] == uri
            and m["params"].get("version") == version
        )

    def close(self) -> None:
        try:
            self.request("shutdown", None)
            self.send({"method": "exit", "params": None})
            self.proc.wait(timeout=10)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()


def _process_cpu(pid: int) -> float:
    """CPU seconds (user + system) the process ``pid`` has used so far; 0 where /proc is not there."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def lsp_latency(sizes: Sequence[int], repeat: int) -> List[Tuple[int, int, float, float, float, float]]:
    """(lines, findings, didOpen -> diagnostics, last of six keystrokes -> diagnostics,
    a code action, the server's CPU time from the last keystroke to the diagnostics)
    in seconds (medians) for legacy documents of ``sizes`` lines."""
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        client = _LspClient(root)
        try:
            resolve = {"textDocument": {"codeAction": {"resolveSupport": {"properties": ["edit"]}}}}
            client.request("initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": resolve})
            client.send({"method": "initialized", "params": {}})
            for n in sizes:
                text = legacy_document(n)
                opens, changes, actions, cpus, findings = [], [], [], [], 0
                for rep in range(repeat):
                    path = root / f"doc_{n}_{rep}.py"
                    path.write_text(text)
                    uri = path.as_uri()
                    start = time.perf_counter()
                    client.send({"method": "textDocument/didOpen", "params": {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}}})
                    at, published = client.diagnostics(uri, 1)
                    opens.append(at - start)
                    findings = len(published["params"]["diagnostics"])
                    version = 1
                    for ch in "# ok\n":  # typed at the top of the file, one change per keystroke
                        version += 1
                        pos = {"line": 3, "character": version - 2}
                        last = time.perf_counter()
                        cpu = _process_cpu(client.proc.pid)
                        client.send({"method": "textDocument/didChange", "params": {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"range": {"start": pos, "end": pos}, "text": ch}]}})
                    at, _ = client.diagnostics(uri, version)
                    changes.append(at - last)
                    cpus.append(_process_cpu(client.proc.pid) - cpu)
                    first = published["params"]["diagnostics"][0]["range"]
                    start = time.perf_counter()
                    at, _ = client.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": first, "context": {"diagnostics": []}})
                    actions.append(at - start)
                    client.send({"method": "textDocument/didClose", "params": {"textDocument": {"uri": uri}}})
                results.append(
                    (n, findings, statistics.median(opens), statistics.median(changes), statistics.median(actions), statistics.median(cpus))
                )
                print(
                    f"  {n} lines: open {results[-1][2]:.3f} s, change {results[-1][3]:.3f} s "
                    f"(server CPU {results[-1][5]:.3f} s), code action {results[-1][4]:.3f} s",
                    flush=True,
                )
        finally:
            client.close()
    return results


def render_formats_and_lsp(
    formats: Optional[List[Tuple[str, float, float, float, int]]],
    legacy: Optional[Tuple[int, int, int]],
    lsp: Optional[List[Tuple[int, int, float, float, float, float]]],
    repeat: int,
) -> str:
    out = [SECTION, "", "## Output formats and the language server", ""]
    out.append(f"- Date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; gradlint {gradlint_version()}, revision {git_revision()}")
    out.append(f"- Machine: {os.cpu_count()} logical CPUs; load average before: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    out.append(f"- Medians of {repeat} runs.")
    if formats is not None and legacy is not None:
        names = ", ".join(f"{n} {v}" for n, v, _ in LEGACY_CORPUS)
        out += [
            "",
            "### Output formats on a legacy corpus",
            "",
            f"`gradlint check --select ALL --output-format F` (default jobs) on the `.py` files of {names} "
            f"(PyTorch 0.3-era code: {legacy[0]:,} files, {legacy[1]:,} lines; pinned, hash-checked PyPI sdists). "
            "Cold: `--no-cache`; warm: a second run from the cache.",
            "",
            "| format | cold, CPU | CPU / concise | cold, wall | warm, wall | output |",
            "| --- | ---: | ---: | ---: | ---: | ---: |",
        ]
        concise = next(c for f, c, _, _, _ in formats if f == "concise")
        for fmt, cpu, wall, warm, size in formats:
            ratio = cpu / concise
            mark = "" if fmt == "concise" else (" (met)" if ratio <= FORMATS_TARGET else " (NOT met)")
            out.append(f"| `{fmt}` | {cpu:.2f} s | {ratio:.2f}{mark} | {wall:.2f} s | {warm:.2f} s | {size / 1024:,.0f} KiB |")
        out += [
            "",
            f"Target: every format within {FORMATS_TARGET}× of `concise`, in CPU time (user + system, worker processes "
            "included; wall times on a shared machine mostly measure the others' load).",
        ]
    if lsp is not None:
        out += [
            "",
            "### Language server latency",
            "",
            "`gradlint server` over stdio, driven by a JSON-RPC client in `benchmarks/run.py`, on generated PyTorch 0.3-era "
            "modules (a legacy finding or more every few lines). *Open*: `didOpen` to the diagnostics; *typing*: five "
            "keystrokes, one incremental `didChange` each, from the last one to the diagnostics of that version (one "
            f"check, of the last version, {DEBOUNCE_S * 1000:.0f} ms after it); *server CPU*: the CPU time the server "
            "used in that interval (the check, without building fixes, and publishing); *code action*: a `codeAction` "
            "request on a finding, its fix built and rendered on request from that version's check.",
            "",
            "| lines | findings | open | typing: last change → diagnostics | server CPU | code action |",
            "| ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        for n, findings, opened, changed, action, cpu in lsp:
            out.append(f"| {n} | {findings} | {opened:.3f} s | {changed:.3f} s | {cpu:.3f} s | {action:.3f} s |")
        largest = max(lsp)
        n, _, _, changed, _, cpu = largest
        rest = max(0.0, changed - DEBOUNCE_S - cpu)
        out += [
            "",
            f"Target: diagnostics within {LSP_TARGET_S} s of the last change on a 500-line file. At {n} lines the time "
            f"splits into the pause {DEBOUNCE_S:.3f} s + the server's CPU {cpu:.3f} s (check and publish) + "
            f"{rest:.3f} s of transport and of waiting for a CPU: {DEBOUNCE_S + cpu:.3f} s on an idle CPU "
            f"({'met' if DEBOUNCE_S + cpu <= LSP_TARGET_S else 'NOT met'}), {changed:.3f} s measured "
            f"({'met' if changed <= LSP_TARGET_S else 'NOT met'}).",
        ]
    return "\n".join(out) + "\n"


def _sections(current: str) -> Tuple[str, Dict[str, str]]:
    """``current`` split into the main run's text and the marked sections other
    runs write (each from its marker to the next marker or the end)."""
    found = sorted((current.index(m), m) for m in _MARKERS if m in current)
    head = current[: found[0][0]] if found else current
    bodies = {m: current[at : found[i + 1][0] if i + 1 < len(found) else len(current)].rstrip("\n") + "\n" for i, (at, m) in enumerate(found)}
    return head.rstrip("\n"), bodies


def _assemble(head: str, bodies: Dict[str, str]) -> str:
    parts = [head] if head else []
    parts += [bodies[m].rstrip("\n") for m in _MARKERS if m in bodies]
    return "\n\n".join(parts) + "\n"


def _write_section(text: str, marker: str = SECTION) -> None:
    head, bodies = _sections(DOCS.read_text(encoding="utf-8") if DOCS.exists() else "")
    bodies[marker] = text
    DOCS.write_text(_assemble(head, bodies), encoding="utf-8")


def _write_main(text: str) -> None:
    """The main run's text, keeping the sections that other runs wrote."""
    _, bodies = _sections(DOCS.read_text(encoding="utf-8") if DOCS.exists() else "")
    DOCS.write_text(_assemble(text.rstrip("\n"), bodies), encoding="utf-8")


def formats_and_lsp(args: argparse.Namespace) -> int:
    formats = legacy = lsp = None
    if args.formats:
        print("building the legacy corpus ...", flush=True)
        corpus = build_legacy_corpus()
        legacy = corpus_stats(corpus)
        print(f"legacy corpus: {legacy[0]:,} files, {legacy[1]:,} lines", flush=True)
        formats = format_times(corpus, args.repeat)
    if args.lsp:
        print("language server ...", flush=True)
        lsp = lsp_latency((45, 217, 427, 500), args.repeat)
    text = render_formats_and_lsp(formats, legacy, lsp, args.repeat)
    print()
    print(text)
    if not args.no_write:
        _write_section(text)
        print(f"written to {DOCS}")
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="repetitions of each run (median reported; at least 3 for docs)")
    parser.add_argument("--no-write", action="store_true", help="print the table only; leave docs/benchmarks.md alone")
    parser.add_argument("--formats", action="store_true", help="only time each output format on a legacy corpus")
    parser.add_argument("--lsp", action="store_true", help="only time the language server's diagnostics and code actions")
    parser.add_argument("--baseline", metavar="REV", help="also time the revision REV of this repository, alternating with this tree (CPU and wall)")
    parser.add_argument("--speed", action="store_true", help="only the speed figures: every benchmarks/speed_*.py, this tree against --baseline")
    parser.add_argument("--only", action="append", metavar="TOPIC", help="with --speed: only benchmarks/speed_TOPIC.py (repeatable); the docs are not written")
    parser.add_argument("--script-timeout", type=float, default=1800.0, help="seconds before a speed script is stopped (--speed)")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    if args.speed and not args.baseline:
        parser.error("--speed needs --baseline REV")
    if args.only and not args.speed:
        parser.error("--only needs --speed")
    cache_bytecode()
    if args.speed:
        return speed(args)
    if args.formats or args.lsp:
        return formats_and_lsp(args)

    print("building the corpus and the peers' virtualenv ...", flush=True)
    corpus = build_corpus()
    peers = build_peers()
    stats = corpus_stats(corpus)
    print(f"corpus: {stats[0]:,} files, {stats[1]:,} lines", flush=True)

    cache_dir = WORK / "cache"
    shutil.rmtree(cache_dir, ignore_errors=True)
    all_tools = {t.key: t for t in tools(peers, cache_dir)}
    loads_before = os.getloadavg()
    capacity = [cpu_capacity()]
    measure(all_tools["warm"].cmd, WORK)  # fills the cache for the warm runs
    order = list(all_tools)
    for rep in range(args.repeat):
        for key in order[rep % len(order):] + order[: rep % len(order)]:
            tool = all_tools[key]
            run = measure(tool.cmd, WORK)
            tool.runs.append(run)
            print(f"  [{rep + 1}/{args.repeat}] {tool.label}: {run.wall:.2f} s, {run.rss_kb / 1024:.0f} MB, exit {run.returncode}", flush=True)
    problems = check_outputs(all_tools, cache_dir)
    single = small_file(max(5, 3 * args.repeat))
    imports = import_times()
    versus_lines: List[str] = []
    if args.baseline:
        base = BaselineTree(args.baseline)
        try:
            small_repeat = max(10, 5 * args.repeat)
            versus_lines = render_versus(versus_baseline(base, args.repeat, small_repeat), base, stats, args.repeat, small_repeat)
        finally:
            base.close()
    loads_after = os.getloadavg()
    capacity.append(cpu_capacity())

    text = render(all_tools, stats, single, imports, problems, (loads_before, loads_after), args.repeat, peers, capacity)
    if versus_lines:
        text = text.rstrip("\n") + "\n\n## Against a baseline revision\n\n" + "\n".join(versus_lines) + "\n"
    print()
    print(text)
    if not args.no_write:
        _write_main(text)
        print(f"written to {DOCS}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
