"""``gradlint migrate`` on ``volatile=True`` where no function can be decorated: module
level and functions that also train get a ``with torch.no_grad():`` region around the
statements the volatile value flows into, or are left for a human."""

from __future__ import annotations

import functools
import subprocess
import sys
import textwrap

import pytest

from gradlint.engine import LintSettings
from gradlint.migrate import migrate_source, migration_settings
from gradlint.volatile_scope import rewrite


def migrate(code: str):
    codes, options = migration_settings().codes_for("script.py")
    return migrate_source(textwrap.dedent(code), "script.py", LintSettings(codes, options))


SCRIPT = '''\
"""A 0.3-era script."""
import torch
from torch.autograd import Variable

torch.manual_seed(0)
model = torch.nn.Linear(4, 3)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = [(torch.randn(8, 4), torch.randint(0, 3, (8,))) for _ in range(3)]
for x, y in data:
    opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(Variable(x)), Variable(y))
    loss.backward()
    opt.step()

correct = 0
for x, y in data:
    x = Variable(x, volatile=True)
    out = model(x)
    pred = out.max(1)[1]
    correct += (pred == y).sum()
    print("batch")
print(correct)
'''

SCRIPT_MIGRATED = '''\
"""A 0.3-era script."""
import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 3)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = [(torch.randn(8, 4), torch.randint(0, 3, (8,))) for _ in range(3)]
for x, y in data:
    opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(x.detach()), y.detach())
    loss.backward()
    opt.step()

correct = 0
for x, y in data:
    with torch.no_grad():
        x = x.detach()
        out = model(x)
        pred = out.max(1)[1]
        correct += (pred == y).sum()
    print("batch")
print(correct)
'''


def test_module_level_evaluation_loop_is_guarded():
    result = migrate(SCRIPT)
    assert result.source == SCRIPT_MIGRATED
    assert result.fixed["GL001"] == 1
    assert [f.code for f in result.remaining] == []


TRAINS = '''\
import torch
from torch.autograd import Variable


def fit(model, loader, val_x, opt):
    for x, y in loader:
        opt.zero_grad()
        loss = model(Variable(x)).sum()
        loss.backward()
        opt.step()
    model.eval()
    inputs, extra = Variable(val_x, volatile=True), Variable(val_x * 2, volatile=True)
    scores = model(inputs) + model(extra)
    best = scores.max()
    print(best)
    return model
'''

TRAINS_MIGRATED = '''\
import torch


def fit(model, loader, val_x, opt):
    for x, y in loader:
        opt.zero_grad()
        loss = model(x).sum()
        loss.backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        inputs, extra = val_x.detach(), (val_x * 2).detach()
        scores = model(inputs) + model(extra)
        best = scores.max()
        print(best)
    return model
'''


def test_evaluation_inside_a_training_function_is_guarded():
    result = migrate(TRAINS)
    assert result.source == TRAINS_MIGRATED
    assert result.fixed["GL001"] == 2


def test_torch_is_imported_when_the_file_does_not_import_it():
    code = 'from torch.autograd import Variable\nx = Variable(batch, volatile=True)\nprint(net(x))\n'
    new, count = rewrite(code)
    assert (new, count) == ('import torch\nfrom torch.autograd import Variable\nwith torch.no_grad():\n    x = Variable(batch)\n    print(net(x))\n', 1)


def test_a_region_inside_another_is_one_with():
    code = (
        "import torch\nfrom torch.autograd import Variable\n"
        "for b in data:\n    x = Variable(b, volatile=True)\n    h = enc(x)\n    for c in h:\n"
        "        y = Variable(c, volatile=True)\n        print(dec(y))\n    print(h)\n"
    )
    assert rewrite(code) == (
        "import torch\nfrom torch.autograd import Variable\n"
        "for b in data:\n    with torch.no_grad():\n        x = Variable(b)\n        h = enc(x)\n        for c in h:\n"
        "            y = Variable(c)\n            print(dec(y))\n        print(h)\n",
        2,
    )


