"""The parts of one observer run that :mod:`sitemap_updater.observe.observer` puts together:
what a run keeps of each host and section (:mod:`.state`), the engines' calls, each isolated
(:mod:`.engines`), and the sharing of the run's time among the hosts and their sections
(:mod:`.hosts`)."""
