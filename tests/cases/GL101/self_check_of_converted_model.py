"""Precision case (first-sight batch 6): a conversion tester runs each model once on
a constant dummy image (``torch.ones``) and returns the output to the ``main`` of
the file, which only compares the two. The inputs are made up and the outputs
only checked: a self-check, silent in the default tier, reported by the preview
tier.

Recall counterparts: ``made_up_inputs_kept_as_results.py``.
"""

import torch


def run_converted(model):
    model.eval()
    images = torch.ones((1, 3, 448, 448), dtype=torch.bfloat16, device="cuda")
    output = model(images)  # expect-preview: GL101:14
    return output


def run_reference(model):
    model = model.cuda().eval()
    images = torch.ones((1, 3, 448, 448), dtype=torch.bfloat16, device="cuda")
    outputs = model(images, return_dict=True)  # expect-preview: GL101:15
    return outputs


def main(converted, reference):
    mine = run_converted(converted)
    theirs = run_reference(reference)
    theirs = theirs["last_hidden_state"]
    diff = (mine - theirs).abs()
    mean_diff, max_diff = diff.mean().item(), diff.max().item()
    print(f"mean diff {mean_diff}, max diff {max_diff}")
    assert mean_diff < 0.1, "mean output difference is greater than expected"
