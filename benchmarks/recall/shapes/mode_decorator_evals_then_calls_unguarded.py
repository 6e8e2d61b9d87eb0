"""Shape of the recall cause `mode-decorator-evals-then-calls-unguarded` (benchmarks/recall/first-sight-25.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A decorator class takes a `training` flag, sets the wrapped object's model to
that mode with `model.train(flag)` and calls the method. Only its multi-process
branch enters `torch.no_grad()`; on a single process the evaluation method,
decorated with `training=False`, runs its forwards with gradients on.
"""
import functools

import torch
import torch.distributed as dist


class mode(object):
    def __init__(self, training=True):
        self.training = training

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(runner, *args, **kwargs):
            runner.net.train(self.training)
            if not dist.is_initialized():
                return fn(runner, *args, **kwargs)
            with torch.no_grad():
                out = fn(runner, *args, **kwargs)
            dist.barrier()
            return out
        return wrapper


class Runner:
    def __init__(self, net):
        self.net = net

    @mode(training=False)
    def score(self, batches):
        total = 0.0
        for x, y in batches:
            logits = self.net(x)  # expect: GL101
            total += float((logits.argmax(-1) == y).float().mean())
        return total / len(batches)
