"""Precision case: a configuration object of the project keeps a flag it names
`requires_grad_` and reads it back by that name: its own attribute, not a typo.
"""


class FreezeOptions:
    def __init__(self, trainable):
        self.requires_grad_ = trainable  # expect-not: GL303

    def describe(self):
        return "trainable" if self.requires_grad_ else "frozen"
