"""Recall case: a library matcher built with ``.to(device).eval()`` chained and
run on every image pair, its outputs turned into NumPy arrays and handed to a
private helper that only computes on NumPy and a number the constructor was
given (recall batch 10, gtsfm's LoFTR matcher).

``_filter`` reads ``np`` and ``self._min_confidence`` (a ``float`` parameter
of ``__init__``), so what it returns carries no graph: the forward's graph is
wanted by nothing the matcher returns. Precision: ``CachedMatcher``'s helper
reads ``self._cache``, which may hold anything (a tensor with its graph), so
what ``match`` returns may carry the graph to its caller.
"""

import numpy as np
import torch
from kornia.feature import LoFTR

from matching.base import MatcherBase


class Matcher(MatcherBase):
    def __init__(self, use_cuda: bool = True, min_confidence: float = 0.95) -> None:
        super().__init__()
        self._use_cuda = use_cuda
        self._min_confidence = min_confidence

    def match(self, image_1, image_2):
        device = torch.device("cuda" if self._use_cuda else "cpu")
        matcher = LoFTR(pretrained="outdoor").to(device).eval()
        out = matcher({"image0": image_1.to(device), "image1": image_2.to(device)})  # expect: GL101:15
        points_1 = out["keypoints0"].cpu().numpy()
        confidence = out["confidence"].cpu().numpy()
        return self._filter(points_1, confidence)

    def _filter(self, points, confidence):
        idxs = np.argsort(-confidence)
        keep = (confidence[idxs] > self._min_confidence).sum()
        return points[idxs[:keep]]


class CachedMatcher(MatcherBase):
    def __init__(self, cache) -> None:
        super().__init__()
        self._cache = cache

    def match(self, image_1, image_2):
        matcher = LoFTR(pretrained="outdoor").cuda().eval()
        out = matcher({"image0": image_1, "image1": image_2})  # expect-not: GL101
        points_1 = out["keypoints0"].cpu().numpy()
        return self._filter(points_1)

    def _filter(self, points):
        return points + self._cache
