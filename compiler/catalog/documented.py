"""Rules Google documents for Vertex AI custom training beyond machine × accelerator × region.

Each rule's code, severity and source are in the registry (compiler/rules.yaml, section `documented`),
with the status the fact has in the project's facts reference
(`shared/reference/gcp-training-facts.md`): only a fact verified (✅) from a current primary
source refuses a spec (error); a fact verified only partly, from a secondary or older source,
or not recorded there at all, is at most a warning. Checks are pure and return structured
problems (rules.Problem); the caller adds the JSON path and position.
"""

from __future__ import annotations

import ipaddress

from compiler.catalog.vertex_machines import TPU_VM_MACHINES, topology_chips
from compiler.rules import Problem

# MIG partition profiles per GPU, from the GKE / NVIDIA table [DD-AIP] gpuPartitionSize links to.
GPU_PARTITIONS: dict[str, tuple[str, ...]] = {
    "NVIDIA_TESLA_A100": ("1g.5gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb"),
    "NVIDIA_A100_80GB": ("1g.10gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"),
    "NVIDIA_H100_80GB": ("1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"),
    "NVIDIA_H100_MEGA_80GB": ("1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"),
    "NVIDIA_H200_141GB": ("1g.18gb", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb"),
    "NVIDIA_B200": ("1g.23gb", "1g.45gb", "2g.45gb", "3g.90gb", "4g.90gb", "7g.180gb"),
}

# Boot disks per machine family (Compute Engine's Hyperdisk machine support table, the
# source of rule disk-family).
HYPERDISK_ONLY = ("n4-", "a3-ultragpu-", "a4-highgpu-", "a4x-highgpu-", "g4-standard-")
NO_HYPERDISK = ("n1-", "n2-", "e2-", "c2-", "a2-", "g2-")
PD_TYPES = ("pd-ssd", "pd-standard")


def multi_host_tpu(machine: str | None, topology: str | None) -> bool:
    """True when a TPU VM topology spans more than one VM (v5e/v6e/7x beyond one host)."""
    entry = TPU_VM_MACHINES.get(machine or "")
    if entry is None or not topology:
        return False
    try:
        return topology_chips(topology) > entry[2]
    except ValueError:
        return False


def check_nfs(mount: dict, has_network: bool) -> list[Problem]:
    """Problems with one NfsMount (keys: server, mountPoint, "" for the mount itself)."""
    out: list[Problem] = []
    server = mount.get("server")
    if isinstance(server, str) and server:
        try:
            ip = ipaddress.ip_address(server)
        except ValueError:
            out.append(Problem("nfs-server-ip", "server", f"{server!r} is not an IP address: "
                               "Vertex mounts NFS by the server's IP", "give the server's "
                               "private IP, e.g. 10.0.0.2"))
        else:
            if not ip.is_private:
                out.append(Problem("nfs-private-ip", "server", f"{server} is not a private IP: "
                                   "Vertex reaches NFS servers through the peered VPC network",
                                   "use the server's internal IP"))
    point = mount.get("mountPoint")
    if isinstance(point, str) and (point.startswith("/") or ".." in point.split("/")):
        out.append(Problem("nfs-mount-point", "mountPoint", f"mountPoint {point!r}: the share "
                           "is mounted under /mnt/nfs/", "give a folder name such as 'data', "
                           "mounted at /mnt/nfs/data"))
    if not has_network:
        out.append(Problem("nfs-network", "", "NFS mounts need the job on a VPC network",
                           "set spec.network for VPC peering, or spec.vertex.pscInterfaceConfig"))
    return out


def check_dns_domain(domain: object) -> list[Problem]:
    if isinstance(domain, str) and domain and not domain.endswith("."):
        return [Problem("psc-dns-dot", "", f"DNS peering domain {domain!r} must end with a dot",
                        f"write {domain + '.'!r}")]
    return []


def check_gpu_partition(accel: str | None, size: str) -> list[Problem]:
    """gpuPartitionSize beyond its count-1 rule: GPUs only, and the sizes that GPU has."""
    if not accel or not accel.startswith("NVIDIA_"):
        return [Problem("gpu-partition-gpu", "", f"gpuPartitionSize applies to NVIDIA GPUs, not "
                        f"{accel or 'a machine without one'}")] if accel else []
    sizes = GPU_PARTITIONS.get(accel)
    if sizes is None:
        return [Problem("gpu-partition-size", "", f"{accel} has no multi-instance GPU partitions",
                        "MIG partitions exist on A100, H100, H200 and B200")]
    if size not in sizes:
        return [Problem("gpu-partition-size", "", f"{accel} has no {size!r} partition",
                        f"use one of {', '.join(sizes)}")]
    return []


def check_reservation(affinity: str | None, strategy: str | None,
                      persistent_resource: bool) -> list[Problem]:
    if affinity not in ("ANY", "SPECIFIC"):
        return []
    out: list[Problem] = []
    if strategy == "FLEX_START":
        out.append(Problem("reservation-flex-start", "", "a reservation with strategy "
                           "FLEX_START: Dynamic Workload Scheduler provisions its own capacity",
                           "drop the reservation or use strategy STANDARD"))
    if persistent_resource:
        out.append(Problem("reservation-persistent-resource", "", "a reservation with "
                           "vertex.persistentResourceId: the job runs on the persistent "
                           "resource's machines", "set the reservation on the persistent "
                           "resource instead"))
    return out


def check_gb200(accel: str | None, affinity: str | None,
                persistent_resource: bool) -> list[Problem]:
    if accel != "NVIDIA_GB200" or affinity in ("ANY", "SPECIFIC") or persistent_resource:
        return []
    return [Problem("gb200-reservation", "", "NVIDIA_GB200 (A4X) is only available through a "
                    "reservation", "add reservation: {affinity: SPECIFIC, values: [RESERVATION]}")]


def check_disk(machine: str | None, disk_type: str | None) -> list[Problem]:
    if not machine or not disk_type:
        return []
    if disk_type in PD_TYPES and machine.startswith(HYPERDISK_ONLY):
        return [Problem("disk-family", "", f"{machine} boots from Hyperdisk only, not "
                        f"{disk_type}", "use hyperdisk-balanced, or omit the disk type")]
    if disk_type == "hyperdisk-balanced" and machine.startswith(NO_HYPERDISK):
        return [Problem("disk-family", "", f"{machine} does not take a hyperdisk-balanced boot "
                        "disk", "use pd-ssd or pd-standard")]
    return []
