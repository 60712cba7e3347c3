"""Pulumi program: one training job per spec under `trainspec:specs` (default: specs/).

The program is trainspec's own (compiler/pulumi_program.py in the installed package): upgrading
trainspec upgrades it. Stack settings are described in Pulumi.yaml.
"""

from compiler.pulumi_program import main

if __name__ == "__main__":
    main()
