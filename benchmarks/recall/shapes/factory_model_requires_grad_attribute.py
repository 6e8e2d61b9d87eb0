"""Shape of the recall cause `factory-model-requires-grad-attribute` (benchmarks/recall/first-sight-11c.toml).

A model made by a factory function of another library is to be frozen except
for its head, but the code writes `requires_grad` on the module itself: that
only sets a Python attribute, every parameter keeps training.

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
from timm import create_model


def build(arch):
    model = create_model(arch, pretrained=False, num_classes=1000)
    model.requires_grad = False  # expect: GL302
    for p in model.classifier.parameters():
        p.requires_grad = True
    return model
