"""Shape of the recall cause `eval-in-other-file` (benchmarks/recall/sites.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch


class Agent:
    """The training script calls agent.eval() before it calls act()."""

    def act(self, state):
        q = self.online_net(state.unsqueeze(0))  # expect: GL101
        return q.argmax(1).item()
