"""Precision case: global models that the module's body switches to eval mode but
that are not proven in eval mode, or not run for nothing, where a function
uses them: one a function of the file trains, one a parameter shadows, one a
module-level call runs before its switch, one a function rebinds through
`global`, and one whose output is returned with its graph (a guidance loss
that a caller differentiates).
"""

import torch

scorer = torch.nn.Linear(4, 1)
scorer.eval()


def fit(batches, optimizer):
    scorer.train()
    for x, y in batches:
        loss = (scorer(x) - y).pow(2).mean()
        loss.backward()
        optimizer.step()


def score(x):
    return scorer(x).tolist()  # expect-not: GL101


ranker = torch.nn.Linear(4, 1).eval()


def rank(ranker, x):
    return ranker(x).tolist()  # expect-not: GL101


def warm(x):
    return tagger(x).tolist()  # expect-not: GL101


tagger = torch.nn.Linear(4, 2)
warm(torch.ones(1, 4))
tagger.eval()

critic = torch.nn.Linear(4, 1).eval()


def reload(path):
    global critic
    critic = torch.load(path)


def judge(x):
    return critic(x).tolist()  # expect-not: GL101


guide = torch.nn.Linear(4, 1).eval()


def guidance_loss(image):
    return guide(image).pow(2).mean()  # expect-not: GL101
