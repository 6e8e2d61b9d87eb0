"""Shape of the recall cause `eval-models-passed-to-stepper-object` (benchmarks/recall/first-sight-8.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
import torch.nn as nn


# In the project this class sits in another module, named as a context file.
class Follower:
    def __init__(self, detector: nn.Module, embedder: nn.Module):
        self.detector = detector
        self.embedder = embedder
        self.tracks = []

    def step(self, frame):
        boxes = self.detector(frame)
        self.tracks.append(self.embedder(boxes).argmax(-1).tolist())


def run_sequences(sequences):
    detector = nn.Linear(16, 4)
    embedder = nn.Linear(4, 8)
    detector.eval()
    embedder.eval()
    follower = Follower(detector, embedder)
    for frames in sequences:
        for frame in frames:
            follower.step(frame)  # expect: GL101
    return follower.tracks


print(run_sequences([[torch.randn(2, 16)]]))
