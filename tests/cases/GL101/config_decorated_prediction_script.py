"""Recall case (kept): prediction entry points decorated by a configuration
library (first-sight batch 18's `predict_from_batch.py`, a `@hydra.main()`
script).

`hydra.main` composes the configuration and calls the function with it;
`click.command` and `click.option` parse the command line and call it: none
touches grad mode, so the forwards of their eval-mode models run with
gradients on. A decorator the model cannot read still keeps a function
silent (it may enter `no_grad` itself).
"""

import click
import hydra
import torch

from .registry import load_model, timed


@hydra.main(config_path="conf", config_name="predict")
def predict_from_batch(cfg):
    model = torch.load(cfg.checkpoint)
    model.eval()
    for batch in torch.load(cfg.batches):
        predictions = model(batch["image"])  # expect: GL101
        print(predictions.argmax(1).tolist())


@click.command()
@click.option("--checkpoint")
def predict_cli(checkpoint):
    model = torch.load(checkpoint)
    model.eval()
    for batch in torch.load("batches.pt"):
        print(model(batch).argmax(1).tolist())  # expect: GL101


@timed
def predict_timed(checkpoint):
    model = load_model(checkpoint)
    model.eval()
    for batch in torch.load("batches.pt"):
        print(model(batch).argmax(1).tolist())  # expect-not: GL101
