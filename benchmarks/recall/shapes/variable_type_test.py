"""Shape of the recall cause `variable-type-test` (benchmarks/recall/first-sight-3.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
from torch.autograd import Variable


def cut_history(state):
    if type(state) == Variable:  # expect: GL0xx
        return Variable(state.data)
    return tuple(cut_history(s) for s in state)
