"""How far the semantic model follows one question before it answers "unknown".

The model's concepts ask each other: a value's kind asks whether a call runs
a forward, which asks what class the receiver is an instance of, which asks
what a name is bound to, which asks a value's kind again. A question can so
come back to itself through other concepts, and real code has long chains of
assignments, helpers and base classes. Two things keep every question finite:

- a cycle guard where a question is remembered (``kinds.Kinds.value``,
  ``graph._memo_shallow``): a question that reaches itself gets "unknown";
- the bounds below: each recursive question carries a depth, counted in the
  steps named here, and gives up past its bound with the answer an unknown
  premise gets (no proof, so no finding in the default tier).

They are kept in this one table so that the reach and the cost of the model
are read and changed in one place; ``tests/semantic/test_bounds.py`` fails
when a depth in ``gradlint/semantic`` or ``gradlint/rules`` is compared with
anything else, and runs inputs that reach every bound (long chains, cycles
through helpers, bases and star imports) to show that each ends.
"""

from __future__ import annotations

# -- steps back from an expression: through its operands (attribute, subscript,
#    operator, call argument) and the bindings that reach a name

# Storage aliases, graph-free values, library layers and trainable origins,
# module evidence, values without graph and batches, forward outputs held in a
# name or passed to a parameter.
EXPRESSION_STEPS = 8
# A graph's source, a leaf that requires grad, a part of a tuple output, and a
# proven tensor: each operand is a step of its own there.
GRAPH_STEPS = 10
# The abstract value of an expression (``kinds.Value``).
KIND_STEPS = 12
# Bindings followed to a loop iterable that yields batches and to the loss
# module a name holds.
BINDING_STEPS = 4
# The target of a store followed to where it leads (``escape``).
STORE_STEPS = 4
# Names followed to the one binding that reaches them: a name's aliases before
# a store, a loss built unreduced, a value computed without grad before a backward.
NAME_STEPS = 3
# Names an output is followed through to what becomes of it (a self-check's
# outputs: ``out = model(x); y = out; z = y; ...``), in all.
OUTPUT_NAMES = 100
# Answers found no deeper than this are remembered; a deeper one may have been
# cut short by a bound and is asked again where it is asked shallower.
REMEMBERED_STEPS = 2

# -- functions of the file followed from a call

# Into a helper or method: a forward through a project method, an eval switch
# or a train() inside a helper, a forwarding wrapper, an argument forwarded to
# a callee, the classes a value may be an instance of.
CALL_LEVELS = 3
# Through what functions return (a factory returning a module) and whether a
# call may switch gradients on again.
RETURN_LEVELS = 4
# Parameters one question "do the callers pass a module for this parameter?" may
# ask about in all, following arguments that are parameters of their own callers.
CALLER_SEARCH = 200

# -- classes followed through their bases

# Within one file: whether a class derives from given bases, or surely is no
# working ``nn.Module``.
BASE_LEVELS = 5
# A method looked up in the bases of a class; a ``multiprocessing.Process``
# subclass.
SEARCH_BASE_LEVELS = 4
# Across the files of the project index.
PROJECT_BASE_LEVELS = 8

# -- modules and imports

# Dotted prefixes tried for the name a file is imported as, and star imports
# followed from module to module.
MODULE_NAME_PARTS = 6
STAR_IMPORT_LEVELS = 6
# Directories above a file's project root where a module it imports may live
# (``tools/train.py`` importing ``yolov6.core.engine`` of the repository's top).
SCRIPT_ROOT_LEVELS = 2
# Imports followed from a file a run of few files checks to the files the
# index of that run holds besides it (``semantic.neighbours``).
IMPORT_STEPS = 3
# Callers followed, and the names an ``except`` clause's classes are bound to,
# when asking whether a raised error may be caught (past it: it may be).
HANDLER_LEVELS = 6

# -- callers

# A self-check's made-up inputs: a parameter bound by the only call of the file,
# followed through this many further callers (an example's ``main(inputs)`` handing
# the ``__main__`` block's random input on to ``export_and_compare(inputs)``).
SELF_CHECK_CALLER_LEVELS = 2
# The callers of a function followed up to the script's entry.
ENTRY_CALLER_LEVELS = 3
# Rules that follow a function's callers or a method's calls of its class's
# other methods (a unit test's helpers, what an evaluation returns, inference
# code in another file).
RULE_FOLLOW_LEVELS = 2
