"""Recall case (kept; issue 26), the twin of ``cli_command_in_project.py``: the
command is also called as a function, by ``batch.py`` of the project, which
imports it from this module. The caller's thread goes on after it returns
with gradients off: the switch is reported.
"""

import click
import torch

from model import Net


@click.command()
@click.argument("path")
def predict(path):
    torch.set_grad_enabled(False)  # expect: GL105:5
    net = Net()
    net.load_state_dict(torch.load(path))
    net.eval()
    return net(torch.zeros(1, 4))
