"""benchmarks/recall/score.py: its accounting on synthetic data, its sources, and the shipped data."""

from __future__ import annotations

import hashlib
import importlib.util
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RECALL = ROOT / "benchmarks" / "recall"

_spec = importlib.util.spec_from_file_location("recall_score", RECALL / "score.py")
score_mod = importlib.util.module_from_spec(_spec)
sys.modules["recall_score"] = score_mod
_spec.loader.exec_module(score_mod)
Site = score_mod.Site


def site(sid, expect, lines=(10,), cause="c", project="p"):
    return Site(id=sid, project=project, repository=f"https://github.com/o/{project}", path="a.py",
                lines=tuple(lines), expect=expect, cause=cause, sha256="0" * 64, before="b", fix="f")


def finding(code, row, end_row=None):
    return {"code": code, "location": {"row": row, "column": 1}, "end_location": {"row": end_row or row, "column": 9}}


def test_caught_only_with_the_expected_code_on_a_site_line():
    sites = [site("hit", "GL003"), site("other-line", "GL003"), site("other-code", "GL003")]
    findings = {
        "hit": [finding("GL003", 10)],
        "other-line": [finding("GL003", 11)],
        "other-code": [finding("GL203", 10)],
    }
    report = score_mod.score(sites, findings)
    assert [s.id for s, _ in report.caught] == ["hit"]
    assert [(s.id, [f["code"] for f in on]) for s, on in report.misses] == [("other-line", []), ("other-code", ["GL203"])]
    assert (report.overall.caught, report.overall.total) == (1, 3)


def test_family_alternatives_and_multi_line_findings():
    sites = [
        site("family", "GL1xx", lines=(5,)),
        site("alt", "GL201|GL202", lines=(7,)),
        site("span", "GL101", lines=(20, 21)),
        site("wrong-family", "GL1xx", lines=(5,)),
    ]
    findings = {
        "family": [finding("GL107", 5)],
        "alt": [finding("GL202", 7)],
        "span": [finding("GL101", 18, 20)],  # a call that starts above and ends on a site line
        "wrong-family": [finding("GL203", 5)],
    }
    report = score_mod.score(sites, findings)
    assert sorted(s.id for s, _ in report.caught) == ["alt", "family", "span"]
    assert [s.id for s, _ in report.misses] == ["wrong-family"]
    assert site("x", "GL1xx").family == "GL1xx"
    assert site("x", "GL201|GL202").family == "GL2xx/GL3xx"
    assert site("x", "GL302").family == "GL2xx/GL3xx"


def test_tallies_per_family_rule_and_cause_and_unavailable_left_out():
    sites = [
        site("a", "GL001", cause="volatile", project="p1"),
        site("b", "GL003", cause="data0", project="p1"),
        site("c", "GL101", cause="self-forward", project="p2"),
        site("d", "GL301", cause="loss", project="p3"),
        site("gone", "GL301", cause="loss", project="p4"),
    ]
    findings = {"a": [finding("GL001", 10)], "c": [finding("GL101", 10)], "d": [finding("GL000", 1)]}
    report = score_mod.score(sites, findings, unavailable={"gone": "no local copy"})
    as_pairs = lambda d: {k: (t.caught, t.total) for k, t in d.items()}  # noqa: E731
    assert as_pairs(report.families) == {"GL0xx": (1, 2), "GL1xx": (1, 1), "GL2xx/GL3xx": (0, 1)}
    assert as_pairs(report.rules) == {"GL001": (1, 1), "GL003": (0, 1), "GL101": (1, 1), "GL301": (0, 1)}
    assert as_pairs(report.causes) == {"volatile": (1, 1), "data0": (0, 1), "self-forward": (1, 1), "loss": (0, 1)}
    assert report.projects == {"p1", "p2", "p3"}
    assert report.unparsable == {"d"}
    assert [(s.id, why) for s, why in report.unavailable] == [("gone", "no local copy")]
    text = score_mod.format_report(report)
    assert text.splitlines()[0] == "Recall on 4 sites from 3 projects: 2 caught, 50.0%"
    assert "  GL0xx                                    1 / 2    50.0%" in text
    assert "  [data0] b: a.py:10 expected GL003, reported nothing" in text
    assert "  [loss] d: a.py:10 expected GL301, reported nothing (the file does not parse: GL000)" in text
    assert "  gone: no local copy" in text
    data = score_mod.report_json(report)
    assert data["overall"] == {"caught": 2, "total": 4, "recall": 0.5}
    assert data["families"]["GL2xx/GL3xx"] == {"caught": 0, "total": 1, "recall": 0.0}
    assert [m["id"] for m in data["misses"]] == ["b", "d"]
    assert data["misses"][1]["unparsable"] is True


