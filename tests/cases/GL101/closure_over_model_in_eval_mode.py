"""Recall case: a closure defined after its enclosing function bound a model and
left it in eval mode, run with gradients on whenever it is called: a text
classifier's `classify` handed to a web demo, and a scorer returned by a
factory that loaded a network and switched it with `eval()`, and a reranker's
closure over a model also kept as an attribute that nothing trains. The
enclosing functions bind each model once, to what a loader returns, and never
train it.
"""

import gradio as gr
import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer


def build_demo(name):
    tokenizer = AutoTokenizer.from_pretrained(name)
    model = AutoModelForSequenceClassification.from_pretrained(name)

    def classify(text):
        batch = tokenizer(text, return_tensors="pt")
        probs = model(**batch).logits.softmax(-1)  # expect: GL101:17
        return probs[0].tolist()

    return gr.Interface(fn=classify, inputs="text", outputs="label")


def make_scorer(path):
    net = torch.load(path)
    net.eval()

    def score(batches):
        return [net(x).sigmoid().item() for x in batches]  # expect: GL101:17

    return score


class Reranker:
    def load(self, path):
        if path.endswith(".pt"):
            model = self._model = torch.load(path).eval()

            def compute(inputs):
                return model(**inputs).logits[:, -1].exp().tolist()  # expect: GL101:24

            self.compute = compute
