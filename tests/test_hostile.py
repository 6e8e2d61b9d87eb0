"""Hostile and broken inputs: each gets one clear line naming the file and the
problem, the run goes on, and no file is changed unless a fix was asked for and
can be written whole.

docs/reliability.md lists what was tried; the property tests are in
test_fuzz.py, the sandbox of ``gradlint verify`` in test_sandbox.py.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile

import pytest
from click.testing import CliRunner

from gradlint import engine, files, migrate, parsing
from gradlint.cli import main
from harness import fix, lint, settings_for
from samples import LEGACY, LEGACY_FIXED

posix = pytest.mark.skipif(os.name != "posix", reason="POSIX file types and permissions")
IMPORT = b"from torch.autograd import Variable\n"


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GRADLINT_OUTPUT_FORMAT", raising=False)
    # No results cache: each run reads the files afresh, and writes nothing but fixes.
    monkeypatch.setenv("GRADLINT_NO_CACHE", "1")
    return tmp_path


def run(*args):
    return CliRunner().invoke(main, list(args))


def snapshot(directory):
    """Every file under ``directory`` and its bytes (temporary files left behind show up too)."""
    out = {}
    for root, _, names in os.walk(directory):
        for name in names:
            path = os.path.join(root, name)
            if not os.path.islink(path) and os.path.isfile(path):
                with open(path, "rb") as fh:
                    out[os.path.relpath(path, directory)] = fh.read()
    return out


# -- sources that cannot be checked --------------------------------------------

# name: (bytes, what `check` says after "name:", what `migrate` says after "  name: ")
BROKEN = {
    "unclosed.py": (
        IMPORT + b"x = Variable(\n",
        "2:13: GL000 syntax error: '(' was never closed",
        "syntax error on line 2: '(' was never closed; left untouched",
    ),
    "python2.py": (
        IMPORT + b"print Variable(x)\n",
        "2:1: GL000 syntax error: Missing parentheses in call to 'print'. Did you mean print(...)?",
        "Python 2 syntax (`print` statement) on line 2: Missing parentheses in call to 'print'. Did you mean print(...)?; left untouched",
    ),
    "tabs_and_spaces.py": (
        IMPORT + b"if x:\n\ty = 1\n        z = 2\n",
        "4:1: GL000 syntax error: inconsistent use of tabs and spaces in indentation",
        "Python 2 syntax (tabs and spaces mixed in indentation) on line 4: inconsistent use of tabs and spaces in indentation; left untouched",
    ),
    "nul.py": (IMPORT + b"x = 1\x00\n", "1:1: GL000 binary file (contains NUL bytes), not Python source", None),
    "latin.py": (IMPORT + b"name = '\xe9'\n", "1:1: GL000 cannot decode as UTF-8: invalid byte 0xe9 on line 2", None),
    "ascii_cookie.py": (
        b"# coding: ascii\n" + IMPORT + b"name = '\xc3\xa9'\n",
        "1:1: GL000 cannot decode as ascii: invalid byte 0xc3 on line 3",
        None,
    ),
    # Before: a LookupError traceback ended the run.
    "rot13.py": (b"# coding: rot13\n" + IMPORT, "1:1: GL000 invalid encoding declaration: 'rot13' is not a text encoding", None),
    # Before: decoded as UTF-8 anyway, and --fix wrote the file back without its BOM.
    "bom_latin.py": (
        b"\xef\xbb\xbf# coding: latin-1\n" + IMPORT + b"v = Variable(x)\n",
        "1:1: GL000 invalid encoding declaration: a UTF-8 byte order mark, and a coding cookie that is not UTF-8",
        None,
    ),
    # Before: LibCST dropped the second U+FEFF and --fix wrote the file without it.
    "two_boms.py": (
        b"\xef\xbb\xbf\xef\xbb\xbf" + IMPORT + b"v = Variable(x)\n",
        "1:1: GL000 syntax error: invalid non-printable character U+FEFF",
        "syntax error on line 1: invalid non-printable character U+FEFF; left untouched",
    ),
    # 1,000-deep nesting. Before: LibCST's parser overflowed its stack and the
    # process died of SIGSEGV (no report for any file).
    "brackets.py": (
        IMPORT + b"x = " + b"[" * 1000 + b"]" * 1000 + b"\n",
        "2:1004: GL000 brackets nested 1000 deep (Python allows 200)",
        "brackets nested 1000 deep (Python allows 200); left untouched",
    ),
    "calls.py": (
        IMPORT + b"x = f" + b"(f" * 1000 + b")" * 1000 + b"\n",
        "2:2004: GL000 brackets nested 1000 deep (Python allows 200)",
        "brackets nested 1000 deep (Python allows 200); left untouched",
    ),
    "chain.py": (
        IMPORT + b"x = 1" + b" + 1" * 3000 + b"\n",
        "2:12003: GL000 too deeply nested to analyse (about 3002 levels; the limit is 2000)",
        "too deeply nested to analyse (about 3002 levels; the limit is 2000); left untouched",
    ),
    # Parsed (within the bounds) and walked, then deeper than rendering a finding's
    # place goes (LibCST's code generation recurses).
    "nots.py": (
        IMPORT + b"x = Variable(" + b"not " * 1000 + b"y, volatile=True)\n",
        "1:1: GL000 too deeply nested to analyse",
        "too deeply nested to analyse; left untouched",
    ),
}


def test_a_deep_chain_with_nothing_to_report_is_checked_like_any_file(project):
    # The engine walks the tree without recursing: a chain far deeper than Python's
    # recursion limit, with nothing to report, is simply checked.
    (project / "deep.py").write_bytes(IMPORT + b"x = " + b"not " * 1000 + b"y\n")
    result = run("check", "deep.py")
    assert (result.exit_code, result.stdout) == (0, "All checks passed!\n")


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_broken_source_is_one_line_and_left_untouched(project, name):
    data, check_says, migrate_says = BROKEN[name]
    (project / name).write_bytes(data)
    (project / "legacy.py").write_text(LEGACY)
    for args in (["check", "-q"], ["check", "-q", "--fix"]):
        result = run(*args, name, "legacy.py")
        assert result.exit_code == 1, result.output
        mine = [line for line in result.stdout.splitlines() if line.startswith(name)]
        assert mine == [f"{name}:{check_says}"]
        assert "Traceback" not in result.output
    assert (project / "legacy.py").read_text() == LEGACY_FIXED  # the run went on
    (project / "legacy.py").write_text(LEGACY)
    result = run("migrate", name, "legacy.py")
    assert result.exit_code == 1
    assert f"  {name}: {migrate_says or check_says.split(' GL000 ', 1)[1]}\n" in result.stdout
    assert snapshot(project) == {name: data, "legacy.py": LEGACY_FIXED.encode()}


def test_20_mb_generated_file(project):
    # A generated table (data, weights, a vocabulary): what the prefilter finds no
    # rule's trigger in is not even parsed; with a trigger word it is too large to
    # parse (LibCST would take minutes and gigabytes), said in one line, and kept.
    rows = "".join(f"    ({i}, {i * 0.5!r}, 'token{i}'),\n" for i in range(560_000))
    table = ("# generated\nTABLE = [\n" + rows + "]\n").encode()
    assert len(table) > 20 << 20
    (project / "table.py").write_bytes(table)
    (project / "weights.py").write_bytes(IMPORT + table)
    result = run("check", "-q", "--fix", "table.py", "weights.py")
    assert result.exit_code == 1
    assert result.stdout == "weights.py:1:1: GL000 file too large to analyse (20.4 MiB; gradlint parses files up to 4 MiB)\n"
    result = run("migrate", "table.py", "weights.py")
    assert "  weights.py: file too large to analyse (20.4 MiB; gradlint parses files up to 4 MiB); left untouched\n" in result.stdout
    assert snapshot(project) == {"table.py": table, "weights.py": IMPORT + table}


def test_oversize_sources_are_not_parsed_at_all(monkeypatch):
    # Bounded before LibCST sees them, whatever reaches the engine (stdin, the server).
    monkeypatch.setattr(parsing, "MAX_SOURCE_CHARS", 100)
    source = LEGACY + "# padding\n" * 10
    assert lint(source) == [(1, 1, "GL000")]
    assert engine.fix_source(source, "x.py", settings_for(["ALL"])).source == source
    # A 0.3-era `async=` too, which only a parse would otherwise look for.
    assert lint("x = y.cuda(async=True)\n" + "# padding\n" * 10) == [(1, 1, "GL000")]


# -- files that are not regular, readable files --------------------------------


@posix
def test_links_pipes_devices_and_directories_get_one_line_each(project):
    (project / "ok.py").write_text(LEGACY)
    os.mkfifo(project / "pipe.py")  # before: open() waited for a writer forever
    (project / "zero.py").symlink_to("/dev/zero")  # before: read until memory ran out
    (project / "loop_a.py").symlink_to("loop_b.py")
    (project / "loop_b.py").symlink_to("loop_a.py")
    (project / "dangling.py").symlink_to("missing.py")
    (project / "sub").mkdir()
    (project / "sub" / "up").symlink_to("..")  # a directory loop: the walk does not follow it
    result = run("check", "-q", ".")
    assert result.exit_code == 1
    assert [line for line in result.stdout.splitlines() if "GL000" in line] == [
        "dangling.py:1:1: GL000 broken symbolic link (its target does not exist)",
        "loop_a.py:1:1: GL000 cannot read file: Too many levels of symbolic links",
        "loop_b.py:1:1: GL000 cannot read file: Too many levels of symbolic links",
        "pipe.py:1:1: GL000 not a regular file (a named pipe)",
        "zero.py:1:1: GL000 not a regular file (a character device)",
    ]
    assert sum(line.startswith("ok.py:") for line in result.stdout.splitlines()) == 2
    # Named on the command line, they are the same one line each; migrate skips them.
    result = run("migrate", "pipe.py", "dangling.py")
    assert result.stdout.splitlines()[-2:] == [
        "  dangling.py: broken symbolic link (its target does not exist)",
        "  pipe.py: not a regular file (a named pipe)",
    ]


def _deny(monkeypatch, function, denied):
    real = getattr(os, function)

    def deny(path, *args, **kwargs):
        if os.path.abspath(path) == os.path.abspath(denied):
            raise PermissionError(13, "Permission denied", str(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, function, deny)


def test_unreadable_file_and_directory(project, monkeypatch):
    (project / "secret.py").write_text(LEGACY)
    (project / "private").mkdir()
    (project / "private" / "model.py").write_text(LEGACY)
    if os.geteuid() != 0:  # root reads whatever the permission bits say
        (project / "secret.py").chmod(0)
        (project / "private").chmod(0)
    else:
        _deny(monkeypatch, "open", project / "secret.py")
        _deny(monkeypatch, "scandir", project / "private")
    try:
        result = run("check", "-q", "--fix", ".")
        # Before: a directory that could not be listed was skipped without a word.
        assert result.stdout.splitlines() == [
            "private:1:1: GL000 cannot read directory: Permission denied",
            "secret.py:1:1: GL000 cannot read file: Permission denied",
        ]
        assert result.exit_code == 1
    finally:
        (project / "secret.py").chmod(0o644)
        (project / "private").chmod(0o755)
    assert (project / "secret.py").read_text() == LEGACY
    assert (project / "private" / "model.py").read_text() == LEGACY


# -- --fix that cannot write ---------------------------------------------------


def test_file_changed_or_deleted_while_being_fixed_is_not_written(project, monkeypatch):
    (project / "edited.py").write_text(LEGACY)
    (project / "deleted.py").write_text(LEGACY)
    real = engine.fix_source

    def meanwhile(source, path, *args, **kwargs):
        result = real(source, path, *args, **kwargs)
        if path == "edited.py":
            (project / "edited.py").write_text(LEGACY + "# saved in the editor meanwhile\n")
        else:
            (project / "deleted.py").unlink()
        return result

    monkeypatch.setattr(engine, "fix_source", meanwhile)  # the runner imports it when it fixes
    result = run("check", "-q", "--fix", "edited.py", "deleted.py")
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        "error: deleted.py: deleted while gradlint was running; not written",
        "error: edited.py: changed on disk while gradlint was running; not written",
    ]
    assert snapshot(project) == {"edited.py": (LEGACY + "# saved in the editor meanwhile\n").encode()}


def test_edit_saved_while_the_new_text_is_written_is_not_lost(project, monkeypatch):
    # The second check, just before the rename: the window left is that of one rename.
    path = project / "train.py"
    path.write_text(LEGACY)
    real_fsync = os.fsync

    def fsync_then_edit(fd):
        real_fsync(fd)
        path.write_text(LEGACY + "# saved meanwhile\n")

    monkeypatch.setattr(os, "fsync", fsync_then_edit)
    result = run("check", "-q", "--fix", "train.py")
    assert result.stderr == "error: train.py: changed on disk while gradlint was running; not written\n"
    assert snapshot(project) == {"train.py": (LEGACY + "# saved meanwhile\n").encode()}


def test_migrate_and_notebooks_detect_a_change_too(project, monkeypatch):
    (project / "legacy.py").write_text(LEGACY)
    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": LEGACY}
    notebook = json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}).encode()
    (project / "eval.ipynb").write_bytes(notebook)
    real = engine.fix_source

    def meanwhile(source, path, *args, **kwargs):
        result = real(source, path, *args, **kwargs)
        with open(path, "ab") as fh:
            fh.write(b"\n")
        return result

    # check and migrate both fix through gradlint.checking, which imports it when it fixes
    monkeypatch.setattr(engine, "fix_source", meanwhile)
    result = run("check", "-q", "--fix", "eval.ipynb")
    assert result.stderr == "error: eval.ipynb: changed on disk while gradlint was running; not written\n"
    result = run("migrate", "legacy.py")
    assert "  legacy.py: changed on disk while gradlint was running; not written\n" in result.stdout
    assert snapshot(project) == {"legacy.py": LEGACY.encode() + b"\n", "eval.ipynb": notebook + b"\n"}


def test_directory_that_takes_no_new_file(project, monkeypatch):
    (project / "legacy.py").write_text(LEGACY)

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    # Root can create files in a read-only directory; the refusal is what is tested.
    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    result = run("check", "-q", "--fix", "legacy.py")
    # Before: the PermissionError was an internal error (exit 2) for this file.
    assert (result.exit_code, result.stderr) == (1, "error: legacy.py: not written: cannot create a file beside it: Permission denied\n")
    assert snapshot(project) == {"legacy.py": LEGACY.encode()}


def test_hard_linked_file_is_not_replaced(project):
    (project / "legacy.py").write_text(LEGACY)
    os.link(project / "legacy.py", project / "copy.py")
    result = run("check", "-q", "--fix", "legacy.py")
    assert result.stderr == "error: legacy.py: file has 2 hard links, which replacing it would detach; not written\n"
    assert snapshot(project) == {"legacy.py": LEGACY.encode(), "copy.py": LEGACY.encode()}


def test_read_only_file_is_refused_by_its_permission_bits_even_for_root(project):
    path = project / "legacy.py"
    path.write_text(LEGACY)
    path.chmod(0o444)
    result = run("check", "-q", "--fix", "legacy.py")
    assert result.stderr == "error: legacy.py: file is read-only; not written\n"
    assert path.read_text() == LEGACY and stat.S_IMODE(path.stat().st_mode) == 0o444


def test_encoding_that_does_not_give_back_the_bytes_is_not_written(project):
    # ISO-2022-JP switches to ASCII with ESC ( B; decoding drops a redundant one,
    # so the fixed text, encoded again, would lose bytes nobody asked to change.
    data = b"# coding: iso2022_jp\n\x1b(B" + LEGACY.encode()
    (project / "legacy.py").write_bytes(data)
    result = run("check", "-q", "--fix", "legacy.py")
    assert result.stderr == "error: legacy.py: its encoding (iso2022_jp) does not give back its bytes; not written\n"
    assert (project / "legacy.py").read_bytes() == data


# -- newlines, lone surrogates ---------------------------------------------------


@pytest.mark.parametrize(
    "name,encode",
    [
        ("bom.py", lambda text: b"\xef\xbb\xbf" + text.encode()),
        ("crlf.py", lambda text: text.replace("\n", "\r\n").encode()),
        # Every other line CRLF: each line keeps its own ending.
        ("mixed.py", lambda text: "".join(l.replace("\n", "\r\n") if i % 2 else l for i, l in enumerate(text.splitlines(True))).encode()),
    ],
)
def test_bom_crlf_and_mixed_newlines_are_checked_fixed_and_migrated_in_place(project, name, encode):
    # Not errors at all: the same findings as the plain file, and fixes that keep every byte they do not change.
    (project / "plain.py").write_text(LEGACY)
    (project / name).write_bytes(encode(LEGACY))
    result = run("check", "-q", "plain.py", name)
    assert result.exit_code == 1
    found = result.stdout.splitlines()
    assert [line.replace(name, "plain.py", 1) for line in found if line.startswith(name)] == [
        line for line in found if line.startswith("plain.py")
    ] != []
    result = run("check", "-q", "--fix", name)
    assert (result.exit_code, result.output) == (0, "")
    if name == "mixed.py":
        # Each kept line keeps its own ending; the inserted decorator takes the first line's.
        expected = (
            b"import torch\n\n\r\n@torch.no_grad()\ndef evaluate(model, x):\n    out = model(x.detach())\r\n"
            b"    return out.max(1)[1]\n\r\n\ndef log(loss):\r\n    print(loss.sum().item())\n"
        )
    else:
        expected = encode(LEGACY_FIXED)
    assert (project / name).read_bytes() == expected
    (project / name).write_bytes(encode(LEGACY))
    result = run("migrate", name)
    assert result.exit_code == 0, result.output
    assert (project / name).read_bytes() == expected
    assert (project / "plain.py").read_text() == LEGACY



def test_old_mac_line_endings(project):
    cr = LEGACY.replace("\n", "\r")
    # Before: LibCST wrote the fixed module back without its final "\r".
    assert fix(cr) == LEGACY_FIXED.replace("\n", "\r")
    # Before: `# noqa` comments were not seen (the tokenizer read one long line).
    assert lint("from torch.autograd import Variable\rv = Variable(x)  # noqa\rw = Variable(x)\r") == [(3, 5, "GL002")]
    # Before: migrate renamed `async=` on the first line only, and reported it at line 1.
    source = "import torch\rx = y.cuda(\r    async=True)\rz = w.cuda(async=True)\r"
    assert migrate.migrate_source(source, "x.py", settings_for(["ALL"])).source == source.replace("async", "non_blocking")


def test_lone_surrogate_in_a_notebook_cell(project):
    # JSON can hold "\ud800"; no .py file can (decoding is strict). Before: an internal error.
    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": ["x = loss.data[0]  # \ud800\n"]}
    data = json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}).encode()
    (project / "nb.ipynb").write_bytes(data)
    result = run("check", "-q", "--fix", "nb.ipynb")
    assert (result.exit_code, result.stdout) == (
        1,
        "nb.ipynb:cell 1:1:21: GL000 syntax error: invalid character '\\ud800' (a lone surrogate, not Unicode text)\n",
    )
    assert (project / "nb.ipynb").read_bytes() == data


def test_notebook_with_20_mb_of_outputs_is_fixed_in_its_code_only(project):
    picture = {"output_type": "display_data", "metadata": {}, "data": {"image/png": "iVBORw0KGgo" * (2 << 20)}}
    cells = [
        {"cell_type": "raw", "metadata": {}, "source": "x = loss.sum().data[0]"},
        {"cell_type": "code", "metadata": {}, "outputs": [picture], "execution_count": 1, "source": ["print(loss.sum().data[0])\n"]},
        {"cell_type": "Code", "metadata": {}, "source": "x = loss.sum().data[0]"},  # not a code cell: "Code"
    ]
    data = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1).encode()
    (project / "report.ipynb").write_bytes(data)
    result = run("check", "-q", "--fix", "report.ipynb")
    assert (result.exit_code, result.stdout) == (0, "")
    assert (project / "report.ipynb").read_bytes() == data.replace(b"print(loss.sum().data[0])", b"print(loss.sum().item())")


@pytest.mark.parametrize(
    "data,message",
    [
        (b"", "invalid notebook JSON: Expecting value (line 1, column 1)"),
        (b'{"cells": [], "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "invalid notebook JSON: nested too deeply"),
        (b'{"cells": [5]}', "cell 1 is not a JSON object"),
        (b'{"cells": [{"cell_type": "code"}]}', "cell 1: 'source' is not a string or a list of strings"),
        (b'{"cells": [], "nbformat": 3}', "nbformat 3 notebooks are not supported; convert with `jupyter nbconvert --to notebook`"),
        (b'{"cells": "none"}', "not a Jupyter notebook: no 'cells' list"),
        (b'{"cells": [{"cell_type": "code", "source": ["x = 1\\n"]}]}\xff', "cannot decode as UTF-8: invalid byte 0xff on line 1"),
    ],
)
def test_notebook_that_is_not_one(project, data, message):
    (project / "bad.ipynb").write_bytes(data)
    result = run("check", "--fix", "bad.ipynb")
    assert result.stdout.splitlines()[0] == f"bad.ipynb:1:1: GL000 {message}"
    assert (project / "bad.ipynb").read_bytes() == data


# -- configuration ---------------------------------------------------------------


@pytest.mark.parametrize(
    "content,message",
    [
        # Before: a RecursionError traceback (tomllib parses nesting recursively).
        (b"[tool.gradlint]\nx = " + b"[" * 20_000 + b"]" * 20_000 + b"\n", "pyproject.toml: invalid TOML: nested too deeply"),
        (b'[tool.gradlint]\nselect = ["GL001"]  # \xff\n', "pyproject.toml: invalid TOML: 'utf-8' codec can't decode byte 0xff in position 38: invalid start byte"),
        (b"[tool]\ngradlint = 1\n", "pyproject.toml: [tool.gradlint] must be a table"),
        (b"[tool.gradlint\nselect = 1\n", "pyproject.toml: invalid TOML: Expected ']' at the end of a table declaration (at line 1, column 15)"),
    ],
)
def test_invalid_configuration_is_one_line_for_check_and_migrate(project, content, message):
    (project / "pyproject.toml").write_bytes(content)
    (project / "legacy.py").write_text(LEGACY)
    for command in ("check", "migrate"):
        result = run(command, "legacy.py")
        assert result.exit_code == 2
        assert result.stderr == f"error: {project / message}\n"
    assert (project / "legacy.py").read_text() == LEGACY


def test_a_bug_reading_one_file_does_not_end_the_run(project, monkeypatch):
    (project / "a.py").write_text(LEGACY)
    (project / "b.py").write_text(LEGACY)
    real = files.read_source

    def buggy(path):
        if str(path) == "a.py":
            raise KeyError("boom")
        return real(path)

    monkeypatch.setattr(files, "read_source", buggy)
    result = run("check", "-q", "a.py", "b.py")
    assert result.exit_code == 2
    assert result.stderr == "error: a.py: internal error: KeyError: 'boom'\n"
    assert result.stdout.startswith("b.py:6:17: GL001 ")


def test_server_reports_a_too_deep_document_instead_of_failing(tmp_path):
    pytest.importorskip("pygls")
    from gradlint.server import check_text

    text = LEGACY + "x = " + "not " * 1000 + "y\n"
    checked = check_text(text, tmp_path / "deep.py")
    assert [(d.code, d.message, d.row) for d in checked.diagnostics] == [("GL000", "too deeply nested to analyse", 1)]


def test_parse_bounds_hold_on_a_thread_with_a_small_stack():
    # 1,500 nested brackets would crash LibCST on a 1 MiB stack (Windows, macOS
    # threads): past DIRECT_NESTING the parse runs on a thread of its own.
    import threading

    source = "x = " + "(" * 150 + "-" * 1500 + "1" + ")" * 150 + "\n"
    assert parsing.DIRECT_NESTING < parsing.check(source) <= parsing.MAX_NESTING
    found = []
    previous = threading.stack_size(1 << 20)
    try:
        thread = threading.Thread(target=lambda: found.append(type(parsing.parse_module(source)).__name__))
        thread.start()
        thread.join()
    finally:
        threading.stack_size(previous)
    assert found == ["Module"]


FSTRINGS = (
    "# -*- coding: future_fstrings -*-\n"
    "from torch.autograd import Variable\n"
    "\n"
    "\n"
    "def evaluate(model, x):\n"
    "    out = model(Variable(x, volatile=True))\n"
    "    print(f'{out.sum().item():.3f} é')\n"
).encode("utf-8")
FSTRINGS_NOTE = (
    "note: ff.py: the coding cookie names `future_fstrings`, a codec this Python does not have "
    "(a source transformer installed by a package, not a byte encoding): read and checked as UTF-8"
)


def test_unknown_codec_cookie_is_checked_fixed_and_migrated_as_utf8(project):
    path = project / "ff.py"
    path.write_bytes(FSTRINGS)
    result = run("check", "--select", "GL001", "ff.py")
    assert result.exit_code == 1, result.output
    assert result.stdout.splitlines()[0] == (
        "ff.py:6:17: GL001 [*] `volatile=True` has been ignored since PyTorch 0.4: this call still records an autograd graph; "
        "use `torch.no_grad()`"
    )
    assert FSTRINGS_NOTE in result.stderr.splitlines()
    assert run("check", "-q", "--select", "GL001", "ff.py").stderr == ""
    fixed = FSTRINGS.replace(b"def evaluate", b"@torch.no_grad()\ndef evaluate").replace(b"model(Variable(x, volatile=True))", b"model(x.detach())")
    fixed = fixed.replace(b"from torch.autograd import Variable\n", b"import torch\n")
    result = run("check", "--select", "GL001", "--fix", "ff.py")
    assert result.exit_code == 0, result.output
    assert path.read_bytes() == fixed  # the cookie and every other byte kept
    path.write_bytes(FSTRINGS)
    result = run("migrate", "ff.py")
    assert result.exit_code == 0, result.output
    assert path.read_bytes() == fixed
