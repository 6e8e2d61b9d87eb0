"""Shape of the recall cause `data-assignment-swap` (benchmarks/recall/sites.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A context manager swaps modified values into a module's parameters through
`.data` and swaps the originals back after its `yield`; the forward in the
`with` saves the parameter tensors themselves, and the gradient is taken after
the block, when the restore has silently changed what they hold. (The same
swap undone by another method, `register()`/`remove()` called by other code
around the forward, is also this cause; nothing in its file shows the forward.)
"""
import contextlib

import torch


@contextlib.contextmanager
def modified(module, modifier):
    saved = {}
    for name, param in module.named_parameters(recurse=False):
        saved[name] = param.data
        param.data = modifier(param.data)  # expect: GL202
    try:
        yield module
    finally:
        for name, value in saved.items():
            getattr(module, name).data = value


def modified_gradient(module, modifier, x, grad_out):
    x = x.detach().requires_grad_()
    with modified(module, modifier):
        out = module(x)
    return torch.autograd.grad(out, x, grad_out)[0]
