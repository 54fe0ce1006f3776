"""The subcommands of ``sitemap-updater``, one module each, named after the command.

Each defines ``add_arguments(parser)`` and ``run(args) -> int``; ``cli`` imports only the one
chosen.
"""
