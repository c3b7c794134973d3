"""Sub-commands of ``wavematch``; registered in :data:`streams.cli.COMMANDS`."""
