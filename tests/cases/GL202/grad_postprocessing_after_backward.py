"""Precision case: gradient post-processing after ``backward()``.

The DQN update clamps each gradient, and the data-parallel step averages the
gradients, through ``.grad.data``, after ``backward()`` has run: no pending
backward can see these edits.
"""

import torch.distributed as dist
import torch.nn.functional as F


def optimize_model(policy_net, target_net, optimizer, batch, gamma=0.99):
    q = policy_net(batch.state).gather(1, batch.action)
    target = batch.reward + gamma * target_net(batch.next_state).max(1)[0].detach()
    loss = F.smooth_l1_loss(q, target.unsqueeze(1))
    optimizer.zero_grad()
    loss.backward()
    for param in policy_net.parameters():
        param.grad.data.clamp_(-1, 1)  # expect-not: GL202
    optimizer.step()


def allreduce_step(model, loss, optimizer, world_size):
    loss.backward()
    for p in model.parameters():
        if p.grad is not None:
            dist.all_reduce(p.grad.data)
            p.grad.data.div_(world_size)  # expect-not: GL202
    optimizer.step()
