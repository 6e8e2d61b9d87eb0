"""The semantic model of one file: what rules ask instead of reading names.

``SemanticModel`` composes one object per concept, each built the first time a
rule asks it something (most files never need most of them):

- ``tree`` (``tree.Tree``): parents, walk order, spans, enclosing nodes;
- ``scopes`` (``scopes.Scopes``): scopes, bindings, reaching definitions: the
  file's one scope analysis (LibCST's ``ScopeProvider`` is not run);
- ``names`` (``names.Names``): the import index, qualified names, ``torch_ref_at``;
  ``names.resolution`` (``resolution.Resolution``, on ``scopes``) answers what
  the import index cannot: the qualified names of a read, the reads of each
  import, the imports nothing reads (asked by fixes too), by LibCST's rules;
- ``calls`` (``calls.Calls``): the file's own functions and their call sites;
- ``gradmode`` (``gradmode.GradMode``): the grad mode at a node, and a function's entry mode;
- ``modules`` (``modules.Modules``): ``nn.Module`` evidence, forwards, eval/train, freezing;
- ``values`` (``values.Values``): abstract values, graph evidence, storage aliases;
- ``escape`` (``escape.Escape``): where a value goes;
- ``attributes`` (``attributes.Attributes``): who reads an attribute, what sets ``requires_grad``;
- ``self_checks`` (``self_checks.SelfChecks``): forwards on made-up inputs whose outputs are only checked.

Knowledge of torch and of frameworks is data (``torch_api``, ``frameworks``).
Nothing here knows about rules: this package imports nothing of the rule
layer, and a test holds it to that (``import-linter`` contracts).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    # Only for annotations: ``semantic.project`` (which the runner imports for
    # runs answered from the cache) must not cost a LibCST import.
    import libcst as cst

    from gradlint.semantic.tree import Tree
    from gradlint.semantic.calls import Calls
    from gradlint.semantic.attributes import Attributes
    from gradlint.semantic.escape import Escape
    from gradlint.semantic.gradmode import GradMode
    from gradlint.semantic.modules import Modules
    from gradlint.semantic.names import Names
    from gradlint.semantic.project import Project
    from gradlint.semantic.scopes import Scopes
    from gradlint.semantic.self_checks import SelfChecks
    from gradlint.semantic.values import Values

__all__ = ["SemanticModel"]


class SemanticModel:
    """The facts of one file, each concept computed on first use (and its module
    imported then: a file no rule asks about costs nothing here)."""

    def __init__(
        self, module: "cst.Module", source: str, tree: "Tree", path: str = "", project: "Optional[Project]" = None
    ) -> None:
        self.module = module
        self.source = source
        self.tree = tree
        # Where the file is, as the run names it: what the project index
        # (``semantic.project``) knows it by, and where star imports of the
        # project's modules are looked up.
        self.path = path
        # What the other files of the run say about this one (None: nothing;
        # every cross-file question then keeps its in-file answer).
        self.project = project
        # The preview tier (``RuleOptions.preview``): queries that separate proof from
        # guesses from names (``values.proven_graph_source``) accept the guesses too.
        self.preview = False
        # ``gradlint migrate`` (``RuleOptions.legacy_code``): losses named so are 0-dim.
        self.legacy_code = False

    @functools.cached_property
    def scopes(self) -> "Scopes":
        from gradlint.semantic.scopes import Scopes

        return Scopes(self.module, self.tree, self.source)

    @functools.cached_property
    def names(self) -> "Names":
        from gradlint.semantic.names import Names

        return Names(self.module, self.source, self.tree, lambda: self.scopes, self.path)

    @functools.cached_property
    def calls(self) -> "Calls":
        from gradlint.semantic.calls import Calls

        return Calls(self)

    @functools.cached_property
    def gradmode(self) -> "GradMode":
        from gradlint.semantic.gradmode import GradMode

        return GradMode(self)

    @functools.cached_property
    def modules(self) -> "Modules":
        from gradlint.semantic.modules import Modules

        return Modules(self)

    @functools.cached_property
    def values(self) -> "Values":
        from gradlint.semantic.values import Values

        return Values(self)

    @functools.cached_property
    def escape(self) -> "Escape":
        from gradlint.semantic.escape import Escape

        return Escape(self)

    @functools.cached_property
    def attributes(self) -> "Attributes":
        from gradlint.semantic.attributes import Attributes

        return Attributes(self)

    @functools.cached_property
    def self_checks(self) -> "SelfChecks":
        from gradlint.semantic.self_checks import SelfChecks

        return SelfChecks(self)
