"""Recall case: a total of losses returned from a loop over heads that runs
backward each time through Lightning's ``self.manual_backward(loss)``.

As with ``loss.backward()`` in that loop, the total is not for a caller's
backward (each loss had its own already): it is kept for logging, with every
head's graph.
"""

import lightning as L


class Model(L.LightningModule):
    def heads_step(self, x):
        total = 0
        for head in self.heads:
            loss = head(x).sum()
            self.manual_backward(loss)
            total += loss  # expect-preview: GL301
        return total

    def heads_step_plain(self, x):
        total = 0
        for head in self.heads:
            loss = head(x).sum()
            loss.backward()
            total += loss  # expect-preview: GL301
        return total
