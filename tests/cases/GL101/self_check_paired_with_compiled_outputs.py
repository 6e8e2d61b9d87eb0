"""Precision case (first-sight batch 12): a compiler's example script runs the
eager model once on inputs it makes up (a list of random tensors moved to the
GPU, passed starred) and compares its outputs, item by item, with the compiled
module's: through ``zip``/``enumerate`` and ``torch.allclose``, through a
cosine similarity that is printed. The inputs are made up and the outputs only
checked: a self-check, silent in the default tier, reported by the preview
tier.

Recall counterparts: ``self_check_paired_outputs_kept.py``.
"""

import torch
import torch.nn.functional as F
import torchvision.models as models

import compiler

inputs = [torch.rand((1, 3, 224, 224)).to("cuda")]
model = models.resnet18().eval().to("cuda")
compiled = compiler.compile(model, inputs=inputs)

expected, actual = model(*inputs), compiled(*inputs)  # expect-preview: GL101:20
for i, (e, a) in enumerate(zip(expected, actual)):
    assert torch.allclose(e.to(torch.float32), a, 1e-2, 1e-2), f"output {i} differs: {e} vs {a}"

ref = model(inputs[0].clone())
print("cosine:", F.cosine_similarity(ref.flatten(), compiled(inputs[0]).flatten(), dim=0).item())
print("max diff:", (ref - compiled(inputs[0])).abs().max())
