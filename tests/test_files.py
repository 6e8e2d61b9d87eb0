"""Reading and writing files: encodings, BOM, newlines, permissions, atomicity."""

from __future__ import annotations

import os
import stat
import textwrap

import pytest
from click.testing import CliRunner

from gradlint.cli import main
from gradlint.files import ReadError, WriteError, decode, decode_with_note, read_source, write_source

SRC = "import torch\nfrom torch.autograd import Variable\n\n\ndef f(loss):\n    return loss.sum().data[0]\n"
FIXED = "import torch\nfrom torch.autograd import Variable\n\n\ndef f(loss):\n    return loss.sum().item()\n"


def fix(path):
    return CliRunner().invoke(main, ["check", "--fix", "-q", str(path)])


def test_crlf_newlines_are_kept(tmp_path):
    path = tmp_path / "crlf.py"
    path.write_bytes(SRC.replace("\n", "\r\n").encode())
    fix(path)
    assert path.read_bytes() == FIXED.replace("\n", "\r\n").encode()


def test_mixed_newlines_are_kept_line_by_line(tmp_path):
    path = tmp_path / "mixed.py"
    lines = SRC.splitlines(keepends=True)
    data = "".join(line.replace("\n", "\r\n") if i % 2 else line for i, line in enumerate(lines))
    path.write_bytes(data.encode())
    fix(path)
    assert path.read_bytes() == data.replace("loss.sum().data[0]", "loss.sum().item()").encode()


def test_utf8_bom_is_kept(tmp_path):
    path = tmp_path / "bom.py"
    path.write_bytes(b"\xef\xbb\xbf" + SRC.encode())
    fix(path)
    assert path.read_bytes() == b"\xef\xbb\xbf" + FIXED.encode()


def test_coding_cookie_encoding_is_kept(tmp_path):
    path = tmp_path / "latin.py"
    text = "# -*- coding: latin-1 -*-\n# auteur: Zoé\n" + SRC
    path.write_bytes(text.encode("latin-1"))
    fix(path)
    assert path.read_bytes() == ("# -*- coding: latin-1 -*-\n# auteur: Zoé\n" + FIXED).encode("latin-1")


