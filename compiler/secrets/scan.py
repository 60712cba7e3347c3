"""Which strings of a spec are credentials, by detect-secrets' detectors (Yelp). One answer
for two readers: validate warns about each (plaintext-secret, compiler/config/plaintext.py) and
review hides each (review/redact.py), so what a pull-request comment shows as ``<redacted>``
is exactly what validate flagged.

A string holds a secret where
- a token format of detect-secrets' regex detectors matches anywhere in it (AWS, GitHub,
  GitLab, Slack, Stripe, OpenAI, JWT, private keys, a URL's password, ...) or of trainspec's
  plugins for what they lack (detectors.py: Google API keys and OAuth tokens, GitHub
  fine-grained, Hugging Face, Anthropic, npm, DigitalOcean, Vault), or
- it is the value of a name that says secret (an env variable, a ``--flag``, a ``key=`` or
  ``key:`` inside a longer text): for detect-secrets' keywords (password, secret, api_key,
  private_key, ...) any value, for the words its keyword list leaves out as too noisy
  (token, key, auth, dsn, webhook) only a value of high entropy, measured by its
  Hex (limit 3.0, its default) and Base64 (limit 4.0, below) entropy detectors.
  detect-secrets' heuristic filters drop references (``${VAR}``, ``$VAR``, ``<x>``),
  sequences, UUIDs and values without a letter; a path or a URL without a password is not
  a secret value either.

Only each detector's ``analyze_string`` is called: no verification request (the network),
no settings, baseline or file, so a check is pure and takes microseconds.
"""

from __future__ import annotations

import functools
import importlib.util
import pprint
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .detectors import FORMATS, START, plugins

# A name's words that say its value is secret, beyond detect-secrets' keyword list (whose
# words are read from it, keyword.DENYLIST): `pass` (DB_PASS, --db-pass) and credentials,
# any value like its keywords; Authorization (a header), after its scheme.
_MORE_KEYWORDS = ("pass", "credential", "credentials", "authorization")
# Words whose values are secret only when they look random: an OAuth or API token, a key.
_ENTROPY_WORDS = ("token", "key", "auth", "dsn", "webhook")
# detect-secrets' Base64 limit is 4.5, for any quoted string of a file; a value the name
# already calls a token needs less: at 4.5 one HuggingFace token in six (hf_ + 34 letters and
# digits) passes, at 4.0 none of 24 characters or more does, while words joined by - or _
# (bert-base-uncased 3.3, my-project-staging-key 3.9) stay under it.
BASE64_LIMIT = 4.0
_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_SCHEME = re.compile(r"(?i)^(?:bearer|basic|token|digest|negotiate)\s+")
_NOT_A_VALUE = re.compile(r"^(?:/|\./|~/|[a-z][a-z0-9+.-]*://(?![^/\s@]*@))", re.IGNORECASE)
# `NAME=VALUE`, `--flag=VALUE`, `--flag VALUE`, `Name: VALUE` inside a longer text, found at
# every name (a lookahead: pairs overlap). A value stops at `=` and `:` (but a padding `=`
# run), so no text makes the search quadratic.
_PAIR = re.compile(r"(?<![\w.-])(?=(-{0,2}[A-Za-z][\w.-]*)(=|:[ \t]*|[ \t]+(?=[^\s-]))"
                   r"(?:(?:bearer|basic|token|digest|negotiate)[ \t]+)?"
                   r"([^\s\"'&;,)\]}=:]+=*))", re.IGNORECASE)
_JWT_REST = re.compile(r"[A-Za-z0-9_.+/=-]*")
# Words that say "no value" (a flag's off switch, a placeholder): never a credential.
_NO_VALUE = frozenset({"true", "false", "yes", "no", "on", "off", "none", "null", "nil",
                       "undefined", "empty", "disabled", "enabled", "n/a", "na", "-"})
# Where a secret is kept, not the secret: AWS Secrets Manager / SSM ARNs, Google Secret
# Manager resource names (projects/P/secrets/S[/versions/V]) and sm:// URIs, HashiCorp Vault
# references (vault:…, a KV path secret/… or kv/…).
_REFERENCE = re.compile(r"^(?:arn:aws[\w-]*:(?:secretsmanager|ssm|kms):"
                        r"|projects/[^/\s]+/secrets/|(?:gcp)?sm://|vault:"
                        r"|(?:secrets?|kv)(?:-v2)?/[\w./#-]+$)", re.IGNORECASE)
