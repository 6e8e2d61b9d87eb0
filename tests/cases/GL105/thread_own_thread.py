"""Precision case: a switch in a thread's own ``run`` or ``target=``.

Grad mode is per thread: the ``run`` of a ``threading.Thread`` subclass, and a
function given as ``target=`` to a ``Thread``, switch it for that thread only,
which here serves requests and never trains. Reported only in the preview
tier. A method of the same class that the caller's thread runs is reported.
"""

import threading
from threading import Thread

import torch


class Server(threading.Thread):
    def __init__(self, model, queue):
        super().__init__(daemon=True)
        self.model = model
        self.queue = queue

    def run(self):
        torch.set_grad_enabled(False)  # expect-preview: GL105:9
        while True:
            self.queue.put(self.model(self.queue.get()))

    def warm_up(self, x):
        torch.set_grad_enabled(False)  # expect: GL105:9
        return self.model(x)


def serve(model, requests, replies):
    torch.set_grad_enabled(False)  # expect-preview: GL105:5
    while True:
        replies.put(model(requests.get()))


def start(model, requests, replies):
    worker = Thread(target=serve, args=(model, requests, replies))
    worker.start()
    return worker
