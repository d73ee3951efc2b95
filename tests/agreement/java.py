"""Which Java the Spark agreement tests would run on, and why they cannot (for their skip reason).

PySpark 4 starts a JVM: Java 17 or newer (Spark 4 supports 17 and 21). Like spark-submit, the java of
$JAVA_HOME is used when JAVA_HOME is set, else the first `java` on PATH.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess

MIN_JAVA = 17
INSTALL_HINT = "install Java 17 (e.g. `apt-get install openjdk-17-jre-headless`; .ci/run does)"


def java_executable() -> str | None:
    home = os.environ.get("JAVA_HOME")
    if home:
        exe = os.path.join(home, "bin", "java")
        return exe if os.access(exe, os.X_OK) else None
    return shutil.which("java")


def java_major(version_text: str) -> int | None:
    """The major version in `java -version`'s output: 'openjdk version "17.0.15"' -> 17, '"1.8.0_392"' -> 8."""
    m = re.search(r'version "(\d+)(?:\.(\d+))?', version_text)
    if not m:
        return None
    major = int(m.group(1))
    return int(m.group(2) or 0) if major == 1 else major


def java_problem() -> str | None:
    """None when a usable Java is found, else the reason the Spark tests are skipped."""
    java = java_executable()
    where = "$JAVA_HOME/bin/java" if os.environ.get("JAVA_HOME") else "`java` on PATH"
    if java is None:
        return f"the Spark MLlib tests need Java {MIN_JAVA}+ and there is no {where}: {INSTALL_HINT}"
    try:
        out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"the Spark MLlib tests need Java {MIN_JAVA}+; `{java} -version` failed ({exc}): {INSTALL_HINT}"
    major = java_major(out.stderr + out.stdout)
    if major is None or major < MIN_JAVA:
        found = f"Java {major}" if major else f"an unrecognised Java ({(out.stderr or out.stdout).strip()[:80]!r})"
        return f"the Spark MLlib tests need Java {MIN_JAVA}+ and {java} is {found}: {INSTALL_HINT}"
    return None
