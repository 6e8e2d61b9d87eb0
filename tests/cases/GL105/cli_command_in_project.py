"""Precision case (issue 26): a click command stays a command when another file
of the project calls a method of the same name.

``predict`` is a module-level click command; ``model.py`` calls
``self.net.predict(x)``, a method of whatever ``self.net`` holds, which no
import ties to this module: that proves no caller of the command, so the
command is still the process's whole work and switching grad off there is
what it means (the preview tier reports it all the same).
"""

import click
import torch

from model import Net


@click.command()
@click.argument("path")
def predict(path):
    torch.set_grad_enabled(False)  # expect-preview: GL105:5
    net = Net()
    net.load_state_dict(torch.load(path))
    net.eval()
    print(net(torch.zeros(1, 4)))
