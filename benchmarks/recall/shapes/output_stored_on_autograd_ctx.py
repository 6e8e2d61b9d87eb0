"""Shape of the recall cause `output-stored-on-autograd-ctx` (benchmarks/recall/first-sight-23.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A custom `torch.autograd.Function` keeps the very tensor it returns as an
attribute of `ctx` (to rebuild activations in `backward`) instead of a detached
view or `ctx.save_for_backward`: once returned, that tensor's `grad_fn` is the
node that owns `ctx`, so node and output keep each other, and every graph
behind them, alive whenever `backward` never runs for that output (an unused
head, an evaluation call): memory grows with each call.
"""
import torch


class Stack(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, layers):
        for layer in layers:
            x = layer(x)
        ctx.out = x  # expect: GL301
        ctx.layers = layers
        return x

    @staticmethod
    def backward(ctx, grad):
        out = ctx.out
        del ctx.out
        for layer in reversed(ctx.layers):
            out, grad = layer.invert_and_grad(out, grad)
        return grad, None
