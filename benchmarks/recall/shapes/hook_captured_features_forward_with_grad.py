"""Shape of the recall cause `hook-captured-features-forward-with-grad` (benchmarks/recall/first-sight-24.toml).

A selection helper wants the activations of one named layer for every batch of
a pool. It hangs a forward hook on that layer that stores a detached copy,
then calls the whole model only to make the hook fire and ignores what the
model returns. No gradient is ever taken, the model is not put in eval mode,
and grad mode is on, so each batch's forward records a full graph that is
dropped again on return.

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
from torch.utils.data import DataLoader


class PoolSelector:
    def __init__(self, net: torch.nn.Module, batch_size: int = 64):
        self.net = net
        self.batch_size = batch_size

    def layer_activations(self, batch, layer_name):
        grabbed = {}

        def keep(module, inputs, output):
            grabbed["act"] = output.detach()

        handle = dict(self.net.named_children())[layer_name].register_forward_hook(keep)
        self.net(batch)  # expect: GL1xx
        handle.remove()
        return grabbed["act"].flatten(1)

    def pool_embedding(self, pool, layer_name="pool"):
        chunks = []
        for batch in DataLoader(pool, batch_size=self.batch_size):
            chunks.append(self.layer_activations(batch, layer_name))
        return torch.cat(chunks)