def test_the_value_moved_in_place_stays_in_its_region():
    # The word-language-model generator: ``input.data = input.data.cuda()`` stores
    # into the volatile value itself, not into another object.
    code = (
        "import torch\nfrom torch.autograd import Variable\n"
        "x = Variable(batch, volatile=True)\nif cuda:\n    x.data = x.data.cuda()\n"
        "with open(path) as f:\n    for i in range(3):\n        out = net(x)\n        x.data.fill_(out.argmax())\n"
    )
    assert rewrite(code) == (
        "import torch\nfrom torch.autograd import Variable\n"
        "with torch.no_grad():\n    x = Variable(batch)\n    if cuda:\n        x.data = x.data.cuda()\n"
        "    with open(path) as f:\n        for i in range(3):\n            out = net(x)\n            x.data.fill_(out.argmax())\n",
        1,
    )


def test_a_name_a_function_binds_for_itself_is_not_the_regions():
    # ``state`` in ``detach``'s comprehension is that comprehension's own variable.
    code = (
        "import torch\nfrom torch.autograd import Variable\n"
        "def detach(states):\n    return [state.detach() for state in states]\n"
        "x = Variable(batch, volatile=True)\nfor i in range(3):\n    out, state = net(x, state)\n"
    )
    new, count = rewrite(code)
    assert count == 1
    assert new.endswith("with torch.no_grad():\n    x = Variable(batch)\n    for i in range(3):\n        out, state = net(x, state)\n")


def test_statements_between_that_record_nothing_join_the_region():
    code = "import torch\nfrom torch.autograd import Variable\nx = Variable(batch, volatile=True)\nn = len(batch)\nprint(net(x), n)\n"
    assert rewrite(code) == (
        "import torch\nfrom torch.autograd import Variable\nwith torch.no_grad():\n"
        "    x = Variable(batch)\n    n = len(batch)\n    print(net(x), n)\n",
        1,
    )


@pytest.mark.parametrize(
    "code, guarded",
    [
        # a forward between that does not read the value recorded a graph in 0.3: it stays out
        ("x = Variable(batch, volatile=True)\ny = net(other)\nprint(net(x))\nloss = y.sum()\n",
         "x = Variable(batch)\ny = net(other)\nwith torch.no_grad():\n    print(net(x))\nloss = y.sum()\n"),
        ("x = Variable(batch, volatile=True)\nouts.append(net(other))\nprint(net(x))\n",
         "x = Variable(batch)\nouts.append(net(other))\nwith torch.no_grad():\n    print(net(x))\n"),
        # a name bound between is fed to a model after the block: it stays out too
        ("x = Variable(batch, volatile=True)\nz = other * 2\nprint(net(x))\nout = net(z)\n",
         "x = Variable(batch)\nz = other * 2\nwith torch.no_grad():\n    print(net(x))\nout = net(z)\n"),
        # a script's test set, evaluated inside the training loop and after it; reading
        # only what has no history (``.data``) needs no region
        ("x = Variable(b, volatile=True)\nshow(x.data.numpy())\nfor s in r:\n    net(s).sum().backward()\n"
         "    if s:\n        out = net(x)\n        acc = (out.argmax(1) == y).sum()\n        print(acc)\nprint(net(x[:2]))\n",
         "x = Variable(b)\nshow(x.data.numpy())\nfor s in r:\n    net(s).sum().backward()\n"
         "    if s:\n        with torch.no_grad():\n            out = net(x)\n            acc = (out.argmax(1) == y).sum()\n            print(acc)\n"
         "with torch.no_grad():\n    print(net(x[:2]))\n"),
        # two held values; a statement between that reads one joins the region
        ("x, y = Variable(a, volatile=True), Variable(b, volatile=True)\nfor s in r:\n    net(s).sum().backward()\n"
         "    p = net(x)\n    q = net(y)\n    print(p.data)\n    print(crit(q, y).item())\n",
         "x, y = Variable(a), Variable(b)\nfor s in r:\n    net(s).sum().backward()\n"
         "    with torch.no_grad():\n        p = net(x)\n        q = net(y)\n        print(p.data)\n        print(crit(q, y).item())\n"),
    ],
)
def test_each_use_of_a_held_volatile_value_gets_its_region(code, guarded):
    head = "import torch\nfrom torch.autograd import Variable\n"
    new, count = rewrite(head + code)
    assert new == head + guarded
    assert count == code.count("volatile=True")


