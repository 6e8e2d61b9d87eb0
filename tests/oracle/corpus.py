"""The oracle's corpus family: real functions of released torch code, run under
torch before and after the fix.

The generated families hold the shapes they were built for; this one takes what
people wrote. For every file of the benchmark corpus (``benchmarks/run.py``,
``build_corpus``: PyPI releases of torch-using packages, 2017-18 legacy code among
them) that ``check --fix`` (safe fixes, both tiers' rules) or, for legacy code,
``migrate`` changes, every function whose text changed is cut out with the
module-level definitions around it (each top-level statement in a ``try``, so that
an import of a library the oracle lacks, or a relative import, only leaves its
names unbound), given stub arguments, and called:

- parameters get values chosen by name (a model, a loader as a list of batches, an
  optimizer, a loss, a number, ...) and, in turn, a few general ones (tensors of a
  few shapes, numbers, a list of tensors);
- a method is called on an instance made without ``__init__`` (``nn.Module``'s own
  ``__init__`` for a module);
- the first stub set under which the original returns without an exception is the
  one the fixed version is run with; functions under which no stub set runs are
  counted, not judged.

The runs use the oracle's sandboxed driver and comparison (printed output, returned
value, exception, every parameter's gradient), so "changed" means the same as for
the generated programs.
"""

from __future__ import annotations

import hashlib
import textwrap
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

import libcst as cst

from gradlint.engine import LintSettings, fix_source
from gradlint.migrate import migrate_source, migrations, trusted_codes
from gradlint.options import RuleOptions

from oracle import runner

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "benchmarks" / ".work" / "corpus"
# The CI sample: a small legacy code base whose safe fixes and migrations reach
# functions that run on stubs (of torchvision 0.2.1, pytorch-nlp 0.3.5 and skorch
# 0.2.0, tried too, no file is changed). GRADLINT_ORACLE=long takes every code base.
SAMPLE_BASES = ("pretrainedmodels-0.7.4",)
# Of it, the files CI reads (NASNet-A Large, whose script block runs too, takes minutes
# on a loaded CI machine): a script block that runs on CPU and a function that does not.
SAMPLE_FILES = ("pretrainedmodels/models/nasnet_mobile.py", "pretrainedmodels/models/wideresnet.py", "pretrainedmodels/utils.py")
STUB_TRIES = 6
# Each function gets at most this long, as written and fixed (the driver runs a batch
# in one process: a function that never returns loses its batch, not the family).
BATCH = 12
BATCH_TIMEOUT = 120.0


def corpus_bases(long: bool) -> Tuple[Optional[Path], str]:
    """The corpus directory and the code bases to use; (None, why) when it cannot be had."""
    wanted = None if long else SAMPLE_BASES
    present = CORPUS.is_dir() and all((CORPUS / b / ".complete").exists() for b in (wanted or ()))
    if not present or (long and not any(CORPUS.iterdir())):
        import importlib.util
        import subprocess
        import sys

        spec = importlib.util.spec_from_file_location("gradlint_bench_run", ROOT / "benchmarks" / "run.py")
        module = importlib.util.module_from_spec(spec)
        # Its dataclasses look their module up in sys.modules while the class is made.
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)  # type: ignore[union-attr]
        try:
            module.build_corpus(wanted)
        except (subprocess.CalledProcessError, OSError) as exc:
            # Only a failed download or unpack skips: a bug in the builder fails the test.
            return None, (
                "the benchmark corpus is absent and could not be built: it is downloaded from PyPI "
                f"with pip download, which failed ({type(exc).__name__}: {str(exc)[:160]})"
            )
    return CORPUS, ""


def corpus_files(root: Path, long: bool) -> List[Path]:
    if long:
        return [f for b in sorted(p for p in root.iterdir() if p.is_dir()) for f in sorted(b.rglob("*.py"))]
    files = [f for b in SAMPLE_BASES for f in sorted((root / b).rglob("*.py"))]
    return [f for f in files if f.as_posix().endswith(SAMPLE_FILES)]


def era_of(base: str) -> str:
    legacy = {
        "pretrainedmodels-0.7.4", "allennlp-0.5.0", "fastai-0.7.0", "pyro-ppl-0.1.2", "pytorch-ignite-0.1.0",
        "skorch-0.2.0", "torchtext-0.2.3", "torchvision-0.2.1", "tensorboardX-1.2", "pytorch-nlp-0.3.5",
    }
    return "legacy" if base in legacy else "modern"


