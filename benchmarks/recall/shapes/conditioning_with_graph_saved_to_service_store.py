"""Shape of the recall cause `conditioning-with-graph-saved-to-service-store` (benchmarks/recall/first-sight-8.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch.nn as nn


class TensorStore:
    def __init__(self):
        self._items = {}

    def save(self, name, value):
        self._items[name] = value


STORE = TensorStore()


class PromptNode:
    def __init__(self, encoder: nn.Module):
        self.encoder = encoder.eval()

    def invoke(self, node_id, token_ids):
        cond = self.encoder(token_ids)  # expect: GL101
        # the store outlives the call, and the graph of the encoder with it
        STORE.save(f"{node_id}_conditioning", cond)  # expect: GL301
        return f"{node_id}_conditioning"
