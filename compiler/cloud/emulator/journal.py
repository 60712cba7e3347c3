"""The emulator's persistence (``--state FILE``).

FILE is a snapshot (the whole state as JSON); FILE.journal holds, one JSON line each, the
records every write changed since. A write appends one line and fsyncs it: durable, and its
cost does not grow with the number of jobs. When the journal outgrows the state, it is folded
into a new snapshot (written to a temp file, fsynced, renamed) and emptied."""

from __future__ import annotations

import json
import os
import tempfile

SECTIONS = ("vertex", "tuning", "ml", "operations", "buckets", "objects")
COMPACT_AFTER = 1000  # journal lines beyond the number of records before a new snapshot


class Journal:
    """Loading and saving `Emulator.state` (part of `Emulator`)."""

    def _load(self) -> None:
        if os.path.exists(self.state_file):
            with open(self.state_file, encoding="utf-8") as f:
                self.state.update(json.load(f))
        else:
            self._snapshot()
        journal = self.state_file + ".journal"
        if os.path.exists(journal):
            with open(journal, "rb") as f:
                lines = f.read().split(b"\n")
            # The last line lacks its newline only if a write was cut short: never answered.
            for line in lines[:-1]:
                self._apply(json.loads(line))
            self._entries = len(lines) - 1
            if lines[-1]:
                with open(journal, "r+b") as f:
                    f.truncate(sum(len(line) + 1 for line in lines[:-1]))

    def _apply(self, entry: dict) -> None:
        self.state["next_id"] = entry["next_id"]
        for section, key, value in entry["changes"]:
            if value is None:
                self.state[section].pop(key, None)
            else:
                self.state[section][key] = value

    def _save(self, *changed: tuple[str, str]) -> None:
        if not self.state_file:
            return
        entry = {"next_id": self.state["next_id"],
                 "changes": [[section, key, self.state[section].get(key)]
                             for section, key in changed]}
        if self._journal is None:
            self._journal = open(self.state_file + ".journal", "ab")  # noqa: SIM115
        self._journal.write(json.dumps(entry, separators=(",", ":")).encode() + b"\n")
        self._journal.flush()
        os.fsync(self._journal.fileno())
        self._entries += 1
        if self._entries > COMPACT_AFTER + sum(len(self.state[k]) for k in SECTIONS):
            self._compact()

    def _compact(self) -> None:
        self._snapshot()
        # Replaying the old journal over the new snapshot would change nothing: emptying it
        # after the rename is safe even if the process dies in between.
        self._journal.truncate(0)
        self._journal.flush()
        os.fsync(self._journal.fileno())
        self._entries = 0

    def _snapshot(self) -> None:
        folder = os.path.dirname(os.path.abspath(self.state_file))
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".emulator-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(self.state, f, separators=(",", ":"), sort_keys=True)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.state_file)  # atomic: readers never see a half-written file
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise

    def close(self) -> None:
        """Close the journal (tests reopen the same state file)."""
        if self._journal is not None:
            self._journal.close()
            self._journal = None


