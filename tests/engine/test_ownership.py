"""Whose jobs a stack may stop, under the real engine against the emulator (docs/pulumi.md,
"Lifecycle"): a state copied from another stack never acts on that stack's jobs; a renamed stack
stops its own once the rename is declared (`trainspec:renamedFrom`); a retained job is never
silently left running beside its replacement; secrets come only from `trainspec:`; one rule for
which config key wins. Nothing is killed or tidied between steps: the machine is the user's.
"""

from __future__ import annotations

import time

from job_specs import HOLD, ml, vertex

from compiler import pipeline
from compiler.cloud.rest import Client
from compiler.jobs.identity import IDENTITY_LABEL, identity
from compiler.options import Options

BERT, CENSUS = "specs/bert.yaml", "specs/census.yaml"
CENSUS_JOB = "projects/acme-test/jobs/census"


def running(emulator) -> list[str]:
    """The jobs not stopped (queued, pending or running)."""
    jobs = {**emulator.vertex_jobs(), **emulator.ml_jobs()}
    return sorted(n for n, j in jobs.items() if not j["state"].endswith(
        ("SUCCEEDED", "FAILED", "CANCELLED", "CANCELLING")))


def text(proc) -> str:
    return proc.stdout + proc.stderr


def test_a_state_copied_from_another_stack_never_acts_on_that_stacks_jobs(project, emulator):
    p = project(stack="prod")
    p.write(BERT, vertex(labels=HOLD))
    p.write(CENSUS, ml(labels=HOLD))
    p.up()
    prod_jobs = running(emulator)
    assert len(prod_jobs) == 2

    copy_state(p, "prod", "dev")  # prod's state, its URNs rewritten to dev, imported into dev


    p.write(BERT, vertex(labels=HOLD, steps=20))  # an edit in dev: a replace of bert
    for command in (("destroy", "--yes", "--skip-preview"), ("preview",),
                    ("up", "--yes", "--skip-preview")):
        refused = p.run(*command, check=False)
        assert refused.returncode != 0, text(refused)
        assert "Traceback" not in text(refused)
        assert "trainspec:renamedFrom" in text(refused), text(refused)
        assert "pulumi state delete" not in text(refused).split("copied")[0]
    assert running(emulator) == prod_jobs
    assert not emulator.requests("POST", ":cancel")
    assert len(emulator.vertex_jobs()) == 1  # nothing submitted for dev's edit

    # prod itself is untouched and still stops its own jobs.
    p.write(BERT, vertex(labels=HOLD))
    p.run("destroy", "--yes", "--skip-preview", "--stack", "prod")
    assert running(emulator) == []


def test_a_renamed_stack_stops_its_own_jobs_once_the_rename_is_declared(project, emulator):
    p = project()
    p.write(BERT, vertex(labels=HOLD))
    p.write(CENSUS, ml(labels=HOLD))
    p.up()
    (bert,) = emulator.vertex_jobs()
    p.run("stack", "rename", "staging")

    for command in (("preview",), ("destroy", "--yes", "--skip-preview")):
        refused = p.run(*command, check=False)
        assert refused.returncode != 0, text(refused)
        assert "pulumi config set trainspec:renamedFrom" in text(refused), text(refused)
        assert "None belongs" not in text(refused)
    assert len(running(emulator)) == 2 and not emulator.requests("POST", ":cancel")

    p.run("config", "set", "trainspec:renamedFrom", "dev")
    preview = p.run("preview")
    assert "renamed from organization/trainspec/dev" in preview.stdout, preview.stdout
    p.up()
    assert not emulator.requests("POST", ":cancel")
    # AI Platform labels can change: the job is stamped with the new owner. Vertex's cannot.
    staging = identity("organization", "trainspec", "staging", "census")
    assert emulator.ml_jobs()[CENSUS_JOB]["labels"][IDENTITY_LABEL] == staging

    status = p.trainspec("status", "specs", "--stack", "staging")
    assert "NOT SUBMITTED" not in status.stdout, status.stdout + status.stderr
    assert status.stdout.count("RUNNING") == 2, status.stdout

    p.run("config", "rm", "trainspec:renamedFrom")  # the state remembers what was accepted
    p.write(BERT, vertex(labels=HOLD, steps=20))
    p.up()
    assert emulator.vertex_jobs()[bert]["state"] == "JOB_STATE_CANCELLED"
    p.run("destroy", "--yes", "--skip-preview")
    assert running(emulator) == []


