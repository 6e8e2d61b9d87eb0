"""Shape of the recall cause `reference-model-param-forward` (benchmarks/recall/first-sight-8.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import numpy as np
import torch.nn as nn


def outputs_match(reference: nn.Module, exported, inputs, atol=1e-4):
    # the reference model is only run to compare numbers with the exported one
    expected = reference(**inputs)  # expect: GL101
    got = exported.run(None, {k: v.numpy() for k, v in inputs.items()})
    return np.allclose(expected.logits.detach().numpy(), got[0], atol=atol)
