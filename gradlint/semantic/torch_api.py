"""What the semantic model knows about torch and its ecosystem, as data.

Qualified names of grad-mode guards and autograd entry points, tensor
factories, methods that make views, edit in place or return values without
autograd history, losses, model factories of torch, torchvision, timm and
Hugging Face. Nothing here runs code: the concept modules (``gradmode``,
``values``, ``modules``) read these tables.
"""

from __future__ import annotations

import re
from typing import Optional

NO_GRAD = frozenset({"torch.no_grad", "torch.autograd.no_grad", "torch.autograd.grad_mode.no_grad"})
INFERENCE_MODE = frozenset(
    {"torch.inference_mode", "torch.autograd.inference_mode", "torch.autograd.grad_mode.inference_mode"}
)
ENABLE_GRAD = frozenset({"torch.enable_grad", "torch.autograd.enable_grad", "torch.autograd.grad_mode.enable_grad"})
SET_GRAD_ENABLED = frozenset(
    {"torch.set_grad_enabled", "torch.autograd.set_grad_enabled", "torch.autograd.grad_mode.set_grad_enabled"}
)
VARIABLE = frozenset({"torch.autograd.Variable", "torch.autograd.variable.Variable"})
# The release that made ``Variable`` a no-op, ignored ``volatile`` and introduced 0-dim tensors.
TORCH_04 = (0, 4)
# Names that ``from M import *`` of these torch modules binds, of those the rules ask
# about (``torch.autograd.__all__``; ``torch.autograd.variable`` has no ``__all__``).
_AUTOGRAD_STAR = frozenset(
    "Variable Function backward grad no_grad enable_grad set_grad_enabled inference_mode".split()
)
STAR_EXPORTS = {"torch.autograd": _AUTOGRAD_STAR, "torch.autograd.variable": frozenset({"Variable"})}
AUTOGRAD_GRAD = frozenset({"torch.autograd.grad", "torch.autograd.backward"})
DATALOADER = frozenset({"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"})
# Contexts that measure what the code inside runs (operators, times, FLOPs): a
# forward inside one is run to be counted, and what is counted does not depend on a
# graph being recorded.
PROFILERS = frozenset(
    {
        "torch.profiler.profile",
        "torch.autograd.profiler.profile",
        "torch.autograd.profile",
        "torch.autograd.profiler.emit_nvtx",
        "torch.cuda.profiler.profile",
        "torch.utils.flop_counter.FlopCounterMode",
    }
)
GRAD_MODE_GUARDS = NO_GRAD | INFERENCE_MODE | ENABLE_GRAD | SET_GRAD_ENABLED
TORCH = frozenset({"torch"})  # for ``Names.qualnames_in``

TENSOR_FACTORY_NAMES = (
    "tensor as_tensor from_numpy zeros ones empty full rand randn randint randperm arange linspace "
    "logspace eye zeros_like ones_like empty_like full_like rand_like randn_like randint_like "
    "Tensor FloatTensor DoubleTensor HalfTensor BFloat16Tensor LongTensor IntTensor ShortTensor "
    "ByteTensor CharTensor BoolTensor"
).split()
TENSOR_FACTORIES = frozenset(f"torch.{n}" for n in TENSOR_FACTORY_NAMES) | frozenset(
    f"torch.cuda.{n}" for n in TENSOR_FACTORY_NAMES if n.endswith("Tensor") and n != "Tensor"
)
# Factories that accept ``requires_grad=`` (floating point results).
REQUIRES_GRAD_FACTORIES = frozenset(
    f"torch.{n}"
    for n in "tensor zeros ones empty full rand randn arange linspace logspace eye zeros_like ones_like "
    "empty_like full_like rand_like randn_like".split()
)
NO_GRAPH_CALLS = TENSOR_FACTORIES | VARIABLE
# Methods that return a tensor with no more graph than their receiver has (their
# arguments are devices, dtypes, shapes or numbers, never other tensors).
CONVERSIONS = frozenset(
    "cuda cpu to float double half bfloat16 long int short byte bool type contiguous pin_memory "
    "view reshape unsqueeze squeeze permute transpose t expand flatten clone "
    "fill_ zero_ normal_ uniform_ random_ bernoulli_ exponential_ resize_".split()
)

