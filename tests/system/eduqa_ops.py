"""``python -m tests.system.eduqa_ops ...``: the eduqa CLI with ``backup`` and ``restore``
registered, for subprocess tests (until appliance/cli.py registers them itself)."""

from appliance.cli import main
from appliance.ops.cli import backup_command, restore_command

main.add_command(backup_command)
main.add_command(restore_command)

if __name__ == "__main__":
    main()
