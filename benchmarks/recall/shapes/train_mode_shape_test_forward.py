"""Shape of the recall cause `train-mode-shape-test-forward` (benchmarks/recall/sites.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch


def test_backbone_shapes():
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3), torch.nn.ReLU())
    model.train()
    imgs = torch.randn(1, 3, 32, 32)
    feat = model(imgs)  # expect: GL101
    assert feat.shape == (1, 8, 30, 30)
