"""Recall case (kept): an alias of a model's output edited in place.

The teacher's logits are detached and clamped in place to build a target;
the original logits, used in the loss afterwards, are clamped with them.
"""

import torch.nn.functional as F


def distill_loss(student, teacher, images, temperature=4.0):
    teacher_logits = teacher(images)
    target = teacher_logits.detach()
    target.clamp_(min=-10.0, max=10.0)  # expect-preview: GL201:5
    soft = F.softmax(target / temperature, dim=1)
    student_logp = F.log_softmax(student(images) / temperature, dim=1)
    return F.kl_div(student_logp, soft, reduction="batchmean") + 0.1 * teacher_logits.pow(2).mean()
