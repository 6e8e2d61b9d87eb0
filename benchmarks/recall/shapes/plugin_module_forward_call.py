"""Shape of the recall cause `plugin-module-forward-call` (benchmarks/recall/sites.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import importlib

import torch


class Embedder:
    def __init__(self, plugin_name):
        self.plugin = importlib.import_module(plugin_name)
        self.model = self.plugin.load_model()  # the plugin decides eval mode

    def embed(self, audio: torch.Tensor):
        # the plugin function runs the model; nothing here disables autograd
        out = self.plugin.get_embeddings(audio, self.model)  # expect: GL101
        return out.detach().cpu().numpy()