OPTIMIZER_NAME = re.compile(r"optim|(^|_)opt(_|$)|^opt[gd]$")
LOADER_NAME = re.compile(r"loader", re.IGNORECASE)

# -- constants of the storage-alias, graph and module facts ----------------------

# Methods whose name ends in ``_`` but that change no element of the tensor.
NOT_INPLACE = frozenset({"requires_grad_", "detach_", "share_memory_", "retain_grad_", "record_stream_"})
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
NOT_TENSOR_DATA = re.compile(
    "^(%s)$|(%s)$" % ("|".join(NOT_TENSOR_DATA_NAMES), "|".join(NOT_TENSOR_DATA_SUFFIXES)),
    re.IGNORECASE,
)
# Methods whose result holds no autograd history, whatever their receiver holds.
NO_GRAPH_METHODS = frozenset(
    "item tolist numpy detach argmax argmin argsort eq ne lt le gt ge equal isnan isinf isfinite "
    "size dim numel nelement long int short bool byte char element_size data_ptr nonzero "
    "count_nonzero all any sign_ stride is_contiguous allclose multinomial".split()
)
# The ``torch.*`` function forms of those that return a tensor (``torch.multinomial(p, 1)``,
# ``torch.argmax(x)``): integer or boolean results, which never carry a graph.
NO_GRAPH_FUNCTIONS = NO_GRAPH_METHODS & frozenset(
    "multinomial argmax argmin argsort eq ne lt le gt ge isnan isinf isfinite nonzero count_nonzero".split()
)
NO_GRAPH_ATTRIBUTES = frozenset({"data", "grad", "shape", "dtype", "device", "requires_grad", "is_leaf", "ndim"})
# Calls of these names (builtins) return plain Python values.
PYTHON_VALUE_FUNCS = frozenset({"float", "int", "len", "round", "bool", "str", "repr", "format", "isinstance"})
# Callees that run a forward pass or compute a loss, judged by name (``model(x)``,
# ``criterion(out, y)``, ``self.loss_fn(...)``, ``netD(fake)``).
FORWARD_NAME = re.compile(
    r"model|net|loss|criterion|crit$|^crit|forward|encoder|decoder|generator|discriminator|"
    r"policy|critic|actor|classifier|backbone|head$|objective|^q_?net|^module$|^(ema|teacher|student)|"
    r"rnn|lstm|gru|mlp|transformer|attention|attn$",
    re.IGNORECASE,
)
FACTORY_NAME = re.compile(
    r"(get|build|create|make|load|init|initiali[sz]e|setup|new|save|register|wrap|freeze|unfreeze|copy|"
    r"convert|prepare|export|count|print|log|show|plot|summar(y|ize))(_|$)",
    re.IGNORECASE,
)
LOSS_FUNCTIONS = frozenset(
    f"torch.nn.functional.{n}"
    for n in "cross_entropy nll_loss mse_loss l1_loss smooth_l1_loss huber_loss binary_cross_entropy "
    "binary_cross_entropy_with_logits kl_div cosine_embedding_loss margin_ranking_loss "
    "triplet_margin_loss ctc_loss poisson_nll_loss gaussian_nll_loss hinge_embedding_loss "
    "multilabel_margin_loss multilabel_soft_margin_loss multi_margin_loss soft_margin_loss".split()
)
NN_MODULE = frozenset({"torch.nn.Module", "torch.nn.modules.module.Module"})
# Where ``_is_module_factory`` finds modules, and what copies one.
MODEL_PACKAGES = frozenset({"torch", "torchvision", "timm", "transformers"})
MODULE_COPIES = frozenset({"copy.deepcopy", "copy.copy", "torch.compile"})
# Calls that return the module they are given, or a copy of it, in its mode or in eval
# mode: ``model = quantize_dynamic(model, {nn.Linear})`` (which calls ``eval()`` itself).
MODE_KEEPING_COPIES = MODULE_COPIES | frozenset(
    {"torch.quantization.quantize_dynamic", "torch.ao.quantization.quantize_dynamic", "torch.ao.quantization.quantize.quantize_dynamic"}
)
# ``torch.nn.utils`` functions that reparametrise the module they are given and return it.
MODULE_WRAPPERS = frozenset(
    {
        "torch.nn.utils.weight_norm",
        "torch.nn.utils.spectral_norm",
        "torch.nn.utils.weight_norm.weight_norm",
        "torch.nn.utils.spectral_norm.spectral_norm",
        "torch.nn.utils.parametrizations.weight_norm",
        "torch.nn.utils.parametrizations.spectral_norm",
        "torch.nn.utils.parametrizations.orthogonal",
    }
)
# ``torch.nn`` names that are not modules although they are capitalised.
NN_NOT_MODULES = frozenset({"Parameter", "UninitializedParameter", "UninitializedBuffer", "Buffer"})
TORCHVISION_NOT_MODELS = frozenset({"get_weight", "get_model_weights", "list_models", "get_model_builder"})
TRANSFORMERS_NOT_MODELS = re.compile(r"Tokenizer|Config|Processor|FeatureExtractor|Pipeline|Trainer|Arguments")
# ``nn.Module`` (and Hugging Face model) methods that do not run a forward pass with autograd.
MODULE_API = frozenset(
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
MODULE_SELF_METHODS = frozenset(
    "to cuda cpu eval train half float double bfloat16 requires_grad_ apply to_empty share_memory".split()
)

# -- inference rules (GL1xx) --
# Module methods that return the module itself, so ``model.to(dev).eval()`` is ``model``.
MODULE_CHAIN = frozenset("to cuda cpu half float double bfloat16 type eval train requires_grad_ share_memory".split())
LIGHTNING_EVAL_HOOKS = frozenset(
    {"validation_step", "test_step", "predict_step", "validation_epoch_end", "test_epoch_end", "predict_epoch_end"}
)
# Words that mark a function or a loader as dedicated to inference, as whole
# ``_``-separated parts of the name (``evaluate``, ``run_inference``, ``val_loader``).
INFERENCE_WORD = re.compile(
    r"(^|_)(eval|evaluate|evaluation|validate|validation|val|valid|test|testing|predict|prediction|"
    r"infer|inference|generate|generation|sample|sampling|decode|beam_search|greedy_search)(_|$|\d)"
)
# Names under which models are usually kept (``model``, ``self.net``, ``encoder``).
MODEL_NAME = re.compile(
    r"(^|_)(model|models|net|network|encoder|decoder|backbone|classifier|generator|discriminator|"
    r"critic|actor|policy|teacher|student|resnet\d*|vgg\d*|bert|gpt\d*|transformer|unet|vae|cnn|rnn|lstm|mlp|"
    r"detector|segmenter|predictor|regressor)s?(_|$|\d)|^(g|d|net[gd]|model\d*|net\d*)$",
    re.IGNORECASE,
)

# Methods of known libraries whose names hold a model word but that return a
# module or data instead of running one: accelerate's ``unwrap_model`` and
# ``prepare_model`` (the module from under, or into, its wrapper), pydantic's
# ``BaseModel`` API (``model_dump``, ``model_validate``: a request object's data),
# and getters, builders and savers of a model (``get_model``, ``load_model``,
# ``generate_model`` of a model archiver's manifest).
NOT_FORWARD_METHODS = frozenset(
    "unwrap_model prepare_model model_dump model_dump_json model_validate model_validate_json "
    "model_validate_strings model_copy model_construct model_json_schema model_rebuild model_post_init "
    "model_parametrized_name model_fields model_computed_fields model_config".split()
)
NOT_FORWARD_NAME = re.compile(
    r"^_*(get|load|build|create|make|init|initialize|setup|set_up|prepare|wrap|unwrap|save|export|register|"
    r"restore|generate|instantiate|construct|download|convert|copy|clone|freeze|unfreeze|print|log|count|"
    r"summarize|describe)_(\w+_)?(model|models|net|network|encoder|decoder|backbone|classifier|generator|"
    r"discriminator|teacher|student|policy|critic|actor)s?$"
)


def not_forward_method(name: Optional[str]) -> bool:
    """Whether a callee named ``name`` is known to hand back a module or data
    without running it (``NOT_FORWARD_METHODS``, ``NOT_FORWARD_NAME``): no forward,
    whatever model word its name holds."""
    return bool(name) and (name in NOT_FORWARD_METHODS or bool(NOT_FORWARD_NAME.match(name)))  # type: ignore[arg-type]


# -- abstract values (``values``) ------------------------------------------------
# Reductions: a 0-dim result without ``dim``/``axis``, with the receiver's history.
REDUCTIONS = frozenset("sum mean norm std var prod max min amax amin median logsumexp dist nansum nanmean all any".split())
# Reductions that give a 0-dim tensor when called with no argument at all.
ZERO_DIM_REDUCTIONS = frozenset({"sum", "mean", "norm", "std", "var", "prod", "max", "min", "amax", "amin", "logsumexp"})
# Tensor methods that return a Python value or a NumPy array, never a tensor.
PYTHON_VALUE_METHODS = frozenset({"item", "tolist", "numpy", "size", "dim", "numel", "nelement", "element_size", "data_ptr", "stride", "is_contiguous"})
# Methods that return their receiver's data on another device/dtype, history kept.
SAME_GRAPH_METHODS = frozenset("cuda cpu to float double half bfloat16 type contiguous pin_memory clone".split())
# Elementwise methods: the result has the receiver's shape (and history).
ELEMENTWISE_METHODS = frozenset(
    "exp log log1p log2 log10 sqrt rsqrt abs neg sigmoid tanh relu pow clamp clamp_min clamp_max "
    "sin cos reciprocal square exp2 expm1 floor ceil round trunc frac mul div add sub".split()
)
# Methods that give a tensor with at least one dimension whatever the receiver is
# (``x.view(-1)``, ``x.flatten()``): never 0-dim.
AT_LEAST_1D_METHODS = frozenset({"flatten", "ravel", "view", "reshape"})
# A callee named like a loss (``criterion(out, y)``, ``self.loss_fn(...)``): with the default
# reduction, what it returns is 0-dim.
LOSS_CALLEE_NAME = re.compile(r"^(criterion|crit|loss|loss_?fn|loss_?func|loss_?function)$|_(criterion|crit|loss)$", re.IGNORECASE)
# Not tensors: what these attributes of a tensor are.
NOT_TENSOR_ATTRIBUTES = frozenset({"shape", "dtype", "device", "requires_grad", "is_leaf", "ndim", "is_cuda", "layout", "names"})
OPTIMIZER_PREFIX = "torch.optim."
SCHEDULER_PREFIX = "torch.optim.lr_scheduler."
ARGPARSE = frozenset({"argparse.ArgumentParser"})
# Pillow's functions that make an image: pixels copied out of whatever they were given,
# never a tensor, so never a graph.
PIL_IMAGES = frozenset(
    "PIL.Image." + f for f in ("fromarray", "new", "open", "composite", "blend", "alpha_composite", "merge", "frombytes")
)
# Receivers that hold configuration, not tensors: their attributes and ``.get(...)`` are settings.
CONFIG_NAME = re.compile(r"^(cfg|config|conf|configs|args|opt|opts|options|hparams|hp|params|settings|flags|FLAGS|ns|namespace|kwargs)$|_(cfg|config|args)$")
AS_TENSOR = frozenset({"torch.as_tensor", "torch.asarray"})
# In-place methods that change a tensor's shape (the others keep it: an in-place
# result must fit its receiver).
RESHAPING_METHODS = frozenset(
    "unsqueeze_ squeeze_ resize_ resize_as_ t_ transpose_ swapdims_ swapaxes_ as_strided_ set_ "
    "unflatten_ flatten_ view_ reshape_".split()
)
FROM_NUMPY = frozenset({"torch.from_numpy"})


def is_nn_module_class(q: str) -> bool:
    """``torch.nn.Linear``, ``torch.nn.modules.conv.Conv2d``: a class of ``torch.nn``
    that is an ``nn.Module`` (every capitalised name there but the parameter and
    buffer classes, outside ``functional``/``init``/``utils``/``parameter``)."""
    parts = q.split(".")
    if not (q.startswith("torch.nn.") and len(parts) >= 3):
        return False
    last, inner = parts[-1], parts[2:-1]
    return last[:1].isupper() and last not in NN_NOT_MODULES and not ({"functional", "init", "utils", "parameter"} & set(inner))


def is_module_factory(q: str) -> bool:
    """Whether calling ``q`` returns an ``nn.Module``: a ``torch.nn`` class, a
    torchvision or transformers model, ``timm.create_model``, ``torch.hub.load``,
    ``torch.jit.load``."""
    parts = q.split(".")
    last = parts[-1]
    if q.startswith("torch.nn."):
        return is_nn_module_class(q)
    if q.startswith("torchvision.models."):
        return last not in TORCHVISION_NOT_MODELS and not any(p.endswith("Weights") for p in parts)
    if q in ("timm.create_model", "timm.models.create_model", "torch.hub.load", "torch.jit.load"):
        return True
    if q.startswith("transformers.") and len(parts) >= 2:
        cls = parts[-2] if last in ("from_pretrained", "from_config") else last
        return cls[:1].isupper() and ("Model" in cls or "For" in cls) and not TRANSFORMERS_NOT_MODELS.search(cls)
    return False


# -- submodules of a loaded transformers model --
# What ``m.a.b(...)`` may call on a transformers model that is not a submodule's
# forward: ``nn.Module``'s and ``PreTrainedModel``'s own methods, and methods of a
# tensor (a parameter or buffer reached by attributes: ``m.lm_head.weight.t()``).
PRETRAINED_NOT_FORWARDS = frozenset(
    (
        "add_module apply bfloat16 buffers children compile cpu cuda double eval extra_repr float get_buffer "
        "get_extra_state get_parameter get_submodule half ipu load_state_dict modules mtia named_buffers "
        "named_children named_modules named_parameters parameters register_backward_hook register_buffer "
        "register_forward_hook register_forward_pre_hook register_full_backward_hook "
        "register_full_backward_pre_hook register_load_state_dict_post_hook register_load_state_dict_pre_hook "
        "register_module register_parameter register_state_dict_post_hook register_state_dict_pre_hook "
        "requires_grad_ set_extra_state set_submodule share_memory state_dict to to_empty train type xpu zero_grad "
        # PreTrainedModel / GenerationMixin / adapters
        "generate sample greedy_search beam_search contrastive_search compute_transition_scores "
        "prepare_inputs_for_generation can_generate get_input_embeddings set_input_embeddings "
        "get_output_embeddings set_output_embeddings resize_token_embeddings get_encoder get_decoder "
        "save_pretrained push_to_hub from_pretrained from_config tie_weights post_init init_weights prune_heads "
        "num_parameters get_memory_footprint gradient_checkpointing_enable gradient_checkpointing_disable "
        "enable_input_require_grads disable_input_require_grads get_position_embeddings "
        "resize_position_embeddings get_extended_attention_mask invert_attention_mask get_head_mask "
        "floating_point_ops estimate_tokens dequantize add_adapter load_adapter set_adapter enable_adapters "
        "disable_adapters active_adapters merge_and_unload unload "
        # X-MOD's language switch; the adapters library's mixin on transformers models
        "set_default_language freeze_embeddings_and_language_adapters set_active_adapters delete_adapter "
        "save_adapter save_all_adapters train_adapter freeze_model add_classification_head delete_head "
        # tensor methods
        "t clone detach detach_ numpy item tolist size dim view view_as reshape expand expand_as repeat "
        "copy_ fill_ zero_ normal_ uniform_ add_ sub_ mul_ div_ clamp_ sum mean norm abs max min argmax "
        "transpose permute contiguous unsqueeze squeeze flatten chunk split index_select masked_fill "
        "new_zeros new_ones new_empty new_tensor numel data_ptr element_size storage untyped_storage"
    ).split()
)
# Attributes of a transformers model (remote code too) that hold no submodule.
PRETRAINED_NOT_SUBMODULES = frozenset(
    "config generation_config weight bias data grad device dtype hf_device_map name_or_path main_input_name "
    "base_model_prefix peft_config T mT tokenizer processor image_processor feature_extractor".split()
)

