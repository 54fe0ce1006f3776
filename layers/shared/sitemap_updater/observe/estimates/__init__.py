"""What the observer estimates from its samples, and how sure it is: a proportion's Wilson
interval, quantiles, and a time to an event's quantiles from a Kaplan-Meier curve
(:mod:`.statistics`); and which changes are samples of the crawl latency (:mod:`.latency`)."""
