"""Shape of the recall cause `library-loaded-model-method-forward` (benchmarks/recall/first-sight-5.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

The loader (a library) returns the model already in eval mode.
"""
import clip_like


class Search:
    def __init__(self, device):
        self.model = clip_like.load("small", device=device)

    def embed(self, tokens):
        feats = self.model.encode_text(tokens)  # expect: GL101
        return (feats / feats.norm(dim=-1, keepdim=True)).cpu().detach().numpy()
