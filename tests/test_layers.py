"""The import graph keeps the layers of docs/architecture.md (issue #12).

Every module under src/rankwise is parsed with ``ast``; each ``import`` of a rankwise module is an
edge, of one of four kinds:

* ``top``: runs when the importing module is imported (module body, class bodies, ``try``/``if``
  at module level);
* ``lazy``: inside a function, runs on first call;
* ``typing``: under ``if TYPE_CHECKING:``, never runs (annotations only);
* ``by-name``: a string that is exactly a rankwise module's dotted name (or an f-string starting
  with ``"rankwise.<package>."``), the way ``importlib.import_module`` is fed (the metric registry,
  the CLI's command table, ``rankwise reproduce``).

Two rules:

1. No import circle at import time: the graph of ``top`` edges (plus the package ``__init__`` each
   import runs on the way, e.g. importing ``rankwise.comparison.matrix`` runs ``rankwise/comparison/__init__``)
   has no cycle.
2. Imports point down the layers, whatever their kind: a module may import its own group (subpackage),
   a group of a lower layer, and, within its layer, only the groups ``SAME_LAYER`` lists for it.
   ``errors.py`` may be imported by every module; ``from rankwise import __version__`` (package metadata,
   read lazily) is allowed everywhere. ``WHITELIST`` names the few exceptions, each with its reason.

Print the current graph (between groups, and every edge that crosses groups) with
``python tests/test_layers.py``.
"""
from __future__ import annotations

import ast
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "rankwise"
PACKAGE = "rankwise"

# ---------------------------------------------------------------------------------------------
# The rules
# ---------------------------------------------------------------------------------------------

# The layer of each group (a subpackage, a top-level module, or the package itself), low to high.
# docs/architecture.md draws four layers: foundations, definitions, workflows and edges; its
# "workflows" are split here, since compare/ builds on evaluation/ (it evaluates every run) and
# nothing below evaluation/ knows any of them:
LAYERS: dict[str, int] = {
    # 0 foundations: the data model (Qrels, Run, ids, join, order) and pure vectorised kernels
    "errors": 0, "kernels": 0, "data": 0,
    "run_names": 0,  # how runs are named (NAME=PATH, a file's stem): the CLI, compare and the per-query reader
    "cache_home": 0,  # $RANKWISE_CACHE, else ~/.cache/rankwise: the downloads and the Spark class archive
    # 1 definitions: the metric grammar and registry, one module per metric, the conventions
    "spec": 1, "conventions": 1, "metrics": 1,
    # 2 the evaluation engine: evaluate(), Results, the shared query plan and means
    "evaluation": 2,
    # 3 workflows built beside evaluation (compare, sampled, catalogue) and the edges: file formats,
    #   renderers, figures, the reproductions, the example data
    "comparison": 3, "sampled": 3, "catalogue": 3,
    "agreement": 3,  # similarity of two rankings, of system orderings, reproducibility (issue #25)
    "io": 3, "report": 3, "plots": 3, "experiments": 3, "examples": 3,
    # where an evaluation's parts run (memory parts, file blocks, streaming), and the front door (evaluate() on
    # every input, the input boundary as_qrels/as_run), which compare/ and the reproductions call
    "execution": 3, "api": 3,
    "explanation": 3,  # explain(), and explain --across (which evaluates under every preset)
    "spark": 3,  # the local engine inside Spark partitions: evaluation/ per partition, catalogue/ ranks
    # 4 entry points: the command line, `python -m rankwise` and the public namespace (anything below)
    "cli": 4, "__main__": 4, PACKAGE: 4,
    "testing": 4,  # assertions for tests: compares Results, whatever produced them
}

