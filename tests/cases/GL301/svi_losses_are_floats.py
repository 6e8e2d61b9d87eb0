"""Precision case: pyro's SVI returns its loss estimates as Python floats.

``svi.step`` and ``svi.evaluate_loss`` differentiate (or evaluate) the ELBO
inside and return a float: the totals are numbers and keep no graph.
"""

from pyro.infer import SVI
from pyro.optim import Adam


def run(vae, train_loader, test_loader, epochs):
    svi = SVI(vae.model, vae.guide, Adam({"lr": 1e-3}), loss="ELBO")
    for epoch in range(epochs):
        epoch_loss = 0.0
        for x, _ in train_loader:
            epoch_loss += svi.step(x)  # expect-not: GL301
        test_loss = 0.0
        for x, _ in test_loader:
            test_loss += svi.evaluate_loss(x)  # expect-not: GL301
        print(epoch, epoch_loss, test_loss)
