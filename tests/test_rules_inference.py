"""GL101-GL107: positives, negatives, fixes and messages, pyupgrade-style tables."""

from __future__ import annotations

import textwrap

import pytest

from harness import fix, lint, messages
from gradlint.engine import LintSettings, lint_source
from gradlint.rule import RuleOptions


def d(code: str) -> str:
    return textwrap.dedent(code)


# -- GL101 eval-without-no-grad ---------------------------------------------------

GL101_POSITIVE = [
    # plain evaluate(): at the first forward
    (
        """\
        def evaluate(model, loader):
            model.eval()
            for x, y in loader:
                out = model(x)
        """,
        [(4, 15)],
    ),
    # attribute chains and .forward
    (
        """\
        class Evaluator:
            def run(self, batch):
                self.model.eval()
                return self.model.forward(batch).argmax(1)
        """,
        [(4, 16)],
    ),
    # train(False), and a chain ending in eval() at the assignment
    (
        """\
        def score(net, x):
            net.train(False)
            return net(x).mean().item()
        """,
        [(3, 12)],
    ),
    (
        """\
        import torchvision
        model = torchvision.models.resnet18().cuda().eval()
        for x in xs:
            print(model(x))
        """,
        [(4, 11)],
    ),
    (
        """\
        def run(model, x, device):
            model.to(device).eval()
            y = model(x)
        """,
        [(3, 9)],
    ),
    # one finding per region, even with two models and several calls
    (
        """\
        def translate(encoder, decoder, src):
            encoder.eval()
            decoder.eval()
            memory = encoder(src)
            out = decoder(memory)
            return decoder(out).argmax(-1).tolist()
        """,
        [(4, 14)],
    ),
    # only the unguarded forward is reported
    (
        """\
        import torch
        def evaluate(model, a, b):
            model.eval()
            with torch.no_grad():
                p = model(a)
            q = model(b)
        """,
        [(6, 9)],
    ),
    # one call site under no_grad, one not: the function is still reported
    (
        """\
        import torch
        def evaluate(model, x):
            model.eval()
            return model(x).item()
        with torch.no_grad():
            a = evaluate(m, x)
        b = evaluate(m, x)
        """,
        [(4, 12)],
    ),
    # a bare no_grad() statement does not guard (GL107 says why)
    (
        """\
        import torch
        def predict(model, x):
            model.eval()
            torch.no_grad()
            return model(x).argmax(1)
        """,
        [(5, 12)],
    ),
    # each model's region ends at its own train(): enc(a) on line 6 runs in train mode
    (
        """\
        def loop(enc, dec, a):
            enc.eval()
            dec.eval()
            h = enc(a).item()
            enc.train()
            y = enc(a)
            z = dec(a).item()
        """,
        [(4, 9)],
    ),
    # a region ends at train(); a second eval() opens another
    (
        """\
        def loop(model, a, b):
            model.eval()
            p = model(a).item()
            model.train()
            q = model(b)
            model.eval()
            r = model(b).item()
        """,
        [(3, 9), (7, 9)],
    ),
]

GL101_NEGATIVE = [
    # guarded, in every spelling
    """\
    import torch
    def f(model, x):
        model.eval()
        with torch.no_grad():
            return model(x)
    """,
    """\
    from torch import no_grad as ng
    @ng()
    def f(model, x):
        model.eval()
        return model(x)
    """,
    """\
    import torch as T
    @T.inference_mode()
    def f(model, x):
        model.eval()
        return model(x)
    """,
    """\
    import torch
    def f(model, x):
        model.eval()
        with torch.autocast("cuda"), torch.no_grad():
            return model(x)
    """,
    """\
    import torch
    def f(model, x):
        model.eval()
        torch.set_grad_enabled(False)
        return model(x)
    """,
    # decided at run time, or explicitly enabled
    """\
    import torch
    def f(model, x, phase):
        model.eval()
        with torch.set_grad_enabled(phase == "train"):
            return model(x)
    """,
    """\
    import torch
    @torch.enable_grad()
    def f(model, x):
        model.eval()
        return model(x)
    """,
    # gradients needed
    """\
    def f(model, x, y, loss_fn):
        model.eval()
        x.requires_grad_()
        loss_fn(model(x), y).backward()
        return x.grad
    """,
    """\
    import torch
    def f(model, x):
        model.eval()
        out = model(x)
        return torch.autograd.grad(out.sum(), x)
    """,
    """\
    def f(model, x, opt):
        model.eval()
        opt.zero_grad()
        model(x).sum().backward()
        opt.step()
    """,
    # no region: eval() is conditional in an ordinary function, or nothing follows it
    """\
    def f(model, x, phase):
        if phase == "val":
            model.eval()
        return model(x)
    """,
    """\
    def load(path):
        model = Net()
        model.load_state_dict(torch.load(path))
        model.eval()
        return model
    """,
    # a dedicated function whose mode is chosen by a branch
    """\
    def evaluate(model, x, train):
        if train:
            model.train()
        else:
            model.eval()
        return model(x).item()
    """,
    # a different model, a rebinding, a nested function
    """\
    def f(model, other, x):
        model.eval()
        return other(x)
    """,
    """\
    def f(model, x):
        model.eval()
        model = build()
        return model(x)
    """,
    """\
    def f(model):
        model.eval()
        def run(x):
            return model(x)
        return run
    """,
    # frozen model
    """\
    def f(model, x):
        model.requires_grad_(False)
        model.eval()
        return model(x)
    """,
    """\
    def f(model, x):
        for name, param in model.named_parameters():
            param.requires_grad_(False)
        model.eval()
        return model(x)
    """,
    # every call site under no_grad, transitively
    """\
    import torch
    def inner(model, x):
        model.eval()
        return model(x).item()
    def outer(model, x):
        return inner(model, x)
    with torch.no_grad():
        outer(m, x)
    """,
    # module-wide switch
    """\
    import torch
    torch.set_grad_enabled(False)
    def f(model, x):
        model.eval()
        return model(x)
    """,
    # Lightning hooks
    """\
    from lightning.pytorch import LightningModule
    class M(LightningModule):
        def validation_step(self, batch, idx):
            self.eval()
            return self(batch)
    """,
    # forward / training_step / loss helpers
    """\
    class Net:
        def forward(self, x):
            self.backbone.eval()
            return self.head(self.backbone(x))
    """,
    """\
    def distillation_loss(teacher, student, x):
        teacher.eval()
        return (teacher(x) - student(x)).pow(2).mean()
    """,
    # outputs returned to a caller that trains
    """\
    def scores(model, x):
        model.eval()
        return model(x)
    def step(model, x, opt):
        scores(model, x).sum().backward()
        opt.step()
    """,
    # the guard is chosen at run time
    """\
    import contextlib, torch
    def f(model, x, train):
        model.train(train)
        model.eval()
        with torch.no_grad() if not train else contextlib.nullcontext():
            return model(x)
    """,
    """\
    import contextlib, torch
    def f(model, x, train):
        ctx = contextlib.nullcontext() if train else torch.inference_mode()
        model.eval()
        with ctx:
            return model(x)
    """,
    # decorated after the fact
    """\
    import torch
    def evaluate(model, x):
        model.eval()
        return model(x)
    evaluate = torch.no_grad()(evaluate)
    """,
    # `with torch.no_grad:` is GL102's finding
    """\
    import torch
    def f(model, x):
        model.eval()
        with torch.no_grad:
            return model(x)
    """,
]


