"""Recall case: the same IndexError in other spellings.

``loss.data.numpy()[0]`` and ``loss.data.cpu().numpy()[0]`` index a 0-dim
array, and ``total[0]`` indexes a total accumulated from 0-dim ``loss.data``:
each raised nothing on PyTorch 0.3 and raises IndexError today. ``criterion`` is a
parameter of unknown type: only its name says that ``loss`` is 0-dim, so the
printed read and ``total[0]`` are the preview tier's; the read appended to a log
(a number wanted where ``append`` keeps it) stays in the default tier.
"""


def train(model, criterion, optimizer, loader, log):
    total = 0
    for step, (x, y) in enumerate(loader):
        loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.data
        log.append(loss.data.numpy()[0])  # expect: GL003:20
        print(step, loss.data.cpu().numpy()[0])  # expect-preview: GL003:21
    print("mean loss", total[0] / len(loader))  # expect-preview: GL003:24