@dataclass
class CorpusFunction:
    """A function that a fix changed, cut out of its file as written and as fixed."""

    name: str  # a stable id: code base, file, qualified name, version
    file: str
    qualname: str
    version: str  # "fixed" | "migrated"
    fixed: Counter
    original: str  # the extracted program (module definitions + the function), as written
    after: str  # the same, from the fixed file
    params: Tuple[Tuple[str, bool], ...]  # (name, has a default) of the parameters after self
    method_of: Optional[str] = None
    programs: Dict[int, Tuple[str, str]] = field(default_factory=dict)  # stub set -> (original, after)


MAIN = "__main__"


def _is_main(module: cst.Module, stmt: cst.CSTNode) -> bool:
    return isinstance(stmt, cst.If) and "__main__" in module.code_for_node(stmt.test) and "__name__" in module.code_for_node(stmt.test)


def _functions(module: cst.Module) -> Dict[str, Tuple[cst.CSTNode, Optional[str]]]:
    """Module-level functions, methods of module-level classes (by qualified name), and
    the script's ``if __name__ == "__main__":`` block (as ``__main__``: a function of
    no parameters)."""
    out: Dict[str, Tuple[cst.CSTNode, Optional[str]]] = {}
    for stmt in module.body:
        if _is_main(module, stmt):
            out[MAIN] = (stmt, None)
        elif isinstance(stmt, cst.FunctionDef):
            out[stmt.name.value] = (stmt, None)
        elif isinstance(stmt, cst.ClassDef):
            for inner in stmt.body.body:
                if isinstance(inner, cst.FunctionDef):
                    out[f"{stmt.name.value}.{inner.name.value}"] = (inner, stmt.name.value)
    return out


def changed_functions(before: str, after: str) -> List[Tuple[str, cst.FunctionDef, Optional[str]]]:
    try:
        a, b = cst.parse_module(before), cst.parse_module(after)
    except cst.ParserSyntaxError:
        return []
    fa, fb = _functions(a), _functions(b)
    out = []
    for qual, (node, cls) in fa.items():
        other = fb.get(qual)
        if other is not None and a.code_for_node(node) != b.code_for_node(other[0]):
            out.append((qual, node, cls))
    return out


def _guarded_module(source: str) -> str:
    """Every top-level statement in a ``try``: what fails to import or to run at module
    level leaves its names unbound instead of stopping the program. ``if __name__ ==
    "__main__":`` blocks and bare expressions (scripts' work) are left out."""
    module = cst.parse_module(source)
    future = [
        stmt for stmt in module.body
        if isinstance(stmt, cst.SimpleStatementLine)
        and any(isinstance(s, cst.ImportFrom) and isinstance(s.module, cst.Name) and s.module.value == "__future__" for s in stmt.body)
    ]
    # ``from __future__`` must come first, and cannot fail
    parts = [module.code_for_node(s).strip("\n") for s in future] + ["import torch as __oracle_torch\n"]
    for stmt in module.body:
        if stmt in future:
            continue
        if _is_main(module, stmt):
            parts.append("def __oracle_main__():\n" + textwrap.indent(module.code_for_node(stmt.body).strip("\n"), "", lambda line: True))
            continue
        if isinstance(stmt, cst.SimpleStatementLine) and all(isinstance(s, cst.Expr) for s in stmt.body):
            continue  # docstrings, script calls
        code = module.code_for_node(stmt).strip("\n")
        if isinstance(stmt, cst.SimpleStatementLine) and all(isinstance(s, (cst.Import, cst.ImportFrom)) for s in stmt.body):
            parts.append("try:\n" + textwrap.indent(code, "    ") + "\nexcept BaseException:\n    pass\n")
        else:
            parts.append("try:\n" + textwrap.indent(code, "    ", lambda line: True) + "\nexcept BaseException:\n    pass\n")
    return "\n".join(parts)


