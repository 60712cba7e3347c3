"""The small strategies spec strategies are built from: names, labels, args, images,
containers, env, durations (hypothesis is imported only when one is built)."""

from __future__ import annotations

from typing import Any

from .. import targets

PLATFORMS = tuple(targets.PLATFORMS)


def _st():
    from hypothesis import strategies as st  # noqa: PLC0415 - optional dependency

    return st


def _words(min_size: int = 1, max_size: int = 12):
    st = _st()
    return st.from_regex(r"[a-z][a-z0-9]{0,10}", fullmatch=True).filter(
        lambda w: min_size <= len(w) <= max_size)


def _names():
    st = _st()
    return st.from_regex(r"[a-z][a-z0-9]{0,12}(-[a-z0-9]{1,8}){0,2}", fullmatch=True)


def _labels():
    st = _st()
    keys = st.from_regex(r"[a-z][a-z0-9_-]{0,14}", fullmatch=True).filter(
        lambda k: not k.startswith("trainspec-"))
    values = st.from_regex(r"[a-z0-9_-]{0,14}", fullmatch=True)
    return st.dictionaries(keys, values, max_size=5)


def _args():
    st = _st()
    flag = st.builds(lambda k, v: f"--{k}={v}", _words(), st.integers(0, 10**6).map(str) | _words())
    scalar = st.integers(-1000, 10**9) | st.sampled_from([0.1, 1e-3, 2.5]) | st.booleans()
    return st.lists(flag | scalar | st.text("abcxyz-_=./ :", max_size=20), max_size=6)


def _image():
    st = _st()
    return st.builds(lambda host, repo, tag: f"{host}/{repo}:{tag}",
                     st.sampled_from(["gcr.io/acme", "us-docker.pkg.dev/acme/trainers",
                                      "europe-docker.pkg.dev/acme/ml"]),
                     _names(), st.from_regex(r"[0-9]\.[0-9]{1,2}\.[0-9]", fullmatch=True))


def _container(draw, full: bool) -> dict:
    st = _st()
    out: dict[str, Any] = {"image": draw(_image())} if full else {}
    if draw(st.booleans()):
        out["command"] = draw(st.sampled_from([["python3", "-m", "trainer.task"],
                                               ["/bin/train"], ["torchrun", "--nproc_per_node=8"]]))
    if draw(st.booleans()) or not out:
        out["args"] = draw(_args())
    return out


def _env(draw) -> dict:
    st = _st()
    names = st.from_regex(r"[A-Z_][A-Z0-9_]{0,10}", fullmatch=True)
    values = st.text("abcdefXYZ0123456789-_./:", max_size=16) | st.builds(
        lambda k: {"secret": k}, st.from_regex(r"[a-z][A-Za-z0-9]{0,10}", fullmatch=True))
    return draw(st.dictionaries(names, values, max_size=4))


def _duration(draw, max_seconds: int = 7 * 86400):
    st = _st()
    seconds = draw(st.integers(1, max_seconds))
    style = draw(st.sampled_from(["plain", "s", "compound"]))
    if style == "plain":
        return seconds
    if style == "s":
        return f"{seconds}s"
    d, rest = divmod(seconds, 86400)
    h, rest = divmod(rest, 3600)
    m, s = divmod(rest, 60)
    text = "".join(f"{n}{u}" for n, u in ((d, "d"), (h, "h"), (m, "m"), (s, "s")) if n)
    return text
