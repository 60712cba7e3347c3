"""Token formats detect-secrets 1.5 does not know, as its own plugins (RegexBasedDetector
subclasses, the mechanism its README documents for custom plugins): credentials a training
job commonly carries. Each pattern is the vendor's documented format; a ``(?<![\\w-])``
start keeps a token inside a longer word from matching."""

from __future__ import annotations

import re

from detect_secrets.plugins.base import RegexBasedDetector

_START = r"(?<![\w-])"


class GoogleApiKeyDetector(RegexBasedDetector):
    # "AIza" and 35 more characters: https://cloud.google.com/docs/authentication/api-keys
    # (the key string format), as Google's own secret scanning partner pattern.
    secret_type = "Google API Key"
    denylist = (re.compile(_START + r"AIza[0-9A-Za-z_-]{35}"),)


class GoogleOAuthTokenDetector(RegexBasedDetector):
    # OAuth 2.0 access tokens start "ya29.":
    # https://developers.google.com/identity/protocols/oauth2 (and gcloud auth print-access-token)
    secret_type = "Google OAuth Access Token"
    denylist = (re.compile(_START + r"ya29\.[0-9A-Za-z_.-]{20,}"),)


class GitHubFineGrainedTokenDetector(RegexBasedDetector):
    # "github_pat_" + 82 characters: https://github.blog/2022-10-18-introducing-fine-grained-
    # personal-access-tokens-for-github/ and docs.github.com "About authentication to GitHub"
    # (token prefixes); detect-secrets' GitHub detector knows only ghp_/gho_/ghu_/ghs_/ghr_.
    secret_type = "GitHub Fine-grained Token"
    denylist = (re.compile(_START + r"github_pat_[0-9A-Za-z_]{22,255}"),)


class HuggingFaceTokenDetector(RegexBasedDetector):
    # "hf_" + 34 letters: https://huggingface.co/docs/hub/security-tokens (user access tokens)
    secret_type = "Hugging Face Token"
    denylist = (re.compile(_START + r"hf_[A-Za-z0-9]{30,}"),)


class AnthropicKeyDetector(RegexBasedDetector):
    # "sk-ant-api03-…" / "sk-ant-admin01-…": https://docs.anthropic.com/en/api/getting-started
    # (x-api-key) and GitHub secret scanning's supported patterns (anthropic_api_key).
    secret_type = "Anthropic API Key"
    denylist = (re.compile(_START + r"sk-ant-[a-z]+\d\d-[0-9A-Za-z_-]{20,}"),)


class NpmTokenDetector(RegexBasedDetector):
    # "npm_" + 36 characters: https://github.blog/changelog/2021-09-23-npm-has-a-new-access-
    # token-format/
    secret_type = "npm Access Token"
    denylist = (re.compile(_START + r"npm_[0-9A-Za-z]{36}"),)


class DigitalOceanTokenDetector(RegexBasedDetector):
    # "dop_v1_" (personal), "doo_v1_" (OAuth), "dor_v1_" (refresh) + 64 hex digits:
    # https://docs.digitalocean.com/reference/api/create-personal-access-token/ and
    # https://www.digitalocean.com/blog/new-token-formats-secret-scanning
    secret_type = "DigitalOcean Token"
    denylist = (re.compile(_START + r"do[por]_v1_[0-9a-f]{64}"),)


class VaultTokenDetector(RegexBasedDetector):
    # "hvs." (service), "hvb." (batch), "hvr." (recovery) + a base64url body:
    # https://developer.hashicorp.com/vault/docs/concepts/tokens#token-prefixes
    secret_type = "HashiCorp Vault Token"
    denylist = (re.compile(_START + r"hv[sbr]\.[0-9A-Za-z_-]{24,}"),)


PLUGINS = (GoogleApiKeyDetector, GoogleOAuthTokenDetector, GitHubFineGrainedTokenDetector,
           HuggingFaceTokenDetector, AnthropicKeyDetector, NpmTokenDetector,
           DigitalOceanTokenDetector, VaultTokenDetector)
