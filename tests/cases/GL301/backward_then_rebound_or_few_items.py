"""Precision case: what the loop keeps is not the tensor it ran backward from.

After ``loss.backward()`` the name is rebound to a number before it is added
up; a loss kept from a loop over three literal items keeps three small graphs
until the call returns; a loss of a helper of another file carries no proof
of a graph in the default tier.
"""


def train(model, loader, optimizer, criterion):
    total = 0.0
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        loss = loss.item()
        total += loss  # expect-not: GL301
    return total / len(loader)


def three_heads(model, x, optimizer):
    kept = []
    for head in range(3):
        loss = model.head_loss(head, x)
        loss.backward()
        kept.append(loss)  # expect-preview: GL301
    optimizer.step()
    return [k.item() for k in kept]


def evaluate(model, loader, criterion):
    total = 0.0
    for x, y in loader:
        total += criterion(model(x), y)  # expect-preview: GL301
    return total / len(loader)
