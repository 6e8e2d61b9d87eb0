"""Precision case: ``.data[0]`` of a batch-shaped value takes its first sample.

The critic returns one score per sample, so the difference of two critic
outputs is a batch: ``.data[0]`` is the first sample's gap, which raises
nothing, while ``.item()`` on the whole batch would raise. Nothing shows a
0-dim receiver.
"""


def log_critic_gap(netD, real, fake, writer, step):
    d_real = netD(real).view(-1)
    d_fake = netD(fake).view(-1)
    gap = d_real - d_fake
    writer.add_scalar("critic/gap_first_sample", gap.data[0], step)  # expect-not: GL003
    print("step %d first-sample gap %.4f" % (step, (d_real - d_fake).data[0]))  # expect-not: GL003
    return gap.mean().item()
