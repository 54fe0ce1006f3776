"""Writing local output so that a failure never costs the previous good output.

``replaced_file`` replaces one file atomically (``backfill --out``); ``staged_directory``
replaces a build's files in its output directory all at once and keeps the manifest of what
the build wrote (``build``).
"""
