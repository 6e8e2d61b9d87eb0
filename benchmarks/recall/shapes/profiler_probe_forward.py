"""Shape of the recall cause `profiler-probe-forward` (benchmarks/recall/first-sight-18.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A helper hands the model and a large dummy input to a FLOPs/params
profiler (a library that runs the forward itself) with gradients on; no
gradient is ever taken from the probe.
"""
import torch
from thop import profile


def report_cost(net, device, shape=(1, 3, 512, 1024)):
    probe = torch.randn(*shape).to(device)
    flops, params = profile(net, inputs=(probe,), verbose=False)  # expect: GL1xx
    print(f"{flops / 1e9:.2f} GFLOPs, {params / 1e6:.2f} M params")
