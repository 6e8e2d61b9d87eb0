"""Recall case: grad-mode decorators on `async def` methods of an inference
server (a text detector's `_infer`), which cover none of their bodies; the
same decorators on plain functions, and a guard entered in the body, are
precision cases.
"""

import torch
from torch import inference_mode as im


class Detector:
    @torch.no_grad()  # expect: GL107:6
    async def infer(self, image):
        return self.model(image)

    @im()  # expect: GL107:6
    async def embed(self, image):
        return self.encoder(image)

    @torch.no_grad  # expect: GL107:6
    async def score(self, image):
        return self.head(image)

    @torch.no_grad()  # expect-not: GL107
    def infer_sync(self, image):
        return self.model(image)

    async def infer_guarded(self, image):
        with torch.no_grad():  # expect-not: GL107
            return self.model(image)