# Imports between two different groups of one layer: importer -> the groups it may import.
# Anything not listed is forbidden, so each line here is a decision.
_LAYER_3 = frozenset(g for g, n in LAYERS.items() if n == 3)
SAME_LAYER: dict[str, frozenset[str]] = {
    # layer 0: errors.py imports nothing; kernels/ imports numpy only (house rule 5)
    "data": frozenset({"kernels"}),  # the data model's segments (segment ids, ranges) are kernels'
    # layer 1: spec/ is the base of the layer; the metrics and the conventions are written in its terms
    "metrics": frozenset({"spec"}),  # each metric module is a spec.MetricDef
    "conventions": frozenset({"spec"}),  # a convention names metrics and their parameters
    # layer 3, workflows: comparison/ and catalogue/ import no other group of the layer; sampled/
    # estimates from the ranks catalogue/ computes. None of them reads files or renders.
    "sampled": frozenset({"catalogue"}),
    # compare() evaluates every run through the front door (any input, every core)
    "comparison": frozenset({"api"}),
    # agreement/ takes runs in any form through the front door, evaluates them for the orderings and the
    # reproducibility measures, and reuses compare's per-query matrix and paired tests
    "agreement": frozenset({"api", "comparison", "io"}),
    # execution/ schedules the engine over what io/ reads (file blocks, the readers); io/ schedules nothing
    "execution": frozenset({"io"}),
    # the front door reads files (io/) and hands the evaluation to execution/
    "api": frozenset({"execution", "io"}),
    # the local engine per Spark partition: catalogue's item_ranks, compare's matrix of per-query values,
    # and io's format detection for the files the Spark engine reads
    "spark": frozenset({"catalogue", "comparison", "io", "api"}),  # (api: the columns= of a side, as locally)
    # layer 3, edges: a format reader may build a workflow's input; renderers draw workflows' results.
    # io/ must not import the renderers, the reproductions or sampled/ (it reads sampled ranks as data).
    "io": frozenset({"comparison"}),  # per-query values are read into a compare.PerQueryMatrix
    # figures of a Comparison, of sampled estimates and of agreement results
    "plots": frozenset({"comparison", "sampled", "catalogue", "agreement"}),
    "report": frozenset({"comparison", "plots", "agreement"}),  # renderings of a Comparison, with its figures
    "experiments": _LAYER_3 - {"experiments"},  # the reproductions use whatever they reproduce
    # examples/ is data only: it imports nothing of its layer
    # layer 4: the entry points may use one another (cycles are still caught by rule 1)
    "cli": frozenset({PACKAGE, "__main__"}),
    "__main__": frozenset({"cli", PACKAGE}),
    PACKAGE: frozenset({"cli", "__main__"}),
}

# Upward edges kept on purpose or for now: (importer module, imported module or package) -> the kinds
# of edge allowed and why. test_whitelist_is_current fails once an entry is no longer needed.
WHITELIST: dict[tuple[str, str], tuple[frozenset[str], str]] = {
    ("rankwise.data.collections", "rankwise.io.trec"): (
        frozenset({"lazy"}),
        "Qrels.read / Run.read are public API (README, docs, tests, users): thin classmethods that "
        "import the TREC reader when called. The data model knows no file format (the parsing is "
        "io/trec.py's, and io/ is where the library itself reads files); there is no import-time "
        "circle. Without an import, the method would need io/ to register its reader into data/, which "
        "hides the dependency from this graph and makes Qrels.read depend on import order.",
    ),
    ("rankwise.catalogue.workflow", "rankwise.io.interactions"): (
        frozenset({"lazy"}),
        "evaluate_catalogue is the public full-catalogue workflow and takes train/test as files and "
        "DataFrames, as Qrels.read takes a path: it imports the interactions reader when given one. "
        "catalogue/ itself parses no format (that is io/interactions.py's), and io/ imports nothing of "
        "catalogue/, so there is no circle.",
    ),
    ("rankwise.spec.registry", "rankwise.metrics"): (
        frozenset({"by-name"}),
        "the registry loads the metric modules by name (house rule 3: one module, one registry entry); "
        "the metric modules import spec/, so spec/ may know them only as names, loaded on first lookup",
    ),
}

# Optional dependencies (pyproject extras): never imported when a rankwise module is imported (house
# rule 11, and `import rankwise` must work without them); lazily, with an install hint, they may be.
OPTIONAL = frozenset({"pyarrow", "pandas", "polars", "matplotlib", "torch", "pyspark", "ir_datasets"})
KIND_ORDER = ("top", "lazy", "typing", "by-name")


# ---------------------------------------------------------------------------------------------
# The checker
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Edge:
    importer: str  # dotted module name
    imported: str  # dotted module name (a package stands for its __init__)
    path: str  # the importer's file, relative to the source root's parent (src/)
    line: int
    kind: str  # one of KIND_ORDER
    names: tuple[str, ...] = ()  # `from imported import names`, where those are not modules

    def where(self) -> str:
        return f"{self.path}:{self.line}"


def module_name(path: Path, root: Path) -> str:
    """Dotted name of the module in ``path``; ``root`` is the package directory (.../rankwise)."""
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def discover(root: Path) -> dict[str, Path]:
    return {module_name(p, root): p for p in sorted(root.rglob("*.py")) if "__pycache__" not in p.parts}


