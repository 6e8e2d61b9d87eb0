"""Recall case: a scoring script loads a transformers model (in eval mode),
reads a whole document from the file named on the command line, tokenizes
it and runs one forward on it with gradients on, keeping the logits it saves:
the input is data, not a sentence the script made up, so the forward keeps
every activation of the long document until the logits go.
"""

import sys

import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("roberta-large")
model = AutoModelForSequenceClassification.from_pretrained("roberta-large")

with open(sys.argv[1]) as f:
    document = f.read()
encoded = tokenizer(document, return_tensors="pt", truncation=True)
logits = model(**encoded).logits  # expect: GL101:10
torch.save(logits, sys.argv[2])
