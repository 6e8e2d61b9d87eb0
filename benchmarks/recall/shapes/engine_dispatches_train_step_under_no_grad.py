"""Shape of the recall cause `engine-dispatches-train-step-under-no-grad` (benchmarks/recall/sites.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 1)
        self.opt = torch.optim.SGD(self.parameters(), lr=0.1)

    def train_step(self, batch):
        loss = self.lin(batch).pow(2).mean()
        loss.backward()  # expect: GL103
        self.opt.step()
        return loss.item()


def run_test(model, batches, step_name="train_step"):
    step = getattr(model, step_name)
    with torch.no_grad():
        return [step(batch) for batch in batches]
