"""The torch-aware facts rules share about one file.

LibCST's qualified names resolve imports (``from torch import no_grad as ng``)
but say nothing about receivers (what ``loss`` in ``loss.backward()`` is).
This module answers the questions gradient rules keep asking, once, so that
rules do not each keep their own half-right version:

- is this expression a grad-mode guard (``torch.no_grad()``, ...), and which?
- are gradients disabled at this node (``with`` blocks, decorators, a bare
  ``torch.set_grad_enabled(False)`` earlier in the block)?
- does this code need gradients (backward, ``autograd.grad``, an optimizer step)?
- does this expression evidently carry no autograd graph (a tensor factory,
  a DataLoader batch, ``.cuda()``/``.to()`` of those)?
- under which name is ``torch`` imported, for code that fixes insert?

Every answer here is conservative where it has to guess; the rules' catalog
entries name the heuristics under *Known problems*.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Callable, Dict, FrozenSet, Iterator, List, Optional, Sequence, Tuple, Union

import libcst as cst

from gradlint.fixes import ImportSpec
from gradlint.traversal import children, target_names

NO_GRAD = frozenset({"torch.no_grad", "torch.autograd.no_grad", "torch.autograd.grad_mode.no_grad"})
INFERENCE_MODE = frozenset(
    {"torch.inference_mode", "torch.autograd.inference_mode", "torch.autograd.grad_mode.inference_mode"}
)
ENABLE_GRAD = frozenset({"torch.enable_grad", "torch.autograd.enable_grad", "torch.autograd.grad_mode.enable_grad"})
SET_GRAD_ENABLED = frozenset(
    {"torch.set_grad_enabled", "torch.autograd.set_grad_enabled", "torch.autograd.grad_mode.set_grad_enabled"}
)
VARIABLE = frozenset({"torch.autograd.Variable", "torch.autograd.variable.Variable"})
AUTOGRAD_GRAD = frozenset({"torch.autograd.grad", "torch.autograd.backward"})
DATALOADER = frozenset({"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"})
GRAD_MODE_GUARDS = NO_GRAD | INFERENCE_MODE | ENABLE_GRAD | SET_GRAD_ENABLED
TORCH = frozenset({"torch"})  # for ``FileContext.qualnames_in``

_TENSOR_FACTORY_NAMES = (
    "tensor as_tensor from_numpy zeros ones empty full rand randn randint randperm arange linspace "
    "logspace eye zeros_like ones_like empty_like full_like rand_like randn_like randint_like "
    "Tensor FloatTensor DoubleTensor HalfTensor BFloat16Tensor LongTensor IntTensor ShortTensor "
    "ByteTensor CharTensor BoolTensor"
).split()
TENSOR_FACTORIES = frozenset(f"torch.{n}" for n in _TENSOR_FACTORY_NAMES) | frozenset(
    f"torch.cuda.{n}" for n in _TENSOR_FACTORY_NAMES if n.endswith("Tensor") and n != "Tensor"
)
# Factories that accept ``requires_grad=`` (floating point results).
REQUIRES_GRAD_FACTORIES = frozenset(
    f"torch.{n}"
    for n in "tensor zeros ones empty full rand randn arange linspace logspace eye zeros_like ones_like "
    "empty_like full_like rand_like randn_like".split()
)
_NO_GRAPH_CALLS = TENSOR_FACTORIES | VARIABLE
# Methods that return a tensor with no more graph than their receiver has (their
# arguments are devices, dtypes, shapes or numbers, never other tensors).
CONVERSIONS = frozenset(
    "cuda cpu to float double half bfloat16 long int short byte bool type contiguous pin_memory "
    "view reshape unsqueeze squeeze permute transpose t expand flatten clone "
    "fill_ zero_ normal_ uniform_ random_ bernoulli_ exponential_ resize_".split()
)

_OPTIMIZER_NAME = re.compile(r"optim|(^|_)opt(_|$)|^opt[gd]$")
_LOADER_NAME = re.compile(r"loader", re.IGNORECASE)

# -- constants of the storage-alias, graph and module facts (GL201-GL303) -------

# Methods whose name ends in ``_`` but that change no element of the tensor.
_NOT_INPLACE = frozenset({"requires_grad_", "detach_", "share_memory_", "retain_grad_", "record_stream_"})
# Methods and attributes that always return a view of their receiver's storage.
VIEW_METHODS = frozenset(
    "view view_as t transpose permute unsqueeze squeeze expand expand_as narrow select diagonal "
    "unflatten movedim moveaxis swapaxes swapdims as_strided".split()
)
VIEW_ATTRIBUTES = frozenset({"T", "mT", "H", "mH"})
# Receivers of ``.data`` that are datasets, requests, configs... far more often than
# tensors: these names, and names ending in these suffixes (any case). The rules'
# prefilter gates exclude the same receivers (``gradlint.rules._gates``).
NOT_TENSOR_DATA_NAMES = tuple(
    "self cls args opt opts options cfg config conf hparams hp settings flags ns namespace "
    "req request resp response res result json payload event msg message item record row node tree "
    "batch sample example data form graph g df frame table ds".split()
)
NOT_TENSOR_DATA_SUFFIXES = ("set", "_ds", "loader", "_df")  # ``dataset``, ``train_set``, ``val_loader``
_NOT_TENSOR_DATA = re.compile(
    "^(%s)$|(%s)$" % ("|".join(NOT_TENSOR_DATA_NAMES), "|".join(NOT_TENSOR_DATA_SUFFIXES)),
    re.IGNORECASE,
)
# Methods whose result holds no autograd history, whatever their receiver holds.
NO_GRAPH_METHODS = frozenset(
    "item tolist numpy detach argmax argmin argsort eq ne lt le gt ge equal isnan isinf isfinite "
    "size dim numel nelement long int short bool byte char element_size data_ptr nonzero "
    "count_nonzero all any sign_ stride is_contiguous".split()
)
NO_GRAPH_ATTRIBUTES = frozenset({"data", "grad", "shape", "dtype", "device", "requires_grad", "is_leaf", "ndim"})
# Calls of these names (builtins) return plain Python values.
_PYTHON_VALUE_FUNCS = frozenset({"float", "int", "len", "round", "bool", "str", "repr", "format", "isinstance"})
# Callees that run a forward pass or compute a loss, judged by name (``model(x)``,
# ``criterion(out, y)``, ``self.loss_fn(...)``, ``netD(fake)``).
_FORWARD_NAME = re.compile(
    r"model|net|loss|criterion|crit$|^crit|forward|encoder|decoder|generator|discriminator|"
    r"policy|critic|actor|classifier|backbone|head$|objective|^q_?net|^module$|^(ema|teacher|student)|"
    r"rnn|lstm|gru|mlp|transformer|attention|attn$",
    re.IGNORECASE,
)
_FACTORY_NAME = re.compile(
    r"(get|build|create|make|load|init|initiali[sz]e|setup|new|save|register|wrap|freeze|unfreeze|copy|"
    r"convert|prepare|export|count|print|log|show|plot|summar(y|ize))(_|$)",
    re.IGNORECASE,
)
_LOSS_FUNCTIONS = frozenset(
    f"torch.nn.functional.{n}"
    for n in "cross_entropy nll_loss mse_loss l1_loss smooth_l1_loss huber_loss binary_cross_entropy "
    "binary_cross_entropy_with_logits kl_div cosine_embedding_loss margin_ranking_loss "
    "triplet_margin_loss ctc_loss poisson_nll_loss gaussian_nll_loss hinge_embedding_loss "
    "multilabel_margin_loss multilabel_soft_margin_loss multi_margin_loss soft_margin_loss".split()
)
NN_MODULE = frozenset({"torch.nn.Module", "torch.nn.modules.module.Module"})
# Where ``_is_module_factory`` finds modules, and what copies one.
_MODEL_PACKAGES = frozenset({"torch", "torchvision", "timm", "transformers"})
_MODULE_COPIES = frozenset({"copy.deepcopy", "copy.copy", "torch.compile"})
# ``torch.nn`` names that are not modules although they are capitalised.
_NN_NOT_MODULES = frozenset({"Parameter", "UninitializedParameter", "UninitializedBuffer", "Buffer"})
_TORCHVISION_NOT_MODELS = frozenset({"get_weight", "get_model_weights", "list_models", "get_model_builder"})
_TRANSFORMERS_NOT_MODELS = re.compile(r"Tokenizer|Config|Processor|FeatureExtractor|Pipeline|Trainer|Arguments")
# ``nn.Module`` (and Hugging Face model) methods that do not run a forward pass with autograd.
_MODULE_API = frozenset(
    "parameters named_parameters buffers named_buffers children named_children modules named_modules "
    "state_dict load_state_dict eval train to cuda cpu half float double bfloat16 zero_grad apply "
    "register_buffer register_parameter register_module add_module register_forward_hook "
    "register_forward_pre_hook register_full_backward_hook register_backward_hook get_submodule "
    "get_parameter get_buffer requires_grad_ extra_repr share_memory generate save_pretrained "
    "num_parameters get_input_embeddings get_output_embeddings resize_token_embeddings "
    # scikit-learn / Keras style model APIs return arrays, not tensors with history
    "predict predict_proba score fit fit_transform transform evaluate summary save load compile".split()
)
# Methods of ``nn.Module`` that return the module itself.
_MODULE_SELF_METHODS = frozenset(
    "to cuda cpu eval train half float double bfloat16 requires_grad_ apply to_empty share_memory".split()
)

# -- inference rules (GL1xx) --
# Module methods that return the module itself, so ``model.to(dev).eval()`` is ``model``.
MODULE_CHAIN = frozenset("to cuda cpu half float double bfloat16 type eval train requires_grad_ share_memory".split())
LIGHTNING_MODULE = frozenset(
    {
        "pytorch_lightning.LightningModule",
        "pytorch_lightning.core.LightningModule",
        "pytorch_lightning.core.module.LightningModule",
        "pytorch_lightning.core.lightning.LightningModule",
        "lightning.LightningModule",
        "lightning.pytorch.LightningModule",
        "lightning.pytorch.core.LightningModule",
        "lightning.pytorch.core.module.LightningModule",
    }
)
LIGHTNING_EVAL_HOOKS = frozenset(
    {"validation_step", "test_step", "predict_step", "validation_epoch_end", "test_epoch_end", "predict_epoch_end"}
)
# Words that mark a function or a loader as dedicated to inference, as whole
# ``_``-separated parts of the name (``evaluate``, ``run_inference``, ``val_loader``).
_INFERENCE_WORD = re.compile(
    r"(^|_)(eval|evaluate|evaluation|validate|validation|val|valid|test|testing|predict|prediction|"
    r"infer|inference|generate|generation|sample|sampling|decode|beam_search|greedy_search)(_|$|\d)"
)
# Names under which models are usually kept (``model``, ``self.net``, ``encoder``).
_MODEL_NAME = re.compile(
    r"(^|_)(model|models|net|network|encoder|decoder|backbone|classifier|generator|discriminator|"
    r"critic|actor|policy|teacher|student|resnet\d*|vgg\d*|bert|gpt\d*|transformer|unet|vae|cnn|rnn|lstm|mlp|"
    r"detector|segmenter|predictor|regressor)s?(_|$|\d)|^(g|d|net[gd]|model\d*|net\d*)$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Guard:
    """A grad-mode context manager or decorator expression."""

    kind: str  # "no_grad" | "inference_mode" | "enable_grad" | "set_grad_enabled"
    called: bool  # ``torch.no_grad()`` rather than ``torch.no_grad``
    # True: gradients are off inside; False: on; None: decided at run time.
    disables: Optional[bool]


@dataclass(frozen=True, eq=False)
class GuardSite:
    """Where a grad mode is set: the guard, the statement, ``with`` or decorator
    that applies it, and the guard expression itself (``torch.no_grad()``)."""

    guard: Guard
    node: cst.CSTNode
    expr: cst.BaseExpression


Scope = Union[cst.Module, cst.FunctionDef, cst.Lambda]


@dataclass(frozen=True)
class Binding:
    """One way a name gets a value in a scope."""

    kind: str  # "assign" | "unpack" | "for" | "param" | "other"
    value: Optional[cst.BaseExpression] = None
    node: Optional[cst.CSTNode] = None


@dataclass(frozen=True)
class StorageAlias:
    """A tensor that shares its storage with ``source`` through ``.detach()`` or ``.data``."""

    kind: str  # "detach" | "data"
    origin: cst.BaseExpression  # the ``x.detach()`` call or the ``x.data`` attribute
    source: cst.BaseExpression  # ``x``
    # Reached through a variable (``y = x.detach(); y.add_(1)``) rather than in one expression.
    through_name: bool = False


def _looks_forward(name: Optional[str]) -> bool:
    """A callee named like a model or loss (``model``, ``netD``, ``criterion``), not a
    class (``Net(...)`` builds a module, ``LSTMLayer.from_float`` converts one) nor a
    factory (``get_model``, ``build_criterion``)."""
    if not name or not _FORWARD_NAME.search(name):
        return False
    return not name.lstrip("_")[:1].isupper() and not _FACTORY_NAME.match(name.lstrip("_"))


def is_inplace_method(name: str) -> bool:
    """``add_``, ``zero_``, ``copy_``...: tensor methods that overwrite their receiver's elements."""
    return name.endswith("_") and not name.startswith("_") and name not in _NOT_INPLACE


