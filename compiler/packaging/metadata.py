"""A source folder's distribution name and version, read without running any of its code.

In order: `pyproject.toml` ([project] name and version), `setup.cfg` ([metadata] name and
version), `setup.py` (the `name=` and `version=` of its `setup(...)` call, as string literals or
module-level constants, read with `ast`: setup.py is never executed). A dynamic or computed
version is an error naming the file: trainspec names the archive before any build backend runs.
"""

from __future__ import annotations

import ast
import configparser
import io
import re
import tokenize
from dataclasses import dataclass

from ..config.pyproject import TomlError
from ..config.pyproject import parse as parse_toml

# PEP 508 names; versions as PEP 440 writes them (checked loosely: they name a Cloud Storage
# object and an archive folder, so no '/', space or control character may pass).
_NAME = re.compile(r"^([A-Za-z0-9]|[A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9])\Z")
_VERSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.+!_-]{0,63}\Z")
# Real ones are a few KiB; the bound keeps tomllib (slow on many dotted keys or tables) and ast
# within seconds and memory on hostile input.
MAX_METADATA_FILE = 256 * 1024
# setup.py's longest chain of operators in one statement and deepest brackets: CPython builds
# its syntax tree recursively (a few thousand `+` or unary `-` exhaust the stack or, nested,
# the memory), so more is refused before ast.parse.
MAX_OPERATORS = 500
MAX_BRACKETS = 64
_WORDS = frozenset({"not", "and", "or", "if", "else", "lambda", "await", "in", "is"})


@dataclass(frozen=True)
class Metadata:
    name: str
    version: str
    source_file: str  # pyproject.toml, setup.cfg or setup.py
    package_dir: str = ""  # where packages live under the source ([tool.setuptools.package-dir])

    @property
    def dist(self) -> str:
        """The name as archives spell it (PEP 625: lower case, runs of -_. as one '_')."""
        return re.sub(r"[-_.]+", "_", self.name).lower()


class MetadataError(Exception):
    """No usable name and version; the message says which file and why."""


def read(files: dict[str, bytes]) -> Metadata:
    """Name and version from the metadata files of a source folder (file name → bytes; only
    pyproject.toml, setup.cfg and setup.py are looked at)."""
    found = None
    if "pyproject.toml" in files:
        found = _pyproject(files["pyproject.toml"])
    if found is None and "setup.cfg" in files:
        found = _setup_cfg(files["setup.cfg"])
    if found is None and "setup.py" in files:
        found = _setup_py(files["setup.py"])
    if found is None:
        present = [f for f in ("pyproject.toml", "setup.cfg", "setup.py") if f in files]
        if not present:
            raise MetadataError("no package metadata: the folder has no pyproject.toml or "
                                "setup.py")
        raise MetadataError(f"no package name and version in {' or '.join(present)}: write "
                            "[project] name and version in pyproject.toml")
    name, version, where, package_dir = found
    if not isinstance(name, str) or not _NAME.match(name):
        raise MetadataError(f"{where}: {name!r} is not a valid distribution name")
    if not isinstance(version, str) or not _VERSION.match(version):
        raise MetadataError(f"{where}: version {version!r} is not a version trainspec can "
                            "name an archive with (e.g. 0.1.0)")
    return Metadata(name, version, where, package_dir)


