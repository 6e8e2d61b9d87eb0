"""Shape of the recall cause `auxiliary-output-with-graph-stored-in-sampler-state` (benchmarks/recall/first-sight-22.toml).

A model returns a pair (main value, auxiliary value) from a custom autograd
function; the helper that differentiates it detaches only the main value, and a
sampler stores both in its persistent state at every step: the auxiliary value
keeps the whole forward graph of every step alive.

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch


class LogAbs(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.sign(), x.abs().log()

    @staticmethod
    def backward(ctx, g_sign, g_log):
        (x,) = ctx.saved_tensors
        return g_log / x


class Wave(torch.nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.lin = torch.nn.Linear(dim, 1)

    def forward(self, rs):
        sign, log_psi = LogAbs.apply(self.lin(rs).squeeze(-1))  # expect: GL301
        return log_psi, sign


def value_and_force(rs, wf):
    rs = rs.detach().requires_grad_()
    log_psi, sign = wf(rs)
    (force,) = torch.autograd.grad(log_psi.sum(), rs)
    return force, (log_psi.detach(), sign)


class Sampler:
    def __init__(self, wf, rs):
        self.wf = wf
        self.state = {"rs": rs}

    def step(self):
        rs = self.state["rs"] + 0.1 * torch.randn_like(self.state["rs"])
        force, (log_psi, sign) = value_and_force(rs, self.wf)
        self.state.update(rs=rs, force=force, log_psi=log_psi, sign=sign)
