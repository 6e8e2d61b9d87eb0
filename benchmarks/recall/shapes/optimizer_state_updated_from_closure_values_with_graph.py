"""Shape of the recall cause `optimizer-state-updated-from-closure-values-with-graph` (benchmarks/recall/first-sight-23.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
from torch.nn.utils import parameters_to_vector
from torch.optim import Optimizer


class NaturalGradient(Optimizer):
    def __init__(self, params, lr=1e-3, beta=0.999):
        super().__init__(params, dict(lr=lr, beta=beta))

    def step(self, closure):
        params = self.param_groups[0]['params']
        if not torch.is_tensor(self.state['prec']):
            self.state['mu'] = parameters_to_vector(params).detach().clone()
            self.state['prec'] = torch.ones_like(self.state['mu'])
        # the closure builds its gradient and curvature from the forward's activations
        # (grad_i = g_i^T @ h_i), so they carry the forward's graph
        loss, grads, curv = closure()
        grad_vec = parameters_to_vector(grads)  # expect: GL301
        curv_vec = parameters_to_vector(curv)  # expect: GL301
        # the state is rebuilt from them each step and kept: every step's graph stays chained
        self.state['prec'] = self.state['prec'] * self.defaults['beta'] + curv_vec
        self.state['mu'].addcdiv_(grad_vec, self.state['prec'], value=-self.defaults['lr'])
        return loss