# A hex digest (MD5, SHA-1, SHA-224, SHA-256, SHA-384, SHA-512) is random but no credential:
# under a name that is only an entropy word (CACHE_KEY, --hash-key) it is not flagged.
_DIGEST = re.compile(r"^(?:[0-9a-f]{32}|[0-9a-f]{40}|[0-9a-f]{56}|[0-9a-f]{64}|[0-9a-f]{96}"
                     r"|[0-9a-f]{128})$", re.IGNORECASE)
_KEY_END = re.compile(r"-----END [A-Z0-9 ]*-----|$")


@dataclass(frozen=True)
class Finding:
    """A secret in a string: its kind (detect-secrets' secret type, or the keyword rule's)
    and where it is, ``text[start:end]``."""

    kind: str
    start: int
    end: int


@functools.cache
def _detect_secrets_detectors() -> tuple[Any, ...]:
    """detect-secrets' regex (token format) detectors, but the public IP address one."""
    # Imported on first use: detect-secrets imports requests (for verification, never called).
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.plugins.base import RegexBasedDetector
    from detect_secrets.plugins.ip_public import IPPublicDetector

    return tuple(cls() for cls in get_mapping_from_secret_type_to_class().values()
                 if issubclass(cls, RegexBasedDetector) and cls is not IPPublicDetector)


@functools.cache
def _detectors() -> tuple[Any, ...]:
    """detect-secrets' regex detectors and trainspec's plugins for the formats it lacks
    (detectors.py)."""
    return (*_detect_secrets_detectors(), *(cls() for cls in plugins()))


def _detect_secrets_keywords() -> tuple[str, ...]:
    from detect_secrets.plugins.keyword import DENYLIST

    return tuple(DENYLIST)


def _installed_version() -> str | None:
    """detect-secrets' version, read without importing it (its package imports requests)."""
    spec = importlib.util.find_spec("detect_secrets")
    if spec is None or spec.origin is None:
        return None
    try:
        text = Path(spec.origin).with_name("__version__.py").read_text(encoding="utf-8")
    except OSError:
        return None
    m = re.search(r"""^VERSION = ['"]([^'"]+)['"]""", text, re.MULTILINE)
    return m.group(1) if m else None


@functools.cache
def _tables() -> Any:
    """tables.py, what a spec's check reads of detect-secrets without importing it, when it
    was written from the detect-secrets installed, or when none is (the locked version's: a
    spec none of whose strings they match or name as a secret is settled without it, and one
    that needs detect-secrets' own detectors says the package is missing); else None (read
    detect-secrets itself)."""
    from . import tables

    installed = _installed_version()
    if installed is None and importlib.util.find_spec("detect_secrets") is None:
        return tables
    return tables if tables.VERSION == installed else None


def tables_text() -> str:
    """tables.py's text, from the detect-secrets installed (tests/test_startup.py)."""
    from detect_secrets.__version__ import VERSION

    chunks = "".join("\n    " + "\n    ".join(repr(token[i:i + 80])
                                             for i in range(0, len(token), 80)) + ","
                     for token in _patterns(_detect_secrets_detectors()))
    return (f'"""Generated from detect-secrets {VERSION} by compiler.secrets.scan.tables_text()\n'
            "(tests/test_startup.py checks it is current): its token formats, a pattern each, "
            "and its\nkeywords, read by a spec's check without importing detect-secrets, which "
            'imports requests\n(issue 23)."""\n\n'
            f"VERSION = {VERSION!r}\n"
            f"TOKENS = ({chunks}\n)\n"
            f"DENYLIST = {pprint.pformat(_detect_secrets_keywords(), width=100)}\n")


@functools.cache
def _keywords() -> frozenset[str]:
    tables = _tables()
    denylist = tables.DENYLIST if tables else _detect_secrets_keywords()
    return frozenset(word.replace("_?", "") for word in denylist) | frozenset(_MORE_KEYWORDS)


@functools.cache
def _entropy() -> tuple[Any, ...]:
    from detect_secrets.plugins.high_entropy_strings import (
        Base64HighEntropyString,
        HexHighEntropyString,
    )

    return HexHighEntropyString(), Base64HighEntropyString(limit=BASE64_LIMIT)


