"""A correct train/eval suite: the guard must report nothing on it."""
import torch
import torch.nn.functional as F
from torch import nn

from models import batches, make_model


def test_train_then_evaluate():
    model = make_model()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    running = 0.0
    for x, y in batches():
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        running += loss.item()
    model.eval()
    with torch.no_grad():
        correct = sum((model(x).argmax(1) == y).sum().item() for x, y in batches())
    assert running > 0 and 0 <= correct <= 24


@torch.no_grad()
def accuracy(model):
    return sum((model(x).argmax(1) == y).float().mean().item() for x, y in batches())


def test_decorated_evaluation():
    assert 0 <= accuracy(make_model().eval()) <= 6


def test_gradient_accumulation():
    model = make_model()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(2):
        total = 0
        for x, y in batches(5):
            total = total + F.cross_entropy(model(x), y)
        opt.zero_grad()
        total.backward()
        opt.step()
    assert model[0].weight.grad is not None


def test_recurrent_cell_backpropagates_through_time():
    torch.manual_seed(0)
    cell = nn.RNNCell(8, 8)
    h = torch.zeros(4, 8)
    for x, _ in batches(6):
        h = cell(x, h)
    h.sum().backward()
    assert cell.weight_ih.grad is not None


def test_edit_a_copy_and_update_through_data_after_backward():
    model = nn.Sequential(nn.Linear(8, 4), nn.Sigmoid())
    x, _ = batches(1)[0]
    probs = model(x)
    clipped = probs.detach().clone().clamp_(0.1, 0.9)
    leaf = probs.detach().requires_grad_()
    (leaf * 2).sum().backward()
    probs.sum().backward()
    for p in model.parameters():
        p.data.add_(p.grad, alpha=-0.1)
    assert clipped.max().item() <= 0.9 and leaf.grad is not None


def test_grad_mode_restored():
    torch.set_grad_enabled(False)
    try:
        assert model_output_has_no_graph()
    finally:
        torch.set_grad_enabled(True)


def model_output_has_no_graph():
    return make_model()(torch.zeros(1, 8)).grad_fn is None
