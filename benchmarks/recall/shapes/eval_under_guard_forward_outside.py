"""Shape of the recall cause `eval-under-guard-forward-outside` (benchmarks/recall/sites.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch


class Runner:
    def __init__(self, net):
        self.net = net

    def run(self, batches):
        results = []
        for batch in batches:
            with torch.no_grad():
                self.net.eval()
            x = torch.as_tensor(batch).float()
            results.append(self.net(x))  # expect: GL101
        return results