@pytest.mark.parametrize("src,expected", GL101_POSITIVE)
def test_gl101_findings(src, expected):
    assert lint(src, select=["GL101"]) == [(r, c, "GL101") for r, c in expected]


# Regions that a name opens (issue 26): an eval() nested in an ``if`` counts as the
# model's switch to eval mode only in a function or a loop named for inference,
# so only the preview tier takes it for proof.
GL101_NAMED_REGIONS = [
    # a dedicated function: eval() in an if at the top
    (
        """\
        def validate(model, loader, keep_mode):
            if not keep_mode:
                model.eval()
            return [model(x).item() for x in loader]
        """,
        [(4, 13)],
    ),
    # a dedicated loop over a validation loader
    (
        """\
        def run(model, val_loader, first):
            for i, x in enumerate(val_loader):
                if i == first:
                    model.eval()
                print(model(x).sum().item())
        """,
        [(5, 15)],
    ),
]


@pytest.mark.parametrize("src,expected", GL101_NAMED_REGIONS)
def test_gl101_region_opened_by_a_name_is_preview(src, expected):
    assert lint(src, select=["GL101"]) == []
    assert lint(src, select=["GL101"], options=RuleOptions(preview=True)) == [(r, c, "GL101") for r, c in expected]



@pytest.mark.parametrize("src", GL101_NEGATIVE)
def test_gl101_not_flagged(src):
    assert lint(src, select=["GL101"]) == []


_FROZEN_ATTRIBUTE = """\
import torch
from torch import nn


class Saliency(nn.Module):
    def forward(self, x):
        return x.mean(1)


class MaskMaker:
    def __init__(self, device):
        self.net = Saliency().eval().requires_grad_(False).to(device)

    def __call__(self, images):
        masks = []
        for img in images:
            masks.append(self.net(img) > 0.5)
        return masks
"""


def test_gl101_attribute_frozen_where_built_records_no_graph_of_its_own():
    # Every parameter off in the chain that builds it, in ``__init__``, the attribute's one
    # binding: its forwards record a graph only through inputs that need one.
    assert lint(_FROZEN_ATTRIBUTE, select=["GL101"]) == []
    # Not frozen, or rebound elsewhere without the freeze: eval mode alone stops nothing.
    assert lint(_FROZEN_ATTRIBUTE.replace(".requires_grad_(False)", ""), select=["GL101"]) == [(17, 26, "GL101")]
    assert lint(_FROZEN_ATTRIBUTE.replace(".requires_grad_(False)", ".requires_grad_(False).requires_grad_()"), select=["GL101"]) == [(17, 26, "GL101")]
    rebound = _FROZEN_ATTRIBUTE.replace("    def __call__", "    def reload(self):\n        self.net = Saliency().eval()\n\n    def __call__")
    assert lint(rebound, select=["GL101"]) == [(20, 26, "GL101")]
    twice = _FROZEN_ATTRIBUTE.replace("        self.net = Saliency()", "        self.net = Saliency().eval()\n        self.net = Saliency()")
    assert lint(twice, select=["GL101"]) == [(18, 26, "GL101")]


