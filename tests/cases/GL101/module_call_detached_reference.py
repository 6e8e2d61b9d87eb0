"""Recall case (first-sight recall batch 15): a reward module's ``__call__``
puts its reference language model in eval mode and runs it with grad on only
to read log-probabilities that it detaches.

A module's forward is left alone when the eval-mode forward's outputs reach
what it returns: they may compose into its caller's graph (a batch norm frozen
in a model that still trains). Here nothing of the reference forward is
returned: its log-probabilities leave the graph through ``.detach()`` before
the reward is computed. Precision: a forward that returns the eval-mode
layer's output, a loss made from it, or one it keeps on ``self`` (an auxiliary
loss the training loop adds), stays silent.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F
from transformers import AutoModelForCausalLM


class KLPenalty(nn.Module):
    def __init__(self, ref_model, alpha=0.2):
        super().__init__()
        self.ref_net = AutoModelForCausalLM.from_pretrained(ref_model)
        self.alpha = alpha

    def __call__(self, input_ids, actions, action_log_probs):
        self.ref_net = self.ref_net.eval()
        output = self.ref_net(input_ids=input_ids)  # expect: GL101:18
        logits = output.logits[:, -1, :]
        ref_log_prob = torch.log_softmax(logits, -1).gather(1, actions[:, None])[:, 0]
        kl_div = action_log_probs - ref_log_prob.detach().cpu().numpy()
        return -self.alpha * kl_div


class FrozenNormClassifier(nn.Module):
    def __init__(self, d_in, n_classes):
        super().__init__()
        self.body = nn.Linear(d_in, d_in)
        self.norm = nn.BatchNorm1d(d_in)
        self.head = nn.Linear(d_in, n_classes)

    def forward(self, x):
        self.norm.eval()
        h = self.norm(self.body(x))  # expect-not: GL101
        return self.head(h)


class DistilledNet(nn.Module):
    def __init__(self, d_in, n_classes):
        super().__init__()
        self.student = nn.Linear(d_in, n_classes)
        self.teacher = nn.Linear(d_in, n_classes)

    def forward(self, x):
        self.teacher.eval()
        target = self.teacher(x)  # expect-not: GL101
        logits = self.student(x)
        self.distill_loss = F.mse_loss(logits, target)
        return logits.argmax(-1)
