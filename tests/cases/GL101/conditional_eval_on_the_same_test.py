"""Recall case (first-sight recall batch 27, ProG's ``GPFEva``): an optional head is
put in eval mode under ``if answering:`` and run under the same test in the batch
loop, where it is in eval mode and records a graph that nothing uses.

Not reported: a forward outside the test (it also runs where the test failed, in a
mode the code leaves open), a forward the test rules out (``if not head:``), a test
rebound after the switch, and an ``if`` with an ``else`` that may switch the other way.
"""

import torch


def evaluate(loader, gnn, prompt, answering):
    prompt.eval()
    if answering:
        answering.eval()
    correct = 0
    for batch in loader:
        out = gnn(prompt.add(batch.x), batch.edge_index)
        if answering:
            out = answering(out)  # expect: GL101:19
        correct += int((out.argmax(dim=1) == batch.y).sum())
    return correct


def evaluate_flagged(loader, head, cfg):
    if cfg.eval_head:
        head.eval()
    scores = []
    for x in loader:
        scores.append(head(x).argmax(-1).tolist())  # expect-not: GL101
    return scores


def ruled_out(loader, head):
    if head:
        head.eval()
    for x in loader:
        if not head:
            print(head(x).sum().item())


def rebound(loader, head, spare):
    if head:
        head.eval()
    head = spare
    for x in loader:
        if head:
            print(head(x).sum().item())


def either_mode(loader, head, train):
    if train:
        head.train()
    else:
        head.eval()
    for x in loader:
        head(x).sum().backward()