def test_gl101_message_names_model_and_eval_line():
    src = """\
        class Evaluator:
            def run(self, batch):
                self.net.train(False)
                return self.net(batch).argmax(1)
    """
    assert messages(src, ["GL101"]) == [
        "`self.net` is in eval mode (line 3) but gradients are still enabled here: `.eval()` does not stop "
        "autograd, so this forward records a graph and keeps its activations alive; run it under `torch.no_grad()`"
    ]



def test_gl101_messages_for_inference_code_and_containers():
    src = """\
        def sample_image(generator, z):
            save_image(generator(z).data, "out.png")


        def validate(models, x):
            for k in models:
                models[k].eval()
            return models["encoder"](x).mean().item()


        for images, labels in test_loader:
            print(net(images).argmax(1))
    """
    in_eval_mode = (
        "`models[\"encoder\"]` is in eval mode (line 7) but gradients are still enabled here: `.eval()` does not stop "
        "autograd, so this forward records a graph and keeps its activations alive; run it under `torch.no_grad()`"
    )
    assert messages(src, ["GL101"], options=RuleOptions(preview=True)) == [
        "`generator` runs for inference in `sample_image()` but gradients are still enabled here: this forward "
        "records a graph and keeps its activations alive; run it under `torch.no_grad()`",
        in_eval_mode,
        "`net` runs for inference in a loop over `test_loader` but gradients are still enabled here: this forward "
        "records a graph and keeps its activations alive; run it under `torch.no_grad()`",
    ]
    # inference judged from the names `sample_image` and `test_loader`: preview only
    assert messages(src, ["GL101"]) == [in_eval_mode]


_EVALUATE = """\
def evaluate(model, loader):
    model.eval()
    hits = 0
    for x, y in loader:
        hits += (model(x).argmax(1) == y).sum().item()
    return hits
"""

GL101_FIXES = [
    # the whole body: a decorator, and `import torch` added; unsafe, as the file imports
    # nothing of torch and may run where it is not installed
    (_EVALUATE, "import torch\n\n@torch.no_grad()\n" + _EVALUATE, "unsafe"),
    # the same in a file that imports from torch: safe
    ("from torch import nn\n\n\n" + _EVALUATE, "from torch import nn\nimport torch\n\n\n@torch.no_grad()\n" + _EVALUATE, "safe"),
    # after training: wrap the loop, keep comments, reuse the torch alias; unsafe (backward in the function)
    (
        """\
        import torch as T
        def fit(model, train, val, opt):
            for x in train:
                model(x).sum().backward()
                opt.step()
            model.eval()
            total = 0.0
            # validation pass
            for x in val:  # no labels
                # per-batch score
                total += model(x).mean().item()
            print(total)
        """,
        """\
        import torch as T
        def fit(model, train, val, opt):
            for x in train:
                model(x).sum().backward()
                opt.step()
            model.eval()
            total = 0.0
            # validation pass
            with T.no_grad():
                for x in val:  # no labels
                    # per-batch score
                    total += model(x).mean().item()
            print(total)
        """,
        "unsafe",
    ),
    # outputs returned to a caller of the file that only prints them: reported, but
    # the fix is unsafe (another caller could be given the graph)
    (
        """\
        import torch
        def predict(model, x):
            model.eval()
            return model(x)
        def show(model, x):
            print(predict(model, x).argmax(1))
        """,
        """\
        import torch
        @torch.no_grad()
        def predict(model, x):
            model.eval()
            return model(x)
        def show(model, x):
            print(predict(model, x).argmax(1))
        """,
        "unsafe",
    ),
    # outputs stored on self: unsafe; statements before eval() that compute keep the wrap
    (
        """\
        import torch
        class Cache:
            def fill(self, model, x):
                h = self.proj(x)
                model.eval()
                self.out = model(h)
        """,
        """\
        import torch
        class Cache:
            def fill(self, model, x):
                h = self.proj(x)
                model.eval()
                with torch.no_grad():
                    self.out = model(h)
        """,
        "unsafe",
    ),
    # a one-line for body is re-indented
    (
        """\
        import torch
        def f(model, xs, h):
            h = model.embed(h)
            model.eval()
            for x in xs: print(model(x).item())
        """,
        """\
        import torch
        def f(model, xs, h):
            h = model.embed(h)
            model.eval()
            with torch.no_grad():
                for x in xs: print(model(x).item())
        """,
        "safe",
    ),
]


# Module-level forwards, which run once (issue 26): the default tier leaves them to
# the preview tier, whose fix is safe.
GL101_ONE_OFF_FIXES = [
    # module level: the smallest run of statements holding the forwards
    (
        """\
        import torch
        net = load().eval()
        x = torch.load("x.pt")
        a = net(x)
        print(a)
        b = net(x * 2)
        print(b)
        """,
        """\
        import torch
        net = load().eval()
        x = torch.load("x.pt")
        with torch.no_grad():
            a = net(x)
            print(a)
            b = net(x * 2)
        print(b)
        """,
    ),
    # inside `if __name__ == "__main__":`, the forward pass, not the whole block
    (
        """\
        import torch
        net = load().eval()
        if __name__ == "__main__":
            x = torch.load("x.pt")
            # predict
            print(net(x).argmax())
            print("done")
        else:
            print(net)
        """,
        """\
        import torch
        net = load().eval()
        if __name__ == "__main__":
            x = torch.load("x.pt")
            # predict
            with torch.no_grad():
                print(net(x).argmax())
            print("done")
        else:
            print(net)
        """,
    ),
    # calls in both branches: the whole `if`
    (
        """\
        import torch
        net = load().eval()
        if fast:
            y = net(x)
        else:
            y = net(x).mean()
        """,
        """\
        import torch
        net = load().eval()
        with torch.no_grad():
            if fast:
                y = net(x)
            else:
                y = net(x).mean()
        """,
    ),
]


