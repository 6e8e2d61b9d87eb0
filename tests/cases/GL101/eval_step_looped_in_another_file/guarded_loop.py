import torch


def evaluate(trainer, loader):
    with torch.no_grad():
        for batch in loader:
            value = trainer.eval_guarded(batch)
            print(value.item())
