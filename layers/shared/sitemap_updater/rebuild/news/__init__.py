"""The rebuild's Google News output, in one place: the articles of the news files and their
rendering (``desk``), and the run's steps that read them back and publish them (``files``).
The news object itself, its rules and its element, are in ``protocol.extensions.news``."""
