"""Precision case: a command-line command is the process's whole work.

``sample_images`` and ``export`` are commands of a click group and of a
typer app: the console script runs one of them and the process ends when it
returns, so switching grad off there is what the command means. ``convert`` is a command
too, but ``batch_convert`` calls it as a function: its caller's thread goes on.
"""

import click
import torch
import typer

app = typer.Typer()


@click.group()
def cli():
    pass


@cli.command()
@click.option("--steps", default=50)
def sample_images(steps):
    torch.set_grad_enabled(False)  # expect-preview: GL105:5
    return [torch.randn(3) for _ in range(steps)]


@app.command()
def export(path: str):
    torch.set_grad_enabled(False)  # expect-preview: GL105:5
    torch.save(torch.randn(3), path)


@click.command()
def convert(path):
    torch.set_grad_enabled(False)  # expect: GL105:5
    return torch.load(path)


def batch_convert(paths):
    return [convert(p) for p in paths]
