"""Catalog of machines, accelerators, regions and images for both training APIs.

Pure data and lookups, no I/O. Import the submodules (``accelerators``, ``machines``,
``regions``, ``images``); ``machines`` re-exports the Vertex and legacy ml tables.
"""

from compiler.catalog import accelerators, images, machines, regions

__all__ = ["accelerators", "images", "machines", "regions"]
