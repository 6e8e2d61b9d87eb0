"""Recall case: a library's switch leaks into its callers' code, whatever their mode.

A library module (no entry point, nobody in the file calls these): a function
that switches grad off, a denoiser's method that switches grad on for its own
gradient and then off (its forward runs in training), and a detector whose
constructor switches grad off. Each leaves the caller's thread without grad.
"""

import torch
from torch import nn


def score(model, images):
    torch.set_grad_enabled(False)  # expect: GL105:5
    return model(images).softmax(-1)


class GradientStep(nn.Module):
    def __init__(self, denoiser):
        super().__init__()
        self.denoiser = denoiser

    def potential_grad(self, x, sigma):
        torch.set_grad_enabled(True)
        x = x.requires_grad_()
        n = self.denoiser(x, sigma)
        jn = torch.autograd.grad(n, x, grad_outputs=x - n)[0]
        torch.set_grad_enabled(False)  # expect: GL105:9
        return x - n - jn

    def forward(self, x, sigma):
        return x - self.potential_grad(x, sigma)


class FaceDetector:
    def __init__(self, net):
        torch.set_grad_enabled(False)  # expect: GL105:9
        self.net = net.eval()

    def __call__(self, image):
        return self.net(image)
