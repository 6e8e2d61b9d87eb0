"""Precision case: ``model.chat(...)`` of a transformers model loaded with ``trust_remote_code=True``.

The checkpoint ships its own model class, whose ``chat`` builds the prompt and
calls ``generate`` (which transformers runs under ``torch.no_grad()``): a
method of the remote class, not a submodule's forward, so nothing proves a
graph is recorded. A submodule reached through another attribute
(``self.model.transformer.wte``) is the model's own and stays a forward. The
preview tier keeps the guess that `chat` runs one.
"""

from transformers import AutoModelForCausalLM, AutoTokenizer


class ChatJudge:
    def __init__(self, name):
        self.tokenizer = AutoTokenizer.from_pretrained(name, trust_remote_code=True)
        self.model = AutoModelForCausalLM.from_pretrained(name, device_map="auto", trust_remote_code=True).eval()

    def __call__(self, prompt, history=None):
        response, _ = self.model.chat(self.tokenizer, prompt, history=history or [])  # expect-preview: GL101:23
        return response

    def embed_all(self, batches):
        out = []
        for ids in batches:
            out.append(self.model.transformer.wte(ids).mean(1).tolist())  # expect: GL101:24
        return out
