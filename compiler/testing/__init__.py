"""Property-testing kit for trainspec specs: hypothesis strategies and assertions.

A public module: a repository of specs can test its own specs and its own tooling with the
same strategies trainspec tests itself with. Hypothesis is imported only when a strategy is
built, so the assertions work without it. The kit's modules: assertions.py, shapes.py (the
catalog as hardware shapes), rows.py (valid values of the field table's rows), draws.py +
strategies.py + tuning.py (strategies), mutations.py. The simple job fields (compiler/fields.py)
are drawn, refused on the other platform, put outside their enum and given broken durations
from the table's rows, so a new row is generated and mutated without editing the kit.

Strategies
    valid_specs(platform=None, kind=None)
                                 spec dicts the compiler must accept, built from the catalog
                                 (machine × accelerator × count × region combinations that
                                 exist), for "vertex", "ai-platform" or both; kind
                                 "TrainingJob", "HyperparameterTuningJob" (with a generated
                                 spec.tuning the platform can express) or both
    tunings(platform)            spec.tuning dicts valid on that platform
    mutations(spec)              one targeted corruption of a valid spec (a `Mutation`)
    every_mutation(spec)         the list of every targeted corruption of a valid spec (but
                                 the text-level ones), each applied to a copy
    mutated_specs(platform=None) valid_specs().flatmap(mutations)

Assertions
    assert_compiles_conformant(spec)  compiles (dict or YAML text) and the request conforms to
                                      the API's discovery schema; returns the Result
    assert_refused_located(text)      refused, with at least one error at a line and column
    check_repo(path)                  every spec under `path` compiles and conforms

Example, in a repository of specs (``tests/test_specs.py``)::

    from hypothesis import given, settings
    from compiler import testing

    def test_every_spec_compiles():
        testing.check_repo("specs", region="us-central1")

    @settings(max_examples=50, derandomize=True, deadline=None)
    @given(testing.valid_specs(platform="vertex"))
    def test_our_submit_wrapper_accepts_compiled_jobs(spec):
        result = testing.assert_compiles_conformant(spec)
        assert my_wrapper.dry_run(result.body)   # the repo's own code

    @settings(max_examples=50, derandomize=True, deadline=None)
    @given(testing.mutated_specs())
    def test_linter_refuses_broken_specs(mutation):
        testing.assert_refused_located(mutation.text)
"""

from .assertions import (
    TODAY,
    assert_compiles_conformant,
    assert_refused_located,
    check_repo,
    to_yaml,
)
from .draws import PLATFORMS
from .mutations import Mutation, every_mutation, mutated_specs, mutations, value_paths
from .shapes import Shape, ml_shapes, vertex_shapes
from .strategies import KINDS, valid_specs
from .tuning import tunings

__all__ = ["TODAY", "assert_compiles_conformant", "assert_refused_located", "check_repo",
           "to_yaml", "PLATFORMS", "Mutation", "every_mutation", "mutated_specs", "mutations", "value_paths",
           "Shape", "ml_shapes", "vertex_shapes", "KINDS", "valid_specs", "tunings"]
