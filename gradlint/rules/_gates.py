"""Building blocks of the rules' prefilter gates (see ``Rule.gates``).

A gate is a regular expression that must match somewhere in a file for a rule
to be able to fire there; the engine does not parse a file for a rule whose
triggers or gates say it cannot fire. Gates are necessary conditions, so each
alternative must allow every spelling the rule accepts: whitespace and line
continuations inside brackets, parentheses around an expression, names bound
by ``import ... as``. They can afford to let through many files that have no
finding (comments and strings mention anything); they must never keep out one
that has. ``tests/test_prefilter.py`` checks that on every fixture and
catalog example.

Whatever a pattern does not mention cannot be told apart: comments between
two tokens of one construct (``x.data  # ...`` then ``.add_(1)`` on the next
line, inside parentheses) are not allowed for, as the triggers themselves
(``.data``, ``.detach()``) already assume their tokens are written together.
"""

from __future__ import annotations

import re
from typing import Iterable, Tuple

from gradlint.semantic.torch_api import VIEW_ATTRIBUTES, VIEW_METHODS

# Whitespace, newlines (inside brackets) and backslash continuations between tokens.
_GAP = r"[\s\\]*"

# An augmented assignment operator (``+=``, ``//=``, ``@=``...).
AUGMENTED = r"(?:[-+*/%&|^@]|//|\*\*|<<|>>)="

# Grad-mode guards by the names their qualified names end in.
DISABLING_GUARDS = r"(?:no_grad|inference_mode|set_grad_enabled)\b"
ALL_GUARDS = r"(?:no_grad|inference_mode|enable_grad|set_grad_enabled)\b"

# A ``for``/``while`` statement: it starts a logical line (never after ``:``
# or ``;``), so a physical line too. Two patterns, for ``AnyOf``: a line break,
# which ``re`` scans for quickly, and the start of the file.
LOOP_STATEMENT = (r"[\r\n][ \t\f]*(?:async\s+)?(?:for|while)\b", r"\A\ufeff?[ \t\f]*(?:async\s+)?(?:for|while)\b")


def word(literal: str) -> str:
    """``\\b<literal>``, its boundary checked after the literal instead of before:
    the same matches, but ``re`` can then scan for the literal, many times faster
    than trying a boundary at every position. ``literal`` starts with a word
    character and holds no pattern syntax but escapes."""
    return r"%s(?<!\w%s)" % (literal, literal)


def alternatives(words: Iterable[str]) -> str:
    return "(?:%s)" % "|".join(re.escape(w) for w in sorted(words, key=lambda w: (-len(w), w)))


def edited_through(origin: str) -> str:
    """A pattern for ``origin`` (``\\.data``, ``\\.detach\\(\\)``) used in a way that can
    make it the tensor an in-place edit overwrites (``semantic.storage_alias``):

    - followed by an in-place method (``.add_(``) or a view (``.view(``, ``.T``),
      which the edit may follow;
    - indexed (``x.data[0] = 1``, a view ``x.data[:, 0]``) or edited in place
      (``x.data -= lr * g``);
    - at the end of an expression statement or a tuple element, where it can be
      the value bound to a name (``d_p = p.grad.data``) edited later.
    """
    views = alternatives(VIEW_METHODS | VIEW_ATTRIBUTES)
    return (
        origin
        + r"(?:{gap}\.{gap}(?:{views}\b|(?!_)\w+_\b)|\s*\[|\s*{aug}|[ \t)]*(?:[\r\n;#,]|\\|\Z))".format(
            gap=_GAP, views=views, aug=AUGMENTED
        )
    )


def tensor_data() -> str:
    """``.data`` whose receiver may be a tensor: any receiver, as its name proves nothing
    (``semantic.values.is_tensor_data`` takes a proven tensor named ``g`` or ``batch``)."""
    return r"\.data\b"


def data_scalar_reads() -> Tuple[str, ...]:
    """Where GL003 can fire: ``.data`` indexed (``loss.data[0]``), moved or turned into an
    array (``loss.data.cpu()``, ``loss.data.cpu().numpy()``, indexed later), or added to a
    total (``total += loss.data``, whose ``total[0]`` is read later). Patterns for ``AnyOf``."""
    return (
        r"\.data{gap}\[".format(gap=_GAP),
        r"\.data{gap}\.{gap}(?:cpu|cuda|float|double|half|long|int|numpy)\b".format(gap=_GAP),
        r"{aug}[\s\S]{{0,300}}?\.data\b".format(aug=AUGMENTED),
    )
