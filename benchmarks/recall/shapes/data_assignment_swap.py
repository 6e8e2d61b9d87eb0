"""Shape of the recall cause `data-assignment-swap` (benchmarks/recall/sites.toml).

Each line marked `# expect: CODE` is where gradlint should report CODE.
"""
import contextlib


@contextlib.contextmanager
def modified(module, modifier):
    saved = {}
    for name, param in module.named_parameters(recurse=False):
        saved[name] = param.data
        param.data = modifier(param.data)  # expect: GL202
    try:
        yield module
    finally:
        for name, value in saved.items():
            getattr(module, name).data = value