@pytest.mark.parametrize("src,out,safety", GL101_FIXES)
def test_gl101_fix(src, out, safety):
    source = d(src)
    findings = lint_source(source, "x.py", LintSettings(frozenset({"GL101"}))).findings
    assert [f.fix.applicability for f in findings] == [safety]
    assert fix(src, select=["GL101"], unsafe=True) == d(out)
    if safety == "unsafe":
        assert fix(src, select=["GL101"]) == source


@pytest.mark.parametrize("src,out", GL101_ONE_OFF_FIXES)
def test_gl101_one_off_fix_is_preview(src, out):
    preview = RuleOptions(preview=True)
    assert lint(src, select=["GL101"]) == []
    findings = lint_source(d(src), "x.py", LintSettings(frozenset({"GL101"}), preview)).findings
    assert [f.fix.applicability for f in findings] == ["safe"]
    assert fix(src, select=["GL101"], options=preview) == d(out)


@pytest.mark.parametrize(
    "src",
    [
        # async: the grad mode would leak across awaits
        """\
        import torch
        async def f(model, x):
            model.eval()
            return model(x).item()
        """,
        # a guard inside the range to wrap
        """\
        import torch
        def f(model, x, h):
            h = h * 2
            model.eval()
            a = model(x).item()
            with torch.no_grad():
                b = model(x).item()
            c = model(x).item()
        """,
        # a yield inside the range (no decorator: the function computes before eval())
        """\
        import torch
        def f(model, xs):
            h = model.embed(xs)
            model.eval()
            for x in xs:
                yield model(x).item()
        """,
    ],
)
def test_gl101_reported_without_fix(src):
    findings = lint_source(d(src), "x.py", LintSettings(frozenset({"GL101"}))).findings
    assert len(findings) == 1 and findings[0].fix is None


def test_gl101_fix_honours_fix_grad_guard():
    src = """\
        import torch
        def evaluate(model, x):
            model.eval()
            return model(x).argmax(1).tolist()
    """
    assert fix(src, select=["GL101"], options=RuleOptions(fix_grad_guard="inference_mode")) == d(
        """\
        import torch
        @torch.inference_mode()
        def evaluate(model, x):
            model.eval()
            return model(x).argmax(1).tolist()
        """
    )


def test_gl101_and_gl001_share_the_decorator():
    src = """\
        import torch
        from torch.autograd import Variable
        def evaluate(model, x):
            model.eval()
            return model(Variable(x, volatile=True)).argmax(1).tolist()
    """
    assert fix(src, select=["GL001", "GL101"]) == d(
        """\
        import torch
        @torch.no_grad()
        def evaluate(model, x):
            model.eval()
            return model(x.detach()).argmax(1).tolist()
        """
    )


# -- GL102 grad-mode-not-called ---------------------------------------------------------


@pytest.mark.parametrize(
    "src,expected",
    [
        ("import torch\nwith torch.no_grad:\n    pass\n", [(2, 6)]),
        ("import torch\nwith torch.inference_mode as im:\n    pass\n", [(2, 6)]),
        ("from torch import enable_grad\nwith enable_grad:\n    pass\n", [(2, 6)]),
        ("from torch import no_grad as ng\nwith a(), ng:\n    pass\n", [(2, 11)]),
        ("import torch.autograd as ag\nwith ag.no_grad:\n    pass\n", [(2, 6)]),
        ("import torch\nwith torch.set_grad_enabled:\n    pass\n", [(2, 6)]),
        ("import torch\n@torch.set_grad_enabled\ndef f(): pass\n", [(2, 2)]),
        # fine
        ("import torch\nwith torch.no_grad():\n    pass\n", []),
        ("import torch\n@torch.no_grad\ndef f(): pass\n", []),
        ("import torch\n@torch.inference_mode\ndef f(): pass\n", []),
        ("import torch\n@torch.enable_grad\ndef f(): pass\n", []),
        ("import torch\n@torch.set_grad_enabled(False)\ndef f(): pass\n", []),
        ("no_grad = make()\nwith no_grad:\n    pass\n", []),
        ("import torch\nguard = torch.no_grad()\nwith guard:\n    pass\n", []),
    ],
)
def test_gl102_findings(src, expected):
    assert lint(src, select=["GL102"]) == [(r, c, "GL102") for r, c in expected]


@pytest.mark.parametrize(
    "src,out",
    [
        ("import torch\nwith torch.no_grad:\n    pass\n", "import torch\nwith torch.no_grad():\n    pass\n"),
        (
            "from torch import inference_mode\nwith inference_mode as im, open(p) as f:\n    pass\n",
            "from torch import inference_mode\nwith inference_mode() as im, open(p) as f:\n    pass\n",
        ),
        ("import torch\nwith torch.set_grad_enabled:\n    pass\n", None),
    ],
)
def test_gl102_fix(src, out):
    assert fix(src, select=["GL102"]) == (src if out is None else out)


