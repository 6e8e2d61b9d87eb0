class BaseInterpreter:
    def __init__(self, model):
        self.model = model
        if hasattr(model, "eval"):
            self.model.eval()


class BaseTrainer:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer

    def forward_validation_data(self, loader):
        self.model.eval()

    def fit(self, loader):
        self.model.train()
        for x, y in loader:
            self.optimizer.zero_grad()
            self.model(x).sub(y).pow(2).mean().backward()
            self.optimizer.step()


class TunedInterpreter:
    def __init__(self, model):
        self.model = model
        self.model.eval()

    def tune(self, loader, optimizer):
        self.model.train()
        for x, y in loader:
            self.model(x).sub(y).pow(2).mean().backward()
            optimizer.step()
