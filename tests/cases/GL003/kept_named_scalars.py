"""Recall case (kept): ``.data[0]`` of losses and metrics read as numbers.

The 0.3-era training loop: a running sum, a formatted print and a list of
accuracies. A row of the output batch (``outputs.data[0].cpu()``) is not a
scalar read and is left alone.
"""


def train(model, criterion, optimizer, loader, accuracies):
    running_loss = 0.0
    for step, (x, y) in enumerate(loader):
        outputs = model(x)
        loss = criterion(outputs, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        running_loss += loss.data[0]  # expect: GL003:25
        acc = (outputs.max(1)[1] == y).float().mean()
        accuracies.append(acc.data[0])  # expect: GL003:27
        print("step %d loss %.4f" % (step, loss.data[0]))  # expect: GL003:44
        first = outputs.data[0].cpu().numpy()  # expect-not: GL003
    return running_loss / len(loader), first
