"""The apiVersion registry and JSON Schema diagnostics with source positions."""

from __future__ import annotations

import datetime
import functools
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..diagnostics import Collector
from ..secrets.scan import quoted
from ..source.jsonpath import child
from ..suggest import did_you_mean
from . import fast
from .foreign import describe

if TYPE_CHECKING:
    import jsonschema

# The published schemas live in the repository's top-level schemas/; compiler/_schemas is a
# symlink to it, shipped as package data, so installed copies (pip install .) find them too.
SCHEMA_DIR = Path(__file__).resolve().parent.parent / "_schemas"

# apiVersion → schema file. Older versions get an upgrade function here when v2 exists
# (kustomize's FixKustomization pattern): small ordered pure functions, oldest first.
VERSIONS = {"trainspec/v1": SCHEMA_DIR / "v1" / "trainspec.schema.json"}
CURRENT = "trainspec/v1"
KIND = "TrainingJob"


@functools.cache
def schema(version: str = CURRENT) -> dict:
    with open(VERSIONS[version], encoding="utf-8") as f:
        return json.load(f)


def inline_refs(node: Any, defs: dict) -> Any:
    """The schema with local `#/$defs/...` references replaced by their targets.

    Validation means the same (the defs are not recursive), but jsonschema no longer resolves
    a reference per visited value, which was over half of the time spent compiling a spec.
    """
    if isinstance(node, list):
        return [inline_refs(n, defs) for n in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        return {**inline_refs(defs[ref[len("#/$defs/"):]], defs), **siblings}
    return {k: inline_refs(v, defs) for k, v in node.items() if k != "$defs"}


def _is_integer(_checker: Any, value: Any) -> bool:
    # JSON Schema counts 2.0 as an integer; YAML reads `count: 2.0` as a float and the APIs'
    # integer fields take no fraction, so a spec writes integers as integers (2, not 2.0).
    return isinstance(value, int) and not isinstance(value, bool)


@functools.cache
def _ecma(pattern: str) -> re.Pattern:
    """A JSON Schema pattern as ECMA-262 reads it: `$` is the end of the text (Python's `$`
    also matches before a final newline, so `name: "job\\n"` would pass `^[a-z]+$` and be sent
    with its newline), `\\d` and `\\w` are ASCII (Python's match any script's digits: "٢x٢"
    would pass `^\\d+x\\d+$`), and `.` matches no line terminator."""
    out, in_class, escaped = [], False, False
    for ch in pattern:
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == "[":
            in_class = True
        elif ch == "]":
            in_class = False
        elif ch == "$" and not in_class:
            ch = r"\Z"
        elif ch == "." and not in_class:
            ch = "[^\n\r\u2028\u2029]"
        out.append(ch)
    return re.compile("".join(out), re.ASCII)


def project_id(text: str) -> bool:
    """Whether `text` is a project id by spec.project's rule (for --project, gcp:project)."""
    rule = schema()["properties"]["spec"]["properties"]["project"]["pattern"]
    return _ecma(rule).search(text) is not None


def _pattern(validator: Any, pattern: str, instance: Any, schema: dict) -> Iterator[Any]:
    import jsonschema

    if validator.is_type(instance, "string") and not _ecma(pattern).search(instance):
        yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")


@functools.cache
def _validator_class() -> Any:
    """jsonschema's 2020-12 validator with trainspec's pattern and integer rules. Imported on
    first use: a valid spec is settled by the fast path (fast.py) without it."""
    import jsonschema

    return jsonschema.validators.extend(
        jsonschema.Draft202012Validator, validators={"pattern": _pattern},
        type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine("integer",
                                                                           _is_integer))


@functools.cache
def validator(version: str = CURRENT) -> jsonschema.protocols.Validator:
    return validator_for(schema(version))


def validator_for(published: dict) -> jsonschema.protocols.Validator:
    """A validator of `published` (a spec's schema, or the repo config's) with our rules."""
    return _validator_class()(inline_refs(published, published.get("$defs", {})))


def check_version(data: dict, c: Collector) -> str | None:
    """The document's apiVersion if supported; otherwise a diagnostic and None."""
    supported = ", ".join(sorted(VERSIONS))
    version = data.get("apiVersion")
    if version is None:
        kind = describe(data)
        if kind:
            c.error("$", f"this is {kind}, not a trainspec spec",
                    f"convert it with `python -m compiler import {c.file}` (or import the whole "
                    "gcloud command: `python -m compiler import -- gcloud ...`) and commit the "
                    "spec it prints", code="not-a-spec")
        else:
            c.error("$", "missing required key 'apiVersion'", f"supported: {supported}",
                    code="api-version")
        return None
    if not isinstance(version, str) or version not in VERSIONS:
        c.error("$.apiVersion", f"unsupported apiVersion {version!r}", f"supported: {supported}",
                code="api-version")
        return None
    return str(version)


_TYPE_NAMES = {"string": "a string", "integer": "an integer", "number": "a number",
               "boolean": "a boolean", "object": "a mapping", "array": "a list", "null": "null"}


def _describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "a mapping"


def _toml_type(value: Any) -> str:
    """What TOML calls the type of a value tomllib returned (toml.io/en/v1.0.0)."""
    if isinstance(value, datetime.datetime):
        return "an offset date-time" if value.tzinfo else "a local date-time"
    if isinstance(value, datetime.date):
        return "a local date"
    if isinstance(value, datetime.time):
        return "a local time"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "an array"
    return "a float" if isinstance(value, float) else _describe(value)


def _path(error: jsonschema.ValidationError) -> str:
    path = "$"
    for part in error.absolute_path:
        path = child(path, part)
    return path


# The rule code of each JSON Schema keyword: one per kind of check, so that `ignore` can drop
# one kind (a value's length) and keep the others (unknown keys).
KEYWORD_CODES = {keyword: code for code, keywords in (
    ("unknown-key", ("additionalProperties",)),
    ("key-format", ("propertyNames",)),
    ("required-key", ("required",)),
    ("wrong-type", ("type",)),
    ("enum-value", ("enum", "const")),
    ("value-format", ("pattern",)),
    ("value-range", ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")),
    ("value-length", ("minLength", "maxLength")),
    ("item-count", ("minItems", "maxItems", "minProperties", "maxProperties")),
) for keyword in keywords}
OTHER_KEYWORD = "schema-rule"  # any keyword the table does not name

Problem = tuple[str, str, str, str | None, bool]  # (json path, code, message, hint, at_key)


def iter_problems(data: Any, version: str = CURRENT) -> Iterator[Problem]:
    """(json path, rule code, message, hint, at_key) for every schema violation."""
    yield from problems_of(validator(version), data)


def problems_of(checker: jsonschema.protocols.Validator, data: Any,
                language: str = "YAML") -> Iterator[Problem]:
    """`iter_problems` for any schema's validator (`validator_for`), of data read from
    `language` ("YAML" or "TOML": the types and hints of messages are that language's)."""
    for error in checker.iter_errors(data):
        yield from _explain(error, checker.schema, language)


def _explain(error: jsonschema.ValidationError, root: Any = None,
             language: str = "YAML") -> Iterator[Problem]:
    kind = "propertyNames" if "propertyNames" in error.schema_path else error.validator
    code = KEYWORD_CODES.get(str(kind), OTHER_KEYWORD)
    for path, message, hint, at_key in _describe_error(error, root, language):
        yield path, code, message, hint, at_key


def _properties(node: Any) -> dict:
    return node.get("properties", {}) if isinstance(node, dict) else {}


def _schema_at(root: Any, parts: list) -> Any:
    """The (inlined) schema of the value at `parts` below `root`, following properties and
    items only; None where that does not lead anywhere."""
    node = root
    for part in parts:
        if isinstance(part, int):
            node = node.get("items") if isinstance(node, dict) else None
        else:
            node = _properties(node).get(part)
        if node is None:
            return None
    return node


def _indentation(key: str, parts: list, here: Any, root: Any) -> str | None:
    """The hint for an unknown `key` that is a key one level down (of a child of the mapping
    at `parts`) or one level up (of its parent): a YAML indentation mistake, not a typo."""
    below = [name for name, sub in _properties(here).items() if key in _properties(sub)]
    if below:
        shown = ", ".join(below[:4]) + (", …" if len(below) > 4 else "")
        return (f"an indentation mistake? {key!r} is a key one level down (of {shown}): "
                "indent it under one of them")
    if parts and key in _properties(_schema_at(root, parts[:-1])):
        parent = "$"
        for part in parts[:-1]:
            parent = child(parent, part)
        return (f"an indentation mistake? {key!r} is a key one level up (of {parent}): "
                "dedent it by one level")
    return None


def _describe_error(error: jsonschema.ValidationError, root: Any = None, language: str = "YAML",
                    ) -> Iterator[tuple[str, str, str | None, bool]]:
    path, kind, inst, sch = _path(error), error.validator, error.instance, error.schema
    if "propertyNames" in error.schema_path:
        # jsonschema reports a bad key at its mapping, with the key as the instance.
        names = error.schema.get("description") if isinstance(error.schema, dict) else None
        yield child(path, str(inst)), f"invalid key {inst!r}", names, True
        return
    if kind == "additionalProperties" and isinstance(inst, dict):
        allowed = list(sch.get("properties", {}))
        for key in inst:
            if key not in allowed:
                moved = (_indentation(key, list(error.absolute_path), sch, root)
                         if language == "YAML" else None)  # TOML has tables, not indentation
                hint = moved or did_you_mean(key, allowed) or f"allowed keys: {', '.join(allowed)}"
                yield child(path, key), f"unknown key {key!r}", hint, True
    elif kind == "required":
        missing = [k for k in error.validator_value if k not in inst]
        for key in missing:
            yield path, f"missing required key {key!r}", None, False
    elif kind == "type":
        expected = error.validator_value
        expected = expected if isinstance(expected, list) else [expected]
        want = " or ".join(_TYPE_NAMES.get(t, t) for t in expected)
        hint = None
        if "string" in expected and isinstance(inst, (int, float)) and not isinstance(inst, bool):
            hint = f"quote it, e.g. \"2.10\": unquoted, {language} reads it as a number"
        elif "integer" in expected and isinstance(inst, float) and inst.is_integer():
            hint = f"write {int(inst)}: with a decimal point {language} reads a float"
        elif ("number" in expected or "integer" in expected) and isinstance(inst, str) \
                and language == "YAML":  # YAML 1.1's exponents; TOML reads 1e-5 as a float
            hint = exponent_hint(inst)
        got = (repr(inst) if isinstance(inst, float) and "integer" in expected
               else _toml_type(inst) if language == "TOML" else _describe(inst))
        yield path, f"expected {want}, got {got}", hint, False
    elif kind == "enum":
        choices = error.validator_value
        hint = did_you_mean(inst, choices) if isinstance(inst, str) else None
        yield path, f"{inst!r} is not one of {', '.join(map(str, choices))}", hint, False
    elif kind == "const":
        yield path, f"expected {error.validator_value!r}, got {inst!r}", None, False
    elif kind == "pattern":
        # patternErrorMessage: the editors' (VS Code, yaml-language-server) schema extension
        # for saying why a pattern refuses a value.
        why = sch.get("patternErrorMessage")
        yield path, f"{inst!r}: {why}" if why else f"{inst!r} is not valid here", \
            sch.get("description"), False
    elif kind in ("maxProperties", "minItems", "maxLength", "minLength", "minimum", "maximum"):
        yield path, error.message.replace(repr(inst), _short(inst)), None, False
    else:
        yield path, error.message, None, False


_EXPONENT = re.compile(r"^([-+]?)(\d+)(?:\.(\d*))?([eE])([-+]?)(\d+)$")


def exponent_hint(text: str) -> str | None:
    """For `1e-5`, which YAML 1.1 (PyYAML) reads as a string: how to write it as a number."""
    m = _EXPONENT.match(text.strip())
    if m is None:
        return None
    sign, whole, fraction, e, exp_sign, exponent = m.groups()
    number = f"{sign}{whole}.{fraction or '0'}{e}{exp_sign or '+'}{exponent}"
    return (f"YAML reads {text} as text: an exponent needs a '.' before it and a sign after "
            f"the '{e}'; write {number}")


def _short(value: Any) -> str:
    # The detector reads the whole value: a token cut short is no longer one.
    return quoted(value, limit=60)


def validate(data: Any, c: Collector, version: str = CURRENT) -> set[str]:
    """Report schema violations into `c`; return the JSON paths that had one."""
    if fast.valid(schema(version), data):  # the compiled validator's "valid" is final
        return set()
    bad: set[str] = set()
    for path, code, message, hint, at_key in iter_problems(data, version):
        c.error(path, message, hint, key=at_key, code=code)
        bad.add(path)
    return bad