def is_basic_index(node: cst.Subscript) -> bool:
    """Indexing with integer literals, slices, ``...`` and ``None`` only: the result is a view."""
    for el in node.slice:
        sl = el.slice
        if isinstance(sl, cst.Slice):
            continue
        value = sl.value  # type: ignore[union-attr]
        if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
            value = value.expression
        if isinstance(value, (cst.Integer, cst.Ellipsis)) or (isinstance(value, cst.Name) and value.value == "None"):
            continue
        return False
    return True


def root_name(expr: cst.BaseExpression) -> Optional[cst.Name]:
    """``self.model.fc`` -> ``self``; ``x[0].grad`` -> ``x``; a call breaks the chain."""
    while isinstance(expr, (cst.Attribute, cst.Subscript)):
        expr = expr.value
    return expr if isinstance(expr, cst.Name) else None


def is_tensor_data_syntax(node: cst.CSTNode) -> bool:
    """``x.data`` whose receiver is not named like a dataset, request or config object."""
    if not (isinstance(node, cst.Attribute) and node.attr.value == "data"):
        return False
    name = last_name(node.value)  # None for ``next(model.parameters()).data``, ``(a + b).data``, ``xs[0].data``
    return name is None or not _NOT_TENSOR_DATA.search(name)


def inplace_edit(node: cst.CSTNode) -> Optional[cst.BaseExpression]:
    """The tensor an in-place edit statement or call overwrites: ``y`` for
    ``y.add_(1)``, ``y += 1``, ``y[i] = v``, ``y[i] -= v``; else None."""
    if isinstance(node, cst.Call):
        func = node.func
        if isinstance(func, cst.Attribute) and is_inplace_method(func.attr.value):
            return func.value
        return None
    if isinstance(node, cst.AugAssign):
        target = node.target
        return target.value if isinstance(target, cst.Subscript) else target
    if isinstance(node, cst.Assign):
        for t in node.targets:
            if isinstance(t.target, cst.Subscript):
                return t.target.value
    return None



@dataclass(frozen=True, eq=False)
class EvalSwitch:
    """A statement that puts a model in eval mode (see ``Semantic.eval_switch``)."""

    model: str  # the model expression's source text: ``model``, ``self.net``
    call: cst.Call  # the ``.eval()`` / ``.train(False)`` call
    stmt: cst.SimpleStatementLine


def is_model_ref(expr: cst.CSTNode) -> bool:
    """A name, or an attribute/subscript chain on one (``self.models["g"]``), with no calls in it."""
    while isinstance(expr, (cst.Attribute, cst.Subscript)):
        expr = expr.value
    return isinstance(expr, cst.Name)


def called_module(call: cst.Call) -> Optional[cst.BaseExpression]:
    """``m`` for ``m(...)`` and ``m.forward(...)`` when ``m`` is a name or an
    attribute/subscript chain on one (what a model's forward call looks like)."""
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value == "forward":
        func = func.value
    return func if is_model_ref(func) else None


def looks_like_model(expr: cst.BaseExpression) -> bool:
    """Whether ``expr`` is named the way models are (``model``, ``self.encoder``, ``netG``)."""
    name = last_name(expr)
    return bool(name) and bool(_MODEL_NAME.search(name))  # type: ignore[arg-type]


def is_inference_name(name: str) -> bool:
    """A function or loader name that says it is for inference (``evaluate``, ``val_loader``)."""
    return bool(_INFERENCE_WORD.search(name.lower()))


def _is_eval_call(call: cst.Call) -> bool:
    if not isinstance(call.func, cst.Attribute):
        return False
    attr = call.func.attr.value
    if attr == "eval":
        return not call.args
    if attr == "train":
        mode = call_arg(call, 0, "mode")
        return mode is not None and bool_value(mode.value) is False
    return False


def _chain_base(expr: cst.BaseExpression) -> cst.BaseExpression:
    """``model.to(dev).eval()`` -> ``model``: strip module methods that return the module."""
    while isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value in MODULE_CHAIN:
        expr = expr.func.value
    return expr


def _eval_in_chain(expr: cst.BaseExpression) -> Tuple[Optional[cst.Call], cst.BaseExpression]:
    found = None
    while isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value in MODULE_CHAIN:
        if found is None and _is_eval_call(expr):
            found = expr
        expr = expr.func.value
    return found, expr


