"""Shape of the recall cause `eval-attribute-in-grandcaller-method-chain` (benchmarks/recall/first-sight-22.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import numpy as np
import torch


class Forecaster:
    def _run(self, x):
        return self.net(x)

    def _forecast_chunk(self, chunk, steps):
        x = torch.from_numpy(chunk).float()
        for _ in range(steps):
            y = self._run(x)
            x = torch.cat((x, y[:, :, -1:]), dim=2)
        return x.detach().numpy()

    def forecast(self, data, steps, size=32):
        parts = []
        for start in range(0, len(data), size):
            parts.append(self._forecast_chunk(data[start:start + size], steps))  # expect: GL101
        return np.vstack(parts)

    def backtest(self, data, steps):
        self.net = self.net.eval()
        return self.forecast(data, steps)
