"""Shape of the recall cause `hparams-searcher-decoding` (benchmarks/recall/first-sight-5.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

The searchers are modules built from a YAML file; the framework puts them in
eval mode before the test stage.
"""
class AsrBrain:
    def compute_forward(self, batch, stage):
        enc = self.modules.encoder(batch.sig)
        logits = self.modules.head(enc)
        hyps = None
        if stage == "test":
            hyps, _ = self.hparams.test_search(enc.detach(), batch.lens)  # expect: GL101
        return logits, hyps