def test_retain_on_delete_and_an_edited_spec_is_refused_with_the_way_out(project, emulator):
    p = project(name="ml-jobs")
    p.write(BERT, vertex(labels=HOLD))
    p.run("config", "set", "--path", "trainspec:retainOnDelete[0]", "bert")
    p.up()
    (old,) = emulator.vertex_jobs()

    p.write(BERT, vertex(labels=HOLD, steps=20))
    for command in (("preview",), ("up", "--yes", "--skip-preview")):
        refused = p.run(*command, check=False)
        assert refused.returncode != 0, text(refused)
        assert "retainOnDelete" in text(refused) and "keep running" in text(refused), \
            text(refused)
    assert list(emulator.vertex_jobs()) == [old]  # no second generation

    # The way out the refusal gives: the option off, recorded by an `up` of the spec as it was,
    # then the change (Pulumi replaces with the option in its state).
    p.run("config", "rm", "trainspec:retainOnDelete")
    again = p.run("up", "--yes", "--skip-preview", check=False)
    assert again.returncode != 0 and "spec unchanged" in text(again), text(again)
    p.write(BERT, vertex(labels=HOLD))
    p.up()
    assert list(emulator.vertex_jobs()) == [old]
    p.write(BERT, vertex(labels=HOLD, steps=20))
    p.up()
    jobs = emulator.vertex_jobs()
    assert len(jobs) == 2 and jobs[old]["state"] == "JOB_STATE_CANCELLED"


def test_secrets_come_only_from_trainspec_and_a_set_value_beats_a_default(project, emulator):
    p = project(name="gcp")  # a project named like another provider's namespace
    p.write(BERT, vertex(labels=HOLD) + "  env: {TOKEN: {secret: credentials}}\n")
    p.run("config", "set", "--secret", "gcp:credentials", "google-credentials")
    refused = p.run("preview", check=False)
    assert refused.returncode != 0
    assert "trainspec:credentials" in text(refused) and "12:" in text(refused), text(refused)
    assert emulator.calls == []

    p.run("config", "set", "--secret", "trainspec:credentials", "the-token")
    p.run("config", "set", "trainspec:specs", "lint")  # `<project>:specs` has a default
    p.write("lint/other.yaml", vertex(name="other", labels=HOLD)
            + "  env: {TOKEN: {secret: credentials}}\n")
    p.up()
    (job,) = emulator.vertex_jobs().values()
    assert job["displayName"] == "other"
    env = job["jobSpec"]["workerPoolSpecs"][0]["containerSpec"]["env"]
    assert {"name": "TOKEN", "value": "the-token"} in env


def test_pulumi_import_into_a_python_program_stack_then_its_spec_changes_nothing(
        project, emulator):
    p = project()
    spec = p.write("elsewhere.yaml", vertex(name="adopted", labels=HOLD))
    body = pipeline.compile_file(str(spec), Options(project="acme-test",
                                                    region="us-central1")).body
    job = Client(emulator.url).vertex_create("acme-test", "us-central1", body)

    imported = p.run("import", "trainspec:index:VertexCustomJob", "adopted", job["name"],
                     "--yes", "--protect=false", "--generate-code=false", check=False)
    assert imported.returncode == 0 and "1 imported" in imported.stdout, text(imported)
    p.write("specs/adopted.yaml", spec.read_text())
    preview = p.run("preview", "--diff", check=False)
    assert preview.returncode == 0 and "__provider" not in text(preview), text(preview)
    # Only the Specs component is new: the imported job is its child by an alias.
    assert "to replace" not in preview.stdout and "+ 1 to create" in preview.stdout, \
        preview.stdout
    p.up()
    assert list(emulator.vertex_jobs()) == [job["name"]]
    assert p.outputs()["jobs"]["adopted"]["name"] == job["name"]