def test_gl102_messages():
    assert messages("import torch\nwith torch.no_grad:\n    pass\n", ["GL102"]) == [
        "`torch.no_grad` is the class, not a context manager: entering it raises `TypeError: 'type' object does "
        "not support the context manager protocol` (`AttributeError: __enter__` before Python 3.11); call it: "
        "`torch.no_grad()`"
    ]
    assert messages("import torch\n@torch.set_grad_enabled\ndef f(): pass\n", ["GL102"]) == [
        "`torch.set_grad_enabled` as a bare decorator fails when the function is defined: `TypeError: "
        "set_grad_enabled(): argument 'enabled' (position 1) must be bool, not function`; call it: "
        "`torch.set_grad_enabled(False)`"
    ]


# -- GL103 backward-under-no-grad --------------------------------------------------------


@pytest.mark.parametrize(
    "src,expected",
    [
        (
            """\
            import torch
            with torch.no_grad():
                loss = model(x).sum()
            loss.backward()
            """,
            [(4, 1)],
        ),
        (
            """\
            import torch
            def f(model, x):
                with torch.inference_mode():
                    model(x).sum().backward()
            """,
            [(4, 9)],
        ),
        (
            """\
            import torch
            @torch.no_grad()
            def f(model, x, w):
                y = model(x).sum()
                return torch.autograd.grad(outputs=y, inputs=w)
            """,
            [(5, 12)],
        ),
        (
            """\
            import torch
            def f(model, batch):
                with torch.no_grad():
                    out = model(**batch)
                loss = out.loss
                loss.backward()
            """,
            [(6, 5)],
        ),
        (
            """\
            import torch
            def f(model, x):
                torch.set_grad_enabled(False)
                loss = -model(x)
                torch.autograd.backward(loss)
            """,
            [(5, 5)],
        ),
        (
            """\
            import torch
            loss = None
            with torch.no_grad():
                loss = model(x).sum()
            loss.backward()
            """,
            [(5, 1)],  # the earlier ``loss = None`` never reaches the backward
        ),
        # fine
        (
            """\
            import torch
            loss = model(x).sum()
            with torch.no_grad():
                loss.backward()
            """,
            [],
        ),
        (
            """\
            import torch
            with torch.no_grad():
                loss = losses.get("total")
            loss.backward()
            """,
            [],
        ),
        (
            """\
            import torch
            with torch.no_grad():
                loss = model(x).sum()
            loss.requires_grad_()
            loss.backward()
            """,
            [],
        ),
        (
            """\
            import torch
            with torch.no_grad():
                with torch.enable_grad():
                    loss = model(x).sum()
            loss.backward()
            """,
            [],
        ),
        (
            """\
            import torch
            with torch.no_grad():
                w = torch.zeros(3, requires_grad=True)
            w.backward()
            """,
            [],
        ),
    ],
)
def test_gl103_findings(src, expected):
    assert lint(src, select=["GL103"]) == [(r, c, "GL103") for r, c in expected]


def test_gl103_gradient_of_an_inline_reduction():
    # `y.sum()` is computed where torch.autograd.grad is called: under the decorator.
    src = """\
        import torch
        @torch.no_grad()
        def f(model, x, w):
            y = model(x) * 2
            return torch.autograd.grad(y.sum(), w)
    """
    assert lint(src, select=["GL103"]) == [(5, 12, "GL103")]


def test_gl103_message():
    src = "import torch\nwith torch.no_grad():\n    loss = model(x).sum()\nloss.backward()\n"
    assert messages(src, ["GL103"]) == [
        "`loss` is computed under `torch.no_grad()` (line 2), so it has no `grad_fn`: `.backward()` on it raises "
        "`RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn`; compute it "
        "with gradients enabled"
    ]


# -- GL104 requires-grad-false-for-inference ----------------------------------------------


@pytest.mark.parametrize(
    "src,expected",
    [
        ("def f(model, x):\n    x.requires_grad = False\n    return model(x)\n", [(2, 5)]),
        ("def f(net, x):\n    x.requires_grad_(False)\n    return net(x.cuda())\n", [(2, 5)]),
        ("def f(encoder, x):\n    y = x.requires_grad_(False)\n    return encoder.forward(y)\n", [(2, 9)]),
        ("def f(m, batch):\n    m.eval()\n    batch['x'].requires_grad = False\n    return m(batch['x'])\n", [(3, 5)]),
        # fine
        ("def f(model):\n    model.requires_grad_(False)\n", []),
        ("def f(model, x):\n    for p in model.parameters():\n        p.requires_grad = False\n    return model(x)\n", []),
        ("def f(model, x):\n    x.requires_grad = False\n    return x.sum()\n", []),
        ("def f(model, x):\n    y = model(x)\n    x.requires_grad = False\n", []),
        ("import torch\ndef f(model, x):\n    x.requires_grad = False\n    with torch.no_grad():\n        return model(x)\n", []),
        ("def f(model, x, y, opt):\n    x.requires_grad = False\n    model(x).sum().backward()\n", []),
        ("class A:\n    def f(self, x):\n        self.w.requires_grad = False\n        return self.model(self.w)\n", []),
        ("def f(model, x):\n    x.requires_grad = True\n    return model(x)\n", []),
    ],
)
def test_gl104_findings(src, expected):
    assert lint(src, select=["GL104"], options=RuleOptions(preview=True)) == [(r, c, "GL104") for r, c in expected]
    if not any(".eval()" in line or "nn." in line for line in src.splitlines()):
        assert lint(src, select=["GL104"]) == []  # the model is judged from its name only