@pytest.mark.parametrize(
    "code, why",
    [
        # the region would hold the backward pass
        ("x = Variable(batch, volatile=True)\nloss = net(x).sum()\nloss.backward()\n", "trains"),
        # a value computed from it is fed to a model after the block
        ("for b in data:\n    x = Variable(b, volatile=True)\n    h = enc(x)\nout = net(h)\n", "escapes"),
        # stored into another object
        ("x = Variable(batch, volatile=True)\nstate.out = net(x)\n", "attribute"),
        ("x = Variable(batch, volatile=True)\nstate[0].out = net(x)\n", "attribute of an item"),
        # a function of the file reads what the region binds, whenever it is called
        ("def show():\n    return net(state)\nx = Variable(batch, volatile=True)\nstate = net(x)\n", "global read"),
        # held in a name and used in a training loop: the use's region would train
        ("x = Variable(b, volatile=True)\nfor s in r:\n    out = net(x)\n    out.sum().backward()\n", "use trains"),
        # a use that may see the volatile value or another one
        ("x = Variable(b, volatile=True)\nif c:\n    x = y\nfor s in r:\n    net(w).sum().backward()\n    print(net(x))\n", "two bindings"),
        # a function reads the held value: who calls it, and how, is not followed
        ("def show():\n    return net(x)\nx = Variable(b, volatile=True)\nfor s in r:\n    net(w).sum().backward()\n    print(net(x))\n", "read by a function"),
        # the statement holding the call runs a forward itself
        ("h = enc(Variable(b, volatile=True))\nfor s in r:\n    net(s).sum().backward()\n    print(dec(h))\n", "held value computed"),
        # a lambda runs later, outside any region around its definition
        ("predict = lambda b: net(Variable(b, volatile=True))\n", "lambda"),
        # a generator: the grad mode would leak across the yield
        ("def gen(net, opt):\n    opt.step()\n    x = Variable(b, volatile=True)\n    yield net(x)\n", "yields"),
    ],
)
def test_regions_that_cannot_be_delimited_are_left(code, why):
    source = "import torch\nfrom torch.autograd import Variable\n" + code
    assert rewrite(source) == (source, 0), why


def test_flag_parameters_are_left_with_the_finding():
    code = '''\
    import torch
    from torch.autograd import Variable


    def get_batch(source, i, evaluation=False):
        return Variable(source[i], volatile=evaluation)
    '''
    result = migrate(code)
    assert [(f.code, f.start[0]) for f in result.remaining] == [("GL001", 6)]
    assert "volatile=evaluation" in result.source


RUN = '''
import io, json, sys, contextlib, warnings
import torch
warnings.simplefilter("error", UserWarning)  # no deprecation left: volatile would warn
buf = io.StringIO()
with contextlib.redirect_stdout(buf):
    exec(compile(open(sys.argv[1]).read(), sys.argv[1], "exec"), {"__name__": "__main__"})
ns = {}
with contextlib.redirect_stdout(io.StringIO()):
    exec(compile(open(sys.argv[1]).read(), sys.argv[1], "exec"), ns)
print(json.dumps({"out": buf.getvalue(), "graph": ns["out"].requires_grad}))
'''


