"""Shape of the recall cause `optimization-iterate-carried-with-graph` (benchmarks/recall/first-sight-23.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import torch


def gradient_step(model, img, target_feats, lr):
    img = img.detach()  # a fresh leaf for this step; the caller's tensor keeps its graph
    img.requires_grad_()
    loss = torch.norm(model(img) - target_feats)
    grad = torch.autograd.grad(loss, [img])[0]
    return img - lr * grad  # carries a graph back to the leaf


def proximal_step(img, base_img, lr, beta):
    return torch.clamp((img + lr * beta * base_img) / (1 + beta * lr), 0, 1)


def craft_poison(model, base_image, target_feats, iters, lr, beta):
    # forward-backward splitting: the proximal step mixes in the previous iterate, which is
    # passed with its graph, so every iterate's graph hangs off the next one and the chain
    # (a leaf and the clamp's saved input per step) grows with the iterations
    old_image = base_image
    for _ in range(iters):
        new_image = gradient_step(model, old_image, target_feats, lr)
        new_image = proximal_step(new_image, old_image, lr, beta)  # expect: GL301
        old_image = new_image
    return old_image
