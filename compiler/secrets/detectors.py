"""Token formats detect-secrets 1.5 does not know, as its own plugins (RegexBasedDetector
subclasses, the mechanism its README documents for custom plugins): credentials a training
job commonly carries. Each pattern is the vendor's documented format, with its source; a
``(?<![\\w-])`` start keeps a token inside a longer word from matching."""

from __future__ import annotations

import functools
import re

# (class name, secret type, pattern after the start), one row per documented format.
FORMATS = (
    # "AIza" and 35 more characters: https://cloud.google.com/docs/authentication/api-keys
    # (the key string), as Google's own secret scanning partner pattern.
    ("GoogleApiKeyDetector", "Google API Key", r"AIza[0-9A-Za-z_-]{35}"),
    # OAuth 2.0 access tokens start "ya29.": https://developers.google.com/identity/protocols/
    # oauth2 (and `gcloud auth print-access-token`).
    ("GoogleOAuthTokenDetector", "Google OAuth Access Token", r"ya29\.[0-9A-Za-z_.-]{20,}"),
    # "github_pat_" + 82 characters: https://github.blog/2022-10-18-introducing-fine-grained-
    # personal-access-tokens-for-github/ and docs.github.com "About authentication to GitHub"
    # (token prefixes); detect-secrets' GitHub detector knows only ghp_/gho_/ghu_/ghs_/ghr_.
    ("GitHubFineGrainedTokenDetector", "GitHub Fine-grained Token",
     r"github_pat_[0-9A-Za-z_]{22,255}"),
    # "hf_" + 34 letters and digits: https://huggingface.co/docs/hub/security-tokens
    ("HuggingFaceTokenDetector", "Hugging Face Token", r"hf_[A-Za-z0-9]{30,}"),
    # "sk-ant-api03-…" / "sk-ant-admin01-…": https://docs.anthropic.com/en/api/getting-started
    # (x-api-key) and GitHub secret scanning's supported patterns (anthropic_api_key).
    ("AnthropicKeyDetector", "Anthropic API Key", r"sk-ant-[a-z]+\d\d-[0-9A-Za-z_-]{20,}"),
    # "npm_" + 36 characters: https://github.blog/changelog/2021-09-23-npm-has-a-new-access-
    # token-format/
    ("NpmTokenDetector", "npm Access Token", r"npm_[0-9A-Za-z]{36}"),
    # "dop_v1_" (personal), "doo_v1_" (OAuth), "dor_v1_" (refresh) + 64 hex digits:
    # https://docs.digitalocean.com/reference/api/create-personal-access-token/ and
    # https://www.digitalocean.com/blog/new-token-formats-secret-scanning
    ("DigitalOceanTokenDetector", "DigitalOcean Token", r"do[por]_v1_[0-9a-f]{64}"),
    # "hvs." (service), "hvb." (batch), "hvr." (recovery) + a base64url body:
    # https://developer.hashicorp.com/vault/docs/concepts/tokens#token-prefixes
    ("VaultTokenDetector", "HashiCorp Vault Token", r"hv[sbr]\.[0-9A-Za-z_-]{24,}"),
)

START = r"(?<![\w-])"


@functools.cache
def plugins() -> tuple[type, ...]:
    """The FORMATS as detect-secrets plugins, made on first use: detect-secrets imports
    requests, which a spec without a token never needs (issue 23)."""
    from detect_secrets.plugins.base import RegexBasedDetector

    return tuple(type(name, (RegexBasedDetector,), {"secret_type": kind,
                                                    "denylist": (re.compile(START + pattern),)})
                 for name, kind, pattern in FORMATS)
