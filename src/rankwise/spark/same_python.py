"""Whether a session's Python workers provably run this very interpreter, finding rankwise where this process does.

Why: the worker probe of ``spark.workers`` (a one-task job at a session's first evaluation) exists so that a
worker without rankwise is said in one clear error, not a Java log; but in the common case, a script run with
the interpreter that Spark's workers start too (an activated virtual environment, the system's ``python3``), the
probe can only succeed, and in a fresh session its job is a good part of the first call's cold cost (issue #28:
the first ``rs.compare`` on MovieLens took 56 s with the probe and 48 s without it under a load of 12-15;
benchmarks/README.md). The probe is skipped only when every condition below holds; any doubt runs it.

The conditions, on a classic session (Spark Connect's workers are the server's: unknown here):

- a ``local`` / ``local[N]`` master: the workers are started by this process's JVM, with its environment
  (not ``local-cluster``, whose executors have environments of their own), and nothing that could change
  it: no ``spark.executorEnv.*`` setting, no ``SparkContext(environment=...)`` entry (pyspark's own
  ``PYTHONHASHSEED`` aside), and the variables that move Python's own folders (``PYTHONHOME``,
  ``PYTHONNOUSERSITE``, ``PYTHONUSERBASE``, ``HOME``) the same in the JVM's environment as in this process's
  (a script may change ``os.environ`` after the JVM started);
- the workers' interpreter (``pythonExec``: ``PYSPARK_PYTHON``, ``spark.pyspark.python``, else ``python3``
  looked up on the JVM's PATH, as Spark's ``ProcessBuilder`` finds it) is this one: the same file once links
  are resolved, *and* in the same folder. Why the folder: a virtual environment's ``bin/python3`` is a link to
  the base interpreter, yet another interpreter (its ``pyvenv.cfg`` beside it gives it other site-packages); a
  pyenv shim or any wrapper script is not this interpreter either;
- rankwise, numpy and pyarrow (what the probe imports) come from folders that such a worker searches from its
  start: the JVM's ``PYTHONPATH`` (Spark puts it on the workers' path), the interpreter's site-packages, the
  user site, and the folders their ``.pth`` files add (an editable install). A folder this process added to
  ``sys.path`` at run time, or the working directory, is not one of them.
"""
from __future__ import annotations

import importlib.util
import os
import shutil
import site
import sys
from pathlib import Path
from typing import Any

_PACKAGES = ("rankwise", "numpy", "pyarrow")  # (what the probe imports: rankwise's partition code, and pyarrow)


# what moves the folders a fresh interpreter searches (its prefix, the user site): the same for the workers as here
_SITE_VARIABLES = ("PYTHONHOME", "PYTHONNOUSERSITE", "PYTHONUSERBASE", "HOME")


def workers_run_this_python(session: Any) -> bool:
    """True only when the session's Python workers provably run this interpreter with this process's rankwise,
    numpy and pyarrow (the module's conditions); False on any doubt or anything unreadable."""
    try:
        context = session.sparkContext
        master = str(context.master)
        if not (master == "local" or master.startswith("local[")):
            return False
        if any(key.startswith("spark.executorEnv.") for key, _ in context.getConf().getAll()):
            return False
        if set(getattr(context, "environment", None) or {}) - {"PYTHONHASHSEED"}:  # (sent to every worker)
            return False
        environ = context._jvm.java.lang.System  # (the JVM's environment: the workers', at their start)
        if any(environ.getenv(name) != os.environ.get(name) for name in _SITE_VARIABLES):
            return False
        path, python_path = environ.getenv("PATH"), environ.getenv("PYTHONPATH")
        executable = str(context.pythonExec)
        if not this_interpreter(executable, path):
            return False
        folders = startup_folders(python_path)  # (once: it reads every .pth file of the site folders)
        return all(root is not None and root in folders for root in map(package_root, _PACKAGES))
    except Exception:  # noqa: BLE001 - Spark Connect, a fake or a stopped session, an odd site module: probed
        return False


def this_interpreter(executable: str, path: str | None) -> bool:
    """Whether ``executable`` (a path, or a name looked up on ``path``) is this interpreter: the same file and
    the same folder (see the module's notes)."""
    found = executable if os.sep in executable else shutil.which(executable, path=path or "")
    if not found or not os.path.isabs(found):
        return False
    mine = os.path.abspath(sys.executable)
    return (os.path.dirname(os.path.abspath(found)) == os.path.dirname(mine)
            and os.path.realpath(found) == os.path.realpath(mine))


def package_root(name: str) -> str | None:
    """The folder a package is imported from (the one holding its folder), links resolved; None if not found."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    places = list(spec.submodule_search_locations or []) if spec is not None else []
    return os.path.dirname(os.path.realpath(places[0])) if places else None


def startup_folders(python_path: str | None) -> set[str]:
    """The folders a fresh process of this interpreter searches, links resolved: ``python_path``'s absolute
    entries, the site-packages and user site, and the folders their ``.pth`` files name."""
    folders = {p for p in (python_path or "").split(os.pathsep) if os.path.isabs(p)}
    sites = list(site.getsitepackages())
    if site.ENABLE_USER_SITE:
        sites.append(site.getusersitepackages())
    for place in sites:
        folders.add(place)
        for pth in sorted(Path(place).glob("*.pth")) if os.path.isdir(place) else ():
            try:
                lines = pth.read_text(errors="replace").splitlines()
            except OSError:
                continue
            for line in lines:  # (as site.addpackage reads them: comments and import lines add no folder)
                line = line.rstrip()
                if line and not line.startswith(("#", "import ", "import\t")):
                    folders.add(os.path.join(place, line))
    return {os.path.realpath(f) for f in folders if os.path.isdir(f)}