def test_load_sites_rejects_incomplete_and_duplicate_entries(tmp_path):
    entry = textwrap.dedent('''
        [[site]]
        id = "x"
        project = "p"
        repository = "https://github.com/o/p"
        before = "b"
        fix = "f"
        path = "a.py"
        lines = [3]
        expect = "GL003"
        cause = "c"
        sha256 = "{sha}"
        ''').format(sha="ab" * 32)
    ok = tmp_path / "ok.toml"
    ok.write_text(entry)
    [loaded] = score_mod.load_sites(ok)
    assert (loaded.id, loaded.lines, loaded.family) == ("x", (3,), "GL0xx")
    dup = tmp_path / "dup.toml"
    dup.write_text(entry + entry)
    with pytest.raises(ValueError, match="duplicate id"):
        score_mod.load_sites(dup)
    missing = tmp_path / "missing.toml"
    missing.write_text(entry.replace('cause = "c"\n', ""))
    with pytest.raises(ValueError, match="missing cause"):
        score_mod.load_sites(missing)
    unknown = tmp_path / "unknown.toml"
    unknown.write_text(entry.replace('"GL003"', '"XY003"'))
    with pytest.raises(ValueError, match="no family"):
        score_mod.load_sites(unknown)


BEFORE = """\
def report(loss):
    print(loss.sum().data[0])


def check(model, loader):
    model.eval()
    for x in loader:
        print(model(x).sum().item())
"""


def _commit(repo, files, message):
    """Write ``files`` (path -> text) under ``repo`` (made a git repository if it is
    not one yet), commit everything, and return the commit's hash."""
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    env = ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"]
    if not (repo / ".git").exists():
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(["git", "-C", str(repo), *env, "add", "."], check=True)
    subprocess.run(["git", "-C", str(repo), *env, "commit", "-qm", message], check=True)
    return subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()


def _mirror(tmp_path):
    """A git mirror laid out as DIR/owner+name/repo holding one commit of pkg/a.py."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    sha = _commit(tmp_path / "mirrors" / "o+proj" / "repo", {"pkg/a.py": BEFORE}, "before")
    return tmp_path / "mirrors", sha


def _sites_file(tmp_path, sha, digest):
    path = tmp_path / "sites.toml"
    common = f'project = "proj"\nrepository = "https://github.com/o/proj"\nbefore = "{sha}"\nfix = "{sha}"\npath = "pkg/a.py"\nsha256 = "{digest}"\n'
    path.write_text(
        f'[[site]]\nid = "data0"\n{common}lines = [2]\nexpect = "GL003"\ncause = "data0-loss-name"\n\n'
        f'[[site]]\nid = "eval"\n{common}lines = [8]\nexpect = "GL101"\ncause = "eval-then-loop"\n\n'
        f'[[site]]\nid = "typo"\n{common}lines = [5]\nexpect = "GL303"\ncause = "requires-grad-typo"\n'
    )
    return path


def test_sources_read_a_mirror_and_check_the_sha256(tmp_path):
    mirrors, sha = _mirror(tmp_path)
    digest = hashlib.sha256(BEFORE.encode()).hexdigest()
    sources = score_mod.Sources([mirrors], clone=False, work=tmp_path / "work")
    good = site("s", "GL003")
    good = Site(**{**good.__dict__, "repository": "https://github.com/o/proj", "path": "pkg/a.py", "before": sha, "sha256": digest})
    assert sources.get(good) == BEFORE.encode()
    bad = Site(**{**good.__dict__, "sha256": "1" * 64})
    with pytest.raises(score_mod.Unavailable, match="differs from the recorded"):
        sources.get(bad)
    elsewhere = Site(**{**good.__dict__, "repository": "https://github.com/o/other"})
    with pytest.raises(score_mod.Unavailable, match="no local copy of o/other"):
        sources.get(elsewhere)


def test_main_end_to_end_with_gradlint(tmp_path, capsys):
    mirrors, sha = _mirror(tmp_path)
    digest = hashlib.sha256(BEFORE.encode()).hexdigest()
    sites = _sites_file(tmp_path, sha, digest)
    rc = score_mod.main(["--sites", str(sites), "--mirror", str(mirrors), "--work", str(tmp_path / "work")])
    out = capsys.readouterr().out
    assert rc == 0
    # GL101 runs only in the preview tier
    assert out.splitlines()[0] == "Recall on 3 sites from 1 projects: 1 caught, 33.3%"
    assert "  [eval-then-loop] eval: pkg/a.py:8 expected GL101, reported nothing" in out
    rc = score_mod.main(["--sites", str(sites), "--mirror", str(mirrors), "--work", str(tmp_path / "work"), "--preview"])
    out = capsys.readouterr().out
    assert rc == 0
    assert out.splitlines()[0] == "Recall on 3 sites from 1 projects: 2 caught, 66.7%"
    assert "  [requires-grad-typo] typo: pkg/a.py:5 expected GL303, reported nothing" in out

    # Without a copy of the repository the sites are unavailable: exit 2, nothing counted.
    rc = score_mod.main(["--sites", str(sites), "--work", str(tmp_path / "work")])
    out = capsys.readouterr().out
    assert rc == 2
    assert out.splitlines()[0] == "Recall on 0 sites from 0 projects: 0 caught, 0.0%"
    assert "  data0: no local copy of o/proj (give --mirror DIR, or --clone)" in out


GROWTH = """\
import torch
import torch.nn as nn

