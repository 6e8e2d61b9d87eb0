"""Shape of the recall cause `main-block-checkpoint-submodule-method-forward` (benchmarks/recall/first-sight-23.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

An inference script's main block restores a training wrapper from a
checkpoint (no eval call) and calls a method of a submodule of it directly
to compute conditioning features, with gradients on; the features are then
handed to a sampler whose step functions are decorated with no_grad, so the
graph of the feature network is kept alive through the whole sampling loop
for nothing.
"""
import torch

from trainer import Wrapper

if __name__ == "__main__":
    wrapper = Wrapper.load_from_checkpoint("last.ckpt")
    tokens = torch.randint(0, 100, (1, 50))
    feats = wrapper.net.encode_features(tokens)  # expect: GL101
    mel = wrapper.net.sampler.run(feats)
    torch.save(mel, "out.pt")