def test_gl104_default_tier_needs_a_proven_model():
    src = "import torch\n\n\ndef f(model: torch.nn.Module, x):\n    x.requires_grad = False\n    return model(x)\n"
    assert lint(src, select=["GL104"]) == [(5, 5, "GL104")]
    assert lint(src.replace(": torch.nn.Module", ""), select=["GL104"]) == []


def test_gl104_message():
    assert messages("def f(model, x):\n    x.requires_grad = False\n    return model(x)\n", ["GL104"], options=RuleOptions(preview=True)) == [
        "setting `x.requires_grad` to False does not disable gradient tracking: an input does not require grad "
        "anyway, and `model` (line 3) still records a graph through its parameters; run it under "
        "`torch.no_grad()` or `torch.inference_mode()`"
    ]


# -- GL105 global-grad-switch ----------------------------------------------------------------


@pytest.mark.parametrize(
    "src,expected",
    [
        ("import torch\ndef f():\n    torch.set_grad_enabled(False)\n", [(3, 5)]),
        ("import torch\ndef f():\n    ctx = torch.set_grad_enabled(False)\n", [(3, 11)]),
        ("from torch import set_grad_enabled as sge\nclass A:\n    def f(self):\n        if x:\n            sge(False)\n", [(5, 13)]),
        ("import torch\ndef f():\n    torch.set_grad_enabled(mode=False)\n    g()\n", [(3, 5)]),
        # fine
        ("import torch\ntorch.set_grad_enabled(False)\n", []),
        ("import torch\ndef main():\n    torch.set_grad_enabled(False)\n", []),
        ("import torch\ndef f():\n    torch.set_grad_enabled(True)\n", []),
        ("import torch\ndef f(t):\n    torch.set_grad_enabled(t)\n", []),
        ("import torch\ndef f():\n    with torch.set_grad_enabled(False):\n        pass\n", []),
        ("import torch\ndef f():\n    torch.set_grad_enabled(False)\n    g()\n    torch.set_grad_enabled(True)\n", []),
        ("import torch\ndef f():\n    ctx = torch.set_grad_enabled(False)\n    with ctx:\n        g()\n", []),
        ("def f():\n    set_grad_enabled(False)\n", []),
    ],
)
def test_gl105_findings(src, expected):
    assert lint(src, select=["GL105"]) == [(r, c, "GL105") for r, c in expected]


def test_gl105_message():
    assert messages("import torch\ndef predict():\n    torch.set_grad_enabled(False)\n", ["GL105"]) == [
        "`torch.set_grad_enabled(False)` as a statement switches autograd off for the whole thread, not just for "
        "`predict`: gradients stay off after it returns and later backward calls fail; use "
        "`with torch.set_grad_enabled(False):` or `with torch.no_grad():`"
    ]


# -- GL106 redundant-grad-guard ----------------------------------------------------------------


@pytest.mark.parametrize(
    "src,expected",
    [
        ("import torch\nwith torch.no_grad():\n    with torch.no_grad():\n        pass\n", [(3, 10)]),
        ("import torch\n@torch.no_grad\ndef f():\n    with torch.no_grad():\n        pass\n", [(4, 10)]),
        ("import torch\nwith torch.inference_mode():\n    with torch.no_grad():\n        pass\n", [(3, 10)]),
        ("import torch\nwith torch.inference_mode():\n    with torch.inference_mode():\n        pass\n", [(3, 10)]),
        ("import torch\nwith torch.no_grad():\n    with torch.set_grad_enabled(False):\n        pass\n", [(3, 10)]),
        ("import torch\ntorch.set_grad_enabled(False)\nwith torch.no_grad():\n    pass\n", [(3, 6)]),
        # fine
        ("import torch\nwith torch.no_grad():\n    with torch.inference_mode():\n        pass\n", []),
        ("import torch\nwith torch.no_grad():\n    with torch.enable_grad():\n        pass\n", []),
        ("import torch\nwith torch.no_grad():\n    with torch.set_grad_enabled(t):\n        pass\n", []),
        ("import torch\nwith torch.no_grad():\n    with torch.no_grad(), torch.enable_grad():\n        pass\n", []),
        ("import torch\nwith torch.no_grad():\n    def f():\n        with torch.no_grad():\n            pass\n", []),
        ("import torch\n@torch.enable_grad()\ndef f():\n    with torch.no_grad():\n        pass\n", []),
        ("import torch\nwith torch.no_grad():\n    pass\nwith torch.no_grad():\n    pass\n", []),
    ],
)
def test_gl106_findings(src, expected):
    assert lint(src, select=["GL106"]) == [(r, c, "GL106") for r, c in expected]


