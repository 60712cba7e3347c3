"""Generated from detect-secrets 1.5.0 by compiler.secrets.scan.tables_text()
(tests/test_startup.py checks it is current): its token formats, a pattern each, and its
keywords, read by a spec's check without importing detect-secrets, which imports requests
(issue 23)."""

VERSION = '1.5.0'
TOKENS = (
    '(?:(?:\\s|=|:|"|^)AKC[a-zA-Z0-9]{10,}(?:\\s|"|$))',
    '(?:(?:\\s|=|:|"|^)AP[\\dABCDEF][a-zA-Z0-9]{8,}(?:\\s|"|$))',
    '(?:(?:A3T[A-Z0-9]|ABIA|ACCA|AKIA|ASIA)[0-9A-Z]{16})',
    '(?i:aws.{0,20}?(?:key|pwd|pw|password|pass|token).{0,20}?[\\\'\\"]([0-9a-zA-Z/+]{40'
    '})[\\\'\\"])',
    '(?:AccountKey=[a-zA-Z0-9+\\/=]{88})',
    "(?:://[^:/\\?\\#\\[\\]@!\\$\\&'\\(\\)\\*\\+,;=\\s]+:([^:/\\?\\#\\[\\]@!\\$\\&'\\(\\)\\*\\+,;=\\s]+)@)",
    '(?i:(?:(?<=\\W)|(?<=^))(?:\\[|)(?:"|\\\'|)(?:cloudant|cl|clou)(?:_|-|)(?:api|)(?:key'
    '|pwd|pw|password|pass|token)(?:"|\\\'|)(?:\\]|)(?: *)(?:=|:|:=|=>| +|::)(?: *)(?:"|'
    '\\\'|)([0-9a-f]{64})(?:"|\\\'|))',
    '(?i:(?:(?<=\\W)|(?<=^))(?:\\[|)(?:"|\\\'|)(?:cloudant|cl|clou)(?:_|-|)(?:api|)(?:key'
    '|pwd|pw|password|pass|token)(?:"|\\\'|)(?:\\]|)(?: *)(?:=|:|:=|=>| +|::)(?: *)(?:"|'
    '\\\'|)([a-z]{24})(?:"|\\\'|))',
    '(?i:(?:https?\\:\\/\\/)[\\w\\-]+\\:([0-9a-f]{64})\\@[\\w\\-]+\\.cloudant\\.com)',
    '(?i:(?:https?\\:\\/\\/)[\\w\\-]+\\:([a-z]{24})\\@[\\w\\-]+\\.cloudant\\.com)',
    '(?:[MNO][a-zA-Z\\d_-]{23,25}\\.[a-zA-Z\\d_-]{6}\\.[a-zA-Z\\d_-]{27})',
    '(?:(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9_]{36})',
    '(?:(glpat|gldt|glft|glsoat|glrt)-[A-Za-z0-9_\\-]{20,50}(?!\\w))',
    '(?:GR1348941[A-Za-z0-9_\\-]{20,50}(?!\\w))',
    '(?:glcbt-([0-9a-fA-F]{2}_)?[A-Za-z0-9_\\-]{20,50}(?!\\w))',
    '(?:glimt-[A-Za-z0-9_\\-]{25}(?!\\w))',
    '(?:glptt-[A-Za-z0-9_\\-]{40}(?!\\w))',
    '(?:glagent-[A-Za-z0-9_\\-]{50,1024}(?!\\w))',
    '(?:gloas-[A-Za-z0-9_\\-]{64}(?!\\w))',
    '(?i:(?:(?<=\\W)|(?<=^))(?:\\[|)(?:"|\\\'|)(?:ibm(?:_|-|)cloud(?:_|-|)iam|cloud(?:_|-'
    '|)iam|ibm(?:_|-|)cloud|ibm(?:_|-|)iam|ibm|iam|cloud|)(?:_|-|)(?:api|)(?:_|-|)(?:'
    'key|pwd|password|pass|token)(?:"|\\\'|)(?:\\]|)(?: *)(?:=|:|:=|=>| +|::)(?: *)(?:"|'
    '\\\'|)([a-zA-Z0-9_\\-]{44}(?![a-zA-Z0-9_\\-]))(?:"|\\\'|))',
    '(?i:(?:(?<=\\W)|(?<=^))(?:\\[|)(?:"|\\\'|)(?:(?:ibm)?[-_]?cos[-_]?(?:hmac)?|)(?:_|-|'
    ')(?:secret[-_]?(?:access)?[-_]?key)(?:"|\\\'|)(?:\\]|)(?: *)(?:=|:|:=|=>| +|::)(?: '
    '*)(?:"|\\\'|)([a-f0-9]{48}(?![a-f0-9]))(?:"|\\\'|))',
    '(?:eyJ[A-Za-z0-9-_=]+\\.[A-Za-z0-9-_=]+\\.?[A-Za-z0-9-_.+/=]*?)',
    '(?:[0-9a-z]{32}-us[0-9]{1,2})',
    '(?:\\/\\/.+\\/:_authToken=\\s*((npm_.+)|([A-Fa-f0-9-]{36})).*)',
    '(?:sk-[A-Za-z0-9-_]*[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20})',
    '(?:BEGIN DSA PRIVATE KEY)',
    '(?:BEGIN EC PRIVATE KEY)',
    '(?:BEGIN OPENSSH PRIVATE KEY)',
    '(?:BEGIN PGP PRIVATE KEY BLOCK)',
    '(?:BEGIN PRIVATE KEY)',
    '(?:BEGIN RSA PRIVATE KEY)',
    '(?:BEGIN SSH2 ENCRYPTED PRIVATE KEY)',
    '(?:PuTTY-User-Key-File-2)',
    '(?:pypi-AgEIcHlwaS5vcmc[A-Za-z0-9-_]{70,})',
    '(?:pypi-AgENdGVzdC5weXBpLm9yZw[A-Za-z0-9-_]{70,})',
    '(?:SG\\.[a-zA-Z0-9_-]{22}\\.[a-zA-Z0-9_-]{43})',
    '(?i:xox(?:a|b|p|o|s|r)-(?:\\d+-)+[a-z0-9]+)',
    '(?ix:https://hooks\\.slack\\.com/services/T[a-zA-Z0-9_]+/B[a-zA-Z0-9_]+/[a-zA-Z0-9'
    '_]+)',
    '(?i:(?:(?<=\\W)|(?<=^))(?:\\[|)(?:"|\\\'|)(?:softlayer|sl)(?:_|-|)(?:api|)(?:_|-|)(?'
    ':key|pwd|password|pass|token)(?:"|\\\'|)(?:\\]|)(?: *)(?:=|:|:=|=>| +|::)(?: *)(?:"'
    '|\\\'|)([a-z0-9]{64})(?:"|\\\'|))',
    '(?i:(?:http|https)://api.softlayer.com/soap/(?:v3|v3.1)/([a-z0-9]{64}))',
    '(?:sq0csp-[0-9A-Za-z\\\\\\-_]{43})',
    '(?:(?:r|s)k_live_[0-9a-zA-Z]{24})',
    '(?:\\d{8,10}:[0-9A-Za-z_-]{35})',
    '(?:AC[a-z0-9]{32})',
    '(?:SK[a-z0-9]{32})',
)
DENYLIST = ('api_?key',
 'auth_?key',
 'service_?key',
 'account_?key',
 'db_?key',
 'database_?key',
 'priv_?key',
 'private_?key',
 'client_?key',
 'db_?pass',
 'database_?pass',
 'key_?pass',
 'password',
 'passwd',
 'pwd',
 'secret',
 'contraseña',
 'contrasena')
