"""Shape of the recall cause `request-handler-called-outside-run-guard` (benchmarks/recall/first-sight-22.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.

The handler is guarded only on the server's own `run()` path; a second front end
(here `HttpFrontEnd`, in the project another module named as a context file)
puts the model in eval mode and calls the handler directly.
"""
import json

import torch


def decode(model, batch):
    return model.generate(batch)


class Server:
    def __init__(self, model):
        self.model = model

    def handle(self, line):
        batch = torch.tensor(json.loads(line)["ids"])
        out = decode(self.model, batch)  # expect: GL101
        return json.dumps(out.tolist())

    def run(self, lines):
        self.model.eval()
        with torch.no_grad():
            return [self.handle(line) for line in lines]


class HttpFrontEnd:
    def __init__(self, model):
        self.server = Server(model)

    def load(self):
        self.server.model.eval()

    def predict(self, request):
        return self.server.handle(request)
