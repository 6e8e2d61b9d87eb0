"""Run versions of a ``fixtures/migrate`` file under torch on tiny synthetic data.

Usage: ``python migrate_scenarios.py CASE OUT.json NAME=PATH ...``. Each
version is imported from PATH and driven through the same scenario (same
seeds, same batches); then a hand-modernised reference runs it the way
today's PyTorch documentation would. OUT.json gets, per version, the numbers
each step computed, the error a step raised, whether the forward passes of
its evaluation built a graph, and every warning it emitted.

Run in a fresh process, versions in the order given: several torch warnings
fire only once per process, so the first version's warnings are the truth.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import sys
import types
import warnings
from typing import Any, Callable, Dict, List

warnings.filterwarnings("ignore", message="Failed to initialize NumPy")  # no numpy here: torch says so at import

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.utils.data import DataLoader, TensorDataset  # noqa: E402

# The era's scripts import torchvision for their datasets; the scenarios bring their own data.
sys.modules.setdefault("torchvision", types.ModuleType("torchvision"))
sys.modules["torchvision"].datasets = None  # type: ignore[attr-defined]
sys.modules["torchvision"].transforms = None  # type: ignore[attr-defined]


def loader(seed: int, features: int, classes: int, batches: int = 3, batch_size: int = 8) -> DataLoader:
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(batches * batch_size, features, generator=g)
    y = torch.randint(0, classes, (batches * batch_size,), generator=g)
    return DataLoader(TensorDataset(x, y), batch_size=batch_size)


def params(model: nn.Module) -> List[float]:
    return [v for p in model.parameters() for v in p.detach().reshape(-1).tolist()]


def mlp(features: int, classes: int) -> nn.Sequential:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(features, 16), nn.ReLU(), nn.Linear(16, classes))


class Run:
    """What one version did: ``step`` runs one part of the scenario and keeps going after an error."""

    def __init__(self) -> None:
        self.values: Dict[str, Any] = {}
        self.errors: Dict[str, str] = {}
        # requires_grad of every forward output seen while ``evaluating``.
        self.eval_graph: List[bool] = []
        self.evaluating = False

    def step(self, name: str, fn: Callable[[], Any]) -> None:
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                self.values[name] = fn()
        except Exception as exc:
            self.errors[name] = f"{type(exc).__name__}: {exc}"

    def watch(self, model: nn.Module, eval_rows: Any = ()) -> None:
        """Record whether forwards while ``evaluating`` build a graph; also any forward
        of a batch with a row count in ``eval_rows`` (evaluation inside training)."""

        def hook(module: nn.Module, inputs: Any, output: torch.Tensor) -> None:
            if self.evaluating or inputs[0].shape[0] in eval_rows:
                self.eval_graph.append(bool(output.requires_grad))

        model.register_forward_hook(hook)

    def evaluation(self, name: str, fn: Callable[[], Any]) -> None:
        self.evaluating = True
        try:
            self.step(name, fn)
        finally:
            self.evaluating = False


# -- scenarios: one per fixture, each drives a module ``m`` ------------------------------


def mnist_train(m: Any, run: Run) -> None:
    torch.manual_seed(0)
    model = m.Net()
    run.watch(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.5)
    run.step("train losses", lambda: m.train(model, optimizer, loader(1, 784, 10), 1, log_interval=1))
    run.step("params after training", lambda: params(model))

    def test() -> List[float]:
        test_loss, correct = m.test(model, loader(2, 784, 10))
        return [float(test_loss), int(correct)]

    run.evaluation("test loss, correct", test)


def mnist_train_reference(m: Any, run: Run) -> None:
    torch.manual_seed(0)
    model = m.Net()
    run.watch(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.5)

    def train() -> List[float]:
        model.train()
        losses = []
        for data, target in loader(1, 784, 10):
            optimizer.zero_grad()
            loss = F.nll_loss(model(data), target)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        return losses

    run.step("train losses", train)
    run.step("params after training", lambda: params(model))

    def test() -> List[float]:
        model.eval()
        data_loader = loader(2, 784, 10)
        test_loss, correct = 0.0, 0
        with torch.no_grad():
            for data, target in data_loader:
                output = model(data)
                test_loss += F.nll_loss(output, target).item() * data.size(0)
                correct += int((output.argmax(1) == target).sum())
        return [test_loss / len(data_loader.dataset), correct]

    run.evaluation("test loss, correct", test)


def validate(m: Any, run: Run) -> None:
    model = mlp(32, 10)
    run.watch(model)

    def validate() -> List[float]:
        top1, loss = m.validate(loader(3, 32, 10), model, nn.CrossEntropyLoss(), print_freq=1)
        return [float(top1), float(loss)]

    run.evaluation("top1, loss", validate)
    images = torch.randn(4, 32, generator=torch.Generator().manual_seed(4))
    run.evaluation("predict", lambda: m.predict(model, images).reshape(-1).tolist())


def validate_reference(m: Any, run: Run) -> None:
    model = mlp(32, 10)
    run.watch(model)

    def validate() -> List[float]:
        model.eval()
        criterion = nn.CrossEntropyLoss()
        loss_sum, top1_sum, count = 0.0, 0, 0
        with torch.no_grad():
            for images, target in loader(3, 32, 10):
                output = model(images)
                n = images.size(0)
                loss_sum += criterion(output, target).item() * n
                top1_sum = top1_sum + 100.0 * (output.argmax(1) == target).float().sum() / n * n
                count += n
        return [float(top1_sum / count), loss_sum / count]

    run.evaluation("top1, loss", validate)
    images = torch.randn(4, 32, generator=torch.Generator().manual_seed(4))

    def predict() -> List[float]:
        model.eval()
        with torch.no_grad():
            return model(images).reshape(-1).tolist()

    run.evaluation("predict", predict)


def _regression_data():
    g = torch.Generator().manual_seed(5)
    return torch.randn(16, 10, generator=g), torch.randn(16, 3, generator=g)


def manual_sgd(m: Any, run: Run) -> None:
    model = mlp(10, 3)
    x, y = _regression_data()
    run.step("history", lambda: m.fit(model, x, y, steps=5, lr=0.05))
    run.step("params after fit", lambda: params(model))

    # One update on its own, so that a version whose fit() fails is still compared.
    single = mlp(10, 3)
    ((single(x) - y) ** 2).mean().backward()

    def step() -> List[float]:
        m.sgd_step(single, 0.05)
        m.zero_grad(single)
        return params(single) + [v for p in single.parameters() for v in p.grad.reshape(-1).tolist()]

    run.step("one sgd_step + zero_grad", step)


def manual_sgd_reference(m: Any, run: Run) -> None:
    model = mlp(10, 3)
    x, y = _regression_data()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)

    def fit() -> List[float]:
        history = []
        for _ in range(5):
            loss = (model(x) - y).pow(2).mean()
            history.append(loss.item())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        return history

    run.step("history", fit)
    run.step("params after fit", lambda: params(model))
    single = mlp(10, 3)
    ((single(x) - y) ** 2).mean().backward()
    single_opt = torch.optim.SGD(single.parameters(), lr=0.05)

    def step() -> List[float]:
        single_opt.step()
        for p in single.parameters():
            p.grad.zero_()
        return params(single) + [v for p in single.parameters() for v in p.grad.reshape(-1).tolist()]

    run.step("one sgd_step + zero_grad", step)


def _tutorial_data():
    images, labels = next(iter(loader(6, 32, 10, batches=1, batch_size=16)))
    return loader(7, 32, 10, batches=4), images, labels


def tutorial_test_set(m: Any, run: Run) -> None:
    torch.manual_seed(0)
    net = m.Net()
    run.watch(net, eval_rows=(16, 10))  # training batches have 8 rows
    train, images, labels = _tutorial_data()
    run.step("history, predictions", lambda: m.fit(net, train, images, labels))
    run.step("params after fit", lambda: params(net))


def tutorial_test_set_reference(m: Any, run: Run) -> None:
    torch.manual_seed(0)
    net = m.Net()
    run.watch(net, eval_rows=(16, 10))
    train, images, labels = _tutorial_data()

    def fit() -> Any:
        optimizer = torch.optim.SGD(net.parameters(), lr=0.05)
        loss_func = nn.CrossEntropyLoss()
        test_x, test_y = images[:16], labels[:16]
        history = []
        for step, (x, y) in enumerate(train):
            loss = loss_func(net(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if step % 2 == 0:
                with torch.no_grad():
                    pred = torch.max(net(test_x), 1)[1]
                history.append([loss.item(), float((pred == test_y).sum()) / 16])
        with torch.no_grad():
            pred = torch.max(net(test_x[:10]), 1)[1]
        return history, pred.tolist()

    run.step("history, predictions", fit)
    run.step("params after fit", lambda: params(net))


SCENARIOS = {
    "tutorial_test_set": (tutorial_test_set, tutorial_test_set_reference),
    "mnist_train": (mnist_train, mnist_train_reference),
    "validate": (validate, validate_reference),
    "manual_sgd": (manual_sgd, manual_sgd_reference),
}


def load(name: str, path: str) -> Any:
    spec = importlib.util.spec_from_file_location(f"migrate_case_{name}", path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def run_version(scenario: Callable[[Any, Run], None], module: Any) -> Dict[str, Any]:
    run = Run()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scenario(module, run)
    return {
        "values": run.values,
        "errors": run.errors,
        "eval_graph": run.eval_graph,
        "warnings": [f"{w.category.__name__}: {w.message}" for w in caught],
    }


def main(argv: List[str]) -> None:
    case, out, versions = argv[0], argv[1], [a.split("=", 1) for a in argv[2:]]
    scenario, reference = SCENARIOS[case]
    results: Dict[str, Any] = {}
    first = None
    for name, path in versions:
        try:
            module = load(name, path)
        except Exception as exc:  # the legacy file may not even import
            results[name] = {"load_error": f"{type(exc).__name__}: {exc}"}
            continue
        results[name] = run_version(scenario, module)
        first = first or module
    if first is not None:  # the reference borrows only the model class (mnist's Net) from it
        results["reference"] = run_version(reference, first)
    with open(out, "w", encoding="utf-8") as fh:
        json.dump(results, fh, indent=1)


if __name__ == "__main__":
    main(sys.argv[1:])
