"""Shape of the recall cause `eval-no-own-eval-call` (benchmarks/recall/sites.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import math


def test(model, loader, criterion):
    psnr = 0.0
    for x, y in loader:
        out = model(x)  # expect: GL101
        psnr += 10 * math.log10(1 / criterion(out, y).item())
    return psnr / len(loader)