@pytest.mark.parametrize(
    "src,out",
    [
        (
            """\
            import torch
            @torch.no_grad()
            def f(model, xs):
                out = []
                # per batch
                with torch.no_grad():  # again
                    for x in xs:
                        # forward
                        out.append(model(x))
                return out
            """,
            """\
            import torch
            @torch.no_grad()
            def f(model, xs):
                out = []
                # per batch
                # again
                for x in xs:
                    # forward
                    out.append(model(x))
                return out
            """,
        ),
        (
            """\
            import torch
            with torch.no_grad():
                with torch.autocast("cpu"), torch.no_grad():
                    y = f(x)
            """,
            """\
            import torch
            with torch.no_grad():
                with torch.autocast("cpu"):
                    y = f(x)
            """,
        ),
        (
            """\
            import torch
            with torch.no_grad():
                with torch.no_grad(), torch.autocast("cpu"):
                    y = f(x)
            """,
            """\
            import torch
            with torch.no_grad():
                with torch.autocast("cpu"):
                    y = f(x)
            """,
        ),
        (
            """\
            import torch
            with torch.inference_mode():
                for x in xs:
                    with torch.no_grad(): y = f(x); z = g(y)
            """,
            """\
            import torch
            with torch.inference_mode():
                for x in xs:
                    y = f(x); z = g(y)
            """,
        ),
        # three levels: fixed over two rounds
        (
            """\
            import torch
            with torch.no_grad():
                with torch.no_grad():
                    with torch.no_grad():
                        y = f(x)
            """,
            """\
            import torch
            with torch.no_grad():
                y = f(x)
            """,
        ),
        # comments after the last statement of the inner block have nowhere to go: not fixed
        (
            """\
            import torch
            with torch.no_grad():
                with torch.no_grad():
                    y = f(x)
                    # trailing note
                z = 1
            """,
            None,
        ),
        # bound to a name: reported, not fixed
        (
            """\
            import torch
            with torch.no_grad():
                with torch.no_grad() as g:
                    y = f(x)
            """,
            None,
        ),
    ],
)
def test_gl106_fix(src, out):
    assert fix(src, select=["GL106"]) == d(src if out is None else out)


def test_gl106_message():
    src = "import torch\n@torch.no_grad()\ndef f():\n    with torch.no_grad():\n        pass\n"
    assert messages(src, ["GL106"]) == [
        "`torch.no_grad()` is redundant: gradients are already disabled here by `torch.no_grad()` (line 2)"
    ]


# -- GL107 grad-guard-not-entered --------------------------------------------------------------


@pytest.mark.parametrize(
    "src,expected",
    [
        ("import torch\ntorch.no_grad()\n", [(2, 1)]),
        ("import torch\ndef f():\n    torch.inference_mode()\n", [(3, 5)]),
        ("from torch import enable_grad as eg\ndef f():\n    eg()\n", [(3, 5)]),
        ("import torch\ndef f():\n    g = torch.no_grad()\n    return 1\n", [(3, 9)]),
        # fine
        ("import torch\ntorch.set_grad_enabled(False)\n", []),
        ("import torch\ntorch.no_grad\n", []),
        ("import torch\ng = torch.no_grad()\nwith g:\n    pass\n", []),
        ("import torch\ndef f():\n    g = torch.no_grad()\n    g.__enter__()\n", []),
        ("import torch\nself.g = torch.no_grad()\n", []),
        ("import torch\ntorch.no_grad().__enter__()\n", []),
        ("def no_grad(): pass\nno_grad()\n", []),
    ],
)
def test_gl107_findings(src, expected):
    assert lint(src, select=["GL107"]) == [(r, c, "GL107") for r, c in expected]


def test_gl107_message():
    assert messages("import torch\ntorch.inference_mode()\n", ["GL107"]) == [
        "`torch.inference_mode()` on its own creates a context manager and throws it away: inference mode is "
        "not entered and gradients stay enabled; use `with torch.inference_mode():` around the code or decorate "
        "the function with `@torch.inference_mode()`"
    ]


def test_explain_gl101_contrasts_eval_and_no_grad():
    from click.testing import CliRunner

    from gradlint.cli import main

    result = CliRunner().invoke(main, ["explain", "GL101"])
    assert result.exit_code == 0
    text = result.stdout
    assert text.startswith("# eval-without-no-grad (GL101)\n")
    assert "`model.eval()` and `torch.no_grad()` do different things" in text
    example = text.split("## Example\n\n```python\n", 1)[1].split("```", 1)[0]
    use_instead = text.split("## Use instead\n\n```python\n", 1)[1].split("```", 1)[0]
    assert "    model.eval()" in example and "no_grad" not in example
    assert "@torch.no_grad()\ndef evaluate(model, loader):\n    model.eval()" in use_instead


def test_gl101_script_fix_never_wraps_definitions_and_leaves_blank_lines_empty():
    src = """\
        import torch

        model = build()
        model.eval()
        out = model(x)

        print(out.argmax(1))
        top = model(x).topk(5)

        def report(values):
            return values

        y = model(x)
    """
    # One run of statements per round: the `def` stays at module level, and the blank
    # line moved into the `with` block carries no indentation. Module-level forwards
    # run once (issue 26): the preview tier's.
    assert fix(src, select=["GL101"], options=RuleOptions(preview=True)) == (
        "import torch\n"
        "\n"
        "model = build()\n"
        "model.eval()\n"
        "with torch.no_grad():\n"
        "    out = model(x)\n"
        "\n"
        "    print(out.argmax(1))\n"
        "    top = model(x).topk(5)\n"
        "\n"
        "def report(values):\n"
        "    return values\n"
        "\n"
        "with torch.no_grad():\n"
        "    y = model(x)\n"
    )


