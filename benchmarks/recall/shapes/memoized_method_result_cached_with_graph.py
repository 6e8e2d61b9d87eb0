"""Shape of the recall cause `memoized-method-result-cached-with-graph` (benchmarks/recall/first-sight-22.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

A physical-property object memoizes a computed value in a dict keyed by its
input. When the property depends on a tensor being optimized, the value that
goes into the dict carries that step's graph: the graph is never freed, and a
later step that reads the cached value backpropagates into a graph whose
buffers were already released (and uses a stale value).
"""
import torch


class Glass:
    def __init__(self, base_index):
        self.base_index = base_index
        self._index_cache = {}

    def _compute_index(self, wavelength):
        return self.base_index + 0.004 / wavelength ** 2

    def index(self, wavelength):
        key = float(wavelength)
        if key in self._index_cache:
            return self._index_cache[key]
        value = self._compute_index(wavelength)
        self._index_cache[key] = value  # expect: GL301
        return value


def optimise(steps=5):
    base = torch.tensor(1.5, requires_grad=True)
    glass = Glass(base)
    opt = torch.optim.SGD([base], lr=0.1)
    for _ in range(steps):
        merit = (glass.index(0.55) - 1.6) ** 2
        opt.zero_grad()
        merit.backward()
        opt.step()
    return base.detach()
