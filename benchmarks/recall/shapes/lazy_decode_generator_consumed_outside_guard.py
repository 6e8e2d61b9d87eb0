"""Shape of the recall cause `lazy-decode-generator-consumed-outside-guard` (benchmarks/recall/first-sight-21.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

The pipeline runs under an inference guard, but its decoder step is a
generator: the decoder forward only runs when the writer pulls the chunks,
after the guard has been left, so it runs with autograd on (and, with
inference_mode, inference tensors reach a recorded op and it raises).
"""
import torch


def decode_chunks(latent, decoder):
    for part in latent.split(8, dim=1):
        yield (decoder(part).clamp(0, 1) * 255).to(torch.uint8)


@torch.inference_mode()
def generate(denoiser, decoder, shape):
    latent = denoiser(torch.randn(shape))
    return decode_chunks(latent, decoder)


def write_video(chunks, sink):
    first = next(chunks)  # expect: GL101
    sink.append(first.cpu().numpy())
    for chunk in chunks:  # expect: GL101
        sink.append(chunk.cpu().numpy())