# The programs of the tests below run under torch, and importing torch costs about
# 2 s of CPU a process: the first test to ask runs every test's programs in one
# process (BATCH), each under its own runner in a namespace of its own. Nothing
# one leaves behind can hide another's failure: each runner turns every
# UserWarning into an error, so a warning torch emits once per process fails the
# first program that causes it (and then the batch, and every test that asks for
# it, fails); each starts with gradients on, as in a fresh process, and seeds its
# own generator. A program asked for that is not in the batch runs in a batch of
# its own.
BATCH = '''
import contextlib, io, json, sys, warnings
import torch
results = []
for runner, path in json.load(open(sys.argv[1])):
    torch.set_grad_enabled(True)
    sys.argv[1:] = [path]
    out = io.StringIO()
    with warnings.catch_warnings(), contextlib.redirect_stdout(out):
        exec(compile(open(runner).read(), runner, "exec"), {"__name__": "__main__"})
    results.append(json.loads(out.getvalue()))
print(json.dumps(results))
'''

# (runner, source) -> what the runner printed for it
_RAN: dict = {}


def _planned():
    """Each test's runner and programs, as the test asks for them."""
    return [_script_versions(), _generator_versions(), _held_test_set_versions(), _flag_versions()]


def _run_batch(directory, pairs):
    import json

    pairs = list(dict.fromkeys(pairs))
    listed = []
    for i, (runner_text, text) in enumerate(pairs):
        runner, path = directory / f"run{i}.py", directory / f"program{i}.py"
        runner.write_text(runner_text)
        path.write_text(text)
        listed.append([str(runner), str(path)])
    plan = directory / "batch.json"
    plan.write_text(json.dumps(listed))
    proc = subprocess.run([sys.executable, "-c", BATCH, str(plan)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    _RAN.update(zip(pairs, json.loads(proc.stdout)))


def _run_each(tmp_path, runner_text, sources):
    """What ``runner_text`` prints (JSON) for each of ``sources``, run under torch."""
    wanted = [(runner_text, text) for text in sources.values()]
    if not _RAN:
        _run_batch(tmp_path, [pair for runner, versions in _planned() for pair in ((runner, t) for t in versions.values())])
    missing = [pair for pair in wanted if pair not in _RAN]
    if missing:
        _run_batch(tmp_path, missing)
    return {name: _RAN[(runner_text, text)] for name, text in sources.items()}


@functools.lru_cache(maxsize=None)
def _migrated(code: str):
    return migrate(code)


def _script_versions():
    reference = SCRIPT.replace("    x = Variable(x, volatile=True)\n", "").replace("Variable(x)", "x").replace("Variable(y)", "y")
    reference = reference.replace("from torch.autograd import Variable\n", "")
    return RUN, {"migrated": _migrated(SCRIPT).source, "unguarded": reference}


def test_migrated_script_runs_the_same_without_a_graph(tmp_path):
    pytest.importorskip("torch")
    results = _run_each(tmp_path, *_script_versions())
    migrated, unguarded = results["migrated"], results["unguarded"]
    assert migrated["out"] == unguarded["out"]  # same numbers
    assert migrated["graph"] is False and unguarded["graph"] is True  # no graph where 0.3 recorded none


# The word-language-model generator: a module-level volatile input moved and then
# refilled in place through ``.data`` while the model samples from it.
GENERATOR = '''\
import torch
from torch.autograd import Variable

torch.manual_seed(0)
net = torch.nn.Linear(3, 3)
x = Variable(torch.rand(1, 3), volatile=True)
if torch.__version__:
    x.data = x.data.double().float()
words = []
for i in range(4):
    out = net(x)
    x.data.fill_(float(out.argmax()))
    words.append(int(out.argmax()))
print(words, out.tolist())
'''


def _generator_versions():
    return RUN, {"migrated": _migrated(GENERATOR).source, "unguarded": GENERATOR.replace(", volatile=True)", ")")}


def test_migrated_generator_runs_the_same_without_a_graph(tmp_path):
    pytest.importorskip("torch")
    result = _migrated(GENERATOR)
    assert result.fixed["GL001"] == 1 and result.remaining == []
    results = _run_each(tmp_path, *_generator_versions())
    assert results["migrated"]["out"] == results["unguarded"]["out"]
    assert results["migrated"]["graph"] is False and results["unguarded"]["graph"] is True


# A tutorial of the era: the test set is made volatile once, at module level, and
# evaluated inside the training loop every other step and after it.
HELD_TEST_SET = '''\
import torch
from torch.autograd import Variable

torch.manual_seed(0)
net = torch.nn.Linear(4, 3)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
data = [(torch.randn(8, 4), torch.randint(0, 3, (8,))) for _ in range(4)]
test_x = Variable(torch.randn(16, 4), volatile=True).float()
test_y = torch.randint(0, 3, (16,))
print(test_x.data.shape)
for step, (x, y) in enumerate(data):
    opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(net(Variable(x)), Variable(y))
    loss.backward()
    opt.step()
    if step % 2 == 0:
        out = net(test_x)
        acc = (out.argmax(1) == test_y).sum().item()
        print(step, acc, round(loss.item(), 4))
out = net(test_x[:4])
print(out.argmax(1).tolist())
'''


def _held_test_set_versions():
    return RUN, {"migrated": _migrated(HELD_TEST_SET).source, "unguarded": HELD_TEST_SET.replace(", volatile=True)", ")")}


def test_migrated_held_test_set_runs_the_same_without_a_graph(tmp_path):
    pytest.importorskip("torch")
    result = _migrated(HELD_TEST_SET)
    assert result.fixed["GL001"] == 1 and result.remaining == []
    assert "    if step % 2 == 0:\n        with torch.no_grad():\n            out = net(test_x)\n" in result.source
    assert "with torch.no_grad():\n    out = net(test_x[:4])\n    print(out.argmax(1).tolist())\n" in result.source
    results = _run_each(tmp_path, *_held_test_set_versions())
    assert results["migrated"]["out"] == results["unguarded"]["out"]
    assert len(results["migrated"]["out"].splitlines()) == 4
    assert results["migrated"]["graph"] is False and results["unguarded"]["graph"] is True


# A 0.3-era training script whose batch helper takes the flag as a parameter
# (the word-language-model example's ``get_batch(..., evaluation=True)``): every
# call passes a constant or the default, so the flag is known per call site.
FLAG_HELPER = '''\
import torch
import torch.nn as nn
from torch.autograd import Variable

torch.manual_seed(0)
model = nn.Linear(4, 3)
criterion = nn.CrossEntropyLoss()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
source = torch.randn(12, 4)
labels = torch.randint(0, 3, (12,))


def get_batch(i, evaluation=False):
    data = Variable(source[i:i + 4], volatile=evaluation)
    target = Variable(labels[i:i + 4])
    return data, target


def train():
    for i in range(0, 12, 4):
        data, targets = get_batch(i)
        opt.zero_grad()
        loss = criterion(model(data), targets)
        loss.backward()
        opt.step()


def evaluate():
    total_loss = 0
    for i in range(0, 12, 4):
        data, targets = get_batch(i, evaluation=True)
        output = model(data)
        total_loss += len(data) * criterion(output, targets).data
    return total_loss / 12, output


for epoch in range(2):
    train()
    val_loss, last_output = evaluate()
    print(epoch, float(val_loss))
'''

FLAG_HELPER_EVALUATE_MIGRATED = '''\
def evaluate():
    total_loss = 0
    for i in range(0, 12, 4):
        with torch.no_grad():
            data, targets = get_batch(i, evaluation=True)
            output = model(data)
            total_loss += len(data) * criterion(output, targets).data
    return total_loss / 12, output
'''


def test_a_flag_parameter_known_at_every_call_is_resolved_per_call_site():
    result = migrate(FLAG_HELPER)
    assert "def get_batch(i, evaluation=False):\n    data = source[i:i + 4].detach()\n    target = labels[i:i + 4].detach()\n" in result.source
    assert FLAG_HELPER_EVALUATE_MIGRATED in result.source
    # the training call passes the default: nothing changes around it
    assert "    for i in range(0, 12, 4):\n        data, targets = get_batch(i)\n        opt.zero_grad()\n" in result.source
    assert result.fixed["GL001"] == 1
    assert result.remaining == []


@pytest.mark.parametrize(
    "change, why",
    [
        # a caller decides at run time
        (("val_loss, last_output = evaluate()", "val_loss, last_output = evaluate()\n    get_batch(0, evaluation=epoch > 0)"), "run-time value"),
        # passed through *args: what it holds is not shown
        (("val_loss, last_output = evaluate()", "val_loss, last_output = evaluate()\n    get_batch(*(0, True))"), "star args"),
        # the helper is used some other way: its callers are not all known
        (("val_loss, last_output = evaluate()", "val_loss, last_output = evaluate()\n    helpers = [get_batch]"), "escapes as a value"),
        # the volatile result leaves the function: the region cannot hold what it flows into
        (("data, targets = get_batch(i, evaluation=True)", "return get_batch(i, evaluation=True)"), "returned"),
        # a module imported for its functions: other files may call the helper
        (("for epoch in range(2):", "def main():\n  for epoch in range(2):"), "imported"),
        # a module-level loop that calls none of the file's functions does not make it a program
        # (nor does one inside a ``try:``)
        (("for epoch in range(2):", "try:\n  for name in ('a', 'b'):\n    print(name)\nexcept KeyError:\n  pass\ndef main():\n  for epoch in range(2):"), "registers in a try"),
        (("for epoch in range(2):", "for name in ('a', 'b'):\n    print(name)\ndef main():\n  for epoch in range(2):"), "registers"),
    ],
)
def test_a_flag_parameter_not_known_at_every_call_is_left(change, why):
    old, new = change
    code = FLAG_HELPER.replace(old, new)
    assert code != FLAG_HELPER
    result = migrate(code)
    assert result.skipped is None, why
    assert "volatile=evaluation" in result.source, why
    assert [(f.code, f.start[0]) for f in result.remaining] == [("GL001", 14)], why


@pytest.mark.parametrize(
    "wrap",
    [
        # the word-language-model example: Ctrl-C ends training early, then the test set
        lambda loop: f"try:\n{_indent(loop)}except KeyboardInterrupt:\n    print('stopped')\nval_loss, last_output = evaluate()\n",
        lambda loop: f"with open('log.txt', 'w') as log:\n{_indent(loop)}",
        lambda loop: f"if torch.__version__:\n    pass\nelif False:\n    pass\nelse:\n{_indent(loop)}",
    ],
    ids=["try", "with", "else"],
)
def test_a_script_whose_epoch_loop_sits_in_a_block_is_a_program(wrap):
    loop = FLAG_HELPER[FLAG_HELPER.index("for epoch in range(2):") :]
    code = FLAG_HELPER.replace(loop, wrap(loop))
    result = migrate(code)
    assert FLAG_HELPER_EVALUATE_MIGRATED in result.source
    assert result.fixed["GL001"] == 1
    assert result.remaining == []


def _indent(text: str) -> str:
    return "".join(f"    {line}\n" for line in text.splitlines())


FLAG_RUN = '''
import io, json, sys, contextlib, warnings
import torch
warnings.simplefilter("error", UserWarning)
buf = io.StringIO()
ns = {"__name__": "__main__"}
with contextlib.redirect_stdout(buf):
    exec(compile(open(sys.argv[1]).read(), sys.argv[1], "exec"), ns)
print(json.dumps({"out": buf.getvalue(), "graph": ns["last_output"].requires_grad}))
'''


def _flag_versions():
    return FLAG_RUN, {"migrated": _migrated(FLAG_HELPER).source, "dropped": FLAG_HELPER.replace(", volatile=evaluation)", ")")}


def test_resolved_flag_runs_the_same_without_a_graph_in_evaluation(tmp_path):
    pytest.importorskip("torch")
    # Dropping the flag alone keeps the numbers but records a graph in evaluation
    # (the model's last output carries one).
    results = _run_each(tmp_path, *_flag_versions())
    assert results["migrated"]["out"] == results["dropped"]["out"]
    assert len(results["migrated"]["out"].splitlines()) == 2
    assert results["migrated"]["graph"] is False and results["dropped"]["graph"] is True
