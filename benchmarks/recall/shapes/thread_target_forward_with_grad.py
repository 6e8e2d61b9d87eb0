"""Shape of the recall cause `thread-target-forward-with-grad` (benchmarks/recall/first-sight-12.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import queue
import threading

import torch
import torch.nn as nn


class Streamer(nn.Module):
    def __init__(self):
        super().__init__()
        self.decoder = nn.Linear(4, 16)
        self.decoder.eval()

    def _decode_worker(self, inbox: queue.Queue, outbox: queue.Queue):
        # grad mode is thread-local: the no_grad of the caller below does not reach this thread
        chunks = []
        while True:
            latent = inbox.get()
            if latent is None:
                break
            frame = self.decoder(latent)  # expect: GL101
            chunks.append(frame)
            outbox.put(frame)

    @torch.no_grad()
    def stream(self, latents):
        inbox, outbox = queue.Queue(), queue.Queue()
        worker = threading.Thread(target=self._decode_worker, args=(inbox, outbox), daemon=True)
        worker.start()
        for z in latents:
            inbox.put(z)
        inbox.put(None)
        worker.join()
        return [outbox.get() for _ in latents]
