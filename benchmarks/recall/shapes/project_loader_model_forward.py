"""Shape of the recall cause `project-loader-model-forward` (benchmarks/recall/first-sight-18.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A project helper builds or `torch.jit.load`s the model (no eval call
anywhere) and an inference entry point runs it on data with gradients on.
"""
import torch


def fetch_net(path, device="cpu"):
    if path.endswith(".ts"):
        return torch.jit.load(path, map_location=device)
    return torch.load(path, map_location=device)


def run_net(path, volume):
    net = fetch_net(path)
    with torch.autocast(device_type="cpu"):
        pred = net(volume)  # expect: GL101
    return pred.float().numpy()
