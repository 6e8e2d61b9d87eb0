"""Wall time of a CPU test suite of small models, with and without `pytest --gradlint-guard`.

    python benchmarks/guard_overhead.py [--rounds 3] [--seeds 6]
    python benchmarks/guard_overhead.py --micro

Writes the suite (training and evaluation tests of an MLP, a CNN, an LSTM and
a Transformer encoder layer) to a temporary directory and runs it with pytest,
rounds times in each mode, the modes interleaved so that a busy neighbour on
the machine weighs on both alike. Each run is a fresh process: the wall time
includes starting Python and importing torch, as a CI job pays it. Prints the
median of each mode (wall, pytest's own session time, CPU time of the
process) and the ratios. On a shared machine wall time swings with the
neighbours' load; the CPU time shows whether a swing was the guard's.
``--micro`` times tiny training loops in this process instead, where the
guard's per-forward cost weighs most.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

SUITE = '''
import pytest
import torch
import torch.nn.functional as F
from torch import nn

SEEDS = range({seeds})


def data(seed, shape, classes=10, n=8):
    g = torch.Generator().manual_seed(seed)
    return [(torch.randn(*shape, generator=g), torch.randint(0, classes, (shape[0],), generator=g)) for _ in range(n)]


def mlp():
    return nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 10))


def cnn():
    return nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10),
    )


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(16, 32, batch_first=True)
        self.head = nn.Linear(32, 10)

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.head(out[:, -1])


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(32, 4, 64, dropout=0.1, batch_first=True)
        self.head = nn.Linear(32, 10)

    def forward(self, x):
        return self.head(self.layer(x).mean(1))


def train(model, batches, epochs=2):
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    model.train()
    losses = []
    for _ in range(epochs):
        for x, y in batches:
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
    return losses


@torch.no_grad()
def accuracy(model, batches):
    model.eval()
    return sum((model(x).argmax(1) == y).float().mean().item() for x, y in batches) / len(batches)


@pytest.mark.parametrize("seed", SEEDS)
def test_mlp(seed):
    torch.manual_seed(seed)
    model, batches = mlp(), data(seed, (32, 64))
    losses = train(model, batches)
    assert losses[-1] < losses[0] + 1.0 and 0 <= accuracy(model, batches) <= 1


@pytest.mark.parametrize("seed", SEEDS)
def test_cnn(seed):
    torch.manual_seed(seed)
    model, batches = cnn(), data(seed, (16, 1, 16, 16))
    train(model, batches)
    assert 0 <= accuracy(model, batches) <= 1


@pytest.mark.parametrize("seed", SEEDS)
def test_lstm(seed):
    torch.manual_seed(seed)
    model, batches = Tagger(), data(seed, (16, 12, 16))
    train(model, batches)
    assert 0 <= accuracy(model, batches) <= 1


@pytest.mark.parametrize("seed", SEEDS)
def test_transformer(seed):
    torch.manual_seed(seed)
    model, batches = Encoder(), data(seed, (16, 10, 32))
    train(model, batches)
    assert 0 <= accuracy(model, batches) <= 1
'''

_SESSION_TIME = re.compile(r" in ([0-9.]+)s")


def run_once(directory: Path, guard: bool) -> tuple:
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_suite.py"]
    if guard:
        cmd.insert(4, "--gradlint-guard=fail")
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=directory, capture_output=True, text=True, env=env, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        sys.exit(f"the suite failed ({'with' if guard else 'without'} the guard):\n{proc.stdout[-3000:]}{proc.stderr[-2000:]}")
    if guard and "no findings" not in proc.stdout:
        sys.exit(f"the guard reported findings on a correct suite:\n{proc.stdout[-3000:]}")
    found = _SESSION_TIME.findall(proc.stdout)
    return wall, float(found[-1]) if found else float("nan"), cpu


def micro(rounds: int) -> None:
    """The guard's cost where it is highest: tiny dispatch-bound training loops, in this process."""
    import torch
    import torch.nn.functional as F

    from gradlint.guard.monitor import Monitor
    from gradlint.guard.report import Site

    torch.set_num_threads(1)
    namespace: dict = {}
    exec(compile(textwrap.dedent(SUITE.format(seeds=1)), "<suite>", "exec"), namespace)

    def loop(model, batches, steps=40) -> None:
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        x, y = batches[0]
        for _ in range(steps):
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()

    def once(guard: bool) -> float:
        monitor = None
        if guard:
            monitor = Monitor()
            monitor.install()
            monitor.begin_test("micro")
        start = time.perf_counter()
        loop(namespace["mlp"](), namespace["data"](0, (32, 64)))
        loop(namespace["Tagger"](), namespace["data"](0, (16, 12, 16)))
        elapsed = time.perf_counter() - start
        if monitor is not None:
            monitor.end_test(Site("<micro>", 1))
            monitor.uninstall()
        return elapsed

    once(False)
    best = {False: float("inf"), True: float("inf")}
    for _ in range(rounds):
        for guard in (False, True):
            best[guard] = min(best[guard], once(guard))
    print(f"40 Adam steps of an MLP and of an LSTM, 1 thread, best of {rounds}:")
    print(f"without the guard: {best[False] * 1000:7.1f} ms; with: {best[True] * 1000:7.1f} ms; ratio {best[True] / best[False]:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seeds", type=int, default=6, help="tests per model (4 models)")
    parser.add_argument("--micro", action="store_true", help="time tiny training loops in this process instead")
    args = parser.parse_args()
    if args.micro:
        micro(max(args.rounds, 7))
        return
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        (directory / "test_suite.py").write_text(textwrap.dedent(SUITE.format(seeds=args.seeds)))
        run_once(directory, False)  # warm the file cache: torch's modules are read from disk once
        times = {False: [], True: []}
        for _ in range(args.rounds):
            for guard in (False, True):
                times[guard].append(run_once(directory, guard))
    tests = 4 * args.seeds
    rows = []
    print(f"{tests} tests, {args.rounds} runs each, medians; torch threads: {os.environ.get('OMP_NUM_THREADS', 'default')}")
    for guard in (False, True):
        wall, session, cpu = (statistics.median(t[i] for t in times[guard]) for i in range(3))
        rows.append((wall, session, cpu))
        label = "with --gradlint-guard" if guard else "without the guard   "
        print(f"{label}: {wall:6.2f} s wall, pytest session {session:6.2f} s, CPU {cpu:6.2f} s")
    print(f"ratio: {rows[1][0] / rows[0][0]:.2f}x wall, {rows[1][1] / rows[0][1]:.2f}x session, {rows[1][2] / rows[0][2]:.2f}x CPU")


if __name__ == "__main__":
    main()
