"""Shape of the recall cause `jit-loaded-model-forward` (benchmarks/recall/first-sight-5.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch


def infer(path, batch):
    model = torch.jit.load(path)
    return model.forward(batch)  # expect: GL101


if __name__ == "__main__":
    scores = infer("model.pt", torch.ones(1, 3, 224, 224))  # expect: GL101
    print(scores.topk(5))
