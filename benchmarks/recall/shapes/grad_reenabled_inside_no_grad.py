"""Shape of the recall cause `grad-reenabled-inside-no-grad` (benchmarks/recall/first-sight-11c.toml).

A step shared by training and validation wraps one forward in
`torch.set_grad_enabled(flag)` where the flag does not depend on whether it
trains: called from a validation loop under `torch.no_grad()`, the switch turns
autograd back on and that forward builds a graph.

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch


def process_batch(batch, is_train, text_encoder, unet, train_text_encoder=True):
    with torch.no_grad():
        latents = batch["latents"]
    with torch.set_grad_enabled(train_text_encoder):
        cond = text_encoder(batch["input_ids"])  # expect: GL1xx
    with torch.set_grad_enabled(is_train):
        pred = unet(latents, cond)
    return torch.nn.functional.mse_loss(pred, batch["target"])


def validate(loader, text_encoder, unet):
    losses = []
    with torch.no_grad():
        for batch in loader:
            losses.append(process_batch(batch, False, text_encoder, unet).item())
    return sum(losses) / len(losses)
