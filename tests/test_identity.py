"""Whose job a resource may act on (compiler.jobs.identity): a renamed stack's former names, and
a state copied from another stack that brings its identity and former owners along."""

from compiler.jobs.identity import former_names, former_stacks, identity, trusted_owners


def test_former_names_are_one_name_or_a_list_of_up_to_three_parts():
    assert former_names("dev") == ["dev"]
    assert former_names('["a", "p/b", "o/p/c"]') == ["a", "p/b", "o/p/c"]
    assert former_names(["a"]) == ["a"]
    assert former_names(None) == []
    for bad in ("o/p/s/x", "a//b", ["a", 3], "[not json"):
        assert former_names(bad) is None, bad


def test_a_former_name_takes_the_parts_it_leaves_out_from_the_stack_now():
    assert former_stacks('["dev", "old/dev", "acme/old/dev"]', "org", "ml", "staging") == [
        ("org", "ml", "dev"), ("org", "old", "dev"), ("acme", "old", "dev")]
    assert former_stacks("a/b/c/d", "org", "ml", "staging") == []


def test_recorded_former_owners_are_trusted_only_by_a_state_of_this_stack():
    dev, staging, prod = (identity("org", "ml", s, "bert") for s in ("dev", "staging", "prod"))
    # staging, renamed from dev and declared so: its state (identity dev) and dev's jobs.
    assert trusted_owners(staging, dev, None, {dev}) == {staging, dev}
    # Later, the key removed: the state (identity staging) recorded dev as a former owner.
    assert trusted_owners(staging, staging, [dev], set()) == {staging, dev}
    # prod's state copied into staging: prod's identity and its former owners are not trusted.
    assert trusted_owners(staging, prod, [dev], set()) == {staging}
