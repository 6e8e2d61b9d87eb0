"""Every catalog code: ``code: (checked by default, preview only)`` (``catalog.selection_index``),
and the catalog's ``no_grad_changes`` together (``catalog.no_grad_changes``).

Generated from the catalog (``rules/*.toml``) by ``tests/update_trigger_table.py``: do not edit.
"""

RULES = {
    'GL000': (True, False),
    'GL001': (True, False),
    'GL002': (True, False),
    'GL003': (True, False),
    'GL004': (True, False),
    'GL005': (True, False),
    'GL101': (True, True),
    'GL102': (True, False),
    'GL103': (True, False),
    'GL104': (True, False),
    'GL105': (True, True),
    'GL106': (True, False),
    'GL107': (True, False),
    'GL201': (True, False),
    'GL202': (True, False),
    'GL203': (False, False),
    'GL204': (False, False),
    'GL301': (True, True),
    'GL302': (True, False),
    'GL303': (True, False),
    'GL900': (False, False),
    'GL901': (False, False),
}

NO_GRAD_CHANGES = (
    'torch.nn.LSTM',
    'torch.nn.MultiheadAttention',
    'torch.nn.Transformer',
    'torch.nn.TransformerDecoder',
    'torch.nn.TransformerDecoderLayer',
    'torch.nn.TransformerEncoder',
    'torch.nn.TransformerEncoderLayer',
)
