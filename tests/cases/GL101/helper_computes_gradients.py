"""Precision case: after ``eval()``, a helper method runs the model and takes gradients.

An adversarial attack puts the model in eval mode and calls its own
``_forward_and_gradient`` helper, which differentiates the loss with respect
to the perturbation: the graph is wanted.
"""

import torch
import torch.nn.functional as F


class EdgeAttack:
    def __init__(self, model):
        self.model = model

    def _forward_and_gradient(self, x, labels, perturbation):
        perturbation.requires_grad_()
        loss = F.cross_entropy(self.model(x + perturbation), labels)
        return loss, torch.autograd.grad(loss, perturbation)[0]

    def attack(self, x, labels, steps):
        self.model.eval()
        perturbation = torch.zeros_like(x)
        for _ in range(steps):
            loss, gradient = self._forward_and_gradient(x, labels, perturbation)  # expect-not: GL101
            perturbation = (perturbation + 0.01 * gradient.sign()).clamp(-0.1, 0.1).detach()
        return perturbation
