"""Shape of the recall cause `learner-model-forward-into-dataframe` (benchmarks/recall/first-sight-22.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
A scoring helper takes a trained learner object, calls the forward of the
network it holds with autograd on, and puts the output straight into a
pandas column; nothing in the file puts the network in eval mode and no
gradient is ever taken of the scores.
"""
import pandas as pd


def score_pairs(learner, users, items):
    u = learner.index_of(users)
    i = learner.index_of(items)
    pred = learner.model.forward(u, i)  # expect: GL101
    return pd.DataFrame({"user": users, "item": items, "score": pred})