def _pyproject(blob: bytes) -> tuple | None:
    try:
        data = parse_toml(blob.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise MetadataError(f"pyproject.toml is not valid TOML: {e}") from e
    except TomlError as e:
        raise MetadataError(f"pyproject.toml is not valid TOML: "
                            f"{str(e).removeprefix('invalid TOML: ')} (at line "
                            f"{e.position.line}, column {e.position.column})") from e
    project = data.get("project")
    if not isinstance(project, dict):
        return None
    dynamic = project.get("dynamic") if isinstance(project.get("dynamic"), list) else []
    for key in ("name", "version"):
        if key in dynamic or key not in project:
            raise MetadataError(f"pyproject.toml: [project] {key} is "
                                f"{'dynamic' if key in dynamic else 'missing'}: trainspec names "
                                "the archive without running the build backend, so write "
                                f"{key} = \"...\" in [project]")
    tool = data.get("tool") if isinstance(data.get("tool"), dict) else {}
    setuptools = tool.get("setuptools") if isinstance(tool.get("setuptools"), dict) else {}
    root = _package_root(setuptools.get("package-dir", {}), "pyproject.toml",
                         "[tool.setuptools] package-dir")
    return project["name"], project["version"], "pyproject.toml", root


def _setup_cfg(blob: bytes) -> tuple | None:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(blob.decode("utf-8"))
    except (UnicodeDecodeError, configparser.Error) as e:
        raise MetadataError(f"setup.cfg cannot be read: {e}") from e
    if not parser.has_section("metadata"):
        return None
    meta = parser["metadata"]
    if "name" not in meta or "version" not in meta:
        return None
    version = meta["version"].strip()
    if version.startswith(("attr:", "file:")):
        raise MetadataError(f"setup.cfg: version = {version} is computed: trainspec names the "
                            "archive without running setuptools, so write the version itself")
    root = ""
    if parser.has_option("options", "package_dir"):
        for line in parser["options"]["package_dir"].splitlines():
            key, _, value = line.partition("=")
            if key.strip() == "" and value.strip():
                root = value.strip().strip("/")
    return meta["name"].strip(), version, "setup.cfg", root


def _setup_py(blob: bytes) -> tuple | None:
    try:
        _affordable(blob)
        tree = ast.parse(blob, "setup.py")
    except (SyntaxError, ValueError, tokenize.TokenError) as e:
        raise MetadataError(f"setup.py cannot be parsed: {e}") from e
    except (RecursionError, MemoryError) as e:  # a last resort: _affordable comes first
        raise MetadataError("setup.py cannot be parsed: nested too deeply") from e
    constants = {t.id: node.value.value for node in tree.body if isinstance(node, ast.Assign)
                 for t in node.targets if isinstance(t, ast.Name)
                 and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _called(node) == "setup":
            values = {}
            for kw in node.keywords:
                if kw.arg in ("name", "version", "package_dir"):
                    values[kw.arg] = _literal(kw.value, constants)
            for key in ("name", "version"):
                if not isinstance(values.get(key), str):
                    raise MetadataError(f"setup.py: setup({key}=...) is not a string literal: "
                                        "trainspec reads setup.py without running it, so write "
                                        f"{key}=\"...\" (or move the metadata to pyproject.toml)")
            root = _package_root(values.get("package_dir", {}), "setup.py",
                                 "setup(package_dir=...)")
            return values["name"], values["version"], "setup.py", root
    return None


def _package_root(dirs, where: str, what: str) -> str:
    """The folder of the root package from a package-dir mapping ({"": "src"}), checked."""
    if dirs is None:  # setup.py: not a literal, so not read
        return ""
    if not isinstance(dirs, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                             for k, v in dirs.items()):
        raise MetadataError(f"{where}: {what} is not a mapping of package names to folders "
                            f"(strings), e.g. {{\"\": \"src\"}}: got {_shape(dirs)}")
    return dirs.get("", "").strip("/")


def _shape(value) -> str:
    if isinstance(value, dict):
        bad = next((v for k, v in value.items() if not isinstance(k, str)
                    or not isinstance(v, str)), None)
        return f"a mapping holding {type(bad).__name__} {bad!r}"[:120]
    return f"{type(value).__name__} {value!r}"[:120]


def _affordable(blob: bytes) -> None:
    """Refuse, from its tokens, a setup.py whose syntax tree CPython cannot build within its
    stack and memory: a statement chaining more than MAX_OPERATORS operators, brackets nested
    deeper than MAX_BRACKETS."""
    operators = depth = 0
    for tok in tokenize.tokenize(io.BytesIO(blob).readline):
        if tok.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
            operators = 0
        elif tok.type == tokenize.OP or (tok.type == tokenize.NAME and tok.string in _WORDS):
            # each may nest the tree one level (a call, an attribute, a subscript, an operator)
            depth += tok.string in ("(", "[", "{")
            depth -= tok.string in (")", "]", "}")
            operators += tok.string not in (",", ":", ";", "=", ")", "]", "}")
            if depth > MAX_BRACKETS or operators > MAX_OPERATORS:
                line, column = tok.start
                raise MetadataError(f"setup.py:{line}:{column + 1}: too complex to read (more "
                                    f"than {MAX_BRACKETS} nested brackets or {MAX_OPERATORS} "
                                    "operators in one statement)")


def _called(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else None


def _literal(node: ast.expr, constants: dict[str, str]):
    if isinstance(node, ast.Name) and node.id in constants:
        return constants[node.id]
    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def module_files(module: str, package_dir: str) -> list[str]:
    """Where `python -m module` finds its code in a source folder (relative paths): a module
    file or a package's __main__, at the top, under `src/` or under the configured package
    folder."""
    parts = module.split(".")
    roots = dict.fromkeys([package_dir, "src", ""])
    out = []
    for root in roots:
        base = "/".join(([root] if root else []) + parts)
        out += [base + ".py", base + "/__main__.py"]
    return out


def pkg_info(meta: Metadata) -> bytes:
    """The archive's PKG-INFO: what pip and build backends read from an sdist."""
    return (f"Metadata-Version: 2.1\nName: {meta.name}\nVersion: {meta.version}\n").encode()
