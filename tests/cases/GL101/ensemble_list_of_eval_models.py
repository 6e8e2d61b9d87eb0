"""Recall case: a blink estimator of a gaze-tracking package loads one model
per checkpoint in its constructor, puts each in eval mode and keeps them in a
plain list; ``predict`` runs every model of the list on each call with
gradients on. A list registers no submodule, so nothing but an item's own
``train()`` could take them out of eval mode, and the class calls none.
"""

import torch

from .estimate_blink_base import BlinkEstimatorBase
from .models import BlinkNetResnet18, BlinkNetVGG16

MODELS = {"resnet18": BlinkNetResnet18, "vgg16": BlinkNetVGG16}


class BlinkEstimator(BlinkEstimatorBase):
    def __init__(self, device, model_files, model_type):
        super().__init__(device=device)
        self._models = []
        for ckpt in model_files:
            _model = MODELS[model_type]()
            _model.load_state_dict(torch.load(ckpt))
            _model.to(device)
            _model.eval()
            self._models.append(_model)
        print(f"Loaded {len(self._models)} model(s)")

    def predict(self, left_eyes, right_eyes):
        left = torch.stack(left_eyes).to(self.device)
        right = torch.stack(right_eyes).to(self.device)
        result = [torch.sigmoid(model(left, right)).detach().cpu() for model in self._models]  # expect: GL101:33
        return torch.stack(result, dim=1).mean(dim=1).numpy()
