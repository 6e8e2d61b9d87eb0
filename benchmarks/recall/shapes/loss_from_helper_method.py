"""Shape of the recall cause `loss-from-helper-method` (benchmarks/recall/sites.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
class Trainer:
    def evaluate(self, sentences, size=32):
        eval_loss = 0
        batches = [sentences[i : i + size] for i in range(0, len(sentences), size)]
        for batch in batches:
            scores = self.model.forward(batch)
            loss = self.model.calculate_loss(scores, batch)
            eval_loss += loss  # expect: GL301
        return eval_loss / len(sentences)
