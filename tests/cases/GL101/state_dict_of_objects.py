"""Recall case: the model is reached through a state dictionary, ``state["model"](x)``.

Training code that keeps its objects in a dict puts every network in eval
mode in a loop over its keys, then runs ``state["model"]`` with gradients
enabled.
"""


def run_validation(state, loader, metric):
    for name in ("model", "ema_model"):
        state[name].eval()
    metric.reset()
    for inputs, targets in loader:
        logits = state["model"](inputs)  # expect: GL101:18
        metric.update(logits.argmax(1), targets)
    return metric.compute().item()