def group_of(module: str) -> str:
    """The group a module belongs to: ``rankwise.data.join`` -> ``data``, ``rankwise`` -> ``rankwise``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _known(name: str, modules: Mapping[str, Path]) -> str | None:
    """The longest prefix of ``name`` that is a module of the package (``a.b.attr`` -> ``a.b``)."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in modules:
            return candidate
        parts.pop()
    return None


def _resolve_from(node: ast.ImportFrom, importer: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = importer.split(".") if is_package else importer.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(importer: str, path: Path, modules: Mapping[str, Path], rel_to: Path) -> list[Edge]:
    """The edges from one module to the package's modules, in source order."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    shown = path.relative_to(rel_to).as_posix()
    edges: list[Edge] = []

    def add(target: str | None, line: int, kind: str, names: tuple[str, ...] = ()) -> None:
        if target is not None and target != importer and (target == PACKAGE or target.startswith(PACKAGE + ".")):
            edges.append(Edge(importer, target, shown, line, kind, names))

    def visit(node: ast.AST, kind: str) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(_known(alias.name, modules), node.lineno, kind)
        elif isinstance(node, ast.ImportFrom):
            base = _resolve_from(node, importer, is_package)
            plain: list[str] = []
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if sub in modules:
                    add(sub, node.lineno, kind)
                else:
                    plain.append(alias.name)
            if plain:
                add(_known(base, modules), node.lineno, kind, tuple(plain))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if node.value in modules and node.value != PACKAGE:  # "rankwise" alone is a label, not an import
                add(node.value, node.lineno, "by-name" if kind != "typing" else kind)
        elif isinstance(node, ast.JoinedStr) and node.values:
            head = node.values[0]
            if isinstance(head, ast.Constant) and isinstance(head.value, str) and head.value.endswith("."):
                if head.value[:-1] in modules and head.value[:-1] != PACKAGE:
                    add(head.value[:-1], node.lineno, "by-name" if kind != "typing" else kind)
            return  # the f-string's pieces are not names of their own
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.body:
                visit(child, "typing")
            for child in node.orelse:
                visit(child, kind)
            return
        inner = kind
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and kind == "top":
            inner = "lazy"
        for nested in ast.iter_child_nodes(node):
            visit(nested, inner)

    visit(tree, "top")
    return edges


def collect(root: Path = SRC) -> tuple[dict[str, Path], list[Edge]]:
    modules = discover(root)
    edges = [e for name, path in modules.items() for e in imports_of(name, path, modules, root.parent)]
    return modules, edges


def import_time_graph(edges: Iterable[Edge], modules: Mapping[str, Path]) -> dict[str, dict[str, Edge]]:
    """importer -> {imported: the first edge}, for the imports that run at import time. Importing
    ``a.b.c`` also runs the package ``a.b`` (unless the importer is inside it: then it is already
    being imported)."""
    graph: dict[str, dict[str, Edge]] = defaultdict(dict)
    for e in edges:
        if e.kind != "top":
            continue
        graph[e.importer].setdefault(e.imported, e)
        parts = e.imported.split(".")
        for i in range(2, len(parts)):
            package = ".".join(parts[:i])
            if package in modules and not (e.importer + ".").startswith(package + "."):
                graph[e.importer].setdefault(package, e)
    return graph


def find_cycles(graph: Mapping[str, Mapping[str, object]]) -> list[list[str]]:
    """One cycle (``[a, b, ..., a]``) for each strongly connected component that has one."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    counter = 0

    def strongconnect(v: str) -> None:  # Tarjan's algorithm
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, {}):
            if w not in index:
                strongconnect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in graph.get(v, {}):
                components.append(sorted(comp))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        for v in sorted(graph):
            if v not in index:
                strongconnect(v)
    finally:
        sys.setrecursionlimit(limit)

    cycles = []
    for comp in sorted(components):
        members, start = set(comp), comp[0]
        # shortest way back to start inside the component (breadth first)
        came_from: dict[str, str] = {}
        frontier = [start]
        found = None
        while frontier and found is None:
            nxt = []
            for v in frontier:
                for w in sorted(graph.get(v, {})):
                    if w == start:
                        found = v
                        break
                    if w in members and w not in came_from:
                        came_from[w] = v
                        nxt.append(w)
                if found is not None:
                    break
            frontier = nxt
        assert found is not None
        path = [start]
        v = found
        while v != start:
            path.append(v)
            v = came_from[v]
        cycles.append([start, *reversed(path[1:]), start])
    return cycles


