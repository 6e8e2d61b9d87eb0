"""Shape of the recall cause `fold-outputs-with-graph-losses-collected` (benchmarks/recall/first-sight-23.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A per-fold training helper ends with a final evaluation forward in eval mode
but with gradients on and returns the graph-carrying predictions; the
cross-validation driver keeps every fold's predictions and collects their
losses in a comprehension, which still carry the graphs (NumPy then refuses
them: "Can't call numpy() on Tensor that requires grad").
"""
import numpy as np
import torch
import torch.nn.functional as F


def train_fold(model, data, opt, epochs=10):
    model.train()
    for _ in range(epochs):
        opt.zero_grad()
        loss = F.mse_loss(model(data.x)[data.train_mask], data.y[data.train_mask])
        loss.backward()
        opt.step()
    model.eval()
    out = model(data.x)  # expect: GL1xx
    return out[data.val_mask], data.y[data.val_mask]


def cross_validate(make_model, data, folds):
    results = []
    for fold in folds:
        model = make_model()
        opt = torch.optim.Adam(model.parameters())
        results.append(train_fold(model, data, opt))
    fold_mse = [F.mse_loss(p, a) for p, a in results]  # expect: GL301
    return np.mean(fold_mse)