def name_rule(name: str) -> str | None:
    """"keyword" if a value of `name` is secret whatever it is, "entropy" if only a random
    one, None if `name` says nothing. The name ends with such a word (or two: API_KEY), and a
    keyword anywhere counts where it ends with one (AWS_SECRET_ACCESS_KEY): WANDB_API_KEY,
    dbPassword, --hf-token, SECRET, but not SECRET_NAME, PASSWORD_FILE, TOKENIZERS_PARALLELISM."""
    words = [w.lower() for w in _WORD.findall(name)]
    if not words:
        return None
    tail = {words[-1], "".join(words[-2:])}
    ends = tail & (_keywords() | set(_ENTROPY_WORDS))
    if ends and ({*words, *("".join(words[i:i + 2]) for i in range(len(words)))} & _keywords()):
        return "keyword"
    return "entropy" if ends else None


def _random(value: str) -> bool:
    """detect-secrets' Hex or Base64 entropy detector would report the whole `value`."""
    value = value.replace(".", "")  # dotted tokens (hvs.…, ya29.…): `.` is in neither charset
    for detector in _entropy():
        if value and set(value) <= set(detector.charset) \
                and detector.calculate_shannon_entropy(value) > detector.entropy_limit:
            return True
    return False


def _filtered(value: str) -> bool:
    """detect-secrets' heuristic filters for keyword and entropy findings, and references."""
    from detect_secrets.filters import heuristic as h

    return (h.is_templated_secret(value) or h.is_prefixed_with_dollar_sign(value)
            or h.is_sequential_string(value) or h.is_potential_uuid(value)
            or h.is_not_alphanumeric_string(value) or bool(_NOT_A_VALUE.match(value))
            or value.lower() in _NO_VALUE or bool(_REFERENCE.match(value)))


def named_secret(value: str, name: str) -> str | None:
    """The kind of secret `value` is as the value of `name` (a variable, a flag), or None."""
    rule = name_rule(name)
    if rule is None:
        return None
    value = _SCHEME.sub("", value.strip()) if name.lower() == "authorization" else value.strip()
    if not value or _filtered(value):
        return None
    if rule == "keyword":
        return "Secret Keyword"
    return "High Entropy String" if _random(value) and not _DIGEST.match(value) else None


def _span(m: re.Match) -> tuple[int, int]:
    """The secret of a detector's match: its last group where the match only closes after it
    (a URL's password before ``@``), else the whole match (``ghp_…``, not its prefix)."""
    groups = [i for i in range(1, (m.re.groups or 0) + 1) if m.group(i)]
    if groups and m.start(groups[-1]) > m.start() and m.end() - m.end(groups[-1]) <= 1:
        return m.span(groups[-1])
    return m.span()


def _pairs(text: str):
    """(name, start, end) of each ``name=value``, ``--flag=value``, ``--flag value`` and
    ``Name: value`` in `text`, overlapping (``--header=Authorization: Bearer …``)."""
    for m in _PAIR.finditer(text):
        name, sep = m.group(1), m.group(2)
        if sep.strip() or name.startswith("-"):  # `the token expired` is prose, not a pair
            yield name.lstrip("-"), m.start(3), m.end(3)


_FLAGS = ((re.IGNORECASE, "i"), (re.MULTILINE, "m"), (re.DOTALL, "s"), (re.VERBOSE, "x"))


def _patterns(detectors: Iterable[Any]) -> list[str]:
    """Each pattern of `detectors`, its flags written in it."""
    return ["(?" + "".join(c for f, c in _FLAGS if r.flags & f) + ":" + r.pattern + ")"
            for d in detectors for r in d.denylist]


@functools.cache
def _any_token() -> tuple[re.Pattern, ...]:
    """Every detector's patterns: a text none of them matches (most messages, most values)
    is passed over in one search per pattern instead of each detector's own checks, and
    detect-secrets is imported only for a text one matches. Searched one by one, not as one
    alternation: a pattern alone starts with what the regex engine can skip ahead to, an
    alternation tries every branch at every position (2,000 specs' strings: 0.11 s, not
    0.19 s)."""
    tables = _tables()
    ours = [f"(?:{START}{pattern})" for _, _, pattern in FORMATS]
    return tuple(re.compile(p) for p in (
        *(tables.TOKENS if tables else _patterns(_detect_secrets_detectors())), *ours))


def any_token(text: str) -> bool:
    """Whether a token format may be in `text` (scan says where, and checks each)."""
    for pattern in _any_token():
        if pattern.search(text):
            return True
    return False


