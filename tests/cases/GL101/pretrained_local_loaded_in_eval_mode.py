"""Recall case (first-sight recall batch 11, elk's ``extract_hiddens``): a function
loads a model with transformers' ``from_pretrained``, which returns it in eval mode,
into a local name, and runs it on every prompt with gradients on only to copy its
hidden states out.

The proof holds only for code that surely does not fine-tune: nothing in the
function runs a backward, reads the model's parameters (an optimizer's), calls its
``train()`` or hands the model itself to other code (a trainer may train it).

Silent twins: a fine-tuning loop, a model handed to a trainer, one put in train mode.
"""

from transformers import AutoModel, AutoTokenizer


def extract_hiddens(name, prompts, device):
    model = AutoModel.from_pretrained(name, torch_dtype="auto").to(device)
    tokenizer = AutoTokenizer.from_pretrained(name)
    if not hasattr(model, "config"):
        raise ValueError(name)
    hiddens = []
    for prompt in prompts:
        inputs = tokenizer(prompt, return_tensors="pt").to(device)
        outputs = model(**inputs, output_hidden_states=True)  # expect: GL101:19
        hiddens.append([h[..., -1, :].tolist() for h in outputs.hidden_states])
    return hiddens


def fine_tune(name, batches, optimizer_cls):
    model = AutoModel.from_pretrained(name)
    optimizer = optimizer_cls(model.parameters())
    for ids in batches:
        loss = model(input_ids=ids).last_hidden_state.pow(2).mean()  # expect-not: GL101
        loss.backward()
        optimizer.step()


def handed_to_trainer(name, batches, trainer_cls):
    model = AutoModel.from_pretrained(name)
    trainer_cls(model=model).train()
    return [model(input_ids=ids).last_hidden_state.mean().item() for ids in batches]  # expect-not: GL101


def trained_mode(name, batches):
    model = AutoModel.from_pretrained(name)
    model.train()
    return [model(input_ids=ids).last_hidden_state.mean().item() for ids in batches]  # expect-not: GL101
