"""Recall case: losses returned as a tuple by a trainer's step method.

The epoch loop hands each batch to ``trainer.train_step`` (a trainer object of
another module: the step method's contract is to return the step's losses with
their graph), unpacks the tuple of losses it returns and adds every part into a
running total that is printed with ``.item()`` at each step.
"""

import torch
from tqdm import tqdm

from trainer import DetectorTrainer

trainer = DetectorTrainer()


def fit_one_epoch(gen, epoch_size):
    total_loss = 0
    box_loss = 0
    cls_loss = 0
    with tqdm(total=epoch_size) as pbar:
        for iteration, batch in enumerate(gen):
            images, targets = batch[0], batch[1]
            with torch.no_grad():
                images = torch.from_numpy(images).float()
            losses = trainer.train_step(images, targets)
            box, cls, total = losses
            total_loss += total  # expect-preview: GL301:13
            box_loss += box  # expect-preview: GL301:13
            cls_loss += cls  # expect-preview: GL301:13
            pbar.set_postfix(total=total_loss.item() / (iteration + 1))
            pbar.update(1)
