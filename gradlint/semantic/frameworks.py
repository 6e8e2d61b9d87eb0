"""What training frameworks do around user code, as data.

``NO_GRAD_HOOKS`` names base classes (by qualified name, and by the class name
as a fallback for star imports and re-exports) and the methods of their
subclasses that the framework calls with gradients disabled; ``gradmode`` reads
it. ``FRAMEWORK_OBJECTS`` names the objects that user code drives a training
loop through (Lightning Fabric, Hugging Face Accelerate): the method that runs
backward on the tensor it is given, the methods that hand back the modules
they are given, set up for the framework; ``escape`` and ``modules`` read it.
Adding a framework means adding a row, not a code path.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import FrozenSet, Tuple


def _qualified(*names: str) -> FrozenSet[str]:
    return frozenset(names)


@dataclass(frozen=True)
class NoGradHooks:
    """Methods of subclasses of ``bases`` that ``framework`` runs under no_grad."""

    framework: str
    bases: FrozenSet[str]  # qualified names of the base classes
    # Class names matched on the end of a base's source text, for bases the imports
    # do not resolve (star imports, re-exports, project base classes such as
    # ``BaseLightningModule``).
    base_names: FrozenSet[str]
    methods: FrozenSet[str]
    prefixes: Tuple[str, ...] = ()

    def runs(self, method: str) -> bool:
        return method in self.methods or method.startswith(self.prefixes)


LIGHTNING_MODULE = _qualified(
    "pytorch_lightning.LightningModule",
    "pytorch_lightning.core.LightningModule",
    "pytorch_lightning.core.module.LightningModule",
    "pytorch_lightning.core.lightning.LightningModule",
    "lightning.LightningModule",
    "lightning.pytorch.LightningModule",
    "lightning.pytorch.core.LightningModule",
    "lightning.pytorch.core.module.LightningModule",
)
LIGHTNING_CALLBACK = _qualified(
    "pytorch_lightning.Callback",
    "pytorch_lightning.callbacks.Callback",
    "pytorch_lightning.callbacks.callback.Callback",
    "lightning.Callback",
    "lightning.pytorch.Callback",
    "lightning.pytorch.callbacks.Callback",
    "lightning.pytorch.callbacks.callback.Callback",
)
HF_PIPELINE = _qualified("transformers.Pipeline", "transformers.pipelines.Pipeline", "transformers.pipelines.base.Pipeline")
SB3_POLICY = _qualified("stable_baselines3.common.policies.BasePolicy")
HF_TRAINER = _qualified("transformers.Trainer", "transformers.trainer.Trainer", "transformers.Seq2SeqTrainer")

# The evaluation loops of Lightning (``Trainer.validate/test/predict`` and the
# validation inside ``fit``) run these under ``torch.no_grad()`` or
# ``torch.inference_mode()``.
_LIGHTNING_EVAL_STEPS = frozenset(
    {"validation_step", "test_step", "predict_step", "validation_epoch_end", "test_epoch_end", "predict_epoch_end"}
)
_EVAL_HOOK_PREFIXES = ("on_validation_", "on_test_", "on_predict_")

NO_GRAD_HOOKS: Tuple[NoGradHooks, ...] = (
    NoGradHooks("Lightning", LIGHTNING_MODULE, frozenset({"LightningModule"}), _LIGHTNING_EVAL_STEPS, _EVAL_HOOK_PREFIXES),
    # Callbacks' evaluation hooks run inside the same loops.
    NoGradHooks("Lightning", LIGHTNING_CALLBACK, frozenset(), frozenset(), _EVAL_HOOK_PREFIXES),
    # ``Pipeline.forward`` calls ``_forward`` inside its inference context (no_grad).
    NoGradHooks("Hugging Face", HF_PIPELINE, frozenset(), frozenset({"_forward"})),
    # ``Trainer.evaluate``/``predict`` call ``prediction_step``, whose loss and
    # logits are computed under ``torch.no_grad()``.
    NoGradHooks("Hugging Face", HF_TRAINER, frozenset(), frozenset({"prediction_step"})),
    # ``BasePolicy.predict`` calls ``_predict`` under ``th.no_grad()``.
    NoGradHooks("Stable-Baselines3", SB3_POLICY, frozenset({"BasePolicy"}), frozenset({"_predict"})),
)

# Methods of a Lightning module that run its forward (``module.test_step(batch, i)``):
# called by hand, outside the trainer's loops, they run with the caller's grad mode.
FORWARD_STEPS = frozenset({"training_step", "validation_step", "test_step", "predict_step"})

# Methods whose result is the training step's loss, with its graph, by the contract
# of the frameworks that call them: Lightning's ``training_step`` returns the loss
# (or a dict holding it) that the trainer differentiates; skorch's and mmcv's
# ``train_step`` return the step's loss (skorch and mmcv in a dict). A method of the
# same file is judged by what it returns instead.
LOSS_STEPS = frozenset({"training_step", "train_step"})

# Methods of library classes that return Python numbers, not tensors, keyed by the
# class's qualified name: pyro's ``SVI.step`` and ``SVI.evaluate_loss`` return the
# loss estimate as a float (the graph is differentiated and dropped inside).
NUMBER_METHODS = {
    "pyro.infer.SVI": frozenset({"step", "evaluate_loss"}),
    "pyro.infer.svi.SVI": frozenset({"step", "evaluate_loss"}),
}

# Methods that a framework calls once per batch, with gradients on: what they keep
# on ``self`` is kept once per step. Lightning's training loop calls
# ``training_step`` for every batch.
PER_BATCH_STEPS = (("Lightning", LIGHTNING_MODULE, frozenset({"LightningModule"}), frozenset({"training_step"})),)

@dataclass(frozen=True)
class FrameworkObject:
    """Instances of ``classes`` (a training loop's driver: ``fabric = L.Fabric()``)."""

    framework: str
    classes: FrozenSet[str]  # qualified names of the class
    # ``fabric.backward(loss)``: backward on the first argument, not on the object.
    backward: FrozenSet[str]
    # ``model, optimizer = fabric.setup(model, optimizer)``: each result is the
    # argument at the same position (a single argument: the result itself), a
    # module still a module.
    setup: FrozenSet[str]


FABRIC = _qualified(
    "lightning.Fabric",
    "lightning.fabric.Fabric",
    "lightning.fabric.fabric.Fabric",
    "lightning_fabric.Fabric",
    "lightning_fabric.fabric.Fabric",
)
ACCELERATOR = _qualified("accelerate.Accelerator", "accelerate.accelerator.Accelerator")

FRAMEWORK_OBJECTS: Tuple[FrameworkObject, ...] = (
    # ``fabric.autocast()`` is a precision context, not a grad mode: not a guard.
    FrameworkObject("Lightning Fabric", FABRIC, frozenset({"backward"}), frozenset({"setup", "setup_module"})),
    FrameworkObject("Hugging Face Accelerate", ACCELERATOR, frozenset({"backward"}), frozenset({"prepare", "prepare_model"})),
)
FRAMEWORK_CLASSES = frozenset().union(*(o.classes for o in FRAMEWORK_OBJECTS))

# ``self.manual_backward(loss)`` in a LightningModule (manual optimization): backward on the argument.
LIGHTNING_BACKWARD_METHODS = frozenset({"manual_backward"})

# Deep-learning frameworks other than PyTorch, by top-level package: their models
# (``paddle.nn.Layer``, ``keras.Model``, ``flax.linen.Module``, ``mindspore.nn.Cell``)
# have ``eval()``/``train()`` and are called like modules, but record no PyTorch graph,
# and ``torch.no_grad()`` does nothing for them.
OTHER_FRAMEWORK_PACKAGES = frozenset(
    {"paddle", "tensorflow", "keras", "tf_keras", "jax", "flax", "haiku", "equinox", "mindspore", "oneflow", "mxnet", "jittor", "megengine"}
)
# Base classes of those frameworks' models, by qualified-name prefix (a class of one of
# these packages is no ``torch.nn.Module``; ``oneflow.nn.Module`` mirrors its name).
OTHER_FRAMEWORK_BASE_PREFIXES = tuple(p + "." for p in sorted(OTHER_FRAMEWORK_PACKAGES))


def is_other_framework_class(qualname: str) -> bool:
    """Whether ``qualname`` names a class of a deep-learning framework other than PyTorch."""
    return qualname.startswith(OTHER_FRAMEWORK_BASE_PREFIXES)