def _all_targets(target: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    if isinstance(target, (cst.Tuple, cst.List)):
        for el in target.elements:
            yield from _all_targets(el.value)
    elif isinstance(target, cst.StarredElement):
        yield from _all_targets(target.value)
    else:
        yield target


def _false_arg(call: cst.Call, keyword: str) -> bool:
    arg = call_arg(call, 0, keyword)
    return arg is not None and bool_value(arg.value) is False


def _parameters_owner(expr: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    """``model.parameters()`` / ``model.named_parameters()`` -> ``model``."""
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
        if expr.func.attr.value in ("parameters", "named_parameters"):
            base = _chain_base(expr.func.value)
            return base if is_model_ref(base) else None
    return None


def _parameter_target(target: cst.BaseExpression) -> Optional[str]:
    """The loop variable holding the parameter: ``p`` in ``for p in ...`` or ``for name, p in ...``."""
    if isinstance(target, cst.Name):
        return target.value
    if isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 2:
        last = target.elements[1].value
        return last.value if isinstance(last, cst.Name) else None
    return None


def _freezes(body: cst.BaseSuite, name: str) -> bool:
    """Whether a loop body sets ``name.requires_grad = False`` / ``name.requires_grad_(False)``."""
    for node in walk(body):
        if isinstance(node, cst.Assign) and bool_value(node.value) is False:
            for t in node.targets:
                tgt = t.target
                if isinstance(tgt, cst.Attribute) and tgt.attr.value == "requires_grad":
                    if isinstance(tgt.value, cst.Name) and tgt.value.value == name:
                        return True
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            if node.func.attr.value == "requires_grad_" and _false_arg(node, "requires_grad"):
                if isinstance(node.func.value, cst.Name) and node.func.value.value == name:
                    return True
    return False


def _switch_call(stmt: cst.CSTNode) -> cst.BaseExpression:
    """The ``set_grad_enabled(...)`` call of a statement ``global_switch`` accepted."""
    assert isinstance(stmt, cst.SimpleStatementLine)
    small = stmt.body[0]
    assert isinstance(small, (cst.Expr, cst.Assign))
    return small.value


def last_name(expr: cst.BaseExpression) -> Optional[str]:
    """``self.model.encoder`` -> ``encoder``; ``model`` -> ``model``; else None."""
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        return expr.attr.value
    return None


def is_optimizer_name(expr: cst.BaseExpression) -> bool:
    name = last_name(expr)
    return bool(name) and bool(_OPTIMIZER_NAME.search(name.lower()))  # type: ignore[union-attr]


def bool_value(expr: cst.BaseExpression) -> Optional[bool]:
    if isinstance(expr, cst.Name) and expr.value in ("True", "False"):
        return expr.value == "True"
    return None


def call_arg(call: cst.Call, position: Optional[int], keyword: Optional[str]) -> Optional[cst.Arg]:
    """The argument passed as ``keyword=`` or at ``position`` (no star-args), if any."""
    index = 0
    for arg in call.args:
        if arg.keyword is not None:
            if keyword is not None and arg.keyword.value == keyword:
                return arg
            continue
        if arg.star:
            return None
        if position is not None and index == position:
            return arg
        index += 1
    return None


class Semantic:
    def __init__(self, ctx) -> None:  # ctx: gradlint.rule.FileContext
        self.ctx = ctx
        self._bindings: Dict[int, Dict[str, List[Binding]]] = {}
        self._torch_ref: Optional[Tuple[str, bool]] = None
        self._module_class_cache: Optional[Dict[str, cst.ClassDef]] = None
        self._graph_by_name: Dict[int, Optional[cst.CSTNode]] = {}
        self._returns_checked: set = set()

        # Qualified names cost a scope analysis of the whole file; a name can only
        # resolve to torch's grad-mode guards or to torch.autograd if the source
        # spells them somewhere (in an import at least).
        source = ctx.source
        self._may_name_guards = any(n in source for n in ("no_grad", "inference_mode", "enable_grad", "set_grad_enabled"))
        self._may_name_autograd = "autograd" in source
        # Children of the nodes of this file's tree (which lives as long as this object).
        # inference rules (GL1xx)
        self._frozen: Optional[FrozenSet[str]] = None
        self._module_grad_off: Optional[bool] = None
        self._refs: Optional[Tuple[Dict[str, List[cst.Name]], Dict[str, List[cst.Attribute]]]] = None

    def walk(self, node: cst.CSTNode, into_functions: bool = False) -> Iterator[cst.CSTNode]:
        """:func:`walk` (kept as a method: rules pass it around as the walk of this file)."""
        return walk(node, into_functions)

    # -- names --------------------------------------------------------------

    def is_call_to(self, node: cst.CSTNode, names: FrozenSet[str]) -> bool:
        return isinstance(node, cst.Call) and self.ctx.refers_to(node.func, names)

    def refers_to(self, expr: cst.CSTNode, names: FrozenSet[str]) -> bool:
        return self.ctx.refers_to(expr, names)

    # -- grad mode ----------------------------------------------------------

    def guard(self, expr: cst.BaseExpression) -> Optional[Guard]:
        called = isinstance(expr, cst.Call)
        func = expr.func if isinstance(expr, cst.Call) else expr
        if not isinstance(func, (cst.Name, cst.Attribute)) or not self._may_name_guards:
            return None
        if not self.ctx.refers_to(func, GRAD_MODE_GUARDS):
            return None
        names = self.ctx.qualnames(func)
        if names & NO_GRAD:
            return Guard("no_grad", called, True)
        if names & ENABLE_GRAD:
            return Guard("enable_grad", called, False)
        if names & INFERENCE_MODE:
            mode = call_arg(expr, 0, "mode") if isinstance(expr, cst.Call) else None
            return Guard("inference_mode", called, True if mode is None else bool_value(mode.value))
        if names & SET_GRAD_ENABLED:
            mode = call_arg(expr, 0, "mode") if isinstance(expr, cst.Call) else None
            value = bool_value(mode.value) if mode is not None else None
            return Guard("set_grad_enabled", called, None if value is None else not value)
        return None

    def with_guard(self, node: cst.With) -> Optional[Guard]:
        """The innermost grad-mode guard a ``with`` statement enters, if any."""
        found = None
        for item in node.items:
            g = self.guard(item.item)
            if g is not None and (g.called or g.kind == "set_grad_enabled"):
                found = g
        return found

    def decorator_guard(self, func: cst.FunctionDef) -> Optional[Guard]:
        found = None
        for dec in func.decorators:
            g = self.guard(dec.decorator)
            # Bare @torch.no_grad / @torch.inference_mode / @torch.enable_grad work;
            # bare @torch.set_grad_enabled fails at definition time.
            if g is not None and (g.called or g.kind != "set_grad_enabled"):
                found = g
        return found

    def global_switch(self, stmt: cst.CSTNode) -> Optional[Guard]:
        """``torch.set_grad_enabled(x)`` called as a statement (or assigned): it acts at once."""
        if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
            return None
        small = stmt.body[0]
        value = small.value if isinstance(small, (cst.Expr, cst.Assign)) else None
        if isinstance(value, cst.Call):
            g = self.guard(value)
            if g is not None and g.kind == "set_grad_enabled":
                return g
        return None

    def grad_disabled(self, node: cst.CSTNode) -> Optional[bool]:
        """Whether gradients are off when ``node`` runs: True, False, or None (unknown).

        Looks outward from ``node`` through ``with`` guards and preceding
        ``set_grad_enabled`` statements up to the enclosing function, whose
        grad-mode decorator decides; an undecorated function body (or the module)
        runs with gradients on unless its caller says otherwise, which is the
        callers' business (False is returned).
        """
        site = self.grad_guard_at(node)
        return site.guard.disables if site is not None else False

    def grad_guard_at(self, node: cst.CSTNode) -> Optional["GuardSite"]:
        """The guard that decides the grad mode ``node`` runs in, and where it is;
        None when nothing in the enclosing function (or module) sets the mode, so
        that the caller's mode (by default: gradients on) applies.

        The same outward walk as :meth:`grad_disabled`, which is defined by it.
        """
        cur = node
        parent = self.ctx.parent(cur)
        while parent is not None:
            if isinstance(parent, cst.With) and cur is parent.body:
                found = None
                for item in parent.items:
                    g = self.guard(item.item)
                    if g is not None and (g.called or g.kind == "set_grad_enabled"):
                        found = GuardSite(g, parent, item.item)
                if found is not None:
                    return found
            elif isinstance(parent, (cst.IndentedBlock, cst.Module)):
                body = parent.body
                for i in range(len(body) - 1, -1, -1):
                    if body[i] is cur:
                        for prev in reversed(body[:i]):
                            g = self.global_switch(prev)
                            if g is not None:
                                return GuardSite(g, prev, _switch_call(prev))
                        break
            elif isinstance(parent, cst.FunctionDef) and cur is parent.body:
                for dec in reversed(parent.decorators):
                    g = self.guard(dec.decorator)
                    if g is not None and (g.called or g.kind != "set_grad_enabled"):
                        return GuardSite(g, dec, dec.decorator)
                return None
            elif isinstance(parent, cst.Lambda):
                return None
            cur, parent = parent, self.ctx.parent(parent)
        return None

    def needs_gradients(self, node: cst.CSTNode) -> bool:
        """Whether code under ``node`` (not nested functions) computes or requests gradients."""
        for sub in self.walk(node):
            if isinstance(sub, cst.Call):
                func = sub.func
                if isinstance(func, cst.Attribute):
                    attr = func.attr.value
                    if attr == "backward":
                        return True
                    if attr == "step" and (
                        is_optimizer_name(func.value) or any(is_optimizer_name(a.value) for a in sub.args)
                    ):
                        return True
                    if attr == "requires_grad_":
                        flag = call_arg(sub, 0, "requires_grad")
                        if flag is None or bool_value(flag.value) is not False:
                            return True
                names = (
                    self.ctx.qualnames_in(func, TORCH)
                    if self._may_name_autograd and isinstance(func, (cst.Name, cst.Attribute))
                    else frozenset()
                )
                if names & AUTOGRAD_GRAD or any(n.startswith("torch.autograd.functional.") for n in names):
                    return True
                flag = call_arg(sub, None, "requires_grad")
                if flag is not None and bool_value(flag.value) is not False:
                    return True
            elif isinstance(sub, (cst.Assign, cst.AnnAssign)) and sub.value is not None:
                targets = [t.target for t in sub.targets] if isinstance(sub, cst.Assign) else [sub.target]
                for t in targets:
                    if isinstance(t, cst.Attribute) and t.attr.value == "requires_grad":
                        if bool_value(sub.value) is not False:
                            return True
        return False

    # -- scopes and bindings ------------------------------------------------

    def enclosing_function(self, node: cst.CSTNode) -> Optional[cst.FunctionDef]:
        parent = self.ctx.parent(node)
        while parent is not None:
            if isinstance(parent, cst.FunctionDef):
                return parent
            if isinstance(parent, (cst.Lambda, cst.ClassDef)):
                return None
            parent = self.ctx.parent(parent)
        return None

    def enclosing_scope(self, node: cst.CSTNode) -> Scope:
        parent = self.ctx.parent(node)
        while parent is not None:
            if isinstance(parent, (cst.FunctionDef, cst.Lambda)):
                return parent
            parent = self.ctx.parent(parent)
        return self.ctx.module

    def bindings(self, scope: Scope) -> Dict[str, List[Binding]]:
        """How each name is bound in ``scope`` (not counting nested functions or classes)."""
        key = id(scope)
        found = self._bindings.get(key)
        if found is None:
            found = self._bindings[key] = _collect_bindings(scope)
        return found

    def carries_no_graph(
        self, expr: cst.BaseExpression, scope: Scope, _depth: int = 0, _visiting: FrozenSet[str] = frozenset()
    ) -> bool:
        """Whether ``expr`` evidently holds no autograd history: a tensor factory call,
        ``torch.from_numpy``, a DataLoader batch, ``.detach()``, a legacy ``Variable(...)``
        (which detaches), or shape/dtype/device conversions of those, followed through
        simple assignments (``x = x.cuda()`` included)."""
        if _depth > 8:
            return False
        if isinstance(expr, cst.Call):
            func = expr.func
            if isinstance(func, (cst.Name, cst.Attribute)) and self.ctx.refers_to(func, _NO_GRAPH_CALLS):
                return True
            if isinstance(func, cst.Attribute):
                if func.attr.value == "detach":
                    return True
                if func.attr.value in CONVERSIONS:
                    return self.carries_no_graph(func.value, scope, _depth + 1, _visiting)
            return False
        if isinstance(expr, cst.Subscript):
            return self.is_batch(expr.value, scope, _depth + 1, _visiting)
        if isinstance(expr, cst.Name):
            if expr.value in _visiting:
                return True  # x = x.cuda(): the other bindings of x decide
            binds = self.bindings(scope).get(expr.value)
            if not binds:
                return False
            visiting = _visiting | {expr.value}
            return all(self._binding_free(b, scope, _depth + 1, visiting) for b in binds)
        return False

    def is_batch(
        self, expr: cst.BaseExpression, scope: Scope, _depth: int = 0, _visiting: FrozenSet[str] = frozenset()
    ) -> bool:
        """Whether ``expr`` is (part of) a batch drawn from a DataLoader loop."""
        if _depth > 8:
            return False
        if isinstance(expr, cst.Subscript):
            return self.is_batch(expr.value, scope, _depth + 1, _visiting)
        if isinstance(expr, cst.Name):
            if expr.value in _visiting:
                return True
            binds = self.bindings(scope).get(expr.value)
            visiting = _visiting | {expr.value}
            return bool(binds) and all(self._binding_free(b, scope, _depth + 1, visiting) for b in binds)
        return False

    def _binding_free(self, b: Binding, scope: Scope, depth: int, visiting: FrozenSet[str]) -> bool:
        if b.value is None:
            return False
        if b.kind == "for":
            return self.is_loader(b.value, scope)
        if b.kind == "unpack":
            return self.is_batch(b.value, scope, depth, visiting) or self.carries_no_graph(b.value, scope, depth, visiting)
        if b.kind == "assign":
            return self.carries_no_graph(b.value, scope, depth, visiting)
        return False

    def is_loader(self, expr: cst.BaseExpression, scope: Scope, _depth: int = 0) -> bool:
        """A loop iterable that yields batches: ``loader``, ``enumerate(train_loader)``,
        ``tqdm(dataloaders[phase])``, ``DataLoader(...)``, a name bound to ``DataLoader(...)``."""
        if _depth > 4:
            return False
        if isinstance(expr, cst.Call):
            if self.ctx.refers_to(expr.func, DATALOADER):
                return True
            fname = last_name(expr.func)
            if fname in ("enumerate", "tqdm", "iter", "trange") and expr.args:
                return self.is_loader(expr.args[0].value, scope, _depth + 1)
            return False
        if isinstance(expr, cst.Subscript):
            return self.is_loader(expr.value, scope, _depth + 1)
        name = last_name(expr)
        if name and _LOADER_NAME.search(name):
            return True
        if isinstance(expr, cst.Name):
            binds = self.bindings(scope).get(expr.value, [])
            return bool(binds) and all(
                b.kind == "assign" and b.value is not None and self.is_loader(b.value, scope, _depth + 1)
                for b in binds
            )
        return False

    # -- inference: eval mode, call sites, Lightning hooks (GL1xx rules) -------

    def eval_switch(self, stmt: cst.CSTNode) -> Optional["EvalSwitch"]:
        """If the statement ``stmt`` puts a model in eval mode, which one and how:
        ``model.eval()``, ``model.train(False)``, ``model.to(dev).eval()``,
        ``self.net = Net().eval()``."""
        if not isinstance(stmt, cst.SimpleStatementLine):
            return None
        for small in stmt.body:
            if isinstance(small, cst.Expr):
                call, base = _eval_in_chain(small.value)
                if call is not None and is_model_ref(base):
                    return EvalSwitch(self.ctx.code_for(base), call, stmt)
            elif isinstance(small, cst.Assign) and len(small.targets) == 1:
                call, _ = _eval_in_chain(small.value)
                target = small.targets[0].target
                if call is not None and is_model_ref(target):
                    return EvalSwitch(self.ctx.code_for(target), call, stmt)
        return None

    def ends_eval_mode(self, stmt: cst.CSTNode, model: str) -> bool:
        """Whether ``stmt`` may take ``model`` out of eval mode or rebind it:
        ``model.train()``, ``model.train(flag)``, ``model = other``.
        ``model = model.to(device)`` keeps it."""
        root = model.split(".")[0].split("[")[0]
        for node in self.walk(stmt):
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "train":
                if not _is_eval_call(node) and self.ctx.code_for(_chain_base(node)) == model:
                    return True
            targets: Sequence[cst.BaseExpression] = ()
            value: Optional[cst.BaseExpression] = None
            if isinstance(node, cst.Assign):
                targets, value = [t.target for t in node.targets], node.value
            elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
                targets, value = [node.target], node.value
            elif isinstance(node, (cst.For, cst.CompFor)):
                targets = [node.target]
            elif isinstance(node, cst.WithItem) and node.asname is not None:
                targets = [node.asname.name]
            for target in targets:
                for t in _all_targets(target):
                    text = self.ctx.code_for(t)
                    if text != model and text != root:
                        continue
                    if value is not None and self.ctx.code_for(_chain_base(value)) == model:
                        continue  # model = model.to(device).eval()
                    return True
        return False

    def forward_calls(self, node: cst.CSTNode, models: FrozenSet[str]) -> Iterator[Tuple[cst.Call, str]]:
        """Calls ``m(...)`` and ``m.forward(...)`` under ``node`` (not in nested functions)
        of a model whose source text is in ``models``."""
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            return  # runs when called, not here
        for sub in self.walk(node):
            model = called_module(sub) if isinstance(sub, cst.Call) else None
            if model is not None:
                text = self.ctx.code_for(model)
                if text in models:
                    yield sub, text

    def frozen_models(self) -> FrozenSet[str]:
        """Source texts of models whose parameters are frozen somewhere in the module
        (``m.requires_grad_(False)``, or ``p.requires_grad = False`` for every ``p`` in
        ``m.parameters()``): a forward through them records no graph."""
        if self._frozen is None:
            found = set()
            for node in self.walk(self.ctx.module, into_functions=True):
                if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
                    if node.func.attr.value == "requires_grad_" and _false_arg(node, "requires_grad"):
                        base = _chain_base(node.func.value)
                        if is_model_ref(base):
                            found.add(self.ctx.code_for(base))
                elif isinstance(node, cst.For):
                    model, param = _parameters_owner(node.iter), _parameter_target(node.target)
                    if model is not None and param is not None and _freezes(node.body, param):
                        found.add(self.ctx.code_for(model))
            self._frozen = frozenset(found)
        return self._frozen

    def module_grad_off(self) -> bool:
        """Whether the module switches gradients off for the whole program with a
        top-level ``torch.set_grad_enabled(False)`` statement (and never back on)."""
        if self._module_grad_off is None:
            switches = [g for g in map(self.global_switch, self.ctx.module.body) if g is not None]
            self._module_grad_off = bool(switches) and all(g.disables is True for g in switches)
        return self._module_grad_off

    def runs_without_grad(self, node: cst.CSTNode, _seen: FrozenSet[int] = frozenset()) -> bool:
        """Whether gradients are certainly off when ``node`` runs: a guard around it,
        a module-wide switch, or (for code in a function with no guard of its own)
        every call of that function in this module runs without gradients."""
        site = self.grad_guard_at(node)
        if site is not None:
            return site.guard.disables is True
        if self.module_grad_off():
            return True
        func = self.enclosing_function(node)
        return func is not None and self.always_called_without_grad(func, _seen)

    def always_called_without_grad(self, func: cst.FunctionDef, _seen: FrozenSet[int] = frozenset()) -> bool:
        """Every call of ``func`` in this module (at least one) runs without gradients,
        e.g. ``with torch.no_grad(): val = evaluate(model, loader)``; or ``func`` is a
        Lightning validation/test/predict hook, which the trainer runs without them."""
        if self.is_lightning_eval_hook(func) or self._wrapped_by_guard(func):
            return True
        if id(func) in _seen or len(_seen) > 6:
            return False
        sites = self.call_sites(func)
        if not sites:
            return False
        seen = _seen | {id(func)}
        return all(self.runs_without_grad(call, seen) for call in sites)

    def call_sites(self, func: cst.FunctionDef) -> Optional[List[cst.Call]]:
        """The calls of ``func`` in this module: ``f(...)`` for a function,
        ``<anything>.f(...)`` for a method. None when ``func`` is also used some
        other way (passed as a callback, stored), so that its callers are unknown."""
        names, attrs = self._references()
        name = func.name.value
        is_method = isinstance(self.ctx.parent(self.ctx.parent(func)), cst.ClassDef)
        refs = attrs.get(name, []) if is_method else names.get(name, [])
        sites = []
        for ref in refs:
            parent = self.ctx.parent(ref)
            if not (isinstance(parent, cst.Call) and parent.func is ref):
                return None
            sites.append(parent)
        return sites

    def _wrapped_by_guard(self, func: cst.FunctionDef) -> bool:
        """``evaluate = torch.no_grad()(evaluate)``: decorated after the fact."""
        names, _ = self._references()
        for ref in names.get(func.name.value, []):
            arg = self.ctx.parent(ref)
            call = self.ctx.parent(arg) if isinstance(arg, cst.Arg) else None
            if isinstance(call, cst.Call) and isinstance(call.func, cst.Call):
                g = self.guard(call.func)
                if g is not None and g.disables is True:
                    return True
        return False

    def is_lightning_eval_hook(self, func: cst.FunctionDef) -> bool:
        """A ``validation_step``/``test_step``/``predict_step`` (or an evaluation
        epoch hook) of a ``LightningModule`` subclass: the trainer runs it with
        gradients off."""
        name = func.name.value
        if name not in LIGHTNING_EVAL_HOOKS and not name.startswith(("on_validation_", "on_test_", "on_predict_")):
            return False
        block = self.ctx.parent(func)
        cls = self.ctx.parent(block) if block is not None else None
        return isinstance(cls, cst.ClassDef) and self.is_lightning_module(cls)

    def is_lightning_module(self, cls: cst.ClassDef, _depth: int = 0) -> bool:
        if _depth > 5:
            return False
        for base in cls.bases:
            expr = base.value
            if not isinstance(expr, (cst.Name, cst.Attribute)):
                continue
            if self.ctx.refers_to(expr, LIGHTNING_MODULE) or self.ctx.code_for(expr).endswith("LightningModule"):
                return True
            if isinstance(expr, cst.Name):
                for stmt in self.ctx.module.body:
                    if isinstance(stmt, cst.ClassDef) and stmt.name.value == expr.value and stmt is not cls:
                        if self.is_lightning_module(stmt, _depth + 1):
                            return True
        return False

    def _references(self) -> Tuple[Dict[str, List[cst.Name]], Dict[str, List[cst.Attribute]]]:
        """Every load of a name, and every ``x.attr`` access by attribute name."""
        if self._refs is None:
            names: Dict[str, List[cst.Name]] = {}
            attrs: Dict[str, List[cst.Attribute]] = {}
            for node in self.walk(self.ctx.module, into_functions=True):
                if isinstance(node, cst.Attribute):
                    attrs.setdefault(node.attr.value, []).append(node)
                elif isinstance(node, cst.Name):
                    parent = self.ctx.parent(node)
                    if isinstance(parent, cst.Attribute) and parent.attr is node:
                        continue
                    if isinstance(parent, (cst.FunctionDef, cst.ClassDef, cst.Param, cst.ImportAlias, cst.AsName)):
                        continue
                    if isinstance(parent, cst.Arg) and parent.keyword is node:
                        continue
                    names.setdefault(node.value, []).append(node)
            self._refs = (names, attrs)
        return self._refs

    # -- code generation ----------------------------------------------------

    def torch_ref(self) -> Tuple[str, Tuple[ImportSpec, ...]]:
        """How generated code should spell ``torch``, and the import it needs for that."""
        if self._torch_ref is None:
            ref: Optional[str] = None
            for stmt in self.ctx.module.body:
                if not isinstance(stmt, cst.SimpleStatementLine):
                    continue
                for small in stmt.body:
                    if not isinstance(small, cst.Import):
                        continue
                    for alias in small.names:
                        if isinstance(alias.name, cst.Name) and alias.name.value == "torch":
                            if alias.asname is None:
                                ref = "torch"
                            elif ref is None and isinstance(alias.asname.name, cst.Name):
                                ref = alias.asname.name.value
                        elif alias.asname is None and self.ctx.code_for(alias.name).startswith("torch."):
                            # ``import torch.nn`` binds ``torch`` too
                            ref = ref or "torch"
            self._torch_ref = (ref, False) if ref else ("torch", True)
        name, needed = self._torch_ref
        return name, ((ImportSpec("torch"),) if needed else ())

    def torch_ref_at(self, node: cst.CSTNode) -> Optional[Tuple[str, Tuple[ImportSpec, ...]]]:
        """``torch_ref()`` for code inserted at ``node`` (a decorator: at its function),
        or None where that name is something else there: a parameter, a local or a
        module-level variable named ``torch`` would make ``torch.no_grad()`` its own
        attribute, not the module's (and a fix adding it would never converge)."""
        name, imports = self.torch_ref()
        scope = self.enclosing_scope(node)
        while True:
            if any(not isinstance(b.node, cst.Import) for b in self.bindings(scope).get(name, ())):
                return None
            if scope is self.ctx.module:
                return name, imports
            scope = self.enclosing_scope(scope)

    def imports_of(self, names: FrozenSet[str]) -> List[ImportSpec]:
        """The module-level imports through which code can reach one of ``names``:
        ``from X import Y [as Z]`` binding one of them or a module above one
        (``from torch import autograd``), and ``import X.Y as Z`` of such a module
        (``import torch.autograd as autograd``). Fixes list them for removal, which
        happens only where nothing uses them any more."""

        def reaches(qualname: str) -> bool:
            return qualname in names or any(n.startswith(qualname + ".") for n in names)

        found: List[ImportSpec] = []
        for stmt in self.ctx.module.body:
            if not isinstance(stmt, cst.SimpleStatementLine):
                continue
            for small in stmt.body:
                if isinstance(small, cst.Import):
                    for alias in small.names:
                        mod = self.ctx.code_for(alias.name)
                        # ``import torch.autograd`` binds ``torch``: never a candidate.
                        if alias.asname is not None and isinstance(alias.asname.name, cst.Name) and reaches(mod):
                            found.append(ImportSpec(mod, None, alias.asname.name.value))
                    continue
                if not isinstance(small, cst.ImportFrom) or small.module is None or small.relative:
                    continue
                if isinstance(small.names, cst.ImportStar):
                    continue
                mod = self.ctx.code_for(small.module)
                for alias in small.names:
                    obj = self.ctx.code_for(alias.name)
                    if reaches(f"{mod}.{obj}"):
                        asname = alias.asname.name.value if alias.asname and isinstance(alias.asname.name, cst.Name) else None
                        found.append(ImportSpec(mod, obj, asname))
        return found

    # -- tree positions (shared by the flow facts below) -----------------------

    def is_inside(self, outer: cst.CSTNode, node: cst.CSTNode) -> bool:
        """Whether ``node`` is ``outer`` or lies within it."""
        cur: Optional[cst.CSTNode] = node
        while cur is not None:
            if cur is outer:
                return True
            cur = self.ctx.parent(cur)
        return False

    def enclosing_loop(self, node: cst.CSTNode) -> Optional[Union[cst.For, cst.While]]:
        """The innermost ``for``/``while`` whose body holds ``node``, within its function."""
        cur, parent = node, self.ctx.parent(node)
        while parent is not None:
            if isinstance(parent, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
                return None
            if isinstance(parent, (cst.For, cst.While)) and cur is parent.body:
                return parent
            cur, parent = parent, self.ctx.parent(parent)
        return None

    # -- reaching bindings (GL201, GL202, GL301, GL302) -------------------------

    def reaching_binding(self, name: cst.Name) -> Optional[Binding]:
        """The binding of ``name`` that certainly holds when ``name`` is read, else None.

        Straight-line only: the last binding before the use, if it runs on every path
        to the use (it is in a block around the use, or is a parameter), and no loop
        around the use (but not around the binding) rebinds the name. ``y += ...``
        does not count as a rebinding: on tensors it edits the same object.
        """
        scope = self.enclosing_scope(name)
        binds = self.bindings(scope).get(name.value)
        if not binds:
            return None
        best: Optional[Binding] = None
        best_at = -2
        for b in binds:
            if isinstance(b.node, cst.AugAssign):
                continue
            if isinstance(b.node, cst.CompFor):
                return None  # comprehension variables: not worth modelling
            point = self._binding_point(b)
            if point is not None and not self.ctx.ends_before(point, name):
                continue
            at = -1 if point is None else self.ctx.order(point)[1]
            if at >= best_at:
                best, best_at = b, at
        if best is None or not self._dominates(best, name):
            return None
        cur = self.ctx.parent(name)
        while cur is not None and cur is not scope:
            if isinstance(cur, (cst.For, cst.While)) and not self.is_inside(cur, best.node):  # type: ignore[arg-type]
                for other in binds:
                    if other is not best and not isinstance(other.node, cst.AugAssign) and other.node is not None:
                        if self.is_inside(cur, other.node):
                            return None
            cur = self.ctx.parent(cur)
        return best

    def _binding_point(self, b: Binding) -> Optional[cst.CSTNode]:
        """What must end before a use for the binding to hold there: its statement (a
        loop's target); None for a parameter, which holds from the start."""
        if b.kind == "param" or b.node is None:
            return None
        return b.node.target if isinstance(b.node, cst.For) else b.node

    def _dominates(self, b: Binding, use: cst.CSTNode) -> bool:
        if b.kind == "param":
            return True
        node = b.node
        assert node is not None
        if isinstance(node, cst.WithItem):
            node = self.ctx.parent(node)
            assert node is not None
        if isinstance(node, (cst.For, cst.With)) and self.is_inside(node, use):
            return True  # the loop variable inside its loop, the ``as`` name inside its ``with``
        parent = self.ctx.parent(node)
        while parent is not None and not isinstance(parent, (cst.IndentedBlock, cst.Module, cst.SimpleStatementSuite)):
            parent = self.ctx.parent(parent)
        return parent is not None and self.is_inside(parent, use)

    def value_of(self, name: cst.Name) -> Optional[cst.BaseExpression]:
        """The expression ``name`` certainly holds (see ``reaching_binding``), if a plain assignment."""
        b = self.reaching_binding(name)
        return b.value if b is not None and b.kind == "assign" else None

    # -- storage aliases (GL201, GL202, GL203) ----------------------------------

    def is_tensor_data(self, node: cst.CSTNode) -> bool:
        """``x.data`` read from a tensor as far as the code shows (not ``torch.utils.data``,
        not ``dataset.data`` or ``self.data``)."""
        if not is_tensor_data_syntax(node):
            return False
        assert isinstance(node, cst.Attribute)
        receiver = node.value
        return not (isinstance(receiver, (cst.Name, cst.Attribute)) and self.ctx.is_imported(receiver))

    def storage_alias(self, expr: cst.BaseExpression, _depth: int = 0) -> Optional[StorageAlias]:
        """Whether ``expr`` is a ``.detach()`` or ``.data`` alias of another tensor: the
        call/attribute itself, a view of one (``.view()``, ``[0]``, ``.t()``...), or a
        variable certainly bound to one. Copies (``.clone()``) and conversions that may
        or may not copy (``.cpu()``, ``.to()``, ``.float()``) are not aliases."""
        if _depth > 8:
            return None
        if isinstance(expr, cst.Call):
            func = expr.func
            if not isinstance(func, cst.Attribute):
                return None
            attr = func.attr.value
            if attr == "detach" and not expr.args:
                return StorageAlias("detach", expr, func.value)
            if attr in VIEW_METHODS or attr in ("requires_grad_", "detach_") or is_inplace_method(attr):
                return self.storage_alias(func.value, _depth + 1)  # views, and in-place methods return self
            return None
        if isinstance(expr, cst.Attribute):
            if expr.attr.value == "data" and self.is_tensor_data(expr):
                return StorageAlias("data", expr, expr.value)
            if expr.attr.value in VIEW_ATTRIBUTES:
                return self.storage_alias(expr.value, _depth + 1)
            return None
        if isinstance(expr, cst.Subscript):
            return self.storage_alias(expr.value, _depth + 1) if is_basic_index(expr) else None
        if isinstance(expr, cst.Name):
            value = self.value_of(expr)
            if value is None:
                return None
            found = self.storage_alias(value, _depth + 1)
            return replace(found, through_name=True) if found is not None else None
        return None

    # -- autograd history (GL301) -------------------------------------------------

    def graph_source(self, expr: cst.BaseExpression, _depth: int = 0) -> Optional[cst.CSTNode]:
        """The forward or loss call that evidently gives ``expr`` autograd history, or None.

        Evidence: a call of a model or loss (``model(x)``, ``criterion(out, y)``,
        ``F.cross_entropy(...)``, a name bound to an ``nn`` module), and arithmetic,
        indexing, attributes (``outputs.loss``) and graph-keeping methods
        (``.mean()``, ``.cpu()``) of such or of a leaf that requires grad
        (``torch.ones(3, requires_grad=True)``, ``nn.Parameter(...)``), followed
        through variables. Nothing computed under no-grad counts, nor
        ``.item()``/``.detach()``/``.data``/``float()``, comparisons, ``argmax`` and
        other results without history. A leaf itself has no history.
        """
        if _depth > 10:
            return None
        if isinstance(expr, cst.Call):
            return self._call_graph_source(expr, _depth)
        if isinstance(expr, cst.Attribute):
            if expr.attr.value in NO_GRAPH_ATTRIBUTES:
                return None
            return self._operand_graph_source(expr.value, _depth + 1)
        if isinstance(expr, cst.Subscript):
            return self._operand_graph_source(expr.value, _depth + 1)
        if isinstance(expr, cst.BinaryOperation):
            return self._operand_graph_source(expr.left, _depth + 1) or self._operand_graph_source(
                expr.right, _depth + 1
            )
        if isinstance(expr, cst.UnaryOperation):
            if isinstance(expr.operator, cst.Not):
                return None
            return self._operand_graph_source(expr.expression, _depth + 1)
        if isinstance(expr, cst.Name):
            return self._name_graph_source(expr, _depth)
        return None

    def _operand_graph_source(self, expr: cst.BaseExpression, depth: int) -> Optional[cst.CSTNode]:
        """Like ``graph_source``, for an operand: a leaf that requires grad counts too."""
        return self.graph_source(expr, depth) or self.requires_grad_leaf(expr, depth)

    def requires_grad_leaf(self, expr: cst.BaseExpression, _depth: int = 0) -> Optional[cst.CSTNode]:
        """The call that made ``expr`` a leaf requiring grad (``torch.zeros(3, requires_grad=True)``,
        ``nn.Parameter(t)``, ``t.requires_grad_()``), directly or through a variable."""
        if _depth > 10:
            return None
        if isinstance(expr, cst.Name):
            value = self.value_of(expr)
            return self.requires_grad_leaf(value, _depth + 1) if value is not None else None
        if not isinstance(expr, cst.Call):
            return None
        func = expr.func
        names = self.ctx.qualnames_in(func, TORCH) if isinstance(func, (cst.Name, cst.Attribute)) else frozenset()
        if names & REQUIRES_GRAD_FACTORIES:
            flag = call_arg(expr, None, "requires_grad")
            return expr if flag is not None and bool_value(flag.value) is not False else None
        if names & {"torch.nn.Parameter", "torch.nn.parameter.Parameter"}:
            flag = call_arg(expr, 1, "requires_grad")
            return expr if flag is None or bool_value(flag.value) is not False else None
        if isinstance(func, cst.Attribute) and func.attr.value == "requires_grad_":
            flag = call_arg(expr, 0, "requires_grad")
            return expr if flag is None or bool_value(flag.value) is not False else None
        return None

    def _call_graph_source(self, call: cst.Call, depth: int) -> Optional[cst.CSTNode]:
        func = call.func
        if isinstance(func, cst.Name) and func.value in _PYTHON_VALUE_FUNCS and not self.ctx.is_imported(func):
            return None
        # Every name asked about below is torch's.
        names = self.ctx.qualnames_in(func, TORCH) if isinstance(func, (cst.Name, cst.Attribute)) else frozenset()
        if names & (TENSOR_FACTORIES | VARIABLE) or self.carries_no_graph(call, self.enclosing_scope(call)):
            return None
        if self.grad_disabled(call) is True:
            return None
        if names & _LOSS_FUNCTIONS:
            return call
        if any(n.startswith("torch.") for n in names):  # torch.mean(loss), torch.stack(outs), F.relu(h)
            return self._args_graph_source(call, depth)
        if isinstance(func, cst.Attribute):
            if func.attr.value in NO_GRAPH_METHODS:
                return None
            if self.ctx.is_imported(func.value):
                return None  # a function of some other module: unknown
            # A method keeps its receiver's history (loss.mean(), out.cpu(), w.pow(2));
            # else the receiver may be a model (self.model(x) is an attribute call too).
            found = self._operand_graph_source(func.value, depth + 1)
            if found is not None:
                return found
        local = self._local_function(call)
        if local is not None:  # a function of this file: what it returns decides
            return call if self._returns_history(local, depth) else None
        if _looks_forward(last_name(func)):
            return call
        if isinstance(func, (cst.Name, cst.Attribute)) and self.is_module(func):
            return call
        if isinstance(func, cst.Attribute) and func.attr.value not in _MODULE_API and _looks_forward(last_name(func.value)):
            return call  # ``model.fc(x)``, ``self.model.encode(x)``: a submodule or method of a model
        return None

    def _local_function(self, call: cst.Call) -> Optional[cst.FunctionDef]:
        """The function of this file that ``call`` calls: ``f(...)`` for a ``def f`` of the
        same or the module scope, ``self.f(...)`` for a method of the enclosing class."""
        func = call.func
        if isinstance(func, cst.Name):
            for scope in (self.enclosing_scope(call), self.ctx.module):
                binds = self.bindings(scope).get(func.value)
                if binds:
                    defs = [b.node for b in binds if isinstance(b.node, cst.FunctionDef)]
                    return defs[0] if len(defs) == len(binds) == 1 else None  # type: ignore[return-value]
            return None
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
            cur = self.ctx.parent(call)
            while cur is not None and not isinstance(cur, cst.ClassDef):
                cur = self.ctx.parent(cur)
            if cur is not None:
                for stmt in cur.body.body:
                    if isinstance(stmt, cst.FunctionDef) and stmt.name.value == func.attr.value:
                        return stmt
        return None

    def _returns_history(self, func: cst.FunctionDef, depth: int) -> bool:
        if id(func) in self._returns_checked:
            return False  # recursion
        self._returns_checked.add(id(func))
        try:
            for node in walk(func):
                if isinstance(node, cst.Return) and node.value is not None:
                    value = node.value
                    values = [e.value for e in value.elements] if isinstance(value, cst.Tuple) else [value]
                    if any(self.graph_source(v, depth + 1) is not None for v in values):
                        return True
            return False
        finally:
            self._returns_checked.discard(id(func))

    def _args_graph_source(self, call: cst.Call, depth: int) -> Optional[cst.CSTNode]:
        for arg in call.args:
            values = [el.value for el in arg.value.elements] if isinstance(arg.value, (cst.List, cst.Tuple)) else [arg.value]
            for value in values:
                found = self._operand_graph_source(value, depth + 1)
                if found is not None:
                    return found
        return None

    def _name_graph_source(self, name: cst.Name, depth: int) -> Optional[cst.CSTNode]:
        # Memoised per use, with a cycle guard: ``h = h + layer(h)`` in a loop refers to itself.
        key = id(name)
        if key in self._graph_by_name:
            return self._graph_by_name[key]
        self._graph_by_name[key] = None
        found = self._resolve_name_graph_source(name, depth)
        if depth <= 2:
            self._graph_by_name[key] = found
        else:  # may have been cut short by the depth limit: do not remember it
            del self._graph_by_name[key]
        return found

    def _resolve_name_graph_source(self, name: cst.Name, depth: int) -> Optional[cst.CSTNode]:
        b = self.reaching_binding(name)
        candidates = [b] if b is not None else self.bindings(self.enclosing_scope(name)).get(name.value, [])
        found: Optional[cst.CSTNode] = None
        for cand in candidates:
            if isinstance(cand.node, cst.AugAssign):
                continue  # ``loss += reg``: the same tensor, with more history
            if cand.kind not in ("assign", "unpack") or cand.value is None:
                return None
            if cand.kind == "unpack" and not isinstance(cand.value, cst.Call):
                return None
            src = self.graph_source(cand.value, depth + 1)
            if src is None:
                return None
            found = found or src
        return found

    # -- nn.Module evidence (GL302, GL303) ----------------------------------------

    def is_module(self, expr: cst.BaseExpression, _depth: int = 0) -> bool:
        """Whether ``expr`` is evidently an ``nn.Module``: built by an ``nn.*`` constructor,
        a torchvision/timm/transformers/``torch.hub`` model factory, a class of this file
        derived from ``nn.Module``, ``copy.deepcopy``/``torch.compile`` of a module, ``.to()``/``.eval()``...
        of one; a variable bound to one, a loop variable over ``.children()``/``.modules()``,
        a parameter annotated ``nn.Module``; ``self.<attr>`` of an ``nn.Module`` subclass
        (or ``model.<attr>`` of an instance of one) assigned a module."""
        if _depth > 8:
            return False
        if isinstance(expr, cst.Call):
            return self._module_call(expr, _depth)
        if isinstance(expr, cst.Name):
            return self._module_name(expr, _depth)
        if isinstance(expr, cst.Attribute):
            cls = self._instance_class(expr.value, _depth)
            return cls is not None and self._class_attr_is_module(cls, expr.attr.value, _depth)
        return False

    def _module_call(self, call: cst.Call, depth: int) -> bool:
        func = call.func
        if isinstance(func, (cst.Name, cst.Attribute)):
            for q in self.ctx.qualnames_in(func, _MODEL_PACKAGES):
                if self._is_module_factory(q):
                    return True
            if self.module_class(func) is not None:
                return True
            if self.ctx.refers_to(func, _MODULE_COPIES) and call.args:
                return self.is_module(call.args[0].value, depth + 1)
        if isinstance(func, cst.Attribute) and func.attr.value in _MODULE_SELF_METHODS:
            return self.is_module(func.value, depth + 1)
        return False

    @staticmethod
    def _is_module_factory(q: str) -> bool:
        parts = q.split(".")
        last = parts[-1]
        if q.startswith("torch.nn.") and len(parts) >= 3:
            inner = parts[2:-1]
            return last[:1].isupper() and last not in _NN_NOT_MODULES and not (
                {"functional", "init", "utils", "parameter"} & set(inner)
            )
        if q.startswith("torchvision.models."):
            return last not in _TORCHVISION_NOT_MODELS and not any(p.endswith("Weights") for p in parts)
        if q in ("timm.create_model", "timm.models.create_model", "torch.hub.load"):
            return True
        if q.startswith("transformers.") and len(parts) >= 2:
            cls = parts[-2] if last in ("from_pretrained", "from_config") else last
            return cls[:1].isupper() and ("Model" in cls or "For" in cls) and not _TRANSFORMERS_NOT_MODELS.search(cls)
        return False

    def _module_name(self, name: cst.Name, depth: int) -> bool:
        scope = self.enclosing_scope(name)
        b = self.reaching_binding(name)
        if b is not None:
            candidates = [b]
        else:
            candidates = self.bindings(scope).get(name.value, [])
            if not candidates and scope is not self.ctx.module:
                candidates = self.bindings(self.ctx.module).get(name.value, [])  # a module-level global
        if not candidates:
            return False
        return all(self._module_binding(c, name.value, depth) for c in candidates)

    def _module_binding(self, b: Binding, name: str, depth: int) -> bool:
        if b.kind == "assign" and b.value is not None:
            return self.is_module(b.value, depth + 1)
        if b.kind == "param" and isinstance(b.node, cst.Param) and b.node.annotation is not None:
            ann = b.node.annotation.annotation
            if isinstance(ann, (cst.Name, cst.Attribute)):
                return self.ctx.refers_to(ann, NN_MODULE) or self.module_class(ann) is not None
            return False
        if b.kind == "for" and isinstance(b.node, cst.For):
            return self._module_loop_variable(b.node, name, depth)
        return False

    def _module_loop_variable(self, loop: cst.For, name: str, depth: int) -> bool:
        """``for m in model.children()``, ``for _, m in model.named_modules()``,
        ``for i, m in enumerate(model.modules())``."""
        it, target = loop.iter, loop.target
        while True:  # list(model.children())[-2:], enumerate(...), reversed(...)
            if isinstance(it, cst.Subscript):
                it = it.value
            elif isinstance(it, cst.Call) and isinstance(it.func, cst.Name) and it.args and it.func.value in (
                "enumerate", "list", "tuple", "reversed"
            ):
                if it.func.value == "enumerate":
                    if not (isinstance(target, cst.Tuple) and len(target.elements) == 2):
                        return False
                    target = target.elements[1].value
                it = it.args[0].value
            else:
                break
        if not (isinstance(it, cst.Call) and isinstance(it.func, cst.Attribute)):
            return False
        method = it.func.attr.value
        if method in ("children", "modules"):
            return isinstance(target, cst.Name) and target.value == name
        if method in ("named_children", "named_modules"):
            return (
                isinstance(target, cst.Tuple)
                and len(target.elements) == 2
                and isinstance(target.elements[1].value, cst.Name)
                and target.elements[1].value.value == name
            )
        return False

    def module_class(self, ref: cst.BaseExpression) -> Optional[cst.ClassDef]:
        """The class of this file, derived from ``nn.Module`` (directly or through other
        classes of the file), that ``ref`` names."""
        if not isinstance(ref, cst.Name):
            return None
        classes = self._module_classes()
        cls = classes.get(ref.value)
        if cls is None:
            return None
        binds = self.bindings(self.ctx.module).get(ref.value, [])
        return cls if all(b.node is cls for b in binds) else None

    def _module_classes(self) -> Dict[str, cst.ClassDef]:
        if self._module_class_cache is None:
            defs = {
                stmt.name.value: stmt for stmt in self.ctx.module.body if isinstance(stmt, cst.ClassDef)
            }
            found: Dict[str, cst.ClassDef] = {}
            changed = True
            while changed:
                changed = False
                for name, cls in defs.items():
                    if name in found:
                        continue
                    for base in cls.bases:
                        value = base.value
                        if not isinstance(value, (cst.Name, cst.Attribute)) or base.keyword is not None:
                            continue
                        if self.ctx.refers_to(value, NN_MODULE) or (
                            isinstance(value, cst.Name) and value.value in found
                        ):
                            found[name] = cls
                            changed = True
                            break
            self._module_class_cache = found
        return self._module_class_cache

    def _instance_class(self, expr: cst.BaseExpression, depth: int) -> Optional[cst.ClassDef]:
        """The module class of this file that ``expr`` (``self``, or a variable bound to
        ``Net(...)``) is an instance of."""
        if not isinstance(expr, cst.Name):
            return None
        if expr.value == "self":
            cur = self.ctx.parent(expr)
            func = None
            while cur is not None:
                if isinstance(cur, cst.FunctionDef) and func is None:
                    func = cur
                elif isinstance(cur, cst.ClassDef):
                    break
                cur = self.ctx.parent(cur)
            if cur is None or func is None or self.ctx.parent(self.ctx.parent(func)) is not cur:
                return None
            return cur if cur in self._module_classes().values() else None
        value = self.value_of(expr)
        if isinstance(value, cst.Call):
            while isinstance(value.func, cst.Attribute) and value.func.attr.value in _MODULE_SELF_METHODS:
                inner = value.func.value
                if not isinstance(inner, cst.Call):
                    return None
                value = inner
            return self.module_class(value.func)
        return None

    def _class_attr_is_module(self, cls: cst.ClassDef, attr: str, depth: int) -> bool:
        """Whether every ``self.<attr> = ...`` in ``cls``'s methods assigns a module."""
        values = []
        for node in walk(cls.body, into_functions=True):
            if isinstance(node, cst.Assign):
                for t in node.targets:
                    tgt = t.target
                    if (
                        isinstance(tgt, cst.Attribute)
                        and tgt.attr.value == attr
                        and isinstance(tgt.value, cst.Name)
                        and tgt.value.value == "self"
                    ):
                        values.append(node.value)
        return bool(values) and all(self.is_module(v, depth + 1) for v in values)


def walk(node: cst.CSTNode, into_functions: bool = False) -> Iterator[cst.CSTNode]:
    """Every node under ``node`` (itself included) in source order. Nested functions,
    lambdas and classes are yielded but not entered, unless ``into_functions``."""
    return _walk(node, into_functions, lambda cur: tuple(reversed(children(cur))))


# Exact types, not isinstance(): CSTNode is an ABC, whose isinstance() costs a
# Python-level call, and these walks test every node of a file.
_NEW_SCOPES = frozenset({cst.FunctionDef, cst.Lambda, cst.ClassDef})
_BINDING_NODES = frozenset(
    {cst.Assign, cst.AnnAssign, cst.For, cst.CompFor, cst.AugAssign, cst.WithItem, cst.NamedExpr}
    | {cst.FunctionDef, cst.ClassDef, cst.Import, cst.ImportFrom}
)


def _walk(
    node: cst.CSTNode, into_functions: bool, reversed_children: Callable[[cst.CSTNode], Sequence[cst.CSTNode]]
) -> Iterator[cst.CSTNode]:
    stack = [node]
    while stack:
        cur = stack.pop()
        yield cur
        if cur is not node and not into_functions and type(cur) in _NEW_SCOPES:
            continue
        stack.extend(reversed_children(cur))


def _collect_bindings(scope: Scope) -> Dict[str, List[Binding]]:
    out: Dict[str, List[Binding]] = {}

    def add(name: str, binding: Binding) -> None:
        out.setdefault(name, []).append(binding)

    if isinstance(scope, (cst.FunctionDef, cst.Lambda)):
        params = scope.params
        for p in (*params.posonly_params, *params.params, *params.kwonly_params):
            add(p.name.value, Binding("param", node=p))
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                add(star.name.value, Binding("param", node=star))
        body: cst.CSTNode = scope.body
    else:
        body = scope
    for node in walk(body):
        if type(node) not in _BINDING_NODES:
            continue
        if isinstance(node, cst.Assign):
            for t in node.targets:
                tgt = t.target
                if isinstance(tgt, cst.Name):
                    add(tgt.value, Binding("assign", node.value, node))
                elif isinstance(tgt, (cst.Tuple, cst.List)):
                    values = node.value.elements if isinstance(node.value, (cst.Tuple, cst.List)) else None
                    if values is not None and len(values) == len(tgt.elements) and not any(
                        isinstance(e, cst.StarredElement) for e in (*values, *tgt.elements)
                    ):
                        for el, val in zip(tgt.elements, values):
                            if isinstance(el.value, cst.Name):
                                add(el.value.value, Binding("assign", val.value, node))
                            else:
                                for n in target_names(el.value):
                                    add(n.value, Binding("other", node=node))
                    else:
                        for n in target_names(tgt):
                            add(n.value, Binding("unpack", node.value, node))
        elif isinstance(node, cst.AnnAssign) and isinstance(node.target, cst.Name):
            add(node.target.value, Binding("assign", node.value, node) if node.value else Binding("other", node=node))
        elif isinstance(node, (cst.For, cst.CompFor)):
            for n in target_names(node.target):
                add(n.value, Binding("for", node.iter, node))
        elif isinstance(node, cst.AugAssign) and isinstance(node.target, cst.Name):
            add(node.target.value, Binding("other", node=node))
        elif isinstance(node, cst.WithItem) and node.asname is not None:
            for n in target_names(node.asname.name):
                add(n.value, Binding("other", node=node))
        elif isinstance(node, cst.NamedExpr) and isinstance(node.target, cst.Name):
            add(node.target.value, Binding("assign", node.value, node))
        elif isinstance(node, (cst.FunctionDef, cst.ClassDef)) and node is not scope:
            add(node.name.value, Binding("other", node=node))
        elif isinstance(node, (cst.Import, cst.ImportFrom)) and not isinstance(node.names, cst.ImportStar):
            for alias in node.names:
                if alias.asname is not None:
                    for n in target_names(alias.asname.name):
                        add(n.value, Binding("other", node=node))
                else:
                    top = alias.name
                    while isinstance(top, cst.Attribute):
                        top = top.value
                    if isinstance(top, cst.Name):
                        add(top.value, Binding("other", node=node))
    return out
