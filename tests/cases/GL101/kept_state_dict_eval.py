"""Recall case (kept): ``state["model"].eval()`` then ``state["model"](x)``.

The subscript form of the model, put in eval mode directly.
"""


def run_validation(state, loader, metric):
    state["model"].eval()
    metric.reset()
    for inputs, targets in loader:
        logits = state["model"](inputs)  # expect: GL101:18
        metric.update(logits.argmax(1), targets)
    return metric.compute().item()
