"""Shape of the recall cause `copied-model-candidate-weights-forward` (benchmarks/recall/first-sight-22.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A library helper scores one candidate weight vector of a gradient-free
optimiser (a genetic algorithm, an evolution strategy): it copies the
user's module, loads the candidate into the copy and runs it on the data
with gradients on, although no backward ever follows; the caller only turns
the loss into a fitness number.
"""
import copy

import torch


def vector_to_state(module, flat):
    state = module.state_dict()
    start = 0
    for key, value in state.items():
        count = value.numel()
        state[key] = torch.as_tensor(flat[start:start + count]).view_as(value)
        start += count
    return state


def score_candidate(module, flat, inputs):
    trial = copy.deepcopy(module)
    trial.load_state_dict(vector_to_state(module, flat))
    outputs = trial(inputs)  # expect: GL101
    return outputs
