"""Shape of the recall cause `self-forward` (benchmarks/recall/sites.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch


class Tagger(torch.nn.Module):
    def predict(self, sentences):
        self.eval()
        labels = []
        for batch in sentences:
            scores = self.forward(batch)  # expect: GL101
            labels.extend(scores.argmax(-1).tolist())
        return labels

    def sample(self, n):
        out = []
        for _ in range(n):
            out.append(self(torch.zeros(1, 4)).item())  # expect: GL101
        return out
