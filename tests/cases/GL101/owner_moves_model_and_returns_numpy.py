"""Recall case: a face-reconstruction helper loads its network in `__init__`,
puts it in eval mode and moves it to the GPU when there is one (the move keeps
the mode); `process`, called per face, runs it with gradients on and returns
only NumPy arrays computed from the detached output.
"""

import numpy as np
import torch

from model.prnet import PRNet


class PRN:
    def __init__(self, path):
        self.scale = 1.1
        self.net = PRNet(3, 3)
        self.net.load_state_dict(torch.load(path))
        self.net.eval()
        if torch.cuda.is_available():
            self.net = self.net.to("cuda")

    def process(self, image):
        crop = torch.from_numpy(image[np.newaxis].astype(np.float32))
        pos = self.net(crop)  # expect: GL101:15
        pos = pos.cpu().detach().numpy()
        return np.reshape(np.transpose(pos, (0, 2, 3, 1)), (-1, 3))
