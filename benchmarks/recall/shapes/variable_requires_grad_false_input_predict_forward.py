"""Shape of the recall cause `variable-requires-grad-false-input-predict-forward` (benchmarks/recall/first-sight-24.toml).

A wrapper's prediction entry point builds the model's input as a Variable
with requires_grad=False, as if that kept autograd off, and runs the wrapped
recurrent module with gradients enabled: the parameters still require grad,
so the forward records a graph, and the returned hidden state, fed back as
the next call's initial state, chains every call's graph to the next.

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
import torch.nn as nn
from torch.autograd import Variable


class RecurrentAdapter:
    def __init__(self, module: nn.Module):
        self.module = module

    def __call__(self, batch, state=None):
        inputs = Variable(torch.as_tensor(batch), requires_grad=False)  # expect: GL104
        output, state = self.module(inputs, state)
        return output.data.numpy(), state


adapter = RecurrentAdapter(nn.GRU(3, 5))
hidden = None
for _ in range(4):
    frame, hidden = adapter(torch.randn(2, 1, 3).numpy(), hidden)
print(frame.shape)
