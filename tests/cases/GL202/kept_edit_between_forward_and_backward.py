"""Recall case (kept): a ``.data`` edit between a forward and its backward.

The critic's weights are clipped after its forward and before ``backward()``:
the linear layers saved those weights to compute the input gradients, which
now come out computed with the clipped values.
"""


def critic_step(netD, netG, real, noise, optimizerD, clip=0.01):
    optimizerD.zero_grad()
    errD = netD(netG(noise).detach()).mean() - netD(real).mean()
    for p in netD.parameters():
        p.data.clamp_(-clip, clip)  # expect-preview: GL202:9
    errD.backward()
    optimizerD.step()
    return errD.item()