def test_gl101_no_fix_where_torch_is_a_local_variable():
    # Found by tests/test_fuzz.py: `with torch.no_grad():` on the local int wrapped
    # the loop again in every round of fixes (and would fail at run time).
    src = d(
        """\
        import torch


        def train(model, loaders, criterion, patience=3):
            torch = 0
            while torch < patience:
                model.eval()
                losses = [criterion(model(x), y).item() for x, y in loaders["val"]]
                torch += 1
        """
    )
    assert lint(src, ["GL101"]) == [(8, 29, "GL101")]
    assert fix(src, ["GL101"], unsafe=True) == src
    # A parameter named torch does not reach a decorator, evaluated outside the function.
    src = d(
        """\
        import torch


        def evaluate(model, x, torch=None):
            model.eval()
            return model(x)


        def show(model, x):
            print(evaluate(model, x))
        """
    )
    assert "@torch.no_grad()\ndef evaluate" in fix(src, ["GL101"], unsafe=True)


def test_gl101_test_support_modules_are_test_code():
    # A module of a tests directory that is no test file (first-sight batch 6: model
    # builders that run one forward to check a shape): test code, like a test's helper.
    src = d(
        """\
        import torch


        def check_output_shape(model, batch):
            model.eval()
            out = model(batch)
            assert out.shape[0] == batch.shape[0]


        def collect(model, batches):
            model.eval()
            outs = []
            for b in batches:
                outs.append(model(b))
            return len(outs)
        """
    )
    found = lambda path: [(f.start[0], f.code) for f in lint_source(src, path, LintSettings(frozenset({"GL101"}))).findings]
    assert found("tests/kit/model_utils.py") == [(14, "GL101")]
    assert found("src/kit/model_utils.py") == [(6, "GL101"), (14, "GL101")]


def test_gl101_a_script_named_like_a_test_is_no_test_module():
    # First-sight batch 18 (a speaker-verification `test_egs.py`): a file named like a
    # test whose `def test(...)` its own `__main__` block calls is a script; one
    # module-level `test_*` that nothing in the file calls makes it a test module,
    # whose functions are test code (a one-off check, reported only when outputs pile up).
    script = d(
        """\
        import torch


        def extract(loader, model):
            model.eval()
            vectors = []
            for data in loader:
                vectors.append(model(data).data.cpu().numpy())
            return vectors


        def test(loader, model):
            model.eval()
            correct = 0
            for data, label in loader:
                correct += (model(data).argmax(1) == label).sum().item()
            return correct


        if __name__ == "__main__":
            net = torch.load("net.pt")
            extract(torch.load("loader.pt"), net)
            print(test(torch.load("loader.pt"), net))
        """
    )
    found = lambda src, path: [(f.start[0], f.code) for f in lint_source(src, path, LintSettings(frozenset({"GL101"}))).findings]
    assert found(script, "TrainAndTest/test_egs.py") == [(8, "GL101"), (16, "GL101")]
    collected = script + d(
        """\


        def test_extract_shapes():
            assert extract([torch.ones(1, 3)], torch.nn.Linear(3, 2))[0].shape == (1, 2)
        """
    )
    assert found(collected, "TrainAndTest/test_egs.py") == []
    assert found(collected, "TrainAndTest/evaluate_egs.py") == [(8, "GL101"), (16, "GL101")]


_EVAL_IN_WITH = """\
import torch


def predict(model, batches):
    with torch.no_grad():
        model.eval()
    outs = []
    for x in batches:
        outs.append(model(x).argmax(1).tolist())
    return outs
"""


def test_gl101_eval_inside_a_torch_with_block_lasts_after_it():
    # eval mode is the module's state: the ``with`` only guarded the eval() call itself
    assert lint(_EVAL_IN_WITH, select=["GL101"]) == [(9, 21, "GL101")]
    # switched back inside the block, or a context manager that may swallow an exception
    # before the eval() runs: not proven in eval mode after it
    assert lint(_EVAL_IN_WITH.replace("        model.eval()\n", "        model.eval()\n        model.train()\n"), select=["GL101"]) == []
    suppressed = _EVAL_IN_WITH.replace("import torch\n", "import contextlib\nimport torch\n").replace(
        "with torch.no_grad():", "with contextlib.suppress(RuntimeError):"
    )
    assert lint(suppressed, select=["GL101"]) == []


def test_gl101_a_tuple_of_eval_calls_switches_every_model():
    src = """\
        def sample(gen_a, gen_b, loader):
            gen_a.eval(), gen_b.eval()
            for x, y in loader:
                save(gen_a(x).tolist(), gen_b(y).tolist())
            gen_a.train(), gen_b.train()
    """
    assert lint(src, select=["GL101"]) == [(4, 14, "GL101")]
    # a tuple display that is no statement of its own switches nothing here
    assert lint(src.replace("    gen_a.eval(), gen_b.eval()", "    modes = gen_a.eval, gen_b.eval"), select=["GL101"]) == []
