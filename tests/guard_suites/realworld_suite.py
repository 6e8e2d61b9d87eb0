"""Tests shaped like those of real projects: torch.func, torch.compile, hooks, mocks, globals.

Each must have the same outcome with and without `--gradlint-guard`
(tests/test_guard_invisible.py runs it both ways). UserWarnings (what Dynamo
warns with) are errors here:
a warning the guard caused would fail the test under the guard only.
"""

import logging
import os
import unittest.mock as mock
import warnings

import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.func import functional_call, grad, grad_and_value, hessian, jacrev, stack_module_state, vjp, vmap
from torch.utils.checkpoint import checkpoint

log = logging.getLogger("trainer")
STEPS_SEEN = []  # a module global the code under test appends plain numbers to
CALLS = {"forward": 0}


def mlp():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))


def batch(n=6):
    g = torch.Generator().manual_seed(1)
    return torch.randn(n, 4, generator=g), torch.randint(0, 2, (n,), generator=g)


@pytest.fixture(autouse=True)
def _warnings_are_errors():
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        yield


def test_grad_over_functional_call():
    model = mlp()
    x, y = batch()
    params = {k: v.detach() for k, v in model.named_parameters()}

    def loss(p):
        return F.cross_entropy(functional_call(model, p, (x,)), y)

    grads = grad(loss)(params)
    F.cross_entropy(model(x), y).backward()
    for name, p in model.named_parameters():
        torch.testing.assert_close(grads[name], p.grad)


def test_per_sample_gradients_with_vmap_grad_and_value():
    model = mlp()
    x, y = batch()
    params = {k: v.detach() for k, v in model.named_parameters()}

    def loss(p, xi, yi):
        return F.cross_entropy(functional_call(model, p, (xi.unsqueeze(0),)), yi.unsqueeze(0))

    grads, losses = vmap(grad_and_value(loss), in_dims=(None, 0, 0))(params, x, y)
    assert losses.shape == (6,)
    assert grads["0.weight"].shape == (6, 8, 4)
    torch.testing.assert_close(grads["0.weight"].mean(0), grad(lambda p: F.cross_entropy(functional_call(model, p, (x,)), y))(params)["0.weight"])


class PhysicsNet(nn.Module):
    """A forward that differentiates its own input (a PINN-style residual)."""

    def __init__(self):
        super().__init__()
        self.body = mlp()

    def forward(self, x):
        jac = vmap(jacrev(lambda v: self.body(v.unsqueeze(0)).squeeze(0)))(x)
        return self.body(x) + jac.sum(-1)


def test_jacrev_inside_a_forward_then_backward():
    net = PhysicsNet()
    x, _ = batch()
    net(x).pow(2).mean().backward()
    assert all(p.grad is not None for p in net.parameters())


class VjpLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        out, pullback = vjp(torch.sin, x)
        (cotangent,) = pullback(torch.ones_like(out))
        return self.lin(out + cotangent)


def test_vjp_inside_a_forward():
    torch.manual_seed(0)
    layer = VjpLayer()
    x, _ = batch()
    layer(x).sum().backward()
    assert layer.lin.weight.grad.shape == (4, 4)


def test_jacobian_of_a_model_wrt_its_input():
    model = mlp()
    x, _ = batch(1)
    jac = jacrev(model)(x[0])
    assert jac.shape == (2, 4)


def test_hessian_of_a_loss():
    w = torch.randn(3, requires_grad=True)
    h = hessian(lambda v: (v ** 3).sum())(w.detach())
    torch.testing.assert_close(h, torch.diag(6 * w.detach()))


def test_model_ensemble_with_stack_module_state():
    models = [mlp() for _ in range(3)]
    params, buffers = stack_module_state(models)
    base = mlp().to("meta")
    x, _ = batch()

    def run(p, b):
        return functional_call(base, (p, b), (x,))

    out = vmap(run)(params, buffers)
    assert out.shape == (3, 6, 2)


def test_compiled_module_training_step_eager_backend():
    model = mlp()
    compiled = torch.compile(model, backend="eager")
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = batch()
    for _ in range(3):
        opt.zero_grad()
        loss = F.cross_entropy(compiled(x), y)
        loss.backward()
        opt.step()
    assert loss.item() < 10


