"""Fit y = a*x + b by gradient descent and write the model where Vertex AI says to.

Vertex AI passes AIP_MODEL_DIR (and AIP_CHECKPOINT_DIR, AIP_TENSORBOARD_LOG_DIR) when the job
has an output directory; on Vertex they are gs:// URIs, reachable as files under /gcs/ (Cloud
Storage FUSE). `python -m compiler local-run` sets them to local folders. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import sys


def local_path(uri: str) -> str:
    """gs://BUCKET/PATH → /gcs/BUCKET/PATH (Vertex mounts buckets there); a path stays."""
    return "/gcs/" + uri[len("gs://"):] if uri.startswith("gs://") else uri


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--lr", type=float, default=0.05)
    args = parser.parse_args(argv)
    cluster = json.loads(os.environ.get("CLUSTER_SPEC") or "{}")
    task = cluster.get("task", {})
    print(f"replica {task.get('type', 'local')}-{task.get('index', 0)}: "
          f"{args.epochs} epochs, lr {args.lr}", flush=True)
    data = [(x / 10, 3 * x / 10 + 1) for x in range(10)]
    a = b = 0.0
    for epoch in range(1, args.epochs + 1):
        for _ in range(100):
            da = sum(2 * (a * x + b - y) * x for x, y in data) / len(data)
            db = sum(2 * (a * x + b - y) for x, y in data) / len(data)
            a, b = a - args.lr * da, b - args.lr * db
        loss = sum((a * x + b - y) ** 2 for x, y in data) / len(data)
        print(f"epoch {epoch}/{args.epochs} loss={loss:.4f}", flush=True)
    model_dir = os.environ.get("AIP_MODEL_DIR")
    if not model_dir:
        print("AIP_MODEL_DIR is not set (the job has no outputDir): model not saved",
              file=sys.stderr)
        return 0
    folder = local_path(model_dir)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "model.json"), "w") as f:
        json.dump({"a": a, "b": b, "loss": loss, "epochs": args.epochs}, f)
    print(f"model written to {model_dir.rstrip('/')}/model.json", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