def describe_cycle(cycle: list[str], graph: Mapping[str, Mapping[str, Edge]]) -> str:
    hops = [f"{a} -> {b} ({graph[a][b].where()})" for a, b in zip(cycle, cycle[1:])]
    return "import circle: " + " -> ".join(cycle) + "\n    " + "\n    ".join(hops)


def whitelisted(e: Edge, whitelist: Mapping[tuple[str, str], tuple[frozenset[str], str]]) -> tuple[str, str] | None:
    for (importer, target), (kinds, _why) in whitelist.items():
        if e.importer == importer and (e.imported == target or e.imported.startswith(target + ".")) \
                and e.kind in kinds:
            return importer, target
    return None


def allowed(e: Edge, layers: Mapping[str, int], same_layer: Mapping[str, frozenset[str]]) -> bool:
    src, dst = group_of(e.importer), group_of(e.imported)
    if src == dst or dst == "errors":
        return True
    if e.imported == PACKAGE and e.names == ("__version__",):
        return True  # package metadata; an import-time use would still show up as an import circle
    if layers[dst] != layers[src]:
        return layers[dst] < layers[src]
    return dst in same_layer.get(src, frozenset())


def violations(edges: Iterable[Edge], layers: Mapping[str, int] = LAYERS,
               same_layer: Mapping[str, frozenset[str]] = SAME_LAYER,
               whitelist: Mapping[tuple[str, str], tuple[frozenset[str], str]] = WHITELIST) -> list[str]:
    out = []
    for e in edges:
        if allowed(e, layers, same_layer) or whitelisted(e, whitelist):
            continue
        src, dst = group_of(e.importer), group_of(e.imported)
        direction = "a higher layer" if layers[dst] > layers[src] else "a group of its layer it may not import"
        out.append(f"{e.where()}: {e.importer} ({src}, layer {layers[src]}) imports {e.imported} "
                   f"({dst}, layer {layers[dst]}; {e.kind}): {direction}")
    return out