def test_refresh_reports_the_jobs_whose_state_changed(project, emulator):
    p = project()
    p.write(BERT, vertex())
    p.up()
    assert p.resources()[0]["outputs"]["state"] != "JOB_STATE_SUCCEEDED"
    time.sleep(2.5)  # the emulator moves a job one step every 0.5 s: it has succeeded

    refreshed = p.run("refresh", "--yes", "--skip-preview", "--suppress-outputs")
    assert p.resources()[0]["outputs"]["state"] == "JOB_STATE_SUCCEEDED"
    summary = refreshed.stdout.split("Resources:")[-1]
    assert "~ 1 updated" in summary, refreshed.stdout
    # Found as it was: unchanged; and what a refresh records is no change to an `up`.
    again = p.run("refresh", "--yes", "--skip-preview").stdout.split("Resources:")[-1]
    assert "~ 1 updated" not in again and "3 unchanged" in again, again
    preview = p.run("preview", "--diff").stdout
    assert "to update" not in preview and "3 unchanged" in preview, preview


def copy_state(p, source: str, target: str) -> None:
    """`source`'s state, its URNs rewritten to `target`, imported into a new stack `target`."""
    exported = p.run("stack", "export", "--stack", source).stdout
    copied = exported.replace(f"urn:pulumi:{source}::", f"urn:pulumi:{target}::").replace(
        f"::trainspec-{source}", f"::trainspec-{target}")
    (p.root / "copy.json").write_text(copied)
    p.run("stack", "init", target)
    for key, value in (("gcp:project", "acme-test"), ("gcp:region", "us-central1")):
        p.run("config", "set", key, value)
    p.run("stack", "import", "--file", "copy.json")


def renamed_with_bert(project, old: str, new: str):
    """A project whose stack `old` started bert, renamed to `new` and declared so, after the
    `up` that took bert over (the Vertex job keeps `old`'s owner label)."""
    p = project(stack=old)
    p.write(BERT, vertex(labels=HOLD))
    p.up()
    p.run("stack", "rename", new)
    p.run("config", "set", "trainspec:renamedFrom", old)
    p.up()
    return p


def test_a_copy_of_a_renamed_stacks_state_never_trusts_its_former_owners(project, emulator):
    p = renamed_with_bert(project, "a1", "a2")
    assert p.resources()[0]["outputs"]["formerOwners"]

    copy_state(p, "a2", "cp2")  # destroy configures the provider from the copied state
    refused = p.run("destroy", "--yes", "--skip-preview", check=False)
    assert refused.returncode != 0 and "Traceback" not in text(refused), text(refused)
    assert "belongs to another Pulumi stack" in text(refused), text(refused)
    assert len(running(emulator)) == 1 and not emulator.requests("POST", ":cancel")

    p.run("destroy", "--yes", "--skip-preview", "--stack", "a2")  # a2 still stops its own
    assert running(emulator) == []


def test_renamed_from_a_stack_that_still_exists_takes_nothing_over(project, emulator):
    p = project(stack="prod")
    p.write(BERT, vertex(labels=HOLD))
    p.write(CENSUS, ml(labels=HOLD))
    p.up()
    prod_jobs = running(emulator)
    prod = identity("organization", "trainspec", "prod", "census")

    copy_state(p, "prod", "dev")
    p.run("config", "set", "trainspec:renamedFrom", "prod")  # a copy claiming to be a rename
    for command in (("preview",), ("up", "--yes", "--skip-preview"),
                    ("destroy", "--yes", "--skip-preview")):
        refused = p.run(*command, check=False)
        assert refused.returncode != 0 and "Traceback" not in text(refused), text(refused)
        assert "organization/trainspec/prod, which still exists" in text(refused), text(refused)
    cancel = p.trainspec("cancel", "specs", "--stack", "dev")
    assert cancel.returncode == 1 and "still exists" in cancel.stderr, cancel.stdout + cancel.stderr
    status = p.trainspec("status", "specs", "--stack", "dev")
    assert status.returncode == 1 and "still exists" in status.stderr, status.stderr
    assert running(emulator) == prod_jobs and not emulator.requests("POST", ":cancel")
    assert emulator.ml_jobs()[CENSUS_JOB]["labels"][IDENTITY_LABEL] == prod  # not relabelled

    p.run("destroy", "--yes", "--skip-preview", "--stack", "prod")
    assert running(emulator) == []


