"""Shape of the recall cause `eval-model-handed-to-base-wrapper` (benchmarks/recall/first-sight-8.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import warnings

import torch
import torch.nn as nn


# In the project this base class sits in another module, named as a context file.
class QueryModel:
    def __init__(self, fn):
        self._fn = fn

    def __call__(self, inputs):
        return self._fn(inputs)


class TorchQueryModel(QueryModel):
    def __init__(self, model: nn.Module):
        if model.training:
            warnings.warn("call model.eval() first")
        # every plain query then runs the model with grad on
        super().__init__(model)  # expect: GL101


fmodel = TorchQueryModel(nn.Linear(4, 2).eval())
print(fmodel(torch.randn(3, 4)).argmax(-1))
