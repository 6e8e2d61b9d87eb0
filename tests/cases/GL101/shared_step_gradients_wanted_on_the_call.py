"""Precision case: a shared step called after `model.eval()` where the call does
not rule out its gradient code: an optimizer passed on (fine-tuning with frozen
batch-norm statistics), an optimizer only known at run time, and a step whose
loss leaves with its graph for the caller's own backward.
"""


def run_epoch(model, loader, loss_fn, optimizer):
    total = 0.0
    for data, label in loader:
        loss = loss_fn(model(data), label)
        if optimizer:
            loss.backward()
            optimizer.step()
        total += loss.item()
    return total


def step_loss(model, batch, loss_fn, optimizer):
    loss = loss_fn(model(batch[0]), batch[1])
    if optimizer is not None:
        optimizer.zero_grad()
    return loss


def finetune(model, loader, loss_fn, optimizer, maybe_optimizer):
    model.eval()
    run_epoch(model, loader, loss_fn, optimizer)  # expect-not: GL101
    run_epoch(model, loader, loss_fn, maybe_optimizer)  # expect-not: GL101
    for batch in loader:
        step_loss(model, batch, loss_fn, None).backward()  # expect-not: GL101