def test_compiled_function_aot_eager_backend():
    model = mlp()

    @torch.compile(backend="aot_eager")
    def step(x, y):
        return F.cross_entropy(model(x), y)

    x, y = batch()
    step(x, y).backward()
    assert model[0].weight.grad is not None


def test_compiled_eval_under_no_grad():
    model = mlp().eval()
    compiled = torch.compile(model, backend="eager")
    x, _ = batch()
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), model(x))


def test_compiled_vmap_of_grad_fullgraph():
    @torch.compile(backend="eager", fullgraph=True)
    def per_row_grad(x):
        return vmap(grad(lambda v: (v ** 2).sum()))(x)

    torch.testing.assert_close(per_row_grad(torch.ones(3, 2)), 2 * torch.ones(3, 2))


class JacobianLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        return self.lin(x) + jacrev(torch.sin)(x).sum(-1)


def test_compiled_module_with_jacrev_in_its_forward():
    torch.manual_seed(0)
    layer = JacobianLayer()
    torch.compile(layer, backend="eager")(torch.ones(4)).sum().backward()
    assert layer.lin.weight.grad is not None


@pytest.mark.skipif(not os.environ.get("GUARD_SUITE_INDUCTOR"), reason="inductor compiles for minutes on CPU")
def test_compiled_default_inductor():
    model = mlp()
    torch.compile(model)(batch()[0]).sum().backward()


def test_forward_hook_records_activations():
    model = mlp()
    seen = []
    handle = model[1].register_forward_hook(lambda mod, inp, out: seen.append(out.detach()))
    x, y = batch()
    F.cross_entropy(model(x), y).backward()
    handle.remove()
    assert len(seen) == 1 and seen[0].shape == (6, 8)


def test_backward_hook_scales_gradients():
    model = mlp()
    model[0].register_full_backward_hook(lambda mod, gin, gout: (gin[0] * 0,) if gin[0] is not None else None)
    x, y = batch()
    x.requires_grad_(True)
    F.cross_entropy(model(x), y).backward()
    assert torch.count_nonzero(x.grad) == 0


def test_retain_grad_on_an_activation():
    model = mlp()
    x, y = batch()
    hidden = model[1](model[0](x))
    hidden.retain_grad()
    F.cross_entropy(model[2](hidden), y).backward()
    assert hidden.grad.shape == (6, 8)


def test_logger_mocked_with_loss_items():
    model = mlp()
    x, y = batch()
    with mock.patch.object(log, "info") as info:
        for step in range(3):
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            log.info("step %d loss %.3f", step, loss.item())
    assert info.call_count == 3


def test_module_globals_hold_numbers_only():
    model = mlp()
    x, y = batch()
    for _ in range(4):
        CALLS["forward"] += 1
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        STEPS_SEEN.append(loss.item())
    assert len(STEPS_SEEN) >= 4


def test_activation_checkpointing_non_reentrant():
    model = mlp()
    x, y = batch()
    out = checkpoint(model, x, use_reentrant=False)
    F.cross_entropy(out, y).backward()
    ref = mlp()
    F.cross_entropy(ref(x), y).backward()
    torch.testing.assert_close(model[0].weight.grad, ref[0].weight.grad)


def test_expected_error_from_an_inplace_edit_is_kept():
    model = nn.Sequential(nn.Linear(4, 4), nn.Sigmoid())
    out = model(batch()[0])
    out.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


@pytest.mark.xfail(raises=RuntimeError, strict=True)
def test_data_dependent_control_flow_under_vmap_fails():
    def f(v):
        return v if v.sum() > 0 else -v

    vmap(f)(torch.randn(3, 2))


def test_saved_tensor_hooks_of_the_test_itself():
    packed = []

    def pack(t):
        packed.append(t.shape)
        return t

    model = mlp()
    x, y = batch()
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        loss = F.cross_entropy(model(x), y)
    loss.backward()
    # The Linear layers inside the model saved their inputs through these hooks.
    assert torch.Size((6, 4)) in packed and torch.Size((6, 8)) in packed
