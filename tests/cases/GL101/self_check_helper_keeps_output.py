"""Recall case: the twin of ``self_check_with_comparing_helper.py`` whose helper
keeps what it is given: besides comparing, it stores the eager output on a
registry the script saves. The output is a result, but the forward runs once,
at module level, to write a reference file: a one-off reference forward whose
graph is held for that one comparison (issue 26), left to the preview tier.

Precision counterparts: ``self_check_with_comparing_helper.py``.
"""

import torch
import torchvision.models as models

import exporter

REFERENCES = {}


def compare(name, expected, actual):
    print(name, "max diff:", (expected - actual).abs().max().item())
    REFERENCES[name] = expected


model = models.resnet18().eval().cuda()
x = torch.randn(1, 3, 224, 224).cuda().half()
exported = exporter.export(model, x)
compare("resnet18", model(x), exported(x))  # expect-preview: GL101:21
torch.save(REFERENCES, "references.pt")
