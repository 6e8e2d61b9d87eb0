#!/usr/bin/env python3
"""gradlint's own type facts against astroid's and jedi's inference, on real code.

    .venv/bin/pip install astroid jedi     # not dependencies of gradlint
    .venv/bin/python benchmarks/inference_peers.py DIR [DIR ...] [--max-files N] [--seed S]

The question every behavioural rule asks first is "is this callee an
``nn.Module``?" (a call of it runs a forward). For every call ``f(...)`` whose
callee is a name or an attribute, in a seeded sample of each code base's
files, it is answered three ways:

- gradlint: ``SemanticModel.modules.is_module(callee)``, with the project index
  of the whole code base (classes whose bases reach ``nn.Module`` in any file);
- astroid: ``callee.infer()`` gives an instance of a class whose ancestors
  include ``torch.nn.modules.module.Module`` (torch's own source is read, as a
  user's environment would have it);
- jedi: ``Script.infer`` at the callee's end gives such an instance.

Printed: how often each says "module", where they agree, the calls where a
peer says "module" and gradlint does not (candidates for recall) and the other
way round (to read: gradlint's default tier must be right there), and the time
each takes per file. A peer "yes" is not ground truth: inference through
``self.<attr>`` follows every assignment, including ``None`` placeholders.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

MODULE = "torch.nn.modules.module.Module"


def _files(root: Path, limit: int, seed: int) -> List[Path]:
    files = sorted(p for p in root.rglob("*.py") if p.is_file() and "/." not in str(p))
    random.Random(seed).shuffle(files)
    return sorted(files[:limit])


def _gradlint_calls(path: Path, source: str, index) -> Tuple[List[Tuple[int, int, bool]], float]:
    """(line, end column of the callee, is a module) for each call, and the seconds spent."""
    import libcst as cst
    from libcst.metadata import PositionProvider

    from gradlint.rule import FileContext

    start = time.process_time()
    module = cst.parse_module(source)
    ctx = FileContext(str(path), source, module, project=index)
    wrapper = cst.MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    out = []
    for node, pos in positions.items():
        if isinstance(node, cst.Call) and isinstance(node.func, (cst.Name, cst.Attribute)):
            end = positions[node.func].end
            out.append((end.line, end.column, bool(ctx.semantic.modules.is_module(node.func))))
    return out, time.process_time() - start


def _astroid_answers(path: Path, source: str, calls: List[Tuple[int, int, bool]]) -> Tuple[Dict[Tuple[int, int], bool], float]:
    import astroid
    from astroid import nodes

    start = time.process_time()
    found: Dict[Tuple[int, int], bool] = {}
    try:
        tree = astroid.MANAGER.ast_from_string(source, modname=path.stem, filepath=str(path))
    except Exception:
        return found, time.process_time() - start
    wanted = {(line, col) for line, col, _ in calls}
    for call in tree.nodes_of_class(nodes.Call):
        func = call.func
        key = (func.end_lineno, func.end_col_offset)
        if key not in wanted:
            continue
        is_module = False
        try:
            for value in func.infer():
                if isinstance(value, astroid.Instance) and not isinstance(value, nodes.ClassDef):
                    cls = value._proxied
                    if cls.qname() == MODULE or any(a.qname() == MODULE for a in cls.ancestors()):
                        is_module = True
                        break
        except Exception:
            pass
        found[key] = is_module
    return found, time.process_time() - start


def _jedi_answers(path: Path, source: str, calls: List[Tuple[int, int, bool]], project) -> Tuple[Dict[Tuple[int, int], bool], float]:
    import jedi

    start = time.process_time()
    found: Dict[Tuple[int, int], bool] = {}
    try:
        script = jedi.Script(source, path=str(path), project=project)
    except Exception:
        return found, time.process_time() - start
    for line, col, _ in calls:
        is_module = False
        try:
            for name in script.infer(line, max(col - 1, 0)):
                if name.type != "instance":
                    continue
                # jedi's public API names the class but not its bases: its values know the MRO.
                for value in name._name.infer():
                    mro = getattr(value, "class_value", None)
                    classes = mro.py__mro__() if mro is not None else []
                    if any(getattr(c, "py__name__", lambda: "")() == "Module" and "torch.nn" in (c.get_root_context().py__name__() or "") for c in classes):
                        is_module = True
        except Exception:
            pass
        found[(line, col)] = is_module
    return found, time.process_time() - start


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dirs", nargs="+", type=Path)
    parser.add_argument("--max-files", type=int, default=40, help="files sampled per code base")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-jedi", action="store_true")
    args = parser.parse_args(argv)

    import jedi

    from gradlint.session import index_files

    totals = {"calls": 0, "gradlint": 0, "astroid": 0, "jedi": 0, "both_ga": 0, "both_gj": 0}
    only: Dict[str, List[str]] = {"astroid": [], "jedi": [], "gradlint_not_astroid": []}
    times: Dict[str, List[float]] = {"gradlint": [], "astroid": [], "jedi": [], "index": []}
    for root in args.dirs:
        files = _files(root, args.max_files, args.seed)
        everything = sorted(p for p in root.rglob("*.py") if p.is_file())
        start = time.process_time()
        index, _ = index_files(everything, None)
        times["index"].append(time.process_time() - start)
        project = jedi.Project(str(root))
        for path in files:
            try:
                source = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            try:
                calls, t = _gradlint_calls(path, source, index)
            except Exception:
                continue
            times["gradlint"].append(t)
            ast_found, t = _astroid_answers(path, source, calls)
            times["astroid"].append(t)
            jedi_found: Dict[Tuple[int, int], bool] = {}
            if not args.no_jedi:
                jedi_found, t = _jedi_answers(path, source, calls, project)
                times["jedi"].append(t)
            for line, col, mine in calls:
                a, j = ast_found.get((line, col), False), jedi_found.get((line, col), False)
                totals["calls"] += 1
                totals["gradlint"] += mine
                totals["astroid"] += a
                totals["jedi"] += j
                totals["both_ga"] += mine and a
                totals["both_gj"] += mine and j
                where = f"{path}:{line}:{col}"
                if a and not mine:
                    only["astroid"].append(where)
                if j and not mine:
                    only["jedi"].append(where)
                if mine and not a:
                    only["gradlint_not_astroid"].append(where)
    print(f"calls of a name or attribute: {totals['calls']}")
    for tool in ("gradlint", "astroid", "jedi"):
        print(f"  said 'module': {tool:8} {totals[tool]}")
    print(f"  gradlint and astroid both: {totals['both_ga']}; gradlint and jedi both: {totals['both_gj']}")
    for key, sites in only.items():
        print(f"{key}: {len(sites)}")
        for site in sites[:25]:
            print(f"    {site}")
    for tool, values in times.items():
        if values:
            print(f"CPU s per file, {tool}: median {statistics.median(values):.3f}, total {sum(values):.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