# Stub values by parameter name (the first that matches), then general ones in turn.
# ``_model()`` takes any tensor input (flattened, through a lazy linear layer).
STUB_PRELUDE = '''

import torch as _t


class _OracleModel(_t.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = _t.nn.LazyLinear(2)

    def forward(self, x, *args, **kwargs):
        x = x.float()
        return self.fc(x.reshape(x.shape[0], -1) if x.dim() > 1 else x.reshape(1, -1))


def _stub(name, k):
    n = name.lower()
    g = _t.Generator().manual_seed(k)
    if any(w in n for w in ("model", "net", "module", "encoder", "decoder", "layer")):
        return _OracleModel()
    if any(w in n for w in ("loader", "batches", "dataset", "data_iter", "iterator")):
        return [(_t.randn(4, 3, generator=g), _t.randint(0, 2, (4,), generator=g)) for _ in range(2)]
    if n in ("optimizer", "opt", "optim"):
        return _t.optim.SGD([_t.zeros(1, requires_grad=True)], lr=0.1)
    if any(w in n for w in ("criterion", "loss_fn", "lossfn", "loss_func")):
        return _t.nn.CrossEntropyLoss()
    general = (
        lambda: _t.randn(4, 3, generator=g),
        lambda: _t.randn(2, 3, 4, generator=g),
        lambda: 2,
        lambda: _t.randn(2, 3, 8, 8, generator=g),
        lambda: [_t.randn(4, 3, generator=g)],
        lambda: 0.5,
    )
    if any(w in n for w in ("size", "dim", "num", "n_", "count", "step", "epoch", "idx", "index")):
        general = general[2:3] + general
    if n.startswith(("is_", "use_", "with_")) or n in ("train", "training", "verbose"):
        return (True, False)[k % 2]
    return general[k % len(general)]()


def _instance(cls):
    obj = cls.__new__(cls)
    if isinstance(obj, _t.nn.Module):
        _t.nn.Module.__init__(obj)
    return obj
'''


def stub_program(extracted: str, fn: CorpusFunction, k: int) -> str:
    """The extracted module, the stubs, and ``run()``: the call with stub set ``k``,
    returning its result with the arguments and the instance (whose parameters'
    gradients are compared too)."""
    args = ", ".join(f"{p}=_stub({p!r}, {k})" for p, default in fn.params if not default)
    if fn.qualname == MAIN:
        setup, callee, subject = "", "__oracle_main__", "None"
    elif fn.method_of is None:
        setup, callee, subject = "", fn.qualname, "None"
    else:
        setup, callee, subject = f"    _self = _instance({fn.method_of})\n", "_self." + fn.qualname.split(".", 1)[1], "_self"
    return (
        f"{extracted}\n{STUB_PRELUDE}\n\ndef run():\n{setup}"
        f"    _args = dict({args})\n"
        f"    _result = {callee}(**_args)\n"
        f"    return {{'result': _result, 'args': _args, 'self': {subject}}}\n"
    )


def _params(node: cst.CSTNode, method: bool) -> Optional[Tuple[Tuple[str, bool], ...]]:
    if not isinstance(node, cst.FunctionDef):
        return ()  # the script's block
    ps = [*node.params.posonly_params, *node.params.params]
    if method:
        if any(
            isinstance(d.decorator, cst.Name) and d.decorator.value in ("staticmethod", "classmethod", "property")
            for d in node.decorators
        ):
            return None
        ps = ps[1:]
    kw = list(node.params.kwonly_params)
    return tuple((p.name.value, p.default is not None) for p in ps + kw)


def find_functions(files: Iterable[Path], root: Path) -> Tuple[List[CorpusFunction], Counter]:
    """The functions a safe fix or a migration changes in ``files``, and counts of what
    was found (files changed, functions changed, functions left out and why)."""
    counts: Counter = Counter()
    options = RuleOptions(preview=True)
    check = LintSettings(runner.all_codes(), options)
    mig = LintSettings(frozenset(migrations()), RuleOptions())
    out: List[CorpusFunction] = []
    for path in files:
        try:
            source = path.read_text(encoding="utf-8")
            cst.parse_module(source)
        except Exception:
            continue
        rel = str(path.relative_to(root))
        versions = []
        try:
            fixed = fix_source(source, rel, check)
            versions.append(("fixed", fixed.source, Counter(fixed.fixed)))
        except Exception as exc:
            counts[f"fix raised {type(exc).__name__}"] += 1
        if era_of(rel.split("/", 1)[0]) == "legacy":
            migrated = migrate_source(source, rel, mig)
            versions.append(("migrated", migrated.source, Counter(migrated.fixed)))
        for version, text, fixed_codes in versions:
            if text == source:
                continue
            counts[f"{version} files"] += 1
            try:
                before_mod, after_mod = _guarded_module(source), _guarded_module(text)
            except Exception:
                counts[f"{version} files not cut"] += 1
                continue
            for qual, node, cls in changed_functions(source, text):
                params = _params(node, cls is not None)
                counts[f"{version} functions"] += 1
                if params is None:
                    counts[f"{version} functions not callable (static/class method, property)"] += 1
                    continue
                digest = hashlib.sha1(f"{rel}:{qual}".encode()).hexdigest()[:8]
                out.append(
                    CorpusFunction(
                        name=f"corpus-{digest}-{qual}-{version}",
                        file=rel,
                        qualname=qual,
                        version=version,
                        fixed=fixed_codes,
                        original=before_mod,
                        after=after_mod,
                        params=params,
                        method_of=cls,
                    )
                )
    return out, counts