def top_level_imports(path: Path) -> list[tuple[str, int]]:
    """(top-level package, line) of every import that runs when the module in ``path`` is imported."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: list[tuple[str, int]] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            out.extend((a.name.split(".")[0], node.lineno) for a in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            out.append((node.module.split(".")[0], node.lineno))
        for nested in ast.iter_child_nodes(node):
            visit(nested)

    visit(tree)
    return out


# ---------------------------------------------------------------------------------------------
# The tests on rankwise
# ---------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def graph() -> tuple[dict[str, Path], list[Edge]]:
    return collect()


def test_the_source_tree_is_found(graph):
    modules, edges = graph
    assert {"rankwise", "rankwise.data.collections", "rankwise.io.trec", "rankwise.cli.main"} <= set(modules)
    assert len(edges) > 100


def test_every_group_has_a_layer(graph):
    modules, _ = graph
    missing = sorted({group_of(m) for m in modules} - set(LAYERS))
    assert not missing, f"place these in LAYERS (tests/test_layers.py, docs/architecture.md): {missing}"


def test_no_import_circle_at_import_time(graph):
    modules, edges = graph
    g = import_time_graph(edges, modules)
    cycles = find_cycles(g)
    assert not cycles, "\n".join(describe_cycle(c, g) for c in cycles)


# The one import circle kept when lazy imports count too (rule 1 counts import-time edges only): the edge
# that closes it, and why. Every other circle, through a function-level import or not, fails the test below.
CIRCLE_EDGES: dict[tuple[str, str], str] = {
    ("rankwise.data.collections", "rankwise.io.trec"): "Qrels.read / Run.read (see WHITELIST)",
}


def test_no_import_circle_counting_lazy_imports(graph):
    """Rule 1 with the function-level imports counted: a circle through a lazy import is a circle all the same
    (it only moves the failure from import time to the first call), so none is kept but CIRCLE_EDGES."""
    modules, edges = graph
    g: dict[str, dict[str, Edge]] = defaultdict(dict)
    for e in edges:
        if e.kind in ("top", "lazy") and (e.importer, e.imported) not in CIRCLE_EDGES:
            g[e.importer].setdefault(e.imported, e)
    cycles = find_cycles(g)
    assert not cycles, "\n".join(describe_cycle(c, g) for c in cycles)
    used = {(e.importer, e.imported) for e in edges if e.kind in ("top", "lazy")}
    assert set(CIRCLE_EDGES) <= used, f"stale CIRCLE_EDGES: {sorted(set(CIRCLE_EDGES) - used)}"


def test_imports_point_down_the_layers(graph):
    _, edges = graph
    found = violations(edges)
    assert not found, "imports against the layers (see the rules at the top of tests/test_layers.py):\n" + \
        "\n".join(found)


def test_whitelist_is_current(graph):
    _, edges = graph
    used = {whitelisted(e, WHITELIST) for e in edges if not allowed(e, LAYERS, SAME_LAYER)}
    stale = sorted(set(WHITELIST) - used)
    assert not stale, f"these WHITELIST entries no longer match an import: remove them: {stale}"


def test_optional_dependencies_are_not_imported_at_import_time(graph):
    modules, _ = graph
    found = [f"{p.relative_to(SRC.parent).as_posix()}:{line}: {top}"
             for p in modules.values() for top, line in top_level_imports(p) if top in OPTIONAL]
    assert not found, "optional dependencies imported at module level (import them where used, with " \
                      "rankwise.errors.require):\n" + "\n".join(found)


def test_kernels_import_numpy_only(graph):
    modules, edges = graph
    third_party = [f"{p.relative_to(SRC.parent).as_posix()}:{line}: {top}"
                   for m, p in modules.items() if group_of(m) == "kernels"
                   for top, line in top_level_imports(p)
                   if top not in sys.stdlib_module_names and top not in {"numpy", "__future__", PACKAGE}]
    others = [f"{e.where()}: {e.imported}" for e in edges if group_of(e.importer) == "kernels"
              and group_of(e.imported) not in {"kernels", "errors"}]
    assert not third_party and not others, third_party + others


# ---------------------------------------------------------------------------------------------
# The checker on synthetic input: it must be able to fail
# ---------------------------------------------------------------------------------------------

def _write(root: Path, files: Mapping[str, str]) -> Path:
    pkg = root / PACKAGE
    for rel, text in files.items():
        path = pkg / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return pkg


def test_checker_parses_kinds_and_relative_imports(tmp_path):
    pkg = _write(tmp_path, {
        "__init__.py": "from rankwise.io.reader import read\n",
        "errors.py": "",
        "data/__init__.py": "",
        "data/model.py": (
            "from typing import TYPE_CHECKING\n"
            "from ..errors import DataError\n"  # relative, two levels
            "from . import util\n"  # a submodule through `from package import`
            "if TYPE_CHECKING:\n"
            "    from rankwise.io.reader import read\n"
            "def load(path):\n"
            "    from rankwise.io.reader import read\n"
            "    return read(path)\n"
            "PLUGINS = ('rankwise.io.reader',)\n"
        ),
        "data/util.py": "",
        "io/__init__.py": "",
        "io/reader.py": "from rankwise.data.model import load\nfrom rankwise import __version__\n",
    })
    modules, edges = collect(pkg)
    got = {(e.importer, e.imported, e.kind, e.line) for e in edges}
    assert got == {
        ("rankwise", "rankwise.io.reader", "top", 1),
        ("rankwise.data.model", "rankwise.errors", "top", 2),
        ("rankwise.data.model", "rankwise.data.util", "top", 3),
        ("rankwise.data.model", "rankwise.io.reader", "typing", 5),
        ("rankwise.data.model", "rankwise.io.reader", "lazy", 7),
        ("rankwise.data.model", "rankwise.io.reader", "by-name", 9),
        ("rankwise.io.reader", "rankwise.data.model", "top", 1),
        ("rankwise.io.reader", "rankwise", "top", 2),
    }
    assert {e.where() for e in edges if e.importer == "rankwise.io.reader"} == {"rankwise/io/reader.py:1",
                                                                               "rankwise/io/reader.py:2"}


def test_checker_finds_an_import_circle(tmp_path):
    pkg = _write(tmp_path, {
        "__init__.py": "",
        "data/__init__.py": "",
        "data/model.py": "import rankwise.io.other\n",  # runs rankwise/io/__init__ first
        "io/__init__.py": "from rankwise.io.reader import read\n",
        "io/other.py": "",
        "io/reader.py": "import rankwise.data.model\ndef f():\n    import rankwise.io.other\n",
    })
    modules, edges = collect(pkg)
    g = import_time_graph(edges, modules)
    cycles = find_cycles(g)
    assert cycles == [["rankwise.data.model", "rankwise.io", "rankwise.io.reader", "rankwise.data.model"]]
    text = describe_cycle(cycles[0], g)
    assert "rankwise.io.reader -> rankwise.data.model (rankwise/io/reader.py:1)" in text
    assert "rankwise.data.model -> rankwise.io (rankwise/data/model.py:1)" in text  # the package __init__ runs
    # without the import-time edge there is no circle: the lazy one does not count
    assert find_cycles(import_time_graph([e for e in edges if e.importer != "rankwise.data.model"], modules)) == []


def test_checker_finds_cycles_on_a_plain_graph():
    assert find_cycles({"a": {"b": 0}, "b": {"c": 0}, "c": {"a": 0, "d": 0}, "d": {}}) == [["a", "b", "c", "a"]]
    assert find_cycles({"a": {"a": 0}}) == [["a", "a"]]
    assert find_cycles({"a": {"b": 0}, "b": {"c": 0}, "c": {}}) == []


def test_checker_finds_upward_and_sideways_edges():
    layers = {"errors": 0, "data": 0, "kernels": 0, "evaluation": 2, "io": 3, "compare": 3, PACKAGE: 4}
    same = {"io": frozenset({"compare"})}

    def edge(a: str, b: str, kind: str = "top", names: tuple[str, ...] = ()) -> Edge:
        return Edge(a, b, a.replace(".", "/") + ".py", 7, kind, names)

    ok = [edge("rankwise.io.trec", "rankwise.data.model"), edge("rankwise.io.trec", "rankwise.compare.m"),
          edge("rankwise.data.model", "rankwise.errors"), edge("rankwise.data.a", "rankwise.data.b", "lazy"),
          edge("rankwise.compare.m", "rankwise", "lazy", ("__version__",))]
    assert violations(ok, layers, same, {}) == []
    up = edge("rankwise.data.model", "rankwise.io.trec", "lazy")
    side = edge("rankwise.compare.m", "rankwise.io.trec")
    sneaky = edge("rankwise.evaluation.e", "rankwise", "lazy", ("__version__", "Run"))
    found = violations([up, side, sneaky], layers, same, {})
    assert found == [
        "rankwise/data/model.py:7: rankwise.data.model (data, layer 0) imports rankwise.io.trec (io, layer 3; lazy): "
        "a higher layer",
        "rankwise/compare/m.py:7: rankwise.compare.m (compare, layer 3) imports rankwise.io.trec (io, layer 3; top): "
        "a group of its layer it may not import",
        "rankwise/evaluation/e.py:7: rankwise.evaluation.e (evaluation, layer 2) imports rankwise (rankwise, layer 4; "
        "lazy): a higher layer",
    ]
    # a whitelist entry covers exactly its importer, target (or a module inside it) and kinds
    wl = {("rankwise.data.model", "rankwise.io"): (frozenset({"lazy"}), "why")}
    assert violations([up, side], layers, same, wl) == found[1:2]
    assert len(violations([edge("rankwise.data.model", "rankwise.io.trec", "top")], layers, same, wl)) == 1
    assert len(violations([edge("rankwise.data.other", "rankwise.io.trec", "lazy")], layers, same, wl)) == 1


# ---------------------------------------------------------------------------------------------

def _print_graph() -> None:
    modules, edges = collect()
    between: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for e in edges:
        if group_of(e.importer) != group_of(e.imported):
            between[group_of(e.importer), group_of(e.imported)][e.kind] += 1
    print(f"{len(modules)} modules, {len(edges)} imports of rankwise modules\n\nbetween groups (layer):")
    for (a, b), kinds in sorted(between.items(), key=lambda kv: (LAYERS.get(kv[0][0], 9), kv[0])):
        counts = ", ".join(f"{k} {kinds[k]}" for k in KIND_ORDER if kinds.get(k))
        print(f"  {a} ({LAYERS.get(a)}) -> {b} ({LAYERS.get(b)}): {counts}")
    print("\nevery import across groups:")
    for e in sorted(edges, key=lambda e: (e.importer, e.line)):
        if group_of(e.importer) != group_of(e.imported) and group_of(e.imported) != "errors":
            flag = "" if allowed(e, LAYERS, SAME_LAYER) else ("  [whitelisted]" if whitelisted(e, WHITELIST)
                                                              else "  [VIOLATION]")
            print(f"  {e.where()}: {e.importer} -> {e.imported} ({e.kind}){flag}")


if __name__ == "__main__":
    _print_graph()