model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
total = 0
for x in [torch.randn(4, 3)] * 3:
    loss = model(x).pow(2).mean()
    total += loss
"""


def test_preview_option_scores_the_preview_tier_too(tmp_path, capsys):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    sha = _commit(tmp_path / "mirrors" / "o+proj" / "repo", {"train.py": GROWTH}, "before")
    sites = tmp_path / "sites.toml"
    sites.write_text(
        f'[[site]]\nid = "growth"\nproject = "proj"\nrepository = "https://github.com/o/proj"\nbefore = "{sha}"\n'
        f'fix = "{sha}"\npath = "train.py"\nlines = [9]\nexpect = "GL301"\ncause = "loss-accumulated-name"\n'
        f'sha256 = "{hashlib.sha256(GROWTH.encode()).hexdigest()}"\n'
    )
    common = ["--sites", str(sites), "--mirror", str(tmp_path / "mirrors"), "--work", str(tmp_path / "work")]
    # No backward runs from the loss: GL301's default tier misses the site, --preview catches it.
    assert score_mod.main(common) == 0
    assert capsys.readouterr().out.splitlines()[0] == "Recall on 1 sites from 1 projects: 0 caught, 0.0%"
    assert score_mod.main([*common, "--preview"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "Recall on 1 sites from 1 projects: 1 caught, 100.0%"


def test_shipped_sites_meet_the_set_size_and_every_cause_has_a_shape():
    sites = score_mod.load_sites(RECALL / "sites.toml")
    assert len(sites) >= 50
    assert len({s.project for s in sites}) >= 15
    for s in sites:
        assert re.fullmatch(r"[0-9a-f]{64}", s.sha256), s.id
        if s.pypi is None or s.before or s.fix:
            assert re.fullmatch(r"[0-9a-f]{40}", s.before) and re.fullmatch(r"[0-9a-f]{40}", s.fix), s.id
        if s.pypi is not None:
            assert re.fullmatch(r"[0-9a-f]{64}", s.pypi["archive_sha256"]), s.id
            assert s.pypi["kind"] in ("wheel", "sdist") and s.pypi["member"], s.id
    shapes = RECALL / "shapes"
    for cause in {s.cause for s in sites}:
        shape = shapes / f"{cause.replace('-', '_')}.py"
        assert shape.is_file(), cause
        marks = [line for line in shape.read_text().splitlines() if re.search(r"# expect: GL[0-9x]{3}\b", line)]
        assert marks, cause
        if not cause.startswith("unparsable-"):
            compile(shape.read_text(), str(shape), "exec")


def test_sources_read_a_pinned_archive_already_downloaded(tmp_path):
    import zipfile

    downloads = tmp_path / "work" / "downloads"
    downloads.mkdir(parents=True)
    wheel = downloads / "somepkg-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("somepkg/a.py", BEFORE)
    pin = {"name": "somepkg", "version": "1.0", "kind": "wheel", "member": "somepkg/a.py",
           "archive_sha256": hashlib.sha256(wheel.read_bytes()).hexdigest()}
    s = Site(**{**site("w", "GL003").__dict__, "sha256": hashlib.sha256(BEFORE.encode()).hexdigest(), "pypi": pin})
    sources = score_mod.Sources([], clone=False, work=tmp_path / "work")
    assert sources.get(s) == BEFORE.encode()
    missing = Site(**{**s.__dict__, "pypi": {**pin, "member": "somepkg/b.py"}})
    with pytest.raises(score_mod.Unavailable, match="somepkg/b.py is not in somepkg-1.0-py3-none-any.whl"):
        sources.get(missing)


def test_context_files_come_from_the_same_archive_or_commit(tmp_path):
    import zipfile

    downloads = tmp_path / "work" / "downloads"
    downloads.mkdir(parents=True)
    wheel = downloads / "somepkg-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("somepkg/a.py", BEFORE)
        zf.writestr("somepkg/caller.py", "print(1)\n")
    pin = {"name": "somepkg", "version": "1.0", "kind": "wheel", "member": "somepkg/a.py",
           "archive_sha256": hashlib.sha256(wheel.read_bytes()).hexdigest()}
    s = Site(**{**site("w", "GL003").__dict__, "path": "a.py", "sha256": "0" * 64, "pypi": pin, "context": ("caller.py",)})
    sources = score_mod.Sources([], clone=False, work=tmp_path / "work")
    assert sources.context(s, "caller.py") == b"print(1)\n"

    mirrors, sha = _mirror(tmp_path)
    g = Site(**{**site("g", "GL101").__dict__, "repository": "https://github.com/o/proj", "path": "pkg/b.py", "before": sha})
    assert score_mod.Sources([mirrors], clone=False, work=tmp_path / "work").context(g, "pkg/a.py") == BEFORE.encode()

    toml = tmp_path / "sites.toml"
    toml.write_text(
        f'[[site]]\nid = "x"\nproject = "p"\nrepository = "https://github.com/o/proj"\nbefore = "{sha}"\nfix = "{sha}"\n'
        f'path = "pkg/b.py"\nsha256 = "{"0" * 64}"\nlines = [1]\nexpect = "GL101"\ncause = "eval-in-other-file"\ncontext = ["pkg/a.py"]\n'
    )
    assert score_mod.load_sites(toml)[0].context == ("pkg/a.py",)


def test_write_docs_replaces_only_the_generated_block(tmp_path):
    page = tmp_path / "recall.md"
    page.write_text("# Recall\n\nintro\n\n<!-- recall:start -->\nold figures\n<!-- recall:end -->\n\n## Causes\n")
    sites = [site("a", "GL001", cause="volatile"), site("b", "GL101", cause="self-forward", lines=(4, 5))]
    report = score_mod.score(sites, {"a": [finding("GL001", 10)], "b": [finding("GL203", 5)]})
    score_mod.write_docs(page, report)
    text = page.read_text()
    assert text.startswith("# Recall\n\nintro\n\n<!-- recall:start -->\n**1 of 2 sites caught (50%)**, from 1 projects.\n")
    assert text.endswith("<!-- recall:end -->\n\n## Causes\n")
    assert "old figures" not in text
    assert "| GL1xx | 0 | 1 | 0% |" in text
    assert "- `self-forward` (1):\n    - `b`: p `a.py:4,5`, expected GL101, reported GL203\n" in text
    broken = tmp_path / "broken.md"
    broken.write_text("no markers\n")
    with pytest.raises(SystemExit, match="no <!-- recall:start -->"):
        score_mod.write_docs(broken, report)


def test_clone_fetches_a_repository_no_mirror_holds(tmp_path):
    mirrors, sha = _mirror(tmp_path)
    origin = mirrors / "o+proj" / "repo"
    digest = hashlib.sha256(BEFORE.encode()).hexdigest()
    s = Site(**{**site("c", "GL003").__dict__, "repository": origin.as_uri(), "path": "pkg/a.py", "before": sha, "sha256": digest})
    work = tmp_path / "work"
    assert score_mod.Sources([], clone=True, work=work).get(s) == BEFORE.encode()
    [clone] = (work / "clones").iterdir()
    assert clone.name.endswith("+repo") and (clone / "HEAD").is_file()  # a bare clone, named owner+name
    missing = Site(**{**s.__dict__, "path": "pkg/b.py"})
    with pytest.raises(score_mod.Unavailable, match="pkg/b.py is not in the clone of"):
        score_mod.Sources([], clone=True, work=work).get(missing)


def test_every_shape_file_marks_an_expected_code_and_compiles():
    # shapes of the first-sight causes are not reached through sites.toml, so check the folder itself
    shapes = sorted((RECALL / "shapes").glob("*.py"))
    assert len(shapes) >= 30
    for shape in shapes:
        text = shape.read_text()
        assert re.search(r"# expect: GL[0-9x]{3}\b", text), shape.name
        assert f"`{shape.stem.replace('_', '-')}`" in "\n".join(text.splitlines()[:3]), shape.name
        if not shape.stem.startswith("unparsable_"):
            compile(text, str(shape), "exec")


def test_package_inits_lists_each_directory_on_the_way_once():
    assert score_mod.package_inits(["a/b/run.py", "a/c/net.py", "top.py", "a/__init__.py"]) == [
        "__init__.py", "a/b/__init__.py", "a/c/__init__.py",
    ]


def test_main_writes_the_packages_of_the_site_and_context_files(tmp_path, monkeypatch, capsys):
    """A class imported through a package or a relative import needs the packages'
    ``__init__.py``, from the same commit; no other file of the repository is written."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "mirrors" / "o+proj" / "repo"
    sha = _commit(repo, {
        "pkg/__init__.py": "from .models.net import Net\n",
        "pkg/models/__init__.py": "# models\n",
        "pkg/models/net.py": "class Net: pass\n",
        "pkg/models/other.py": "x = 1\n",
        "scripts/run.py": BEFORE,  # scripts/ is no package: nothing is made up for it
    }, "before")
    _commit(repo, {"pkg/__init__.py": "# a later commit\n"}, "later")
    sites = tmp_path / "sites.toml"
    sites.write_text(
        f'[[site]]\nid = "s"\nproject = "proj"\nrepository = "https://github.com/o/proj"\nbefore = "{sha}"\nfix = "{sha}"\n'
        f'path = "scripts/run.py"\nlines = [8]\nexpect = "GL101"\ncause = "eval-then-loop"\n'
        f'sha256 = "{hashlib.sha256(BEFORE.encode()).hexdigest()}"\ncontext = ["pkg/models/net.py"]\n'
    )
    seen = {}

    def fake_run(command, files, context=(), preview=False):
        root = Path(files["s"]).parents[1]
        seen.update({str(p.relative_to(root)): p.read_text() for p in context})
        return {"s": []}

    monkeypatch.setattr(score_mod, "run_gradlint", fake_run)
    assert score_mod.main(["--sites", str(sites), "--mirror", str(tmp_path / "mirrors"), "--work", str(tmp_path / "work")]) == 0
    capsys.readouterr()
    assert seen == {
        "pkg/models/net.py": "class Net: pass\n",
        "pkg/__init__.py": "from .models.net import Net\n",
        "pkg/models/__init__.py": "# models\n",
    }