@functools.lru_cache(maxsize=256)  # a value is read by validate, then by each message quoting it
def scan(text: str, pairs: bool = True) -> tuple[Finding, ...]:
    """Every secret in `text`, by token format and (unless `pairs` is False) by
    ``name=value`` pairs, in order."""
    found: list[Finding] = []
    for detector in _detectors() if any_token(text) else ():
        secrets = set(detector.analyze_string(text))  # the detector's own checks (a JWT's)
        if not secrets:
            continue
        for regex in detector.denylist:
            for m in regex.finditer(text):
                if any(secret in m.group() for secret in secrets):
                    start, end = _span(m)
                    if detector.secret_type == "Private Key":  # the block, not its header
                        start = text.rfind("-----", 0, start) if text[:start].endswith("-") \
                            else start
                        end = _KEY_END.search(text, end).end()
                    elif detector.secret_type == "JSON Web Token":  # its regex stops lazily
                        end = _JWT_REST.match(text, end).end()
                    found.append(Finding(detector.secret_type, start, end))
    for name, start, end in _pairs(text) if pairs else ():
        kind = named_secret(text[start:end], name)
        if kind:
            found.append(Finding(kind, start, end))
    return tuple(sorted(found, key=lambda f: (f.start, -f.end)))


REDACTED = "<redacted>"
_PLACEHOLDER = re.compile(r"^<secret:[^>]+>$")
_MIN_LITERAL = 4  # shorter secret literals are not scrubbed from free text (too many false hits)
_MIN_PREFIX = 8  # a literal cut short (``abcdefgh...``) is scrubbed from this many characters on
_ELLIPSIS = ("...", "\u2026")


def placeholder(value: str) -> bool:
    """A ``<secret:KEY>`` marker, what a ``{secret: KEY}`` env value compiles to."""
    return bool(_PLACEHOLDER.match(value))


def _scrub(text: str, literal: str) -> str:
    """`text` with `literal` replaced, and any cut-short start of it that ends in an
    ellipsis (a message that truncates a long value)."""
    out, at = [], 0
    while (start := text.find(literal[:_MIN_PREFIX], at)) >= 0:
        end = start
        while end - start < len(literal) and end < len(text) \
                and text[end] == literal[end - start]:
            end += 1
        if end - start == len(literal) or text.startswith(_ELLIPSIS, end):
            out += [text[at:start], REDACTED]
        else:
            out.append(text[at:end])
        at = end
    return "".join(out) + text[at:]


def redact_text(text: str, literals: Iterable[str] = (), *, pairs: bool = True) -> str:
    """`text` with the secret parts replaced by ``<redacted>``: each secret the detector finds
    in it (token formats, and ``name=value`` pairs unless `pairs` is False: trainspec's own
    messages say ``--secret KEY``) and any of `literals` (values of the spec validate flags,
    also where a message cut them short)."""
    for value in sorted(set(literals), key=len, reverse=True):
        if len(value) >= _MIN_LITERAL and not placeholder(value):
            text = _scrub(text, value) if len(value) > _MIN_PREFIX else \
                text.replace(value, REDACTED)
    out, at = [], 0
    for f in scan(text, pairs):
        if f.end <= at:
            continue
        out += [text[at:max(at, f.start)], REDACTED]
        at = f.end
    return "".join(out) + text[at:]


def scrubbed(value: str, name: str = "") -> str:
    """`value` (of `name`, a key or flag; "" for none) as a message may quote it: each secret
    in it ``<redacted>``, the detector reading the whole value before any cut."""
    if not secret_kind(value, name):
        return value
    return redact_text(value, [value] if named_secret(value, name) else [])


def quoted(value: Any, name: str = "", limit: int = 0) -> str:
    """`repr(value)`, `scrubbed`, cut to `limit` characters (0: none) as ``'abc...``."""
    text = repr(scrubbed(value, name) if isinstance(value, str) else value)
    return text if not limit or len(text) <= limit else text[:limit - 3] + "..."


def secret_kind(value: str, name: str = "") -> str | None:
    """The kind of the first secret in `value`, given to `name` (an env variable, a flag;
    "" for none), or None: what validate reports and review hides."""
    if _REFERENCE.match(value.strip()):  # where the secret is kept: its `secret:` no pair
        return None
    if name:
        kind = named_secret(value, name.lstrip("-"))
        if kind:
            return kind
    found = scan(value)
    return found[0].kind if found else None
