"""Recall case: losses a model class keeps on attributes and reads for its log.

The layout of 0.3-era super-resolution and GAN trainers: ``__init__`` builds
the pixel criterion as ``nn.L1Loss()`` or ``nn.MSELoss()`` in an if/elif whose
else raises, ``optimize_parameters`` keeps each step's losses on ``self`` and
``get_current_log`` reads them as ``self.l_pix.data[0]``. Every write of
``self.l_pix`` calls a loss module held by an attribute every write of which
builds one with the default reduction, so it holds a 0-dim tensor and the read
raises IndexError today; so do ``self.l_fea`` (such a loss times a number),
``self.l_tv`` (a sum of reductions without a dimension) and ``self.l_weighted``
(set to ``0.0`` where its weight is zero: ``.data`` of a float raises too, so
wherever the read ever worked it read the 0-dim loss). Twins that stay silent:
an attribute one branch binds to a criterion that does not reduce, a loss of a
class imported from elsewhere, a per-sample loss, an attribute also assigned a
stack of losses.
"""

from collections import OrderedDict

import torch
import torch.nn as nn
from torch.autograd import Variable

from models.losses import GANLoss


class SRModel:
    def __init__(self, opt, net):
        train_opt = opt["train"]
        self.netG = net
        loss_type = train_opt["pixel_criterion"]
        if loss_type == "l1":
            self.cri_pix = nn.L1Loss()
        elif loss_type == "l2":
            self.cri_pix = nn.MSELoss()
        else:
            raise NotImplementedError("Loss type [%s] is not recognized." % loss_type)
        self.cri_fea = nn.MSELoss().cuda()
        if train_opt["sep_weight"] > 0:
            self.cri_sep = nn.L1Loss()
        else:
            self.cri_sep = nn.L1Loss(reduction="none")
        self.cri_each = nn.MSELoss(reduction="none")
        self.cri_gan = GANLoss(train_opt["gan_type"])
        self.l_tv_w = train_opt["tv_weight"]
        self.optimizer_G = torch.optim.Adam(self.netG.parameters(), lr=train_opt["lr_G"])

    def feed_data(self, data):
        self.var_L = Variable(data["LR"].cuda())
        self.real_H = Variable(data["HR"].cuda())

    def optimize_parameters(self, layers):
        self.optimizer_G.zero_grad()
        self.fake_H = self.netG(self.var_L)
        self.l_pix = self.cri_pix(self.fake_H, self.real_H)
        self.l_fea = self.cri_fea(self.fake_H, self.real_H) * 0.1
        dx = self.fake_H[:, :, 1:, :] - self.fake_H[:, :, :-1, :]
        dy = self.fake_H[:, :, :, 1:] - self.fake_H[:, :, :, :-1]
        self.l_tv = torch.mean(torch.abs(dx)) + torch.mean(torch.abs(dy))
        self.l_sep = self.cri_sep(self.fake_H, self.real_H)
        self.l_each = self.cri_each(self.fake_H, self.real_H)
        self.l_gan = self.cri_gan(self.fake_H, True)
        self.l_layers = self.cri_fea(self.fake_H, self.real_H)
        if layers:
            self.l_layers = torch.stack([self.cri_fea(layer(self.fake_H), layer(self.real_H)) for layer in layers])
        if self.l_tv_w > 0:
            self.l_weighted = self.cri_pix(self.fake_H, self.real_H) * 0.5
        else:
            self.l_weighted = 0.0
        (self.l_pix + self.l_fea + self.l_tv).backward()
        self.optimizer_G.step()

    def get_current_log(self):
        log_dict = OrderedDict()
        log_dict["l_pix"] = self.l_pix.data[0]  # expect: GL003:29
        log_dict["l_fea"] = self.l_fea.data[0]  # expect: GL003:29
        log_dict["l_tv"] = self.l_tv.data[0]  # expect: GL003:28
        log_dict["l_sep"] = self.l_sep.data[0]  # expect-not: GL003
        log_dict["l_each"] = self.l_each.data[0]  # expect-not: GL003
        log_dict["l_gan"] = self.l_gan.data[0]  # expect-not: GL003
        log_dict["l_layers"] = self.l_layers.data[0]  # expect-not: GL003
        log_dict["l_weighted"] = self.l_weighted.data[0]  # expect: GL003:34
        return log_dict
