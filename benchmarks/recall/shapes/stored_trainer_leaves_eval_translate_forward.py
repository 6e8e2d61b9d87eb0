"""Shape of the recall cause `stored-trainer-leaves-eval-translate-forward` (benchmarks/recall/first-sight-24.toml).

A translator object keeps a training function as an attribute, chosen at
run time; the chosen function ends with the model in eval mode (its last
validation pass), and the translator's inference method then runs the
stored model on a whole image with gradients enabled, detaching only the
result for numpy.

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch
import torch.nn as nn


def fit_with_validation(model, noisy, clean):
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(3):
        model.train()
        loss = (model(noisy) - clean).abs().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        with torch.no_grad():
            model.eval()
            print((model(noisy) - clean).abs().mean().item())


class Denoiser:
    def __init__(self):
        self.model = None
        self.fit_fn = None

    def train(self, noisy, clean):
        self.fit_fn = self.fit_fn or fit_with_validation
        if self.model is None:
            self.model = nn.Conv2d(1, 1, 3, padding=1)
        self.fit_fn(model=self.model, noisy=noisy, clean=clean)

    def translate(self, image):
        device = next(self.model.parameters()).device
        return self.model(torch.Tensor(image).to(device)).cpu().detach().numpy()  # expect: GL101


d = Denoiser()
x = torch.randn(1, 1, 8, 8)
d.train(x, x)
print(d.translate(x.numpy()).shape)
