"""Precision case: closures over models that are not proven in eval mode when they
run: a model the caller passed in (the caller may train it between calls), a
model handed to a trainer after the closure is made, a model the enclosing
function rebinds, and a closure defined before the `eval()`.
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
