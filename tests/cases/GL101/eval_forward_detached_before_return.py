"""Recall case (kept): a module method puts its frozen feature extractor in eval
mode and runs it with gradients on; the dict of outputs is pooled item by item
and the result is detached before it is returned (batch 17's anomalib
DFKDE/DFM shape).

The item writes edit the forward's dict, which the later binding replaces: the
value returned is the detached tensor, so no caller can want the graph the
forward records. A method that edits the detached tensor after detaching it
may give it history again and stays silent.
"""

import torch
import torch.nn.functional as F
from torch import nn

from .components import FeatureExtractor


class FeatureModel(nn.Module):
    def __init__(self, layers: list):
        super().__init__()
        self.feature_extractor = FeatureExtractor(layers=layers).eval()

    def get_features(self, batch: torch.Tensor) -> torch.Tensor:
        self.feature_extractor.eval()
        features = self.feature_extractor(batch)  # expect: GL101
        for layer in features:
            features[layer] = F.adaptive_avg_pool2d(features[layer], (1, 1)).flatten(1)
        features = torch.cat(list(features.values())).detach()
        return features

    def get_mixed_features(self, batch: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        self.feature_extractor.eval()
        features = self.feature_extractor(batch)  # expect-not: GL101
        features = torch.cat(list(features.values())).detach()
        features += bias
        return features
