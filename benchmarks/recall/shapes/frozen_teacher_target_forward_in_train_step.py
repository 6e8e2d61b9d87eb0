"""Shape of the recall cause `frozen-teacher-target-forward-in-train-step` (benchmarks/recall/first-sight-23.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A pretrained teacher loaded from a library (which hands it back already in
eval mode) produces the distillation target inside the student's training
step with gradients on.  The teacher is in no optimizer, so the backward of
the student loss runs through the whole teacher for nothing and its unused
gradients pile up step after step.
"""
import torch
import torch.nn.functional as F

import teacher_zoo  # a library: load() returns the model in eval mode


def train_epoch(student, loader, optimizer, device):
    teacher = teacher_zoo.load("base", device=device)
    student.train()
    for images in loader:
        images = images.to(device)
        optimizer.zero_grad()
        target = teacher.embed_images(images)  # expect: GL1xx
        loss = F.l1_loss(student(images), target)
        loss.backward()
        optimizer.step()
