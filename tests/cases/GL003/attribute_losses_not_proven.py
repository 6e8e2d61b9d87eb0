"""Precision case: losses kept on attributes whose writes do not all prove a
0-dim tensor (twins of ``losses_kept_on_attributes``), read where no numeric
use says so.

``self.cri_sep`` is an ``nn.L1Loss()`` in one branch and one that does not
reduce in the other; ``self.cri_each`` never reduces (one value per pixel:
``data[0]`` reads the first row); ``GANLoss`` is a class of another module,
whose forward is not read here; ``self.l_layers`` is also assigned a stack of
per-layer losses (1-dim); ``self.l_seen`` is also reshaped in place.
"""

from collections import OrderedDict

import torch
import torch.nn as nn

from models.losses import GANLoss


class SRGANModel:
    def __init__(self, train_opt, net):
        self.netG = net
        if train_opt["sep_weight"] > 0:
            self.cri_sep = nn.L1Loss()
        else:
            self.cri_sep = nn.L1Loss(reduction="none")
        self.cri_each = nn.MSELoss(reduction="none")
        self.cri_fea = nn.MSELoss()
        self.cri_gan = GANLoss(train_opt["gan_type"])

    def optimize_parameters(self, var_L, real_H, layers):
        fake_H = self.netG(var_L)
        self.l_sep = self.cri_sep(fake_H, real_H)
        self.l_each = self.cri_each(fake_H, real_H)
        self.l_gan = self.cri_gan(fake_H, True)
        self.l_layers = self.cri_fea(fake_H, real_H)
        if layers:
            self.l_layers = torch.stack([self.cri_fea(layer(fake_H), layer(real_H)) for layer in layers])
        self.l_seen = self.cri_fea(fake_H, real_H)
        self.l_seen.unsqueeze_(0)
        (self.l_sep.mean() + self.l_gan).backward()

    def get_current_log(self):
        log_dict = OrderedDict()
        log_dict["l_sep"] = self.l_sep.data[0]  # expect-not: GL003
        log_dict["l_each"] = self.l_each.data[0]  # expect-not: GL003
        log_dict["l_gan"] = self.l_gan.data[0]  # expect-not: GL003
        log_dict["l_layers"] = self.l_layers.data[0]  # expect-not: GL003
        log_dict["l_seen"] = self.l_seen.data[0]  # expect-not: GL003
        return log_dict
