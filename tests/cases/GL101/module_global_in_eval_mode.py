"""Recall case: a global model that the module's body leaves in eval mode, run by
a function or a method of the module with gradients on. A transformers
encoder loaded with `from_pretrained` (returned in eval mode) embeds texts
whose mean is detached to NumPy; a network loaded and switched with `eval()`
at the top level classifies inputs whose labels leave as a list. Nothing in
the file trains either, rebinds it, or calls the functions before the switch.
"""

import torch
from transformers import AutoModel, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("bert-base-uncased")
encoder = AutoModel.from_pretrained("bert-base-uncased").to("cpu")

net = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
net.load_state_dict(torch.load("net.pt"))
net.eval()


def embed(texts):
    batch = tokenizer(texts, return_tensors="pt", padding=True)
    hidden = encoder(**batch).last_hidden_state  # expect: GL101:14
    return hidden.mean(1).detach().numpy()


class Classifier:
    def labels(self, batches):
        found = []
        for x in batches:
            found += net(x).argmax(1).tolist()  # expect: GL101:22
        return found
