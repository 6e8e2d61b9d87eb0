"""Which attributes a method leaves in eval mode (``Modules.eval_attributes``):
``self.net = load(); self.net.eval()``, branch by branch through an ``if``
(``if name in MODELS: ... self.net.eval() else: raise ValueError(name)``),
with ``self.net = None`` placeholders aside; and which list attributes hold only
models put in eval mode (``self.models = []``, then ``m.eval()`` and
``self.models.append(m)`` per checkpoint: an ensemble's predictor).
"""

from __future__ import annotations

from typing import Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

import libcst as cst

from gradlint.semantic.syntax import attribute_alias, dotted, self_attributes_assigned
from gradlint.semantic.torch_api import MODULE_CHAIN
from gradlint.semantic.tree import walk



class Facts(NamedTuple):
    """What ``Modules`` tells of a statement (passed in: it imports this module)."""

    switch: Callable[[cst.CSTNode], Optional[Tuple[str, cst.Call]]]  # (model, its eval() call)
    ends: Callable[[cst.CSTNode, str, bool], bool]  # (statement, model, calls only)
    loads: Callable[[cst.CSTNode, str], List[cst.Call]]  # ``from_pretrained`` loads into self.<attr>

# (the last ``eval()`` of the attribute, assigned since, falls through, untouched:
# neither assigned, switched nor trained since the method began)
_State = Tuple[Optional[cst.Call], bool, bool, bool]


def leaves_attribute_in_eval(modules: Facts, method: cst.FunctionDef, attr: str) -> Optional[cst.Call]:
    """The ``eval()`` after which ``method`` leaves ``self.<attr>``, which it assigns,
    in eval mode: see ``eval_attributes``."""
    if not isinstance(method.body, cst.IndentedBlock):
        return None
    found = _block(modules, method.body.body, attr, (None, False, True, True), {})
    return None if found is None or found[1] or not found[2] else found[0]


def _block(modules: Facts, body: Sequence[cst.CSTNode], attr: str, at: _State, local: Dict[str, cst.Call]) -> Optional[_State]:
    """(the last switch, assigned since, falls through, untouched) after ``body``;
    None when it may leave with a new value not in eval mode. An ``if`` is followed
    branch by branch (one ending in ``raise`` does not fall through); ``self.<attr> =
    None`` holds nothing a call could run. A branch that leaves the attribute
    untouched since the method began (``if cfg: self.net = Net(); self.net.eval()
    else: self.use_net = False``) keeps the value it had before the call: none in
    ``__init__``, else one that every setter left in eval mode (``eval_attributes``
    asks that of each), so it does not spoil the branches that switch it."""
    text = "self." + attr
    state, dirty, _, untouched = at
    for stmt in body:
        if isinstance(stmt, cst.If) and attr in self_attributes_assigned(stmt):
            outs: List[Optional[_State]] = []
            branch: Optional[cst.CSTNode] = stmt
            while isinstance(branch, cst.If):
                outs.append(_block(modules, branch.body.body, attr, (state, dirty, True, untouched), dict(local)))
                branch = branch.orelse
            else_body = branch.body.body if isinstance(branch, cst.Else) else ()
            outs.append(_block(modules, else_body, attr, (state, dirty, True, untouched), dict(local)))
            if any(o is None for o in outs):
                return None
            through = [o for o in outs if o is not None and o[2]]
            if not through:
                return state, dirty, False, untouched
            touched = [o for o in through if not o[3]]
            through = touched or through
            state = through[-1][0] if all(o[0] is not None for o in through) else None
            dirty = any(o[1] for o in through)
            untouched = not touched
            continue
        switch = modules.switch(stmt)
        local = {n: c for n, c in local.items() if not modules.ends(stmt, n, False)}
        aliased = attribute_alias(stmt, text, local)
        loaded = modules.loads(stmt, attr)
        if aliased is not None:
            state, dirty = aliased, False
        elif loaded:
            # transformers' ``from_pretrained`` returns its model in eval mode: a
            # statement that assigns the attribute only such loads leaves it so
            # (a simple one at once; a compound one only if it was so before).
            state = loaded[-1]
            if isinstance(stmt, cst.SimpleStatementLine):
                dirty = False
        elif attr in self_attributes_assigned(stmt) and not _assigns_none(stmt) and not _moves_itself(stmt, text):
            dirty = True
        if switch is not None and switch[0].isidentifier():
            local[switch[0]] = switch[1]
        if switch is not None and switch[0] == text:
            state, dirty, untouched = switch[1], False, False
        elif (state is not None or untouched) and modules.ends(stmt, text, True):
            state, untouched = None, False
        if attr in self_attributes_assigned(stmt):
            untouched = False
        if dirty and any(isinstance(n, (cst.Return, cst.Yield)) for n in walk(stmt)):
            return None  # it may leave with the new value not yet in eval mode
        if isinstance(stmt, cst.SimpleStatementLine) and any(isinstance(s, cst.Raise) for s in stmt.body):
            return state, dirty, False, untouched
    return state, dirty, True, untouched


