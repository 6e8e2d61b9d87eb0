"""Shape of the recall cause `state-buffer-reset-in-place-keeps-graph` (benchmarks/recall/first-sight-25.toml).

A stateful layer stores its recurrent state in a registered buffer, which its
forward replaces with the new state, a tensor that carries the step's graph.
The reset between sequences zeroes the buffer in place: the values become
zero, but the tensor keeps its autograd history, so the next sequence's
forward and backward still reach the previous (freed) graph.

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
import torch.nn as nn


class LeakyCell(nn.Module):
    def __init__(self, decay=0.9):
        super().__init__()
        self.decay = decay
        self.register_buffer("state", torch.zeros(0))

    def forward(self, x):
        if self.state.shape != x.shape[1:]:
            self.state = torch.zeros(x.shape[1:], device=x.device)
        outs = []
        for step in x:
            self.state = self.decay * self.state + step
            outs.append(torch.relu(self.state))
        return torch.stack(outs)

    def reset(self):
        for buf in self.buffers():
            buf.zero_()  # expect: GL301
