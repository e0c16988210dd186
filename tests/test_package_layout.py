"""The package's import structure: the library never imports its command line (the CLI
imports the library, not the reverse), and no two modules import each other in a circle."""

import ast
import os

import bertpiece

PACKAGE = os.path.dirname(bertpiece.__file__)


def _modules():
    for root, _, files in os.walk(PACKAGE):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(root, name)
                rel = os.path.relpath(path, os.path.dirname(PACKAGE))[:-3].replace(os.sep, ".")
                yield (rel[: -len(".__init__")] if rel.endswith(".__init__") else rel), path


def _imports(module, path):
    """The bertpiece modules `module` imports (at any depth of the file, lazily or not)."""
    package = module if path.endswith("__init__.py") else module.rpartition(".")[0]
    out = set()
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("bertpiece"))
        elif isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            target = (node.module or "") if node.level == 0 else ".".join(filter(None, [base, node.module]))
            if target.startswith("bertpiece"):
                out.add(target)
                out.update(f"{target}.{a.name}" for a in node.names)
    return out


def test_the_library_never_imports_its_command_line():
    offenders = {m: sorted(i for i in _imports(m, p) if i == "bertpiece.cli" or i.startswith("bertpiece.cli."))
                 for m, p in _modules()
                 if not (m == "bertpiece.cli" or m.startswith("bertpiece.cli.") or m == "bertpiece.__main__")}
    assert {m: i for m, i in offenders.items() if i} == {}


def test_no_import_circles():
    modules = dict(_modules())
    graph = {m: {i for i in _imports(m, p) if i in modules and i != m} for m, p in modules.items()}
    # a package importing its own submodules (`from . import x` in __init__) is not a circle of files
    graph = {m: {i for i in deps if not (i.startswith(m + ".") and modules[m].endswith("__init__.py"))}
             for m, deps in graph.items()}
    index, low, stack, on_stack, circles = {}, {}, [], set(), []

    def visit(v):  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    assert circles == []
