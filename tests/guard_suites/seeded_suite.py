"""One of each finding the guard reports, each at a known line."""
import torch
import torch.nn.functional as F
from torch import nn

from models import batches, make_model


def evaluate(model):
    model.eval()
    correct = 0
    for x, y in batches():
        logits = model(x)
        correct += (logits.argmax(1) == y).sum().item()
    return correct


def test_eval_without_no_grad():
    assert 0 <= evaluate(make_model()) <= 24


def test_validation_loss_accumulated():
    model = make_model()
    total = 0
    for x, y in batches():
        loss = F.cross_entropy(model(x), y)
        total += loss
    assert total.item() > 0


def test_training_loss_history():
    model = make_model()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    history = []
    for x, y in batches():
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        history.append(loss)
    assert len(history) == 6


def test_edit_through_detach():
    model = nn.Sequential(nn.Linear(8, 4), nn.Sigmoid())
    x, _ = batches(1)[0]
    probs = model(x)
    probs.detach().clamp_(0.1, 0.9)
    try:
        probs.sum().backward()
    except RuntimeError as exc:
        assert "modified by an inplace operation" in str(exc)
    else:
        raise AssertionError("backward did not raise")


def test_edit_through_data():
    model = nn.Sequential(nn.Linear(8, 4), nn.Sigmoid())
    x, _ = batches(1)[0]
    probs = model(x)
    probs.data.mul_(2)
    probs.sum().backward()


def predict(fn, batch):
    return fn(batch)


def test_prediction_through_a_callable():
    model = make_model().eval()
    assert predict(model, batches(1)[0][0]).shape == (4, 4)


def test_grad_switched_off():
    torch.set_grad_enabled(False)


if __name__ == "__main__":
    # Run as a script too, so `evaluate` is not only a helper of the tests: its
    # loop of forwards is judged as library code (static GL101) and by the guard.
    print(evaluate(make_model()))
