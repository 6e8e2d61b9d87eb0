"""Shape of the recall cause `agent-predict-action-forward-with-grad` (benchmarks/recall/first-sight-27.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A reinforcement-learning agent keeps its networks (handed in by a factory
dict, never put in eval mode) and offers a `predict_action` used only by the
test episodes of a launcher in another file: it runs the networks with
gradients on and turns the outputs into Python numbers, so every test step
records a graph that no backward ever reads.
"""
import numpy as np
import torch
import torch.nn as nn


class Agent:
    def __init__(self, nets, device="cpu"):
        self.device = torch.device(device)
        self.policy = nets["policy"].to(self.device)
        self.value = nets["value"].to(self.device)

    def predict_action(self, obs):
        x = torch.tensor(np.array([obs]), dtype=torch.float32, device=self.device)
        probs = self.policy(x)  # expect: GL101
        score = self.value(x)  # expect: GL101
        return int(probs.argmax()), float(score.squeeze())


agent = Agent({"policy": nn.Sequential(nn.Linear(3, 2), nn.Softmax(-1)), "value": nn.Linear(3, 1)})
print(agent.predict_action([0.1, 0.2, 0.3]))
