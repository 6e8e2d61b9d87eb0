"""Shape of the recall cause `output-cached-via-new-tensor-detached` (benchmarks/recall/first-sight-23.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A wrapper caches the student's output for a loss computed later, but copies it
with `tensor.new_tensor(tensor, requires_grad=True)`: `new_tensor` always copies
the data into a new leaf, so the later loss sends no gradient into the model
(the same silent detachment as wrapping the output in `Variable`).
"""
import torch
import torch.nn.functional as F


class Distiller:
    def __init__(self, student, teacher):
        self.student = student
        self.teacher = teacher
        self.cached_student = None
        self.cached_teacher = None

    def forward(self, x):
        with torch.no_grad():
            self.cached_teacher = self.teacher(x)
        out = self.student(x)
        self.cached_student = out.new_tensor(out, requires_grad=True)  # expect: GL0xx
        return out

    def extra_loss(self, loss):
        soft = F.log_softmax(self.cached_student, dim=1)
        target = F.softmax(self.cached_teacher, dim=1)
        return loss + F.kl_div(soft, target, reduction="batchmean")
