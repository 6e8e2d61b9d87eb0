"""Shape of the recall cause `global-pretrained-model-feature-method` (benchmarks/recall/first-sight-21.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

An indexing script loads a pretrained image-text model once, at module level,
with `from_pretrained` (which leaves it in eval mode), and a helper called for
every batch of files asks it for embeddings through one of its feature
methods rather than its forward, with gradients on; the result is detached
and turned into numpy only afterwards, so each batch records a graph that is
never used.
"""
import torch
from transformers import AutoModel, AutoProcessor

CHECKPOINT = "some/clip-like-checkpoint"

encoder = AutoModel.from_pretrained(CHECKPOINT).to("cuda")
preprocess = AutoProcessor.from_pretrained(CHECKPOINT)


def embed_pictures(pictures):
    pixels = preprocess(images=pictures, return_tensors="pt")["pixel_values"].to("cuda")
    vectors = encoder.get_image_features(pixels)  # expect: GL101
    vectors = vectors / torch.norm(vectors, dim=1, keepdim=True)
    return vectors.detach().cpu().numpy()


def index(batches):
    return [embed_pictures(batch) for batch in batches]
