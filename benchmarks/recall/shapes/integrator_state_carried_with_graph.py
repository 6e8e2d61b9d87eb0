"""Shape of the recall cause `integrator-state-carried-with-graph` (benchmarks/recall/first-sight-12.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import numpy as np
import torch


def simulate(model, x0, steps, dt):
    # the model returns forces as the gradient of its energy, so it needs grad on; the
    # positions built from those forces are carried to the next step with their graph
    traj = np.zeros((steps,) + tuple(x0.shape))
    x_old = x0
    for t in range(steps):
        energy, forces = model(x_old)
        x_new = x_old + forces * dt + torch.randn_like(x_old) * dt ** 0.5  # expect: GL301
        traj[t] = x_new.detach().numpy()
        x_old = x_new
    return traj
