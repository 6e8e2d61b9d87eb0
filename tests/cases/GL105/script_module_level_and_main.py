"""Precision case (kept): a script switches gradients off at module level and in ``main``.

Both are the program's own run: module-level code of a script and its
``main`` function.
"""

import sys

import torch

torch.set_grad_enabled(False)  # expect-not: GL105


def main(argv):
    torch.set_grad_enabled(False)  # expect-not: GL105
    model = torch.jit.load(argv[1])
    print(model(torch.load(argv[2])).argmax(1).tolist())


if __name__ == "__main__":
    main(sys.argv)
