"""Recall case: the twins of ``self_check_paired_with_compiled_outputs.py``
whose outputs are results after all. The eager outputs on made-up inputs are
paired with the compiled ones and compared, but the pairs are also kept in a
list the script saves; a cosine similarity of a forward on a loader's data is
printed, but the input is data, not made up. The premise "the forward's
outputs are results" holds for both; the module-level pair runs once, to write
reference outputs (issue 26), and is left to the preview tier, while the
forward in the loop over the loader is reported.

Precision counterparts: ``self_check_paired_with_compiled_outputs.py``.
"""

import torch
import torch.nn.functional as F
import torchvision.models as models

import compiler

inputs = [torch.rand((1, 3, 224, 224)).to("cuda")]
model = models.resnet18().eval().to("cuda")
compiled = compiler.compile(model, inputs=inputs)

expected, actual = model(*inputs), compiled(*inputs)  # expect-preview: GL101:20
pairs = []
for i, (e, a) in enumerate(zip(expected, actual)):
    assert torch.allclose(e, a, 1e-2, 1e-2)
    pairs.append(e)
torch.save(pairs, "reference_outputs.pt")


def compare_on(loader):
    model.eval()
    for images, _ in loader:
        ref = model(images.cuda())  # expect: GL101:15
        print("cosine:", F.cosine_similarity(ref.flatten(), compiled(images).flatten(), dim=0).item())
