"""Recall case: an epoch step shared with training, `run_epoch(model, loader,
loss_fn, optimizer)`, whose backward and step run only under `if optimizer:`
(or `if optimizer is not None:`), called after `model.eval()` with `None` for
validation: on that path its forwards record a graph no backward uses. It is
reported at the call, once per region and helper; no fix is offered, since a
guard inside the helper would reach its training calls too.
"""


def run_epoch(model, loader, loss_fn, optimizer, scheduler=None):
    total, seen = 0.0, 0
    for data, label in loader:
        if optimizer:
            optimizer.zero_grad()
        loss = loss_fn(model(data), label)
        if optimizer:
            loss.backward()
            optimizer.step()
        if scheduler is not None:
            scheduler.step()
        total += loss.item() * len(data)
        seen += len(data)
    return total / seen


def evaluate(model, loader, loss_fn, optimizer):
    loss = loss_fn(model(loader[0]), loader[1])
    if optimizer is not None:
        loss.backward()
    return loss.item()


def fit(model, train_loader, valid_loader, test_loader, loss_fn, optimizer, epochs):
    for epoch in range(epochs):
        model.train()
        run_epoch(model, train_loader, loss_fn, optimizer)
        model.eval()
        if epoch % 5 == 0:
            valid = run_epoch(model, valid_loader, loss_fn, None)  # expect: GL101:21
            test = run_epoch(model, test_loader, loss_fn, None)
            print(epoch, valid, test, evaluate(model, test_loader, loss_fn, None))  # expect: GL101:39
