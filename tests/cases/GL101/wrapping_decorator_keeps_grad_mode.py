"""Recall case (first-sight recall batch 28, CTGAN's ``sample``): a decorator of the
project hands back a wrapper that seeds the random state, calls the method and
restores the state. Grad mode stays the caller's, so the eval-mode generator's
sampling loop records graphs nobody uses.

Not reported: the same method under a wrapper that enters ``torch.no_grad()``.
"""

import contextlib
import functools

import torch
from torch import nn


@contextlib.contextmanager
def set_random_states(state):
    saved = torch.get_rng_state()
    torch.set_rng_state(state)
    try:
        yield
    finally:
        torch.set_rng_state(saved)


def random_state(function):
    def wrapper(self, *args, **kwargs):
        if self.random_states is None:
            return function(self, *args, **kwargs)
        with set_random_states(self.random_states):
            return function(self, *args, **kwargs)

    return wrapper


def quiet(function):
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        with torch.no_grad():
            return function(*args, **kwargs)

    return wrapper


class Synth:
    def __init__(self):
        self.generator = nn.Linear(4, 4)
        self.random_states = None

    @random_state
    def sample(self, steps):
        self.generator.eval()
        return [self.generator(torch.zeros(8, 4)).detach().numpy() for _ in range(steps)]  # expect: GL101:17

    @quiet
    def sample_quiet(self, steps):
        self.generator.eval()
        return [self.generator(torch.zeros(8, 4)).detach().numpy() for _ in range(steps)]  # expect-not: GL101
