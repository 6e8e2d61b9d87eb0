"""Precision case: a training step accumulates gradients over micro-batches and
adds their losses up.

The loop runs backward from each micro-batch's loss, but it is no training loop:
the optimizer steps after it, and the local total goes when the call returns,
so it holds ``accumulation_steps`` graphs at most. The per-step method that
keeps the same losses on ``self`` keeps every step's: reported.
"""


class LRFinder:
    def __init__(self, model, optimizer, criterion):
        self.model = model
        self.optimizer = optimizer
        self.criterion = criterion
        self.history = []

    def train_batch(self, train_iter, accumulation_steps):
        self.model.train()
        total_loss = None
        self.optimizer.zero_grad()
        for i in range(accumulation_steps):
            inputs, labels = next(train_iter)
            loss = self.criterion(self.model(inputs), labels)
            loss /= accumulation_steps
            loss.backward()
            if total_loss is None:
                total_loss = loss
            else:
                total_loss += loss  # expect-preview: GL301
        self.optimizer.step()
        return total_loss.item()

    def train_step(self, inputs, labels):
        self.optimizer.zero_grad()
        loss = self.criterion(self.model(inputs), labels)
        loss.backward()
        self.optimizer.step()
        self.history.append(loss)  # expect: GL301:9
