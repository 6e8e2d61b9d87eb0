"""Recall case: elements of the rows of ``x.t()``, read with ``.data[0]``.

A test helper compares a numericalized batch with its source tokens, one
token id at a time. ``x.t()`` has at most two dimensions, a row of it at most
one, an element of a row none: ``.data[0]`` of that 0-dim tensor raises
IndexError today, whatever the names say. Indexing a row by position is the
same shape, and so is ``view(-1)[i]``. A row itself (at most one dimension,
maybe one element long) read outside a numeric context stays unreported.
"""


def verify_numericalized(vocab, examples, numericalized):
    for example_idx, example in enumerate(numericalized.t()):
        assert len(examples[example_idx]) == len(example)
        for token_idx, token in enumerate(example):
            token = token.data[0]  # expect: GL003:21
            assert vocab.itos[token] == examples[example_idx][token_idx]
        first = example[0].data[0]  # expect: GL003:17
        assert vocab.itos[first] == examples[example_idx][0]


def first_ids(numericalized):
    for row in numericalized.t():
        head = row.data[0]  # expect-not: GL003
        yield head


def last_id(batch):
    flat = batch.view(-1)
    return flat[-1].data[0]  # expect: GL003:12
