"""Shape of the recall cause `pipeline-sampling-loop-registered-module` (benchmarks/recall/first-sight-17.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch


class Pipeline:
    """A pipeline whose modules are registered by a base class; its loader puts them in eval mode."""

    def register(self, **modules):
        for name, module in modules.items():
            setattr(self, name, module)


class NoisePipeline(Pipeline):
    def __init__(self, denoiser, stepper):
        self.register(denoiser=denoiser, stepper=stepper)

    def __call__(self, shape, steps=50):
        sample = torch.randn(shape)
        for t in reversed(range(steps)):
            noise = self.denoiser(sample, t)  # expect: GL101
            sample = self.stepper.step(noise, t, sample)
        return sample
