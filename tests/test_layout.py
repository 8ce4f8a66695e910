"""The rules of docs/architecture.md, checked on the source tree: data flows one way (no
import cycles, the shared layers import no family), kernels hold no xarray, modules stay
small enough to read."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "xr_agreement"
FAMILIES = {"mla", "alpha", "kappa", "judge", "compare", "spans"}
SHARED = {"_core", "resampling"}  # the layers below the families
MAX_LINES = 800


def _modules() -> dict[str, Path]:
    modules = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join(parts)] = path
    return modules


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    """Modules of the package that ``name`` imports, at module level or inside functions."""
    is_package = path.name == "__init__.py"
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")
                base = base if is_package else base[:-1]
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                candidate = f"{target}.{alias.name}"
                found.add(candidate if candidate in MODULES else target)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {module for module in found if module in MODULES and module != name}


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _cycle_from(start: str, graph: dict[str, set[str]]) -> list[str] | None:
    """An import path from ``start`` back to itself, if there is one (depth-first)."""
    stack, seen = [(start, [start])], set()
    while stack:
        node, path = stack.pop()
        for target in graph.get(node, ()):
            if target == start:
                return path + [start]
            if target not in seen:
                seen.add(target)
                stack.append((target, path + [target]))
    return None


def test_no_import_cycles_between_modules():
    # a package's __init__ re-exporting its own submodules is not a dependency
    graph = {
        name: {t for t in targets if not (MODULES[name].name == "__init__.py"
                                          and t.startswith(name + "."))}
        for name, targets in GRAPH.items()
    }
    cycles = [cycle for name in graph if (cycle := _cycle_from(name, graph))]
    assert not cycles, f"import cycles: {cycles[:3]}"


def test_no_import_cycles_between_layers():
    layers: dict[str, set[str]] = {}
    for name, targets in GRAPH.items():
        for target in targets:
            if _layer(name) and _layer(target) and _layer(name) != _layer(target):
                layers.setdefault(_layer(name), set()).add(_layer(target))
    cycles = [cycle for layer in layers if (cycle := _cycle_from(layer, layers))]
    assert not cycles, f"layer cycles: {cycles[:3]}"


@pytest.mark.parametrize("layer", sorted(SHARED))
def test_shared_layers_import_no_family(layer):
    for name, targets in GRAPH.items():
        if _layer(name) == layer:
            families = {_layer(t) for t in targets} & FAMILIES
            assert not families, f"{name} imports the families {families}"


def test_kernels_are_numba_only():
    for name, path in MODULES.items():
        if name.endswith(".kernels"):
            tree = ast.parse(path.read_text())
            imported = {alias.name.split(".")[0] for node in ast.walk(tree)
                        if isinstance(node, ast.Import) for alias in node.names}
            imported |= {(node.module or "").split(".")[0] for node in ast.walk(tree)
                         if isinstance(node, ast.ImportFrom) and not node.level}
            assert not imported & {"xarray", "pandas", "dask"}, name


@pytest.mark.parametrize("name", sorted(MODULES))
def test_module_size(name):
    lines = len(MODULES[name].read_text().splitlines())
    assert lines <= MAX_LINES, f"{name} has {lines} lines (more than {MAX_LINES})"


def test_families_have_their_own_folder():
    for family in FAMILIES | SHARED | {"io", "report"}:
        assert (PACKAGE / family / "__init__.py").exists(), family


def test_kernels_compile_through_the_package_njit():
    """Every kernel is compiled by ``_core.jit.njit`` (which caches outside the package, see
    tests/test_setup.py); numba's own njit/jit would write into an installed package again."""
    for name, path in MODULES.items():
        if name.endswith("_core.jit"):
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "") == "numba":
                assert not {a.name for a in node.names} & {"njit", "jit", "generated_jit"}, name
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                assert not (node.value.id == "numba" and node.attr in ("njit", "jit")), name


def test_package_namespace_holds_the_public_names_only():
    import xr_agreement

    names = dir(xr_agreement)
    assert set(xr_agreement.__all__) <= set(names)
    private = [n for n in names if n.startswith("_") and not n.startswith("__")]
    assert private == [], private
    # the modules the package uses for its lazy loading are not part of its namespace
    for module in ("importlib", "sys", "types"):
        assert not hasattr(xr_agreement, module), module


def test_accessor_knows_the_span_table_variables():
    """accessor.py checks a span table without importing the family: its list of the
    table's variables is the family's own."""
    from xr_agreement import accessor
    from xr_agreement.spans import table

    assert set(accessor._SPAN_TABLE_VARIABLES) == set(table.REQUIRED)
