"""Shape of the recall cause `pretrained-model-forward-in-predict-loop` (benchmarks/recall/first-sight-8.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
from transformers import AutoModelForSequenceClassification


class CellRanker:
    def __init__(self, name):
        self.scorer = AutoModelForSequenceClassification.from_pretrained(name)

    def rank(self, encoded_tables):
        best = []
        for inputs in encoded_tables:
            scores = self.scorer(**inputs)[0].detach().cpu().numpy()[:, 1]  # expect: GL101
            best.append(int(scores.argmax()))
        return best
