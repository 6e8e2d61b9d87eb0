"""Recall case: ``step["loss"].data[0]`` and ``c.exp().data[0]``.

The training step returns its loss in a dict, and the perplexity is the
exponential of the language-model loss ``c``: both 0-dim tensors. Only the
second is proven (``nn.CrossEntropyLoss``); the dict entry is 0-dim by its key's
name alone: preview.
"""

import torch.nn as nn


def run_epoch(model, trainer, loader, logger):
    criterion = nn.CrossEntropyLoss()
    for i, batch in enumerate(loader):
        step = trainer.train_step(batch)
        logger.log({"train": step["loss"].data[0]})  # expect-preview: GL003:30
        logits = model(batch["input_ids"])
        c = criterion(logits.flatten(0, 1), batch["labels"].flatten())
        logger.log({"perplexity": c.exp().data[0]})  # expect: GL003:35