def test_a_new_stack_of_a_renamed_stacks_old_name_ends_the_takeover(project, emulator):
    p = renamed_with_bert(project, "stg", "stg2")

    # The key removed: the provider still acts on the job (the state's formerOwners), but
    # `status` and `cancel` find a Vertex job only through it, and say so.
    p.run("config", "rm", "trainspec:renamedFrom")
    status = p.trainspec("status", "specs", "--stack", "stg2")
    assert "NOT SUBMITTED" in status.stdout, status.stdout
    assert "keep trainspec:renamedFrom set while they run" in status.stdout, status.stdout
    p.run("config", "set", "trainspec:renamedFrom", "stg")
    assert "RUNNING" in p.trainspec("status", "specs", "--stack", "stg2").stdout

    p.run("stack", "init", "stg")  # a new stack of the old name: stg2's claim ends
    p.run("stack", "select", "stg2")
    p.write(BERT, vertex(labels=HOLD, steps=20))
    refused = p.run("up", "--yes", "--skip-preview", check=False)
    assert refused.returncode != 0, text(refused)
    assert "organization/trainspec/stg, which still exists" in text(refused), text(refused)
    assert len(running(emulator)) == 1 and not emulator.requests("POST", ":cancel")


def test_a_new_stack_of_a_renamed_stacks_old_name_leaves_the_job_taken_over_to_it(
        project, emulator):
    p = renamed_with_bert(project, "olds", "news")  # news took bert's Vertex job over
    taken = running(emulator)
    p.run("stack", "init", "olds")  # a new stack of the old name, the same spec byte for byte
    for key, value in (("gcp:project", "acme-test"), ("gcp:region", "us-central1")):
        p.run("config", "set", key, value)
    p.up()  # its own job: the one under its owner label is in news's state, not adopted
    own = [j for j in running(emulator) if j not in taken]
    assert len(own) == 1 and [r["id"] for r in p.resources()] == own, running(emulator)

    cancel = p.trainspec("cancel", "specs", "--stack", "olds")
    assert cancel.returncode == 0 and "1 running job(s)" in cancel.stdout, \
        cancel.stdout + cancel.stderr
    assert running(emulator) == taken  # news's job runs on
    p.run("destroy", "--yes", "--skip-preview")
    assert running(emulator) == taken
    p.run("stack", "rm", "--yes", "olds")  # the old name free again: news stops its own
    p.run("destroy", "--yes", "--skip-preview", "--stack", "news")
    assert running(emulator) == []


def test_two_stacks_naming_the_same_former_one_only_the_renamed_one_stops_its_jobs(
        project, emulator):
    p = renamed_with_bert(project, "b1", "b2")
    p.run("stack", "init", "b3")  # another stack claiming the same former name
    for key, value in (("gcp:project", "acme-test"), ("gcp:region", "us-central1"),
                       ("trainspec:renamedFrom", "b1")):
        p.run("config", "set", key, value)

    cancel = p.trainspec("cancel", "specs", "--stack", "b3")
    assert cancel.returncode == 0 and "0 running job(s)" in cancel.stdout, cancel.stdout
    assert "NOT SUBMITTED" in p.trainspec("status", "specs", "--stack", "b3").stdout
    assert len(running(emulator)) == 1 and not emulator.requests("POST", ":cancel")

    cancel = p.trainspec("cancel", "specs", "--stack", "b2")  # its state holds the job
    assert cancel.returncode == 0 and "1 running job(s)" in cancel.stdout, \
        cancel.stdout + cancel.stderr
    assert running(emulator) == []
