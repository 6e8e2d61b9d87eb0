"""Precision case: an inference script's entry function switches gradients off.

Policy assumed: a *script* is a file with an ``if __name__ == "__main__":``
block. A function that only this block calls, as its last statement, is the
script's entry point just as ``main`` is: switching gradients off for the
rest of the thread is switching them off for the rest of the run, which is
what an inference script means. (In a library every function is reported:
its callers' training is the thread's "rest".)
"""

import argparse

import torch

from models import build_model


def run_inference(args):
    torch.set_grad_enabled(False)  # expect-not: GL105
    model = build_model(args.arch)
    model.load_state_dict(torch.load(args.checkpoint, map_location="cpu"))
    model.eval()
    images = torch.load(args.inputs)
    torch.save(model(images).argmax(1), args.output)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    for flag in ("--arch", "--checkpoint", "--inputs", "--output"):
        parser.add_argument(flag, required=True)
    run_inference(parser.parse_args())
