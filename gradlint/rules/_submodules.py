"""GL101: the layers of a module run by its own method after ``self.eval()``.

``self.eval()`` puts every submodule in eval mode, so in a method of an
``nn.Module`` subclass ``self.decoder_fc(h)`` after it is a forward in eval mode
just as ``self(x)`` is. It counts only when the attribute is proven a layer
with weights: every ``self.decoder_fc = ...`` of the class builds a
``torch.nn`` layer that has parameters, or a module class of the file whose
``__init__`` registers some (``Modules.records_graph``); no statement of the
class freezes it (``self.x_emb.weight.requires_grad = False``) and no
``setattr(self, ...)`` may rebind it.
"""

from __future__ import annotations

import libcst as cst

from gradlint.semantic.torch_api import TORCH
from gradlint.semantic.tree import self_attribute_values, walk

# ``torch.nn`` layers built with weights by default (``bias=False`` keeps the weight).
_WEIGHTED_LAYERS = frozenset(
    {
        "Linear", "Bilinear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
        "ConvTranspose3d", "Embedding", "EmbeddingBag", "RNN", "LSTM", "GRU", "RNNCell", "LSTMCell",
        "GRUCell", "MultiheadAttention", "Transformer", "TransformerEncoder", "TransformerDecoder",
        "TransformerEncoderLayer", "TransformerDecoderLayer",
    }
)


def own_layer_forward(sem, module: cst.BaseExpression) -> bool:
    """Whether ``module`` is ``self.<attr>`` in a method of a module class of the file
    whose every assignment of ``<attr>`` builds a layer with weights, never frozen
    nor rebound by ``setattr`` in the class."""
    if not (isinstance(module, cst.Attribute) and isinstance(module.value, cst.Name) and module.value.value == "self"):
        return False
    cls = sem.modules.instance_class(module.value)
    if cls is None:
        return False
    attr = module.attr.value
    values = self_attribute_values(cls, attr)
    if not values or not all(_weighted(sem, v) for v in values):
        return False
    for node in walk(cls.body, into_functions=True):
        if isinstance(node, cst.Attribute) and node.attr.value in ("requires_grad", "requires_grad_"):
            if sem.tree.code_for(node).startswith(f"self.{attr}."):
                return False
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "setattr":
            if not _setattr_misses(sem, node, attr):
                return False
    return True


def _weighted(sem, value: cst.BaseExpression) -> bool:
    if not isinstance(value, cst.Call) or not isinstance(value.func, (cst.Name, cst.Attribute)):
        return False
    names = sem.names.qualnames_in(value.func, TORCH)
    if any(q.startswith("torch.nn.") and q.count(".") == 2 and q.rsplit(".", 1)[1] in _WEIGHTED_LAYERS for q in names):
        return True
    cls = sem.modules.module_class(value.func)
    return cls is not None and sem.modules.records_graph(cls) is True


def _setattr_misses(sem, call: cst.Call, attr: str) -> bool:
    """``setattr(self, "bos", v)`` or ``for ss in ("bos", "eos"): setattr(self, ss, v)``
    with no name ``attr``: every name it may set is a constant other than ``attr``."""
    if len(call.args) < 2:
        return False
    name = call.args[1].value
    if isinstance(name, cst.SimpleString):
        return name.evaluated_value != attr
    if not isinstance(name, cst.Name):
        return False
    loop = sem.tree.enclosing_loop(call)
    if not isinstance(loop, cst.For) or not isinstance(loop.target, cst.Name) or loop.target.value != name.value:
        return False
    if not isinstance(loop.iter, (cst.Tuple, cst.List)):
        return False
    texts = [e.value.evaluated_value if isinstance(e.value, cst.SimpleString) else None for e in loop.iter.elements]
    return all(isinstance(t, str) and t != attr for t in texts)
