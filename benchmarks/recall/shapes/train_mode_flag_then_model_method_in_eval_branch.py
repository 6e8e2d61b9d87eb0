"""Shape of the recall cause `train-mode-flag-then-model-method-in-eval-branch` (benchmarks/recall/first-sight-22.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
A shared step switches the model's mode with `train(flag)`, runs the loss
under `set_grad_enabled(flag)`, and in the branch taken when the flag is
false calls a prediction method of the model with autograd still on.
"""
import torch


class Wrapper:
    def __init__(self, net, opt):
        self.net = net
        self.opt = opt

    def step(self, batch, phase):
        training = phase == "train"
        self.net.train(training)
        with torch.set_grad_enabled(training):
            loss = self.net.loss(batch)
        preds = None
        if training:
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
        else:
            preds = self.net.predict_next(batch)  # expect: GL101
            preds = preds.detach().cpu().numpy()
        return loss.item(), preds
