"""Shape of the recall cause `pipeline-component-embeddings-cached-with-graph` (benchmarks/recall/first-sight-23.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A factory module loads a network and puts it in eval mode; a builder hands
the network to small pipeline components. One component encodes the items it
has not seen yet, with gradients on, and keeps each row in a dictionary on
the component, which lives as long as the service: every cached row holds
the graph of the batch it came from. Another component scores with the same
network, also with gradients on, and detaches only the final numbers.
"""
import torch


def load_encoder(path):
    net = torch.load(path)
    net.eval()
    return net


class ItemEncoder:
    def __init__(self, net):
        self.net = net
        self.memo = {}

    def __call__(self, keys, token_batch):
        fresh = [k for k in keys if k not in self.memo]
        if fresh:
            rows = self.net.encode(token_batch)  # expect: GL101
            for i, key in enumerate(fresh):
                self.memo[key] = rows[i].clone()  # expect: GL301
        return torch.stack([self.memo[k] for k in keys])


class Ranker:
    def __init__(self, net):
        self.net = net

    def __call__(self, items, user):
        scores = self.net.score(items, user)  # expect: GL101
        return scores.detach().numpy()


def build(path):
    net = load_encoder(path)
    return ItemEncoder(net), Ranker(net)
