"""Recall case: a Lightning module's ``test_step`` called outside the trainer.

The trainer would disable gradients around ``test_step``; this hand-written
loop does not, and ``module.test_step(...)`` runs the forward.
"""


def test_without_trainer(module, loader):
    module.eval()
    outputs = []
    for batch_idx, batch in enumerate(loader):
        outputs.append(module.test_step(batch, batch_idx))  # expect: GL101:24
    return outputs
