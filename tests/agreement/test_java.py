"""The Spark agreement tests skip, naming what they need, on a machine without Java 17 (tests/agreement/java.py)."""
import subprocess
import sys

import pytest

from . import java


@pytest.mark.parametrize("text,major", [('openjdk version "17.0.15" 2025-04-15', 17),
                                        ('java version "1.8.0_392"', 8), ('openjdk version "21" 2023-09-19', 21),
                                        ("no version here", None)])
def test_java_major(text, major):
    assert java.java_major(text) == major


def test_no_java_is_a_skip_reason_naming_java_17(monkeypatch):
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setattr(java.shutil, "which", lambda name: None)
    reason = java.java_problem()
    assert reason and "Java 17" in reason and "`java` on PATH" in reason and "apt-get install" in reason


def test_old_java_is_a_skip_reason(monkeypatch, tmp_path):
    fake = tmp_path / "jdk" / "bin" / "java"  # a java 8 that only prints its version
    fake.parent.mkdir(parents=True)
    fake.write_text("#!/bin/sh\necho 'java version \"1.8.0_392\"' >&2\n")
    fake.chmod(0o755)
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "jdk"))
    reason = java.java_problem()
    assert reason and "Java 8" in reason and "Java 17" in reason


@pytest.mark.slow  # a pytest process that imports pyspark: about 1.5 s
@pytest.mark.skipif(sys.platform == "win32", reason="uses a PATH without java")
def test_mllib_tests_skip_without_java(tmp_path):
    """The whole test module is skipped, with the reason, when no java is found (not a SparkContext failure)."""
    pytest.importorskip("pyspark")
    env = {"PATH": str(tmp_path), "HOME": str(tmp_path)}  # no java anywhere; JAVA_HOME unset
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs",
                        "tests/agreement/test_mllib.py"], capture_output=True, text=True, env=env, timeout=300,
                       cwd=java.__file__.rsplit("/tests/", 1)[0])
    assert p.returncode in (0, 5), p.stdout + p.stderr  # 5: nothing collected (the module skipped)
    assert "skipped" in p.stdout and "Java 17" in p.stdout, p.stdout
