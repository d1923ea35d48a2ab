"""Binary lookup: $PUSHDOUBLE_BIN, the bundled copy, PATH (skipping our own console
script), the error naming all three, and the console script's exec."""

import os
import stat
import subprocess
import sys

import pytest

from pushdouble import binary
from support import subprocess_env


def _exe(path, text="#!/bin/sh\necho fake\n", mode=0o755):
    path.write_text(text)
    path.chmod(mode)
    return str(path)


@pytest.fixture
def isolated(monkeypatch, tmp_path):
    """No $PUSHDOUBLE_BIN, an empty bundled dir, an empty PATH."""
    monkeypatch.delenv("PUSHDOUBLE_BIN", raising=False)
    monkeypatch.delenv("PUSHDOUBLE_REFERENCE_SENDER", raising=False)
    bundled = tmp_path / "bundled"
    bundled.mkdir()
    monkeypatch.setattr(binary, "_BIN_DIR", str(bundled))
    empty = tmp_path / "path"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    return tmp_path


def test_env_var_wins(isolated, monkeypatch):
    a = _exe(isolated / "a")
    _exe(isolated / "bundled" / "pushdouble")
    monkeypatch.setenv("PUSHDOUBLE_BIN", a)
    assert binary.find_binary() == a


def test_wrong_env_var_is_an_error_not_a_fallback(isolated, monkeypatch):
    _exe(isolated / "bundled" / "pushdouble")
    monkeypatch.setenv("PUSHDOUBLE_BIN", str(isolated / "missing"))
    with pytest.raises(binary.BinaryNotFound, match=r"\$PUSHDOUBLE_BIN=.*missing"):
        binary.find_binary()


def test_explicit_path_goes_first(isolated, monkeypatch):
    a, b = _exe(isolated / "a"), _exe(isolated / "b")
    monkeypatch.setenv("PUSHDOUBLE_BIN", a)
    assert binary.find_binary(b) == b


def test_bundled_copy_then_path(isolated, monkeypatch):
    on_path = _exe(isolated / "path" / "pushdouble")
    assert binary.find_binary() == on_path
    bundled = _exe(isolated / "bundled" / "pushdouble")
    assert binary.find_binary() == bundled


def test_bundled_copy_that_lost_its_exec_bit_is_repaired(isolated):
    p = isolated / "bundled" / "pushdouble"
    _exe(p, mode=0o644)
    assert binary.find_binary() == str(p)
    assert os.stat(p).st_mode & stat.S_IXUSR


def test_our_console_script_on_path_is_not_the_binary(isolated):
    _exe(isolated / "path" / "pushdouble",
         "#!/usr/bin/python3\nimport sys\nfrom pushdouble.binary import main\nsys.exit(main())\n")
    with pytest.raises(binary.BinaryNotFound):
        binary.find_binary()


def test_error_names_all_three_places(isolated):
    with pytest.raises(binary.BinaryNotFound) as e:
        binary.find_binary()
    msg = str(e.value)
    assert "$PUSHDOUBLE_BIN" in msg
    assert str(isolated / "bundled" / "pushdouble") in msg
    assert "PATH" in msg


def test_reference_sender_next_to_the_binary(isolated, monkeypatch):
    a = _exe(isolated / "pushdouble")
    ref = _exe(isolated / "pushdouble-reference-sender")
    monkeypatch.setenv("PUSHDOUBLE_BIN", a)
    assert binary.find_reference_sender() == ref
    other = _exe(isolated / "other-ref")
    monkeypatch.setenv("PUSHDOUBLE_REFERENCE_SENDER", other)
    assert binary.find_reference_sender() == other


def test_console_script_execs_the_binary_with_its_arguments(tmp_path):
    fake = _exe(tmp_path / "pushdouble", '#!/bin/sh\necho "exec:$0:$*"\nexit 7\n')
    p = subprocess.run([sys.executable, "-c", "from pushdouble.binary import main; main()", "serve", "--help"],
                       env=subprocess_env(PUSHDOUBLE_BIN=fake), capture_output=True, text=True, timeout=30)
    assert p.returncode == 7
    assert p.stdout.strip() == "exec:%s:serve --help" % fake


def test_console_script_without_a_binary_says_where_it_looked(tmp_path):
    env = subprocess_env(PATH=str(tmp_path))
    env.pop("PUSHDOUBLE_BIN", None)
    code = ("import pushdouble.binary as b; b._BIN_DIR = %r; import sys; sys.exit(b.main([]))" % str(tmp_path))
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=30)
    assert p.returncode == 127
    assert "no pushdouble binary found" in p.stderr and "$PUSHDOUBLE_BIN" in p.stderr


def test_env_var_naming_our_console_script_is_refused(tmp_path):
    """$PUSHDOUBLE_BIN pointed at the console script pip writes (through a symlink too) would
    make it exec itself forever: it stops at once and says why."""
    script = _exe(tmp_path / "pushdouble",
                  "#!%s\nimport sys\nfrom pushdouble.binary import main\nsys.exit(main())\n" % sys.executable)
    link = tmp_path / "pd-link"
    link.symlink_to(script)
    for target in (script, str(link)):
        p = subprocess.run([script, "--version"], env=subprocess_env(PUSHDOUBLE_BIN=target),
                           capture_output=True, text=True, timeout=30)
        assert p.returncode == 127, p
        assert "$PUSHDOUBLE_BIN=%s is the Python package's own pushdouble command" % target in p.stderr
        assert "run itself forever" in p.stderr
