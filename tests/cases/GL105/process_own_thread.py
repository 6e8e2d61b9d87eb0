"""Precision case: a switch in a child process's own thread.

``run`` of a ``multiprocessing.Process`` subclass (directly, or through a class
of the project) and a function given as ``target=`` to a Process execute in the
child process: the rest of that thread is the child, which here never trains.
Grad mode is per thread, so the parent is not affected. Reported only in the
preview tier. Another method of such a class runs in the parent's thread
(``reset`` is called by the parent): reported.
"""

import multiprocessing as mp
from multiprocessing import Process

import torch
import torch.multiprocessing as tmp


class SubEnv(Process):
    def __init__(self, pipe, env):
        super().__init__()
        self.pipe = pipe
        self.env = env

    def run(self):
        torch.set_grad_enabled(False)  # expect-preview: GL105:9
        while True:
            action = self.pipe.recv()
            self.pipe.send(self.env.step(action))

    def reset(self):
        torch.set_grad_enabled(False)  # expect: GL105:9
        return self.env.reset()


class Evaluator(SubEnv):
    def run(self):
        torch.set_grad_enabled(False)  # expect-preview: GL105:9
        while True:
            actor = self.pipe.recv()
            self.pipe.send(actor(self.env.reset()))


class TorchWorker(tmp.Process):
    def run(self):
        torch.set_grad_enabled(False)  # expect-preview: GL105:9
        self.pipe.send(self.env.reset())


def explore(pipe, actor):
    torch.set_grad_enabled(False)  # expect-preview: GL105:5
    while True:
        pipe.send(actor(pipe.recv()))


def start_workers(pipes, actor):
    return [mp.Process(target=explore, args=(pipe, actor)) for pipe in pipes]
