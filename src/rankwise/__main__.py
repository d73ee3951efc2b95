"""``python -m rankwise``: the command line."""
import sys

from rankwise.cli.main import command

sys.exit(command())