def test_in_repo_writes_the_repository_s_python_files_and_runs_each_site_from_its_root(tmp_path, monkeypatch, capsys):
    """``--in-repo``: every regular ``.py`` file of the repository at ``before`` (not a
    later commit's, not a link, not another kind of file), and one run per site
    naming the site's file relative to the repository's root."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "mirrors" / "o+proj" / "repo"
    (repo / "scripts").mkdir(parents=True)
    (repo / "scripts" / "outside.py").symlink_to("/etc/hostname")
    files = {"models/net.py": "class Net: pass\n", "scripts/run.py": BEFORE, "README.md": "# proj\n"}
    sha = _commit(repo, files, "before")
    _commit(repo, {"models/net.py": "class Net: later = 1\n", "models/new.py": "y = 2\n"}, "later")
    sites = tmp_path / "sites.toml"
    sites.write_text(
        f'[[site]]\nid = "s"\nproject = "proj"\nrepository = "https://github.com/o/proj"\nbefore = "{sha}"\nfix = "{sha}"\n'
        f'path = "scripts/run.py"\nlines = [8]\nexpect = "GL101"\ncause = "eval-then-loop"\n'
        f'sha256 = "{hashlib.sha256(BEFORE.encode()).hexdigest()}"\n'
    )
    seen = {}

    def fake_run(command, files, preview=False):
        root, path = files["s"]
        seen["file"] = str(path.relative_to(root))
        seen["tree"] = {str(p.relative_to(root)): p.read_text() for p in sorted(root.rglob("*")) if p.is_file()}
        return {"s": []}

    monkeypatch.setattr(score_mod, "run_gradlint_in_repo", fake_run)
    argv = ["--sites", str(sites), "--mirror", str(tmp_path / "mirrors"), "--work", str(tmp_path / "work")]
    assert score_mod.main([*argv, "--in-repo"]) == 0
    capsys.readouterr()
    assert seen == {"file": "scripts/run.py", "tree": {"models/net.py": "class Net: pass\n", "scripts/run.py": BEFORE}}

    # With gradlint itself: the site's file alone, from the root, caught as without the option
    # (with --preview, where GL101 runs).
    monkeypatch.undo()
    assert score_mod.main([*argv, "--in-repo", "--preview"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "Recall on 1 sites from 1 projects: 1 caught, 100.0%"
