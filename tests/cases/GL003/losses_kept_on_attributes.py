"""Recall case: losses a model class keeps on attributes and reads for its log.

The layout of 0.3-era super-resolution trainers: ``__init__`` builds the pixel
criterion as ``nn.L1Loss()`` or ``nn.MSELoss()`` in an if/elif whose else
raises, ``optimize_parameters`` keeps the step's losses on ``self`` and
``get_current_log`` reads them as ``self.l_pix.data[0]``. Every write of
``self.l_pix`` calls a loss module every write of whose attribute builds one
with the default reduction: a 0-dim tensor, and the read raises IndexError
today. So do ``self.l_fea`` (such a loss times a number), ``self.l_tv`` (a sum
of reductions without a dimension) and ``self.l_weighted``, set to ``0.0``
where its weight is zero (``.data`` of a float raises too: wherever the read
ever worked, it read the 0-dim loss).
"""

from collections import OrderedDict

import torch
import torch.nn as nn


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
        self.l_tv_w = train_opt["tv_weight"]
        self.optimizer_G = torch.optim.Adam(self.netG.parameters(), lr=train_opt["lr_G"])

    def optimize_parameters(self, var_L, real_H):
        self.optimizer_G.zero_grad()
        fake_H = self.netG(var_L)
        self.l_pix = self.cri_pix(fake_H, real_H)
        self.l_fea = self.cri_fea(fake_H, real_H) * 0.1
        dx = fake_H[:, :, 1:, :] - fake_H[:, :, :-1, :]
        dy = fake_H[:, :, :, 1:] - fake_H[:, :, :, :-1]
        self.l_tv = torch.mean(torch.abs(dx)) + torch.mean(torch.abs(dy))
        if self.l_tv_w > 0:
            self.l_weighted = self.cri_pix(fake_H, real_H) * 0.5
        else:
            self.l_weighted = 0.0
        (self.l_pix + self.l_fea + self.l_tv).backward()
        self.optimizer_G.step()

    def get_current_log(self):
        log_dict = OrderedDict()
        log_dict["l_pix"] = self.l_pix.data[0]  # expect: GL003:29
        log_dict["l_fea"] = self.l_fea.data[0]  # expect: GL003:29
        log_dict["l_tv"] = self.l_tv.data[0]  # expect: GL003:28
        log_dict["l_weighted"] = self.l_weighted.data[0]  # expect: GL003:34
        return log_dict
