"""Recall case: eval mode from a method of the class, forwards in a helper whose
backward a constant argument turns off.

``validate`` switches with ``self.eval_mode()``, a method whose body calls
``self.model.eval()``, and runs ``self.apply_model_and_loss(..., backward=False)``:
the ``if backward: loss.backward()`` of the helper never runs for that call, so
the forward records a graph for nothing. ``finetune`` leaves the flag at its
default (``True``) in eval mode (frozen batch-norm statistics): not reported. ``rebinding`` calls a helper that
rebinds its flag, so the constant proves nothing there.
"""


class Trainer:
    def eval_mode(self):
        self.model.eval()
        return self

    def apply_model_and_loss(self, inputs, target, backward=True):
        prediction = self.model(inputs)
        loss = self.criterion(prediction, target)
        if backward:
            loss.backward()
        return prediction, loss

    def apply_rebinding(self, inputs, target, backward=True):
        backward = backward or self.always_backward
        prediction = self.model(inputs)
        loss = self.criterion(prediction, target)
        if backward:
            loss.backward()
        return prediction, loss

    def validate(self, loader):
        self.eval_mode()
        total = 0.0
        for inputs, target in loader:
            _, loss = self.apply_model_and_loss(inputs, target, backward=False)  # expect: GL101:23
            total += loss.item()
        return total / len(loader)

    def rebinding(self, loader):
        self.eval_mode()
        total = 0.0
        for inputs, target in loader:
            _, loss = self.apply_rebinding(inputs, target, backward=False)  # expect-not: GL101
            total += loss.item()
        return total / len(loader)

    def finetune(self, loader):
        self.eval_mode()
        for inputs, target in loader:
            self.apply_model_and_loss(inputs, target)  # expect-not: GL101
