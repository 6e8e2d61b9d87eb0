"""Precision case: a masked-word demo script loads a transformers model (in
eval mode) and runs it once, at module level, on one sentence the script
writes itself, tokenized by a transformers tokenizer, to print the predicted
word. The input is made up like ``torch.randn``: a reference run whose small
graph goes when the script ends.
"""

import torch
from transformers import AutoTokenizer, BertForMaskedLM

root = "bert-base-chinese"
input_text = "今天[MASK]情很好"

tokenizer = AutoTokenizer.from_pretrained(root)
model = BertForMaskedLM.from_pretrained(root)

encoded = tokenizer(input_text, return_tensors="pt")
maskpos = encoded["input_ids"][0].tolist().index(103)
outputs = model(**encoded)  # expect-not: GL101
predicted = torch.argmax(outputs["logits"][0, maskpos]).item()
print(tokenizer.convert_ids_to_tokens([predicted])[0])

input_ids = torch.tensor(tokenizer.encode(input_text, add_special_tokens=True)).unsqueeze(0)
scores = model(input_ids, labels=input_ids)  # expect-not: GL101
print(scores.logits.argmax(-1).tolist())