def test_permissions_are_kept_and_no_temp_files_remain(tmp_path):
    path = tmp_path / "script.py"
    path.write_text(SRC)
    path.chmod(0o750)
    fix(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o750
    assert path.read_text() == FIXED
    assert sorted(p.name for p in tmp_path.iterdir()) == ["script.py"]


def test_symlink_target_is_fixed_and_link_kept(tmp_path):
    real = tmp_path / "real.py"
    real.write_text(SRC)
    link = tmp_path / "link.py"
    link.symlink_to(real)
    fix(link)
    assert link.is_symlink()
    assert real.read_text() == FIXED


def test_unchanged_file_is_not_rewritten(tmp_path):
    path = tmp_path / "clean.py"
    path.write_text("import torch\n")
    before = path.stat().st_mtime_ns
    os.utime(path, ns=(before - 10**9, before - 10**9))
    fix(path)
    assert path.stat().st_mtime_ns == before - 10**9


def test_file_changed_after_read_is_not_overwritten(tmp_path):
    path = tmp_path / "f.py"
    path.write_text(SRC)
    original = read_source(path)
    path.write_text(SRC + "# edited meanwhile\n")
    with pytest.raises(WriteError, match="changed on disk while gradlint was running; not written"):
        write_source(original, FIXED)
    assert path.read_text() == SRC + "# edited meanwhile\n"


def test_file_deleted_after_read_is_not_recreated(tmp_path):
    path = tmp_path / "f.py"
    path.write_text(SRC)
    original = read_source(path)
    path.unlink()
    with pytest.raises(WriteError, match="^deleted while gradlint was running; not written$"):
        write_source(original, FIXED)
    assert not path.exists()


def test_read_only_file_refused(tmp_path, monkeypatch):
    path = tmp_path / "ro.py"
    path.write_text(SRC)
    original = read_source(path)
    path.chmod(0o444)
    # root bypasses permission bits; the writability check is what must refuse.
    monkeypatch.setattr(os, "access", lambda p, mode: False)
    with pytest.raises(WriteError, match="file is read-only; not written"):
        write_source(original, FIXED)
    assert path.read_text() == SRC


@pytest.mark.parametrize(
    "data,message",
    [
        (b"x = 1\x00\n", "binary file (contains NUL bytes), not Python source"),
        (b"x = '\xff'\n", "cannot decode as UTF-8: invalid byte 0xff on line 1"),
        (b"# coding: latin-1\nx = '\xff'\n", None),
        (b"# coding: klingon\nx = '\xff'\n", "invalid encoding declaration: unknown encoding: klingon, and the file is not UTF-8"),
        (b"# coding: ascii\n\nx = '\xc3\xa9'\n", "cannot decode as ascii: invalid byte 0xc3 on line 3"),
    ],
)
def test_decode(data, message):
    if message is None:
        assert decode(data) == ("# coding: latin-1\nx = '\xff'\n", "iso-8859-1")
    else:
        with pytest.raises(ReadError, match=message.replace("(", r"\(").replace(")", r"\)")):
            decode(data)


def test_unknown_codec_in_cookie_reads_as_utf8_with_a_note():
    data = "# -*- coding: future_fstrings -*-\nname = f'{1}é'\n".encode("utf-8")
    text, encoding, note = decode_with_note(data)
    assert (text, encoding) == (data.decode("utf-8"), "utf-8")
    assert note == (
        "the coding cookie names `future_fstrings`, a codec this Python does not have (a source "
        "transformer installed by a package, not a byte encoding): read and checked as UTF-8"
    )
    assert decode_with_note(b"# coding: latin-1\nx = 1\n")[2] is None


def test_unknown_codec_file_is_written_back_byte_for_byte(tmp_path):
    data = "# -*- coding: future_fstrings -*-\nname = f'{1}é'\nx = 1\n".encode("utf-8")
    path = tmp_path / "ff.py"
    path.write_bytes(data)
    original = read_source(path)
    assert original.notes and original.encoding == "utf-8"
    write_source(original, original.text.replace("x = 1", "x = 2"))
    assert path.read_bytes() == data.replace(b"x = 1", b"x = 2")


def test_unreadable_file_is_one_line(tmp_path, monkeypatch):
    path = tmp_path / "secret.py"
    path.write_text(SRC)
    real_open = os.open

    def deny(p, *a, **k):
        if str(p) == str(path):
            raise PermissionError(13, "Permission denied")
        return real_open(p, *a, **k)

    monkeypatch.setattr(os, "open", deny)
    with pytest.raises(ReadError, match="^cannot read file: Permission denied$"):
        read_source(path)


# -- .gitignore in directory walks (respect-gitignore) ------------------------


def _tree(root, files):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _shown(*args):
    result = CliRunner().invoke(main, ["check", "--show-files", *args])
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()


@pytest.fixture
def ignoring(tmp_path, monkeypatch):
    """A git work tree whose .gitignore files ignore most of it, as `git status --ignored` says."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git" / "info").mkdir(parents=True)
    (tmp_path / ".git" / "info" / "exclude").write_text("# local\nsub/private.py\n")
    _tree(tmp_path, {
        ".gitignore": "*.py\n!keep/\n!keep/*.py\ngenerated/\n/top_only.ipynb\n",
        "a.py": "x = 1\n",
        "keep/k.py": "x = 1\n",
        "keep/generated/g.py": "x = 1\n",  # an ignored directory: nothing under it comes back
        "sub/.gitignore": "!s.py\nnested/\n",
        "sub/s.py": "x = 1\n",
        "sub/private.py": "x = 1\n",
        "sub/nested/n.py": "x = 1\n",
        "top_only.ipynb": "{}\n",
        "sub/top_only.ipynb": "{}\n",
    })
    return tmp_path


def test_walks_skip_what_git_ignores(ignoring):
    assert _shown() == ["keep/k.py", "sub/s.py", "sub/top_only.ipynb"]
    # From inside the work tree, the .gitignore files above count too.
    assert _shown("sub") == ["sub/s.py", "sub/top_only.ipynb"]
    # Named files are checked whatever .gitignore says, as Ruff does.
    assert _shown("a.py", "sub/private.py", "keep") == ["a.py", "keep/k.py", "sub/private.py"]


def test_a_directory_named_is_walked_even_when_git_ignores_it(ignoring):
    # As ripgrep and Ruff: the patterns that ignore the named directory itself are
    # set aside; the others (`*.py`, re-included by `!s.py` only in `sub`) still apply.
    assert _shown("keep/generated") == ["keep/generated/g.py"]
    assert _shown("sub/nested") == []
    (ignoring / "sub" / "nested" / "deeper").mkdir()
    (ignoring / "sub" / "nested" / "deeper" / ".gitignore").write_text("!*.py\n")
    (ignoring / "sub" / "nested" / "deeper" / "d.py").write_text("x = 1\n")
    assert _shown("sub/nested") == ["sub/nested/deeper/d.py"]
    # Walked from above, an ignored directory is still skipped whole.
    assert _shown("sub") == ["sub/s.py", "sub/top_only.ipynb"]


def test_respect_gitignore_can_be_switched_off(ignoring):
    everything = [
        "a.py", "keep/generated/g.py", "keep/k.py", "sub/nested/n.py", "sub/private.py", "sub/s.py",
        "sub/top_only.ipynb", "top_only.ipynb",
    ]
    assert _shown("--no-respect-gitignore") == everything
    (ignoring / "pyproject.toml").write_text("[tool.gradlint]\nrespect-gitignore = false\n")
    assert _shown() == everything
    assert _shown("--respect-gitignore") == ["keep/k.py", "sub/s.py", "sub/top_only.ipynb"]
    (ignoring / "pyproject.toml").write_text('[tool.gradlint]\nrespect-gitignore = "no"\n')
    result = CliRunner().invoke(main, ["check", "--show-files"])
    assert result.exit_code == 2
    assert result.stderr == f"error: {ignoring / 'pyproject.toml'}: 'respect-gitignore' must be true or false\n"


def test_gitignore_outside_a_git_work_tree_counts_too(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _tree(tmp_path, {"proj/.gitignore": "out/\n", "proj/out/o.py": "x = 1\n", "proj/m.py": "x = 1\n"})
    assert _shown("proj") == ["proj/m.py"]
