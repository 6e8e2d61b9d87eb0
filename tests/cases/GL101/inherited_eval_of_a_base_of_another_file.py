"""Recall case (first-sight recall batch 28, PyHealth's LIME explainer and a chess
engine's distillation trainer): a base class of another file puts ``self.model``
in eval mode, in its constructor (``super().__init__(model)``) or in a method the
subclass calls first (``super().forward_validation_data(loader)``). The subclass's
forwards then run in eval mode with gradients on, for numbers only.

Not reported: a forward under ``torch.no_grad()``, and a constructor's eval mode
when the base's own methods train the model again (``TunedInterpreter.tune``).
"""

import torch

from interpreters import BaseInterpreter, BaseTrainer, TunedInterpreter


class LimeExplainer(BaseInterpreter):
    def __init__(self, model, n_samples=1000):
        super().__init__(model)
        self.n_samples = n_samples

    def _forward(self, inputs):
        output = self.model(**inputs)  # expect: GL101:18
        return output["y_prob"]

    def _forward_guarded(self, inputs):
        with torch.no_grad():
            return self.model(**inputs)["y_prob"]  # expect-not: GL101

    def attribute(self, inputs):
        return torch.stack([self._forward(inputs).detach().mean() for _ in range(self.n_samples)])


class DistillTrainer(BaseTrainer):
    def forward_validation_data(self, loader):
        super().forward_validation_data(loader)
        outputs = []
        for x, _ in loader:
            out = self.model(x).detach()  # expect: GL101:19
            outputs.extend(out)
        return torch.stack(outputs).numpy()

    def training_loop(self, loader, val_loader):
        self.fit(loader)
        print(self.forward_validation_data(val_loader).mean())


class TunedLime(TunedInterpreter):
    def __init__(self, model):
        super().__init__(model)

    def _forward(self, inputs):
        output = self.model(**inputs)  # expect-not: GL101
        return output["y_prob"]

    def attribute(self, inputs):
        return torch.stack([self._forward(inputs).detach().mean() for _ in range(100)])
