"""Precision case: a guard applied to a callable whose result is called, kept
or returned runs or keeps the guarded function: nothing is thrown away.
"""

import torch


def run(closure):
    loss = torch.enable_grad()(closure)()  # expect-not: GL107
    guarded = torch.no_grad()(closure)  # expect-not: GL107
    return loss, guarded, torch.inference_mode()(closure)  # expect-not: GL107