def _assigns_none(stmt: cst.CSTNode) -> bool:
    """``self.model = None``: a placeholder, never run as a forward (calling it raises)."""
    return (
        isinstance(stmt, cst.SimpleStatementLine)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], cst.Assign)
        and isinstance(stmt.body[0].value, cst.Name)
        and stmt.body[0].value.value == "None"
    )



# Module methods that return the module itself in the mode it was in.
_KEEPS_MODE = MODULE_CHAIN - {"train"}


def _moves_itself(stmt: cst.CSTNode, text: str) -> bool:
    """Every assignment of ``self.<attr>`` in ``stmt`` rebinds it to itself through
    methods that keep its mode (``if cuda: self.net = self.net.to("cuda")``)."""
    found = False
    for node in walk(stmt):
        if not isinstance(node, cst.Assign) or not any(dotted(t.target) == text for t in node.targets):
            continue
        value: cst.BaseExpression = node.value
        while isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value in _KEEPS_MODE:
            value = value.func.value
        if dotted(value) != text or value is node.value:
            return False
        found = True
    return found


def empty_list_attributes(cls: cst.ClassDef) -> List[str]:
    """The attributes some method of ``cls`` assigns ``[]`` (``self.models = []``)."""
    found = []
    for node in walk(cls.body, into_functions=True):
        if type(node) is cst.Assign and type(node.value) is cst.List and not node.value.elements and len(node.targets) == 1:
            target = node.targets[0].target
            if type(target) is cst.Attribute and type(target.value) is cst.Name and target.value.value == "self":
                found.append(target.attr.value)
    return sorted(set(found))


def items_in_eval(modules: Facts, cls: cst.ClassDef, attr: str) -> Optional[cst.Call]:
    """The last ``eval()`` of the models that ``self.<attr>``, a list, holds when every
    method of ``cls`` assigns it only ``[]`` and adds to it only ``append(m)`` of a
    name ``m`` that an earlier statement of the same block switched to eval mode,
    with nothing between taking it out; the class reads it only to iterate over it
    or take its length, and calls no ``train()``. Else None."""
    text = "self." + attr
    parents: Dict[int, cst.CSTNode] = {}
    refs: List[cst.Attribute] = []
    stack: List[cst.CSTNode] = [cls]
    while stack:
        node = stack.pop()
        if type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value == "train":
            return None
        if type(node) is cst.Attribute and dotted(node) == text:
            refs.append(node)
        for child in node.children:
            parents[id(child)] = node
            stack.append(child)
    last: Optional[cst.Call] = None
    for ref in sorted(refs, key=lambda r: _position(parents, r)):
        use = _use(modules, parents, ref)
        if use is None or use is False:
            return None
        if use is not True:
            last = use
    return last


def _position(parents: Dict[int, cst.CSTNode], node: cst.CSTNode) -> Tuple[int, ...]:
    """The path of child indices from the class down to ``node``: source order."""
    path: List[int] = []
    while id(node) in parents:
        up = parents[id(node)]
        path.append(next(i for i, c in enumerate(up.children) if c is node))
        node = up
    return tuple(reversed(path))


def _use(modules: Facts, parents: Dict[int, cst.CSTNode], ref: cst.Attribute) -> "cst.Call | bool | None":
    """What ``ref`` (``self.<attr>``) does where it stands: the ``eval()`` of the item
    it appends; True where it is assigned ``[]`` or read by a loop or ``len``; None
    for any other use."""
    up = parents.get(id(ref))
    if type(up) is cst.AssignTarget:
        assign = parents.get(id(up))
        ok = type(assign) is cst.Assign and len(assign.targets) == 1 and type(assign.value) is cst.List and not assign.value.elements
        return True if ok else None
    if type(up) in (cst.For, cst.CompFor) and up.iter is ref:  # type: ignore[union-attr]
        return True
    if type(up) is cst.Arg:
        call = parents.get(id(up))
        ok = type(call) is cst.Call and type(call.func) is cst.Name and call.func.value == "len"
        return True if ok else None
    if type(up) is not cst.Attribute or up.attr.value != "append":
        return None
    call = parents.get(id(up))
    if type(call) is not cst.Call or len(call.args) != 1 or type(call.args[0].value) is not cst.Name:
        return None
    name = call.args[0].value.value
    expr = parents.get(id(call))
    stmt = parents.get(id(expr)) if type(expr) is cst.Expr else None
    block = parents.get(id(stmt)) if stmt is not None else None
    if type(stmt) is not cst.SimpleStatementLine or type(block) is not cst.IndentedBlock:
        return None
    body = list(block.body)
    at = next(i for i, s in enumerate(body) if s is stmt)
    for k in range(at - 1, -1, -1):
        switch = modules.switch(body[k])
        if switch is not None and switch[0] == name:
            return None if any(modules.ends(s, name, False) for s in body[k + 1 : at]) else switch[1]
    return None
