"""Precision case: closures over models not proven in eval mode when they run: a
model the caller passed in (it may train it between calls), one handed to a
trainer after, one rebound, one switched after the `def`, and one kept as an
attribute that another method trains.
"""

import torch


def serve(model):
    model.eval()

    def predict(x):
        return model(x).tolist()  # expect-not: GL101

    return predict


def fit_then_predict(path, trainer):
    net = torch.load(path)
    net.eval()

    def predict(x):
        return net(x).tolist()  # expect-not: GL101

    trainer.fit(net)
    return predict


def reloading(path):
    net = torch.load(path)
    net.eval()

    def predict(x):
        return net(x).tolist()  # expect-not: GL101

    net = torch.load(path + ".best")
    return predict


def early(path):
    def predict(x):
        return net(x).tolist()  # expect-not: GL101

    net = torch.load(path)
    net.eval()
    return predict


class Tuner:
    def load(self, path):
        model = self._model = torch.load(path).eval()

        def compute(x):
            return model(x).tolist()  # expect-not: GL101

        self.compute = compute

    def tune(self):
        self._model.train()
