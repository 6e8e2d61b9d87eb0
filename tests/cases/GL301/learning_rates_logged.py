"""Precision case: learning rates recorded in a GAN training loop.

``get_last_lr()`` returns Python floats: keeping one per step for a plot keeps
no graph alive. The losses themselves are logged as numbers.
"""

import torch.nn.functional as F


class GANTrainer:
    def __init__(self, generator, discriminator, g_opt, d_opt, generator_scheduler):
        self.generator = generator
        self.discriminator = discriminator
        self.g_opt, self.d_opt = g_opt, d_opt
        self.generator_scheduler = generator_scheduler
        self.lr_history = []

    def fit(self, loader, z_dim=128):
        for real, _ in loader:
            fake = self.generator(real.new_empty(real.size(0), z_dim).normal_())
            g_loss = F.softplus(-self.discriminator(fake)).mean()
            self.g_opt.zero_grad()
            g_loss.backward()
            self.g_opt.step()
            self.generator_scheduler.step()
            self.lr_history.append(self.generator_scheduler.get_last_lr()[0])  # expect-not: GL301
        return self.lr_history
