"""Shape of the recall cause `shape-probe-forward` (benchmarks/recall/first-sight-9.toml).

A module runs itself on a dummy input only to read the output's shape; no
model is put in eval mode and no gradient is ever taken, yet the probe
records a graph.

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch


class Model(torch.nn.Module):
    def __init__(self, body, in_channels, input_shape):
        super().__init__()
        self.body = body
        self.out_channels, self.out_shape = self._output_shape(in_channels, input_shape)

    def forward(self, x):
        return self.body(x)

    def _output_shape(self, in_channels, input_shape):
        dummy = torch.zeros((1, in_channels) + tuple(input_shape))
        out = self.forward(dummy)  # expect: GL1xx
        return out.shape[1], tuple(out.shape[2:])