@dataclass
class CorpusJudged:
    function: CorpusFunction
    verdict: str  # "same" | "changed" | "not-run"
    stub: Optional[int] = None
    difference: Optional[str] = None


def judge_functions(functions: Sequence[CorpusFunction], workers: int = 2) -> List[CorpusJudged]:
    """Run each function's original under stub set 0, then 1, 2, ... where it raised; the
    first set under which it runs without an exception is chosen (a function without
    parameters gets one try); the fixed version is run
    under that set and compared with that run of the original (the driver resets
    seeds before each program, so a rerun would give the same)."""
    chosen: Dict[str, Tuple[int, dict]] = {}
    # Two rounds, each one sandbox process per batch (starting one, with torch, is most of
    # a small function's cost): stub set 0 for all, then the other sets for those whose
    # original raised under it (a function without parameters gets the one try).
    rounds = [(0,), tuple(range(1, STUB_TRIES))]
    pending = list(functions)
    for ks in rounds:
        tries = [(fn, k) for fn in pending for k in ks if k == 0 or fn.params]
        if not tries:
            break
        runs = runner.run_sources(
            [(f"{fn.name}#{k}", stub_program(fn.original, fn, k)) for fn, k in tries],
            batch=BATCH * len(ks), workers=workers, timeout=BATCH_TIMEOUT,
        )
        for fn, k in tries:
            r = runs.get(f"{fn.name}#{k}", {})
            if fn.name not in chosen and "driver-error" not in r and r.get("exception") is None:
                chosen[fn.name] = (k, r)
        pending = [fn for fn in pending if fn.name not in chosen]
    afters = [(f"{fn.name}@after", stub_program(fn.after, fn, chosen[fn.name][0])) for fn in functions if fn.name in chosen]
    second = runner.run_sources(afters, batch=BATCH, workers=workers, timeout=BATCH_TIMEOUT) if afters else {}
    out: List[CorpusJudged] = []
    for fn in functions:
        if fn.name not in chosen:
            out.append(CorpusJudged(fn, "not-run"))
            continue
        k, before = chosen[fn.name]
        after = second[f"{fn.name}@after"]
        if "<error>" in before.get("gradients", {}) or "<error>" in after.get("gradients", {}):
            # a stub value whose parameters could not be read back: judged on the rest
            before, after = {**before, "gradients": {}}, {**after, "gradients": {}}
        diff = runner.difference(before, after)
        out.append(CorpusJudged(fn, "same" if diff is None else "changed", k, None if diff is None else f"{diff[0]}: {diff[1]}"))
    return out


def is_failure(j: CorpusJudged) -> bool:
    """A change the contract forbids: after the safe fixes, or after a migration that
    applied no rewrite the catalog trusts for legacy code."""
    if j.verdict != "changed":
        return False
    return j.function.version == "fixed" or not (set(j.function.fixed) & trusted_codes())


def figures(found: Counter, judged: Sequence[CorpusJudged]) -> str:
    lines = []
    for version in ("fixed", "migrated"):
        of = [j for j in judged if j.function.version == version]
        verdicts = Counter(j.verdict for j in of)
        fixes: Counter = Counter()
        for j in of:
            fixes.update(j.function.fixed)
        lines.append(
            f"{version}: {found[f'{version} files']} files changed, {found[f'{version} functions']} functions changed, "
            f"{len(of)} callable; run on stubs {verdicts['same'] + verdicts['changed']}: "
            f"same {verdicts['same']}, changed {verdicts['changed']} "
            f"(forbidden {sum(1 for j in of if is_failure(j))}); not run {verdicts['not-run']}"
        )
    for j in judged:
        if j.verdict == "changed":
            lines.append(f"  changed: {j.function.file} {j.function.qualname} after {j.function.version} "
                         f"({', '.join(f'{c}×{n}' for c, n in sorted(j.function.fixed.items()))}): {j.difference}")
    return "\n".join(lines)
